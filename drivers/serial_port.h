/* A serial port in raw mode (termios), for the LiDARs and the OpenCR board:
 * 8N1, no flow control, no line discipline, the given baud rate. */
#ifndef TYCHO_SERIAL_PORT_H
#define TYCHO_SERIAL_PORT_H

#include "tycho/common.h"

/* Returns the fd, or -1 with err set ("cannot open /dev/ttyACM0: ..."). */
int tycho_serial_open(const char *path, int baud, tycho_err *err);
/* Reads what arrives within timeout_s (0 = what is there); bytes read, 0 on
 * timeout, -1 on error. */
long tycho_serial_read(int fd, void *buf, size_t cap, double timeout_s);
/* Writes all of it (the port may take it in pieces); -1 on error. */
int tycho_serial_write_all(int fd, const void *buf, size_t n);

#endif
