/* SPDX-License-Identifier: BSD-3-Clause
 * Own Aho-Corasick: a trie with failure links (kept for a second, slower
 * walk) compiled into a compact DFA: dense rows for the root and the
 * depth-1 states (257 x 256), and per deeper state only the bytes on
 * which it differs from the depth-1 state of its last byte (layout in
 * hp_nf.h). A full 256-column table for 10k Snort-like patterns is ~150k
 * states x 1 KiB = 146 MiB and walks at cache-miss speed; this form is
 * 11 MiB. On the CPU several packets are walked interleaved so the loads
 * of one hide the latency of the others. The walks are compiled twice,
 * for the baseline and for AVX2, and picked per call (nf_isa.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <emmintrin.h>

#include "nf_priv.h"

struct node {
	uint32_t child;   /* first child, 0 = none (root is never a child) */
	uint32_t sibling; /* next sibling, 0 = none */
	uint32_t fail;
	uint8_t byte;
};

/* A state while the DFA is built: its default row and its differences
 * (compacted into struct hp_nf_ac_state at the end). */
struct bstate {
	uint8_t keys[HP_NF_AC_SPARSE];
	uint32_t off;
	uint32_t def;
	uint32_t n;
};

struct hp_nf_ac {
	struct hp_nf_ac_dfa dfa;
	struct node *nodes;
	uint32_t n_nodes;
	uint32_t root_child[256]; /* dense root row for the trie walk */
	struct bstate *bst;       /* build only */
	struct hp_nf_ac_state *st;
	uint32_t *tab;            /* rows 0..256, then dense rows and keys' entries */
	uint32_t tab_len, tab_cap;
	uint32_t n_dense;
	uint32_t *out_count;      /* by trie id */
	uint32_t *out_first;
	uint32_t *dfa_count;      /* by DFA state id (BFS order) */
	uint32_t *dfa_first;
};

static uint32_t
trie_child(const struct hp_nf_ac *ac, uint32_t s, uint8_t b)
{
	if (s == 0)
		return ac->root_child[b];
	for (uint32_t c = ac->nodes[s].child; c != 0; c = ac->nodes[c].sibling)
		if (ac->nodes[c].byte == b)
			return c;
	return 0;
}

void
hp_nf_ac_free(struct hp_nf_ac *ac)
{
	if (ac == NULL)
		return;
	free(ac->nodes);
	free(ac->bst);
	free(ac->st);
	free(ac->tab);
	free(ac->out_count);
	free(ac->out_first);
	free(ac->dfa_count);
	free(ac->dfa_first);
	free(ac);
}

/* The transition of a finished state (entries without match flags). */
static uint32_t
dfa_next(const struct hp_nf_ac *ac, uint32_t s, uint8_t b)
{
	const struct bstate *st = &ac->bst[s];

	for (uint32_t i = 0; i < st->n; i++)
		if (st->keys[i] == b)
			return ac->tab[st->off + i];
	return ac->tab[st->def + b];
}

static int
grow(uint32_t **v, uint32_t *cap, uint32_t need)
{
	uint32_t nc = *cap ? *cap : 4096;
	uint32_t *n;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	n = realloc(*v, (size_t)nc * sizeof(**v));
	if (n == NULL)
		return -ENOMEM;
	*v = n;
	*cap = nc;
	return 0;
}

/* Stores state s's transitions given its differences from its default
 * row (st[s].def set by the caller). */
static int
store_row(struct hp_nf_ac *ac, uint32_t s, const uint8_t *keys,
	  const uint32_t *vals, uint32_t n)
{
	struct bstate *st = &ac->bst[s];
	uint32_t need = n <= HP_NF_AC_SPARSE ? n : 256;

	if ((uint64_t)ac->tab_len + need >= HP_NF_AC_MATCH)
		return -E2BIG;
	if (grow(&ac->tab, &ac->tab_cap, ac->tab_len + need) != 0)
		return -ENOMEM;
	memset(st->keys, 0, sizeof(st->keys));
	if (n <= HP_NF_AC_SPARSE) {
		memcpy(st->keys, keys, n);
		memcpy(ac->tab + ac->tab_len, vals, n * sizeof(*vals));
		st->off = ac->tab_len;
		st->n = n;
	} else {
		/* Many differences: a dense row of its own as default. */
		memcpy(ac->tab + ac->tab_len, ac->tab + st->def,
		       256 * sizeof(uint32_t));
		st->def = ac->tab_len;
		for (uint32_t i = 0; i < n; i++)
			ac->tab[st->def + keys[i]] = vals[i];
		st->off = 0;
		st->n = 0;
		ac->n_dense++;
	}
	ac->tab_len += need;
	return 0;
}

static void
set_flag(const struct hp_nf_ac *ac, uint32_t *e)
{
	if (ac->out_count[*e] != 0)
		*e |= HP_NF_AC_MATCH;
}

/* Renumbers the states in BFS order and writes the 16-byte walk form
 * (hp_nf.h): default row implicit (the previous byte), own dense rows
 * flagged, unused key slots repeating keys[0], and states without
 * differences given one explicit entry so that their keys can match. */
static int
compact(struct hp_nf_ac *ac, const uint32_t *queue, uint32_t qt)
{
	uint32_t n = ac->n_nodes;
	uint32_t *perm = malloc(n * sizeof(*perm));
	struct hp_nf_ac_state *st = calloc(n, sizeof(*st));

	ac->dfa_count = malloc(n * sizeof(uint32_t));
	ac->dfa_first = malloc(n * sizeof(uint32_t));
	if (perm == NULL || st == NULL || ac->dfa_count == NULL ||
	    ac->dfa_first == NULL)
		goto nomem;
	perm[0] = 0;
	for (uint32_t i = 0; i < qt; i++)
		perm[queue[i]] = i + 1;
	for (uint32_t i = 0; i < ac->tab_len; i++)
		ac->tab[i] = perm[ac->tab[i] & ~HP_NF_AC_MATCH] |
			     (ac->tab[i] & HP_NF_AC_MATCH);
	for (uint32_t s = 0; s < n; s++) {
		const struct bstate *b = &ac->bst[s];
		struct hp_nf_ac_state *w = &st[perm[s]];

		ac->dfa_count[perm[s]] = ac->out_count[s];
		ac->dfa_first[perm[s]] = ac->out_first[s];
		if (b->def >= 257 * 256) {
			w->off = HP_NF_AC_OWNROW | b->def;
		} else if (b->n == 0) {
			/* keys are all 0: byte 0 "differs" with the default. */
			if (grow(&ac->tab, &ac->tab_cap, ac->tab_len + 1) != 0)
				goto nomem;
			ac->tab[ac->tab_len] = ac->tab[b->def];
			w->off = ac->tab_len++;
		} else {
			for (uint32_t i = 0; i < HP_NF_AC_SPARSE; i++)
				w->keys[i] = b->keys[i < b->n ? i : 0];
			w->off = b->off;
		}
	}
	if (ac->tab_len >= HP_NF_AC_OWNROW)
		goto toobig;
	ac->st = st;
	free(perm);
	return 0;
toobig:
	free(perm);
	free(st);
	return -E2BIG;
nomem:
	free(perm);
	free(st);
	return -ENOMEM;
}

int
hp_nf_ac_build(const struct hp_nf_patset *ps, struct hp_nf_ac **out)
{
	struct hp_nf_ac *ac;
	uint32_t *queue = NULL;
	uint64_t total = 1;
	uint32_t cap, qh, qt;
	int rc = -ENOMEM;

	if (ps == NULL || ps->n == 0)
		return -EINVAL;
	for (uint32_t i = 0; i < ps->n; i++)
		total += ps->len[i];
	if (total >= HP_NF_AC_MATCH)
		return -E2BIG;
	cap = (uint32_t)total;
	ac = calloc(1, sizeof(*ac));
	if (ac == NULL)
		return -ENOMEM;
	ac->nodes = calloc(cap, sizeof(*ac->nodes));
	ac->out_count = calloc(cap, sizeof(uint32_t));
	ac->out_first = malloc(cap * sizeof(uint32_t));
	if (ac->nodes == NULL || ac->out_count == NULL || ac->out_first == NULL)
		goto fail;
	for (uint32_t i = 0; i < cap; i++)
		ac->out_first[i] = HP_NF_NO_MATCH;
	ac->n_nodes = 1;

	/* 1. Trie. */
	for (uint32_t id = 0; id < ps->n; id++) {
		uint32_t s = 0;

		for (uint32_t j = 0; j < ps->len[id]; j++) {
			uint8_t b = ps->pat[id][j];
			uint32_t c = trie_child(ac, s, b);

			if (c == 0) {
				c = ac->n_nodes++;
				ac->nodes[c].byte = b;
				if (s == 0) {
					ac->root_child[b] = c;
				} else {
					ac->nodes[c].sibling = ac->nodes[s].child;
					ac->nodes[s].child = c;
				}
			}
			s = c;
		}
		ac->out_count[s]++;
		if (id < ac->out_first[s])
			ac->out_first[s] = id;
	}

	ac->bst = calloc(ac->n_nodes, sizeof(*ac->bst));
	queue = malloc(ac->n_nodes * sizeof(uint32_t));
	if (ac->bst == NULL || queue == NULL)
		goto fail;

	/* 2. Dense rows of the root (row 256) and of every depth-1 state
	 * "a" (row a; the root's row when no pattern starts with a): a
	 * depth-1 state fails to the root. */
	if (grow(&ac->tab, &ac->tab_cap, 257 * 256) != 0)
		goto fail;
	ac->tab_len = 257 * 256;
	memcpy(ac->tab + 256 * 256, ac->root_child, 256 * sizeof(uint32_t));
	for (int a = 0; a < 256; a++) {
		uint32_t d1 = ac->root_child[a];

		memcpy(ac->tab + a * 256, ac->root_child, 256 * sizeof(uint32_t));
		for (uint32_t c = d1 ? ac->nodes[d1].child : 0; c != 0;
		     c = ac->nodes[c].sibling)
			ac->tab[a * 256 + ac->nodes[c].byte] = c;
	}
	ac->bst[0].def = 256 * 256;

	/* 3. BFS: failure links, merged outputs and each state's difference
	 * from its default row t1[a] (a = the byte it was entered on):
	 * D(s) = children(s) + D(fail(s)) on the other bytes, because
	 * delta(s, b) = delta(fail(s), b) for a non-child b and fail(s), a
	 * suffix of s, ends on the same byte a (so has the same default
	 * row). D of a depth-1 state is empty by construction. fail(s) is
	 * shallower, so its row is final when s is reached. */
	qh = qt = 0;
	for (int b = 0; b < 256; b++)
		if (ac->root_child[b] != 0)
			queue[qt++] = ac->root_child[b];
	while (qh < qt) {
		uint32_t s = queue[qh++];
		uint32_t f = ac->nodes[s].fail;
		uint8_t keys[256], is_child[256] = { 0 };
		uint32_t vals[256], n = 0;
		int depth1 = ac->root_child[ac->nodes[s].byte] == s;

		ac->bst[s].def = ac->nodes[s].byte * 256u;
		ac->out_count[s] += ac->out_count[f];
		if (ac->out_first[f] < ac->out_first[s])
			ac->out_first[s] = ac->out_first[f];
		for (uint32_t c = ac->nodes[s].child; c != 0;
		     c = ac->nodes[c].sibling) {
			uint8_t b = ac->nodes[c].byte;

			/* fail(c) = delta(fail(s), b), already final. */
			ac->nodes[c].fail = dfa_next(ac, f, b);
			is_child[b] = 1;
			if (!depth1) {
				keys[n] = b;
				vals[n++] = c;
			}
			queue[qt++] = c;
		}
		if (f != 0 && !depth1) {
			const struct bstate *fs = &ac->bst[f];

			if (fs->def >= 257 * 256) {
				/* f has a dense row: its differences from
				 * the shared row of byte a. */
				const uint32_t *t1 = ac->tab + ac->bst[s].def;

				for (int b = 0; b < 256; b++) {
					uint32_t e = ac->tab[fs->def + b];

					if (!is_child[b] && e != t1[b]) {
						keys[n] = (uint8_t)b;
						vals[n++] = e;
					}
				}
			} else {
				for (uint32_t i = 0; i < fs->n; i++) {
					uint8_t b = fs->keys[i];

					if (!is_child[b]) {
						keys[n] = b;
						vals[n++] = ac->tab[fs->off + i];
					}
				}
			}
		}
		if (store_row(ac, s, keys, vals, n) != 0)
			goto fail;
	}

	/* 3. Match flags, once every output count is final. */
	for (uint32_t i = 0; i < ac->tab_len; i++)
		set_flag(ac, &ac->tab[i]);

	/* 4. Renumber the DFA states in BFS order (root, depth 1, depth 2,
	 * ...), so the shallow states that traffic keeps visiting are one
	 * contiguous block that stays in cache, and write the 16-byte walk
	 * form. Measured at 1458 B (bench/tasks): BFS order took the single
	 * stream from 0.65 to 0.83 Gbit/s; the 16-byte states with the
	 * default row taken from the previous byte (no load of it) to 3.3.
	 * The trie keeps its own ids. */
	rc = compact(ac, queue, qt);
	if (rc != 0)
		goto fail;
	rc = -ENOMEM;
	free(ac->bst);
	ac->bst = NULL;
	free(queue);
	ac->dfa = (struct hp_nf_ac_dfa){
		.n_states = ac->n_nodes, .n_dense = ac->n_dense,
		.tab_len = ac->tab_len, .st = ac->st, .tab = ac->tab,
		.out_count = ac->dfa_count, .out_first = ac->dfa_first,
	};
	*out = ac;
	return 0;
fail:
	free(queue);
	hp_nf_ac_free(ac);
	return rc;
}

const struct hp_nf_ac_dfa *
hp_nf_ac_dfa(const struct hp_nf_ac *ac)
{
	return &ac->dfa;
}

size_t
hp_nf_ac_mem(const struct hp_nf_ac *ac)
{
	return (size_t)ac->n_nodes * (sizeof(struct hp_nf_ac_state) + 8) +
	       (size_t)ac->tab_len * sizeof(uint32_t);
}

/* One DFA step on byte b after byte a (a = 256 before the first byte),
 * branch-free: load the 16-byte state, compare b with its 12 keys (SSE2),
 * pick the entry index with cmovs, load the entry: two dependent loads
 * per byte; see bench/tasks for the cost. */
static inline uint32_t
step(const struct hp_nf_ac *ac, uint32_t s, uint32_t a, uint8_t b)
{
	const struct hp_nf_ac_state *st = &ac->st[s];
	__m128i k = _mm_loadu_si128((const __m128i *)st);
	uint32_t off = st->off;
	uint32_t own = off & HP_NF_AC_OWNROW;
	uint32_t m = (uint32_t)_mm_movemask_epi8(
		_mm_cmpeq_epi8(k, _mm_set1_epi8((char)b))) &
		(own ? 0 : (1u << HP_NF_AC_SPARSE) - 1);
	uint32_t def = own ? off & ~HP_NF_AC_OWNROW : a << 8;
	uint32_t hit = off + (uint32_t)__builtin_ctz(m | 0x10000);

	return ac->tab[m ? hit : def + b];
}

static inline void
report(const struct hp_nf_ac *ac, uint32_t s, struct hp_nf_dpi_res *res)
{
	if (res->count == 0)
		res->first = ac->dfa_first[s];
	res->count += ac->dfa_count[s];
}

/* The walks below are inlined into a baseline and an AVX2 instance: the
 * same source, but with AVX2 the step takes fewer instructions (VEX
 * three-operand forms, VPBROADCASTB for the key compare: the 8-lane walk
 * is 6 % shorter), and the interleaved walk is nearly instruction bound.
 * Paired runs on a shared Zen 3 put both instances within 3 % of the old
 * -march=native build, inside their +-10 % spread. */
static inline __attribute__((always_inline)) void
scan_one(const struct hp_nf_ac *ac, const uint8_t *data, uint32_t len,
	 struct hp_nf_dpi_res *res)
{
	uint32_t s = 0, a = 256;

	res->count = 0;
	res->first = HP_NF_NO_MATCH;
	for (uint32_t i = 0; i < len; i++) {
		uint32_t e = step(ac, s, a, data[i]);

		a = data[i];
		s = e & ~HP_NF_AC_MATCH;
		if (__builtin_expect(e & HP_NF_AC_MATCH, 0))
			report(ac, s, res);
	}
}

#define AC_LANES 8
#define AC_CHUNK 64 /* packets sorted per call */

static inline __attribute__((always_inline)) void
scan_batch(const struct hp_nf_ac *ac, const uint8_t *const *data,
	   const uint32_t *len, unsigned int n, struct hp_nf_dpi_res *res)
{
	static const uint8_t idle_byte;
	const uint8_t *p[AC_LANES];
	uint32_t rem[AC_LANES], s[AC_LANES], stride[AC_LANES], prev[AC_LANES];
	int job[AC_LANES];
	unsigned int nxt = 0, active = 0;
	uint8_t ord[AC_CHUNK];

	if (n > AC_CHUNK) {
		for (unsigned int i = 0; i < n; i += AC_CHUNK)
			hp_nf_ac_scan_batch(ac, data + i, len + i,
					    n - i < AC_CHUNK ? n - i : AC_CHUNK,
					    res + i);
		return;
	}
	/* Longest first, so the lanes finish together instead of one long
	 * packet walking alone at the end (bench/tasks, IMIX: +16 %). */
	for (unsigned int j = 0; j < n; j++) {
		unsigned int q = j;

		while (q > 0 && len[ord[q - 1]] < len[j]) {
			ord[q] = ord[q - 1];
			q--;
		}
		ord[q] = (uint8_t)j;
	}

	for (int l = 0; l < AC_LANES; l++) {
		job[l] = -1;
		p[l] = &idle_byte;
		stride[l] = 0;
		rem[l] = UINT32_MAX;
		s[l] = 0;
		prev[l] = 256;
	}
	for (;;) {
		uint32_t m = UINT32_MAX;

		/* Refill lanes whose packet is done (or empty). */
		for (int l = 0; l < AC_LANES; l++) {
			while (job[l] < 0 || rem[l] == 0) {
				if (job[l] >= 0) {
					job[l] = -1;
					active--;
				}
				if (nxt >= n) {
					p[l] = &idle_byte;
					stride[l] = 0;
					rem[l] = UINT32_MAX;
					break;
				}
				job[l] = ord[nxt];
				res[job[l]].count = 0;
				res[job[l]].first = HP_NF_NO_MATCH;
				p[l] = data[job[l]];
				rem[l] = len[job[l]];
				stride[l] = 1;
				s[l] = 0;
				prev[l] = 256;
				nxt++;
				active++;
			}
			if (rem[l] < m)
				m = rem[l];
		}
		if (active == 0)
			break;
		/* m bytes on every lane without bound checks; idle lanes
		 * re-read one byte and never report. The lanes' load chains
		 * overlap, but the step is ~20 instructions, so this is
		 * nearly instruction bound: bench/tasks at 1458 B, 10k patterns:
		 * 3.4 Gbit/s with 8 lanes, 3.2 with 4 or 16, 3.3 for one
		 * stream; the gain is on small packets (64 B: 2.1 vs 1.6). */
		for (uint32_t i = 0; i < m; i++) {
#pragma GCC unroll 8
			for (int l = 0; l < AC_LANES; l++) {
				uint8_t b = *p[l];
				uint32_t e = step(ac, s[l], prev[l], b);

				prev[l] = b;
				p[l] += stride[l];
				s[l] = e & ~HP_NF_AC_MATCH;
				if (__builtin_expect(e & HP_NF_AC_MATCH, 0) &&
				    job[l] >= 0)
					report(ac, s[l], &res[job[l]]);
			}
		}
		for (int l = 0; l < AC_LANES; l++)
			if (job[l] >= 0)
				rem[l] -= m;
	}
}

static void
scan_one_base(const struct hp_nf_ac *ac, const uint8_t *data, uint32_t len,
	      struct hp_nf_dpi_res *res)
{
	scan_one(ac, data, len, res);
}

static __attribute__((target("avx2"))) void
scan_one_avx2(const struct hp_nf_ac *ac, const uint8_t *data, uint32_t len,
	      struct hp_nf_dpi_res *res)
{
	scan_one(ac, data, len, res);
}

static void
scan_batch_base(const struct hp_nf_ac *ac, const uint8_t *const *data,
		const uint32_t *len, unsigned int n, struct hp_nf_dpi_res *res)
{
	scan_batch(ac, data, len, n, res);
}

static __attribute__((target("avx2"))) void
scan_batch_avx2(const struct hp_nf_ac *ac, const uint8_t *const *data,
		const uint32_t *len, unsigned int n, struct hp_nf_dpi_res *res)
{
	scan_batch(ac, data, len, n, res);
}

void
hp_nf_ac_scan(const struct hp_nf_ac *ac, const uint8_t *data, uint32_t len,
	      struct hp_nf_dpi_res *res)
{
	if (hp_nf_isa_on & HP_NF_ISA_AVX2)
		scan_one_avx2(ac, data, len, res);
	else
		scan_one_base(ac, data, len, res);
}

void
hp_nf_ac_scan_batch(const struct hp_nf_ac *ac, const uint8_t *const *data,
		    const uint32_t *len, unsigned int n,
		    struct hp_nf_dpi_res *res)
{
	if (hp_nf_isa_on & HP_NF_ISA_AVX2)
		scan_batch_avx2(ac, data, len, n, res);
	else
		scan_batch_base(ac, data, len, n, res);
}

void
hp_nf_ac_scan_nfa(const struct hp_nf_ac *ac, const uint8_t *data,
		  uint32_t len, struct hp_nf_dpi_res *res)
{
	uint32_t s = 0;

	res->count = 0;
	res->first = HP_NF_NO_MATCH;
	for (uint32_t i = 0; i < len; i++) {
		uint32_t c;

		while ((c = trie_child(ac, s, data[i])) == 0 && s != 0)
			s = ac->nodes[s].fail;
		s = c;
		if (ac->out_count[s] != 0) {
			if (res->count == 0)
				res->first = ac->out_first[s];
			res->count += ac->out_count[s];
		}
	}
}
