// SPDX-License-Identifier: Apache-2.0
// See ci2c.h. libi2c (i2c-tools >= 4.0) returns -errno from its SMBus
// helpers; older copies return -1 with errno set. normalize() accepts both.
#include "ci2c.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <i2c/smbus.h>

static int normalize(int result) {
    if (result >= 0) return result;
    return errno != 0 ? -errno : result;
}

int ci2c_open_path(const char *path) {
    if (path == NULL) return -EINVAL;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int ci2c_open_bus(int number) {
    if (number < 0) return -EINVAL;
    char path[32];
    snprintf(path, sizeof path, "/dev/i2c-%d", number);
    return ci2c_open_path(path);
}

int ci2c_close(int fd) {
    return close(fd) < 0 ? -errno : 0;
}

int ci2c_select_address(int fd, uint8_t address, int force) {
    if (address > 0x7F) return -EINVAL;  /* 8-bit forms (0x38) are a caller bug */
    unsigned long request = force ? I2C_SLAVE_FORCE : I2C_SLAVE;
    return ioctl(fd, request, (unsigned long)address) < 0 ? -errno : 0;
}

int ci2c_functionality_of(int fd, ci2c_functionality *out) {
    unsigned long funcs = 0;
    if (out == NULL) return -EINVAL;
    if (ioctl(fd, I2C_FUNCS, &funcs) < 0) return -errno;
    out->raw = funcs;
    out->plain_i2c = (funcs & I2C_FUNC_I2C) != 0;
    out->byte_data = (funcs & I2C_FUNC_SMBUS_BYTE_DATA) == I2C_FUNC_SMBUS_BYTE_DATA;
    out->i2c_block_read = (funcs & I2C_FUNC_SMBUS_READ_I2C_BLOCK) != 0;
    out->i2c_block_write = (funcs & I2C_FUNC_SMBUS_WRITE_I2C_BLOCK) != 0;
    return 0;
}

int ci2c_read_byte_data(int fd, uint8_t reg) {
    errno = 0;
    return normalize(i2c_smbus_read_byte_data(fd, reg));
}

int ci2c_write_byte_data(int fd, uint8_t reg, uint8_t value) {
    errno = 0;
    return normalize(i2c_smbus_write_byte_data(fd, reg, value));
}

int ci2c_read_i2c_block(int fd, uint8_t command, uint8_t *buffer, uint8_t length) {
    if (buffer == NULL || length == 0 || length > CI2C_BLOCK_MAX) return -EINVAL;
    errno = 0;
    /* libi2c stores `length` in data.block[0] before the ioctl: the length
       the kernel asks the adapter for. Hand-rolled versions that skip this
       read garbage lengths (the SwiftyGPIO bug). */
    int got = normalize(i2c_smbus_read_i2c_block_data(fd, command, length, buffer));
    if (got >= 0 && got != length) return -EIO;  /* a short block is a failed block */
    return got;
}

int ci2c_write_read(int fd, uint8_t address, uint8_t command, uint8_t *buffer, uint16_t length) {
    if (buffer == NULL || length == 0 || length > CI2C_TRANSFER_MAX || address > 0x7F) return -EINVAL;
    struct i2c_msg messages[2] = {
        { .addr = address, .flags = 0, .len = 1, .buf = &command },
        { .addr = address, .flags = I2C_M_RD, .len = length, .buf = buffer },
    };
    struct i2c_rdwr_ioctl_data transfer = { .msgs = messages, .nmsgs = 2 };
    /* The kernel returns the number of messages completed: anything but
       both is a failed transfer, never half a FIFO taken as whole. */
    int done = ioctl(fd, I2C_RDWR, &transfer);
    if (done < 0) return -errno;
    return done == 2 ? length : -EIO;
}

int ci2c_write_i2c_block(int fd, uint8_t command, const uint8_t *buffer, uint8_t length) {
    if (buffer == NULL || length == 0 || length > CI2C_BLOCK_MAX) return -EINVAL;
    errno = 0;
    return normalize(i2c_smbus_write_i2c_block_data(fd, command, length, buffer));
}
