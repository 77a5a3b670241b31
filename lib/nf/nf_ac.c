/* SPDX-License-Identifier: BSD-3-Clause
 * Own Aho-Corasick: a trie with failure links (kept for a second, slower
 * walk) compiled into a dense DFA over byte classes. The DFA is one flat
 * uint32 table, the form a GPU kernel walks with one load per byte; on the
 * CPU several packets are walked interleaved to hide load latency.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hp_nf.h"

struct node {
	uint32_t child;   /* first child, 0 = none (root is never a child) */
	uint32_t sibling; /* next sibling, 0 = none */
	uint32_t fail;
	uint8_t byte;
};

struct hp_nf_ac {
	struct hp_nf_ac_dfa dfa;
	struct node *nodes;
	uint32_t n_nodes;
	uint32_t root_child[256]; /* dense root row for the trie walk */
	uint32_t *next;
	uint32_t *out_count;
	uint32_t *out_first;
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
	free(ac->next);
	free(ac->out_count);
	free(ac->out_first);
	free(ac);
}

int
hp_nf_ac_build(const struct hp_nf_patset *ps, struct hp_nf_ac **out)
{
	struct hp_nf_ac *ac;
	uint32_t *queue = NULL;
	uint64_t total = 1;
	uint32_t cap, nc, qh, qt;
	uint8_t used[256] = { 0 };
	int rc = -ENOMEM;

	if (ps == NULL || ps->n == 0)
		return -EINVAL;
	for (uint32_t i = 0; i < ps->n; i++)
		total += ps->len[i];
	if (total > UINT32_MAX / 2)
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

			used[b] = 1;
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

	/* 2. Byte classes: every byte that occurs in a pattern is its own
	 * class, all others share class 0 (they always lead back to root). */
	nc = 1;
	for (int b = 0; b < 256; b++)
		ac->dfa.cls[b] = used[b] ? (uint8_t)nc++ : 0;
	if (nc > 256) {
		/* All 256 bytes used: class 0 is then a real byte too. */
		nc = 256;
		for (int b = 0; b < 256; b++)
			ac->dfa.cls[b] = (uint8_t)b;
	}
	if ((uint64_t)ac->n_nodes * nc >= HP_NF_AC_MATCH) {
		rc = -E2BIG;
		goto fail;
	}
	ac->next = calloc((size_t)ac->n_nodes * nc, sizeof(uint32_t));
	queue = malloc(ac->n_nodes * sizeof(uint32_t));
	if (ac->next == NULL || queue == NULL)
		goto fail;

	/* 3. Failure links, output merging and DFA rows in BFS order: a
	 * state's failure target is shallower, so its row and outputs are
	 * final when the state is reached. */
	qh = qt = 0;
	for (int b = 0; b < 256; b++) {
		uint32_t c = ac->root_child[b];

		if (c != 0) {
			ac->nodes[c].fail = 0;
			ac->next[ac->dfa.cls[b]] = c * nc;
			queue[qt++] = c;
		}
	}
	while (qh < qt) {
		uint32_t s = queue[qh++];
		uint32_t *row = ac->next + (size_t)s * nc;
		uint32_t f = ac->nodes[s].fail;

		memcpy(row, ac->next + (size_t)f * nc, nc * sizeof(*row));
		ac->out_count[s] += ac->out_count[f];
		if (ac->out_first[f] < ac->out_first[s])
			ac->out_first[s] = ac->out_first[f];
		for (uint32_t c = ac->nodes[s].child; c != 0;
		     c = ac->nodes[c].sibling) {
			uint32_t k = ac->dfa.cls[ac->nodes[c].byte];

			/* row[k] still holds goto(fail(s), byte): the child's
			 * failure state. Distinct children have distinct
			 * classes, so overriding one entry leaves the others. */
			ac->nodes[c].fail = row[k] / nc;
			row[k] = c * nc;
			queue[qt++] = c;
		}
	}
	/* 4. Match flags, once every state's output count is final. The
	 * fail computation above reads plain row offsets, so the flag is
	 * added only now. */
	for (size_t i = 0; i < (size_t)ac->n_nodes * nc; i++)
		if (ac->out_count[ac->next[i] / nc] != 0)
			ac->next[i] |= HP_NF_AC_MATCH;

	free(queue);
	ac->dfa.n_states = ac->n_nodes;
	ac->dfa.n_classes = nc;
	ac->dfa.next = ac->next;
	ac->dfa.out_count = ac->out_count;
	ac->dfa.out_first = ac->out_first;
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
	return (size_t)ac->n_nodes * ac->dfa.n_classes * sizeof(uint32_t) +
	       (size_t)ac->n_nodes * 2 * sizeof(uint32_t);
}

static inline void
report(const struct hp_nf_ac *ac, uint32_t row, struct hp_nf_dpi_res *res)
{
	/* Rare (only in matching packets), so the division is affordable. */
	uint32_t st = row / ac->dfa.n_classes;

	if (res->count == 0)
		res->first = ac->out_first[st];
	res->count += ac->out_count[st];
}

void
hp_nf_ac_scan(const struct hp_nf_ac *ac, const uint8_t *data, uint32_t len,
	      struct hp_nf_dpi_res *res)
{
	const uint32_t *next = ac->next;
	const uint8_t *cls = ac->dfa.cls;
	uint32_t row = 0;

	res->count = 0;
	res->first = HP_NF_NO_MATCH;
	for (uint32_t i = 0; i < len; i++) {
		uint32_t e = next[row + cls[data[i]]];

		row = e & ~HP_NF_AC_MATCH;
		if (__builtin_expect(e & HP_NF_AC_MATCH, 0))
			report(ac, row, res);
	}
}

#define AC_LANES 8

void
hp_nf_ac_scan_batch(const struct hp_nf_ac *ac, const uint8_t *const *data,
		    const uint32_t *len, unsigned int n,
		    struct hp_nf_dpi_res *res)
{
	static const uint8_t idle_byte;
	const uint32_t *next = ac->next;
	const uint8_t *cls = ac->dfa.cls;
	const uint8_t *p[AC_LANES];
	uint32_t rem[AC_LANES], row[AC_LANES], stride[AC_LANES];
	int job[AC_LANES];
	unsigned int nxt = 0, active = 0;

	for (int l = 0; l < AC_LANES; l++) {
		job[l] = -1;
		p[l] = &idle_byte;
		stride[l] = 0;
		rem[l] = UINT32_MAX;
		row[l] = 0;
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
				job[l] = (int)nxt;
				res[nxt].count = 0;
				res[nxt].first = HP_NF_NO_MATCH;
				p[l] = data[nxt];
				rem[l] = len[nxt];
				stride[l] = 1;
				row[l] = 0;
				nxt++;
				active++;
			}
			if (rem[l] < m)
				m = rem[l];
		}
		if (active == 0)
			break;
		/* m bytes on every lane without bound checks. Measured ~1.3
		 * cycles/byte/lane here vs ~5 for the single-stream walk
		 * (1458 B packets, 10k generated patterns, L2-resident hot
		 * rows): the loads of 8 lanes overlap. */
		for (uint32_t i = 0; i < m; i++) {
#pragma GCC unroll 8
			for (int l = 0; l < AC_LANES; l++) {
				uint32_t e = next[row[l] + cls[*p[l]]];

				p[l] += stride[l];
				row[l] = e & ~HP_NF_AC_MATCH;
				if (__builtin_expect(e & HP_NF_AC_MATCH, 0) &&
				    job[l] >= 0)
					report(ac, row[l], &res[job[l]]);
			}
		}
		for (int l = 0; l < AC_LANES; l++)
			if (job[l] >= 0)
				rem[l] -= m;
	}
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
