/* SPDX-License-Identifier: BSD-3-Clause
 * Hyperscan engine for the ids app: the pattern set compiled with the
 * literal API (patterns may contain NUL and regex metacharacters), block
 * mode, one scratch per thread. Built only when libhs is found; the
 * functions then report -ENOTSUP and the own Aho-Corasick DFA is used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hp_nf.h"

#ifdef HP_NF_HAVE_HS
#include <hs/hs.h>

struct hp_nf_hs {
	hs_database_t *db;
};

struct hp_nf_hs_scratch {
	hs_scratch_t *s;
};

int
hp_nf_hs_available(void)
{
	return 1;
}

int
hp_nf_hs_build(const struct hp_nf_patset *ps, struct hp_nf_hs **out,
	       char *err, size_t errlen)
{
	struct hp_nf_hs *hs = NULL;
	unsigned int *flags = NULL, *ids = NULL;
	size_t *lens = NULL;
	hs_compile_error_t *cerr = NULL;
	int rc = -ENOMEM;

	if (ps == NULL || ps->n == 0)
		return -EINVAL;
	hs = calloc(1, sizeof(*hs));
	flags = calloc(ps->n, sizeof(*flags));
	ids = malloc(ps->n * sizeof(*ids));
	lens = malloc(ps->n * sizeof(*lens));
	if (hs == NULL || flags == NULL || ids == NULL || lens == NULL) {
		snprintf(err, errlen, "hyperscan: out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < ps->n; i++) {
		ids[i] = i;
		lens[i] = ps->len[i];
	}
	/* flags 0: case-sensitive, every match at every end offset (no
	 * SINGLEMATCH), which is what the count in hp_nf_dpi_res means. */
	if (hs_compile_lit_multi((const char *const *)ps->pat, flags, ids,
				 lens, ps->n, HS_MODE_BLOCK, NULL, &hs->db,
				 &cerr) != HS_SUCCESS) {
		snprintf(err, errlen, "hyperscan: compile failed (pattern %d): %s",
			 cerr ? cerr->expression : -1,
			 cerr ? cerr->message : "?");
		hs_free_compile_error(cerr);
		rc = -EINVAL;
		goto fail;
	}
	free(flags);
	free(ids);
	free(lens);
	*out = hs;
	return 0;
fail:
	free(flags);
	free(ids);
	free(lens);
	free(hs);
	return rc;
}

void
hp_nf_hs_free(struct hp_nf_hs *hs)
{
	if (hs == NULL)
		return;
	hs_free_database(hs->db);
	free(hs);
}

int
hp_nf_hs_scratch_alloc(const struct hp_nf_hs *hs, struct hp_nf_hs_scratch **out)
{
	struct hp_nf_hs_scratch *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	if (hs_alloc_scratch(hs->db, &s->s) != HS_SUCCESS) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void
hp_nf_hs_scratch_free(struct hp_nf_hs_scratch *s)
{
	if (s == NULL)
		return;
	hs_free_scratch(s->s);
	free(s);
}

struct scan_state {
	struct hp_nf_dpi_res *res;
	unsigned long long first_end;
};

static int
on_match(unsigned int id, unsigned long long from, unsigned long long to,
	 unsigned int flags, void *ctx)
{
	struct scan_state *st = ctx;

	/* Hyperscan reports in end-offset order but not necessarily in id
	 * order at one offset, so "first" is kept explicitly. */
	st->res->count++;
	if (to < st->first_end || (to == st->first_end && id < st->res->first)) {
		st->first_end = to;
		st->res->first = id;
	}
	return 0;
}

int
hp_nf_hs_scan(const struct hp_nf_hs *hs, struct hp_nf_hs_scratch *s,
	      const uint8_t *data, uint32_t len, struct hp_nf_dpi_res *res)
{
	struct scan_state st = { .res = res, .first_end = ~0ULL };

	res->count = 0;
	res->first = HP_NF_NO_MATCH;
	if (hs_scan(hs->db, (const char *)data, len, 0, s->s, on_match,
		    &st) != HS_SUCCESS)
		return -EIO;
	return 0;
}

#else /* !HP_NF_HAVE_HS */

int
hp_nf_hs_available(void)
{
	return 0;
}

int
hp_nf_hs_build(const struct hp_nf_patset *ps, struct hp_nf_hs **out,
	       char *err, size_t errlen)
{
	snprintf(err, errlen, "hyperscan: not built in (libhs not found)");
	return -ENOTSUP;
}

void
hp_nf_hs_free(struct hp_nf_hs *hs)
{
}

int
hp_nf_hs_scratch_alloc(const struct hp_nf_hs *hs, struct hp_nf_hs_scratch **out)
{
	return -ENOTSUP;
}

void
hp_nf_hs_scratch_free(struct hp_nf_hs_scratch *s)
{
}

int
hp_nf_hs_scan(const struct hp_nf_hs *hs, struct hp_nf_hs_scratch *s,
	      const uint8_t *data, uint32_t len, struct hp_nf_dpi_res *res)
{
	return -ENOTSUP;
}

#endif
