/* SPDX-License-Identifier: BSD-3-Clause
 * The host emulation of heteroplane's CUDA code (`cuda:emul`, the
 * emulation tests): contexts with plain host buffers in place of pinned
 * and device ones, laid out as on the GPU, whose launch (hpk_launch,
 * counting the driver calls a GPU would get) runs the kernel's
 * per-thread code on the calling CPU through its descriptor's emulate
 * hook, over the very batch layout and table blob the GPU kernel reads. Also the host batch helpers
 * the tests use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpk_move.cuh"
#include "hpk_priv.h"

extern "C" int
hpk_host_alloc(struct hpk_batch *h, uint32_t np, uint32_t nb)
{
	h->data = (uint8_t *)aligned_alloc(64, (nb + 16 + 63) / 64 * 64);
	h->off = (uint32_t *)calloc(np, 4);
	h->len = (uint32_t *)calloc(np, 4);
	h->blk = (uint32_t *)calloc(np + 1, 4);
	h->ctr = (uint32_t *)calloc(np, 16);
	h->key_idx = (uint32_t *)calloc(np, 4);
	h->rk = (uint32_t *)calloc(np, 4 * HPK_KEY_WORDS);
	h->digest = (uint8_t *)calloc(np, 16);
	h->match = (uint32_t *)calloc(np, 8);
	h->aux = (uint8_t *)aligned_alloc(64, (nb + 16 + 63) / 64 * 64);
	return h->data && h->off && h->len && h->blk && h->ctr && h->key_idx && h->rk &&
	       h->digest && h->match && h->aux ? 0 : -ENOMEM;
}

extern "C" void
hpk_host_free(struct hpk_batch *h)
{
	free(h->data);
	free(h->off);
	free(h->len);
	free(h->blk);
	free(h->ctr);
	free(h->key_idx);
	free(h->rk);
	free(h->digest);
	free(h->match);
	free(h->aux);
}

extern "C" int
hpk_open_emul(struct hpk_ctx **ctx, unsigned int nstreams, uint32_t cap_pkts,
	      uint32_t cap_bytes, char *info, size_t infolen)
{
	struct hpk_ctx *c = (struct hpk_ctx *)calloc(1, sizeof(*c));
	char err[128];

	if (c == NULL)
		return -ENOMEM;
	c->emul = 1;
	c->n = nstreams ? nstreams : 1;
	c->cap_pkts = cap_pkts;
	c->cap_bytes = cap_bytes;
	c->s = (struct hpk_stream *)calloc(c->n, sizeof(*c->s));
	if (c->s == NULL) {
		free(c);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < c->n; i++) {
		struct hpk_stream *s = &c->s[i];
		struct hpk_batch *h = &s->h;
		size_t ctl = hpk_pack(h, NULL, cap_pkts);

		/* the GPU path's buffers, in plain host memory: the per-packet
		 * arrays packed in one (hpk_pack), the payload, the outputs */
		s->ctl_h = (uint8_t *)aligned_alloc(64, (ctl + 63) / 64 * 64);
		h->data = (uint8_t *)aligned_alloc(64, (cap_bytes + 16 + 63) / 64 * 64);
		h->aux = (uint8_t *)aligned_alloc(64, (cap_bytes + 16 + 63) / 64 * 64);
		h->digest = (uint8_t *)calloc(cap_pkts, 16);
		if (s->ctl_h == NULL || h->data == NULL || h->aux == NULL || h->digest == NULL) {
			hpk_close(c);
			return -ENOMEM;
		}
		hpk_pack(h, s->ctl_h, cap_pkts);
	}
	if (hpk_slots_open(c, err, sizeof(err)) < 0) {
		hpk_close(c);
		return -ENOMEM;
	}
	snprintf(info, infolen, "host emulation of the CUDA kernels (no GPU; for tests)");
	*ctx = c;
	return 0;
}

void
hpk_emul_close(struct hpk_ctx *c)
{
	for (unsigned int i = 0; c->s != NULL && i < c->n; i++) {
		free(c->s[i].ctl_h);
		free(c->s[i].h.data);
		free(c->s[i].h.aux);
		free(c->s[i].h.digest);
	}
	hpk_slots_close(c);
	free(c->mem);
	free(c->s);
	free(c);
}

int
hpk_emul_gather(struct hpk_ctx *c, unsigned int si, char *err, size_t errlen)
{
	const struct hpk_batch *h = &c->s[si].h;

	for (uint32_t p = 0; p < h->n; p++) {
		const uint64_t a = h->src[p];
		const uint32_t l = h->len[p], nw = hpk_gather_words(a, l);
		uint4 *out = (uint4 *)(h->data + h->off[p]);
		uint64_t dev;

		if (a == 0)
			continue;
		/* a GPU faults on an address it has no mapping for */
		if (!hpk_mem_find(c, (const void *)(uintptr_t)a, l, &dev)) {
			snprintf(err, errlen,
				 "gather: packet %u's %u bytes at %#llx lie outside registered memory",
				 p, l, (unsigned long long)a);
			return -EFAULT;
		}
		/* the kernel's lanes in turn; word j + 1 is what the next
		 * lane's shuffle would hand over */
		for (uint32_t j = 0; j < hpk_gather_chunks(l); j++)
			out[j] = hpk_gather_chunk(a, l, j, hpk_gather_load(a, nw, j),
						  hpk_gather_load(a, nw, j + 1));
	}
	return 0;
}

int
hpk_emul_scatter(struct hpk_ctx *c, unsigned int si, const struct hpk_kernel *k, char *err,
		 size_t errlen)
{
	const struct hpk_batch *h = &c->s[si].h;
	const uint32_t ob = hpk_kernel_out_bytes(k);
	const uint8_t *base = hpk_out_base(h, ob);

	for (uint32_t p = 0; p < h->n; p++) {
		const uint64_t a = h->dst[p];
		uint32_t l;
		const uint8_t *r;
		uint64_t dev;

		if (a == 0)
			continue;
		r = hpk_out_region(base, h->off, h->len, ob, p, &l);
		/* a GPU faults on an address it has no mapping for */
		if (!hpk_mem_find(c, (const void *)(uintptr_t)a, l, &dev) ||
		    !hpk_mem_find(c, (const void *)(uintptr_t)h->mark[p], 1, &dev)) {
			snprintf(err, errlen,
				 "scatter: packet %u's %u bytes at %#llx (mark %#llx) lie outside registered memory",
				 p, l, (unsigned long long)a, (unsigned long long)h->mark[p]);
			return -EFAULT;
		}
		/* the warp's lanes in turn, their sums added, then the mark */
		uint32_t sum = 0;

		for (uint32_t j = 0; j < hpk_gather_words(a, l); j++)
			sum += hpk_scatter_word(a, l, r, j);
		h->sum[p] = hpk_fold16(sum, 0);
		*(volatile uint8_t *)(uintptr_t)h->mark[p] = (uint8_t)h->mark_val;
	}
	return 0;
}

int
hpk_emul_launch(struct hpk_ctx *c, unsigned int si, const struct hpk_kernel *k, char *err,
		size_t errlen)
{
	struct hpk_run r = {};

	r.ks = hpk_slot(c, k);
	if (r.ks == NULL || ((k->flags & HPK_TABLE) && r.ks->tab == NULL)) {
		snprintf(err, errlen, "kernel %s: no table uploaded", k->name);
		return -EINVAL;
	}
	r.h = &c->s[si].h;
	r.a = hpk_args(&c->s[si].h, 0, r.h->n);
	return k->emulate(&r);
}

/* A slot of kernel k outside any context, holding blob as its table
 * (hpk_emulate, hpk_set_items). 0 or -errno; close it with tmp_close. */
static int
tmp_slot(struct hpk_kslot *ks, const struct hpk_kernel *k, const void *blob, size_t len)
{
	char err[128];
	int ret = 0;

	*ks = {};
	ks->k = k;
	ks->emul = 1;
	ks->tab = blob;
	ks->tab_len = len;
	if (k->open != NULL)
		ret = k->open(ks, err, sizeof(err));
	if (ret == 0 && blob != NULL && k->table != NULL)
		ret = k->table(ks, err, sizeof(err));
	if (ret == 0 && (k->flags & HPK_TABLE) && blob == NULL)
		ret = -EINVAL;
	return ret;
}

static void
tmp_close(struct hpk_kslot *ks)
{
	if (ks->k->close != NULL)
		ks->k->close(ks);
}

extern "C" int
hpk_emulate(const struct hpk_kernel *k, struct hpk_batch *b, const void *blob, size_t len)
{
	struct hpk_kslot ks;
	struct hpk_run r = {};
	int ret;

	if (b->n == 0)
		return 0;
	ret = tmp_slot(&ks, k, blob, len);
	/* as hpk_launch's upload does */
	if (k->flags & HPK_ZERO_MATCH)
		memset(b->match, 0, 8ull * b->n);
	if (ret == 0) {
		r.ks = &ks;
		r.h = b;
		r.a = hpk_args(b, 0, b->n);
		ret = k->emulate(&r);
	}
	tmp_close(&ks);
	return ret;
}

extern "C" int
hpk_set_items(const struct hpk_ctx *ctx, const struct hpk_kernel *k, struct hpk_batch *b,
	      const void *blob, size_t len)
{
	struct hpk_kslot ks;
	const struct hpk_kslot *slot = ctx != NULL ? hpk_slot(ctx, k) : &ks;
	uint32_t count = 0;
	int ret = 0;

	if (ctx == NULL && (ret = tmp_slot(&ks, k, blob, len)) < 0) {
		tmp_close(&ks);
		return ret;
	}
	/* a kernel whose items depend on its table cannot count without it */
	if (slot == NULL || ((k->flags & HPK_TABLE) && slot->tab == NULL))
		return -EINVAL;
	for (uint32_t i = 0; i < b->n; i++) {
		b->blk[i] = count;
		count += k->items != NULL ? k->items(slot, b->len[i]) : (b->len[i] + 15) / 16;
	}
	b->blk[b->n] = count;
	if (ctx == NULL)
		tmp_close(&ks);
	return 0;
}

extern "C" int
hpk_layout(struct hpk_batch *b, const uint32_t *lens, uint32_t n, uint32_t cap_pkts,
	   uint32_t cap_bytes)
{
	uint32_t o = 0, blocks = 0;

	if (n > cap_pkts)
		return -ENOSPC;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t nb = (lens[i] + 15) / 16;

		if ((uint64_t)o + 16ull * nb > cap_bytes)
			return -ENOSPC;
		b->off[i] = o;
		b->len[i] = lens[i];
		b->blk[i] = blocks;
		blocks += nb;
		o += 16 * nb;
	}
	b->blk[n] = blocks;
	b->n = n;
	b->n_staged = n;
	b->n_src = 0;
	b->data_bytes = o;
	return 0;
}
