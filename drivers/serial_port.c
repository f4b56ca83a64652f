/* Raw serial ports: see serial_port.h. */
#include "serial_port.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static speed_t baud_constant(int baud)
{
    switch (baud) {
    case 9600:
        return B9600;
    case 57600:
        return B57600;
    case 115200:
        return B115200;
    case 230400:
        return B230400;
    case 460800:
        return B460800;
    case 1000000:
        return B1000000;
    default:
        return 0;
    }
}

int tycho_serial_open(const char *path, int baud, tycho_err *err)
{
    speed_t sp = baud_constant(baud);
    if (!sp) {
        tycho_fail(err, TYCHO_EINVAL, "%s: unsupported baud rate %d", path, baud);
        return -1;
    }
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        tycho_fail(err, TYCHO_EIO,
                   "cannot open %s: %s (is it plugged in, and are you in group dialout?)", path,
                   strerror(errno));
        return -1;
    }
    struct termios t;
    if (tcgetattr(fd, &t) < 0) {
        tycho_fail(err, TYCHO_EIO, "%s is not a serial port: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cflag &= ~(CSTOPB | CRTSCTS);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    cfsetispeed(&t, sp);
    cfsetospeed(&t, sp);
    if (tcsetattr(fd, TCSANOW, &t) < 0) {
        tycho_fail(err, TYCHO_EIO, "%s: cannot configure: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    tcflush(fd, TCIOFLUSH);
    return fd;
}

long tycho_serial_read(int fd, void *buf, size_t cap, double timeout_s)
{
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, (int)(timeout_s * 1000 + 0.5));
    if (r < 0) return errno == EINTR ? 0 : -1;
    if (r == 0) return 0;
    if (p.revents & (POLLERR | POLLNVAL)) return -1;
    ssize_t n = read(fd, buf, cap);
    if (n < 0) return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    if (n == 0 && (p.revents & POLLHUP)) return -1; /* the other end is gone */
    return (long)n;
}

int tycho_serial_write_all(int fd, const void *buf, size_t n)
{
    const uint8_t *b = buf;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, b + done, n - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                struct pollfd p = {fd, POLLOUT, 0};
                if (poll(&p, 1, 100) <= 0) return -1;
                continue;
            }
            return -1;
        }
        done += (size_t)w;
    }
    return 0;
}
