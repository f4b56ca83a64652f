/* Test-only I2C bus under libi2c: see fake_i2c.h. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "fake_i2c.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MAX_DEVS 8
#define MAX_FDS 64
#define PREFIX "/dev/i2c-fake"

typedef struct {
    char bus[64];
    int address;
    fake_i2c_dev dev;
} slot;

static slot devs[MAX_DEVS];
/* drivers read from their own threads (two cameras, two threads) */
static pthread_mutex_t mu =
    PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP; /* the read hook may open and close files */
static void (*read_hook)(fake_i2c_dev *d, int address, uint8_t reg);

void fake_i2c_on_read(void (*hook)(fake_i2c_dev *d, int address, uint8_t reg)) { read_hook = hook; }
static int ndevs;
static struct {
    bool used;
    int fd, address;
    char bus[64];
} fds[MAX_FDS];

void fake_i2c_reset(void) { ndevs = 0; }

static void power_on(fake_i2c_dev *d)
{
    memset(d->regs, 0, sizeof d->regs);
    if (d->kind == FAKE_I2C_MPU6050) {
        d->regs[0x75] = 0x68; /* WHO_AM_I */
        d->regs[0x6B] = 0x40; /* PWR_MGMT_1: asleep */
    }
}

fake_i2c_dev *fake_i2c_add(const char *bus, int address, fake_i2c_kind kind)
{
    if (ndevs == MAX_DEVS) return NULL;
    slot *s = &devs[ndevs++];
    memset(s, 0, sizeof *s);
    strncpy(s->bus, bus, sizeof s->bus - 1);
    s->address = address;
    s->dev.kind = kind;
    power_on(&s->dev);
    return &s->dev;
}

void fake_i2c_amg_pixel(fake_i2c_dev *d, int index, uint16_t raw12)
{
    d->regs[0x80 + 2 * index] = (uint8_t)(raw12 & 0xFF);
    d->regs[0x81 + 2 * index] = (uint8_t)((raw12 >> 8) & 0x0F);
}

void fake_i2c_amg_thermistor(fake_i2c_dev *d, uint16_t raw12)
{
    d->regs[0x0E] = (uint8_t)(raw12 & 0xFF);
    d->regs[0x0F] = (uint8_t)((raw12 >> 8) & 0x0F);
}

void fake_i2c_mpu_word(fake_i2c_dev *d, int reg, int16_t value)
{
    d->regs[reg] = (uint8_t)((uint16_t)value >> 8);
    d->regs[reg + 1] = (uint8_t)((uint16_t)value & 0xFF);
}

static int find_fd(int fd)
{
    for (int i = 0; i < MAX_FDS; i++)
        if (fds[i].used && fds[i].fd == fd) return i;
    return -1;
}

static fake_i2c_dev *device(const char *bus, int address)
{
    for (int i = 0; i < ndevs; i++)
        if (devs[i].address == address && !strcmp(devs[i].bus, bus)) return &devs[i].dev;
    return NULL;
}

/* The register model's side effects. */
static void write_reg(fake_i2c_dev *d, uint8_t reg, uint8_t v)
{
    d->writes++;
    if (d->kind == FAKE_I2C_AMG8833 && reg == 0x01 && v == 0x3F) {
        /* initial reset: settings back to defaults, readings kept */
        d->regs[0x00] = d->regs[0x02] = d->regs[0x03] = d->regs[0x07] = 0;
        return;
    }
    if (d->kind == FAKE_I2C_PLAIN) return; /* a device that ignores writes */
    d->regs[reg] = v;
}

static int smbus(int k, struct i2c_smbus_ioctl_data *a)
{
    fake_i2c_dev *d = device(fds[k].bus, fds[k].address);
    if (!d || d->nack) {
        errno = ENXIO; /* what i2c-dev reports when nobody acknowledges */
        return -1;
    }
    union i2c_smbus_data *data = a->data;
    if (a->read_write == I2C_SMBUS_WRITE) {
        if (a->size == I2C_SMBUS_BYTE_DATA) write_reg(d, a->command, data->byte);
        else if (a->size == I2C_SMBUS_WORD_DATA) {
            write_reg(d, a->command, (uint8_t)(data->word & 0xFF));
            write_reg(d, (uint8_t)(a->command + 1), (uint8_t)(data->word >> 8));
        } else {
            errno = EOPNOTSUPP;
            return -1;
        }
        return 0;
    }
    d->reads++;
    if (read_hook) read_hook(d, fds[k].address, a->command);
    bool asleep = d->kind == FAKE_I2C_MPU6050 && (d->regs[0x6B] & 0x40);
    switch (a->size) {
    case I2C_SMBUS_BYTE_DATA:
        data->byte = d->regs[a->command];
        return 0;
    case I2C_SMBUS_WORD_DATA:
        data->word = (uint16_t)(d->regs[a->command] | d->regs[(uint8_t)(a->command + 1)] << 8);
        return 0;
    case I2C_SMBUS_I2C_BLOCK_BROKEN: /* what libi2c asks for a 32-byte read */
    case I2C_SMBUS_I2C_BLOCK_DATA: {
        int n = data->block[0];
        if (n < 1 || n > I2C_SMBUS_BLOCK_MAX) {
            errno = EINVAL;
            return -1;
        }
        for (int i = 0; i < n; i++) {
            uint8_t reg = (uint8_t)(a->command + i);
            /* asleep, an MPU-6050's data registers do not update: zeros here */
            data->block[1 + i] = asleep && reg >= 0x3B && reg <= 0x48 ? 0 : d->regs[reg];
        }
        return 0;
    }
    default:
        errno = EOPNOTSUPP;
        return -1;
    }
}

int open(const char *path, int flags, ...)
{
    static int (*real_open)(const char *, int, ...);
    if (!real_open) real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (strncmp(path, PREFIX, strlen(PREFIX)) != 0) return real_open(path, flags, mode);
    bool known = false;
    for (int i = 0; i < ndevs; i++) known = known || !strcmp(devs[i].bus, path);
    if (!known) {
        errno = ENOENT;
        return -1;
    }
    int fd = real_open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
    pthread_mutex_lock(&mu);
    for (int i = 0; fd >= 0 && i < MAX_FDS; i++)
        if (!fds[i].used) {
            fds[i].used = true;
            fds[i].fd = fd;
            fds[i].address = -1;
            strncpy(fds[i].bus, path, sizeof fds[i].bus - 1);
            break;
        }
    pthread_mutex_unlock(&mu);
    return fd;
}

int ioctl(int fd, unsigned long request, ...)
{
    static int (*real_ioctl)(int, unsigned long, ...);
    if (!real_ioctl) real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    int k = find_fd(fd);
    if (k < 0) return real_ioctl(fd, request, arg);
    if (request == I2C_SLAVE || request == I2C_SLAVE_FORCE) {
        long addr = (long)arg;
        if (addr < 0 || addr > 0x7F) {
            errno = EINVAL;
            return -1;
        }
        fds[k].address = (int)addr;
        return 0;
    }
    if (request == I2C_SMBUS) {
        pthread_mutex_lock(&mu);
        int rc = smbus(k, arg);
        pthread_mutex_unlock(&mu);
        return rc;
    }
    errno = ENOTTY;
    return -1;
}

int close(int fd)
{
    static int (*real_close)(int);
    if (!real_close) real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    pthread_mutex_lock(&mu);
    int k = find_fd(fd);
    if (k >= 0) fds[k].used = false;
    pthread_mutex_unlock(&mu);
    return real_close(fd);
}
