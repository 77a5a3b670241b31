/* SPDX-License-Identifier: BSD-3-Clause
 * The dpi kernel (tasks dpi, dpi_ac): one thread per packet walks lib/nf's
 * compact DFA (hp_nf.h), uploaded once as the task's blob (dpi_blob.h):
 * 16-byte states (12 difference keys compared with __vcmpeq4, else the
 * state's own row or the row of the previous byte), states and entries
 * read through the read-only cache. Only each packet's (match count,
 * first id) comes back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpi_blob.h"
#include "hpk_kernel.h"

#define DFA_MATCH 0x80000000u  /* HP_NF_AC_MATCH */
#define DFA_OWNROW 0x80000000u /* HP_NF_AC_OWNROW */
#define DFA_NO_MATCH 0xffffffffu

/* The blob's arrays, where the walk reads them. */
struct dfa {
	const uint4 *st;
	const uint32_t *tab;
	const uint32_t *count;
	const uint32_t *first;
};

/* The table in a context: on the GPU (d) and on the host (h). */
struct dfa_views {
	struct dfa d, h;
};

/* Index (0..3) of the first byte of w equal to b, or -1. */
HD static inline int
first_byte(uint32_t w, uint32_t b)
{
#ifdef __CUDA_ARCH__
	uint32_t m = __vcmpeq4(w, b * 0x01010101u);

	return m ? (__ffs(m) - 1) >> 3 : -1;
#else
	for (int j = 0; j < 4; j++)
		if (((w >> (8 * j)) & 0xff) == b)
			return j;
	return -1;
#endif
}

/* One step of the compact DFA on byte b after byte a (hp_nf.h): the
 * state's 12 difference keys, else its own dense row, else row a. */
HD static inline uint32_t
dfa_step(const struct dfa *t, uint32_t s, uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
	uint4 st = __ldg(&t->st[s]);
#else
	uint4 st = t->st[s];
#endif
	uint32_t own = st.w & DFA_OWNROW, idx;
	int i = -1;

	if (!own) {
		int j;

		if ((j = first_byte(st.x, b)) >= 0)
			i = j;
		else if ((j = first_byte(st.y, b)) >= 0)
			i = 4 + j;
		else if ((j = first_byte(st.z, b)) >= 0)
			i = 8 + j;
	}
	idx = i >= 0 ? st.w + (uint32_t)i : (own ? st.w & ~DFA_OWNROW : a << 8) + b;
#ifdef __CUDA_ARCH__
	return __ldg(&t->tab[idx]);
#else
	return t->tab[idx];
#endif
}

/* Thread i walks packet p0 + i: match count and first id, as
 * hp_nf_ac_scan does. The payload is only read (no copy back). */
HD static inline void
dfa_thread(const struct kargs *k, const struct dfa *t, uint32_t i)
{
	uint32_t p = k->p0 + i, len = k->len[p], s = 0, a = 256, count = 0;
	uint32_t first = DFA_NO_MATCH;
	const uint8_t *d = k->data + k->off[p];

	for (uint32_t j = 0; j < len; j++) {
		uint32_t b = d[j], e = dfa_step(t, s, a, b);

		a = b;
		s = e & ~DFA_MATCH;
		if (e & DFA_MATCH) {
			if (count == 0)
				first = t->first[s];
			count += t->count[s];
		}
	}
	k->match[2 * p] = count;
	k->match[2 * p + 1] = first;
}

__global__ void
k_dfa(struct kargs a, struct dfa t)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < a.np)
		dfa_thread(&a, &t, i);
}

static struct dfa
view(const void *base, const struct hp_dpi_blob *h)
{
	const uint8_t *b = (const uint8_t *)base;
	struct dfa t;

	t.st = (const uint4 *)(b + h->off_st);
	t.tab = (const uint32_t *)(b + h->off_tab);
	t.count = (const uint32_t *)(b + h->off_count);
	t.first = (const uint32_t *)(b + h->off_first);
	return t;
}

/* Checks the blob's arrays lie inside it, then points at them. */
static int
dfa_table(struct hpk_kslot *ks, char *err, size_t errlen)
{
	struct hp_dpi_blob h;
	struct dfa_views *v;

	if (ks->tab_len >= sizeof(h))
		memcpy(&h, ks->tab, sizeof(h));
	if (ks->tab_len < sizeof(h) || h.off_st % 16 != 0 ||
	    h.off_st + 16ull * h.n_states > ks->tab_len ||
	    h.off_tab + 4ull * h.tab_len > ks->tab_len ||
	    h.off_count + 4ull * h.n_states > ks->tab_len ||
	    h.off_first + 4ull * h.n_states > ks->tab_len) {
		snprintf(err, errlen, "kernel dpi: malformed DFA blob (%zu bytes)", ks->tab_len);
		return -EINVAL;
	}
	v = (struct dfa_views *)calloc(1, sizeof(*v));
	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	v->h = view(ks->tab, &h);
	if (ks->d_tab != NULL)
		v->d = view(ks->d_tab, &h);
	ks->priv = v;
	return 0;
}

static void
dfa_close(struct hpk_kslot *ks)
{
	free(ks->priv);
	ks->priv = NULL;
}

static cudaError_t
dfa_launch(const struct hpk_run *r)
{
	const struct dfa_views *v = (const struct dfa_views *)r->ks->priv;

	k_dfa<<<(r->a.np + 127) / 128, 128, 0, r->st>>>(r->a, v->d);
	return cudaGetLastError();
}

static int
dfa_emulate(const struct hpk_run *r)
{
	const struct dfa_views *v = (const struct dfa_views *)r->ks->priv;

	for (uint32_t i = 0; i < r->h->n; i++)
		dfa_thread(&r->a, &v->h, i);
	return 0;
}

static const uint8_t *
dfa_result(struct hpk_batch *b, uint32_t i)
{
	return (const uint8_t *)(b->match + 2 * i);
}

static const struct hpk_kernel kern_dpi = {
	.name = "dpi",
	.flags = HPK_TABLE | HPK_OUT_MATCH,
	.close = dfa_close,
	.table = dfa_table,
	.launch = dfa_launch,
	.emulate = dfa_emulate,
	.result = dfa_result,
};
HPK_KERNEL_REGISTER(kern_dpi)
