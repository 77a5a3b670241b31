/* SPDX-License-Identifier: BSD-3-Clause
 * Internal: the code tables generated from lib/ldpc/codes/ *.txt by
 * gen_tables.py (IEEE 802.11-2012 Annex F; 3GPP TS 38.212 5.3.2).
 */
#ifndef HP_LDPC_TABLES_H
#define HP_LDPC_TABLES_H

#include <stdint.h>

/* One IEEE 802.11n base matrix: mb x nb shifts, -1 = zero block. */
struct hp_ldpc_wifi_table {
	uint16_t n, rate_num, rate_den, z, mb, nb;
	const int16_t *shift;
};

/* One nonzero entry of an NR base graph with V(i,j) for iLS = 0..7. */
struct hp_ldpc_nr_entry {
	uint8_t row, col;
	uint16_t v[8];
};

struct hp_ldpc_nr_table {
	uint8_t bg, rows, cols;
	uint16_t nents;
	const struct hp_ldpc_nr_entry *ents;
};

/* Table 5.3.2-1: lifting size and its set index. */
struct hp_ldpc_nr_lift {
	uint16_t z;
	uint8_t ils;
};

extern const struct hp_ldpc_wifi_table hp_ldpc_wifi_tables[];
extern const unsigned int hp_ldpc_wifi_ntables;
extern const struct hp_ldpc_nr_table hp_ldpc_nr_bg1;
extern const struct hp_ldpc_nr_table hp_ldpc_nr_bg2;
extern const struct hp_ldpc_nr_lift hp_ldpc_nr_lifts[];
extern const unsigned int hp_ldpc_nr_nlifts;

#endif /* HP_LDPC_TABLES_H */
