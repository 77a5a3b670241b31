/* SPDX-License-Identifier: BSD-3-Clause
 * A thread block's map from its work items to their packets, built once
 * per block instead of a binary search per thread: one thread searches
 * the packet of the block's first item (hpk_item_packet), every thread
 * marks the packets that start inside the block's range at their first
 * item (map[blk[q] - g0] = q), and a max-scan over the map gives each
 * item the last packet starting at or before it, which is exactly what
 * hpk_item_packet returns (packets with no items lose to the later packet
 * at the same start). Used by aes_ctr and dpi; the emulation runs the
 * same marking and an equal sequential scan (hpk_map_emulate).
 */
#ifndef HPK_MAP_CUH
#define HPK_MAP_CUH

#include "hpk_kernel.h"

/* Thread t of T marks the packets after pf that start in [g0, g0 + n):
 * the largest such packet index at its first item's slot. */
HD static inline void
hpk_map_mark(const struct kargs *a, uint32_t pf, uint32_t g0, uint32_t n, uint32_t *map,
	     uint32_t t, uint32_t T)
{
	const uint32_t end = a->p0 + a->np;

	for (uint32_t q = pf + 1 + t; q < end && a->blk[q] < g0 + n; q += T) {
#ifdef __CUDA_ARCH__
		atomicMax(&map[a->blk[q] - g0], q);
#else
		uint32_t *m = &map[a->blk[q] - g0];

		*m = *m > q ? *m : q;
#endif
	}
}

#define HPK_MAP_MAX 256 /* threads per block of a mapped kernel, at most */

/* A mapped kernel's thread as the emulation calls it: thread t of its
 * block, whose item is item i of packet p. */
typedef void (*hpk_map_fn)(const struct kargs *a, const void *arg, uint32_t t, uint32_t p,
			   uint32_t i);

/* The emulation of a kernel of T-thread blocks (T <= HPK_MAP_MAX) over
 * the launch's items: the blocks in turn, each one's map as the kernel
 * builds it (the search, the T threads' marking in turn, then a
 * sequential max-scan equal to the warps' one), then its threads in
 * order. */
static inline void
hpk_map_emulate(const struct kargs *a, uint32_t T, hpk_map_fn fn, const void *arg)
{
	const uint32_t end = a->blk[a->p0 + a->np];
	uint32_t map[HPK_MAP_MAX];

	for (uint32_t g0 = a->blk[a->p0]; g0 < end; g0 += T) {
		const uint32_t n = end - g0 < T ? end - g0 : T, pf = hpk_item_packet(a, g0);

		for (uint32_t i = 0; i < n; i++)
			map[i] = 0;
		map[0] = pf;
		for (uint32_t t = 0; t < T; t++)
			hpk_map_mark(a, pf, g0, n, map, t, T);
		for (uint32_t i = 1; i < n; i++)
			map[i] = map[i] > map[i - 1] ? map[i] : map[i - 1];
		for (uint32_t t = 0; t < n; t++)
			fn(a, arg, t, map[t], g0 + t - a->blk[map[t]]);
	}
}

#ifdef __CUDACC__
/* The kernel's block: blockDim.x items from g0 (absolute), map and wmax
 * (one word per warp) in shared memory; returns thread's item's packet.
 * All threads of the block call it (three barriers). Cost: one search
 * per block, then about 20 instructions a thread. */
__device__ static inline uint32_t
hpk_map_block(const struct kargs *a, uint32_t g0, uint32_t *map, uint32_t *wmax)
{
	const uint32_t t = threadIdx.x, T = blockDim.x, lane = t & 31, w = t >> 5;
	const uint32_t total = a->blk[a->p0 + a->np] - g0;
	const uint32_t n = total < T ? total : T;
	uint32_t v;

	map[t] = 0;
	if (t == 0)
		map[0] = hpk_item_packet(a, g0);
	__syncthreads();
	hpk_map_mark(a, map[0], g0, n, map, t, T);
	__syncthreads();
	v = map[t];
	for (uint32_t d = 1; d < 32; d <<= 1) {
		uint32_t u = __shfl_up_sync(0xffffffffu, v, d);

		if (lane >= d)
			v = u > v ? u : v;
	}
	if (lane == 31)
		wmax[w] = v;
	__syncthreads();
	for (uint32_t j = 0; j < w; j++)
		v = wmax[j] > v ? wmax[j] : v;
	return v;
}
#endif

#endif /* HPK_MAP_CUH */
