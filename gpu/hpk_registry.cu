/* SPDX-License-Identifier: BSD-3-Clause
 * The kernel registry: every kernel file registers its descriptor under
 * the name tasks give in hp_task_ops.offload (HPK_KERNEL_REGISTER), and
 * the plugin and the tests find kernels by that name. A context keeps a
 * slot per registered kernel (its table and constants), opened with the
 * context. Also the descriptor's questions that need no GPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hp_registry.h"
#include "hpk_priv.h"

#define HPK_MAX_KERNELS 16

HP_REGISTRY(kernels, struct hpk_kernel, name, HPK_MAX_KERNELS);

extern "C" int
hpk_kernel_register(const struct hpk_kernel *k)
{
	if (k == NULL || k->launch == NULL || k->emulate == NULL || k->result == NULL)
		return -EINVAL;
	return hp_registry_add(&kernels, k);
}

extern "C" const struct hpk_kernel *
hpk_kernel_find(const char *name)
{
	return (const struct hpk_kernel *)hp_registry_find(&kernels, name);
}

extern "C" const struct hpk_kernel *
hpk_kernel_at(unsigned int i)
{
	return (const struct hpk_kernel *)hp_registry_at(&kernels, i);
}

extern "C" const char *
hpk_kernel_name(const struct hpk_kernel *k)
{
	return k->name;
}

extern "C" int
hpk_kernel_keyed(const struct hpk_kernel *k)
{
	return (k->flags & HPK_KEYED) != 0;
}

extern "C" uint32_t
hpk_kernel_out_bytes(const struct hpk_kernel *k)
{
	switch (k->flags & (HPK_OUT_DATA | HPK_OUT_AUX | HPK_OUT_DIGEST | HPK_OUT_MATCH)) {
	case HPK_OUT_DATA:
		return UINT32_MAX;
	case HPK_OUT_DIGEST:
		return 16;
	case HPK_OUT_MATCH:
		return 8;
	default:
		return 0;
	}
}

const uint8_t *
hpk_out_base(const struct hpk_batch *b, uint32_t ob)
{
	return ob == UINT32_MAX ? b->data : ob == 16 ? b->digest : (const uint8_t *)b->match;
}

extern "C" int
hpk_kernel_has_table(const struct hpk_kernel *k)
{
	return (k->flags & HPK_TABLE) != 0;
}

extern "C" void
hpk_key_expand(const struct hpk_kernel *k, const uint8_t key[16], uint32_t rk[HPK_KEY_WORDS])
{
	if (k->key_expand != NULL)
		k->key_expand(key, rk);
}

struct hpk_kslot *
hpk_slot(const struct hpk_ctx *c, const struct hpk_kernel *k)
{
	for (unsigned int i = 0; i < c->n_slots; i++)
		if (c->slots[i].k == k)
			return &c->slots[i];
	return NULL;
}

int
hpk_slots_open(struct hpk_ctx *c, char *err, size_t errlen)
{
	const struct hpk_kernel *k;
	unsigned int n = 0;

	while (hpk_kernel_at(n) != NULL)
		n++;
	c->slots = (struct hpk_kslot *)calloc(n ? n : 1, sizeof(*c->slots));
	if (c->slots == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (c->n_slots = 0; (k = hpk_kernel_at(c->n_slots)) != NULL;) {
		struct hpk_kslot *ks = &c->slots[c->n_slots++];
		int ret;

		ks->k = k;
		ks->emul = c->emul;
		if (k->open != NULL && (ret = k->open(ks, err, errlen)) < 0)
			return ret;
	}
	return 0;
}

void
hpk_slots_close(struct hpk_ctx *c)
{
	for (unsigned int i = 0; c->slots != NULL && i < c->n_slots; i++) {
		struct hpk_kslot *ks = &c->slots[i];

		if (ks->k->close != NULL)
			ks->k->close(ks);
		if (ks->d_tab != NULL)
			cudaFree(ks->d_tab);
	}
	free(c->slots);
	c->slots = NULL;
	c->n_slots = 0;
}

extern "C" void
hpk_span(const struct hpk_ctx *c, const struct hpk_kernel *k, uint32_t len, uint32_t *items,
	 uint32_t *bytes)
{
	*items = k->items != NULL ? k->items(hpk_slot(c, k), len) : (len + 15) / 16;
	*bytes = 16 * ((len + k->tail + 15) / 16);
}

extern "C" const uint8_t *
hpk_result(struct hpk_ctx *c, unsigned int s, const struct hpk_kernel *k, uint32_t i)
{
	return k->result(hpk_host(c, s), i);
}

struct kargs
hpk_args(struct hpk_batch *b, uint32_t p0, uint32_t np)
{
	struct kargs a;

	a.data = b->data;
	a.off = b->off;
	a.len = b->len;
	a.blk = b->blk;
	a.src = b->src;
	a.ctr = b->ctr;
	a.key_idx = b->key_idx;
	a.rk = b->rk;
	a.digest = b->digest;
	a.match = b->match;
	a.aux = b->aux;
	a.p0 = p0;
	a.np = np;
	return a;
}

static inline size_t
al16(size_t x)
{
	return (x + 15) & ~(size_t)15;
}

size_t
hpk_pack(struct hpk_batch *b, uint8_t *base, uint32_t n)
{
	size_t o = 0;

#define PLACE(field, type, bytes) do { \
		if (base != NULL) \
			b->field = (type *)(base + o); \
		o += al16(bytes); \
	} while (0)
	PLACE(off, uint32_t, 4ull * n);
	PLACE(len, uint32_t, 4ull * n);
	PLACE(blk, uint32_t, 4ull * (n + 1));
	PLACE(src, uint64_t, 8ull * n);
	PLACE(dst, uint64_t, 8ull * n);
	PLACE(mark, uint64_t, 8ull * n);
	PLACE(match, uint32_t, 8ull * n);
	PLACE(ctr, uint32_t, 16ull * n);
	PLACE(key_idx, uint32_t, 4ull * n);
	PLACE(rk, uint32_t, 4ull * HPK_KEY_WORDS * n);
	PLACE(sum, uint32_t, 4ull * n); /* last: the upload never covers it */
#undef PLACE
	return o;
}

size_t
hpk_upload_bytes(const struct hpk_batch *b, const uint8_t *base, unsigned int flags)
{
	const uint8_t *end = (const uint8_t *)(b->blk + b->n + 1);

	/* the arrays lie in hpk_pack's order: each later one ends later */
	if (b->n_src)
		end = (const uint8_t *)(b->src + b->n);
	if (b->n_dst)
		end = (const uint8_t *)(b->mark + b->n);
	if (flags & HPK_ZERO_MATCH)
		end = (const uint8_t *)(b->match + 2ull * b->n);
	if (flags & HPK_KEYED)
		end = b->n_keys ? (const uint8_t *)(b->rk + HPK_KEY_WORDS * b->n_keys) :
				  (const uint8_t *)(b->key_idx + b->n);
	return (size_t)(end - base);
}

extern "C" struct hpk_batch *
hpk_begin(struct hpk_ctx *c, unsigned int si, uint32_t n)
{
	struct hpk_stream *s = &c->s[si];

	if (n > c->cap_pkts)
		return NULL;
	hpk_pack(&s->h, s->ctl_h, n);
	if (s->ctl_d != NULL)
		hpk_pack(&s->d, s->ctl_d, n);
	s->h.n = n;
	s->h.n_keys = 0;
	s->h.n_staged = 0;
	s->h.n_src = 0;
	s->h.n_dst = 0;
	s->h.mark_val = 0;
	return &s->h;
}

extern "C" void
hpk_calls(const struct hpk_ctx *c, struct hpk_calls *out)
{
	*out = c->calls;
}

int
hpk_mem_add(struct hpk_ctx *c, const uint8_t *lo, const uint8_t *hi, int64_t delta, int owned)
{
	struct hpk_mem *m = (struct hpk_mem *)realloc(c->mem, (c->n_mem + 1) * sizeof(*m));

	if (m == NULL)
		return -ENOMEM;
	c->mem = m;
	m[c->n_mem].lo = lo;
	m[c->n_mem].hi = hi;
	m[c->n_mem].delta = delta;
	m[c->n_mem].owned = owned;
	c->n_mem++;
	return 0;
}

extern "C" int
hpk_mem_find(struct hpk_ctx *c, const void *p, size_t len, uint64_t *dev_addr)
{
	const uint8_t *a = (const uint8_t *)p;

	/* a pool is a few chunks: the last hit first, then every one */
	for (unsigned int j = 0; j < c->n_mem; j++) {
		unsigned int i = (c->last_mem + j) % c->n_mem;
		const struct hpk_mem *m = &c->mem[i];

		if (a >= m->lo && a + len <= m->hi) {
			c->last_mem = i;
			*dev_addr = (uint64_t)(uintptr_t)a + (uint64_t)m->delta;
			return 1;
		}
	}
	return 0;
}
