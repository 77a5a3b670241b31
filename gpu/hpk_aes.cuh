/* SPDX-License-Identifier: BSD-3-Clause
 * AES-128 for the aes_ctr and aes_cbc kernels: T-table rounds (FIPS-197
 * §5.1 as four table lookups per column). Only T0 is stored; T1..T3 are
 * byte rotations of it, and the last round's S-box is a byte of T0. T0 is
 * replicated 32 times in shared memory, entry x of copy k at [x * 32 + k],
 * so lane k of a warp always reads bank k and the data-dependent lookups
 * never conflict (the layout Tezcan, 2021, uses for the published GPU AES
 * high mark). 32 KiB shared memory per block. Cost note: 40 table reads
 * + 44 round-key reads per 16-byte block; the round keys are read through
 * the read-only cache (one key per flow). The host half is hpk_aes.cu.
 */
#ifndef HPK_AES_CUH
#define HPK_AES_CUH

#include "hpk_kernel.h"

#define TCOPIES 32
#define AES_THREADS 256 /* threads per block of aes_ctr */

/* T0 replicated TCOPIES times for the emulation, made on first use. */
const uint32_t *hpk_aes_host_t0(void);
/* open / close hooks of both kernels: T0 (256 words) on the GPU, in
 * ks->priv; nothing in emulation. */
int hpk_aes_open(struct hpk_kslot *ks, char *err, size_t errlen);
void hpk_aes_close(struct hpk_kslot *ks);
/* FIPS-197 key expansion: 44 round-key words (big-endian values). */
void hpk_aes128_expand(const uint8_t key[16], uint32_t rk[HPK_KEY_WORDS]);

HD static inline uint32_t
ror(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

HD static inline uint32_t
bswap32(uint32_t x)
{
#ifdef __CUDA_ARCH__
	return __byte_perm(x, 0, 0x0123);
#else
	return __builtin_bswap32(x);
#endif
}

#define TL(x) T[(uint32_t)(x) * TCOPIES + lane]
#define SB(x) ((TL(x) >> 16) & 0xff)

HD static inline void
aes_encrypt(const uint32_t *T, unsigned int lane, const uint32_t *rk, uint32_t s[4])
{
	uint32_t s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
	uint32_t e0, e1, e2, e3;

	for (int r = 1; r < 10; r++) {
		e0 = TL(s0 >> 24) ^ ror(TL((s1 >> 16) & 0xff), 8) ^
		     ror(TL((s2 >> 8) & 0xff), 16) ^ ror(TL(s3 & 0xff), 24) ^ rk[4 * r];
		e1 = TL(s1 >> 24) ^ ror(TL((s2 >> 16) & 0xff), 8) ^
		     ror(TL((s3 >> 8) & 0xff), 16) ^ ror(TL(s0 & 0xff), 24) ^ rk[4 * r + 1];
		e2 = TL(s2 >> 24) ^ ror(TL((s3 >> 16) & 0xff), 8) ^
		     ror(TL((s0 >> 8) & 0xff), 16) ^ ror(TL(s1 & 0xff), 24) ^ rk[4 * r + 2];
		e3 = TL(s3 >> 24) ^ ror(TL((s0 >> 16) & 0xff), 8) ^
		     ror(TL((s1 >> 8) & 0xff), 16) ^ ror(TL(s2 & 0xff), 24) ^ rk[4 * r + 3];
		s0 = e0;
		s1 = e1;
		s2 = e2;
		s3 = e3;
	}
	s[0] = ((SB(s0 >> 24) << 24) | (SB((s1 >> 16) & 0xff) << 16) |
		(SB((s2 >> 8) & 0xff) << 8) | SB(s3 & 0xff)) ^ rk[40];
	s[1] = ((SB(s1 >> 24) << 24) | (SB((s2 >> 16) & 0xff) << 16) |
		(SB((s3 >> 8) & 0xff) << 8) | SB(s0 & 0xff)) ^ rk[41];
	s[2] = ((SB(s2 >> 24) << 24) | (SB((s3 >> 16) & 0xff) << 16) |
		(SB((s0 >> 8) & 0xff) << 8) | SB(s1 & 0xff)) ^ rk[42];
	s[3] = ((SB(s3 >> 24) << 24) | (SB((s0 >> 16) & 0xff) << 16) |
		(SB((s1 >> 8) & 0xff) << 8) | SB(s2 & 0xff)) ^ rk[43];
}

/* One thread of an AES kernel: item i of the launch (a block, a packet),
 * lane its lane in the warp. */
typedef void (*aes_thread_fn)(const uint32_t *T, unsigned int lane, const struct kargs *a,
			      uint32_t i);

/* An AES kernel's emulation: threads 0..n-1 in turn, numbered as in the
 * kernel (blocks are a multiple of 32 threads: lane = thread % 32). */
static inline int
aes_emulate(const struct hpk_run *r, uint32_t n, aes_thread_fn thread)
{
	const uint32_t *t0 = hpk_aes_host_t0();

	for (uint32_t i = 0; i < n; i++)
		thread(t0, (i % AES_THREADS) % TCOPIES, &r->a, i);
	return 0;
}

/* The descriptor of an AES kernel, registered as nm: T0 kept on the GPU,
 * AES-128 keys per packet, the data changed in place. */
#define HPK_AES_KERNEL(var, nm, launch_fn, emulate_fn)	\
	static const struct hpk_kernel var = {		\
		.name = nm,				\
		.flags = HPK_KEYED | HPK_OUT_DATA,	\
		.open = hpk_aes_open,			\
		.close = hpk_aes_close,			\
		.launch = launch_fn,			\
		.emulate = emulate_fn,			\
		.key_expand = hpk_aes128_expand,	\
		.result = hpk_result_data,		\
	};						\
	HPK_KERNEL_REGISTER(var)

#ifdef __CUDACC__
/* A block's shared copies of T0 (all threads take part). */
__device__ static inline void
aes_load_t0(uint32_t *T, const uint32_t *__restrict__ t0)
{
	for (uint32_t i = threadIdx.x; i < 256 * TCOPIES; i += blockDim.x)
		T[i] = __ldg(&t0[i / TCOPIES]);
	__syncthreads();
}
#endif

#endif /* HPK_AES_CUH */
