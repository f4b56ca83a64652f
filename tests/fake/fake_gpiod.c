/* Test-only libgpiod (see fake_gpiod.h). Implements the subset of the 1.6
 * API the drivers use, or of the 2.x API with FAKE_GPIOD_V2, against one
 * in-memory chip. Not linked into the runtime. */
#include "fake_gpiod.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if FAKE_GPIOD_V2
#include "v2/gpiod.h"
#else
#include <gpiod.h>
#endif

#define MAX_LINES 64
#define MAX_EVENTS (1 << 20)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char chip_path[256];
static unsigned chip_lines;
static int level[MAX_LINES];
static bool requested[MAX_LINES];
static fake_gpiod_event *events;
static size_t nevents;
static long fail_after = -1;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void fake_gpiod_reset(const char *path, unsigned nlines)
{
    pthread_mutex_lock(&mu);
    strncpy(chip_path, path, sizeof chip_path - 1);
    chip_lines = nlines < MAX_LINES ? nlines : MAX_LINES;
    memset(level, 0, sizeof level);
    memset(requested, 0, sizeof requested);
    if (!events) events = malloc(sizeof *events * MAX_EVENTS);
    nevents = 0;
    fail_after = -1;
    pthread_mutex_unlock(&mu);
}

void fake_gpiod_fail_after(long n)
{
    pthread_mutex_lock(&mu);
    fail_after = n;
    pthread_mutex_unlock(&mu);
}

fake_gpiod_event *fake_gpiod_events(size_t *n)
{
    pthread_mutex_lock(&mu);
    fake_gpiod_event *copy = malloc(sizeof *copy * (nevents ? nevents : 1));
    if (copy && nevents) memcpy(copy, events, sizeof *copy * nevents);
    *n = copy ? nevents : 0;
    pthread_mutex_unlock(&mu);
    return copy;
}

int fake_gpiod_level(unsigned offset)
{
    pthread_mutex_lock(&mu);
    int v = offset < MAX_LINES && requested[offset] ? level[offset] : -1;
    pthread_mutex_unlock(&mu);
    return v;
}

int fake_gpiod_requested(void)
{
    int n = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < MAX_LINES; i++) n += requested[i];
    pthread_mutex_unlock(&mu);
    return n;
}

static void (*listener)(double t, unsigned offset, int value);

void fake_gpiod_listen(void (*fn)(double t, unsigned offset, int value))
{
    pthread_mutex_lock(&mu);
    listener = fn;
    pthread_mutex_unlock(&mu);
}

/* Records a change; -1 (errno EIO) once the failure budget is spent. */
static int set_level(unsigned offset, int v)
{
    pthread_mutex_lock(&mu);
    int rc = 0;
    if (offset >= chip_lines || !requested[offset]) {
        errno = EPERM;
        rc = -1;
    } else if (fail_after == 0) {
        errno = EIO;
        rc = -1;
    } else {
        if (fail_after > 0) fail_after--;
        if (level[offset] != v && nevents < MAX_EVENTS)
            events[nevents++] = (fake_gpiod_event){now_s(), offset, v};
        if (level[offset] != v && listener) listener(now_s(), offset, v);
        level[offset] = v;
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

static int claim(unsigned offset, int v)
{
    pthread_mutex_lock(&mu);
    if (offset >= chip_lines || requested[offset]) {
        pthread_mutex_unlock(&mu);
        errno = offset >= chip_lines ? EINVAL : EBUSY;
        return -1;
    }
    requested[offset] = true;
    level[offset] = !v; /* so the first value is recorded */
    pthread_mutex_unlock(&mu);
    return set_level(offset, v);
}

static void unclaim(unsigned offset)
{
    pthread_mutex_lock(&mu);
    if (offset < MAX_LINES) requested[offset] = false;
    pthread_mutex_unlock(&mu);
}

struct gpiod_chip {
    int open;
};

struct gpiod_chip *gpiod_chip_open(const char *path)
{
    if (!path || strcmp(path, chip_path) != 0) {
        errno = ENOENT;
        return NULL;
    }
    struct gpiod_chip *c = calloc(1, sizeof *c);
    if (c) c->open = 1;
    return c;
}

void gpiod_chip_close(struct gpiod_chip *chip) { free(chip); }

#if !FAKE_GPIOD_V2
struct gpiod_line {
    unsigned offset;
    int requested;
};

static struct gpiod_line line_table[MAX_LINES];

struct gpiod_line *gpiod_chip_get_line(struct gpiod_chip *chip, unsigned int offset)
{
    if (!chip || offset >= chip_lines) {
        errno = EINVAL;
        return NULL;
    }
    line_table[offset].offset = offset;
    return &line_table[offset];
}

int gpiod_line_request_output(struct gpiod_line *line, const char *consumer, int default_val)
{
    (void)consumer;
    if (claim(line->offset, default_val ? 1 : 0) < 0) return -1;
    line->requested = 1;
    return 0;
}

int gpiod_line_set_value(struct gpiod_line *line, int value)
{
    return set_level(line->offset, value ? 1 : 0);
}

void gpiod_line_release(struct gpiod_line *line)
{
    line->requested = 0;
    unclaim(line->offset);
}
#else
struct gpiod_line_settings {
    int direction, value;
};
struct gpiod_line_config {
    unsigned offsets[MAX_LINES];
    int n, value;
};
struct gpiod_request_config {
    int unused;
};
struct gpiod_line_request {
    unsigned offsets[MAX_LINES];
    int n;
};

struct gpiod_line_settings *gpiod_line_settings_new(void)
{
    return calloc(1, sizeof(struct gpiod_line_settings));
}
void gpiod_line_settings_free(struct gpiod_line_settings *s) { free(s); }
int gpiod_line_settings_set_direction(struct gpiod_line_settings *s, enum gpiod_line_direction d)
{
    s->direction = (int)d;
    return 0;
}
int gpiod_line_settings_set_output_value(struct gpiod_line_settings *s, enum gpiod_line_value v)
{
    s->value = (int)v;
    return 0;
}
struct gpiod_line_config *gpiod_line_config_new(void)
{
    return calloc(1, sizeof(struct gpiod_line_config));
}
void gpiod_line_config_free(struct gpiod_line_config *c) { free(c); }
int gpiod_line_config_add_line_settings(struct gpiod_line_config *c, const unsigned int *offsets,
                                        size_t n, struct gpiod_line_settings *s)
{
    if (s->direction != GPIOD_LINE_DIRECTION_OUTPUT || c->n + (int)n > MAX_LINES) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < n; i++) c->offsets[c->n++] = offsets[i];
    c->value = s->value;
    return 0;
}
struct gpiod_request_config *gpiod_request_config_new(void)
{
    return calloc(1, sizeof(struct gpiod_request_config));
}
void gpiod_request_config_free(struct gpiod_request_config *c) { free(c); }
void gpiod_request_config_set_consumer(struct gpiod_request_config *c, const char *consumer)
{
    (void)c;
    (void)consumer;
}
struct gpiod_line_request *gpiod_chip_request_lines(struct gpiod_chip *chip,
                                                    struct gpiod_request_config *rc,
                                                    struct gpiod_line_config *lc)
{
    (void)rc;
    if (!chip) return NULL;
    struct gpiod_line_request *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    for (int i = 0; i < lc->n; i++) {
        if (claim(lc->offsets[i], lc->value == GPIOD_LINE_VALUE_ACTIVE) < 0) {
            for (int j = 0; j < i; j++) unclaim(lc->offsets[j]);
            free(r);
            return NULL;
        }
        r->offsets[r->n++] = lc->offsets[i];
    }
    return r;
}
int gpiod_line_request_set_value(struct gpiod_line_request *r, unsigned int offset,
                                 enum gpiod_line_value v)
{
    for (int i = 0; i < r->n; i++)
        if (r->offsets[i] == offset) return set_level(offset, v == GPIOD_LINE_VALUE_ACTIVE);
    errno = EINVAL;
    return -1;
}
void gpiod_line_request_release(struct gpiod_line_request *r)
{
    for (int i = 0; i < r->n; i++) unclaim(r->offsets[i]);
    free(r);
}
#endif
