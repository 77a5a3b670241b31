/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Batch decoding (Weerasinghe 2017, 3.3.2-3.3.3): boundary marking
 * ("pre-decoding") then decoding, both spread over N pthreads.
 *
 * Boundary marking is a pointer chase (each element's length sits in its own
 * header), so it is parallelised speculatively: thread t starts at the first
 * plausible element boundary inside its chunk and walks on; the merge then
 * follows the true chain from offset 0 and keeps a thread's boundaries only
 * where the chain lands on one of them, re-walking the chunk otherwise.  The
 * step function next(pos) depends on pos alone, so once two walks meet they
 * agree from then on and the result is always that of a sequential walk.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "smpp.h"
#include "smpp_priv.h"

#define MAX_THREADS 256

struct tscratch {
	struct smpp_frame *fr;
	size_t n, cap;
};

struct smpp_ctx {
	struct smpp_config cfg;
	struct tscratch ts[MAX_THREADS];
	struct smpp_batch full;   /* GPU modes of smpp_decode_batch_rec */
};

static smpp_backend_fn backends[SMPP_MODE_COUNT];

void
smpp_config_default(struct smpp_config *c)
{
	static const uint8_t mk[] = { 0xfe, 0xed, 0xfa, 0xce };

	memset(c, 0, sizeof(*c));
	c->threads = 1;
	c->max_pdu_len = 65536;
	c->framing = SMPP_FRAME_PLAIN;
	c->corr_len = 8;
	c->marker_len = sizeof(mk);
	memcpy(c->marker, mk, sizeof(mk));
	c->gpu_threshold = 10000;
	c->min_parallel = 4096;
}

int
smpp_ctx_create(const struct smpp_config *cfg, struct smpp_ctx **out)
{
	struct smpp_ctx *c;

	if (cfg == NULL || out == NULL || cfg->threads < 1 ||
	    cfg->threads > MAX_THREADS || cfg->max_pdu_len < SMPP_HEADER_LEN ||
	    (cfg->framing != SMPP_FRAME_PLAIN && cfg->framing != SMPP_FRAME_ELEMENT) ||
	    (cfg->framing == SMPP_FRAME_ELEMENT &&
	     (cfg->marker_len < 1 || cfg->marker_len > SMPP_MARKER_MAX)))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->cfg = *cfg;
	*out = c;
	return 0;
}

void
smpp_ctx_free(struct smpp_ctx *c)
{
	if (c == NULL)
		return;
	for (unsigned i = 0; i < MAX_THREADS; i++)
		free(c->ts[i].fr);
	smpp_batch_free(&c->full);
	free(c);
}

const struct smpp_config *
smpp_ctx_config(const struct smpp_ctx *c)
{
	return &c->cfg;
}

void
smpp_batch_init(struct smpp_batch *b)
{
	memset(b, 0, sizeof(*b));
}

void
smpp_batch_free(struct smpp_batch *b)
{
	free(b->pdus);
	memset(b, 0, sizeof(*b));
}

int
smpp_backend_register(enum smpp_mode mode, smpp_backend_fn fn)
{
	if (mode != SMPP_MODE_GPU && mode != SMPP_MODE_GPU_FUSED)
		return -EINVAL;
	backends[mode] = fn;
	return 0;
}

int
smpp_element_append(const struct smpp_config *cfg, uint8_t *buf, size_t cap,
		    size_t len, const uint8_t *corr, const uint8_t *pdu,
		    uint32_t pdu_len)
{
	size_t need = pdu_len;

	if (cfg->framing == SMPP_FRAME_ELEMENT)
		need += (size_t)cfg->corr_len + cfg->marker_len;
	if (cap < len || cap - len < need)
		return -ENOSPC;
	if (cfg->framing == SMPP_FRAME_ELEMENT) {
		if (corr != NULL)
			memcpy(buf + len, corr, cfg->corr_len);
		else
			memset(buf + len, 0, cfg->corr_len);
		len += cfg->corr_len;
	}
	memcpy(buf + len, pdu, pdu_len);
	len += pdu_len;
	if (cfg->framing == SMPP_FRAME_ELEMENT) {
		memcpy(buf + len, cfg->marker, cfg->marker_len);
		len += cfg->marker_len;
	}
	return (int)len;
}

/* ---- boundary marking --------------------------------------------------- */

/* The CPU finds end markers with memmem (smpp_decode.h's step function
 * is shared with the GPU, which loops over the octets). */
static uint64_t
find_memmem(const struct smpp_config *c, const uint8_t *in, uint64_t len, uint64_t from)
{
	const uint8_t *m = memmem(in + from, len - from, c->marker, c->marker_len);

	return m != NULL ? (uint64_t)(m - in) : SMPP_NOPOS;
}

static inline void
frame_at(const struct smpp_config *c, const uint8_t *in, size_t len, size_t pos,
	 struct smpp_frame *f)
{
	smpp_frame_at(c, in, len, pos, f, find_memmem);
}

static inline int
plausible(const struct smpp_config *c, const uint8_t *in, size_t len, size_t pos)
{
	return smpp_plausible(c, &smpp_host_tab, in, len, pos, find_memmem);
}

static int
ts_push(struct tscratch *t, const struct smpp_frame *f)
{
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		struct smpp_frame *nf = realloc(t->fr, nc * sizeof(*nf));
		if (nf == NULL)
			return -ENOMEM;
		t->fr = nf;
		t->cap = nc;
	}
	t->fr[t->n++] = *f;
	return 0;
}

/* Walk from pos while pos < end, appending to t. */
static int
walk(const struct smpp_config *c, const uint8_t *in, size_t len, size_t pos,
     size_t end, struct tscratch *t)
{
	struct smpp_frame f;

	while (pos < end) {
		frame_at(c, in, len, pos, &f);
		if (ts_push(t, &f) < 0)
			return -ENOMEM;
		pos = f.next;
	}
	return 0;
}

struct job {
	struct smpp_ctx *ctx;
	const uint8_t *in;
	size_t len;
	size_t s, e;              /* framing: chunk; decoding: pdu index range */
	struct tscratch *t;
	struct smpp_batch *out;
	struct smpp_rbatch *rout; /* decoding into compact records */
	size_t nerr;
	int rc;
};

static void *
frame_job(void *arg)
{
	struct job *j = arg;
	const struct smpp_config *c = &j->ctx->cfg;
	size_t p = j->s;

	j->t->n = 0;
	if (p != 0)
		while (p < j->e && !plausible(c, j->in, j->len, p))
			p++;
	j->rc = p < j->e ? walk(c, j->in, j->len, p, j->e, j->t) : 0;
	return NULL;
}

/* Grow *arr (of elements of sz octets) to hold at least n. */
static int
grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n > *cap) {
		size_t nc = *cap ? *cap : 1024;
		void *np;

		while (nc < n)
			nc *= 2;
		np = realloc(*arr, nc * sz);
		if (np == NULL)
			return -ENOMEM;
		*arr = np;
		*cap = nc;
	}
	return 0;
}

static int
batch_reserve(struct smpp_batch *b, size_t n)
{
	void *a = b->pdus;
	int rc = grow(&a, &b->cap, n, sizeof(*b->pdus));

	b->pdus = a;
	return rc;
}

static int
rbatch_reserve(struct smpp_rbatch *b, size_t n)
{
	void *a = b->recs;
	int rc = grow(&a, &b->cap, n, sizeof(*b->recs));

	b->recs = a;
	return rc;
}

/* The merge hands each true frame to one of these (arg: the output). */
typedef int (*emit_fn)(void *arg, const uint8_t *in, const struct smpp_frame *f);

static int
emit(void *arg, const uint8_t *in, const struct smpp_frame *f)
{
	struct smpp_batch *b = arg;
	struct smpp_pdu *p;

	if (b->n == b->cap && batch_reserve(b, b->n + 1) < 0)
		return -ENOMEM;
	p = &b->pdus[b->n++];
	p->off = f->off;
	p->corr_off = f->off;
	p->corr_len = (uint16_t)(f->err && f->len == 0 ? 0 : f->pdu_off);
	p->pdu = in + f->off + f->pdu_off;
	p->len = f->len;
	p->error = f->err;
	p->error_off = f->off + f->pdu_off;
	return 0;
}

static unsigned
nthreads_for(const struct smpp_config *c, size_t len)
{
	/* Below min_parallel PDUs (estimated at 64 octets each) a thread costs
	 * more to start than it saves. */
	size_t est = len / 64;

	if (c->threads <= 1 || est < c->min_parallel)
		return 1;
	return c->threads;
}

/* Boundary marking on nt threads; each frame of the true chain goes to
 * fn(arg, ...) in order. */
static int
frame_parallel(struct smpp_ctx *ctx, const uint8_t *in, size_t len, unsigned nt,
	       emit_fn fn, void *arg)
{
	const struct smpp_config *c = &ctx->cfg;
	struct job jobs[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	size_t chunk = len / nt, pos = 0;
	int rc = 0;

	for (unsigned t = 0; t < nt; t++) {
		jobs[t] = (struct job){ .ctx = ctx, .in = in, .len = len,
			.s = t * chunk, .e = t + 1 == nt ? len : (t + 1) * chunk,
			.t = &ctx->ts[t] };
	}
	for (unsigned t = 1; t < nt; t++)
		if (pthread_create(&tid[t], NULL, frame_job, &jobs[t]) != 0)
			jobs[t].rc = -EAGAIN;
	frame_job(&jobs[0]);
	for (unsigned t = 1; t < nt; t++)
		if (jobs[t].rc != -EAGAIN)
			pthread_join(tid[t], NULL);

	/* merge: follow the true chain through the speculative walks */
	for (unsigned t = 0; t < nt && rc == 0; t++) {
		struct tscratch *ts = &ctx->ts[t];
		size_t lo = 0, hi, k;

		if (pos >= jobs[t].e)
			continue;
		if (jobs[t].rc < 0)
			ts->n = 0;
		hi = ts->n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (ts->fr[mid].off < pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < ts->n && ts->fr[lo].off == pos) {
			for (k = lo; k < ts->n && rc == 0; k++)
				rc = fn(arg, in, &ts->fr[k]);
			pos = ts->fr[ts->n - 1].next;
		} else {
			ts->n = 0;
			rc = walk(c, in, len, pos, jobs[t].e, ts);
			for (k = 0; k < ts->n && rc == 0; k++)
				rc = fn(arg, in, &ts->fr[k]);
			if (ts->n)
				pos = ts->fr[ts->n - 1].next;
		}
	}
	return rc;
}

int
smpp_frame_batch(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
		 struct smpp_batch *out)
{
	out->n = 0;
	out->nerr = 0;
	if (batch_reserve(out, len / 128 + 16) < 0)
		return -ENOMEM;
	return frame_parallel(ctx, in, len, nthreads_for(&ctx->cfg, len), emit, out);
}

/* ---- decoding ----------------------------------------------------------- */

/* Decode the PDU framing put into p (off, corr, pdu, len, error set),
 * keeping the framing's fields and, after a framing error, its status. */
static inline void
decode_framed(struct smpp_pdu *p, const uint8_t *in, unsigned flags)
{
	uint64_t off = p->off, co = p->corr_off;
	uint16_t cl = p->corr_len, err = p->error;
	/* framing error: the header fields as far as present */
	uint64_t eo = err == ESME_ROK ? (uint64_t)(p->pdu - in) : p->error_off;

	smpp_dec.pdu(p->pdu, p->len, flags, eo, p);
	p->off = off;
	p->corr_off = co;
	p->corr_len = cl;
	if (err != ESME_ROK) {
		p->error = err;
		p->error_off = eo;
	}
}

static inline void decode_rec_framed(struct smpp_rec *r, const uint8_t *in,
				     unsigned flags, struct smpp_tlv_shape *sh);

/* Decode the framed records [s, e): compact ones when j->rout is set. */
static void *
decode_job(void *arg)
{
	struct job *j = arg;
	unsigned flags = j->ctx->cfg.flags;
	size_t nerr = 0;
	struct smpp_tlv_shape sh = { .command_id = 0 };

	for (size_t i = j->s; i < j->e; i++) {
		if (j->rout != NULL) {
			struct smpp_rec *r = &j->rout->recs[i];

			decode_rec_framed(r, j->in, flags, &sh);
			nerr += r->error != ESME_ROK;
		} else {
			struct smpp_pdu *p = &j->out->pdus[i];

			decode_framed(p, j->in, flags);
			nerr += p->error != ESME_ROK;
		}
	}
	j->nerr = nerr;
	return NULL;
}

/*
 * One thread: frame and decode each PDU in one pass, while its record is in
 * cache.  The same frames as smpp_frame_batch's sequential walk; at 1M
 * thesis-mix PDUs (224 MB of records) two passes cost ~25 % more.
 */
static int
decode_one_pass(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
		struct smpp_batch *out)
{
	unsigned flags = ctx->cfg.flags;
	size_t pos = 0;
	struct smpp_frame f;

	out->n = 0;
	out->nerr = 0;
	if (batch_reserve(out, len / 128 + 16) < 0)
		return -ENOMEM;
	while (pos < len) {
		struct smpp_pdu *p;

		frame_at(&ctx->cfg, in, len, pos, &f);
		if (emit(out, in, &f) < 0)
			return -ENOMEM;
		p = &out->pdus[out->n - 1];
		decode_framed(p, in, flags);
		out->nerr += p->error != ESME_ROK;
		pos = f.next;
	}
	return 0;
}

/* Decoding of n framed records on nt threads: fn(job) per index range;
 * returns the error count.  A thread that cannot start runs inline. */
static size_t
run_decode_jobs(struct job *tmpl, size_t n, unsigned nt, void *(*fn)(void *))
{
	struct job jobs[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	int started[MAX_THREADS] = { 0 };
	size_t per, nerr;

	if (nt > n)
		nt = n ? (unsigned)n : 1;
	per = (n + nt - 1) / nt;
	for (unsigned t = 0; t < nt; t++) {
		size_t s = t * per, e = s + per;

		jobs[t] = *tmpl;
		jobs[t].s = s < n ? s : n;
		jobs[t].e = e < n ? e : n;
	}
	for (unsigned t = 1; t < nt; t++)
		started[t] = pthread_create(&tid[t], NULL, fn, &jobs[t]) == 0;
	fn(&jobs[0]);
	nerr = jobs[0].nerr;
	for (unsigned t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			fn(&jobs[t]);
		nerr += jobs[t].nerr;
	}
	return nerr;
}

static int
decode_cpu(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
	   struct smpp_batch *out)
{
	unsigned nt = nthreads_for(&ctx->cfg, len);
	struct job tmpl = { .ctx = ctx, .in = in, .len = len, .out = out };
	int rc;

	if (nt == 1)
		return decode_one_pass(ctx, in, len, out);
	rc = smpp_frame_batch(ctx, in, len, out);
	if (rc < 0)
		return rc;
	out->nerr = run_decode_jobs(&tmpl, out->n, nt, decode_job);
	return 0;
}

/* auto: gpu when a backend is registered and the batch is large enough. */
static enum smpp_mode
resolve_mode(const struct smpp_ctx *ctx, size_t len, enum smpp_mode mode)
{
	/* Estimate the PDU count before framing: the threshold only decides
	 * placement, exactness is not needed. */
	size_t est = len / 64;

	if (mode != SMPP_MODE_AUTO)
		return mode;
	return backends[SMPP_MODE_GPU] != NULL && est >= ctx->cfg.gpu_threshold
		? SMPP_MODE_GPU : SMPP_MODE_CPU;
}

int
smpp_decode_batch(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
		  enum smpp_mode mode, struct smpp_batch *out)
{
	if (ctx == NULL || out == NULL || (in == NULL && len != 0) ||
	    (unsigned)mode >= SMPP_MODE_COUNT)
		return -EINVAL;
	mode = resolve_mode(ctx, len, mode);
	out->mode_used = mode;
	if (mode == SMPP_MODE_CPU)
		return decode_cpu(ctx, in, len, out);
	/* gpu / gpu-fused: only when the GPU issue has registered a backend */
	if (backends[mode] == NULL)
		return -ENOTSUP;
	if (mode == SMPP_MODE_GPU) {
		int rc = smpp_frame_batch(ctx, in, len, out);
		if (rc < 0)
			return rc;
	}
	return backends[mode](ctx, in, len, out);
}

/* ---- compact records ---------------------------------------------------- */

void
smpp_rbatch_init(struct smpp_rbatch *b)
{
	memset(b, 0, sizeof(*b));
}

void
smpp_rbatch_free(struct smpp_rbatch *b)
{
	free(b->recs);
	memset(b, 0, sizeof(*b));
}

/* The framing fields of a record, as emit() sets them in struct smpp_pdu. */
static inline void
rec_frame(struct smpp_rec *r, const struct smpp_frame *f)
{
	r->pdu_off = (uint32_t)(f->off + f->pdu_off);
	r->len = f->len;
	r->error = f->err;
	r->corr_len = (uint16_t)(f->err && f->len == 0 ? 0 : f->pdu_off);
	r->elem_back = (uint16_t)f->pdu_off;
}

static int
emit_rec(void *arg, const uint8_t *in, const struct smpp_frame *f)
{
	struct smpp_rbatch *b = arg;

	(void)in;
	if (b->n == b->cap && rbatch_reserve(b, b->n + 1) < 0)
		return -ENOMEM;
	rec_frame(&b->recs[b->n++], f);
	return 0;
}

/* decode_framed for a record: after a framing error the header as far as
 * present, the framing status and the fault at the PDU start. */
static inline void
decode_rec_framed(struct smpp_rec *r, const uint8_t *in, unsigned flags,
		  struct smpp_tlv_shape *sh)
{
	uint16_t err = r->error;

	smpp_decode_pdu_rec_sh(in + r->pdu_off, r->len, flags, r, sh);
	if (err != ESME_ROK) {
		r->error = err;
		r->error_off = 0;
	}
}

/*
 * One pass as decode_one_pass, the 64-octet record written once while the
 * PDU is in cache.  Cost (1 thread, thesis mix, 2-vCPU shared Xeon VM under
 * load, bench/results/smpp-java-2026-11-22b.md): median call 21 ns per PDU
 * at 1k PDUs, 24 ns at 100k, 43 ns at 1M (input and records from memory);
 * the same batch into struct smpp_pdu in that run: 97-161 ns.
 */
static int
decode_rec_cpu(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
	       struct smpp_rbatch *out)
{
	unsigned nt = nthreads_for(&ctx->cfg, len);
	unsigned flags = ctx->cfg.flags;
	int plain = ctx->cfg.framing == SMPP_FRAME_PLAIN;
	uint32_t max = ctx->cfg.max_pdu_len;
	struct smpp_tlv_shape sh = { .command_id = 0 };
	struct job tmpl = { .ctx = ctx, .in = in, .len = len, .rout = out };
	size_t pos = 0;
	struct smpp_frame f;
	int rc;

	out->n = 0;
	out->nerr = 0;
	if (rbatch_reserve(out, len / 128 + 16) < 0)
		return -ENOMEM;
	if (nt > 1) {
		rc = frame_parallel(ctx, in, len, nt, emit_rec, out);
		if (rc < 0)
			return rc;
		out->nerr = run_decode_jobs(&tmpl, out->n, nt, decode_job);
		return 0;
	}
	while (pos < len) {
		struct smpp_rec *r;
		uint32_t cl;

		if (out->n == out->cap && rbatch_reserve(out, out->n + 1) < 0)
			return -ENOMEM;
		r = &out->recs[out->n++];
		/* plain framing, a sound command_length: frame_at's result
		 * without its general path */
		if (plain && len - pos >= 4 && (cl = smpp_rd32(in + pos)) >= SMPP_HEADER_LEN &&
		    cl <= max && cl <= len - pos) {
			r->pdu_off = (uint32_t)pos;
			r->corr_len = 0;
			r->elem_back = 0;
			out->nerr += smpp_decode_pdu_rec_sh(in + pos, cl, flags, r, &sh) != ESME_ROK;
			pos += cl;
			continue;
		}
		frame_at(&ctx->cfg, in, len, pos, &f);
		rec_frame(r, &f);
		decode_rec_framed(r, in, flags, &sh);
		out->nerr += r->error != ESME_ROK;
		pos = f.next;
	}
	return 0;
}

int
smpp_decode_batch_rec(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
		      enum smpp_mode mode, struct smpp_rbatch *out)
{
	struct smpp_batch *full;
	int rc;

	if (ctx == NULL || out == NULL || (in == NULL && len != 0) ||
	    (unsigned)mode >= SMPP_MODE_COUNT)
		return -EINVAL;
	if (len > UINT32_MAX)
		return -E2BIG;
	mode = resolve_mode(ctx, len, mode);
	if (mode == SMPP_MODE_CPU) {
		out->mode_used = mode;
		return decode_rec_cpu(ctx, in, len, out);
	}
	/* the GPU modes: the backends write struct smpp_pdu */
	full = &ctx->full;
	rc = smpp_decode_batch(ctx, in, len, mode, full);
	if (rc < 0)
		return rc;
	out->n = 0;
	out->nerr = full->nerr;
	out->mode_used = full->mode_used;
	if (rbatch_reserve(out, full->n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < full->n; i++) {
		const struct smpp_pdu *p = &full->pdus[i];
		struct smpp_rec *r = &out->recs[i];
		uint64_t po = (uint64_t)(p->pdu - in);

		smpp_rec_pack(p, po, r);
		r->pdu_off = (uint32_t)po;
		r->corr_len = p->corr_len;
		r->elem_back = (uint16_t)(po - p->off);
	}
	out->n = full->n;
	return 0;
}
