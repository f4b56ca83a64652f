#include "tycho/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A process that is gone or only a zombie (killed, not yet reaped: it
 * writes nothing more) counts as dead. */
static bool process_alive(long pid)
{
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return false;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return true; /* no /proc: trust kill() */
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return !(paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

/* The temporary files of `base` in `dir` are named base.tmp-PID-XXXXXX.
 * Those whose process is gone (killed mid-write) are removed here, so a
 * kill -9 leaves at most one behind, until the next write. Other live
 * processes' files are left alone: their rename is still to come. */
static void remove_stale_temps(const char *dir, const char *base)
{
    DIR *d = opendir(dir);
    if (!d) return;
    size_t nb = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, nb) != 0 || strncmp(n + nb, ".tmp-", 5) != 0) continue;
        char *end;
        long pid = strtol(n + nb + 5, &end, 10);
        if (end == n + nb + 5 || *end != '-' || strlen(end + 1) != 6 || pid <= 0) continue;
        if (pid == (long)getpid()) continue; /* ours: another write in progress */
        if (process_alive(pid)) continue;
        char full[4096 + 256];
        snprintf(full, sizeof full, "%s/%s", dir, n);
        (void)unlink(full);
    }
    closedir(d);
}

/* dir and base name of path (dir "." when there is no slash) */
static void split_path(const char *path, char *dir, size_t ndir, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, ndir, ".");
        *base = path;
    } else if (slash == path) {
        snprintf(dir, ndir, "/");
        *base = slash + 1;
    } else {
        snprintf(dir, ndir, "%.*s", (int)(slash - path), path);
        *base = slash + 1;
    }
}

tycho_status tycho_atomic_begin(tycho_atomic_file *af, const char *path, tycho_err *err)
{
    memset(af, 0, sizeof *af);
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof af->path)
        return tycho_fail(err, TYCHO_EINVAL, "%s: path empty or too long", n ? path : "''");
    memcpy(af->path, path, n + 1);
    /* A symbolic link is followed: its target is replaced and the link
     * stays (renaming over the link would turn it into a regular file). */
    struct stat lst, st;
    mode_t mode = 0644; /* a new file: readable like any map or log */
    if (lstat(path, &lst) == 0) {
        if (S_ISLNK(lst.st_mode)) {
            char *real = realpath(path, NULL);
            if (!real)
                return tycho_fail(err, TYCHO_EIO, "%s: a dangling symbolic link (%s)", path,
                                  strerror(errno));
            size_t nr = strlen(real);
            if (nr >= sizeof af->path) {
                free(real);
                return tycho_fail(err, TYCHO_EINVAL, "%s: path too long", path);
            }
            memcpy(af->path, real, nr + 1);
            free(real);
        }
        if (stat(af->path, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                return tycho_fail(err, TYCHO_EINVAL, "%s: is a directory", path);
            if (!S_ISREG(st.st_mode))
                return tycho_fail(err, TYCHO_EINVAL, "%s: not a regular file (refused)", path);
            mode = st.st_mode & 07777; /* keep the file's permissions (a 0600 file stays private) */
        }
    }
    char dir[4096];
    const char *base;
    split_path(af->path, dir, sizeof dir, &base);
    remove_stale_temps(dir, base);
    /* Same folder as the destination, so rename() stays within one file
     * system and is atomic. A suffix, so globbing *.pgm skips it. */
    int w = snprintf(af->tmp, sizeof af->tmp, "%s.tmp-%ld-XXXXXX", af->path, (long)getpid());
    if (w < 0 || (size_t)w >= sizeof af->tmp)
        return tycho_fail(err, TYCHO_EINVAL, "%s: path too long", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int e = errno;
        af->tmp[0] = '\0';
        return tycho_fail(err, TYCHO_EIO, "%s: cannot create a temporary file: %s", path,
                          strerror(e));
    }
    (void)fchmod(fd, mode); /* mkstemp makes 0600 */
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
