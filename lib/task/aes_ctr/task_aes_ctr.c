/* SPDX-License-Identifier: BSD-3-Clause
 * AES-128-CTR task (Johansson & Pap §4.4) through OpenSSL EVP, with a key
 * and nonce per flow derived from the master key:
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
 * The UDP/TCP checksum is redone over the ciphertext. Per-lcore cache of
 * flow contexts: a hit costs one EVP re-init with a new IV (~60 ns)
 * instead of a key schedule.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <rte_byteorder.h>

#include "hp_aes_ctr.h"
#include "hp_common.h"
#include "hp_task.h"

/* Flows per lcore, direct mapped on flow_id: a cache, not a table (a
 * miss derives the flow's key again, so no number of flows makes it
 * wrong). Large, because a slot's first use costs two full EVP inits
 * (~10k cycles with OpenSSL 3's provider lookups): at 256 slots the
 * generator's ~100 flows collided often enough to cost the worker ~1,000
 * cycles per packet on average (bench/pipeline, 2026-11-22). A slot
 * taken over by another flow keeps its cipher and only changes the key,
 * and the verify path's ECB context is keyed when verify needs it. */
#define CTR_CACHE 4096

struct ctr_flow {
	uint64_t flow_id;
	uint8_t valid;
	uint8_t ctr_set;     /* ctr has its cipher: a new key is a re-key */
	uint8_t ecb_set;     /* ecb has its cipher */
	uint8_t ecb_keyed;   /* ecb has this flow's key */
	uint8_t nonce[8];
	uint8_t key[16];     /* the flow key (offload to an accelerator) */
	EVP_CIPHER_CTX *ctr; /* AES-128-CTR with the flow key */
	EVP_CIPHER_CTX *ecb; /* AES-128-ECB with the flow key (verify path) */
};

struct ctr_priv {
	EVP_CIPHER_CTX *master; /* AES-128-ECB with the master key */
	struct ctr_flow flows[CTR_CACHE];
};

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
	free(p);
	ctx->priv = NULL;
}

static int
ctr_init(struct hp_task_ctx *ctx)
{
	struct ctr_priv *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return -ENOMEM;
	ctx->priv = p;
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

/* Finds or derives the flow's key context from the packet's 5-tuple key;
 * NULL if OpenSSL fails. */
static struct ctr_flow *
ctr_flow(struct ctr_priv *p, const struct hp_meta *md, const struct hp_flow_key *key)
{
	struct ctr_flow *f = &p->flows[md->flow_id & (CTR_CACHE - 1)];
	uint8_t msg[HP_FLOW_MSG_MAX], fkey[16], nb[16];
	unsigned int ml;

	if (f->valid && f->flow_id == md->flow_id)
		return f;
	if (f->ctr == NULL)
		f->ctr = EVP_CIPHER_CTX_new();
	if (f->ctr == NULL)
		return NULL;
	ml = hp_flow_msg(key, 0x01, msg);
	if (cbc_mac(p->master, msg, ml, fkey) != 0)
		return NULL;
	hp_flow_msg(key, 0x02, msg);
	if (cbc_mac(p->master, msg, ml, nb) != 0)
		return NULL;
	f->valid = 0;
	f->ecb_keyed = 0;
	/* a context that has its cipher takes a new key without the
	 * provider's cipher lookup */
	if (EVP_EncryptInit_ex(f->ctr, f->ctr_set ? NULL : EVP_aes_128_ctr(), NULL, fkey,
			       NULL) != 1)
		return NULL;
	f->ctr_set = 1;
	memcpy(f->nonce, nb, 8);
	memcpy(f->key, fkey, 16);
	f->flow_id = md->flow_id;
	f->valid = 1;
	return f;
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

/* Cost note: IMIX (mean 778 B) measures ~0.75 cycles/byte + ~150 cycles
 * per packet for IV re-init on AES-NI (bench/pipeline); the headers
 * (re-parse, then the UDP/TCP checksum over the ciphertext while it is in
 * L1) add ~100 at the IMIX mean (hp_pkt.c). */
static uint16_t
ctr_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
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
		struct hp_flow_key key;
		struct hp_pkt_hdrs h;
		struct ctr_flow *f;
		uint8_t iv[16], *d;
		int outl;

		if (md->status != HP_ST_OK || md->data_len == 0)
			continue;
		if (hp_pkt_hdrs(m, &key, &h) != 0) {
			hp_task_fail_secure(md, EINVAL);
			continue;
		}
		/* No hp header and no flow-table slot: seq would be 0 for
		 * every packet of the flow, i.e. a reused counter block. */
		if (!hp_meta_seq_unique(md)) {
			hp_task_fail_secure(md, ENOTUNIQ);
			continue;
		}
		f = ctr_flow(p, md, &key);
		if (f == NULL) {
			hp_task_fail_secure(md, EIO);
			continue;
		}
		make_iv(iv, f->nonce, md->hdr_seq);
		d = rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off);
		if (EVP_EncryptInit_ex(f->ctr, NULL, NULL, NULL, iv) != 1 ||
		    EVP_EncryptUpdate(f->ctr, d, &outl, d, md->data_len) != 1) {
			hp_task_fail_secure(md, EIO);
			continue;
		}
		hp_pkt_l4_fixup(m, &h, 0, ctx->cfg->tx_offload);
	}
	return n;
}

/* Offload (hp_task.h): the same checks and key/counter as ctr_process;
 * the accelerator runs the keystream XOR. */
static int
ctr_offload_prep(struct hp_task_ctx *ctx, struct rte_mbuf *m, struct hp_offload *o,
		 uint8_t *stage, uint32_t room)
{
	struct hp_meta *md = hp_meta(m);
	struct hp_flow_key key;
	struct hp_pkt_hdrs h;
	struct ctr_flow *f;

	if (md->status != HP_ST_OK || md->data_len == 0)
		return 1;
	if (md->data_len > room || hp_pkt_hdrs(m, &key, &h) != 0) {
		hp_task_fail_secure(md, EINVAL);
		return -EINVAL;
	}
	if (!hp_meta_seq_unique(md)) {
		hp_task_fail_secure(md, ENOTUNIQ);
		return -ENOTUNIQ;
	}
	f = ctr_flow(ctx->priv, md, &key);
	if (f == NULL) {
		hp_task_fail_secure(md, EIO);
		return -EIO;
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
	struct hp_flow_key key;
	struct hp_pkt_hdrs h;

	if (out != NULL)
		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), out, o->in_len);
	if (hp_pkt_hdrs(m, &key, &h) != 0)
		hp_task_fail_secure(md, EINVAL); /* prep parsed them: cannot happen */
	else if (out == NULL) /* the accelerator summed what it wrote */
		hp_pkt_l4_fixup_sum(m, &h, md->data_off, (uint16_t)o->in_len, o->out_sum,
				    ctx->cfg->tx_offload);
	else
		hp_pkt_l4_fixup(m, &h, 0, ctx->cfg->tx_offload);
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
	struct hp_flow_key key;
	struct hp_pkt_hdrs h;
	struct ctr_flow *f;
	EVP_CIPHER_CTX *ecb;
	uint8_t iv[16];

	if (hp_pkt_hdrs(m, &key, &h) != 0 || (f = ctr_flow(p, md, &key)) == NULL ||
	    (ecb = ctr_ecb(f)) == NULL)
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
	.desc = "AES-128-CTR, per-flow key and nonce (OpenSSL EVP)",
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
