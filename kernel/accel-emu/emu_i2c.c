// SPDX-License-Identifier: GPL-2.0-only
/*
 * accel_emu's I2C adapter: plain I2C (master_xfer) and SMBus transfers to
 * the chips at their addresses. Each transfer is atomic against the
 * chips' timers, as a chip's burst is, and makes first every sample whose
 * instant has passed; the INT pins it changes raise their interrupts once
 * it is done (emu_unlock_and_raise).
 */
#include "accel_emu.h"

/* The chip at an address, with every sample due made. */
static struct emu_chip *emu_begin(u16 addr, ktime_t now)
{
	struct emu_chip *chip = emu_find(addr);

	if (chip)
		emu_produce(chip, now);
	return chip;
}

/* Plain I2C: a write sets the sub-address (and writes on), a read reads on. */
static int emu_master_xfer(struct i2c_adapter *adapter, struct i2c_msg *msgs, int num)
{
	unsigned long flags;
	ktime_t now = ktime_get();
	int i, result = num;

	spin_lock_irqsave(&emu_lock, flags);
	for (i = 0; i < num; i++) {
		struct i2c_msg *msg = &msgs[i];
		struct emu_chip *chip;

		if (msg->flags & (I2C_M_TEN | I2C_M_RECV_LEN)) {
			result = -EOPNOTSUPP;
			break;
		}
		chip = (i > 0 && msg->addr == msgs[i - 1].addr) ? emu_find(msg->addr) : emu_begin(msg->addr, now);
		if (!chip) {
			result = -ENXIO;	/* nobody acknowledged the address */
			break;
		}
		if (msg->flags & I2C_M_RD) {
			emu_read(chip, msg->buf, msg->len, now);
		} else if (msg->len > 0) {
			chip->pointer = msg->buf[0];
			emu_write(chip, msg->buf + 1, msg->len - 1, now);
		}
	}
	emu_unlock_and_raise(flags);
	emu_rearm_changed();
	return result;
}

static int emu_smbus_xfer(struct i2c_adapter *adapter, u16 addr, unsigned short flags_,
			  char read_write, u8 command, int size, union i2c_smbus_data *data)
{
	unsigned long flags;
	ktime_t now = ktime_get();
	struct emu_chip *chip;
	bool read = read_write == I2C_SMBUS_READ;
	int result = 0;
	u8 word[2];

	spin_lock_irqsave(&emu_lock, flags);
	chip = emu_begin(addr, now);
	if (!chip) {
		result = -ENXIO;
		goto out;
	}
	switch (size) {
	case I2C_SMBUS_QUICK:
		break;
	case I2C_SMBUS_BYTE:
		if (read) {
			emu_read(chip, &data->byte, 1, now);
		} else {
			chip->pointer = command;
		}
		break;
	case I2C_SMBUS_BYTE_DATA:
		chip->pointer = command;
		if (read)
			emu_read(chip, &data->byte, 1, now);
		else
			emu_write(chip, &data->byte, 1, now);
		break;
	case I2C_SMBUS_WORD_DATA:
		chip->pointer = command;
		if (read) {
			emu_read(chip, word, 2, now);
			data->word = word[0] | word[1] << 8;
		} else {
			word[0] = data->word & 0xff;
			word[1] = data->word >> 8;
			emu_write(chip, word, 2, now);
		}
		break;
	case I2C_SMBUS_I2C_BLOCK_DATA:
		if (data->block[0] == 0 || data->block[0] > I2C_SMBUS_BLOCK_MAX) {
			result = -EINVAL;
			break;
		}
		chip->pointer = command;
		if (read)
			emu_read(chip, &data->block[1], data->block[0], now);
		else
			emu_write(chip, &data->block[1], data->block[0], now);
		break;
	default:
		result = -EOPNOTSUPP;
	}
out:
	emu_unlock_and_raise(flags);
	emu_rearm_changed();
	return result;
}

#define EMU_SMBUS_FUNCTIONS (I2C_FUNC_SMBUS_QUICK | I2C_FUNC_SMBUS_BYTE | \
	I2C_FUNC_SMBUS_BYTE_DATA | I2C_FUNC_SMBUS_WORD_DATA | I2C_FUNC_SMBUS_I2C_BLOCK)

static u32 emu_functionality(struct i2c_adapter *adapter)
{
	return EMU_SMBUS_FUNCTIONS | I2C_FUNC_I2C;
}

static u32 emu_smbus_functionality(struct i2c_adapter *adapter)
{
	return EMU_SMBUS_FUNCTIONS;
}

static const struct i2c_algorithm emu_algorithm = {
	.master_xfer = emu_master_xfer,
	.smbus_xfer = emu_smbus_xfer,
	.functionality = emu_functionality,
};

/* smbus_only: like i2c-stub, no plain transfers (acceld then reads a FIFO in blocks). */
static const struct i2c_algorithm emu_smbus_algorithm = {
	.smbus_xfer = emu_smbus_xfer,
	.functionality = emu_smbus_functionality,
};

struct i2c_adapter emu_adapter = {
	.owner = THIS_MODULE,
	.name = "accel_emu",
};

int emu_i2c_add(bool smbus_only, const struct attribute_group **groups)
{
	emu_adapter.algo = smbus_only ? &emu_smbus_algorithm : &emu_algorithm;
	emu_adapter.dev.groups = groups;
	return i2c_add_adapter(&emu_adapter);
}

void emu_i2c_remove(void)
{
	i2c_del_adapter(&emu_adapter);
}
