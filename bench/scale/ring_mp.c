/* SPDX-License-Identifier: BSD-3-Clause
 * A device's input ring with several scheduler lcores (--sched-lcores):
 * one multi-producer ring (RING_F_SC_DEQ only: each burst enqueue a
 * compare-and-swap on the producer head) against the single-producer
 * ring of one scheduler, the same burst enqueued and dequeued on one
 * thread: what the CAS costs uncontended (contended, it costs what the
 * other lcores' traffic on the head's cache line costs, which a shared
 * 2-CPU machine cannot measure). The two interleaved, ROUNDS rounds of
 * each; cycles per burst and per packet, medians. Prints one JSON line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ring.h>

#define BURST 32
#define ITERS 200000
#define ROUNDS 9

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* cycles per burst of ITERS bursts: enqueue BURST, dequeue what is
 * there (the device's side) */
static double
measure(struct rte_ring *r)
{
	void *objs[BURST], *out[4 * BURST];
	unsigned int i;
	uint64_t t0;

	for (i = 0; i < BURST; i++)
		objs[i] = (void *)(uintptr_t)(i + 1);
	t0 = rte_rdtsc();
	for (i = 0; i < ITERS; i++) {
		rte_ring_enqueue_burst(r, objs, BURST, NULL);
		rte_ring_dequeue_burst(r, out, 4 * BURST, NULL);
	}
	return (double)(rte_rdtsc() - t0) / ITERS;
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(v[0]), cmp);
	return v[n / 2];
}

int
main(int argc, char **argv)
{
	struct rte_ring *sp, *mp;
	double c_sp, c_mp, v_sp[ROUNDS], v_mp[ROUNDS];
	unsigned int k;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "ring_mp: EAL init failed\n");
		return 1;
	}
	sp = rte_ring_create("sp", 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	mp = rte_ring_create("mp", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (sp == NULL || mp == NULL) {
		fprintf(stderr, "ring_mp: cannot create rings\n");
		return 1;
	}
	for (k = 0; k < ROUNDS; k++) {
		/* ABBA: a slow spell of the host falls on both */
		if (k % 2 == 0) {
			v_sp[k] = measure(sp);
			v_mp[k] = measure(mp);
		} else {
			v_mp[k] = measure(mp);
			v_sp[k] = measure(sp);
		}
	}
	c_sp = median(v_sp, ROUNDS);
	c_mp = median(v_mp, ROUNDS);
	printf("{\"burst\": %d, \"sp_cycles_burst\": %.1f, \"mp_cycles_burst\": %.1f, "
	       "\"sp_cycles_pkt\": %.2f, \"mp_cycles_pkt\": %.2f}\n",
	       BURST, c_sp, c_mp, c_sp / BURST, c_mp / BURST);
	rte_eal_cleanup();
	return 0;
}
