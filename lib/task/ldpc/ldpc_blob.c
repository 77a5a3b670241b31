/* SPDX-License-Identifier: BSD-3-Clause
 * Builds the ldpc kernel's table blob (ldpc_blob.h) from a lib/ldpc code
 * and decoder settings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hp_ldpc.h"
#include "ldpc_blob.h"

int
hp_ldpc_blob_build(const struct hp_ldpc_code *c, const struct hp_ldpc_dec_cfg *cfg,
		   unsigned int ulen, unsigned int maxflip, int llr, void **blob, size_t *len)
{
	uint32_t nnz = hp_ldpc_code_nnz(c), mb = hp_ldpc_code_rows(c);
	struct hp_ldpc_blob h = {
		.z = hp_ldpc_code_z(c), .mb = mb, .nb = hp_ldpc_code_cols(c),
		.punct = hp_ldpc_code_punct(c), .nnz = nnz,
		.max_iter = cfg->max_iter, .oms = cfg->alg == HP_LDPC_OMS,
		.nms_shift = cfg->nms_shift, .oms_offset = cfg->oms_offset,
		.early = !cfg->no_early_stop,
		.ulen = ulen, .maxflip = maxflip, .llr = llr,
	};
	uint32_t *rs, *col, *sh;
	uint8_t *b;

	h.off_row_start = (sizeof(h) + 15) / 16 * 16;
	h.off_col = h.off_row_start + 4 * (mb + 1);
	h.off_shift = h.off_col + 4 * nnz;
	*len = h.off_shift + 4ull * nnz;
	b = calloc(1, *len);
	if (b == NULL)
		return -ENOMEM;
	memcpy(b, &h, sizeof(h));
	rs = (uint32_t *)(b + h.off_row_start);
	col = (uint32_t *)(b + h.off_col);
	sh = (uint32_t *)(b + h.off_shift);
	for (uint32_t i = 0; i < nnz; i++) {
		unsigned int r, cc, s;

		hp_ldpc_code_entry(c, i, &r, &cc, &s);
		rs[r + 1]++;
		col[i] = cc;
		sh[i] = s;
	}
	for (uint32_t r = 0; r < mb; r++)
		rs[r + 1] += rs[r];
	*blob = b;
	return 0;
}
