/* SPDX-License-Identifier: BSD-3-Clause
 * The dpi kernel (tasks dpi, dpi_ac): walks lib/nf's compact DFA
 * (hp_nf.h), uploaded once as the task's blob (dpi_blob.h): 16-byte
 * states (12 difference keys compared with __vcmpeq4, else the state's
 * own row or the row of the previous byte). A thread walks one chunk of
 * a packet (gpu/hpk_chunk.h: chunks of at least 48 bytes that start the
 * longest pattern - 1 bytes early, matches counted once), so a batch of
 * long packets has a thread per ~48 bytes instead of one per packet; the
 * payload is read 16 bytes a load; the first DFA_HOT states (BFS order:
 * the root and the shallow states most bytes visit) come from shared
 * memory, the rest and the entries through the read-only cache. A
 * packet's chunks leave (match count, first id) in aux, and the last to
 * finish (a ticket in the packet's match word) merges them in order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpi_blob.h"
#include "hpk_chunk.h"
#include "hpk_map.cuh"

#define DFA_MATCH 0x80000000u  /* HP_NF_AC_MATCH */
#define DFA_OWNROW 0x80000000u /* HP_NF_AC_OWNROW */
#define DFA_NO_MATCH HPK_NO_MATCH
#define DFA_THREADS 256
#define DFA_HOT 512 /* states per thread block in shared memory (8 KiB) */

/* The blob's arrays, where the walk reads them, and the chunking. */
struct dfa {
	const uint4 *st;
	const uint32_t *tab;
	const uint32_t *count;
	const uint32_t *first;
	uint32_t n_hot;  /* states 0..n_hot-1 read from the block's copy */
	uint32_t chunk;  /* bytes a chunk owns (hpk_chunk_size) */
	uint32_t ovl;    /* longest pattern - 1 */
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
 * state's 12 difference keys, else its own dense row, else row a. hot:
 * the first n_hot states (shared memory on the GPU). */
HD static inline uint32_t
dfa_step(const struct dfa *t, const uint4 *hot, uint32_t s, uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
	uint4 st = s < t->n_hot ? hot[s] : __ldg(&t->st[s]);
#else
	uint4 st = s < t->n_hot ? hot[s] : t->st[s];
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

/* 16 payload bytes at d (16-byte aligned): one vector load. */
HD static inline uint4
load16(const uint8_t *d)
{
#ifdef __CUDA_ARCH__
	return __ldg((const uint4 *)d);
#else
	return *(const uint4 *)d;
#endif
}

/* The walk of one chunk of the packet at d, as hp_nf_ac_scan walks a
 * packet: from the start state at ch.walk; matches ending at ch.from or
 * later counted, the first one's smallest id kept. The payload comes 16
 * aligned bytes a load (the packet's slot is padded to 16, so the last
 * load stays in it); the bytes before ch.walk and from ch.end on are
 * skipped. Cost: per byte one state and one entry load (most states in
 * shared memory) and about 20 instructions. */
HD static inline void
dfa_walk(const struct dfa *t, const uint4 *hot, const uint8_t *d, struct hpk_chunk ch,
	 uint32_t *count, uint32_t *first)
{
	uint32_t s = 0, a = 256, cnt = 0, fst = DFA_NO_MATCH;

	for (uint32_t q = ch.walk & ~15u; q < ch.end; q += 16) {
		const uint4 v = load16(d + q);
		const uint32_t lo = q < ch.walk ? ch.walk - q : 0;
		const uint32_t hi = ch.end - q < 16 ? ch.end - q : 16;

		/* a word's 4 steps unrolled, the 4 words not: 16 unrolled
		 * steps made the loop 22 KiB of code (ptxas, sm_90) */
		HPK_NO_UNROLL
		for (uint32_t j = 0; j < 4; j++) {
			const uint32_t w = j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;

			HPK_UNROLL
			for (uint32_t k = 4 * j; k < 4 * j + 4; k++) {
				const uint32_t b = (w >> (8 * (k & 3))) & 0xff;
				uint32_t e;

				if (k < lo || k >= hi)
					continue;
				e = dfa_step(t, hot, s, a, b);
				a = b;
				s = e & ~DFA_MATCH;
				if ((e & DFA_MATCH) && q + k >= ch.from) {
					if (cnt == 0)
						fst = t->first[s];
					cnt += t->count[s];
				}
			}
		}
	}
	*count = cnt;
	*first = fst;
}

/* Ticket of a packet's chunk: how many of its chunks finished before
 * this one (the packet's match word, zeroed before the launch). */
HD static inline uint32_t
dfa_ticket(uint32_t *m)
{
#ifdef __CUDA_ARCH__
	__threadfence(); /* this chunk's result before its ticket */
	return atomicAdd(m, 1u);
#else
	return (*m)++;
#endif
}

/* Chunk c of packet p: its walk; a one-chunk packet writes its result,
 * a longer one leaves it in aux (8 bytes a chunk at the packet's offset:
 * its slot there holds them, chunks being at least 48 bytes) and the
 * last chunk to finish merges them in chunk order (hpk_match_merge). */
HD static inline void
dfa_item(const struct kargs *k, const struct dfa *t, const uint4 *hot, uint32_t p, uint32_t c)
{
	const uint32_t len = k->len[p], nc = hpk_chunks(len, t->chunk);
	volatile uint32_t *r = (volatile uint32_t *)(k->aux + k->off[p]);
	uint32_t cnt, fst;

	dfa_walk(t, hot, k->data + k->off[p], hpk_chunk_at(len, t->chunk, t->ovl, c), &cnt,
		 &fst);
	if (nc == 1) {
		k->match[2 * p] = cnt;
		k->match[2 * p + 1] = fst;
		return;
	}
	r[2 * c] = cnt;
	r[2 * c + 1] = fst;
	if (dfa_ticket(&k->match[2 * p]) != nc - 1)
		return;
#ifdef __CUDA_ARCH__
	__threadfence(); /* the others' results, published before their tickets */
#endif
	cnt = 0;
	fst = DFA_NO_MATCH;
	for (uint32_t j = 0; j < nc; j++)
		hpk_match_merge(&cnt, &fst, r[2 * j], r[2 * j + 1]);
	k->match[2 * p] = cnt;
	k->match[2 * p + 1] = fst;
}

/* A thread per chunk; each thread block maps its chunks to packets once
 * (hpk_map.cuh) and copies the hot states while it does. */
__global__ void __launch_bounds__(DFA_THREADS)
k_dfa(struct kargs a, struct dfa t, uint32_t nitems)
{
	__shared__ uint4 hot[DFA_HOT];
	__shared__ uint32_t map[DFA_THREADS], wmax[DFA_THREADS / 32];
	const uint32_t g0 = a.blk[a.p0] + blockIdx.x * DFA_THREADS;
	const uint32_t g = blockIdx.x * DFA_THREADS + threadIdx.x;
	uint32_t p;

	for (uint32_t i = threadIdx.x; i < t.n_hot; i += DFA_THREADS)
		hot[i] = __ldg(&t.st[i]);
	p = hpk_map_block(&a, g0, map, wmax); /* its barriers publish hot too */
	if (g < nitems)
		dfa_item(&a, &t, hot, p, g0 + threadIdx.x - a.blk[p]);
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
	t.n_hot = h->n_states < DFA_HOT ? h->n_states : DFA_HOT;
	t.chunk = t.ovl = 0; /* set by dfa_table */
	return t;
}

/* The longest pattern: the deepest state, by a breadth-first walk from
 * the root (an Aho-Corasick state's depth is its string's length, and
 * the shortest path to it is its trie path). A trie edge out of a state
 * deeper than 1 goes deeper than 2 while row a's entries are at most 2
 * deep, so it is one of the state's keys or in its own row: only those,
 * the root's row and the depth-1 states' rows are followed. 0 on error
 * or for a DFA without patterns. */
static uint32_t
dfa_max_depth(const struct dfa *t, uint32_t n)
{
	uint32_t *dist = (uint32_t *)malloc(4ull * n), *q = (uint32_t *)malloc(4ull * n);
	uint16_t *last = (uint16_t *)malloc(2ull * n);
	uint32_t head = 0, tail = 0, maxd = 0;

	if (dist == NULL || q == NULL || last == NULL)
		goto out;
	memset(dist, 0xff, 4ull * n);
	dist[0] = 0;
	last[0] = 256;
	q[tail++] = 0;
	while (head < tail) {
		const uint32_t s = q[head++], d = dist[s];
		const uint4 st = t->st[s];
		const int all = d <= 1 || (st.w & DFA_OWNROW);
		const uint32_t keys[3] = { st.x, st.y, st.z };

		maxd = d > maxd ? d : maxd;
		for (uint32_t i = 0; i < (all ? 256u : 12u); i++) {
			const uint32_t b = all ? i : (keys[i / 4] >> (8 * (i % 4))) & 0xff;
			const uint32_t v = dfa_step(t, t->st, s, last[s], b) & ~DFA_MATCH;

			if (v < n && dist[v] == UINT32_MAX) {
				dist[v] = d + 1;
				last[v] = (uint16_t)b;
				q[tail++] = v;
			}
		}
	}
out:
	free(dist);
	free(q);
	free(last);
	return maxd;
}

/* Checks the blob's arrays lie inside it, then points at them. */
static int
dfa_table(struct hpk_kslot *ks, char *err, size_t errlen)
{
	struct hp_dpi_blob h;
	struct dfa_views *v;
	uint32_t depth;

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
	depth = dfa_max_depth(&v->h, h.n_states);
	v->h.ovl = depth > 0 ? depth - 1 : 0;
	v->h.chunk = hpk_chunk_size(v->h.ovl);
	v->d = v->h;
	if (ks->d_tab != NULL) {
		v->d = view(ks->d_tab, &h);
		v->d.ovl = v->h.ovl;
		v->d.chunk = v->h.chunk;
	}
	ks->priv = v;
	return 0;
}

/* A packet's work items: its chunks. */
static uint32_t
dfa_items(const struct hpk_kslot *ks, uint32_t len)
{
	const struct dfa_views *v = (const struct dfa_views *)ks->priv;

	return v != NULL ? hpk_chunks(len, v->h.chunk) : 1;
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
	const uint32_t ni = r->h->blk[r->a.p0 + r->a.np] - r->h->blk[r->a.p0];

	if (ni == 0)
		return cudaSuccess;
	k_dfa<<<(ni + DFA_THREADS - 1) / DFA_THREADS, DFA_THREADS, 0, r->st>>>(r->a, v->d, ni);
	return cudaGetLastError();
}

/* A thread of the emulation: the blocks run in order, so a packet's last
 * chunk is the last to take its ticket; the hot states are the table's
 * own (the same values). */
static void
dfa_emul_thread(const struct kargs *a, const void *arg, uint32_t t, uint32_t p, uint32_t i)
{
	const struct dfa *h = (const struct dfa *)arg;

	(void)t;
	dfa_item(a, h, h->st, p, i);
}

static int
dfa_emulate(const struct hpk_run *r)
{
	const struct dfa_views *v = (const struct dfa_views *)r->ks->priv;

	static_assert(DFA_THREADS <= HPK_MAP_MAX, "the emulation's map is too small");
	hpk_map_emulate(&r->a, DFA_THREADS, dfa_emul_thread, &v->h);
	return 0;
}

static const uint8_t *
dfa_result(struct hpk_batch *b, uint32_t i)
{
	return (const uint8_t *)(b->match + 2 * i);
}

static const struct hpk_kernel kern_dpi = {
	.name = "dpi",
	.flags = HPK_TABLE | HPK_ZERO_MATCH | HPK_OUT_MATCH,
	.items = dfa_items,
	.close = dfa_close,
	.table = dfa_table,
	.launch = dfa_launch,
	.emulate = dfa_emulate,
	.result = dfa_result,
};
HPK_KERNEL_REGISTER(kern_dpi)
