/* Atomic file writing: write to a temporary file in the destination's folder,
 * flush and fsync it, then rename() over the destination. Readers see either
 * the old file or the complete new one, never a partial file, and a failure
 * (full disk, error mid-way, crash) leaves the destination untouched.
 *
 * The new file keeps the permissions of the one it replaces (a new file is
 * 0644). A symbolic link is followed: its target is replaced, the link
 * stays; anything but a regular file (a directory, a FIFO, a device) is
 * refused. Temporary files are PATH.tmp-PID-XXXXXX; one left by a process
 * that died mid-write (kill -9, power cut) is removed by the next write
 * to the same path. */
#ifndef TYCHO_ATOMIC_FILE_H
#define TYCHO_ATOMIC_FILE_H

#include <stdio.h>

#include "tycho/common.h"

typedef struct {
    FILE *fp;        /* write the content here */
    char path[4096]; /* final destination */
    char tmp[4096];  /* temporary file beside it */
} tycho_atomic_file;

/* Creates the temporary file (the destination's mode, else 0644) and opens af->fp for writing. */
tycho_status tycho_atomic_begin(tycho_atomic_file *af, const char *path, tycho_err *err);
/* Flushes, fsyncs, closes and renames into place; on any failure the
 * temporary file is removed and the destination left as it was. */
tycho_status tycho_atomic_commit(tycho_atomic_file *af, tycho_err *err);
/* Discards the temporary file (safe to call after a failed commit). */
void tycho_atomic_abort(tycho_atomic_file *af);

/* Writes `size` bytes as the whole content of `path`, atomically. */
tycho_status tycho_atomic_write(const char *path, const void *data, size_t size, tycho_err *err);

#endif
