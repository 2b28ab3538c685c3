// SPDX-License-Identifier: GPL-2.0-only
/*
 * accel_emu's INT pins, and the interrupts they raise.
 *
 * Each chip has two pins, INT1 and INT2, driven as the datasheets say: a
 * pin carries the interrupt signals its part's registers route to it (the
 * part's table: struct emu_pin_map), at the polarity they select. Its
 * level is worked out again wherever the chip's state changes (a sample
 * made, a read that clears data ready or drains the FIFO, a write to the
 * routing or polarity: emu_pins_update), and each change is counted.
 *
 * The pins are the lines of a GPIO controller (gpiolib), label
 * "accel_emu", two per chip in the order of `parts`, named like
 * lis302dl-0x1c-int1: gpiolib's character device serves them as a
 * board's GPIO lines, inputs only. Each line has an interrupt of its own
 * in the module's irq domain (gpio_chip.to_irq), edge-triggered: a change
 * in the direction its consumer asked for (gpiolib-cdev's edge detector,
 * for GPIO_V2_LINE_FLAG_EDGE_RISING / _FALLING) raises it once emu_lock
 * is dropped, from the hrtimer's tick at a sample's instant, or from the
 * transfer that made the change.
 *
 * Apart from the lines, a chip whose part has data ready on INT1 has the
 * peers' irq: given to an I2C client made at its address (client->init_irq,
 * as a device tree's `interrupts` would be), it fires once per tick that
 * made samples while data ready is routed, so the kernel's own st_accel
 * and st_lsm6dsx get a trigger of their own. It is not the INT1 line's
 * interrupt: a peer driver and a GPIO consumer can both listen.
 */
#include <linux/ctype.h>
#include <linux/gpio/driver.h>

#include "accel_emu.h"

/*
 * The domain's hwirqs: the peers' irq of chip i is i; the interrupt of
 * GPIO line n (INT1 of chip i is 2i, INT2 2i + 1) is EMU_MAX_CHIPS + n.
 */
#define EMU_LINE_HWIRQ(offset) (EMU_MAX_CHIPS + (offset))
#define EMU_HWIRQS (EMU_MAX_CHIPS * (1 + EMU_PINS))
/* A pin changes at most a few times in one hold of emu_lock (a sample
 * made, then read): more are one edge to the consumer, as on a wire. */
#define EMU_PENDING_MAX 4

static struct fwnode_handle *emu_irq_fwnode;
static struct irq_domain *emu_irq_domain;
static bool emu_notifier_registered;
static bool emu_gpio_added;
static const char *emu_line_names[EMU_MAX_CHIPS * EMU_PINS];

static struct emu_line *emu_line_at(unsigned int offset)
{
	return &emu_chips[offset / EMU_PINS]->lines[offset % EMU_PINS];
}

/* --- the levels ------------------------------------------------------------- */

/* Whether a pin carries one of the active signals, as its part routes them. */
static bool emu_pin_active(const struct emu_chip *chip, const struct emu_pin_map *map, u16 signals)
{
	const struct emu_route *route;

	for (route = map->routes; route < map->routes + EMU_ROUTES && route->field.mask; route++)
		if ((route->signals & signals) && emu_get(chip, route->field) == route->value)
			return true;
	return false;
}

/*
 * Drives each pin from the chip's signals, routing and polarity, under
 * emu_lock. A change is counted, and when it is in the direction the
 * line's consumer asked for, it is an interrupt to raise once emu_lock is
 * dropped (emu_unlock_and_raise).
 */
void emu_pins_update(struct emu_chip *chip)
{
	u16 signals = emu_signals(chip);
	int pin;

	for (pin = 0; pin < EMU_PINS; pin++) {
		const struct emu_pin_map *map = &chip->part->pins[pin];
		struct emu_line *line = &chip->lines[pin];
		bool level = emu_pin_active(chip, map, signals) != !!emu_get(chip, map->active_low);
		unsigned int edge = level ? IRQ_TYPE_EDGE_RISING : IRQ_TYPE_EDGE_FALLING;

		if (level == line->level)
			continue;
		line->level = level;
		if (level)
			line->rises++;
		else
			line->falls++;
		if (level && line->probe_armed && !line->probe_rise)
			line->probe_rise = ktime_get();
		if (READ_ONCE(line->enabled) && (READ_ONCE(line->type) & edge) &&
		    line->pending < EMU_PENDING_MAX) {
			line->pending++;
			line->raised++;
		}
	}
}

/*
 * Drops emu_lock (taken with spin_lock_irqsave), then raises the
 * interrupts the pins' changes made meanwhile, in order. gpiolib-cdev's
 * handler stamps each with the time it runs: for a sample, its tick.
 */
void emu_unlock_and_raise(unsigned long flags)
	__releases(&emu_lock)
{
	unsigned int virqs[EMU_MAX_CHIPS * EMU_PINS * EMU_PENDING_MAX];
	unsigned int n = 0, i;
	int c, pin;

	for (c = 0; c < emu_nchips; c++) {
		for (pin = 0; pin < EMU_PINS; pin++) {
			struct emu_line *line = &emu_chips[c]->lines[pin];

			for (; line->pending; line->pending--)
				virqs[n++] = line->virq;
		}
	}
	spin_unlock_irqrestore(&emu_lock, flags);
	for (i = 0; i < n; i++)
		generic_handle_irq_safe(virqs[i]);
}

/* --- the GPIO controller ------------------------------------------------------ */

static int emu_gpio_get_direction(struct gpio_chip *gc, unsigned int offset)
{
	return GPIO_LINE_DIRECTION_IN;
}

static int emu_gpio_direction_input(struct gpio_chip *gc, unsigned int offset)
{
	return 0;
}

/* The chip drives its pins: a line is never an output. */
static int emu_gpio_direction_output(struct gpio_chip *gc, unsigned int offset, int value)
{
	return -EPERM;
}

/* The pin's level now: every sample due is made first, as a transfer does. */
static int emu_gpio_get(struct gpio_chip *gc, unsigned int offset)
{
	struct emu_chip *chip = emu_chips[offset / EMU_PINS];
	unsigned long flags;
	bool level;

	spin_lock_irqsave(&emu_lock, flags);
	emu_produce(chip, ktime_get());
	level = chip->lines[offset % EMU_PINS].level;
	emu_unlock_and_raise(flags);
	return level;
}

static int emu_gpio_to_irq(struct gpio_chip *gc, unsigned int offset)
{
	return emu_line_at(offset)->virq;
}

static struct gpio_chip emu_gpio = {
	.label = "accel_emu",
	.owner = THIS_MODULE,
	.base = -1,
	.get_direction = emu_gpio_get_direction,
	.direction_input = emu_gpio_direction_input,
	.direction_output = emu_gpio_direction_output,
	.get = emu_gpio_get,
	.to_irq = emu_gpio_to_irq,
	.can_sleep = false,
};

/* --- the lines' interrupts ---------------------------------------------------- */

static void emu_line_irq_mask(struct irq_data *data)
{
	struct emu_line *line = irq_data_get_irq_chip_data(data);

	WRITE_ONCE(line->enabled, false);
}

static void emu_line_irq_unmask(struct irq_data *data)
{
	struct emu_line *line = irq_data_get_irq_chip_data(data);

	WRITE_ONCE(line->enabled, true);
}

/* Edges, rising, falling or both; a level-triggered line is not modelled. */
static int emu_line_irq_set_type(struct irq_data *data, unsigned int type)
{
	struct emu_line *line = irq_data_get_irq_chip_data(data);

	if (type & ~IRQ_TYPE_EDGE_BOTH)
		return -EINVAL;
	WRITE_ONCE(line->type, type);
	return IRQ_SET_MASK_OK;
}

/* The line stays an input while its interrupt is held (gpiolib's rule). */
static int emu_line_irq_request_resources(struct irq_data *data)
{
	struct emu_line *line = irq_data_get_irq_chip_data(data);

	return gpiochip_reqres_irq(&emu_gpio, line->offset);
}

static void emu_line_irq_release_resources(struct irq_data *data)
{
	struct emu_line *line = irq_data_get_irq_chip_data(data);

	gpiochip_relres_irq(&emu_gpio, line->offset);
}

static struct irq_chip emu_line_irq_chip = {
	.name = "accel_emu",
	.irq_mask = emu_line_irq_mask,
	.irq_unmask = emu_line_irq_unmask,
	.irq_set_type = emu_line_irq_set_type,
	.irq_request_resources = emu_line_irq_request_resources,
	.irq_release_resources = emu_line_irq_release_resources,
	.flags = IRQCHIP_SKIP_SET_WAKE,
};

/* --- the peers' irq ------------------------------------------------------------ */

static void emu_irq_noop(struct irq_data *data)
{
}

static int emu_irq_set_type(struct irq_data *data, unsigned int type)
{
	return 0;	/* a wire: any type is what the chip drives */
}

static struct irq_chip emu_irq_chip = {
	.name = "accel_emu",
	.irq_mask = emu_irq_noop,
	.irq_unmask = emu_irq_noop,
	.irq_set_type = emu_irq_set_type,
};

/*
 * A client made on the adapter at a chip's address (new_device) gets the
 * chip's peers' irq, as a device tree's `interrupts` would give it: before
 * its driver probes, which then makes the chip's own trigger. It goes in
 * init_irq: i2c_device_probe() starts from client->irq = client->init_irq,
 * so a line set in client->irq alone is gone by the time the driver looks.
 */
static int emu_i2c_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct i2c_client *client = i2c_verify_client(data);
	struct emu_chip *chip;

	if (action != BUS_NOTIFY_ADD_DEVICE || !client || client->adapter != &emu_adapter ||
	    client->init_irq)
		return NOTIFY_DONE;
	chip = emu_find(client->addr);
	if (chip && chip->irq) {
		client->init_irq = chip->irq;
		client->irq = chip->irq;
	}
	return NOTIFY_OK;
}

static struct notifier_block emu_i2c_notifier = {
	.notifier_call = emu_i2c_notify,
};

/* --- setting up ---------------------------------------------------------------- */

/*
 * The irq domain: the peers' irq of each chip whose part has data ready
 * on INT1 (rising edge), and an interrupt per line; then the notifier
 * that gives the peers theirs.
 */
int emu_irq_setup(void)
{
	int i, pin, error;

	emu_irq_fwnode = irq_domain_alloc_named_fwnode("accel_emu");
	if (!emu_irq_fwnode)
		return -ENOMEM;
	emu_irq_domain = irq_domain_create_linear(emu_irq_fwnode, EMU_HWIRQS,
						  &irq_domain_simple_ops, NULL);
	if (!emu_irq_domain)
		return -ENOMEM;
	for (i = 0; i < emu_nchips; i++) {
		struct emu_chip *chip = emu_chips[i];
		unsigned int virq;

		for (pin = 0; pin < EMU_PINS; pin++) {
			struct emu_line *line = &chip->lines[pin];
			char *c;

			line->offset = i * EMU_PINS + pin;
			snprintf(line->name, sizeof(line->name), "%s-0x%02x-int%d",
				 chip->part->name, chip->addr, pin + 1);
			for (c = line->name; *c; c++)
				*c = tolower(*c);
			virq = irq_create_mapping(emu_irq_domain, EMU_LINE_HWIRQ(line->offset));
			if (!virq)
				return -ENOMEM;
			irq_set_chip_data(virq, line);
			irq_set_chip_and_handler(virq, &emu_line_irq_chip, handle_simple_irq);
			line->virq = virq;
		}
		if (!chip->part->drdy_int.mask)
			continue;
		virq = irq_create_mapping(emu_irq_domain, i);
		if (!virq)
			return -ENOMEM;
		irq_set_chip_and_handler(virq, &emu_irq_chip, handle_simple_irq);
		irq_set_irq_type(virq, IRQ_TYPE_EDGE_RISING);
		chip->irq = virq;
	}
	error = bus_register_notifier(&i2c_bus_type, &emu_i2c_notifier);
	if (error)
		return error;
	emu_notifier_registered = true;
	return 0;
}

void emu_irq_teardown(void)
{
	int i, pin;

	if (emu_notifier_registered)
		bus_unregister_notifier(&i2c_bus_type, &emu_i2c_notifier);
	emu_notifier_registered = false;
	for (i = 0; i < emu_nchips; i++) {
		struct emu_chip *chip = emu_chips[i];

		for (pin = 0; pin < EMU_PINS; pin++) {
			if (chip->lines[pin].virq)
				irq_dispose_mapping(chip->lines[pin].virq);
			chip->lines[pin].virq = 0;
		}
		if (chip->irq)
			irq_dispose_mapping(chip->irq);
		chip->irq = 0;
	}
	if (emu_irq_domain)
		irq_domain_remove(emu_irq_domain);
	if (emu_irq_fwnode)
		irq_domain_free_fwnode(emu_irq_fwnode);
	emu_irq_domain = NULL;
	emu_irq_fwnode = NULL;
}

/* The GPIO controller, under the adapter's device (after emu_irq_setup). */
int emu_gpio_setup(void)
{
	int n, error;

	for (n = 0; n < emu_nchips * EMU_PINS; n++)
		emu_line_names[n] = emu_line_at(n)->name;
	emu_gpio.parent = &emu_adapter.dev;
	emu_gpio.ngpio = emu_nchips * EMU_PINS;
	emu_gpio.names = emu_line_names;
	error = gpiochip_add_data(&emu_gpio, NULL);
	if (error) {
		pr_err("accel_emu: the GPIO controller of the INT pins was refused (%d)\n", error);
		return error;
	}
	emu_gpio_added = true;
	return 0;
}

void emu_gpio_teardown(void)
{
	if (emu_gpio_added)
		gpiochip_remove(&emu_gpio);
	emu_gpio_added = false;
}
