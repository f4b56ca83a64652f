/* Driver plugins: finding, checking, opening. See loader.h. */
#include "loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SETTINGS 32

struct tycho_device {
    void *so;
    const tycho_driver *drv;
    void *dev;
    uint64_t seq;
};

/* Every device kind, once: its name in configs and Lua, and how messages
 * say it ("an imu"). A new kind is one line here (and its enum value). */
static const struct {
    const char *name, *a_name;
} KINDS[] = {
    [TYCHO_DEVICE_RANGE_SCANNER] = {"range_scanner", "a range_scanner"},
    [TYCHO_DEVICE_THERMAL_CAMERA] = {"thermal_camera", "a thermal_camera"},
    [TYCHO_DEVICE_IMU] = {"imu", "an imu"},
    [TYCHO_DEVICE_DIFF_BASE] = {"diff_base", "a diff_base"},
    [TYCHO_DEVICE_LAUNCHER] = {"launcher", "a launcher"},
};
#define NKINDS ((int)(sizeof KINDS / sizeof KINDS[0]))

static bool known_kind(int k) { return k >= 1 && k < NKINDS && KINDS[k].name; }

int tycho_device_kind_parse(const char *name)
{
    for (int k = 1; k < NKINDS; k++)
        if (name && KINDS[k].name && !strcmp(name, KINDS[k].name)) return k;
    return -1;
}

const char *tycho_device_kind_name(tycho_device_kind k)
{
    return known_kind((int)k) ? KINDS[k].name : "?";
}

static const char *a_kind(tycho_device_kind k)
{
    return known_kind((int)k) ? KINDS[k].a_name : "an unknown device";
}

/* The descriptor's own consistency, before anything of it is called. */
static tycho_status check_descriptor(const tycho_driver *d, const char *file, const char *driver,
                                     tycho_device_kind kind, tycho_err *err)
{
    if (d->abi != TYCHO_DRIVER_ABI)
        return tycho_fail(
            err, TYCHO_EINVAL,
            "%s: driver ABI version %u, this runtime speaks version %d (rebuild the driver)", file,
            d->abi, TYCHO_DRIVER_ABI);
    if (!d->name || strcmp(d->name, driver) != 0)
        return tycho_fail(err, TYCHO_EINVAL,
                          "%s: malformed descriptor: its name is '%s', expected '%s'", file,
                          d->name ? d->name : "(none)", driver);
    if (!known_kind((int)d->kind))
        return tycho_fail(err, TYCHO_EINVAL, "%s: malformed descriptor: unknown device kind %d",
                          file, (int)d->kind);
    if (!d->open || !d->close || !d->read)
        return tycho_fail(err, TYCHO_EINVAL,
                          "%s: malformed descriptor: open, close and read are required", file);
    bool actuator = d->kind == TYCHO_DEVICE_DIFF_BASE || d->kind == TYCHO_DEVICE_LAUNCHER;
    if (actuator && !d->write)
        return tycho_fail(err, TYCHO_EINVAL, "%s: malformed descriptor: %s needs write", file,
                          a_kind(d->kind));
    int n = 0;
    for (const tycho_setting_schema *s = d->settings; s && s->name; s++, n++)
        if (s->type < TYCHO_SETTING_INT || s->type > TYCHO_SETTING_BOOL || n >= MAX_SETTINGS)
            return tycho_fail(err, TYCHO_EINVAL,
                              "%s: malformed descriptor: setting '%s' has a bad type", file,
                              s->name);
    if (d->kind != kind)
        return tycho_fail(err, TYCHO_EINVAL, "driver %s is for %s, not %s", driver, a_kind(d->kind),
                          a_kind(kind));
    return TYCHO_OK;
}

static bool typed(tycho_setting_type t, const char *v)
{
    char *end;
    switch (t) {
    case TYCHO_SETTING_INT:
        errno = 0;
        strtol(v, &end, 0);
        return *v && !*end && !errno;
    case TYCHO_SETTING_NUMBER:
        strtod(v, &end);
        return *v && !*end;
    case TYCHO_SETTING_BOOL:
        return !strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "1") || !strcmp(v, "0");
    default:
        return true;
    }
}

static const char *type_name(tycho_setting_type t)
{
    return t == TYCHO_SETTING_INT      ? "an integer"
           : t == TYCHO_SETTING_NUMBER ? "a number"
           : t == TYCHO_SETTING_BOOL   ? "true or false"
                                       : "a string";
}

/* Checks the given settings against the schema; fills out[] with every
 * schema entry (given value or default). Returns the count or -1. */
static int check_settings(const tycho_driver *d, const tycho_setting *in, int n, tycho_setting *out,
                          tycho_err *err)
{
    for (int i = 0; i < n; i++) {
        const tycho_setting_schema *s = d->settings;
        while (s && s->name && strcmp(s->name, in[i].name)) s++;
        if (!s || !s->name) {
            char known[256] = "";
            for (s = d->settings; s && s->name; s++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         known[0] ? ", " : "", s->name);
            tycho_fail(err, TYCHO_EINVAL, "driver %s: unknown setting '%s' (known: %s)", d->name,
                       in[i].name, known[0] ? known : "none");
            return -1;
        }
        if (!typed(s->type, in[i].value)) {
            tycho_fail(err, TYCHO_EINVAL, "driver %s: setting '%s' must be %s (got '%s')", d->name,
                       s->name, type_name(s->type), in[i].value);
            return -1;
        }
    }
    int k = 0;
    for (const tycho_setting_schema *s = d->settings; s && s->name; s++) {
        const char *v = tycho_setting_value(in, n, s->name);
        if (!v) v = s->default_value;
        if (!v) {
            tycho_fail(err, TYCHO_EINVAL, "driver %s: setting '%s' is required (%s)", d->name,
                       s->name, s->doc ? s->doc : "");
            return -1;
        }
        out[k].name = s->name;
        out[k++].value = v;
    }
    return k;
}

tycho_device *tycho_device_open(const char *path, const char *driver, tycho_device_kind kind,
                                const tycho_setting *settings, int n, tycho_err *err)
{
    for (const char *c = driver; c && *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) {
            tycho_fail(err, TYCHO_EINVAL, "driver name '%s': lower-case letters, digits and _ only",
                       driver);
            return NULL;
        }
    if (!driver || !*driver) {
        tycho_fail(err, TYCHO_EINVAL, "no driver name");
        return NULL;
    }
    char file[1024] = "", tried[1024] = "";
    void *so = NULL;
    for (const char *p = path ? path : ""; *p && !so;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(file, sizeof file, "%.*s/tycho_drv_%s.so", (int)len, p, driver);
        if (access(file, F_OK) == 0) {
            so = dlopen(file, RTLD_NOW | RTLD_LOCAL);
            if (!so) {
                tycho_fail(err, TYCHO_EINVAL, "%s: cannot load: %s", file, dlerror());
                return NULL;
            }
        } else {
            snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s%.*s",
                     tried[0] ? ", " : "", (int)len, p);
        }
        p += len + (colon ? 1 : 0);
    }
    if (!so) {
        tycho_fail(err, TYCHO_EINVAL, "no driver '%s' (tycho_drv_%s.so) in %s", driver, driver,
                   tried[0] ? tried : "(empty path)");
        return NULL;
    }
    const tycho_driver *d = dlsym(so, TYCHO_DRIVER_SYMBOL);
    if (!d) {
        tycho_fail(err, TYCHO_EINVAL, "%s: not a tycho driver (no symbol %s)", file,
                   TYCHO_DRIVER_SYMBOL);
        dlclose(so);
        return NULL;
    }
    tycho_setting full[MAX_SETTINGS];
    int k;
    if (check_descriptor(d, file, driver, kind, err) != TYCHO_OK ||
        (k = check_settings(d, settings, n, full, err)) < 0) {
        dlclose(so);
        return NULL;
    }
    char msg[256] = "";
    void *dev = d->open(full, k, msg, sizeof msg);
    if (!dev) {
        tycho_fail(err, TYCHO_EIO, "%s: %s", driver, msg[0] ? msg : "could not open the device");
        dlclose(so);
        return NULL;
    }
    tycho_device *h = calloc(1, sizeof *h);
    if (!h) {
        d->close(dev);
        dlclose(so);
        tycho_fail(err, TYCHO_ENOMEM, "out of memory");
        return NULL;
    }
    h->so = so;
    h->drv = d;
    h->dev = dev;
    return h;
}

int tycho_device_read(tycho_device *d, tycho_sample *out, tycho_err *err)
{
    char msg[256] = "";
    int r = d->drv->read(d->dev, out, &d->seq, msg, sizeof msg);
    if (r < 0) tycho_fail(err, TYCHO_EIO, "%s: %s", d->drv->name, msg[0] ? msg : "read failed");
    return r < 0 ? -1 : r > 0;
}

tycho_status tycho_device_write(tycho_device *d, const tycho_command *cmd, tycho_err *err)
{
    if (!d->drv->write)
        return tycho_fail(err, TYCHO_EINVAL, "%s: %s takes no commands", d->drv->name,
                          a_kind(d->drv->kind));
    char msg[256] = "";
    if (d->drv->write(d->dev, cmd, msg, sizeof msg) < 0)
        return tycho_fail(err, TYCHO_EINVAL, "%s: %s", d->drv->name,
                          msg[0] ? msg : "command refused");
    return TYCHO_OK;
}

const tycho_driver *tycho_device_driver(const tycho_device *d) { return d->drv; }

void tycho_device_close(tycho_device *d)
{
    if (!d) return;
    d->drv->close(d->dev);
    dlclose(d->so);
    free(d);
}
