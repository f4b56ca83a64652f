/* libFuzzer target: CARMEN log parsing. A parsed log must be consistent
 * (every laser's readings inside the range pool, finite non-negative
 * readings, finite poses, odometry interpolation finite); a failure must
 * leave nothing behind and name the input. */
#include "tycho/carmen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool finite_pose(tycho_pose2 p) { return isfinite(p.x) && isfinite(p.y) && isfinite(p.yaw); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tycho_err err = {0};
    tycho_carmen_log log;
    if (tycho_carmen_parse((const char *)data, size, "fuzz.log", &log, &err) == TYCHO_OK) {
        size_t used = 0;
        for (size_t i = 0; i < log.n_lasers; i++) {
            const tycho_carmen_laser *l = &log.lasers[i];
            if (l->count < 1 || l->first != used) abort();
            used += (size_t)l->count;
            if (used > log.n_ranges) abort();
            if (!finite_pose(l->pose) || !finite_pose(l->odom) || !isfinite(l->t)) abort();
        }
        if (used != log.n_ranges) abort();
        for (size_t i = 0; i < log.n_ranges; i++)
            if (!(log.ranges[i] >= 0) || !isfinite(log.ranges[i])) abort();
        for (size_t i = 0; i < log.n_odom; i++)
            if (!finite_pose(log.odom[i].pose) || !isfinite(log.odom[i].t)) abort();
        for (size_t i = 0; log.n_odom && i < log.n_lasers; i++) {
            tycho_pose2 p = tycho_carmen_wheel_at(&log, i);
            if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.yaw)) abort();
        }
        tycho_carmen_free(&log);
    } else if (log.odom || log.lasers || log.ranges || !strstr(err.msg, "fuzz.log")) {
        abort();
    }
    return 0;
}
