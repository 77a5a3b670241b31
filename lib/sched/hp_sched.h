/* SPDX-License-Identifier: BSD-3-Clause
 * The sched ops table: the policy that picks a device for a packet. It sees
 * the packet's metadata and how much room each device queue has; it never
 * knows what a device is. Adding a policy = one file + HP_SCHED_REGISTER().
 */
#ifndef HP_SCHED_H
#define HP_SCHED_H

#include <stdint.h>
#include <rte_mbuf.h>

#define HP_MAX_DEV 32

struct hp_sched_ops;

struct hp_sched {
	const struct hp_sched_ops *ops;
	unsigned int n_dev;
	/* Room (packets) in each device's staging buffer, kept by the
	 * pipeline; a policy must not pick a device with room 0. */
	const uint32_t *room;
	uint32_t cursor;
	void *priv;
};

struct hp_sched_ops {
	const char *name;
	const char *desc;
	int (*init)(struct hp_sched *s);    /* optional */
	void (*fini)(struct hp_sched *s);   /* optional */
	/* Device index for m, or -1 when no device can take it now (the
	 * caller keeps the packet and retries). */
	int (*pick)(struct hp_sched *s, struct rte_mbuf *m);
};

int hp_sched_register(const struct hp_sched_ops *ops);
const struct hp_sched_ops *hp_sched_find(const char *name);
const struct hp_sched_ops *hp_sched_at(unsigned int i);

#define HP_SCHED_REGISTER(ops) \
	RTE_INIT(hp_sched_reg_ ## ops) { hp_sched_register(&(ops)); }

#endif /* HP_SCHED_H */
