/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests for DPI in hp_nf: the Aho-Corasick DFA (single and batch
 * walks), the trie walk and Hyperscan against a brute-force matcher written
 * here, on hand-made cases (overlaps, edges, binary, empty) and on the
 * generated Snort-like set with generated traffic.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hp_nf.h"

/* Patterns bucketed by first byte, so brute force stays affordable. */
struct brute {
	const struct hp_nf_patset *ps;
	uint32_t *ids[256];
	uint32_t n[256];
};

static void
brute_init(struct brute *b, const struct hp_nf_patset *ps)
{
	memset(b, 0, sizeof(*b));
	b->ps = ps;
	for (uint32_t i = 0; i < ps->n; i++)
		b->n[ps->pat[i][0]]++;
	for (int c = 0; c < 256; c++) {
		b->ids[c] = calloc(b->n[c] + 1, sizeof(uint32_t));
		b->n[c] = 0;
	}
	for (uint32_t i = 0; i < ps->n; i++) {
		uint8_t c = ps->pat[i][0];

		b->ids[c][b->n[c]++] = i;
	}
}

static void
brute_fini(struct brute *b)
{
	for (int c = 0; c < 256; c++)
		free(b->ids[c]);
}

static void
brute_scan(const struct brute *b, const uint8_t *d, uint32_t len,
	   struct hp_nf_dpi_res *r)
{
	uint64_t best_end = UINT64_MAX;

	r->count = 0;
	r->first = HP_NF_NO_MATCH;
	for (uint32_t s = 0; s < len; s++) {
		for (uint32_t k = 0; k < b->n[d[s]]; k++) {
			uint32_t id = b->ids[d[s]][k];
			uint32_t pl = b->ps->len[id];
			uint64_t end = (uint64_t)s + pl;

			if (end > len || memcmp(d + s, b->ps->pat[id], pl) != 0)
				continue;
			r->count++;
			if (end < best_end || (end == best_end && id < r->first)) {
				best_end = end;
				r->first = id;
			}
		}
	}
}

struct engines {
	struct hp_nf_ac *ac;
	struct hp_nf_hs *hs;
	struct hp_nf_hs_scratch *scr;
};

static void
engines_init(struct engines *e, const struct hp_nf_patset *ps)
{
	char err[256];

	memset(e, 0, sizeof(*e));
	assert_int_equal(hp_nf_ac_build(ps, &e->ac), 0);
	if (hp_nf_hs_available()) {
		assert_int_equal(hp_nf_hs_build(ps, &e->hs, err, sizeof(err)), 0);
		assert_int_equal(hp_nf_hs_scratch_alloc(e->hs, &e->scr), 0);
	}
}

static void
engines_fini(struct engines *e)
{
	hp_nf_hs_scratch_free(e->scr);
	hp_nf_hs_free(e->hs);
	hp_nf_ac_free(e->ac);
}

/* Checks every engine against brute force on n buffers; returns the
 * number of buffers with at least one match. */
static unsigned int
check_all(const struct engines *e,
	  const struct brute *b, const uint8_t *const *d, const uint32_t *l,
	  unsigned int n)
{
	struct hp_nf_dpi_res *batch = calloc(n + 1, sizeof(*batch));
	unsigned int hits = 0;

	assert_non_null(batch);
	hp_nf_ac_scan_batch(e->ac, d, l, n, batch);
	for (unsigned int i = 0; i < n; i++) {
		struct hp_nf_dpi_res want, got;

		brute_scan(b, d[i], l[i], &want);
		hits += want.count > 0;
		hp_nf_ac_scan(e->ac, d[i], l[i], &got);
		assert_int_equal(got.count, want.count);
		assert_int_equal(got.first, want.first);
		assert_int_equal(batch[i].count, want.count);
		assert_int_equal(batch[i].first, want.first);
		hp_nf_ac_scan_nfa(e->ac, d[i], l[i], &got);
		assert_int_equal(got.count, want.count);
		assert_int_equal(got.first, want.first);
		if (e->hs) {
			assert_int_equal(hp_nf_hs_scan(e->hs, e->scr, d[i], l[i],
						       &got), 0);
			assert_int_equal(got.count, want.count);
			assert_int_equal(got.first, want.first);
		}
	}
	free(batch);
	return hits;
}

static void
test_handmade(void **state)
{
	static const struct { const char *p; int len; } pats[] = {
		{ "he", 2 }, { "she", 3 }, { "his", 3 }, { "hers", 4 },
		{ "aa", 2 }, { "a\0b", 3 }, { "\xff\xfe", 2 }, { "he", 2 },
		{ "x", 1 }, { "edge", 4 },
	};
	static const struct { const char *d; int len; uint32_t count, first; } cases[] = {
		{ "", 0, 0, HP_NF_NO_MATCH },
		{ "ushers", 6, 4, 0 },     /* she, he(0), he(7) @4; hers @6 */
		{ "aaaa", 4, 3, 4 },       /* overlapping repeats */
		{ "a\0b", 3, 0, HP_NF_NO_MATCH }, /* "aa" absent; a\0b below */
		{ "edgex", 5, 2, 9 },      /* pattern at packet start */
		{ "zzedge", 6, 1, 9 },     /* pattern at packet end */
		{ "\xff\xfe\xff\xfe", 4, 2, 6 },
		{ "his", 3, 1, 2 },
		{ "zzzz", 4, 0, HP_NF_NO_MATCH },
		{ "x", 1, 1, 8 },
	};
	struct hp_nf_patset *ps = hp_nf_patset_new();
	struct engines e;
	struct brute b;

	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		assert_int_equal(hp_nf_patset_add(ps, (const uint8_t *)pats[i].p,
						  (uint16_t)pats[i].len), 0);
	engines_init(&e, ps);
	brute_init(&b, ps);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const uint8_t *d = (const uint8_t *)cases[i].d;
		uint32_t l = (uint32_t)cases[i].len;
		struct hp_nf_dpi_res r;

		hp_nf_ac_scan(e.ac, d, l, &r);
		/* "a\0b" has the pattern a\0b (id 5) */
		if (i == 3) {
			assert_int_equal(r.count, 1);
			assert_int_equal(r.first, 5);
		} else {
			assert_int_equal(r.count, cases[i].count);
			assert_int_equal(r.first, cases[i].first);
		}
		check_all(&e, &b, &d, &l, 1);
	}
	brute_fini(&b);
	engines_fini(&e);
	hp_nf_patset_free(ps);
}

static void
test_random_small_alphabet(void **state)
{
	/* 300 patterns over {a,b,c,\0}: dense overlapping matches. */
	enum { NP = 300, NB = 200 };
	struct hp_nf_patset *ps = hp_nf_patset_new();
	const uint8_t *d[NB];
	uint8_t *bufs[NB];
	uint32_t l[NB];
	uint64_t s = 5;
	struct engines e;
	struct brute b;

	for (int i = 0; i < NP; i++) {
		uint8_t p[12];
		int pl = 1 + (int)((s = s * 6364136223846793005ULL + 1) >> 60) % 8;

		for (int j = 0; j < pl; j++) {
			s = s * 6364136223846793005ULL + 1;
			p[j] = "abc\0"[(s >> 62) & 3];
		}
		assert_int_equal(hp_nf_patset_add(ps, p, (uint16_t)pl), 0);
	}
	engines_init(&e, ps);
	brute_init(&b, ps);
	for (int i = 0; i < NB; i++) {
		s = s * 6364136223846793005ULL + 1;
		l[i] = i == 0 ? 0 : (uint32_t)(s >> 33) % 700;
		bufs[i] = malloc(l[i] + 1);
		for (uint32_t j = 0; j < l[i]; j++) {
			s = s * 6364136223846793005ULL + 1;
			bufs[i][j] = "abcd\0\0xa"[(s >> 61) & 7];
		}
		d[i] = bufs[i];
	}
	assert_true(check_all(&e, &b, d, l, NB) > NB / 2);
	for (int i = 0; i < NB; i++)
		free(bufs[i]);
	brute_fini(&b);
	engines_fini(&e);
	hp_nf_patset_free(ps);
}

static void
test_generated_set(void **state)
{
	enum { NB = 300 };
	static const uint32_t sizes[] = { 64, 243, 486, 1458 };
	struct hp_nf_patset *ps;
	const uint8_t *d[NB];
	uint8_t *bufs[NB];
	uint32_t l[NB];
	uint64_t s = 11;
	unsigned int planted = 0, hits;
	struct engines e;
	struct brute b;
	const struct hp_nf_ac_dfa *dfa;

	assert_int_equal(hp_nf_patset_generate(1, 10000, &ps), 0);
	assert_int_equal(ps->n, 10000);
	engines_init(&e, ps);
	dfa = hp_nf_ac_dfa(e.ac);
	assert_true(dfa->n_states > 10000);
	/* Compact: far below the 150k x 1 KiB of a full table. */
	assert_true(hp_nf_ac_mem(e.ac) < 32u << 20);
	assert_true(dfa->n_dense < dfa->n_states / 10);
	brute_init(&b, ps);
	for (int i = 0; i < NB; i++) {
		l[i] = sizes[i % 4];
		bufs[i] = malloc(l[i]);
		planted += (unsigned int)hp_nf_traffic_fill(ps, &s, bufs[i], l[i], 0.3);
		d[i] = bufs[i];
	}
	hits = check_all(&e, &b, d, l, NB);
	/* ~30 % planted; accidental matches add little. */
	assert_true(planted >= NB * 20 / 100 && planted <= NB * 40 / 100);
	assert_true(hits >= planted && hits <= planted + NB / 20);
	for (int i = 0; i < NB; i++)
		free(bufs[i]);
	brute_fini(&b);
	engines_fini(&e);
	hp_nf_patset_free(ps);
}

static void
test_build_errors(void **state)
{
	struct hp_nf_patset *ps = hp_nf_patset_new();
	struct hp_nf_ac *ac;

	assert_int_equal(hp_nf_ac_build(ps, &ac), -EINVAL);
	assert_int_equal(hp_nf_patset_add(ps, (const uint8_t *)"", 0), -EINVAL);
	hp_nf_patset_free(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_random_small_alphabet),
		cmocka_unit_test(test_generated_set),
		cmocka_unit_test(test_build_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
