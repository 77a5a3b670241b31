/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smpptune: the performance tuner of Weerasinghe 3.3.1 / 3.3.2
 * (startPerfTunerPthread, startPerfTuner): sweeps batch sizes x input forms
 * x decoding modes given in a config file -- CPU thread counts for the cpu
 * mode, grid x block x streams for the GPU modes (and thread counts for the
 * CPU boundary marking of mode gpu) -- and writes the mean throughput and
 * latency of each configuration to CSV, so that a machine's best setting
 * per batch size can be read off.
 *
 *   hp-smpptune -c CONFIG [-o OUT.csv]
 *
 * CONFIG, "key = value" lines:
 *   batch_sizes = 1000,10000      threads = 1,2,4     forms = plain,element
 *   repeats = 20                  input = FILE (plain PDUs; default: the
 *   msg_len = 20   tlvs = 5       generator's thesis mix)
 *   modes = cpu,gpu,gpu-fused     (default cpu)
 *   grid = 0,160   block = 128,256   streams = 1,4   (GPU modes; grid 0:
 *                                 automatic; defaults 0 / 128 / 4)
 * GPU modes need a GPU (HP_SMPP_GPU_EMUL=1: the host emulation of the
 * kernels, for tests; its rows say device=emulated): without one the tuner
 * says so and exits 77.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "smpp.h"
#include "tool_util.h"
#ifdef HP_SMPP_GPU
#include "hp_cuda_smpp.h"
#endif

#define MAXV 32

struct tune {
	uint32_t batch[MAXV]; unsigned nbatch;
	unsigned threads[MAXV]; unsigned nthreads;
	int form[2]; unsigned nform;
	unsigned repeats;
	char input[520];
	struct smpp_sim_config sim;
	enum smpp_mode mode[3]; unsigned nmode;
	uint32_t grid[MAXV]; unsigned ngrid;
	uint32_t block[MAXV]; unsigned nblock;
	uint32_t streams[MAXV]; unsigned nstreams;
	const char *gpu_key;          /* a GPU key given (for the check) */
};

static const char *const mode_names[] = { "cpu", "auto", "gpu", "gpu-fused" };

static unsigned
parse_list(const char *v, uint32_t *out)
{
	char buf[520], *tok, *save = NULL;
	unsigned n = 0;

	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ", \t", &save); tok && n < MAXV;
	     tok = strtok_r(NULL, ", \t", &save))
		out[n++] = (uint32_t)strtoul(tok, NULL, 10);
	return n;
}

static int
load(const char *path, struct tune *t)
{
	FILE *f = fopen(path, "r");
	char line[600], k[64], v[520];

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		uint32_t tmp[MAXV];
		unsigned n;

		if (line[0] == '#' || sscanf(line, " %63[a-z_] = %519[^\n]", k, v) != 2)
			continue;
		if (strcmp(k, "batch_sizes") == 0) {
			t->nbatch = parse_list(v, t->batch);
		} else if (strcmp(k, "threads") == 0) {
			n = parse_list(v, tmp);
			for (unsigned i = 0; i < n; i++)
				t->threads[i] = tmp[i];
			t->nthreads = n;
		} else if (strcmp(k, "forms") == 0) {
			t->nform = 0;
			if (strstr(v, "plain"))
				t->form[t->nform++] = SMPP_FRAME_PLAIN;
			if (strstr(v, "element"))
				t->form[t->nform++] = SMPP_FRAME_ELEMENT;
		} else if (strcmp(k, "repeats") == 0) {
			t->repeats = (unsigned)atoi(v);
		} else if (strcmp(k, "input") == 0) {
			snprintf(t->input, sizeof(t->input), "%s", v);
		} else if (strcmp(k, "msg_len") == 0) {
			t->sim.msg_len = (unsigned)atoi(v);
		} else if (strcmp(k, "tlvs") == 0) {
			t->sim.ntlv = (unsigned)atoi(v);
		} else if (strcmp(k, "modes") == 0) {
			char buf[520], *tok, *save = NULL;

			t->nmode = 0;
			snprintf(buf, sizeof(buf), "%s", v);
			for (tok = strtok_r(buf, ", \t", &save); tok;
			     tok = strtok_r(NULL, ", \t", &save)) {
				unsigned m = 0;

				while (m < 4 && (m == SMPP_MODE_AUTO || strcmp(tok, mode_names[m]) != 0))
					m++;
				if (m == 4 || t->nmode == 3) {
					fprintf(stderr, "hp-smpptune: modes: '%s' is not one of "
						"cpu, gpu, gpu-fused\n", tok);
					fclose(f);
					return -EINVAL;
				}
				t->mode[t->nmode++] = (enum smpp_mode)m;
			}
		} else if (strcmp(k, "grid") == 0) {
			t->ngrid = parse_list(v, t->grid);
			t->gpu_key = "grid";
		} else if (strcmp(k, "block") == 0) {
			t->nblock = parse_list(v, t->block);
			t->gpu_key = "block";
		} else if (strcmp(k, "streams") == 0) {
			t->nstreams = parse_list(v, t->streams);
			t->gpu_key = "streams";
		} else {
			fprintf(stderr, "hp-smpptune: unknown key '%s'\n", k);
			fclose(f);
			return -EINVAL;
		}
	}
	fclose(f);
	return 0;
}

/* One GPU launch shape (smpp_gpu_launch where the backend is built). */
struct smpp_gpu_shape {
	uint32_t grid, block, streams;
};

/* The GPU keys: only with a GPU mode, and values the backend takes. */
static int
check_gpu_keys(const struct tune *t)
{
	int gpu = 0;

	for (unsigned m = 0; m < t->nmode; m++)
		gpu |= t->mode[m] != SMPP_MODE_CPU;
	if (t->gpu_key != NULL && !gpu) {
		fprintf(stderr, "hp-smpptune: '%s' applies to the GPU modes "
			"(modes = gpu,gpu-fused)\n", t->gpu_key);
		return -EINVAL;
	}
	for (unsigned i = 0; i < t->nblock; i++)
		if (t->block[i] < 32 || t->block[i] > 1024 || t->block[i] % 32) {
			fprintf(stderr, "hp-smpptune: block %u: a multiple of 32 in 32..1024\n",
				t->block[i]);
			return -EINVAL;
		}
	for (unsigned i = 0; i < t->nstreams; i++)
		if (t->streams[i] < 1 || t->streams[i] > 16) {
			fprintf(stderr, "hp-smpptune: streams %u: 1..16\n", t->streams[i]);
			return -EINVAL;
		}
	for (unsigned i = 0; i < t->ngrid; i++)
		if (t->grid[i] > (1u << 22)) {
			fprintf(stderr, "hp-smpptune: grid %u: 0 (automatic) .. 4194304\n", t->grid[i]);
			return -EINVAL;
		}
	if (t->nmode == 0 || t->ngrid == 0 || t->nblock == 0 || t->nstreams == 0) {
		fprintf(stderr, "hp-smpptune: empty modes, grid, block or streams\n");
		return -EINVAL;
	}
	return gpu;
}

/* Opens the GPU for the GPU modes; 0, or 77 with the reason on stderr. */
static int
open_gpu(const char **device)
{
#ifdef HP_SMPP_GPU
	char msg[320];

	if (smpp_gpu_init(0, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "hp-smpptune: no GPU for the GPU modes: %s\n", msg);
		return 77;
	}
	fprintf(stderr, "hp-smpptune: %s\n", msg);
	*device = smpp_gpu_emulated() ? "emulated" : "gpu";
	return 0;
#else
	(void)device;
	fprintf(stderr, "hp-smpptune: no GPU for the GPU modes: this build has no GPU "
		"backend (built without nvcc)\n");
	return 77;
#endif
}

/* One row: repeats calls of one configuration after a warm-up. */
static int
measure(const struct tune *t, FILE *out, const struct smpp_config *cfg, enum smpp_mode mode,
	const struct smpp_gpu_shape *sh, const char *device, uint32_t batch,
	const uint8_t *in, size_t len)
{
	struct smpp_ctx *ctx = NULL;
	struct smpp_batch b;
	double sum = 0, mn = 1e30, mx = 0;
	int rc;

	if (smpp_ctx_create(cfg, &ctx) < 0)
		return -EINVAL;
#ifdef HP_SMPP_GPU
	if (mode != SMPP_MODE_CPU) {
		struct smpp_gpu_launch l = { sh->grid, sh->block, sh->streams };

		if (smpp_gpu_set_launch(&l) < 0) {
			smpp_ctx_free(ctx);
			return -EINVAL;
		}
	}
#endif
	smpp_batch_init(&b);
	rc = smpp_decode_batch(ctx, in, len, mode, &b);
	for (unsigned r = 0; rc == 0 && r < t->repeats; r++) {
		double a = tool_now(), d;

		rc = smpp_decode_batch(ctx, in, len, mode, &b);
		d = tool_now() - a;
		sum += d;
		mn = d < mn ? d : mn;
		mx = d > mx ? d : mx;
	}
	if (rc == 0)
		fprintf(out, "%s,%u,%u,%u,%.0f,%.1f,%.4f,%.4f,%.4f,%zu,%s,%u,%u,%u,%s\n",
			cfg->framing == SMPP_FRAME_PLAIN ? "plain" : "element", batch,
			cfg->threads, t->repeats, batch * t->repeats / sum,
			len * t->repeats / sum / 1e6, sum / t->repeats * 1e3, mn * 1e3, mx * 1e3,
			b.nerr, mode_names[mode], sh->grid, sh->block, sh->streams, device);
	else
		fprintf(stderr, "hp-smpptune: decode (mode %s): %s\n", mode_names[mode],
			strerror(-rc));
	fflush(out);
	smpp_batch_free(&b);
	smpp_ctx_free(ctx);
	return rc;
}

/* batch PDUs framed as fr: from the input file (cycled) or the generator. */
static uint8_t *
make_batch(const struct tune *t, const struct smpp_config *fr, uint32_t n,
	   const uint8_t *src, size_t srclen, size_t *len)
{
	size_t per = 300 + t->sim.msg_len + 6u * t->sim.ntlv, cap;
	uint8_t *buf, pdu[1024];
	size_t l = 0, off = 0;

	if (src != NULL) {
		/* the longest PDU of the file bounds every element */
		per = 0;
		while (srclen - off >= 4) {
			uint32_t pl = (uint32_t)src[off] << 24 | (uint32_t)src[off + 1] << 16 |
				      (uint32_t)src[off + 2] << 8 | src[off + 3];
			if (pl < SMPP_HEADER_LEN || pl > srclen - off)
				break;
			per = pl > per ? pl : per;
			off += pl;
		}
		off = 0;
	}
	cap = (size_t)n * (per + fr->corr_len + fr->marker_len) + 4096;
	buf = malloc(cap);
	for (uint32_t i = 0; buf != NULL && i < n; i++) {
		const uint8_t *p = pdu;
		uint32_t pl;
		uint8_t corr[64] = { (uint8_t)(i >> 24), (uint8_t)(i >> 16),
				     (uint8_t)(i >> 8), (uint8_t)i };
		int r;

		if (src != NULL) {
			if (off + 4 > srclen)
				off = 0;
			pl = (uint32_t)src[off] << 24 | (uint32_t)src[off + 1] << 16 |
			     (uint32_t)src[off + 2] << 8 | src[off + 3];
			if (pl < SMPP_HEADER_LEN || pl > srclen - off || pl > fr->max_pdu_len) {
				fprintf(stderr, "hp-smpptune: input is not plain PDUs at %zu\n", off);
				free(buf);
				return NULL;
			}
			p = src + off;
			off += pl;
		} else {
			r = smpp_sim_pdu(&t->sim, i, pdu, sizeof(pdu));
			if (r < 0) {
				free(buf);
				return NULL;
			}
			pl = (uint32_t)r;
		}
		r = smpp_element_append(fr, buf, cap, l, corr, p, pl);
		if (r < 0) {
			free(buf);
			return NULL;
		}
		l = (size_t)r;
	}
	*len = l;
	return buf;
}

int
main(int argc, char **argv)
{
	static struct tune t;
	const char *conf = NULL, *outp = NULL, *device = "cpu";
	uint8_t *src = NULL;
	size_t srclen = 0;
	FILE *out = stdout;
	int opt, rc = 1;

	t.nbatch = 2; t.batch[0] = 1000; t.batch[1] = 10000;
	t.nthreads = 1; t.threads[0] = 1;
	t.nform = 1; t.form[0] = SMPP_FRAME_PLAIN;
	t.repeats = 20;
	t.nmode = 1; t.mode[0] = SMPP_MODE_CPU;
	t.ngrid = 1; t.grid[0] = 0;
	t.nblock = 1; t.block[0] = 128;
	t.nstreams = 1; t.streams[0] = 4;
	smpp_sim_config_default(&t.sim);
	opterr = 0;
	while ((opt = getopt(argc, argv, ":c:o:h")) != -1) {
		if (opt == 'c') {
			conf = optarg;
		} else if (opt == 'o') {
			outp = optarg;
		} else if (opt == 'h') {
			printf("usage: hp-smpptune -c CONFIG [-o OUT.csv]\n");
			return 0;
		} else {
			return tool_bad_flag("hp-smpptune", opt, optopt);
		}
	}
	if (conf == NULL || optind != argc) {
		fprintf(stderr, "hp-smpptune: %s (-h: usage)\n",
			conf == NULL ? "need -c CONFIG" : "unexpected argument");
		return 2;
	}
	if ((rc = load(conf, &t)) < 0) {
		fprintf(stderr, "hp-smpptune: %s: %s\n", conf, strerror(-rc));
		return 2;
	}
	if (t.nbatch == 0 || t.nthreads == 0 || t.repeats == 0) {
		fprintf(stderr, "hp-smpptune: empty batch_sizes/threads or repeats = 0\n");
		return 2;
	}
	if ((rc = check_gpu_keys(&t)) < 0)
		return 2;
	if (rc > 0 && (rc = open_gpu(&device)) != 0)
		return rc;
	if (t.input[0]) {
		FILE *f = fopen(t.input, "rb");
		long n;

		if (f == NULL || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) <= 0) {
			fprintf(stderr, "hp-smpptune: cannot read %s\n", t.input);
			return 2;
		}
		rewind(f);
		src = malloc((size_t)n);
		if (src == NULL || fread(src, 1, (size_t)n, f) != (size_t)n) {
			fclose(f);
			return 2;
		}
		fclose(f);
		srclen = (size_t)n;
	}
	if (outp != NULL && (out = fopen(outp, "w")) == NULL) {
		fprintf(stderr, "hp-smpptune: %s: %s\n", outp, strerror(errno));
		return 2;
	}
	fprintf(out, "form,batch,threads,repeats,pdus_per_s,mb_per_s,mean_latency_ms,"
		"min_latency_ms,max_latency_ms,errors,mode,grid,block,streams,device\n");
	rc = 0;
	for (unsigned fi = 0; fi < t.nform && rc == 0; fi++) {
		for (unsigned bi = 0; bi < t.nbatch && rc == 0; bi++) {
			struct smpp_config cfg;
			size_t len;
			uint8_t *in;

			smpp_config_default(&cfg);
			cfg.framing = (enum smpp_framing)t.form[fi];
			cfg.min_parallel = 0;  /* measure the thread count asked for */
			in = make_batch(&t, &cfg, t.batch[bi], src, srclen, &len);
			if (in == NULL) {
				rc = 1;
				break;
			}
			for (unsigned mi = 0; mi < t.nmode && rc == 0; mi++) {
				enum smpp_mode m = t.mode[mi];
				/* gpu-fused uses no CPU threads for decoding: one row
				 * per shape, threads = 1 (the calling thread) */
				unsigned nt = m == SMPP_MODE_GPU_FUSED ? 1 : t.nthreads;
				unsigned ng = m == SMPP_MODE_CPU ? 1 : t.ngrid;
				unsigned nbk = m == SMPP_MODE_CPU ? 1 : t.nblock;
				unsigned ns = m == SMPP_MODE_CPU ? 1 : t.nstreams;

				for (unsigned ti = 0; ti < nt && rc == 0; ti++)
				for (unsigned gi = 0; gi < ng && rc == 0; gi++)
				for (unsigned ki = 0; ki < nbk && rc == 0; ki++)
				for (unsigned si = 0; si < ns && rc == 0; si++) {
					struct smpp_gpu_shape sh = { 0, 0, 0 };

					if (m != SMPP_MODE_CPU)
						sh = (struct smpp_gpu_shape){ t.grid[gi], t.block[ki],
									      t.streams[si] };
					cfg.threads = m == SMPP_MODE_GPU_FUSED ? 1 : t.threads[ti];
					rc = measure(&t, out, &cfg, m, &sh,
						     m == SMPP_MODE_CPU ? "cpu" : device,
						     t.batch[bi], in, len) < 0;
				}
			}
			free(in);
		}
	}
#ifdef HP_SMPP_GPU
	smpp_gpu_fini();
#endif
	if (out != stdout)
		fclose(out);
	free(src);
	return rc;
}
