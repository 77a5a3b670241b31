/* SPDX-License-Identifier: BSD-3-Clause
 * Builds the dpi kernel's table blob (dpi_blob.h) from lib/nf's DFA.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpi_blob.h"
#include "hp_nf.h"

/* The kernel reads a state as one 16-byte vector. */
_Static_assert(sizeof(struct hp_nf_ac_state) == 16, "hp_nf_ac_state is not 16 bytes");

/* Reserves n bytes at a 16-byte aligned offset; returns that offset. */
static uint64_t
place(uint64_t *at, uint64_t n)
{
	uint64_t o = (*at + 15) / 16 * 16;

	*at = o + n;
	return o;
}

int
hp_dpi_blob_build(const struct hp_nf_ac_dfa *d, void **blob, size_t *len)
{
	uint64_t at = sizeof(struct hp_dpi_blob);
	uint64_t st = place(&at, 16ull * d->n_states), tab = place(&at, 4ull * d->tab_len);
	uint64_t cnt = place(&at, 4ull * d->n_states), first = place(&at, 4ull * d->n_states);
	struct hp_dpi_blob h = { .n_states = d->n_states, .tab_len = d->tab_len };
	uint8_t *b;

	if (at > UINT32_MAX)
		return -E2BIG;
	b = calloc(1, at);
	if (b == NULL)
		return -ENOMEM;
	h.off_st = (uint32_t)st;
	h.off_tab = (uint32_t)tab;
	h.off_count = (uint32_t)cnt;
	h.off_first = (uint32_t)first;
	memcpy(b, &h, sizeof(h));
	memcpy(b + st, d->st, 16ull * d->n_states);
	memcpy(b + tab, d->tab, 4ull * d->tab_len);
	memcpy(b + cnt, d->out_count, 4ull * d->n_states);
	memcpy(b + first, d->out_first, 4ull * d->n_states);
	*blob = b;
	*len = at;
	return 0;
}
