/* SPDX-License-Identifier: BSD-3-Clause
 * The md5 kernel (task md5): MD5 (RFC 1321), one thread per packet, whole
 * 64-byte blocks straight from the staging buffer and the padded tail in
 * registers. Only the 16-byte digests come back; the payload is not
 * changed.
 */
#include "hpk_kernel.h"

#define F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))
#define STEP(f, a, b, c, d, m, k, s) \
	do { (a) += f((b), (c), (d)) + (m) + (k); (a) = (b) + (((a) << (s)) | ((a) >> (32 - (s)))); } while (0)

/* One 64-byte MD5 block (RFC 1321 §3.4; constants are its table T). */
HD static inline void
md5_block(uint32_t h[4], const uint32_t *M)
{
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3];

	STEP(F, a, b, c, d, M[0], 0xd76aa478u, 7);
	STEP(F, d, a, b, c, M[1], 0xe8c7b756u, 12);
	STEP(F, c, d, a, b, M[2], 0x242070dbu, 17);
	STEP(F, b, c, d, a, M[3], 0xc1bdceeeu, 22);
	STEP(F, a, b, c, d, M[4], 0xf57c0fafu, 7);
	STEP(F, d, a, b, c, M[5], 0x4787c62au, 12);
	STEP(F, c, d, a, b, M[6], 0xa8304613u, 17);
	STEP(F, b, c, d, a, M[7], 0xfd469501u, 22);
	STEP(F, a, b, c, d, M[8], 0x698098d8u, 7);
	STEP(F, d, a, b, c, M[9], 0x8b44f7afu, 12);
	STEP(F, c, d, a, b, M[10], 0xffff5bb1u, 17);
	STEP(F, b, c, d, a, M[11], 0x895cd7beu, 22);
	STEP(F, a, b, c, d, M[12], 0x6b901122u, 7);
	STEP(F, d, a, b, c, M[13], 0xfd987193u, 12);
	STEP(F, c, d, a, b, M[14], 0xa679438eu, 17);
	STEP(F, b, c, d, a, M[15], 0x49b40821u, 22);
	STEP(G, a, b, c, d, M[1], 0xf61e2562u, 5);
	STEP(G, d, a, b, c, M[6], 0xc040b340u, 9);
	STEP(G, c, d, a, b, M[11], 0x265e5a51u, 14);
	STEP(G, b, c, d, a, M[0], 0xe9b6c7aau, 20);
	STEP(G, a, b, c, d, M[5], 0xd62f105du, 5);
	STEP(G, d, a, b, c, M[10], 0x02441453u, 9);
	STEP(G, c, d, a, b, M[15], 0xd8a1e681u, 14);
	STEP(G, b, c, d, a, M[4], 0xe7d3fbc8u, 20);
	STEP(G, a, b, c, d, M[9], 0x21e1cde6u, 5);
	STEP(G, d, a, b, c, M[14], 0xc33707d6u, 9);
	STEP(G, c, d, a, b, M[3], 0xf4d50d87u, 14);
	STEP(G, b, c, d, a, M[8], 0x455a14edu, 20);
	STEP(G, a, b, c, d, M[13], 0xa9e3e905u, 5);
	STEP(G, d, a, b, c, M[2], 0xfcefa3f8u, 9);
	STEP(G, c, d, a, b, M[7], 0x676f02d9u, 14);
	STEP(G, b, c, d, a, M[12], 0x8d2a4c8au, 20);
	STEP(H, a, b, c, d, M[5], 0xfffa3942u, 4);
	STEP(H, d, a, b, c, M[8], 0x8771f681u, 11);
	STEP(H, c, d, a, b, M[11], 0x6d9d6122u, 16);
	STEP(H, b, c, d, a, M[14], 0xfde5380cu, 23);
	STEP(H, a, b, c, d, M[1], 0xa4beea44u, 4);
	STEP(H, d, a, b, c, M[4], 0x4bdecfa9u, 11);
	STEP(H, c, d, a, b, M[7], 0xf6bb4b60u, 16);
	STEP(H, b, c, d, a, M[10], 0xbebfbc70u, 23);
	STEP(H, a, b, c, d, M[13], 0x289b7ec6u, 4);
	STEP(H, d, a, b, c, M[0], 0xeaa127fau, 11);
	STEP(H, c, d, a, b, M[3], 0xd4ef3085u, 16);
	STEP(H, b, c, d, a, M[6], 0x04881d05u, 23);
	STEP(H, a, b, c, d, M[9], 0xd9d4d039u, 4);
	STEP(H, d, a, b, c, M[12], 0xe6db99e5u, 11);
	STEP(H, c, d, a, b, M[15], 0x1fa27cf8u, 16);
	STEP(H, b, c, d, a, M[2], 0xc4ac5665u, 23);
	STEP(I, a, b, c, d, M[0], 0xf4292244u, 6);
	STEP(I, d, a, b, c, M[7], 0x432aff97u, 10);
	STEP(I, c, d, a, b, M[14], 0xab9423a7u, 15);
	STEP(I, b, c, d, a, M[5], 0xfc93a039u, 21);
	STEP(I, a, b, c, d, M[12], 0x655b59c3u, 6);
	STEP(I, d, a, b, c, M[3], 0x8f0ccc92u, 10);
	STEP(I, c, d, a, b, M[10], 0xffeff47du, 15);
	STEP(I, b, c, d, a, M[1], 0x85845dd1u, 21);
	STEP(I, a, b, c, d, M[8], 0x6fa87e4fu, 6);
	STEP(I, d, a, b, c, M[15], 0xfe2ce6e0u, 10);
	STEP(I, c, d, a, b, M[6], 0xa3014314u, 15);
	STEP(I, b, c, d, a, M[13], 0x4e0811a1u, 21);
	STEP(I, a, b, c, d, M[4], 0xf7537e82u, 6);
	STEP(I, d, a, b, c, M[11], 0xbd3af235u, 10);
	STEP(I, c, d, a, b, M[2], 0x2ad7d2bbu, 15);
	STEP(I, b, c, d, a, M[9], 0xeb86d391u, 21);

	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
}

/* Thread i hashes packet p0 + i: whole blocks straight from the staging
 * buffer (4-byte aligned, little endian as MD5 wants), then the padded
 * tail (RFC 1321 §3.1-3.2) built in registers. */
HD static inline void
md5_thread(const struct kargs *a, uint32_t i)
{
	uint32_t p = a->p0 + i, L = a->len[p], full = L / 64, rem = L % 64, j;
	const uint8_t *src = a->data + a->off[p];
	uint32_t h[4] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u };
	uint32_t M[16];
	uint8_t *out = a->digest + 16u * p;

	for (j = 0; j < full; j++)
		md5_block(h, (const uint32_t *)(src + 64u * j));
	for (j = 0; j < 16; j++)
		M[j] = 0;
	src += 64u * full;
	for (j = 0; j < rem; j++)
		M[j >> 2] |= (uint32_t)src[j] << (8 * (j & 3));
	M[rem >> 2] |= 0x80u << (8 * (rem & 3));
	if (rem >= 56) {
		md5_block(h, M);
		for (j = 0; j < 16; j++)
			M[j] = 0;
	}
	M[14] = L << 3;
	M[15] = L >> 29;
	md5_block(h, M);
	for (j = 0; j < 4; j++) {
		out[4 * j] = (uint8_t)h[j];
		out[4 * j + 1] = (uint8_t)(h[j] >> 8);
		out[4 * j + 2] = (uint8_t)(h[j] >> 16);
		out[4 * j + 3] = (uint8_t)(h[j] >> 24);
	}
}

__global__ void
k_md5(struct kargs a)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < a.np)
		md5_thread(&a, i);
}

static cudaError_t
md5_launch(const struct hpk_run *r)
{
	k_md5<<<(r->a.np + 127) / 128, 128, 0, r->st>>>(r->a);
	return cudaGetLastError();
}

static int
md5_emulate(const struct hpk_run *r)
{
	for (uint32_t i = 0; i < r->h->n; i++)
		md5_thread(&r->a, i);
	return 0;
}

static const uint8_t *
md5_result(struct hpk_batch *b, uint32_t i)
{
	return b->digest + 16 * i;
}

static const struct hpk_kernel kern_md5 = {
	.name = "md5",
	.flags = HPK_OUT_DIGEST,
	.launch = md5_launch,
	.emulate = md5_emulate,
	.result = md5_result,
};
HPK_KERNEL_REGISTER(kern_md5)
