/* Loading driver plugins (drivers/include/tycho/driver.h) and talking to
 * the devices they open. Used by the Lua binding (tycho.device). */
#ifndef TYCHO_LOADER_H
#define TYCHO_LOADER_H

#include "tycho/common.h"
#include "tycho/driver.h"

typedef struct tycho_device tycho_device;

/* "range_scanner", "thermal_camera", "imu", "diff_base", "launcher" <-> kind */
int tycho_device_kind_parse(const char *name);
const char *tycho_device_kind_name(tycho_device_kind k);

/* Finds tycho_drv_<driver>.so on `path` (directories separated by ':'),
 * checks ABI, descriptor and kind, checks the settings against the schema
 * (unknown names, types, required ones; defaults filled in) and opens. */
tycho_device *tycho_device_open(const char *path, const char *driver, tycho_device_kind kind,
                                const tycho_setting *settings, int n, tycho_err *err);
/* 1 new sample, 0 nothing new, -1 error (err). */
int tycho_device_read(tycho_device *d, tycho_sample *out, tycho_err *err);
tycho_status tycho_device_write(tycho_device *d, const tycho_command *cmd, tycho_err *err);
const tycho_driver *tycho_device_driver(const tycho_device *d);
void tycho_device_close(tycho_device *d);

#endif
