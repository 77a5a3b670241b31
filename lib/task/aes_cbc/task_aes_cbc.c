/* SPDX-License-Identifier: BSD-3-Clause
 * The aes_cbc task (app vpn): AES-128-CBC with PKCS#7 padding, a key per
 * flow and an IV per packet derived from the master key, through lib/nf's
 * intel-ipsec-mb multi-buffer engine (or OpenSSL per packet), and its
 * offload to the aes_cbc kernel (aes_cbc.cu). Formats, key/IV/padding and
 * task parameters: docs/nf.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "hp_common.h"
#include "hp_nf.h"
#include "hp_task.h"

/* The last block of an IPv6 flow's key message (below). */
static void
flow_tail6(const struct hp_flow_key *k, uint8_t b[16])
{
	memset(b, 0, 16);
	memcpy(b, "CB6", 3);
	memcpy(b + 3, &k->src_port, 2);
	memcpy(b + 5, &k->dst_port, 2);
	b[7] = k->proto;
}

/* The block K_flow = AES_Kmaster(block) is derived from, docs/nf.md: for
 * IPv4 lib/nf's "CB1" block; for IPv6, so that K_flow is the CBC-MAC of
 * src6 | dst6 | "CB6" | ports | proto | 0 x 8 under the master key, the
 * chaining value of its first two blocks XOR the third. */
static void
flow_block_of(const struct hp_nf_aes_key *master, const struct hp_flow_key *k,
	      uint8_t fb[16])
{
	uint8_t x[16], y[16];

	if (!k->ipv6) {
		hp_nf_cbc_flow_block((const uint8_t *)&k->src_ip, (const uint8_t *)&k->dst_ip,
				     (const uint8_t *)&k->src_port,
				     (const uint8_t *)&k->dst_port, k->proto, fb);
		return;
	}
	hp_nf_aes_block(master, k->src6, x);
	for (unsigned int i = 0; i < 16; i++)
		x[i] ^= k->dst6[i];
	hp_nf_aes_block(master, x, y);
	flow_tail6(k, fb);
	for (unsigned int i = 0; i < 16; i++)
		fb[i] ^= y[i];
}

/* The same block on the reference path, through OpenSSL's CBC. */
static int
flow_block_ref(const uint8_t master[16], const struct hp_flow_key *k, uint8_t fb[16])
{
	static const uint8_t zero[16];
	uint8_t buf[32];

	if (!k->ipv6) {
		flow_block_of(NULL, k, fb);
		return 0;
	}
	memcpy(buf, k->src6, 16);
	memcpy(buf + 16, k->dst6, 16);
	if (hp_nf_cbc_evp(master, zero, buf, sizeof(buf), 1) != 0)
		return -EIO;
	flow_tail6(k, fb);
	for (unsigned int i = 0; i < 16; i++)
		fb[i] ^= buf[16 + i];
	return 0;
}

/* The IP length field (IPv4 total length, IPv6 payload length) that
 * padding adds to. */
static uint32_t
ip_len(struct rte_mbuf *m, const struct hp_pkt_hdrs *h)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, h->l3);
	uint16_t v;

	memcpy(&v, l3 + (h->ipv6 ? offsetof(struct rte_ipv6_hdr, payload_len) :
				   offsetof(struct rte_ipv4_hdr, total_length)), 2);
	return rte_be_to_cpu_16(v);
}

static int
cbc_param_check(const char *param, char *err, size_t errlen)
{
	static const char *const impls[] = { "mb", "evp", NULL };
	char v[16];

	return hp_task_opt_word("aes_cbc", param, "impl", impls, v, sizeof(v), err, errlen);
}

#define CBC_CACHE 256 /* flows per lcore; direct mapped on flow_id */

struct cbc_flow {
	uint64_t flow_id;
	int valid;
	uint8_t raw[16];
	struct hp_nf_aes_key key;
};

struct cbc_priv {
	struct hp_nf_cbc *mb;
	int evp;                  /* impl=evp: OpenSSL per packet */
	struct hp_nf_aes_key master;
	struct cbc_flow flows[CBC_CACHE];
	/* Burst generation that last used each cache slot: a job keeps a
	 * pointer to its flow's key until the burst is encrypted, so a slot
	 * in use by the current burst must not be evicted. */
	uint64_t pin[CBC_CACHE];
	uint64_t gen;
	struct hp_nf_cbc_job jobs[HP_BURST];
	struct rte_mbuf *jm[HP_BURST];
	struct hp_pkt_hdrs jh[HP_BURST];
	uint16_t grow[HP_BURST];
	uint8_t ivs[HP_BURST][16];
};

static void
cbc_free(struct hp_task_ctx *ctx)
{
	struct cbc_priv *p = ctx->priv;

	if (p == NULL)
		return;
	hp_nf_cbc_free(p->mb);
	free(p);
	ctx->priv = NULL;
}

static int
cbc_init(struct hp_task_ctx *ctx)
{
	static const char *const known[] = { "impl", NULL };
	struct cbc_priv *p;
	char impl[16] = "mb";
	int rc;

	if (hp_task_opt_check("aes_cbc", ctx->cfg->param, known) != 0 ||
	    hp_task_opt_get(ctx->cfg->param, "impl", impl, sizeof(impl)) < 0 ||
	    (strcmp(impl, "mb") != 0 && strcmp(impl, "evp") != 0)) {
		HP_LOG(ERR, "aes_cbc: --param impl=mb|evp");
		return -EINVAL;
	}
	p = aligned_alloc(16, sizeof(*p)); /* sizeof is a multiple of 16 */
	if (p == NULL)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	/* ipsec-mb also expands the keys on the evp path. */
	rc = hp_nf_cbc_create(&p->mb);
	if (rc != 0) {
		HP_LOG(ERR, "aes_cbc: intel-ipsec-mb manager: %s", strerror(-rc));
		free(p);
		return rc;
	}
	p->evp = strcmp(impl, "evp") == 0;
	hp_nf_cbc_expand(p->mb, ctx->cfg->key, &p->master);
	ctx->priv = p;
	return 0;
}

/* The flow's keys; only a miss needs the 5-tuple, so only a miss parses
 * the headers again (NULL when they do not parse). */
static struct cbc_flow *
cbc_flow(struct cbc_priv *p, struct rte_mbuf *m, const struct hp_meta *md)
{
	struct cbc_flow *f = &p->flows[md->flow_id & (CBC_CACHE - 1)];
	struct hp_flow_key k;
	struct hp_pkt_hdrs h;
	uint8_t fb[16];

	if (f->valid && f->flow_id == md->flow_id)
		return f;
	if (hp_pkt_hdrs(m, &k, &h) != 0)
		return NULL;
	/* Miss: ~60 ns (one AES block + one key expansion; IPv6: two
	 * blocks more). */
	flow_block_of(&p->master, &k, fb);
	hp_nf_aes_block(&p->master, fb, f->raw);
	hp_nf_cbc_expand(p->mb, f->raw, &f->key);
	f->flow_id = md->flow_id;
	f->valid = 1;
	return f;
}

/* Pads one packet in place (growing the mbuf if needed) and returns the
 * new data length, or a negative errno. */
static int
cbc_pad_pkt(struct rte_mbuf *m, struct hp_meta *md, const struct hp_pkt_hdrs *h,
	    uint16_t *grow)
{
	uint32_t end = (uint32_t)md->data_off + md->data_len;
	uint32_t plen = (md->data_len / 16 + 1) * 16;
	uint32_t g = plen - md->data_len;
	uint32_t trailer = rte_pktmbuf_data_len(m) - end;

	/* Padding goes at the end of the data region, which must be the end
	 * of the L4 payload so the receiver finds it from the IP length. */
	if (end != (uint32_t)h->pay + h->pay_len || end > rte_pktmbuf_data_len(m))
		return -EINVAL;
	if (ip_len(m, h) + g > UINT16_MAX)
		return -EMSGSIZE;
	/* Bytes after the IP packet (Ethernet minimum-frame padding) are
	 * reused; only the rest is appended. */
	if (g > trailer && rte_pktmbuf_append(m, (uint16_t)(g - trailer)) == NULL)
		return -ENOSPC;
	hp_nf_cbc_pad(rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off),
		      md->data_len);
	*grow = (uint16_t)g;
	return (int)plen;
}

/* Cost note (bench/tasks, this machine): ipsec-mb VAES multi-buffer CBC
 * runs ~10 GB/s per core at 1458 B in bursts of 32; per packet adds the
 * IV (one AES block, ~10 ns), the header fix-up (offsets from the
 * metadata: no re-parse) and, when
 * the UDP or TCP checksum is in use, a checksum pass over the ciphertext
 * (hp_pkt_l4_fixup; ~85 cycles at 778 B). */
static uint16_t
cbc_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct cbc_priv *p = ctx->priv;
	uint16_t i = 0;

	while (i < n) {
		unsigned int k = 0;

		p->gen++;
		for (; i < n && k < HP_BURST; i++) {
			struct rte_mbuf *m = pkts[i];
			struct hp_meta *md = hp_meta(m);
			unsigned int slot = md->flow_id & (CBC_CACHE - 1);
			struct cbc_flow *f;
			uint8_t sb[16];
			int len;

			if (md->status != HP_ST_OK)
				continue;
			if (p->pin[slot] == p->gen && p->flows[slot].flow_id !=
			    md->flow_id)
				break; /* encrypt the burst first (rare) */
			if (m->nb_segs != 1) {
				hp_task_fail_secure(md, EINVAL);
				continue;
			}
			hp_meta_hdrs(md, &p->jh[k]);
			/* No hp header and no flow-table slot: seq is 0 for
			 * every packet of the flow, so the IV would repeat. */
			if (!hp_meta_seq_unique(md)) {
				hp_task_fail_secure(md, ENOTUNIQ);
				continue;
			}
			f = cbc_flow(p, m, md);
			if (f == NULL) {
				hp_task_fail_secure(md, EINVAL);
				continue;
			}
			p->pin[slot] = p->gen;
			len = cbc_pad_pkt(m, md, &p->jh[k], &p->grow[k]);
			if (len < 0) {
				hp_task_fail_secure(md, -len);
				continue;
			}
			md->data_len = (uint16_t)len;
			hp_nf_cbc_seq_block(md->hdr_seq, sb);
			hp_nf_aes_block(&f->key, sb, p->ivs[k]);
			p->jobs[k] = (struct hp_nf_cbc_job){
				.buf = rte_pktmbuf_mtod_offset(m, uint8_t *,
							       md->data_off),
				.len = (uint32_t)len, .key = &f->key,
				.iv = p->ivs[k] };
			if (p->evp && hp_nf_cbc_evp(f->raw, p->ivs[k],
						    p->jobs[k].buf, (uint32_t)len,
						    1) != 0) {
				hp_task_fail_secure(md, EIO);
				continue;
			}
			p->jm[k++] = m;
		}
		if (!p->evp && k > 0 &&
		    hp_nf_cbc_encrypt_burst(p->mb, p->jobs, k) != 0) {
			for (unsigned int j = 0; j < k; j++)
				hp_task_fail_secure(hp_meta(p->jm[j]), EIO);
			continue;
		}
		for (unsigned int j = 0; j < k; j++)
			hp_pkt_l4_fixup(p->jm[j], &p->jh[j], p->grow[j], ctx->cfg->tx_offload);
	}
	return n;
}

/* Offload (hp_task.h): cbc_process's checks, key and IV, with the
 * padding written into the staging instead of the packet; the packet is
 * grown and its headers fixed only in done, once the ciphertext is back. */
static int
cbc_offload_prep(struct hp_task_ctx *ctx, struct rte_mbuf *m, struct hp_offload *o,
		 uint8_t *stage, uint32_t room)
{
	struct cbc_priv *p = ctx->priv;
	struct hp_meta *md = hp_meta(m);
	struct hp_pkt_hdrs h;
	struct cbc_flow *f;
	uint32_t end, plen, g, trailer;
	uint8_t sb[16];

	if (md->status != HP_ST_OK)
		return 1;
	if (m->nb_segs != 1) {
		hp_task_fail_secure(md, EINVAL);
		return -EINVAL;
	}
	hp_meta_hdrs(md, &h);
	if (!hp_meta_seq_unique(md)) {
		hp_task_fail_secure(md, ENOTUNIQ);
		return -ENOTUNIQ;
	}
	end = (uint32_t)md->data_off + md->data_len;
	plen = (md->data_len / 16 + 1) * 16;
	g = plen - md->data_len;
	trailer = rte_pktmbuf_data_len(m) - end;
	if (end != (uint32_t)h.pay + h.pay_len || end > rte_pktmbuf_data_len(m) ||
	    plen > room) {
		hp_task_fail_secure(md, EINVAL);
		return -EINVAL;
	}
	if (ip_len(m, &h) + g > UINT16_MAX) {
		hp_task_fail_secure(md, EMSGSIZE);
		return -EMSGSIZE;
	}
	if (g > trailer && g - trailer > rte_pktmbuf_tailroom(m)) {
		hp_task_fail_secure(md, ENOSPC);
		return -ENOSPC;
	}
	f = cbc_flow(p, m, md);
	if (f == NULL) {
		hp_task_fail_secure(md, EINVAL);
		return -EINVAL;
	}
	hp_nf_cbc_seq_block(md->hdr_seq, sb);
	hp_nf_aes_block(&f->key, sb, o->iv);
	memcpy(o->key, f->raw, 16);
	memcpy(stage, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), md->data_len);
	hp_nf_cbc_pad(stage, md->data_len);
	o->in_len = plen;
	o->aux = g;
	return 0;
}

static void
cbc_offload_done(struct hp_task_ctx *ctx, struct rte_mbuf *m, const struct hp_offload *o,
		 const uint8_t *out)
{
	struct hp_meta *md = hp_meta(m);
	uint32_t end = (uint32_t)md->data_off + md->data_len;
	uint32_t trailer = rte_pktmbuf_data_len(m) - end;
	struct hp_pkt_hdrs h;

	/* the headers as prep found them, before the packet grows */
	hp_meta_hdrs(md, &h);
	/* prep checked the room; append cannot fail here */
	if (o->aux > trailer && rte_pktmbuf_append(m, (uint16_t)(o->aux - trailer)) == NULL) {
		hp_task_fail_secure(md, ENOSPC);
		return;
	}
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), out, o->in_len);
	md->data_len = (uint16_t)o->in_len;
	hp_pkt_l4_fixup(m, &h, (uint16_t)o->aux, ctx->cfg->tx_offload);
}

/* Reference: a receiver's view, all in OpenSSL EVP. Derives K_flow and
 * the IV from the master key, the 5-tuple and the sequence, decrypts and
 * strips the PKCS#7 padding. */
static int
cbc_verify(struct hp_task_ctx *ctx, struct rte_mbuf *m, uint8_t *buf,
	   uint32_t *len)
{
	const struct hp_meta *md = hp_meta(m);
	uint8_t fb[16], key[16], iv[16];
	struct hp_flow_key k;
	struct hp_pkt_hdrs h;
	uint32_t out;

	if (hp_pkt_hdrs(m, &k, &h) != 0 || flow_block_ref(ctx->cfg->key, &k, fb) != 0)
		return -ENOTSUP;
	if (hp_nf_cbc_derive_ref(ctx->cfg->key, fb, md->hdr_seq, key, iv) != 0)
		return -ENOTSUP;
	if (*len % 16 != 0 || hp_nf_cbc_evp(key, iv, buf, *len, 0) != 0)
		return -EBADMSG;
	if (hp_nf_cbc_unpad(buf, *len, &out) != 0)
		return -EBADMSG;
	*len = out;
	return 0;
}

static const struct hp_task_ops task_aes_cbc = {
	.name = "aes_cbc",
	.desc = "AES-128-CBC + PKCS#7, per-flow key, IV from seq (ipsec-mb multi-buffer; --param impl=mb|evp)",
	.ctx_init = cbc_init,
	.ctx_free = cbc_free,
	.process = cbc_process,
	.verify = cbc_verify,
	.params = "impl",
	.param_check = cbc_param_check,
	.offload = "aes_cbc",
	.offload_prep = cbc_offload_prep,
	.offload_done = cbc_offload_done,
};
HP_TASK_REGISTER(task_aes_cbc)
