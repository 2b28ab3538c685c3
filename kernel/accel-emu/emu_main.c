// SPDX-License-Identifier: GPL-2.0-only
/*
 * accel_emu: LIS302DL-class accelerometers behind an emulated I2C adapter,
 * for acceld's kernel stage (docs/TESTING.md, docs/EMULATOR.md). i2c-stub
 * is a register file: its STATUS never clears, nothing keeps time, nothing
 * overruns, there is no FIFO, no interrupt pin. These chips do all that as
 * the datasheets say, on their own clock, so the sampler's timing can be
 * tested against a real kernel.
 *
 * This file is the module: its parameters, the chips they name, loading
 * and unloading. The chips' core is emu_core.c (the LIS302DL and LIS3DH)
 * and emu_six_axis.c (the LSM6DSO); the adapter emu_i2c.c; the attributes
 * emu_sysfs.c; the INT pins, as GPIO lines and interrupts, emu_gpio.c.
 */
#include "accel_emu.h"

/* The parts `parts` may name. */
static const struct emu_part *const emu_all_parts[] = { &emu_lis302dl, &emu_lis3dh, &emu_lsm6dso };

/* One lock for the adapter: transfers, the chips' timers, the pins. */
DEFINE_SPINLOCK(emu_lock);
/* Guards the chip list against clock_ppm writes while loading and unloading. */
DEFINE_MUTEX(emu_config_mutex);
struct emu_chip *emu_chips[EMU_MAX_CHIPS];
int emu_nchips;
static const struct attribute_group *emu_groups[EMU_MAX_CHIPS + 1];

int emu_clock_ppm;
static char *parts = "lis302dl@0x1c,lis3dh@0x18";
static bool smbus_only;

struct emu_chip *emu_find(u16 addr)
{
	int i;

	for (i = 0; i < emu_nchips; i++)
		if (emu_chips[i]->addr == addr)
			return emu_chips[i];
	return NULL;
}

/* --- parameters ------------------------------------------------------------- */

/* A new clock error takes effect at the next sample, keeping its instant. */
static int emu_clock_ppm_set(const char *value, const struct kernel_param *kp)
{
	unsigned long flags;
	int ppm, error, i;

	error = kstrtoint(value, 0, &ppm);
	if (error) {
		pr_err("accel_emu: clock_ppm '%s' is not a whole number of ppm\n", value);
		return error;
	}
	if (ppm < -EMU_CLOCK_PPM_LIMIT || ppm > EMU_CLOCK_PPM_LIMIT) {
		pr_err("accel_emu: clock_ppm %d is out of bounds: the datasheets allow the output data rate ±10 %% off (-%d..%d)\n",
		       ppm, EMU_CLOCK_PPM_LIMIT, EMU_CLOCK_PPM_LIMIT);
		return -EINVAL;
	}
	mutex_lock(&emu_config_mutex);
	spin_lock_irqsave(&emu_lock, flags);
	emu_clock_ppm = ppm;
	for (i = 0; i < emu_nchips; i++) {
		struct emu_chip *chip = emu_chips[i];
		ktime_t due;

		if (!chip->running)
			continue;
		emu_produce(chip, ktime_get());
		due = emu_due(chip);
		chip->period_ns = emu_period_ns(chip->mhz);
		chip->start = ktime_sub_ns(due, chip->period_ns);
		chip->next = 1;
		chip->rearm = true;
	}
	emu_unlock_and_raise(flags);
	emu_rearm_changed();
	mutex_unlock(&emu_config_mutex);
	return 0;
}

static const struct kernel_param_ops emu_clock_ppm_ops = {
	.set = emu_clock_ppm_set,
	.get = param_get_int,
};
module_param_cb(clock_ppm, &emu_clock_ppm_ops, &emu_clock_ppm, 0644);
MODULE_PARM_DESC(clock_ppm, "The chips' clock error in ppm, -100000..100000 (±10 %, the datasheets' tolerance): 30000 is 3 % fast");
module_param(parts, charp, 0444);
MODULE_PARM_DESC(parts, "The chips, PART@ADDRESS separated by commas (parts: lis302dl, lis3dh, lsm6dso; at most 4): default lis302dl@0x1c,lis3dh@0x18");
module_param(smbus_only, bool, 0444);
MODULE_PARM_DESC(smbus_only, "Offer SMBus transfers only, no plain I2C (as i2c-stub does)");

/* Parses `parts` into chips; says exactly what is wrong otherwise. */
static int emu_parse_parts(void)
{
	char *list, *cursor, *item;
	int error = 0;

	list = kstrdup(parts ? parts : "", GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cursor = list;
	while ((item = strsep(&cursor, ",")) != NULL) {
		char *at = strchr(item, '@');
		const struct emu_part *part = NULL;
		struct emu_chip *chip;
		unsigned int addr, i;

		if (!*item)
			continue;
		if (!at || kstrtouint(at + 1, 0, &addr)) {
			pr_err("accel_emu: parts: '%s' is not PART@ADDRESS (such as lis302dl@0x1c)\n", item);
			error = -EINVAL;
			break;
		}
		*at = '\0';
		for (i = 0; i < ARRAY_SIZE(emu_all_parts); i++)
			if (!strcasecmp(item, emu_all_parts[i]->name))
				part = emu_all_parts[i];
		if (!part) {
			pr_err("accel_emu: parts: unknown part '%s' (known: lis302dl, lis3dh, lsm6dso)\n", item);
			error = -EINVAL;
			break;
		}
		if (addr < 0x08 || addr > 0x77) {
			pr_err("accel_emu: parts: address 0x%x for %s is not a 7-bit device address (0x08..0x77)\n",
			       addr, part->name);
			error = -EINVAL;
			break;
		}
		if (emu_find(addr)) {
			pr_err("accel_emu: parts: two chips at 0x%02x\n", addr);
			error = -EINVAL;
			break;
		}
		if (emu_nchips == EMU_MAX_CHIPS) {
			pr_err("accel_emu: parts: at most %d chips\n", EMU_MAX_CHIPS);
			error = -EINVAL;
			break;
		}
		chip = kzalloc(sizeof(*chip), GFP_KERNEL);
		if (!chip) {
			error = -ENOMEM;
			break;
		}
		chip->part = part;
		chip->addr = addr;
		emu_chip_init(chip);
		emu_attributes(chip);
		emu_groups[emu_nchips] = &chip->group;
		emu_chips[emu_nchips++] = chip;
	}
	kfree(list);
	if (!error && emu_nchips == 0) {
		pr_err("accel_emu: parts: no chips named\n");
		error = -EINVAL;
	}
	return error;
}

static void emu_free_chips(void)
{
	while (emu_nchips > 0) {
		struct emu_chip *chip = emu_chips[--emu_nchips];

		hrtimer_cancel(&chip->timer);
		kfree(chip);
		emu_chips[emu_nchips] = NULL;
		emu_groups[emu_nchips] = NULL;
	}
}

static int __init emu_init(void)
{
	int error, i;

	emu_core_init();
	mutex_lock(&emu_config_mutex);
	error = emu_parse_parts();
	if (error)
		goto fail;
	error = emu_irq_setup();
	if (error)
		goto fail;
	error = emu_i2c_add(smbus_only, emu_groups);
	if (error)
		goto fail;
	error = emu_gpio_setup();
	if (error) {
		emu_i2c_remove();
		goto fail;
	}
	mutex_unlock(&emu_config_mutex);
	for (i = 0; i < emu_nchips; i++)
		pr_info("accel_emu: i2c-%d: %s at 0x%02x, clock %+d ppm%s\n", emu_adapter.nr,
			emu_chips[i]->part->name, emu_chips[i]->addr, emu_clock_ppm, smbus_only ? ", SMBus only" : "");
	return 0;
fail:
	emu_irq_teardown();
	emu_free_chips();
	mutex_unlock(&emu_config_mutex);
	return error;
}

static void __exit emu_exit(void)
{
	emu_gpio_teardown();
	emu_i2c_remove();
	mutex_lock(&emu_config_mutex);
	emu_irq_teardown();
	emu_free_chips();
	mutex_unlock(&emu_config_mutex);
}

module_init(emu_init);
module_exit(emu_exit);
MODULE_DESCRIPTION("LIS302DL-class accelerometers on an emulated I2C adapter, for acceld's tests");
MODULE_AUTHOR("acceld maintainers");
MODULE_LICENSE("GPL");
