/* SPDX-License-Identifier: BSD-3-Clause
 * The aes_ctr kernel (task aes_ctr): AES-128-CTR, one thread per 16-byte
 * block, T-table rounds with T0 in shared memory (hpk_aes.cuh). Keys and
 * counter blocks per packet come from the task's offload_prep; the
 * payload is encrypted in place and copied back.
 */
#include "hpk_aes.cuh"

/* Thread g (counted from the launch's first block) encrypts one 16-byte
 * block: find its packet, form the counter block, XOR the keystream into
 * the payload in place. */
HD static inline void
aes_ctr_thread(const uint32_t *T, unsigned int lane, const struct kargs *a, uint32_t g)
{
	uint32_t p, b, s[4];
	uint32_t *d;

	g += a->blk[a->p0];
	p = hpk_item_packet(a, g);
	b = g - a->blk[p];
	s[0] = a->ctr[4 * p];
	s[1] = a->ctr[4 * p + 1];
	s[2] = a->ctr[4 * p + 2];
	s[3] = a->ctr[4 * p + 3] + b; /* big-endian 32-bit counter, as the CPU path */
	aes_encrypt(T, lane, a->rk + HPK_KEY_WORDS * a->key_idx[p], s);
	/* Offsets are 16-byte aligned and the staging has room for the
	 * whole last block, so full 16-byte accesses stay in the buffer;
	 * bytes past len are staging padding and are never copied back. */
	d = (uint32_t *)(a->data + a->off[p] + 16u * b);
	d[0] ^= bswap32(s[0]);
	d[1] ^= bswap32(s[1]);
	d[2] ^= bswap32(s[2]);
	d[3] ^= bswap32(s[3]);
}

__global__ void
k_aes_ctr(const uint32_t *__restrict__ t0, struct kargs a, uint32_t nblocks)
{
	__shared__ uint32_t T[256 * TCOPIES];
	uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;

	aes_load_t0(T, t0);
	if (g < nblocks)
		aes_ctr_thread(T, threadIdx.x % TCOPIES, &a, g);
}

static cudaError_t
ctr_launch(const struct hpk_run *r)
{
	uint32_t nb = r->h->blk[r->a.p0 + r->a.np] - r->h->blk[r->a.p0];

	if (nb == 0)
		return cudaSuccess;
	k_aes_ctr<<<(nb + AES_THREADS - 1) / AES_THREADS, AES_THREADS, 0, r->st>>>(
		(const uint32_t *)r->ks->priv, r->a, nb);
	return cudaGetLastError();
}

static int
ctr_emulate(const struct hpk_run *r)
{
	return aes_emulate(r, r->h->blk[r->h->n], aes_ctr_thread);
}

HPK_AES_KERNEL(kern_aes_ctr, "aes_ctr", ctr_launch, ctr_emulate)
