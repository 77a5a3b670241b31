/* SPDX-License-Identifier: BSD-3-Clause
 * The dpi and dpi_ac tasks (apps ids, ids_ac): multi-pattern DPI over the
 * data region with lib/nf's engines (Hyperscan, or the own Aho-Corasick
 * DFA), match count and first id into the metadata; generated bodies
 * with planted patterns; and the offload to the dpi kernel (dpi.cu),
 * which walks the DFA uploaded as one blob (dpi_blob.h). Pattern files
 * and task parameters: docs/nf.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "dpi_blob.h"
#include "hp_common.h"
#include "hp_nf.h"
#include "hp_task.h"

/* The pattern set and both compiled engines are shared, read-only, by
 * every lcore; built by the first ctx_init, freed by the last ctx_free. */
static pthread_mutex_t dpi_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int dpi_refs;
static struct hp_nf_patset *dpi_ps;
static struct hp_nf_ac *dpi_ac;
static struct hp_nf_hs *dpi_hs;
static void *dpi_blob;        /* the DFA as the kernel's table, made on demand */
static size_t dpi_blob_len;

/* dpi options (--param): engine, pattern source, and for generated
 * traffic the seed and share of bodies with a planted pattern. */
struct dpi_opts {
	char eng[16];            /* "", "hs" or "ac" */
	char path[512];          /* pattern file, or "" to generate */
	uint32_t gen;            /* patterns to generate */
	uint64_t seed;           /* pattern set and bodies */
	double plant;            /* share of generated bodies with a pattern */
};

static int
dpi_opts_parse(const char *param, struct dpi_opts *o, char *err, size_t errlen)
{
	static const char *const engines[] = { "hs", "ac", NULL };
	char v[64];
	int rc;

	memset(o, 0, sizeof(*o));
	o->gen = 10000;
	o->seed = 1;
	o->plant = 0.3;
	if (hp_task_opt_word("dpi", param, "engine", engines, o->eng, sizeof(o->eng),
		     err, errlen) != 0)
		return -EINVAL;
	if (strcmp(o->eng, "hs") == 0 && !hp_nf_hs_available()) {
		snprintf(err, errlen, "dpi: engine=hs but built without Hyperscan");
		return -ENOTSUP;
	}
	rc = hp_task_opt_get(param, "patterns", o->path, sizeof(o->path));
	if (rc < 0 || (rc > 0 && o->path[0] == '\0')) {
		snprintf(err, errlen, "dpi: patterns= needs a file name of at most %zu bytes",
			 sizeof(o->path) - 1);
		return -EINVAL;
	}
	if (hp_task_opt_get(param, "gen", v, sizeof(v)) != 0) {
		unsigned int x;

		/* whole decimals (hp_num.c): base 0 read "010" as 8 */
		if (hp_parse_uint(v, 1, 1000000, &x) < 0) {
			snprintf(err, errlen, "dpi: bad gen '%s' (1..1000000 patterns)", v);
			return -EINVAL;
		}
		if (o->path[0] != '\0') {
			snprintf(err, errlen, "dpi: patterns= and gen= exclude each other");
			return -EINVAL;
		}
		o->gen = (uint32_t)x;
	}
	if (hp_task_opt_get(param, "seed", v, sizeof(v)) != 0) {
		if (hp_parse_u64(v, 0, UINT64_MAX, &o->seed) < 0) {
			snprintf(err, errlen, "dpi: bad seed '%s'", v);
			return -EINVAL;
		}
	}
	if (hp_task_opt_get(param, "plant", v, sizeof(v)) != 0) {
		if (hp_parse_double(v, 0, 1, &o->plant) < 0) {
			snprintf(err, errlen, "dpi: bad plant '%s' (share of generated packets with a pattern, 0..1)",
				 v);
			return -EINVAL;
		}
	}
	return 0;
}

/* Checks the options and, for patterns=FILE, that the file parses (the
 * parser's one-line FILE:LINE reason). */
static int
dpi_param_check(const char *param, char *err, size_t errlen)
{
	struct hp_nf_patset *ps;
	struct dpi_opts o;
	int rc = dpi_opts_parse(param, &o, err, errlen);

	if (rc != 0 || o.path[0] == '\0')
		return rc;
	rc = hp_nf_patset_load(o.path, &ps, err, errlen);
	if (rc != 0)
		return -EINVAL;
	hp_nf_patset_free(ps);
	return 0;
}

struct dpi_priv {
	int use_hs;
	struct dpi_opts o;
	struct hp_nf_hs_scratch *scr;
	const uint8_t *data[HP_BURST];
	uint32_t len[HP_BURST];
	struct rte_mbuf *m[HP_BURST];
	struct hp_nf_dpi_res res[HP_BURST];
	/* verify of generated bodies */
	uint8_t *vbuf;
	uint64_t v_gen, v_planted, v_found, v_match;
};

static void
dpi_shared_put(void)
{
	pthread_mutex_lock(&dpi_lock);
	if (dpi_refs > 0 && --dpi_refs == 0) {
		hp_nf_hs_free(dpi_hs);
		hp_nf_ac_free(dpi_ac);
		hp_nf_patset_free(dpi_ps);
		free(dpi_blob);
		dpi_blob = NULL;
		dpi_hs = NULL;
		dpi_ac = NULL;
		dpi_ps = NULL;
	}
	pthread_mutex_unlock(&dpi_lock);
}

static int
dpi_shared_get(const struct dpi_opts *o)
{
	char err[512];
	int rc = 0;

	pthread_mutex_lock(&dpi_lock);
	if (dpi_refs > 0) {
		dpi_refs++;
		goto out;
	}
	if (o->path[0] != '\0')
		rc = hp_nf_patset_load(o->path, &dpi_ps, err, sizeof(err));
	else if ((rc = hp_nf_patset_generate(o->seed, o->gen, &dpi_ps)) != 0)
		snprintf(err, sizeof(err), "cannot generate %u patterns", o->gen);
	if (rc != 0) {
		HP_LOG(ERR, "dpi: %s", err);
		goto out;
	}
	rc = hp_nf_ac_build(dpi_ps, &dpi_ac);
	if (rc != 0) {
		HP_LOG(ERR, "dpi: Aho-Corasick build failed: %s", strerror(-rc));
		goto fail;
	}
	if (hp_nf_hs_available()) {
		rc = hp_nf_hs_build(dpi_ps, &dpi_hs, err, sizeof(err));
		if (rc != 0) {
			HP_LOG(ERR, "dpi: %s", err);
			goto fail;
		}
	}
	HP_LOG(INFO, "dpi: %u patterns, DFA %u states, %u own dense rows (%zu KiB)%s",
	       dpi_ps->n, hp_nf_ac_dfa(dpi_ac)->n_states,
	       hp_nf_ac_dfa(dpi_ac)->n_dense, hp_nf_ac_mem(dpi_ac) >> 10,
	       dpi_hs ? ", Hyperscan database built" : "");
	dpi_refs = 1;
	goto out;
fail:
	hp_nf_ac_free(dpi_ac);
	hp_nf_patset_free(dpi_ps);
	dpi_ac = NULL;
	dpi_ps = NULL;
out:
	pthread_mutex_unlock(&dpi_lock);
	return rc;
}

static void
dpi_free(struct hp_task_ctx *ctx)
{
	struct dpi_priv *p = ctx->priv;

	if (p == NULL)
		return;
	/* Only the sink's context verifies; it says what it saw. */
	if (p->v_gen > 0)
		HP_LOG(INFO, "dpi: verified %" PRIu64 " generated bodies: %" PRIu64
		       " with a planted pattern (plant=%g), %" PRIu64 " of those matched; %"
		       PRIu64 " bodies matched in all",
		       p->v_gen, p->v_planted, p->o.plant, p->v_found, p->v_match);
	hp_nf_hs_scratch_free(p->scr);
	free(p->vbuf);
	free(p);
	ctx->priv = NULL;
	dpi_shared_put();
}

static void
dpi_reset(struct hp_task_ctx *ctx)
{
	struct dpi_priv *p = ctx->priv;

	if (p != NULL)
		p->v_gen = p->v_planted = p->v_found = p->v_match = 0;
}

static int
dpi_init_engine(struct hp_task_ctx *ctx, int force_ac)
{
	static const char *const known[] = { "engine", "patterns", "gen",
					     "seed", "plant", NULL };
	struct dpi_priv *p;
	char err[512];
	int rc;

	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	if (hp_task_opt_check("dpi", ctx->cfg->param, known) != 0) {
		free(p);
		return -EINVAL;
	}
	rc = dpi_opts_parse(ctx->cfg->param, &p->o, err, sizeof(err));
	if (rc != 0) {
		HP_LOG(ERR, "%s", err);
		free(p);
		return rc;
	}
	p->vbuf = malloc(HP_VERIFY_BUF);
	if (p->vbuf == NULL) {
		free(p);
		return -ENOMEM;
	}
	rc = dpi_shared_get(&p->o);
	if (rc != 0) {
		free(p->vbuf);
		free(p);
		return rc;
	}
	ctx->priv = p;
	/* Default: Hyperscan where built in, else the own DFA. */
	p->use_hs = !force_ac && strcmp(p->o.eng, "ac") != 0 && dpi_hs != NULL;
	if (dpi_hs != NULL) {
		rc = hp_nf_hs_scratch_alloc(dpi_hs, &p->scr);
		if (rc != 0) {
			HP_LOG(ERR, "dpi: Hyperscan scratch allocation failed");
			dpi_free(ctx);
			return rc;
		}
	}
	return 0;
}

static int
dpi_init(struct hp_task_ctx *ctx)
{
	return dpi_init_engine(ctx, 0);
}

static int
dpi_ac_init(struct hp_task_ctx *ctx)
{
	return dpi_init_engine(ctx, 1);
}

/* Cost note (bench/tasks, 1458 B, 10k patterns, one core): Hyperscan per
 * packet ~15 Gbit/s (~0.9 of its large-buffer speed), the own DFA with 8
 * packets interleaved ~3.4 Gbit/s. */
static uint16_t
dpi_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct dpi_priv *p = ctx->priv;
	uint16_t i = 0;

	while (i < n) {
		unsigned int k = hp_task_burst(pkts, n, &i, p->m, p->data, p->len);

		if (p->use_hs) {
			for (unsigned int j = 0; j < k; j++)
				if (hp_nf_hs_scan(dpi_hs, p->scr, p->data[j],
						  p->len[j], &p->res[j]) != 0)
					hp_task_fail(hp_meta(p->m[j]), EIO);
		} else {
			hp_nf_ac_scan_batch(dpi_ac, p->data, p->len, k, p->res);
		}
		for (unsigned int j = 0; j < k; j++) {
			struct hp_meta *md = hp_meta(p->m[j]);

			md->res32 = p->res[j].count;
			md->res32b = p->res[j].first;
		}
	}
	return n;
}

/* Seed of the generated body of packet gen_id (low 32 bits). */
static uint64_t
dpi_body_seed(uint64_t seed, uint32_t gen_id)
{
	uint64_t x = (seed ^ 0xd1b54a32d192ed03ULL) + gen_id * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 29);
}

/* Generator bodies: text and binary background with one pattern of the
 * task's set planted in a share `plant` of the packets (hp_nf_traffic_fill,
 * as in nf-bench), so matches are not rare accidents. Frame size kept. */
static uint32_t
dpi_gen_body(struct hp_task_ctx *ctx, uint64_t gen_id, uint32_t size,
	     uint32_t hdr_len, uint8_t *body, uint32_t room)
{
	struct dpi_priv *p = ctx->priv;
	uint32_t len = size > hdr_len ? size - hdr_len : 0;
	uint64_t s = dpi_body_seed(p->o.seed, (uint32_t)gen_id);

	if (len > room)
		len = room;
	hp_nf_traffic_fill(dpi_ps, &s, body, len, p->o.plant);
	return len;
}

/* Reference: the other engine (DFA single walk when Hyperscan ran;
 * Hyperscan, else the trie walk, when the DFA batch walk ran). For a body
 * the generator made, also: a planted pattern was found. */
static int
dpi_verify(struct hp_task_ctx *ctx, struct rte_mbuf *m, uint8_t *buf,
	   uint32_t *len)
{
	struct dpi_priv *p = ctx->priv;
	const struct hp_meta *md = hp_meta(m);
	const struct hp_app_hdr *h;
	struct hp_nf_dpi_res r;
	uint64_t s;
	int planted;

	if (p->use_hs)
		hp_nf_ac_scan(dpi_ac, buf, *len, &r);
	else if (dpi_hs != NULL) {
		if (hp_nf_hs_scan(dpi_hs, p->scr, buf, *len, &r) != 0)
			return -ENOTSUP;
	} else
		hp_nf_ac_scan_nfa(dpi_ac, buf, *len, &r);
	if (r.count != md->res32 || r.first != md->res32b)
		return -EBADMSG;
	if (!(md->flags & HP_MF_HPHDR) || *len > HP_VERIFY_BUF)
		return 0;
	h = rte_pktmbuf_mtod_offset(m, const struct hp_app_hdr *,
				    md->data_off - sizeof(*h));
	s = dpi_body_seed(p->o.seed, rte_be_to_cpu_32(h->gen_id));
	planted = hp_nf_traffic_fill(dpi_ps, &s, p->vbuf, *len, p->o.plant);
	if (memcmp(p->vbuf, buf, *len) != 0)
		return 0;  /* not a body this task's generator hook made */
	p->v_gen++;
	p->v_planted += planted;
	p->v_found += planted && md->res32 > 0;
	p->v_match += md->res32 > 0;
	return planted && md->res32 == 0 ? -EBADMSG : 0;
}

/* Offload: the accelerator walks the own DFA (the same results as
 * Hyperscan by definition, which dpi_verify checks). */
/* hp_task_offload_copy_in, and in place where the (count, first id)
 * record goes: res32 and res32b, adjacent in the metadata. */
static int
dpi_offload_prep(struct hp_task_ctx *ctx, struct rte_mbuf *m, struct hp_offload *o,
		 uint8_t *stage, uint32_t room)
{
	int ret = hp_task_offload_copy_in(ctx, m, o, stage, room);

	RTE_BUILD_BUG_ON(offsetof(struct hp_meta, res32b) != offsetof(struct hp_meta, res32) + 4);
	if (ret == 0 && stage == NULL)
		o->dst = (uint8_t *)&hp_meta(m)->res32;
	return ret;
}

/* out NULL: the accelerator already wrote the record (o->dst). */
static void
dpi_offload_done(struct hp_task_ctx *ctx, struct rte_mbuf *m, const struct hp_offload *o,
		 const uint8_t *out)
{
	struct hp_meta *md = hp_meta(m);

	RTE_SET_USED(ctx);
	RTE_SET_USED(o);
	if (out == NULL)
		return;
	memcpy(&md->res32, out, 4);
	memcpy(&md->res32b, out + 4, 4);
}

/* The DFA flattened into the dpi kernel's table (dpi_blob.h), made once
 * for every context that asks; NULL when it cannot be made. */
static const void *
dpi_offload_data(struct hp_task_ctx *ctx, size_t *len)
{
	const void *b;

	RTE_SET_USED(ctx);
	pthread_mutex_lock(&dpi_lock);
	if (dpi_blob == NULL && dpi_ac != NULL &&
	    hp_dpi_blob_build(hp_nf_ac_dfa(dpi_ac), &dpi_blob, &dpi_blob_len) != 0)
		dpi_blob = NULL;
	b = dpi_blob;
	*len = dpi_blob_len;
	pthread_mutex_unlock(&dpi_lock);
	return b;
}

/* dpi and dpi_ac differ only in name, text and the engine ctx_init picks. */
#define DPI_TASK_OPS(nm, text, init) {				\
	.name = nm,						\
	.desc = text,						\
	.ctx_init = init,					\
	.ctx_free = dpi_free,					\
	.process = dpi_process,					\
	.verify = dpi_verify,					\
	.gen_body = dpi_gen_body,				\
	.params = "engine,patterns,gen,seed,plant",		\
	.param_check = dpi_param_check,				\
	.offload = "dpi",					\
	.offload_in_place = true,				\
	.offload_prep = dpi_offload_prep,			\
	.offload_done = dpi_offload_done,			\
	.offload_data = dpi_offload_data,			\
	.ctx_reset = dpi_reset,					\
}

static const struct hp_task_ops task_dpi = DPI_TASK_OPS("dpi",
	"multi-pattern DPI, 10k Snort-like strings (Hyperscan or own AC DFA; --param engine=hs|ac,patterns=FILE|gen=N,seed=S,plant=P)",
	dpi_init);
HP_TASK_REGISTER(task_dpi)

/* The same task pinned to the own Aho-Corasick DFA (the GPU issue's
 * reference), so it runs end to end without a task option. */
static const struct hp_task_ops task_dpi_ac = DPI_TASK_OPS("dpi_ac",
	"dpi with the own Aho-Corasick DFA (8 packets interleaved); Hyperscan verifies",
	dpi_ac_init);
HP_TASK_REGISTER(task_dpi_ac)
