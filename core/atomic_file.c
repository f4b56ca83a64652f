#include "tycho/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

tycho_status tycho_atomic_begin(tycho_atomic_file *af, const char *path, tycho_err *err)
{
    memset(af, 0, sizeof *af);
    size_t n = strlen(path);
    /* the temp name is path + ".tmpXXXXXX": keep room for it */
    if (n == 0 || n + 12 > sizeof af->tmp)
        return tycho_fail(err, TYCHO_EINVAL, "%s: path empty or too long", n ? path : "''");
    memcpy(af->path, path, n + 1);
    /* Same folder as the destination, so rename() stays within one file
     * system and is atomic. Hidden-ish suffix so globbing *.pgm skips it. */
    snprintf(af->tmp, sizeof af->tmp, "%s.tmpXXXXXX", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int e = errno;
        af->tmp[0] = '\0';
        return tycho_fail(err, TYCHO_EIO, "%s: cannot create a temporary file: %s", path,
                          strerror(e));
    }
    /* mkstemp makes 0600; map files are meant to be shared like any other */
    (void)fchmod(fd, 0644);
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        int e = errno;
        close(fd);
        unlink(af->tmp);
        af->tmp[0] = '\0';
        return tycho_fail(err, TYCHO_EIO, "%s: %s", path, strerror(e));
    }
    return TYCHO_OK;
}

void tycho_atomic_abort(tycho_atomic_file *af)
{
    if (af->fp) fclose(af->fp);
    af->fp = NULL;
    if (af->tmp[0]) unlink(af->tmp);
    af->tmp[0] = '\0';
}

/* Makes the rename itself durable; failure here is not an error for the
 * content (the file is complete), so it is best effort. */
static void sync_parent_dir(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

tycho_status tycho_atomic_commit(tycho_atomic_file *af, tycho_err *err)
{
    if (!af->fp) return tycho_fail(err, TYCHO_EINVAL, "%s: atomic file not open", af->path);
    FILE *fp = af->fp;
    af->fp = NULL;
    int bad = ferror(fp) || fflush(fp) != 0 || fsync(fileno(fp)) != 0;
    int e = errno;
    if (fclose(fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        tycho_atomic_abort(af);
        return tycho_fail(err, TYCHO_EIO, "%s: write failed: %s", af->path,
                          e ? strerror(e) : "stream error");
    }
    if (rename(af->tmp, af->path) != 0) {
        e = errno;
        tycho_atomic_abort(af);
        return tycho_fail(err, TYCHO_EIO, "%s: cannot rename into place: %s", af->path,
                          strerror(e));
    }
    af->tmp[0] = '\0';
    sync_parent_dir(af->path);
    return TYCHO_OK;
}

tycho_status tycho_atomic_write(const char *path, const void *data, size_t size, tycho_err *err)
{
    tycho_atomic_file af;
    tycho_status st = tycho_atomic_begin(&af, path, err);
    if (st != TYCHO_OK) return st;
    if (size && fwrite(data, 1, size, af.fp) != size) {
        int e = errno;
        tycho_atomic_abort(&af);
        return tycho_fail(err, TYCHO_EIO, "%s: write failed: %s", path, strerror(e));
    }
    return tycho_atomic_commit(&af, err);
}
