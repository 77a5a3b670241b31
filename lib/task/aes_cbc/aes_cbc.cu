/* SPDX-License-Identifier: BSD-3-Clause
 * The aes_cbc kernel (task aes_cbc): AES-128-CBC, one thread per packet
 * (CBC is serial inside a packet), T-table rounds with T0 in shared memory
 * (hpk_aes.cuh). The task pads each packet (PKCS#7) into the staging and
 * gives its key and IV; the ciphertext comes back in place.
 */
#include "hpk_aes.cuh"

/* Thread i encrypts packet p0 + i (the IV is in ctr[], the length a
 * multiple of 16). */
HD static inline void
aes_cbc_thread(const uint32_t *T, unsigned int lane, const struct kargs *a, uint32_t i)
{
	uint32_t p = a->p0 + i, nb = a->len[p] / 16;
	const uint32_t *rk = a->rk + HPK_KEY_WORDS * a->key_idx[p];
	uint32_t v[4] = { a->ctr[4 * p], a->ctr[4 * p + 1], a->ctr[4 * p + 2], a->ctr[4 * p + 3] };
	uint32_t *d = (uint32_t *)(a->data + a->off[p]);

	for (uint32_t b = 0; b < nb; b++, d += 4) {
		v[0] ^= bswap32(d[0]);
		v[1] ^= bswap32(d[1]);
		v[2] ^= bswap32(d[2]);
		v[3] ^= bswap32(d[3]);
		aes_encrypt(T, lane, rk, v);
		d[0] = bswap32(v[0]);
		d[1] = bswap32(v[1]);
		d[2] = bswap32(v[2]);
		d[3] = bswap32(v[3]);
	}
}

__global__ void
k_aes_cbc(const uint32_t *__restrict__ t0, struct kargs a)
{
	__shared__ __align__(16) uint32_t T[256 * TCOPIES];
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	aes_load_t0(T, t0);
	if (i < a.np)
		aes_cbc_thread(T, threadIdx.x % TCOPIES, &a, i);
}

static cudaError_t
cbc_launch(const struct hpk_run *r)
{
	k_aes_cbc<<<(r->a.np + 127) / 128, 128, 0, r->st>>>((const uint32_t *)r->ks->priv, r->a);
	return cudaGetLastError();
}

static int
cbc_emulate(const struct hpk_run *r)
{
	return aes_emulate(r, r->h->n, aes_cbc_thread);
}

HPK_AES_KERNEL(kern_aes_cbc, "aes_cbc", NULL, cbc_launch, cbc_emulate)
