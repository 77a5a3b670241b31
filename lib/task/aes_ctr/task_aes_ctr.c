/* SPDX-License-Identifier: BSD-3-Clause
 * AES-128-CTR task (Johansson & Pap §4.4), with a key and nonce per flow
 * derived from the master key:
 *   key_flow = CBC-MAC(master, flow_msg(0x01))
 *   nonce    = CBC-MAC(master, flow_msg(0x02))[0..7]
 *   counter  = nonce | be32(seq) | be32(0), incremented per 16-byte block
 * where seq is the sender's per-flow sequence from the hp header (or, for
 * foreign traffic, the scheduler's per-flow sequence, which never repeats
 * in a run: hp_flowtab.h). A packet with neither, from a flow the full
 * flow table could not take, is refused with ENOTUNIQ rather than
 * encrypted under a reused counter, and every refusal is a security one
 * (hp_task_fail_secure): the scheduler drops the packet, and the run's
 * exit status says an invariant broke. The data region is the L4
 * payload after the 16-byte hp header, so a receiver can read seq in the
 * clear (docs/packet-format.md); flow_msg is one block for IPv4 (the
 * CBC-MAC is then its ECB encryption) and three for IPv6 (hp_flow_msg).
 * The UDP/TCP checksum is redone over the ciphertext, from the header
 * offsets classification left in the metadata (hp_meta_hdrs).
 *
 * Two engines (--param impl=mb|evp): intel-ipsec-mb's cipher burst API
 * (lib/nf, the default where the nf block is built and the CPU has
 * AES-NI), a burst of packets a call with the flow's round keys expanded
 * once per flow; or OpenSSL EVP, one IV re-init and update a packet
 * (issue 20's measure, and the path without lib/nf). The sink's verify
 * path is OpenSSL's ECB block and its own counter arithmetic, shared with
 * neither.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <rte_byteorder.h>
#include <rte_prefetch.h>

#include "hp_aes_ctr.h"
#include "hp_common.h"
#include "hp_task.h"
#ifdef HP_CTR_IPSEC_MB
#include "hp_nf.h"
#endif

/* Flows per lcore, direct mapped on flow_id: a cache, not a table (a
 * miss derives the flow's key again, so no number of flows makes it
 * wrong). Large, because on the evp path a slot's first use costs two
 * full EVP inits (~10k cycles with OpenSSL 3's provider lookups): at 256
 * slots the generator's ~100 flows collided often enough to cost the
 * worker ~1,000 cycles per packet on average (bench/pipeline,
 * 2026-11-22). A slot taken over by another flow keeps its cipher and
 * only changes the key, and the verify path's ECB context is keyed when
 * verify needs it. */
#define CTR_CACHE 4096

struct ctr_flow {
	uint64_t flow_id;
	uint8_t valid;
	uint8_t ctr_set;     /* ctr has its cipher: a new key is a re-key */
	uint8_t ecb_set;     /* ecb has its cipher */
	uint8_t ecb_keyed;   /* ecb has this flow's key */
	uint8_t nonce[8];
	uint8_t key[16];     /* the flow key (offload to an accelerator) */
	EVP_CIPHER_CTX *ctr; /* AES-128-CTR with the flow key (impl=evp) */
	EVP_CIPHER_CTX *ecb; /* AES-128-ECB with the flow key (verify path) */
};

struct ctr_priv {
	EVP_CIPHER_CTX *master; /* AES-128-ECB with the master key */
	int evp;                /* impl=evp: OpenSSL a packet */
	struct ctr_flow flows[CTR_CACHE];
#ifdef HP_CTR_IPSEC_MB
	struct hp_nf_cbc *mb;   /* the ipsec-mb manager (lib/nf/nf_cbc.c) */
	/* Round keys of each slot's flow (impl=mb), apart from the slots so
	 * that a lookup touches one line of flows[]. */
	struct hp_nf_aes_key *rk;
	/* Burst generation that last used each slot: a job points at its
	 * flow's round keys until the burst is encrypted, so a slot the
	 * current burst uses is not taken over (aes_cbc's scheme). */
	uint64_t pin[CTR_CACHE];
	uint64_t gen;
	struct hp_nf_cbc_job jobs[HP_BURST];
	struct rte_mbuf *jm[HP_BURST];
	struct hp_pkt_hdrs hd[HP_BURST]; /* the jobs' header offsets */
	uint8_t late[HP_BURST];           /* the fixup waits for the ciphertext */
	uint8_t ivs[HP_BURST][16];
#endif
};

static int
ctr_param_check(const char *param, char *err, size_t errlen)
{
	static const char *const impls[] = { "mb", "evp", NULL };
	char v[16];

	return hp_task_opt_word("aes_ctr", param, "impl", impls, v, sizeof(v), err, errlen);
}

static void
ctr_free(struct hp_task_ctx *ctx)
{
	struct ctr_priv *p = ctx->priv;
	unsigned int i;

	if (p == NULL)
		return;
	for (i = 0; i < CTR_CACHE; i++) {
		EVP_CIPHER_CTX_free(p->flows[i].ctr);
		EVP_CIPHER_CTX_free(p->flows[i].ecb);
	}
	EVP_CIPHER_CTX_free(p->master);
#ifdef HP_CTR_IPSEC_MB
	hp_nf_cbc_free(p->mb);
	free(p->rk);
#endif
	free(p);
	ctx->priv = NULL;
}

/* The ipsec-mb engine, or -ENOTSUP where there is none (no lib/nf, or a
 * CPU without AES-NI, where ipsec-mb has no code): the task then runs
 * OpenSSL. */
static int
ctr_mb_init(struct ctr_priv *p)
{
#ifdef HP_CTR_IPSEC_MB
	int rc = hp_nf_cbc_create(&p->mb);

	if (rc != 0)
		return rc;
	if (strcmp(hp_nf_cbc_arch(p->mb), "scalar") == 0)
		return -ENOTSUP;
	p->rk = aligned_alloc(64, sizeof(*p->rk) * CTR_CACHE);
	return p->rk == NULL ? -ENOMEM : 0;
#else
	(void)p;
	return -ENOTSUP;
#endif
}

static int
ctr_init(struct hp_task_ctx *ctx)
{
	struct ctr_priv *p;
	char impl[16] = "mb";
	int rc;

	/* Other tasks' options may be in param (app ran is ldpc then
	 * aes_ctr): hp_app_param_check has refused names no task reads. */
	if (hp_task_opt_get(ctx->cfg->param, "impl", impl, sizeof(impl)) < 0 ||
	    (strcmp(impl, "mb") != 0 && strcmp(impl, "evp") != 0)) {
		HP_LOG(ERR, "aes_ctr: --param impl=mb|evp");
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	ctx->priv = p;
	p->evp = strcmp(impl, "evp") == 0;
	if (!p->evp) {
		rc = ctr_mb_init(p);
		if (rc == -ENOTSUP) {
			HP_LOG(INFO, "aes_ctr: no intel-ipsec-mb engine here, OpenSSL EVP");
			p->evp = 1;
		} else if (rc != 0) {
			HP_LOG(ERR, "aes_ctr: intel-ipsec-mb manager: %s", strerror(-rc));
			ctr_free(ctx);
			return rc;
		}
	}
	p->master = EVP_CIPHER_CTX_new();
	if (p->master == NULL ||
	    EVP_EncryptInit_ex(p->master, EVP_aes_128_ecb(), NULL,
			       ctx->cfg->key, NULL) != 1)
		goto fail;
	EVP_CIPHER_CTX_set_padding(p->master, 0);
	return 0;
fail:
	HP_LOG(ERR, "aes_ctr: OpenSSL context set-up failed");
	ctr_free(ctx);
	return -ENOMEM;
}

/* CBC-MAC (AES-CBC, zero IV, the last block) of msg (len a multiple of
 * 16) under the master key: a flow's key and nonce, docs/packet-format.md.
 * For an IPv4 flow's one block it is the ECB encryption of that block. */
static int
cbc_mac(EVP_CIPHER_CTX *ecb, const uint8_t *msg, unsigned int len, uint8_t out[16])
{
	uint8_t x[16] = { 0 };
	unsigned int off, j;
	int outl;

	for (off = 0; off < len; off += 16) {
		for (j = 0; j < 16; j++)
			x[j] ^= msg[off + j];
		if (EVP_EncryptUpdate(ecb, x, &outl, x, 16) != 1)
			return -EIO;
	}
	memcpy(out, x, 16);
	return 0;
}

/* A flow-cache miss: derives the flow's keys into slot. Only a miss needs
 * the 5-tuple, so only a miss parses the headers again. NULL (*err set)
 * when they do not parse or OpenSSL fails. Out of line, so that the hit
 * (ctr_flow) is a compare in the caller's loop: the call per hit was ~2 %
 * of the task's time (perf, ctr-task-bench). */
static __attribute__((noinline)) struct ctr_flow *
ctr_flow_miss(struct ctr_priv *p, struct rte_mbuf *m, const struct hp_meta *md, int *err)
{
	unsigned int slot = md->flow_id & (CTR_CACHE - 1);
	struct ctr_flow *f = &p->flows[slot];
	uint8_t msg[HP_FLOW_MSG_MAX], fkey[16], nb[16];
	struct hp_flow_key key;
	struct hp_pkt_hdrs h;
	unsigned int ml;

	*err = EINVAL;
	if (hp_pkt_hdrs(m, &key, &h) != 0)
		return NULL;
	*err = EIO;
	ml = hp_flow_msg(&key, 0x01, msg);
	if (cbc_mac(p->master, msg, ml, fkey) != 0)
		return NULL;
	hp_flow_msg(&key, 0x02, msg);
	if (cbc_mac(p->master, msg, ml, nb) != 0)
		return NULL;
	f->valid = 0;
	f->ecb_keyed = 0;
	if (p->evp) {
		if (f->ctr == NULL && (f->ctr = EVP_CIPHER_CTX_new()) == NULL)
			return NULL;
		/* a context that has its cipher takes a new key without the
		 * provider's cipher lookup */
		if (EVP_EncryptInit_ex(f->ctr, f->ctr_set ? NULL : EVP_aes_128_ctr(), NULL,
				       fkey, NULL) != 1)
			return NULL;
		f->ctr_set = 1;
	}
#ifdef HP_CTR_IPSEC_MB
	else {
		hp_nf_cbc_expand(p->mb, fkey, &p->rk[slot]);
	}
#endif
	memcpy(f->nonce, nb, 8);
	memcpy(f->key, fkey, 16);
	f->flow_id = md->flow_id;
	f->valid = 1;
	return f;
}

/* Finds or derives the flow's keys (ctr_flow_miss). */
static inline struct ctr_flow *
ctr_flow(struct ctr_priv *p, struct rte_mbuf *m, const struct hp_meta *md, int *err)
{
	struct ctr_flow *f = &p->flows[md->flow_id & (CTR_CACHE - 1)];

	if (likely(f->valid && f->flow_id == md->flow_id))
		return f;
	return ctr_flow_miss(p, m, md, err);
}

/* The flow's ECB context for the verify path, keyed on first use. */
static EVP_CIPHER_CTX *
ctr_ecb(struct ctr_flow *f)
{
	if (f->ecb_keyed)
		return f->ecb;
	if (f->ecb == NULL && (f->ecb = EVP_CIPHER_CTX_new()) == NULL)
		return NULL;
	if (EVP_EncryptInit_ex(f->ecb, f->ecb_set ? NULL : EVP_aes_128_ecb(), NULL, f->key,
			       NULL) != 1)
		return NULL;
	EVP_CIPHER_CTX_set_padding(f->ecb, 0);
	f->ecb_set = 1;
	f->ecb_keyed = 1;
	return f->ecb;
}

static inline void
make_iv(uint8_t iv[16], const uint8_t nonce[8], uint32_t seq)
{
	uint32_t s = rte_cpu_to_be_32(seq);

	memcpy(iv, nonce, 8);
	memcpy(iv + 8, &s, 4);
	memset(iv + 12, 0, 4);
}

/* The checks every packet passes before it is encrypted: 0, or the
 * packet is refused (a security refusal) and -1. */
static inline int
ctr_admit(struct hp_meta *md, struct rte_mbuf *m)
{
	if (unlikely(m->nb_segs != 1)) {
		hp_task_fail_secure(md, EINVAL);
		return -1;
	}
	/* No hp header and no flow-table slot: seq would be 0 for every
	 * packet of the flow, i.e. a reused counter block. */
	if (!hp_meta_seq_unique(md)) {
		hp_task_fail_secure(md, ENOTUNIQ);
		return -1;
	}
	return 0;
}

/* The headers after the payload was encrypted in place. */
static inline void
ctr_fixup(struct hp_task_ctx *ctx, struct rte_mbuf *m)
{
	struct hp_pkt_hdrs h;

	hp_meta_hdrs(hp_meta(m), &h);
	hp_pkt_l4_fixup(m, &h, 0, ctx->cfg->tx_offload);
}

/* impl=evp. Cost note: IMIX (mean 778 B) measures ~0.75 cycles/byte +
 * ~150 cycles per packet for IV re-init on AES-NI (bench/pipeline); the
 * UDP/TCP checksum over the ciphertext while it is in L1 adds ~85 at the
 * IMIX mean (hp_pkt.c). */
static void
ctr_process_evp(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ctr_priv *p = ctx->priv;
	uint16_t i;

	/* No software prefetch of the payload: it was measured one packet
	 * ahead (bench/pipeline, 2026-11-22) and cost the worker ~100 cycles
	 * per IMIX packet; twelve prefetches compete with the cipher's own
	 * loads, which the hardware prefetcher already streams. The mbuf and
	 * metadata lines come with hp_device_run_chain's prefetch. */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct hp_meta *md = hp_meta(m);
		struct ctr_flow *f;
		uint8_t iv[16], *d;
		int outl, err;

		if (md->status != HP_ST_OK || md->data_len == 0 || ctr_admit(md, m) != 0)
			continue;
		f = ctr_flow(p, m, md, &err);
		if (f == NULL) {
			hp_task_fail_secure(md, err);
			continue;
		}
		make_iv(iv, f->nonce, md->hdr_seq);
		d = rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off);
		if (EVP_EncryptInit_ex(f->ctr, NULL, NULL, NULL, iv) != 1 ||
		    EVP_EncryptUpdate(f->ctr, d, &outl, d, md->data_len) != 1) {
			hp_task_fail_secure(md, EIO);
			continue;
		}
		ctr_fixup(ctx, m);
	}
}

/* Packets a call to ipsec-mb when the task sums the ciphertext itself:
 * 8 IMIX packets (~6 KB) are still in L1 when the sum reads them, 32
 * (~25 KB) are partly gone; the burst API runs its jobs one after
 * another, so smaller calls cost only the call. With the port's L4
 * checksum offloads nothing reads the ciphertext again (the headers are
 * done before it is written), and the whole burst is one call. */
#define CTR_SUB 8

#ifdef HP_CTR_IPSEC_MB
/* impl=mb: one pass over the burst reads each packet's metadata once: the
 * checks, the flow, the counter block, and the header offsets, with which
 * a port's checksum offload is set up at once (hp_pkt_l4_fixup_early, it
 * reads only headers) or which are kept for the sum after encryption. A
 * slot another flow of the same burst needs ends the burst early, which
 * is rare. Then ipsec-mb's burst call (the whole burst, or CTR_SUB
 * packets a call when the task sums), each followed by the sums.
 * Cost note (ctr-task-bench, IMIX, Zen 4 guest, ipsec-mb avx512): ipsec-mb
 * alone ~120 cycles a packet; this loop with offloads ~168 instructions a
 * packet (callgrind; ~30 cycles, ~0.78x the bare burst loop), with the
 * software sum ~115 here plus ~470 for the headers and the sum (0.50-0.59x)
 * (bench/results/ctr-task-2026-11-29.md). */
static void
ctr_process_mb(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	const uint64_t offl = ctx->cfg->tx_offload;
	const unsigned int sub = (offl & (RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
					  RTE_ETH_TX_OFFLOAD_TCP_CKSUM)) ==
				 (RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM) ?
				 HP_BURST : CTR_SUB;
	const bool early = (offl & (RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
				    RTE_ETH_TX_OFFLOAD_TCP_CKSUM)) != 0;
	struct ctr_priv *p = ctx->priv;
	uint16_t i = 0;

	if (sub == HP_BURST) /* the offload fields, in the mbuf's second line */
		for (i = 0; i < n; i++)
			rte_prefetch0(&pkts[i]->tx_offload);
	i = 0;
	while (i < n) {
		unsigned int k = 0, j;

		p->gen++;
		for (; i < n && k < HP_BURST; i++) {
			struct rte_mbuf *m = pkts[i];
			struct hp_meta *md = hp_meta(m);
			const uint64_t fid = md->flow_id;
			const unsigned int slot = fid & (CTR_CACHE - 1);
			struct hp_pkt_hdrs h;
			struct ctr_flow *f;
			int err;

			if (md->status != HP_ST_OK || md->data_len == 0)
				continue;
			if (p->pin[slot] == p->gen && p->flows[slot].flow_id != fid)
				break;
			if (ctr_admit(md, m) != 0)
				continue;
			f = ctr_flow(p, m, md, &err);
			if (f == NULL) {
				hp_task_fail_secure(md, err);
				continue;
			}
			p->pin[slot] = p->gen;
			make_iv(p->ivs[k], f->nonce, md->hdr_seq);
			p->jobs[k] = (struct hp_nf_cbc_job){
				.buf = rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off),
				.len = md->data_len, .key = &p->rk[slot], .iv = p->ivs[k] };
			hp_meta_hdrs(md, &h);
			p->late[k] = !early || !hp_pkt_l4_fixup_early(m, &h, offl);
			if (p->late[k])
				p->hd[k] = h;
			p->jm[k++] = m;
		}
		for (j = 0; j < k; j += sub) {
			unsigned int e = RTE_MIN(k, j + sub), q;

			if (hp_nf_ctr_encrypt_burst(p->mb, p->jobs + j, e - j) != 0) {
				for (q = j; q < e; q++)
					hp_task_fail_secure(hp_meta(p->jm[q]), EIO);
				continue;
			}
			for (q = j; q < e; q++)
				if (p->late[q])
					hp_pkt_l4_fixup(p->jm[q], &p->hd[q], 0, offl);
		}
	}
}
#endif

static uint16_t
ctr_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
#ifdef HP_CTR_IPSEC_MB
	if (!((struct ctr_priv *)ctx->priv)->evp) {
		ctr_process_mb(ctx, pkts, n);
		return n;
	}
#endif
	ctr_process_evp(ctx, pkts, n);
	return n;
}

/* Offload (hp_task.h): the same checks and key/counter as ctr_process;
 * the accelerator runs the keystream XOR. */
static int
ctr_offload_prep(struct hp_task_ctx *ctx, struct rte_mbuf *m, struct hp_offload *o,
		 uint8_t *stage, uint32_t room)
{
	struct hp_meta *md = hp_meta(m);
	struct ctr_flow *f;
	int err;

	if (md->status != HP_ST_OK || md->data_len == 0)
		return 1;
	if (md->data_len > room) {
		hp_task_fail_secure(md, EINVAL);
		return -EINVAL;
	}
	if (ctr_admit(md, m) != 0)
		return -md->task_err;
	f = ctr_flow(ctx->priv, m, md, &err);
	if (f == NULL) {
		hp_task_fail_secure(md, err);
		return -err;
	}
	memcpy(o->key, f->key, 16);
	make_iv(o->iv, f->nonce, md->hdr_seq);
	o->in_len = md->data_len;
	o->src = rte_pktmbuf_mtod_offset(m, const uint8_t *, md->data_off);
	o->dst = NULL;
	if (stage != NULL)
		memcpy(stage, o->src, md->data_len);
	else /* CTR keeps the length: the ciphertext goes where it was read */
		o->dst = rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off);
	return 0;
}

/* The ciphertext into the packet (unless the accelerator wrote it in
 * place: out NULL), then its headers (hp_task.h, process). */
static void
ctr_offload_done(struct hp_task_ctx *ctx, struct rte_mbuf *m, const struct hp_offload *o,
		 const uint8_t *out)
{
	struct hp_meta *md = hp_meta(m);
	struct hp_pkt_hdrs h;

	hp_meta_hdrs(md, &h);
	if (out == NULL) /* the accelerator summed what it wrote */
		hp_pkt_l4_fixup_sum(m, &h, md->data_off, (uint16_t)o->in_len, o->out_sum,
				    ctx->cfg->tx_offload);
	else {
		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), out, o->in_len);
		hp_pkt_l4_fixup(m, &h, 0, ctx->cfg->tx_offload);
	}
}

/* Reference CTR: the ECB block function and our own counter arithmetic
 * (big-endian increment of the low 32 bits, which never carries for a
 * packet), so the verify path does not share EVP's CTR mode. */
static int
ctr_ref(EVP_CIPHER_CTX *ecb, const uint8_t iv[16], uint8_t *buf, uint32_t len)
{
	uint8_t blk[16], ks[16];
	uint32_t off, j, c0;
	int outl;

	memcpy(blk, iv, 16);
	memcpy(&c0, iv + 12, 4);
	c0 = rte_be_to_cpu_32(c0);
	for (off = 0; off < len; off += 16, c0++) {
		uint32_t be = rte_cpu_to_be_32(c0);

		memcpy(blk + 12, &be, 4);
		if (EVP_EncryptUpdate(ecb, ks, &outl, blk, 16) != 1)
			return -EIO;
		for (j = 0; j < 16 && off + j < len; j++)
			buf[off + j] ^= ks[j];
	}
	return 0;
}

static int
ctr_verify(struct hp_task_ctx *ctx, struct rte_mbuf *m, uint8_t *buf,
	   uint32_t *len)
{
	struct ctr_priv *p = ctx->priv;
	const struct hp_meta *md = hp_meta(m);
	struct ctr_flow *f;
	EVP_CIPHER_CTX *ecb;
	uint8_t iv[16];
	int err;

	if ((f = ctr_flow(p, m, md, &err)) == NULL || (ecb = ctr_ecb(f)) == NULL)
		return -ENOTSUP;
	make_iv(iv, f->nonce, md->hdr_seq);
	return ctr_ref(ecb, iv, buf, *len);
}

int
hp_aes_ctr_ref(const uint8_t key[16], const uint8_t iv[16], uint8_t *buf,
	       uint32_t len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int ret = -EIO;

	if (c != NULL && EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), NULL, key, NULL) == 1) {
		EVP_CIPHER_CTX_set_padding(c, 0);
		ret = ctr_ref(c, iv, buf, len);
	}
	EVP_CIPHER_CTX_free(c);
	return ret;
}

int
hp_aes_ctr_evp(const uint8_t key[16], const uint8_t iv[16], uint8_t *buf,
	       uint32_t len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int outl, ret = -EIO;

	if (c != NULL && EVP_EncryptInit_ex(c, EVP_aes_128_ctr(), NULL, key, iv) == 1 &&
	    EVP_EncryptUpdate(c, buf, &outl, buf, (int)len) == 1)
		ret = 0;
	EVP_CIPHER_CTX_free(c);
	return ret;
}

static const struct hp_task_ops task_aes_ctr = {
	.name = "aes_ctr",
	.desc = "AES-128-CTR, per-flow key and nonce (intel-ipsec-mb burst; impl=evp: OpenSSL)",
	.params = "impl",
	.param_check = ctr_param_check,
	.ctx_init = ctr_init,
	.ctx_free = ctr_free,
	.process = ctr_process,
	.verify = ctr_verify,
	.offload = "aes_ctr",
	.offload_in_place = true,
	.offload_prep = ctr_offload_prep,
	.offload_done = ctr_offload_done,
};
HP_TASK_REGISTER(task_aes_ctr)
