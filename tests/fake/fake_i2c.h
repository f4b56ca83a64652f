/* Test-only I2C bus: linked into a test, it takes over open(), ioctl() and
 * close() for paths starting with /dev/i2c-fake, so a driver and libi2c run
 * their real code (libi2c's SMBus calls end in ioctl(I2C_SMBUS)) against
 * register models of an AMG8833 and an MPU-6050. Everything else passes
 * through to the C library. */
#ifndef TYCHO_FAKE_I2C_H
#define TYCHO_FAKE_I2C_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { FAKE_I2C_AMG8833, FAKE_I2C_MPU6050, FAKE_I2C_PLAIN } fake_i2c_kind;

typedef struct {
    fake_i2c_kind kind;
    uint8_t regs[256];
    bool nack; /* stops answering */
    long reads, writes;
} fake_i2c_dev;

void fake_i2c_reset(void);
/* A device at `address` on bus path `bus` (e.g. /dev/i2c-fake1), registers at power-on values. */
fake_i2c_dev *fake_i2c_add(const char *bus, int address, fake_i2c_kind kind);
/* AMG8833 helpers: a 12-bit pixel / thermistor raw value into the registers. */
void fake_i2c_amg_pixel(fake_i2c_dev *d, int index, uint16_t raw12);
void fake_i2c_amg_thermistor(fake_i2c_dev *d, uint16_t raw12);
/* Calls hook(device, address, register) before every read is served (under
 * the bus's lock), so a feeder may refresh the registers. */
void fake_i2c_on_read(void (*hook)(fake_i2c_dev *d, int address, uint8_t reg));
/* MPU-6050: a big-endian 16-bit value at a register pair. */
void fake_i2c_mpu_word(fake_i2c_dev *d, int reg, int16_t value);

#endif
