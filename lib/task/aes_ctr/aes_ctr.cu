/* SPDX-License-Identifier: BSD-3-Clause
 * The aes_ctr kernel (task aes_ctr): AES-128-CTR, CTR_BPT (4) 16-byte
 * blocks of one packet per thread, T-table rounds with T0 in shared
 * memory (hpk_aes.cuh), the four blocks' rounds interleaved so each round
 * key is read once for all four. A packet's work items are its 64-byte
 * pieces (blk counts them); each thread block finds its items' packets
 * once through a shared map (hpk_map.cuh), not a search per thread. Keys
 * and counter blocks per packet come from the task's offload_prep; the
 * payload is encrypted in place.
 */
#include "hpk_aes.cuh"
#include "hpk_map.cuh"

#define CTR_BPT 4 /* 16-byte blocks per thread */

/* Item t of packet p: blocks CTR_BPT * t .. of it, at most up to the
 * packet's last block. All CTR_BPT keystream blocks are computed (no
 * branch in the rounds); only the packet's own are XORed in. */
HD static inline void
aes_ctr_thread(const uint32_t *T, unsigned int lane, const struct kargs *a, uint32_t p,
	       uint32_t t)
{
	const uint32_t nb = (a->len[p] + 15) / 16, b0 = CTR_BPT * t;
	uint32_t s[CTR_BPT][4];
	uint32_t *d = (uint32_t *)(a->data + a->off[p] + 16u * b0);

HPK_UNROLL
	for (int j = 0; j < CTR_BPT; j++) {
		s[j][0] = a->ctr[4 * p];
		s[j][1] = a->ctr[4 * p + 1];
		s[j][2] = a->ctr[4 * p + 2];
		/* big-endian 32-bit counter, as the CPU path */
		s[j][3] = a->ctr[4 * p + 3] + b0 + j;
	}
	aes_encrypt_n<CTR_BPT>(T, lane, a->rk + HPK_KEY_WORDS * a->key_idx[p], s);
	/* Offsets are 16-byte aligned and the staging has room for the
	 * whole last block, so full 16-byte accesses stay in the packet's
	 * slot; bytes past len are padding and never copied back. Blocks
	 * past the packet's last are the next packet's: not touched. */
HPK_UNROLL
	for (int j = 0; j < CTR_BPT; j++) {
		if (b0 + j < nb) {
			d[4 * j] ^= bswap32(s[j][0]);
			d[4 * j + 1] ^= bswap32(s[j][1]);
			d[4 * j + 2] ^= bswap32(s[j][2]);
			d[4 * j + 3] ^= bswap32(s[j][3]);
		}
	}
}

/* A packet's work items: its 64-byte pieces. */
static uint32_t
ctr_items(const struct hpk_kslot *ks, uint32_t len)
{
	(void)ks;
	return (len + 16 * CTR_BPT - 1) / (16 * CTR_BPT);
}

__global__ void __launch_bounds__(AES_THREADS)
k_aes_ctr(const uint32_t *__restrict__ t0, struct kargs a, uint32_t nitems)
{
	__shared__ __align__(16) uint32_t T[256 * TCOPIES];
	__shared__ uint32_t map[AES_THREADS], wmax[AES_THREADS / 32];
	const uint32_t g0 = a.blk[a.p0] + blockIdx.x * AES_THREADS;
	const uint32_t g = blockIdx.x * AES_THREADS + threadIdx.x;
	uint32_t p;

	aes_load_t0(T, t0);
	p = hpk_map_block(&a, g0, map, wmax);
	if (g < nitems)
		aes_ctr_thread(T, threadIdx.x % TCOPIES, &a, p, g0 + threadIdx.x - a.blk[p]);
}

static cudaError_t
ctr_launch(const struct hpk_run *r)
{
	uint32_t ni = r->h->blk[r->a.p0 + r->a.np] - r->h->blk[r->a.p0];

	if (ni == 0)
		return cudaSuccess;
	k_aes_ctr<<<(ni + AES_THREADS - 1) / AES_THREADS, AES_THREADS, 0, r->st>>>(
		(const uint32_t *)r->ks->priv, r->a, ni);
	return cudaGetLastError();
}

/* Thread t of a block in the emulation: its lane as on the GPU. */
static void
ctr_emul_thread(const struct kargs *a, const void *t0, uint32_t t, uint32_t p, uint32_t i)
{
	aes_ctr_thread((const uint32_t *)t0, t % TCOPIES, a, p, i);
}

static int
ctr_emulate(const struct hpk_run *r)
{
	static_assert(AES_THREADS <= HPK_MAP_MAX, "the emulation's map is too small");
	hpk_map_emulate(&r->a, AES_THREADS, ctr_emul_thread, hpk_aes_host_t0());
	return 0;
}

HPK_AES_KERNEL(kern_aes_ctr, "aes_ctr", ctr_items, ctr_launch, ctr_emulate)
