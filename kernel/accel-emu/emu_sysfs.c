// SPDX-License-Identifier: GPL-2.0-only
/*
 * accel_emu's attributes, a folder per chip on the adapter's device:
 * /sys/bus/i2c/devices/i2c-N/emu-0xNN/ (docs/EMULATOR.md lists them).
 * Reading one that depends on the clock makes every sample due first, as
 * a transfer does.
 */
#include "accel_emu.h"

static const char *const emu_counter_names[EMU_COUNTERS] = {
	"samples", "dropped", "delivered", "reads", "empty_reads", "late",
};

#define to_emu_attribute(a) container_of(a, struct emu_attribute, attr)

static ssize_t emu_counter_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_attribute *ea = to_emu_attribute(attr);
	unsigned long flags;
	u64 value;

	spin_lock_irqsave(&emu_lock, flags);
	emu_produce(ea->chip, ktime_get());
	value = ea->chip->counters[ea->counter];
	emu_unlock_and_raise(flags);
	return sysfs_emit(buf, "%llu\n", value);
}

/* All counters at one instant, with that instant: "t_ns samples dropped
 * delivered reads empty_reads fifo_level", t_ns on CLOCK_MONOTONIC (the
 * clock of acceld's frame timestamps), so a check can cut a client's
 * stream at exactly the moments it read the chip's counts. */
static ssize_t emu_counters_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	u64 values[EMU_COUNTERS];
	unsigned long flags;
	unsigned int level;
	ktime_t now;

	spin_lock_irqsave(&emu_lock, flags);
	now = ktime_get();
	emu_produce(chip, now);
	memcpy(values, chip->counters, sizeof(values));
	level = emu_fifo_level(chip);
	emu_unlock_and_raise(flags);
	return sysfs_emit(buf, "%lld %llu %llu %llu %llu %llu %u\n", ktime_to_ns(now), values[MADE],
			  values[DROPPED], values[DELIVERED], values[READS], values[EMPTY_READS], level);
}

static ssize_t emu_part_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_emu_attribute(attr)->chip->part->name);
}

static ssize_t emu_odr_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;

	u32 mhz = READ_ONCE(chip->running) ? READ_ONCE(chip->mhz) : 0;

	/* Hz, with the fraction where there is one (the LSM6DSO's 12.5 Hz) */
	if (mhz % 1000)
		return sysfs_emit(buf, "%u.%03u\n", mhz / 1000, mhz % 1000);
	return sysfs_emit(buf, "%u\n", mhz / 1000);
}

static ssize_t emu_period_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(chip->running) ? READ_ONCE(chip->period_ns) : 0);
}

static ssize_t emu_fifo_level_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	unsigned long flags;
	unsigned int level;

	spin_lock_irqsave(&emu_lock, flags);
	emu_produce(chip, ktime_get());
	level = emu_fifo_level(chip);
	emu_unlock_and_raise(flags);
	return sysfs_emit(buf, "%u\n", level);
}

/*
 * The current phase's clock in CLOCK_MONOTONIC ns: sample n of the phase
 * is made at phase_start_ns + n × period_ns, exactly (the emulator's own
 * instants; a new rate, power-up or clock_ppm starts a new phase). 0 while
 * the chip is powered down.
 */
static ssize_t emu_phase_start_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	unsigned long flags;
	s64 start;

	spin_lock_irqsave(&emu_lock, flags);
	start = chip->running ? ktime_to_ns(chip->start) : 0;
	spin_unlock_irqrestore(&emu_lock, flags);
	return sysfs_emit(buf, "%lld\n", start);
}

/* "start_ns period_ns next now_ns" at one instant: the phase, the number
 * of its next sample (the last made is next - 1), and that instant. */
static ssize_t emu_phase_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	unsigned long flags;
	s64 start = 0;
	u64 period = 0, next = 0;
	ktime_t now;

	spin_lock_irqsave(&emu_lock, flags);
	now = ktime_get();
	emu_produce(chip, now);
	if (chip->running) {
		start = ktime_to_ns(chip->start);
		period = chip->period_ns;
		next = chip->next;
	}
	emu_unlock_and_raise(flags);
	return sysfs_emit(buf, "%lld %llu %llu %lld\n", start, period, next, ktime_to_ns(now));
}

/*
 * An INT pin: "level rises falls raised". level is what the pin drives
 * now (1 high, 0 low: after its polarity); rises and falls count its
 * changes since the module was loaded; raised counts the interrupts given
 * to the consumer of its GPIO line (gpiolib's edge detector), edges in the
 * direction it asked for while it held the line.
 */
static ssize_t emu_pin_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_attribute *ea = to_emu_attribute(attr);
	struct emu_line *line = &ea->chip->lines[ea->counter];
	unsigned long flags;
	u64 rises, falls, raised;
	bool level;

	spin_lock_irqsave(&emu_lock, flags);
	emu_produce(ea->chip, ktime_get());
	level = line->level;
	rises = line->rises;
	falls = line->falls;
	raised = line->raised;
	emu_unlock_and_raise(flags);
	return sysfs_emit(buf, "%d %llu %llu %llu\n", level, rises, falls, raised);
}

static ssize_t emu_motion_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;

	if (chip->motion == TILT)
		return sysfs_emit(buf, "tilt\n");
	if (chip->motion == SHAKE)
		return sysfs_emit(buf, "shake %lld %d %d %d\n", ktime_to_ns(chip->shake_start),
				  chip->force_mg[0], chip->force_mg[1], chip->force_mg[2]);
	return sysfs_emit(buf, "%s%d %d %d\n", chip->motion == COUNT ? "count " : "",
			  chip->force_mg[0], chip->force_mg[1], chip->force_mg[2]);
}

/*
 * "tilt"; "X Y Z", a fixed specific force in mg (each within ±16 g);
 * "count": X is the sample's number modulo 2^bits (a clipped digit pattern,
 * not a force), Y 0 and Z 1 g; or "shake": the fixed force, with ±1500 mg
 * on X flipping each 125 ms for 1.5 s from now (reads "shake START_NS X Y
 * Z": samples whose instant is at or after START_NS are shaken).
 */
static ssize_t emu_motion_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	unsigned long flags;
	s32 mg[3];
	int i;

	if (sysfs_streq(buf, "tilt") || sysfs_streq(buf, "count")) {
		spin_lock_irqsave(&emu_lock, flags);
		chip->motion = sysfs_streq(buf, "tilt") ? TILT : COUNT;
		chip->force_mg[0] = chip->force_mg[1] = 0;
		chip->force_mg[2] = 1000;
		spin_unlock_irqrestore(&emu_lock, flags);
		return count;
	}
	if (sysfs_streq(buf, "shake")) {
		/* About the fixed force (0 0 1000 after tilt or count), from now:
		 * samples made from this instant on are shaken. */
		spin_lock_irqsave(&emu_lock, flags);
		chip->motion = SHAKE;
		chip->shake_start = ktime_get();
		spin_unlock_irqrestore(&emu_lock, flags);
		return count;
	}
	if (sscanf(buf, "%d %d %d", &mg[0], &mg[1], &mg[2]) != 3)
		return -EINVAL;
	for (i = 0; i < 3; i++)
		if (mg[i] < -16000 || mg[i] > 16000)
			return -ERANGE;
	spin_lock_irqsave(&emu_lock, flags);
	chip->motion = FIXED;
	memcpy(chip->force_mg, mg, sizeof(mg));
	spin_unlock_irqrestore(&emu_lock, flags);
	return count;
}

static ssize_t emu_rate_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;

	return sysfs_emit(buf, "%d %d %d\n", chip->rate_mdps[0], chip->rate_mdps[1], chip->rate_mdps[2]);
}

/* "X Y Z": the fixed motion's rotation rate in mdps (each within ±4000 dps),
 * what a gyroscope reads while the force stays as written. */
static ssize_t emu_rate_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	unsigned long flags;
	s32 mdps[3];
	int i;

	if (sscanf(buf, "%d %d %d", &mdps[0], &mdps[1], &mdps[2]) != 3)
		return -EINVAL;
	for (i = 0; i < 3; i++)
		if (mdps[i] < -4000000 || mdps[i] > 4000000)
			return -ERANGE;
	spin_lock_irqsave(&emu_lock, flags);
	memcpy(chip->rate_mdps, mdps, sizeof(mdps));
	spin_unlock_irqrestore(&emu_lock, flags);
	return count;
}

static void emu_attribute(struct emu_chip *chip, int n, const char *name, umode_t mode, int counter,
			  ssize_t (*show)(struct device *, struct device_attribute *, char *),
			  ssize_t (*store)(struct device *, struct device_attribute *, const char *, size_t))
{
	struct emu_attribute *ea = &chip->attrs[n];

	sysfs_attr_init(&ea->attr.attr);
	ea->attr.attr.name = name;
	ea->attr.attr.mode = mode;
	ea->attr.show = show;
	ea->attr.store = store;
	ea->chip = chip;
	ea->counter = counter;
	chip->attr_list[n] = &ea->attr.attr;
}

/*
 * Both pins and the chip's counts at one instant: "t_ns samples delivered"
 * then "level rises falls raised" for INT1 and for INT2, t_ns on
 * CLOCK_MONOTONIC, so that a check can compare a pin's edges with the
 * samples made and read in the same window, and with an edge consumer's
 * kernel timestamps.
 */
static ssize_t emu_pins_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	struct emu_line lines[EMU_PINS];
	unsigned long flags;
	u64 made, delivered;
	ktime_t now;

	spin_lock_irqsave(&emu_lock, flags);
	now = ktime_get();
	emu_produce(chip, now);
	made = chip->counters[MADE];
	delivered = chip->counters[DELIVERED];
	memcpy(lines, chip->lines, sizeof(lines));
	emu_unlock_and_raise(flags);
	return sysfs_emit(buf, "%lld %llu %llu %d %llu %llu %llu %d %llu %llu %llu\n",
			  ktime_to_ns(now), made, delivered,
			  lines[0].level, lines[0].rises, lines[0].falls, lines[0].raised,
			  lines[1].level, lines[1].rises, lines[1].falls, lines[1].raised);
}

/*
 * A pin's probe, for the time from an edge to the host's first read of a
 * sample: writing arms it (and clears what it held); reading gives
 * "armed rise_ns read_ns": the pin's first rise since it was armed (when
 * the emulator raised it: at the sample's tick, or in the transfer that
 * made the sample first) and the start of the first transfer after that
 * rise that delivered a sample (read its last output byte, or popped it
 * from the FIFO), CLOCK_MONOTONIC; 0 for what has not happened yet.
 */
static ssize_t emu_probe_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_attribute *ea = to_emu_attribute(attr);
	struct emu_line *line = &ea->chip->lines[ea->counter];
	unsigned long flags;
	ktime_t rise, read;
	bool armed;

	spin_lock_irqsave(&emu_lock, flags);
	emu_produce(ea->chip, ktime_get());
	armed = line->probe_armed;
	rise = line->probe_rise;
	read = line->probe_read;
	emu_unlock_and_raise(flags);
	return sysfs_emit(buf, "%d %lld %lld\n", armed, ktime_to_ns(rise), ktime_to_ns(read));
}

static ssize_t emu_probe_store(struct device *dev, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct emu_attribute *ea = to_emu_attribute(attr);
	struct emu_line *line = &ea->chip->lines[ea->counter];
	unsigned long flags;

	spin_lock_irqsave(&emu_lock, flags);
	emu_produce(ea->chip, ktime_get());
	line->probe_armed = true;
	line->probe_rise = 0;
	line->probe_read = 0;
	emu_unlock_and_raise(flags);
	return count;
}

void emu_attributes(struct emu_chip *chip)
{
	int n;

	for (n = 0; n < EMU_COUNTERS; n++)
		emu_attribute(chip, n, emu_counter_names[n], 0444, n, emu_counter_show, NULL);
	emu_attribute(chip, n++, "counters", 0444, -1, emu_counters_show, NULL);
	emu_attribute(chip, n++, "part", 0444, -1, emu_part_show, NULL);
	emu_attribute(chip, n++, "odr", 0444, -1, emu_odr_show, NULL);
	emu_attribute(chip, n++, "period_ns", 0444, -1, emu_period_show, NULL);
	emu_attribute(chip, n++, "fifo_level", 0444, -1, emu_fifo_level_show, NULL);
	emu_attribute(chip, n++, "motion", 0644, -1, emu_motion_show, emu_motion_store);
	emu_attribute(chip, n++, "rate", 0644, -1, emu_rate_show, emu_rate_store);
	emu_attribute(chip, n++, "phase_start_ns", 0444, -1, emu_phase_start_show, NULL);
	emu_attribute(chip, n++, "phase", 0444, -1, emu_phase_show, NULL);
	emu_attribute(chip, n++, "int1", 0444, 0, emu_pin_show, NULL);
	emu_attribute(chip, n++, "int2", 0444, 1, emu_pin_show, NULL);
	emu_attribute(chip, n++, "pins", 0444, -1, emu_pins_show, NULL);
	emu_attribute(chip, n++, "int1_probe", 0644, 0, emu_probe_show, emu_probe_store);
	emu_attribute(chip, n++, "int2_probe", 0644, 1, emu_probe_show, emu_probe_store);
	chip->attr_list[n] = NULL;
	snprintf(chip->group_name, sizeof(chip->group_name), "emu-0x%02x", chip->addr);
	chip->group.name = chip->group_name;
	chip->group.attrs = chip->attr_list;
}

