/* SPDX-License-Identifier: BSD-3-Clause
 * Task glue for the hp_nf kernels: the aes_cbc (app vpn), md5 (app dedup)
 * and dpi (app ids) tasks behind the task ops table. Compiled into the
 * core library; the kernels themselves live in the EAL-free hp_nf library.
 * Formats, key/IV/padding and task parameters: docs/nf.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
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

/* ------------------------------------------------------------- helpers */

/* Where the headers of a classified frame are (Ethernet, optional VLAN,
 * IPv4, UDP or TCP), for key derivation and for length fix-ups. */
struct l3l4 {
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp; /* NULL for TCP */
	struct rte_tcp_hdr *tcp; /* NULL for UDP */
	uint32_t l4_end;         /* offset just past the L4 payload */
};

static int
find_headers(struct rte_mbuf *m, struct l3l4 *h)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), off = RTE_ETHER_HDR_LEN, ihl, tot;
	uint16_t et;

	if (len < off + sizeof(struct rte_ipv4_hdr))
		return -EINVAL;
	et = ((struct rte_ether_hdr *)f)->ether_type;
	if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
		et = *(uint16_t *)(f + off + 2);
		off += 4;
	}
	if (et != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    len < off + sizeof(struct rte_ipv4_hdr))
		return -EINVAL;
	h->ip = (struct rte_ipv4_hdr *)(f + off);
	ihl = (h->ip->version_ihl & 0xf) * 4u;
	tot = rte_be_to_cpu_16(h->ip->total_length);
	if (ihl < 20 || off + tot > len || tot < ihl + 8)
		return -EINVAL;
	h->udp = NULL;
	h->tcp = NULL;
	if (h->ip->next_proto_id == IPPROTO_UDP) {
		h->udp = (struct rte_udp_hdr *)(f + off + ihl);
		h->l4_end = off + ihl + rte_be_to_cpu_16(h->udp->dgram_len);
	} else if (h->ip->next_proto_id == IPPROTO_TCP) {
		if (tot < ihl + sizeof(struct rte_tcp_hdr))
			return -EINVAL;
		h->tcp = (struct rte_tcp_hdr *)(f + off + ihl);
		h->l4_end = off + tot;
	} else {
		return -EINVAL;
	}
	return 0;
}

static void
flow_block_of(const struct l3l4 *h, uint8_t fb[16])
{
	/* Ports sit at the same offsets in UDP and TCP. */
	const uint8_t *l4 = h->udp ? (const uint8_t *)h->udp :
				     (const uint8_t *)h->tcp;

	hp_nf_cbc_flow_block((const uint8_t *)&h->ip->src_addr,
			     (const uint8_t *)&h->ip->dst_addr, l4, l4 + 2,
			     h->ip->next_proto_id, fb);
}

static inline void
task_fail(struct hp_meta *md, int err)
{
	md->status = HP_ST_TASK_ERR;
	md->task_err = (uint16_t)err;
}

/* Offload prep of tasks that read the data region as it is (md5, dpi):
 * process()'s checks, then the region into the staging. */
static int
offload_copy_in(struct hp_task_ctx *ctx, struct rte_mbuf *m, struct hp_offload *o,
		uint8_t *stage, uint32_t room)
{
	struct hp_meta *md = hp_meta(m);

	RTE_SET_USED(ctx);
	if (md->status != HP_ST_OK)
		return 1;
	if (m->nb_segs != 1 || md->data_len > room ||
	    (uint32_t)md->data_off + md->data_len > rte_pktmbuf_data_len(m)) {
		task_fail(md, EINVAL);
		return -EINVAL;
	}
	o->in_len = md->data_len;
	memcpy(stage, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), md->data_len);
	return 0;
}

/* Rejects options the task does not know, so a typo is an error. */
static int
opt_check(const char *task, const char *param, const char *const *known)
{
	const char *p = param;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		int ok = 0;

		for (unsigned int i = 0; known[i] != NULL; i++) {
			size_t kl = strlen(known[i]);

			if (l > kl && strncmp(p, known[i], kl) == 0 && p[kl] == '=')
				ok = 1;
		}
		if (!ok) {
			HP_LOG(ERR, "%s: unknown option '%.*s' in --param", task,
			       (int)l, p);
			return -EINVAL;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* One option of a fixed set of words: 0 when absent or valid (copied to
 * val), -EINVAL with a reason in err otherwise. */
static int
opt_word(const char *task, const char *param, const char *name,
	 const char *const *words, char *val, size_t vlen, char *err,
	 size_t errlen)
{
	int rc = hp_task_opt_get(param, name, val, vlen);

	if (rc == 0)
		return 0;
	for (unsigned int i = 0; rc > 0 && words[i] != NULL; i++)
		if (strcmp(val, words[i]) == 0)
			return 0;
	snprintf(err, errlen, "%s: bad %s '%s' (%s%s%s)", task, name,
		 rc > 0 ? val : "(too long)", words[0], words[1] ? "|" : "",
		 words[1] ? words[1] : "");
	return -EINVAL;
}

static int
cbc_param_check(const char *param, char *err, size_t errlen)
{
	static const char *const impls[] = { "mb", "evp", NULL };
	char v[16];

	return opt_word("aes_cbc", param, "impl", impls, v, sizeof(v), err, errlen);
}

static int
md5_param_check(const char *param, char *err, size_t errlen)
{
	static const char *const impls[] = { "mb", "ref", NULL };
	char v[16];

	return opt_word("md5", param, "impl", impls, v, sizeof(v), err, errlen);
}

/* ============================================================ aes_cbc */

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
	struct l3l4 jh[HP_BURST];
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

	if (opt_check("aes_cbc", ctx->cfg->param, known) != 0 ||
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

static struct cbc_flow *
cbc_flow(struct cbc_priv *p, const struct hp_meta *md, const struct l3l4 *h)
{
	struct cbc_flow *f = &p->flows[md->flow_id & (CBC_CACHE - 1)];
	uint8_t fb[16];

	if (f->valid && f->flow_id == md->flow_id)
		return f;
	/* Miss: ~60 ns (one AES block + one key expansion). */
	flow_block_of(h, fb);
	hp_nf_aes_block(&p->master, fb, f->raw);
	hp_nf_cbc_expand(p->mb, f->raw, &f->key);
	f->flow_id = md->flow_id;
	f->valid = 1;
	return f;
}

/* After encryption: the frame grew by g bytes at the end of the L4
 * payload; fix IPv4 total length and checksum, UDP length, L4 checksum
 * (over the ciphertext; a UDP checksum of 0 means "none" and stays 0). */
static void
cbc_fix_headers(const struct l3l4 *h, uint16_t g)
{
	struct rte_ipv4_hdr *ip = h->ip;

	if (g != 0) {
		ip->total_length = rte_cpu_to_be_16(
			(uint16_t)(rte_be_to_cpu_16(ip->total_length) + g));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (h->udp != NULL) {
		int had = h->udp->dgram_cksum != 0;

		h->udp->dgram_len = rte_cpu_to_be_16(
			(uint16_t)(rte_be_to_cpu_16(h->udp->dgram_len) + g));
		if (had) {
			h->udp->dgram_cksum = 0;
			h->udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, h->udp);
		}
	} else {
		h->tcp->cksum = 0;
		h->tcp->cksum = rte_ipv4_udptcp_cksum(ip, h->tcp);
	}
}

/* Pads one packet in place (growing the mbuf if needed) and returns the
 * new data length, or a negative errno. */
static int
cbc_pad_pkt(struct rte_mbuf *m, struct hp_meta *md, const struct l3l4 *h,
	    uint16_t *grow)
{
	uint32_t end = (uint32_t)md->data_off + md->data_len;
	uint32_t plen = (md->data_len / 16 + 1) * 16;
	uint32_t g = plen - md->data_len;
	uint32_t trailer = rte_pktmbuf_data_len(m) - end;

	/* Padding goes at the end of the data region, which must be the end
	 * of the L4 payload so the receiver finds it from the IP length. */
	if (end != h->l4_end || end > rte_pktmbuf_data_len(m))
		return -EINVAL;
	if (rte_be_to_cpu_16(h->ip->total_length) + g > UINT16_MAX)
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
 * IV (one AES block, ~10 ns), the header fix-up and, when the UDP or TCP
 * checksum is in use, a checksum pass over the ciphertext. */
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
			if (m->nb_segs != 1 || find_headers(m, &p->jh[k]) != 0) {
				task_fail(md, EINVAL);
				continue;
			}
			/* No hp header and no flow-table slot: seq is 0 for
			 * every packet of the flow, so the IV would repeat. */
			if (!hp_meta_seq_unique(md)) {
				task_fail(md, ENOTUNIQ);
				continue;
			}
			f = cbc_flow(p, md, &p->jh[k]);
			p->pin[slot] = p->gen;
			len = cbc_pad_pkt(m, md, &p->jh[k], &p->grow[k]);
			if (len < 0) {
				task_fail(md, -len);
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
				task_fail(md, EIO);
				continue;
			}
			p->jm[k++] = m;
		}
		if (!p->evp && k > 0 &&
		    hp_nf_cbc_encrypt_burst(p->mb, p->jobs, k) != 0) {
			for (unsigned int j = 0; j < k; j++)
				task_fail(hp_meta(p->jm[j]), EIO);
			continue;
		}
		for (unsigned int j = 0; j < k; j++)
			cbc_fix_headers(&p->jh[j], p->grow[j]);
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
	struct cbc_flow *f;
	struct l3l4 h;
	uint32_t end, plen, g, trailer;
	uint8_t sb[16];

	if (md->status != HP_ST_OK)
		return 1;
	if (m->nb_segs != 1 || find_headers(m, &h) != 0) {
		task_fail(md, EINVAL);
		return -EINVAL;
	}
	if (!hp_meta_seq_unique(md)) {
		task_fail(md, ENOTUNIQ);
		return -ENOTUNIQ;
	}
	end = (uint32_t)md->data_off + md->data_len;
	plen = (md->data_len / 16 + 1) * 16;
	g = plen - md->data_len;
	trailer = rte_pktmbuf_data_len(m) - end;
	if (end != h.l4_end || end > rte_pktmbuf_data_len(m) || plen > room) {
		task_fail(md, EINVAL);
		return -EINVAL;
	}
	if (rte_be_to_cpu_16(h.ip->total_length) + g > UINT16_MAX) {
		task_fail(md, EMSGSIZE);
		return -EMSGSIZE;
	}
	if (g > trailer && g - trailer > rte_pktmbuf_tailroom(m)) {
		task_fail(md, ENOSPC);
		return -ENOSPC;
	}
	f = cbc_flow(p, md, &h);
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
	struct l3l4 h;

	RTE_SET_USED(ctx);
	/* prep checked the room; append cannot fail here */
	if (o->aux > trailer && rte_pktmbuf_append(m, (uint16_t)(o->aux - trailer)) == NULL) {
		task_fail(md, ENOSPC);
		return;
	}
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), out, o->in_len);
	md->data_len = (uint16_t)o->in_len;
	if (find_headers(m, &h) != 0) {
		task_fail(md, EINVAL);
		return;
	}
	cbc_fix_headers(&h, (uint16_t)o->aux);
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
	struct l3l4 h;
	uint32_t out;

	if (find_headers(m, &h) != 0)
		return -ENOTSUP;
	flow_block_of(&h, fb);
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
	.offload = HP_OFFLOAD_AES_CBC,
	.offload_prep = cbc_offload_prep,
	.offload_done = cbc_offload_done,
};
HP_TASK_REGISTER(task_aes_cbc)

static const struct hp_app app_vpn = {
	.name = "vpn",
	.desc = "AES-128-CBC encryption per flow (Pythia encryption app)",
	.n_tasks = 1,
	.tasks = { "aes_cbc" },
};
HP_APP_REGISTER(app_vpn)

/* ================================================================ md5 */

/* Below this many packets in a call, OpenSSL's scalar MD5 beats lanes
 * that would mostly hash the idle block (bench/tasks: one message alone on
 * 16 lanes runs at ~0.8x OpenSSL; a batch of 32 at ~7-10x). */
#define MD5_MB_MIN 4

struct md5_priv {
	int ref_only; /* impl=ref */
	struct hp_nf_md5_job jobs[HP_BURST];
};

static int
md5_init(struct hp_task_ctx *ctx)
{
	static const char *const known[] = { "impl", NULL };
	struct md5_priv *p;
	char impl[16] = "mb";

	if (opt_check("md5", ctx->cfg->param, known) != 0 ||
	    hp_task_opt_get(ctx->cfg->param, "impl", impl, sizeof(impl)) < 0 ||
	    (strcmp(impl, "mb") != 0 && strcmp(impl, "ref") != 0)) {
		HP_LOG(ERR, "md5: --param impl=mb|ref");
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->ref_only = strcmp(impl, "ref") == 0 || hp_nf_md5_mb_lanes() == 0;
	ctx->priv = p;
	return 0;
}

static void
md5_free(struct hp_task_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

static uint16_t
md5_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct md5_priv *p = ctx->priv;
	uint16_t i = 0;

	while (i < n) {
		unsigned int k = 0;

		for (; i < n && k < HP_BURST; i++) {
			struct rte_mbuf *m = pkts[i];
			struct hp_meta *md = hp_meta(m);

			if (md->status != HP_ST_OK)
				continue;
			if (m->nb_segs != 1 || (uint32_t)md->data_off +
			    md->data_len > rte_pktmbuf_data_len(m)) {
				task_fail(md, EINVAL);
				continue;
			}
			p->jobs[k++] = (struct hp_nf_md5_job){
				.data = rte_pktmbuf_mtod_offset(m, uint8_t *,
								md->data_off),
				.len = md->data_len, .digest = md->digest };
		}
		if (p->ref_only || k < MD5_MB_MIN) {
			for (unsigned int j = 0; j < k; j++)
				hp_nf_md5_ref(p->jobs[j].data, p->jobs[j].len,
					      p->jobs[j].digest);
		} else {
			hp_nf_md5_mb(p->jobs, k);
		}
	}
	return n;
}

static int
md5_verify(struct hp_task_ctx *ctx, struct rte_mbuf *m, uint8_t *buf,
	   uint32_t *len)
{
	uint8_t d[16];

	if (hp_nf_md5_ref(buf, *len, d) != 0)
		return -ENOTSUP;
	return memcmp(d, hp_meta(m)->digest, 16) == 0 ? 0 : -EBADMSG;
}

static void
md5_offload_done(struct hp_task_ctx *ctx, struct rte_mbuf *m, const struct hp_offload *o,
		 const uint8_t *out)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(o);
	memcpy(hp_meta(m)->digest, out, 16);
}

static const struct hp_task_ops task_md5 = {
	.name = "md5",
	.desc = "MD5 of the data region into meta digest (own AVX-512/AVX2 multi-buffer; --param impl=mb|ref)",
	.ctx_init = md5_init,
	.ctx_free = md5_free,
	.process = md5_process,
	.verify = md5_verify,
	.offload = HP_OFFLOAD_MD5,
	.offload_prep = offload_copy_in,
	.offload_done = md5_offload_done,
	.params = "impl",
	.param_check = md5_param_check,
};
HP_TASK_REGISTER(task_md5)

static const struct hp_app app_dedup = {
	.name = "dedup",
	.desc = "MD5 fingerprint of every payload (Pythia packet hashing app)",
	.n_tasks = 1,
	.tasks = { "md5" },
};
HP_APP_REGISTER(app_dedup)

/* ================================================================ dpi */

/* The pattern set and both compiled engines are shared, read-only, by
 * every lcore; built by the first ctx_init, freed by the last ctx_free. */
static pthread_mutex_t dpi_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int dpi_refs;
static struct hp_nf_patset *dpi_ps;
static struct hp_nf_ac *dpi_ac;
static struct hp_nf_hs *dpi_hs;

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
	char v[64], *end;
	int rc;

	memset(o, 0, sizeof(*o));
	o->gen = 10000;
	o->seed = 1;
	o->plant = 0.3;
	if (opt_word("dpi", param, "engine", engines, o->eng, sizeof(o->eng),
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
		unsigned long x;

		errno = 0;
		x = strtoul(v, &end, 0);
		if (v[0] == '-' || *end || errno || x < 1 || x > 1000000) {
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
		errno = 0;
		o->seed = strtoull(v, &end, 0);
		if (v[0] == '\0' || v[0] == '-' || *end || errno) {
			snprintf(err, errlen, "dpi: bad seed '%s'", v);
			return -EINVAL;
		}
	}
	if (hp_task_opt_get(param, "plant", v, sizeof(v)) != 0) {
		errno = 0;
		o->plant = strtod(v, &end);
		if (end == v || *end || errno || !(o->plant >= 0 && o->plant <= 1)) {
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
	struct hp_meta *md[HP_BURST];
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
	if (opt_check("dpi", ctx->cfg->param, known) != 0) {
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
		unsigned int k = 0;

		for (; i < n && k < HP_BURST; i++) {
			struct rte_mbuf *m = pkts[i];
			struct hp_meta *md = hp_meta(m);

			if (md->status != HP_ST_OK)
				continue;
			if (m->nb_segs != 1 || (uint32_t)md->data_off +
			    md->data_len > rte_pktmbuf_data_len(m)) {
				task_fail(md, EINVAL);
				continue;
			}
			p->data[k] = rte_pktmbuf_mtod_offset(m, uint8_t *,
							     md->data_off);
			p->len[k] = md->data_len;
			p->md[k++] = md;
		}
		if (p->use_hs) {
			for (unsigned int j = 0; j < k; j++)
				if (hp_nf_hs_scan(dpi_hs, p->scr, p->data[j],
						  p->len[j], &p->res[j]) != 0)
					task_fail(p->md[j], EIO);
		} else {
			hp_nf_ac_scan_batch(dpi_ac, p->data, p->len, k, p->res);
		}
		for (unsigned int j = 0; j < k; j++) {
			p->md[j]->res32 = p->res[j].count;
			p->md[j]->res32b = p->res[j].first;
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
static void
dpi_offload_done(struct hp_task_ctx *ctx, struct rte_mbuf *m, const struct hp_offload *o,
		 const uint8_t *out)
{
	struct hp_meta *md = hp_meta(m);

	RTE_SET_USED(ctx);
	RTE_SET_USED(o);
	memcpy(&md->res32, out, 4);
	memcpy(&md->res32b, out + 4, 4);
}

static const void *
dpi_offload_data(struct hp_task_ctx *ctx)
{
	RTE_SET_USED(ctx);
	return dpi_ac != NULL ? hp_nf_ac_dfa(dpi_ac) : NULL;
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
	.offload = HP_OFFLOAD_DFA,				\
	.offload_prep = offload_copy_in,			\
	.offload_done = dpi_offload_done,			\
	.offload_data = dpi_offload_data,			\
}

static const struct hp_task_ops task_dpi = DPI_TASK_OPS("dpi",
	"multi-pattern DPI, 10k Snort-like strings (Hyperscan or own AC DFA; --param engine=hs|ac,patterns=FILE|gen=N,seed=S,plant=P)",
	dpi_init);
HP_TASK_REGISTER(task_dpi)

static const struct hp_app app_ids = {
	.name = "ids",
	.desc = "deep packet inspection with ~10k fixed strings (Pythia DPI app)",
	.n_tasks = 1,
	.tasks = { "dpi" },
};
HP_APP_REGISTER(app_ids)

/* The same task pinned to the own Aho-Corasick DFA (the GPU issue's
 * reference), so it runs end to end without a task option. */
static const struct hp_task_ops task_dpi_ac = DPI_TASK_OPS("dpi_ac",
	"dpi with the own Aho-Corasick DFA (8 packets interleaved); Hyperscan verifies",
	dpi_ac_init);
HP_TASK_REGISTER(task_dpi_ac)

static const struct hp_app app_ids_ac = {
	.name = "ids_ac",
	.desc = "ids on the own Aho-Corasick DFA instead of Hyperscan",
	.n_tasks = 1,
	.tasks = { "dpi_ac" },
};
HP_APP_REGISTER(app_ids_ac)
