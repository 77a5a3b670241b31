/* SPDX-License-Identifier: BSD-3-Clause
 * The dpi kernel's table: lib/nf's compact DFA (hp_nf.h, struct
 * hp_nf_ac_dfa) flattened into one blob that an accelerator uploads as it
 * is. This header, then at 16-byte aligned byte offsets from the blob's
 * start: the states (16 bytes each: 12 keys, then the offset word), the
 * entry table, and per state its match count and smallest pattern id.
 * Built by the task (and the tests), walked by dpi.cu. No DPDK.
 */
#ifndef HP_DPI_BLOB_H
#define HP_DPI_BLOB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hp_dpi_blob {
	uint32_t n_states;
	uint32_t tab_len;    /* entries in the entry table */
	uint32_t off_st;     /* byte offsets of the four arrays */
	uint32_t off_tab;
	uint32_t off_count;
	uint32_t off_first;
};

struct hp_nf_ac_dfa;

/* Flattens d into a new blob (*blob, free() it; *len bytes). 0, -ENOMEM,
 * or -E2BIG when it does not fit 32-bit offsets. */
int hp_dpi_blob_build(const struct hp_nf_ac_dfa *d, void **blob, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* HP_DPI_BLOB_H */
