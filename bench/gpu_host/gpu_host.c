/* SPDX-License-Identifier: BSD-3-Clause
 * bench/gpu_host: the CUDA device lcore's own work per packet, in place
 * (descriptors; the GPU gathers from and commits into the mbufs) against
 * staged (memcpy into the pinned staging, memcpy of the result out), side
 * by side in one process: two `cuda:emul` devices of the real plugin
 * (one `:staged`) take turns on batches of generated packets through the
 * device layer's hp_device_time_batch, and the plugin's own timers give
 * the lcore's part of each batch: prep (offload_prep and the descriptors,
 * or the copies in) and commit (offload_done after an in-place result,
 * or the copies out first). Those timers stop before the launch and
 * start after the completion, so the emulated kernel, gather and scatter
 * are not counted, in either mode. Prints one line per app and frame
 * set: medians over batches of cycles per packet, and the ratio.
 *
 * Fairness: both modes run the same plugin code on the same packets in
 * alternation (mode A on batch i, mode B on batch i + half, the order
 * swapped every round), over a working set of 8192 mbufs (about 20 MB,
 * past the LLC of the machines we have), so each batch's packets were
 * last touched half a round earlier by the other mode. The emulated
 * kernel runs on this core between prep and commit: the staged results
 * are hot in the cache when copied out (a GPU's D2H would leave them in
 * DRAM or the LLC) and the in-place payload is hot for the checksum
 * (a GPU's posted writes would not be), one bias each way.
 *
 *   bench_gpu_host [ROUNDS [APPS [FLOWS]]]   (HP_PLUGIN_DIR: where libhp_cuda.so is;
 *   FLOWS per packet type, 16 as hplane's generator; the IMIX has 3 types)
 * Exit 77 when the CUDA plugin cannot be loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "hp_common.h"
#include "hp_device.h"
#include "hp_gen.h"
#include "hp_pkt.h"
#include "hp_task.h"

#define NPKT 8192
#define BATCH 256
#define NB (NPKT / BATCH)

struct mode {
	const char *spec;
	struct hp_device dev;
	double *prep, *commit, *total; /* per batch, cycles per packet */
	unsigned int n;
};

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n ? v[n / 2] : 0;
}

/* Generated frames of the given sizes with the metadata classify writes. */
static unsigned int flows = 16; /* per packet type, as hplane's generator */

static int
make_pkts(struct rte_mempool *mp, const char *sizes, const char *shares,
	  struct rte_mbuf **pkts)
{
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	char err[128];

	hp_type_table_default(&tt, 1000);
	if (hp_imix_parse(&mx, sizes, shares, err, sizeof(err)) < 0 ||
	    hp_gen_init(&g, &mx, &tt, flows, 7, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_gpu_host: %s\n", err);
		return -EINVAL;
	}
	if (rte_pktmbuf_alloc_bulk(mp, pkts, NPKT) != 0) {
		hp_gen_free(&g);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < NPKT; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);
		struct hp_flow_key key;
		uint16_t off, len;

		hp_gen_build(&g, pkts[i]);
		if (hp_parse(rte_pktmbuf_mtod(pkts[i], const uint8_t *),
			     rte_pktmbuf_data_len(pkts[i]), &key, &off, &len) != HP_DROP_NONE) {
			hp_gen_free(&g);
			return -EINVAL;
		}
		memset(md, 0, offsetof(struct hp_meta, res32));
		md->flow_id = hp_flow_hash(&key);
		hp_meta_payload(md, rte_pktmbuf_mtod(pkts[i], const uint8_t *), off, len);
		hp_meta_seq_note(md);
	}
	hp_gen_free(&g);
	return 0;
}

/* One batch through mode m: its lcore's cycles per packet. */
static int
one_batch(struct mode *m, struct rte_mbuf **pkts)
{
	const struct hp_dev_stats s0 = m->dev.st;
	uint64_t cyc, prep, commit;

	for (unsigned int i = 0; i < BATCH; i++)
		hp_meta(pkts[i])->step = 0; /* run the task again */
	if (hp_device_time_batch(&m->dev, 0, pkts, BATCH, &cyc) < 0)
		return -EIO;
	prep = m->dev.st.prep_cycles - s0.prep_cycles;
	commit = m->dev.st.commit_cycles - s0.commit_cycles;
	m->prep[m->n] = (double)prep / BATCH;
	m->commit[m->n] = (double)commit / BATCH;
	m->total[m->n] = (double)(prep + commit) / BATCH;
	m->n++;
	return 0;
}

static int
bench_app(struct rte_mempool *mp, const char *name, unsigned int rounds)
{
	static const char *const sets[][3] = {
		{ "1458", "1458", "1" },
		{ "imix", "243,486,1458", "2,1,2" },
	};
	static struct rte_mbuf *pkts[NPKT];
	static int epoch;
	const struct hp_app *app = hp_app_find(name);
	struct hp_task_cfg tcfg = { .key = { 0x2b, 0x7e, 0x15, 0x16 } };
	struct hp_dev_env env = { 0 };
	struct mode md[2] = { { .spec = "cuda:emul,batch=256" },
			      { .spec = "cuda:emul:staged,batch=256" } };
	char err[256];
	int ret = 0;

	if (app == NULL || app->n_tasks != 1) {
		fprintf(stderr, "bench_gpu_host: app %s: not a one-task app\n", name);
		return -EINVAL;
	}
	env.epoch = &epoch;
	env.burst = HP_BURST;
	env.hz = rte_get_tsc_hz();
	env.app = app;
	env.task_cfg = &tcfg;
	env.tasks[0] = hp_task_find(app->tasks[0]);
	for (int k = 0; k < 2; k++) {
		ret = hp_device_create(&md[k].dev, md[k].spec, &env, (unsigned int)k + 1, err,
				       sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "bench_gpu_host: %s\n", err);
			if (k == 1)
				hp_device_destroy(&md[0].dev);
			return ret;
		}
		md[k].prep = calloc((size_t)rounds * NB, sizeof(double));
		md[k].commit = calloc((size_t)rounds * NB, sizeof(double));
		md[k].total = calloc((size_t)rounds * NB, sizeof(double));
		if (md[k].prep == NULL || md[k].commit == NULL || md[k].total == NULL)
			ret = -ENOMEM;
	}
	for (unsigned int s = 0; s < 2 && ret == 0; s++) {
		double r[2][3];

		ret = make_pkts(mp, sets[s][1], sets[s][2], pkts);
		if (ret < 0)
			break;
		md[0].n = md[1].n = 0;
		for (unsigned int rd = 0; rd < rounds && ret == 0; rd++)
			for (unsigned int b = 0; b < NB && ret == 0; b++) {
				/* A on batch b, B on the batch half a round away;
				 * which goes first swaps every round */
				struct mode *a = &md[rd & 1], *o = &md[!(rd & 1)];

				ret = one_batch(a, pkts + b * BATCH);
				if (ret == 0)
					ret = one_batch(o, pkts + ((b + NB / 2) % NB) * BATCH);
			}
		for (int k = 0; k < 2 && ret == 0; k++) {
			r[k][0] = median(md[k].prep, md[k].n);
			r[k][1] = median(md[k].commit, md[k].n);
			r[k][2] = median(md[k].total, md[k].n);
		}
		if (ret == 0)
			printf("| %s | %s | %.0f + %.0f = %.0f | %.0f + %.0f = %.0f | %.2f |\n", name,
			       sets[s][0], r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2],
			       r[0][2] / r[1][2]);
		fflush(stdout);
		rte_pktmbuf_free_bulk(pkts, NPKT);
	}
	if (ret < 0 && ret != -EINVAL)
		fprintf(stderr, "bench_gpu_host: %s: a batch failed (%d)\n", name, ret);
	for (int k = 0; k < 2; k++) {
		hp_device_destroy(&md[k].dev);
		free(md[k].prep);
		free(md[k].commit);
		free(md[k].total);
	}
	return ret;
}

int
main(int argc, char **argv)
{
	char *eal[] = { "bench_gpu_host", "--no-huge", "--no-pci", "--no-shconf", "-m", "512",
			"--log-level=lib.eal:error", "--log-level=heteroplane:error", "-l", "0",
			NULL };
	unsigned int rounds = argc > 1 ? (unsigned int)atoi(argv[1]) : 20;
	char apps[128];
	struct rte_mempool *mp;
	int ret = 0;

	snprintf(apps, sizeof(apps), "%s", argc > 2 ? argv[2] : "crypto,dedup,ids");
	if (argc > 3)
		flows = (unsigned int)atoi(argv[3]);
	if (rounds == 0 || rounds > 10000 || flows == 0 || flows > 4096) {
		fprintf(stderr, "bench_gpu_host: ROUNDS must be 1..10000, FLOWS 1..4096\n");
		return 2;
	}
	if (rte_eal_init(10, eal) < 0) {
		fprintf(stderr, "bench_gpu_host: EAL init failed\n");
		return 1;
	}
	/* the pool first: the devices register every pool that exists */
	mp = hp_pktmbuf_pool("gh_pool", NPKT + 1023, 0);
	if (mp == NULL) {
		fprintf(stderr, "bench_gpu_host: no packet pool\n");
		return 1;
	}
	printf("| app | frames | in place: prep + commit = cycles/pkt | staged: prep + commit = cycles/pkt | ratio |\n");
	printf("|---|---|---|---|---|\n");
	for (char *sv = NULL, *a = strtok_r(apps, ",", &sv); a != NULL && ret == 0;
	     a = strtok_r(NULL, ",", &sv))
		ret = bench_app(mp, a, rounds);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	if (ret == -ENODEV || ret == -ENOENT || ret == -ENOTSUP)
		return 77;
	return ret < 0 ? 1 : 0;
}
