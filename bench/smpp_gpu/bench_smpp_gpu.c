/* SPDX-License-Identifier: BSD-3-Clause
 * bench_smpp_gpu: the SMPP batch decoder's gpu and gpu-fused modes against
 * the multi-threaded CPU decoder (SMPP_MODE_CPU, 1..N threads) on the same
 * thesis-mix SUBMIT_SM batch (Weerasinghe 4.1; default 1M PDUs), end to end
 * through smpp_decode_batch(): input in host memory, decoded records in
 * host memory. Every GPU configuration's output is first compared field
 * for field with the CPU's (exit 1 on a difference). Exits 77 without a
 * GPU. --emul runs the host emulation instead (checks this program; its
 * rows say "emulated" and are not GPU measurements). Configurations: launch
 * shapes, copy-out on one host thread or the automatic count (copy=), and
 * the input staged by the backend or in caller-pinned memory (input=).
 *
 *   bench_smpp_gpu [-n PDUS] [-i ITERS] [-t MAX_THREADS] [-f plain|element|both] [--emul]
 *
 * Prints "# <device>" and CSV rows:
 *   mode,framing,config,pdus,bytes,mean_s,best_s,pdus_per_s,mb_per_s
 * (pdus_per_s from the best of ITERS calls, after one warm-up call).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hp_cuda_smpp.h"
#include "smpp.h"
#include "smpp_gpu_cmp.h"
#include "tool_util.h"

static uint8_t *
make_stream(const struct smpp_config *fr, uint32_t n, size_t *len)
{
	size_t cap = (size_t)n * 160 + 4096;
	uint8_t *buf = cap < INT32_MAX ? malloc(cap) : NULL;
	struct smpp_sim_config sc;
	int r;

	if (buf == NULL)
		return NULL;
	/* one call: 1M thesis-mix PDUs are ~115 MB, below the int length */
	smpp_sim_config_default(&sc);
	r = smpp_sim_stream(&sc, fr, 0, n, buf, cap);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)r;
	return buf;
}

/* Times iters calls after a warm-up; prints one row. 0 or -errno. */
static int
run(struct smpp_ctx *ctx, enum smpp_mode mode, const char *mname, const char *fname,
    const char *conf, const uint8_t *in, size_t len, unsigned iters, struct smpp_batch *b)
{
	double sum = 0, best = 1e30;
	int rc = smpp_decode_batch(ctx, in, len, mode, b);

	for (unsigned i = 0; rc == 0 && i < iters; i++) {
		double t = tool_now(), d;

		rc = smpp_decode_batch(ctx, in, len, mode, b);
		d = tool_now() - t;
		sum += d;
		best = d < best ? d : best;
	}
	if (rc != 0) {
		fprintf(stderr, "bench_smpp_gpu: %s %s %s: %s %s\n", mname, fname, conf, strerror(-rc),
			mode == SMPP_MODE_CPU ? "" : smpp_gpu_last_error());
		return rc;
	}
	printf("%s,%s,%s,%zu,%zu,%.6f,%.6f,%.0f,%.1f\n", mname, fname, conf, b->n, len,
	       sum / iters, best, b->n / best, len / best / 1e6);
	fflush(stdout);
	return 0;
}

/* Both GPU modes under launch l, each checked against ref first. */
static int
run_gpu(struct smpp_ctx *ctx, const char *fname, const struct smpp_gpu_launch *l,
	const char *input, const uint8_t *in, size_t len, unsigned iters,
	const struct smpp_batch *ref, struct smpp_batch *b)
{
	char conf[128];
	int rc = 0;

	for (int m = SMPP_MODE_GPU; m <= SMPP_MODE_GPU_FUSED && rc == 0; m++) {
		const char *mname = m == SMPP_MODE_GPU ? "gpu" : "gpu-fused";

		smpp_gpu_set_launch(l);
		snprintf(conf, sizeof(conf), "grid=%u block=%u streams=%u copy=%s input=%s", l->grid,
			 l->block, l->streams, l->copy_threads ? "1" : "auto", input);
		rc = smpp_decode_batch(ctx, in, len, (enum smpp_mode)m, b);
		if (rc == 0 && smpp_gpu_cmp_batch(mname, b, ref)) {
			fprintf(stderr, "bench_smpp_gpu: %s %s %s differs from the CPU\n", mname, fname,
				conf);
			return -EPROTO;
		}
		if (rc == 0)
			rc = run(ctx, (enum smpp_mode)m, mname, fname, conf, in, len, iters, b);
	}
	return rc;
}

int
main(int argc, char **argv)
{
	/* thesis 4.3: 4 streams; decode grids from one PDU per thread down to
	 * ~100 blocks, marking from ~20k threads (its best for 1M PDUs) */
	/* copy=1: the records copied into the batch on the calling thread
	 * (as before issue 22), 0: the automatic thread count */
	static const struct smpp_gpu_launch shapes[] = {
		{ 0, 128, 4, 0 }, { 0, 128, 4, 1 }, { 0, 256, 4, 0 }, { 0, 128, 1, 0 },
		{ 0, 128, 8, 0 }, { 160, 128, 4, 0 },
	};
	uint32_t n = 1000000;
	unsigned iters = 5, maxt = (unsigned)sysconf(_SC_NPROCESSORS_ONLN), emul = 0;
	int forms = 3, rc = 0;
	char msg[320];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--emul") == 0)
			emul = 1;
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			n = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
			iters = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			maxt = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
			i++;
			forms = strcmp(argv[i], "plain") == 0 ? 1 : strcmp(argv[i], "element") == 0 ? 2 : 3;
		} else {
			fprintf(stderr, "usage: bench_smpp_gpu [-n PDUS] [-i ITERS] [-t MAX_THREADS] "
				"[-f plain|element|both] [--emul]\n");
			return 2;
		}
	}
	if (n == 0 || iters == 0 || maxt == 0) {
		fprintf(stderr, "bench_smpp_gpu: -n, -i and -t must be positive\n");
		return 2;
	}
	if (smpp_gpu_init(emul ? SMPP_GPU_EMUL : 0, msg, sizeof(msg)) != 0) {
		printf("SKIP: %s\n", msg);
		return 77;
	}
	printf("# %s%s\n", msg, smpp_gpu_emulated() ? " [emulated: not a GPU measurement]" : "");
	printf("mode,framing,config,pdus,bytes,mean_s,best_s,pdus_per_s,mb_per_s\n");
	for (int fr = SMPP_FRAME_PLAIN; fr <= SMPP_FRAME_ELEMENT && rc == 0; fr++) {
		const char *fname = fr == SMPP_FRAME_PLAIN ? "plain" : "element";
		struct smpp_config cfg;
		struct smpp_ctx *ctx = NULL;
		struct smpp_batch ref, b;
		uint8_t *in, *pin;
		size_t len;
		char conf[96];

		if (!(forms & (1 << fr)))
			continue;
		smpp_config_default(&cfg);
		cfg.framing = (enum smpp_framing)fr;
		cfg.min_parallel = 0;    /* the thread count asked for */
		in = make_stream(&cfg, n, &len);
		if (in == NULL) {
			fprintf(stderr, "bench_smpp_gpu: cannot build %u PDUs\n", n);
			return 1;
		}
		smpp_batch_init(&ref);
		smpp_batch_init(&b);
		for (unsigned t = 1; t <= maxt && rc == 0; t++) {
			cfg.threads = t;
			smpp_ctx_free(ctx);
			ctx = NULL;
			if (smpp_ctx_create(&cfg, &ctx) < 0)
				return 1;
			snprintf(conf, sizeof(conf), "threads=%u", t);
			rc = run(ctx, SMPP_MODE_CPU, "cpu", fname, conf, in, len, iters, &ref);
		}
		for (unsigned s = 0; s < sizeof(shapes) / sizeof(shapes[0]) && rc == 0; s++)
			rc = run_gpu(ctx, fname, &shapes[s], "staged", in, len, iters, &ref, &b);
		/* the same batch from caller-pinned memory (no staging copy),
		 * checked against a CPU decode of that copy */
		pin = (uint8_t *)smpp_gpu_host_alloc(len);
		if (pin != NULL && rc == 0) {
			memcpy(pin, in, len);
			rc = smpp_decode_batch(ctx, pin, len, SMPP_MODE_CPU, &ref);
			for (unsigned s = 0; s < 2 && rc == 0; s++)
				rc = run_gpu(ctx, fname, &shapes[s], "pinned", pin, len, iters, &ref, &b);
		} else if (pin == NULL) {
			fprintf(stderr, "bench_smpp_gpu: no pinned memory for %zu octets: rows skipped\n",
				len);
		}
		smpp_gpu_host_free(pin);
		smpp_batch_free(&ref);
		smpp_batch_free(&b);
		smpp_ctx_free(ctx);
		free(in);
	}
	smpp_gpu_fini();
	return rc == 0 ? 0 : 1;
}
