/* SPDX-License-Identifier: BSD-3-Clause
 * The null task: touches nothing. It measures what the framework itself
 * costs per packet (dispatch, rings, reorder, metrics).
 */
#include "hp_task.h"

static uint16_t
null_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(pkts);
	return n;
}

static int
null_verify(struct hp_task_ctx *ctx, struct rte_mbuf *m, uint8_t *buf,
	    uint32_t *len)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(m);
	RTE_SET_USED(buf);
	RTE_SET_USED(len);
	return 0;
}

static const struct hp_task_ops task_null = {
	.name = "null",
	.desc = "does nothing (framework overhead)",
	.process = null_process,
	.verify = null_verify,
};
HP_TASK_REGISTER(task_null)
