/* SPDX-License-Identifier: BSD-3-Clause
 * The `ldpc` task, first of the `ran` app's chain (LDPC decode, then
 * AES-128-CTR; Johansson & Pap §4.1/§4.3). The data region holds units, each the hard
 * decisions of one codeword (thesis: 802.11n n=1944 R=1/2, 243 bytes; the
 * IMIX 243/486/1458 is 1, 2 or 6 units); each becomes its decoded info
 * bits plus the list of corrected bit positions (format in hp_ldpc.h), so
 * the sink's reference path can rebuild the received bytes exactly. All
 * units of a burst go through the decoder in one call, in the batch mode
 * (the 32/64 SIMD lanes fill even with one codeword per packet) or, for a
 * burst too small to pay for a batch, the single-codeword mode: chosen per
 * call from costs measured at start-up (mode=, deadline_us=; pick_mode()).
 *
 * Generated traffic: gen_body writes units made from info bits that
 * follow from (seed option, gen_id, unit index), with a few bit errors
 * each, and verify checks that the decoder returned exactly those info
 * bits. Options (--param): code=SPEC, iters=N, flips=N, seed=S,
 * isa=auto|scalar|avx2|avx512, mode=auto|batch|single, deadline_us=N.
 * The offload goes to the ldpc kernel (ldpc.cu) with the code and
 * settings as one blob (ldpc_blob.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "hp_common.h"
#include "hp_ldpc.h"
#include "hp_task.h"
#include "ldpc_blob.h"

/* Units decoded per decoder call; a burst with more is split. */
#define LDPC_TASK_UNITS 256
/* Largest unit the task takes: it must fit a frame after the headers. */
#define LDPC_TASK_MAXUNIT 1900

struct ldpc_opts {
	char code[32];
	unsigned int iters;
	unsigned int flips;      /* generator: up to this many errors/unit */
	uint64_t seed;           /* generator: info bits and errors */
	enum hp_ldpc_isa isa;
	int mode;                /* -1 auto, else an enum hp_ldpc_mode */
	uint64_t deadline_us;    /* 0: none */
};

struct ldpc_priv {
	struct ldpc_opts o;
	struct hp_ldpc_code *code;
	struct hp_ldpc_dec *dec;
	unsigned int ulen, maxflip, ib; /* unit bytes, flips, info bytes */
	void *scratch;
	uint8_t *vbuf;           /* verify: the units as generated */
	uint8_t *vinfo;          /* verify: their info bits, packed */
	uint64_t v_pkts, v_units; /* verified generated packets, units */
	void *blob;              /* the kernel's table (ldpc_blob.h) */
	size_t blob_len;
	struct hp_ldpc_costs costs; /* mode=auto: measured at init */
	uint64_t calls[2];       /* decoder calls per mode */
	uint64_t over;           /* calls estimated past deadline_us */
};

/* A whole decimal (hp_parse_u64: no blank, sign or base prefix). */
static int
parse_u64(const char *s, uint64_t *v)
{
	return hp_parse_u64(s, 0, UINT64_MAX, v);
}

/* Parses and checks the options; on error a one-line reason in err. */
static int
ldpc_opts_parse(const char *param, struct ldpc_opts *o, char *err,
		size_t errlen)
{
	struct hp_ldpc_code *c = NULL;
	unsigned int ulen, maxflip;
	char v[64];
	uint64_t x;
	int rc;

	memset(o, 0, sizeof(*o));
	snprintf(o->code, sizeof(o->code), "%s", HP_LDPC_UNIT_CODE);
	o->iters = 20;
	o->seed = 1;
	o->isa = HP_LDPC_ISA_AUTO;
	o->mode = -1;
	rc = hp_task_opt_get(param, "code", o->code, sizeof(o->code));
	if (rc < 0 || hp_ldpc_code_create(o->code, &c) < 0) {
		snprintf(err, errlen, "ldpc: bad code '%s' (wifi:648|1296|1944:1/2|2/3|3/4|5/6 or nr:1|2:Z, see hp-ldpc list)",
			 rc < 0 ? "(too long)" : o->code);
		return -EINVAL;
	}
	rc = hp_ldpc_unit_geom(c, &ulen, &maxflip);
	hp_ldpc_code_free(c);
	if (rc < 0 || ulen > LDPC_TASK_MAXUNIT) {
		snprintf(err, errlen, "ldpc: code %s cannot be a packet unit (%s)", o->code,
			 rc < 0 ? "no room for a flip list at this rate" :
				  "a codeword is longer than a frame holds");
		return -EINVAL;
	}
	/* Default error count: a quarter of what a decoded unit can list,
	 * well inside what hard-decision min-sum corrects (measured for
	 * wifi:1944:1/2: 50 errors per unit, 20000 of 20000 decoded). */
	o->flips = maxflip / 4;
	if (hp_task_opt_get(param, "iters", v, sizeof(v)) != 0) {
		if (parse_u64(v, &x) < 0 || x < 1 || x > 255) {
			snprintf(err, errlen, "ldpc: bad iters '%s' (1..255)", v);
			return -EINVAL;
		}
		o->iters = (unsigned int)x;
	}
	if (hp_task_opt_get(param, "flips", v, sizeof(v)) != 0) {
		if (parse_u64(v, &x) < 0 || x > maxflip) {
			snprintf(err, errlen, "ldpc: bad flips '%s' (0..%u for %s)", v,
				 maxflip, o->code);
			return -EINVAL;
		}
		o->flips = (unsigned int)x;
	}
	if (hp_task_opt_get(param, "seed", v, sizeof(v)) != 0 && parse_u64(v, &o->seed) < 0) {
		snprintf(err, errlen, "ldpc: bad seed '%s'", v);
		return -EINVAL;
	}
	if (hp_task_opt_get(param, "isa", v, sizeof(v)) != 0) {
		static const char *const names[] = { "auto", "scalar", "avx2", "avx512" };
		unsigned int i;

		for (i = 0; i < 4 && strcmp(v, names[i]) != 0; i++)
			;
		if (i == 4 || !hp_ldpc_isa_supported((enum hp_ldpc_isa)i)) {
			snprintf(err, errlen, "ldpc: isa '%s' %s (auto, scalar, avx2, avx512)", v,
				 i == 4 ? "unknown" : "not supported by this CPU");
			return -EINVAL;
		}
		o->isa = (enum hp_ldpc_isa)i;
	}
	if (hp_task_opt_get(param, "mode", v, sizeof(v)) != 0) {
		if (!strcmp(v, "auto"))
			o->mode = -1;
		else if (!strcmp(v, "batch"))
			o->mode = HP_LDPC_MODE_BATCH;
		else if (!strcmp(v, "single"))
			o->mode = HP_LDPC_MODE_SINGLE;
		else {
			snprintf(err, errlen, "ldpc: bad mode '%s' (auto, batch, single)", v);
			return -EINVAL;
		}
	}
	if (hp_task_opt_get(param, "deadline_us", v, sizeof(v)) != 0 &&
	    hp_parse_u64(v, 0, 1000000, &o->deadline_us) < 0) {
		snprintf(err, errlen, "ldpc: bad deadline_us '%s' (0..1000000, 0: none)", v);
		return -EINVAL;
	}
	return 0;
}

static int
ldpc_param_check(const char *param, char *err, size_t errlen)
{
	struct ldpc_opts o;

	return ldpc_opts_parse(param, &o, err, errlen);
}

static void
ldpc_free(struct hp_task_ctx *ctx)
{
	struct ldpc_priv *p = ctx->priv;

	if (p == NULL)
		return;
	/* Only the sink's context verifies; it says what it saw. */
	if (p->v_pkts > 0)
		HP_LOG(INFO, "ldpc: verified %" PRIu64 " generated packets, %" PRIu64
		       " units of %s: decoded info bits equal to the sent ones",
		       p->v_pkts, p->v_units, p->o.code);
	if (p->calls[0] + p->calls[1] > 0)
		HP_LOG(INFO, "ldpc: decoder calls: %" PRIu64 " batch, %" PRIu64
		       " single-codeword; %" PRIu64 " estimated past deadline_us=%" PRIu64,
		       p->calls[HP_LDPC_MODE_BATCH], p->calls[HP_LDPC_MODE_SINGLE],
		       p->over, p->o.deadline_us);
	rte_free(p->scratch);
	free(p->blob);
	free(p->vbuf);
	free(p->vinfo);
	hp_ldpc_dec_free(p->dec);
	hp_ldpc_code_free(p->code);
	free(p);
	ctx->priv = NULL;
}

static void
ldpc_reset(struct hp_task_ctx *ctx)
{
	struct ldpc_priv *p = ctx->priv;

	if (p != NULL)
		p->v_pkts = p->v_units = 0;
}

static int
ldpc_init(struct hp_task_ctx *ctx)
{
	struct hp_ldpc_dec_cfg cfg;
	struct ldpc_priv *p = calloc(1, sizeof(*p));
	char err[256];
	int rc;

	if (p == NULL)
		return -ENOMEM;
	ctx->priv = p;
	rc = ldpc_opts_parse(ctx->cfg->param, &p->o, err, sizeof(err));
	if (rc < 0) {
		HP_LOG(ERR, "%s", err);
		goto fail;
	}
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.max_iter = p->o.iters;
	cfg.isa = p->o.isa;
	rc = hp_ldpc_code_create(p->o.code, &p->code);
	if (rc == 0)
		rc = hp_ldpc_unit_geom(p->code, &p->ulen, &p->maxflip);
	if (rc == 0)
		rc = hp_ldpc_dec_create(p->code, &cfg, &p->dec);
	if (rc == 0)
		rc = hp_ldpc_costs_probe(p->code, &cfg, &p->costs);
	if (rc == 0 && p->o.mode < 0)
		HP_LOG(INFO, "ldpc: mode auto: one iteration %.1f us per codeword single, "
		       "%.1f us per batch of %u; single up to %u units per call",
		       p->costs.single_ns / 1e3, p->costs.batch_ns / 1e3, p->costs.lanes,
		       (unsigned int)(p->costs.batch_ns / p->costs.single_ns));
	if (rc == 0)
		rc = hp_ldpc_blob_build(p->code, &cfg, p->ulen, p->maxflip, HP_LDPC_UNIT_LLR,
					&p->blob, &p->blob_len);
	if (rc == 0) {
		p->ib = (hp_ldpc_code_k(p->code) + 7) / 8;
		p->scratch = rte_malloc_socket("hp_ldpc", hp_ldpc_units_scratch(p->dec,
					       LDPC_TASK_UNITS), 64, ctx->cfg->socket);
		p->vbuf = malloc(HP_VERIFY_BUF);
		p->vinfo = malloc((size_t)HP_VERIFY_BUF / p->ulen * p->ib + 1);
		if (p->scratch == NULL || p->vbuf == NULL || p->vinfo == NULL)
			rc = -ENOMEM;
	}
	if (rc < 0) {
		HP_LOG(ERR, "ldpc: decoder set-up failed: %s", strerror(-rc));
		goto fail;
	}
	return 0;
fail:
	ldpc_free(ctx);
	return rc;
}

/*
 * Per call, the mode (mode=auto): the one that finishes the call's m units
 * first at the worst case of iters iterations, from the costs measured at
 * init (hp_ldpc_mode_pick): single while m * t_single <= ceil(m / W) *
 * t_batch, i.e. for bursts of up to ~t_batch / t_single units, batch
 * above. The units of a call come back together, so that is also the
 * cheaper mode per unit, and a short deadline_us never needs the slower
 * one; a call estimated past it still takes the faster mode and is
 * counted (logged at the end). Measured crossover (AVX-512, Zen 4,
 * docs/ldpc.md): wifi:648:1/2 11-15 units per call, wifi:1944:1/2 24-31,
 * nr:1:224 40-43.
 */
static void
pick_mode(struct ldpc_priv *p, const uint32_t *lens, unsigned int n)
{
	unsigned int i, m = 0;
	enum hp_ldpc_mode mode;

	for (i = 0; i < n; i++)
		m += lens[i] / p->ulen;
	mode = p->o.mode >= 0 ? (enum hp_ldpc_mode)p->o.mode :
	       hp_ldpc_mode_pick(&p->costs, m, p->o.iters);
	hp_ldpc_dec_set_mode(p->dec, mode);
	p->calls[mode]++;
	if (p->o.deadline_us &&
	    hp_ldpc_mode_est(&p->costs, mode, m, p->o.iters) > p->o.deadline_us * 1e3)
		p->over++;
}

/* The units decode in place, so the packets' UDP/TCP checksums are redone
 * (hp_task.h) after, decoded or not. */
static void
flush(struct ldpc_priv *p, struct rte_mbuf **pk, uint8_t **bodies,
      uint32_t *lens, unsigned int n, uint64_t tx_offload)
{
	uint8_t ok[LDPC_TASK_UNITS];
	unsigned int i;
	int rc;

	if (n == 0)
		return;
	pick_mode(p, lens, n);
	rc = hp_ldpc_units_decode(p->dec, bodies, lens, n, ok, p->scratch);
	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pk[i]);
		struct hp_pkt_hdrs h;

		hp_meta_hdrs(md, &h);
		hp_pkt_l4_fixup(pk[i], &h, 0, tx_offload);
		if (rc >= 0 && ok[i]) {
			md->res32 = lens[i] / p->ulen;
			continue;
		}
		md->res32 = 0;
		md->status = HP_ST_TASK_ERR;
		md->task_err = rc < 0 ? (uint8_t)-rc : EBADMSG;
	}
}

/* Cost note (this machine, AVX-512, wifi:1944:1/2 units with ~15 bit
 * errors): the decoder stops after a few iterations, so unpacking and
 * repacking the units costs about as much as decoding them. */
static uint16_t
ldpc_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ldpc_priv *p = ctx->priv;
	struct rte_mbuf *pk[LDPC_TASK_UNITS];
	uint8_t *bodies[LDPC_TASK_UNITS];
	uint32_t lens[LDPC_TASK_UNITS];
	unsigned int i, np = 0, units = 0;

	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);
		unsigned int nu = md->data_len / p->ulen;

		if (md->status != HP_ST_OK)
			continue;
		if (nu == 0 || nu > LDPC_TASK_UNITS) {
			md->res32 = 0;
			md->status = HP_ST_TASK_ERR;
			md->task_err = EMSGSIZE;
			continue;
		}
		if (units + nu > LDPC_TASK_UNITS || np == LDPC_TASK_UNITS) {
			flush(p, pk, bodies, lens, np, ctx->cfg->tx_offload);
			np = units = 0;
		}
		pk[np] = pkts[i];
		bodies[np] = rte_pktmbuf_mtod_offset(pkts[i], uint8_t *, md->data_off);
		lens[np] = md->data_len;
		np++;
		units += nu;
	}
	flush(p, pk, bodies, lens, np, ctx->cfg->tx_offload);
	return n;
}

/* Offload (hp_task.h): ldpc_process's checks; the units go to the
 * accelerator as they are (packed hard decisions); done takes the decoded
 * units only when every unit of the packet decoded, as flush() does. */
static int
ldpc_offload_prep(struct hp_task_ctx *ctx, struct rte_mbuf *m, struct hp_offload *o,
		  uint8_t *stage, uint32_t room)
{
	struct ldpc_priv *p = ctx->priv;
	struct hp_meta *md = hp_meta(m);
	unsigned int nu = md->data_len / p->ulen;

	if (md->status != HP_ST_OK)
		return 1;
	if (nu == 0 || nu > LDPC_TASK_UNITS || nu * p->ulen > room) {
		md->res32 = 0;
		md->status = HP_ST_TASK_ERR;
		md->task_err = EMSGSIZE;
		return -EMSGSIZE;
	}
	o->in_len = nu * p->ulen;
	o->aux = nu;
	memcpy(stage, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), o->in_len);
	return 0;
}

/* out: the decoded units (in_len bytes), then a u32 count of units that
 * decoded within max_flip flips. */
static void
ldpc_offload_done(struct hp_task_ctx *ctx, struct rte_mbuf *m, const struct hp_offload *o,
		  const uint8_t *out)
{
	struct hp_meta *md = hp_meta(m);
	struct hp_pkt_hdrs h;
	uint32_t good;

	memcpy(&good, out + o->in_len, 4);
	if (good != o->aux) {
		md->res32 = 0;
		md->status = HP_ST_TASK_ERR;
		md->task_err = EBADMSG;
		return;
	}
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), out, o->in_len);
	md->res32 = o->aux;
	hp_meta_hdrs(md, &h);
	hp_pkt_l4_fixup(m, &h, 0, ctx->cfg->tx_offload);
}

static const void *
ldpc_offload_data(struct hp_task_ctx *ctx, size_t *len)
{
	struct ldpc_priv *p = ctx->priv;

	*len = p->blob_len;
	return p->blob;
}

/* Seed of unit u of packet gen_id (low 32 bits: what the header keeps). */
static uint64_t
unit_seed(uint64_t seed, uint32_t gen_id, unsigned int u)
{
	uint64_t x = seed ^ ((uint64_t)gen_id << 8 | u) * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 29);
}

/* Writes nu generated units into out (and their packed info bits into
 * info when not NULL). */
static void
make_units(const struct ldpc_priv *p, uint32_t gen_id, unsigned int nu,
	   uint8_t *out, uint8_t *info)
{
	unsigned int u;

	for (u = 0; u < nu; u++) {
		uint64_t s = unit_seed(p->o.seed, gen_id, u);
		unsigned int nflips = (unsigned int)((s >> 40) % (p->o.flips + 1));

		hp_ldpc_unit_gen(p->code, out + (size_t)u * p->ulen, s, nflips);
		if (info != NULL)
			hp_ldpc_unit_info(p->code, s, info + (size_t)u * p->ib);
	}
}

/* Generator bodies: round(size / unit) units (at least one), so the
 * thesis IMIX 243/486/1458 gives 1, 2 and 6 codewords; the frame grows
 * by its headers. */
static uint32_t
ldpc_gen_body(struct hp_task_ctx *ctx, uint64_t gen_id, uint32_t size,
	      uint32_t hdr_len, uint8_t *body, uint32_t room)
{
	struct ldpc_priv *p = ctx->priv;
	unsigned int nu = (size + p->ulen / 2) / p->ulen;

	(void)hdr_len;
	if (nu == 0)
		nu = 1;
	if (nu * p->ulen > room)
		nu = room / p->ulen;
	make_units(p, (uint32_t)gen_id, nu, body, NULL);
	return nu * p->ulen;
}

/* Reference path: re-encode the info bits (the encoder, not the decoder
 * that produced them) and flip the listed positions back. For a packet
 * the generator made, the info bits must also be the ones it sent. */
static int
ldpc_verify(struct hp_task_ctx *ctx, struct rte_mbuf *m, uint8_t *buf,
	    uint32_t *len)
{
	struct ldpc_priv *p = ctx->priv;
	struct hp_meta *md = hp_meta(m);
	unsigned int nu = *len / p->ulen, u;
	const struct hp_app_hdr *h;
	int info_ok = 1;
	uint32_t gid;

	if (md->res32 == 0)
		return 0;  /* left unchanged (counted as a task error) */
	if (md->res32 != nu)
		return -EBADMSG;
	if (!(md->flags & HP_MF_HPHDR) || *len != nu * p->ulen)
		return hp_ldpc_units_restore(p->code, buf, *len) == 0 ? 0 : -EBADMSG;
	h = rte_pktmbuf_mtod_offset(m, const struct hp_app_hdr *,
				    md->data_off - sizeof(*h));
	gid = rte_be_to_cpu_32(h->gen_id);
	make_units(p, gid, nu, p->vbuf, p->vinfo);
	for (u = 0; u < nu; u++)
		if (memcmp(buf + (size_t)u * p->ulen, p->vinfo + (size_t)u * p->ib,
			   p->ib) != 0)
			info_ok = 0;
	if (hp_ldpc_units_restore(p->code, buf, *len) != 0)
		return -EBADMSG;
	/* Received units equal to what the generator makes for this gen_id:
	 * a generated packet, so the decoded info bits must be the sent
	 * ones. Otherwise (foreign traffic) the CRC check that follows
	 * compares the rebuilt units with the received ones. */
	if (memcmp(buf, p->vbuf, *len) != 0)
		return 0;
	if (!info_ok)
		return -EBADMSG;
	p->v_pkts++;
	p->v_units += nu;
	return 0;
}

static const struct hp_task_ops task_ldpc = {
	.name = "ldpc",
	.desc = "LDPC decode of codeword units (802.11n n=1944 R=1/2 by default, layered min-sum, SIMD; --param code=,iters=,flips=,seed=,isa=,mode=,deadline_us=)",
	.ctx_init = ldpc_init,
	.ctx_free = ldpc_free,
	.process = ldpc_process,
	.verify = ldpc_verify,
	.gen_body = ldpc_gen_body,
	.params = "code,iters,flips,seed,isa,mode,deadline_us",
	.param_check = ldpc_param_check,
	.offload = "ldpc",
	.offload_prep = ldpc_offload_prep,
	.offload_done = ldpc_offload_done,
	.offload_data = ldpc_offload_data,
	.ctx_reset = ldpc_reset,
};
HP_TASK_REGISTER(task_ldpc)
