// SPDX-License-Identifier: Apache-2.0
// CI2C: the only code in acceld that talks to the kernel's i2c-dev.
//
// Every function returns a non-negative result on success and -errno on
// failure. Nothing here prints, aborts or retries: policy belongs to the
// Swift layer above, which turns errno into advice a person can act on.
#ifndef CI2C_H
#define CI2C_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Largest payload of an SMBus/I2C block transfer (I2C_SMBUS_BLOCK_MAX).
#define CI2C_BLOCK_MAX 32
/// Largest read of one plain I2C transfer we issue (the kernel caps a
/// message at 8192 bytes; the biggest FIFO we read is 192).
#define CI2C_TRANSFER_MAX 4096

/// Adapter capabilities, as reported by I2C_FUNCS, reduced to what we use.
typedef struct {
    uint64_t raw;              /* the kernel's bit mask, for diagnostics */
    int plain_i2c;             /* I2C_FUNC_I2C: arbitrary combined transfers */
    int byte_data;             /* SMBus read and write byte data */
    int i2c_block_read;        /* I2C_FUNC_SMBUS_READ_I2C_BLOCK */
    int i2c_block_write;       /* I2C_FUNC_SMBUS_WRITE_I2C_BLOCK */
} ci2c_functionality;

/// Opens /dev/i2c-<number> read-write. Returns the fd or -errno.
int ci2c_open_bus(int number);
/// Opens an adapter node by path. Returns the fd or -errno.
int ci2c_open_path(const char *path);
/// Closes the fd. Returns 0 or -errno.
int ci2c_close(int fd);
/// Selects the 7-bit target address. `force` uses I2C_SLAVE_FORCE, which
/// takes the address even from a bound kernel driver: only on request.
int ci2c_select_address(int fd, uint8_t address, int force);
/// Reads I2C_FUNCS into `out`. Returns 0 or -errno.
int ci2c_functionality_of(int fd, ci2c_functionality *out);
/// SMBus read byte data. Returns 0..255 or -errno.
int ci2c_read_byte_data(int fd, uint8_t reg);
/// SMBus write byte data. Returns 0 or -errno.
int ci2c_write_byte_data(int fd, uint8_t reg, uint8_t value);
/// I2C block read (write `command`, repeated start, read `length` bytes).
/// length must be 1..32. Returns the number of bytes read or -errno.
int ci2c_read_i2c_block(int fd, uint8_t command, uint8_t *buffer, uint8_t length);
/// One plain I2C combined transfer (I2C_RDWR): write `command` to
/// `address`, repeated start, read `length` bytes (1..CI2C_TRANSFER_MAX).
/// Needs I2C_FUNC_I2C. Unlike the SMBus calls it is not limited to 32
/// bytes: a LIS3DH's whole FIFO (192 bytes) comes in one transfer.
/// Returns the number of bytes read or -errno.
int ci2c_write_read(int fd, uint8_t address, uint8_t command, uint8_t *buffer, uint16_t length);
/// I2C block write of 1..32 bytes after `command`. Returns 0 or -errno.
int ci2c_write_i2c_block(int fd, uint8_t command, const uint8_t *buffer, uint8_t length);

#ifdef __cplusplus
}
#endif

#endif
