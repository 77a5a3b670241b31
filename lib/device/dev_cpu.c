/* SPDX-License-Identifier: BSD-3-Clause
 * The cpu device kind: a loop that dequeues a burst (<= 32) from its
 * ring, runs the app's chain packet burst by packet burst (Johansson &
 * Pap §4.2.3) and stages the output. Its service-time model is measured
 * online: busy cycles per packet so far.
 */
#include <rte_cycles.h>

#include "hp_common.h"
#include "hp_device.h"

static int
cpu_init(struct hp_device *dev, const char *arg, const struct hp_dev_opts *o,
	 char *err, size_t errlen)
{
	if (arg != NULL) {
		snprintf(err, errlen, "device cpu takes no argument (got '%s')", arg);
		return -EINVAL;
	}
	if (o->fail_after || o->max_inflight || o->time_scale != 1.0) {
		snprintf(err, errlen, "fail_after, inflight and scale apply to batch devices, not cpu");
		return -EINVAL;
	}
	snprintf(dev->name, sizeof(dev->name), "cpu%u", dev->idx);
	dev->caps = (struct hp_dev_caps){
		.max_batch_pkts = dev->env->burst,
		.min_batch_pkts = 1,
		.one_task = true,
		.role = o->role >= 0 ? (uint8_t)o->role : HP_DEV_ROLE_CPU,
		.mem_kind = "host",
	};
	return 0;
}

static void
cpu_start(struct hp_device *dev)
{
	hp_staging_init(&dev->ost, 2 * dev->env->burst);
	hp_load_start(&dev->load, rte_rdtsc());
}

/* One pass: flush staging, dequeue a burst, run the chain, stage and
 * flush the output. One pass costs ~60 cycles of ring and stage work per
 * burst on top of the tasks (measured with the null task, bench/pipeline).
 * Whoever polls the device (an lcore loop or a service) calls it.
 */
static int
cpu_pass(struct hp_device *dev)
{
	unsigned int burst = dev->env->burst;
	struct rte_mbuf *pkts[HP_BURST];
	uint64_t t0 = rte_rdtsc(), t1;
	unsigned int n = 0, i;

	hp_device_epoch(dev);
	if (dev->ost.len)
		hp_device_flush_out(dev);
	if (hp_staging_room(&dev->ost) >= burst)
		n = rte_ring_dequeue_burst(dev->in, (void **)pkts, burst, NULL);
	if (n == 0) {
		if (__atomic_load_n(&dev->quit, __ATOMIC_ACQUIRE) &&
		    dev->ost.len == 0 && rte_ring_count(dev->in) == 0)
			return HP_DEV_POLL_DONE;
		t1 = rte_rdtsc();
		dev->st.total_cycles += t1 - t0;
		hp_load_poll(&dev->load, t0, t1, 0);
		return 0;
	}
	hp_device_run_chain(dev, pkts, (uint16_t)n, t0);
	for (i = 0; i < n; i++) {
		dev->st.bytes += hp_meta(pkts[i])->data_len;
		hp_staging_put(&dev->ost, pkts[i]);
	}
	hp_device_flush_out(dev);
	dev->st.pkts += n;
	t1 = rte_rdtsc();
	dev->st.busy_cycles += t1 - t0;
	dev->st.total_cycles += t1 - t0;
	hp_load_poll(&dev->load, t0, t1, n);
	return (int)n;
}

/* Runs task of n packets in bursts on this thread (hplane profile). */
static int
cpu_time_batch(struct hp_device *dev, unsigned int task, struct rte_mbuf **pkts,
	       uint32_t n, uint64_t *cycles)
{
	uint64_t t0 = rte_rdtsc();
	uint32_t i;

	for (i = 0; i < n; i += HP_BURST)
		dev->ctx[task].ops->process(&dev->ctx[task], pkts + i,
					    (uint16_t)RTE_MIN(n - i, (uint32_t)HP_BURST));
	*cycles = rte_rdtsc() - t0;
	return 0;
}

static uint64_t
cpu_predict(const struct hp_device *dev, unsigned int task, uint32_t n,
	    uint32_t bytes)
{
	uint64_t p = __atomic_load_n(&dev->st.pkts, __ATOMIC_RELAXED);
	uint64_t b = __atomic_load_n(&dev->st.busy_cycles, __ATOMIC_RELAXED);

	RTE_SET_USED(bytes);
	RTE_SET_USED(task);
	return p ? b / p * n : 0;
}

static const struct hp_device_ops dev_cpu_ops = {
	.desc = "a loop running the chain burst by burst",
	.init = cpu_init,
	.start = cpu_start,
	.poll = cpu_pass,
	.predict = cpu_predict,
	.time_batch = cpu_time_batch,
};

static const struct hp_device_kind dev_cpu = {
	.name = "cpu",
	.ops = &dev_cpu_ops,
};

HP_DEVICE_REGISTER(dev_cpu);
