/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smpptune: the performance tuner of Weerasinghe 3.3.1 / 3.3.2
 * (startPerfTunerPthread): sweeps batch sizes x CPU thread counts x input
 * forms given in a config file and writes the mean throughput and latency
 * of each configuration to CSV, so that a machine's best thread count per
 * batch size can be read off.  GPU grid/block/stream sweeps belong to the
 * GPU issue; a config asking for them is refused.
 *
 *   hp-smpptune -c CONFIG [-o OUT.csv]
 *
 * CONFIG, "key = value" lines:
 *   batch_sizes = 1000,10000      threads = 1,2,4     forms = plain,element
 *   repeats = 20                  input = FILE (plain PDUs; default: the
 *   msg_len = 20   tlvs = 5       generator's thesis mix)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "smpp.h"
#include "tool_util.h"

#define MAXV 32

struct tune {
	uint32_t batch[MAXV]; unsigned nbatch;
	unsigned threads[MAXV]; unsigned nthreads;
	int form[2]; unsigned nform;
	unsigned repeats;
	char input[520];
	struct smpp_sim_config sim;
};

static unsigned
parse_list(const char *v, uint32_t *out)
{
	char buf[512], *tok, *save = NULL;
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
		} else if (strcmp(k, "grid") == 0 || strcmp(k, "block") == 0 ||
			   strcmp(k, "streams") == 0) {
			fprintf(stderr, "hp-smpptune: '%s' needs the GPU decoder, "
				"not available in this build\n", k);
			fclose(f);
			return -ENOTSUP;
		} else {
			fprintf(stderr, "hp-smpptune: unknown key '%s'\n", k);
			fclose(f);
			return -EINVAL;
		}
	}
	fclose(f);
	return 0;
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
	const char *conf = NULL, *outp = NULL;
	uint8_t *src = NULL;
	size_t srclen = 0;
	FILE *out = stdout;
	int opt, rc = 1;

	t.nbatch = 2; t.batch[0] = 1000; t.batch[1] = 10000;
	t.nthreads = 1; t.threads[0] = 1;
	t.nform = 1; t.form[0] = SMPP_FRAME_PLAIN;
	t.repeats = 20;
	smpp_sim_config_default(&t.sim);
	while ((opt = getopt(argc, argv, "c:o:")) != -1) {
		if (opt == 'c')
			conf = optarg;
		else if (opt == 'o')
			outp = optarg;
		else
			conf = NULL, optind = argc + 1;
	}
	if (conf == NULL || optind > argc) {
		fprintf(stderr, "usage: hp-smpptune -c CONFIG [-o OUT.csv]\n");
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
		"min_latency_ms,max_latency_ms,errors\n");
	rc = 0;
	for (unsigned fi = 0; fi < t.nform && rc == 0; fi++) {
		for (unsigned bi = 0; bi < t.nbatch && rc == 0; bi++) {
			for (unsigned ti = 0; ti < t.nthreads && rc == 0; ti++) {
				struct smpp_config cfg;
				struct smpp_ctx *ctx = NULL;
				struct smpp_batch b;
				double sum = 0, mn = 1e30, mx = 0;
				size_t len;
				uint8_t *in;

				smpp_config_default(&cfg);
				cfg.framing = (enum smpp_framing)t.form[fi];
				cfg.threads = t.threads[ti];
				cfg.min_parallel = 0;  /* measure the thread count asked for */
				in = make_batch(&t, &cfg, t.batch[bi], src, srclen, &len);
				if (in == NULL || smpp_ctx_create(&cfg, &ctx) < 0) {
					free(in);
					rc = 1;
					break;
				}
				smpp_batch_init(&b);
				smpp_decode_batch(ctx, in, len, SMPP_MODE_CPU, &b);
				for (unsigned r = 0; r < t.repeats; r++) {
					double a = tool_now(), d;

					smpp_decode_batch(ctx, in, len, SMPP_MODE_CPU, &b);
					d = tool_now() - a;
					sum += d;
					mn = d < mn ? d : mn;
					mx = d > mx ? d : mx;
				}
				fprintf(out, "%s,%u,%u,%u,%.0f,%.1f,%.4f,%.4f,%.4f,%zu\n",
					cfg.framing == SMPP_FRAME_PLAIN ? "plain" : "element",
					t.batch[bi], cfg.threads, t.repeats,
					t.batch[bi] * t.repeats / sum, len * t.repeats / sum / 1e6,
					sum / t.repeats * 1e3, mn * 1e3, mx * 1e3, b.nerr);
				fflush(out);
				smpp_batch_free(&b);
				smpp_ctx_free(ctx);
				free(in);
			}
		}
	}
	if (out != stdout)
		fclose(out);
	free(src);
	return rc;
}
