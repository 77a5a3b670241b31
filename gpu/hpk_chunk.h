/* SPDX-License-Identifier: BSD-3-Clause
 * Long packets split into chunks for a pattern scan (the dpi kernel), as
 * host and device code: the kernel, the emulation and the C tests compile
 * this one file. Chunk c of a packet owns the match end positions
 * [c * C, min((c + 1) * C, len)) and starts its walk ovl bytes earlier
 * (ovl = longest pattern - 1) from the automaton's start state: an
 * Aho-Corasick state is the longest suffix of the bytes read that is a
 * pattern prefix, at most ovl + 1 bytes long, so from the chunk's first
 * owned position on the walk is in the very state the whole-packet walk
 * is. Matches ending in the overlap belong to the chunk before (counted
 * only from `from`), so every match is counted once, and merging the
 * chunks' (count, first id) in chunk order gives the whole walk's.
 */
#ifndef HPK_CHUNK_H
#define HPK_CHUNK_H

#include <stdint.h>

#ifdef __CUDACC__
#define HPK_CHD __host__ __device__
#else
#define HPK_CHD
#endif

#define HPK_NO_MATCH 0xffffffffu
#define HPK_CHUNK_MIN 48 /* bytes a chunk owns at least (a multiple of 16) */

/* Bytes a chunk owns for an overlap of ovl: a multiple of 16 (chunks
 * start on the 16-byte loads' boundaries), at least 48 and at least a
 * third of the overlap, so a chunk reads at most about 4x what it owns.
 * For lib/nf's generated 10k set (longest pattern 128): 48, so a
 * 1,458-byte packet has 31 chunks and 4,096 of them 127k threads, each
 * reading 175 bytes for its 48. Smaller chunks trade work for threads;
 * where the balance lies on a GPU is unmeasured (one constant here). */
HPK_CHD static inline uint32_t
hpk_chunk_size(uint32_t ovl)
{
	uint32_t c = ((ovl + 1 + 2) / 3 + 15) / 16 * 16;

	return c > HPK_CHUNK_MIN ? c : HPK_CHUNK_MIN;
}

/* Chunks of a packet of len bytes: an empty packet still has one (its
 * result must be written). */
HPK_CHD static inline uint32_t
hpk_chunks(uint32_t len, uint32_t csize)
{
	return len == 0 ? 1 : (len + csize - 1) / csize;
}

struct hpk_chunk {
	uint32_t walk;  /* first byte read, from the start state */
	uint32_t from;  /* first match end position this chunk counts */
	uint32_t end;   /* one past the last byte read and owned */
};

HPK_CHD static inline struct hpk_chunk
hpk_chunk_at(uint32_t len, uint32_t csize, uint32_t ovl, uint32_t c)
{
	struct hpk_chunk k;

	k.from = c * csize;
	k.end = len - k.from < csize ? len : k.from + csize;
	k.walk = k.from > ovl ? k.from - ovl : 0;
	return k;
}

/* Folds chunk results into a packet's, chunks in order: the count adds
 * up, the first id is the first chunk with a match's. */
HPK_CHD static inline void
hpk_match_merge(uint32_t *count, uint32_t *first, uint32_t c_count, uint32_t c_first)
{
	if (*count == 0 && c_count != 0)
		*first = c_first;
	*count += c_count;
}

#endif /* HPK_CHUNK_H */
