/* SPDX-License-Identifier: BSD-3-Clause
 * AES-128 for the aes_ctr and aes_cbc kernels: T-table rounds (FIPS-197
 * §5.1 as four table lookups per column). Only T0 is stored; T1..T3 are
 * byte rotations of it, and the last round's S-box is a byte of T0. T0 is
 * replicated 32 times in shared memory, entry x of copy k at [x * 32 + k],
 * so lane k of a warp always reads bank k and the data-dependent lookups
 * never conflict (the layout Tezcan, 2021, uses for the published GPU AES
 * high mark). 32 KiB shared memory per block. Cost note: 160 table reads
 * (16 a round) per 16-byte block, and 44 round-key reads (through the
 * read-only cache, one key per flow) shared by the blocks a thread
 * encrypts at once: 11 a block for aes_ctr's 4. Read statically from the
 * sm_90 SASS (not run): about 990 instructions per aes_ctr block, 1,580
 * before (bench/results/gpu-kernels-sm90-2026-11-29.md). The host half is
 * hpk_aes.cu.
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

/* Table addressing: lane's copy of T0 is T + lane, and byte k of a
 * state word goes straight to its byte offset in that copy (x * 128:
 * entry x of copy 0 is word x * TCOPIES) with one shift and one mask,
 * instead of extract, scale and add. */
#define TB(w, k) (*(const uint32_t *)((const uint8_t *)Tl + \
	((k) == 0 ? ((w) << 7) & 0x7f80u : ((w) >> (8 * (k) - 7)) & 0x7f80u)))
#define SB(w, k) ((TB(w, k) >> 16) & 0xff)
static_assert(TCOPIES * 4 == 1 << 7, "TB's shifts assume 32 copies of T0");

/* N blocks through AES-128 at once with one key (N = 1: CBC; 4: CTR's
 * blocks per thread), the rounds interleaved so that each round key is
 * read once for all N and the N lookups of a round overlap. */
template <int N>
HD static inline void
aes_encrypt_n(const uint32_t *T, unsigned int lane, const uint32_t *rk, uint32_t (*s)[4])
{
	const uint32_t *Tl = T + lane;
	uint32_t x[N][4];

HPK_UNROLL
	for (int j = 0; j < N; j++)
HPK_UNROLL
		for (int c = 0; c < 4; c++)
			x[j][c] = s[j][c] ^ rk[c];
	for (int r = 1; r < 10; r++) {
		const uint32_t k0 = rk[4 * r], k1 = rk[4 * r + 1], k2 = rk[4 * r + 2],
			       k3 = rk[4 * r + 3];

HPK_UNROLL
		for (int j = 0; j < N; j++) {
			const uint32_t s0 = x[j][0], s1 = x[j][1], s2 = x[j][2], s3 = x[j][3];

			x[j][0] = TB(s0, 3) ^ ror(TB(s1, 2), 8) ^ ror(TB(s2, 1), 16) ^
				  ror(TB(s3, 0), 24) ^ k0;
			x[j][1] = TB(s1, 3) ^ ror(TB(s2, 2), 8) ^ ror(TB(s3, 1), 16) ^
				  ror(TB(s0, 0), 24) ^ k1;
			x[j][2] = TB(s2, 3) ^ ror(TB(s3, 2), 8) ^ ror(TB(s0, 1), 16) ^
				  ror(TB(s1, 0), 24) ^ k2;
			x[j][3] = TB(s3, 3) ^ ror(TB(s0, 2), 8) ^ ror(TB(s1, 1), 16) ^
				  ror(TB(s2, 0), 24) ^ k3;
		}
	}
HPK_UNROLL
	for (int j = 0; j < N; j++) {
		const uint32_t s0 = x[j][0], s1 = x[j][1], s2 = x[j][2], s3 = x[j][3];

		s[j][0] = ((SB(s0, 3) << 24) | (SB(s1, 2) << 16) | (SB(s2, 1) << 8) | SB(s3, 0)) ^
			  rk[40];
		s[j][1] = ((SB(s1, 3) << 24) | (SB(s2, 2) << 16) | (SB(s3, 1) << 8) | SB(s0, 0)) ^
			  rk[41];
		s[j][2] = ((SB(s2, 3) << 24) | (SB(s3, 2) << 16) | (SB(s0, 1) << 8) | SB(s1, 0)) ^
			  rk[42];
		s[j][3] = ((SB(s3, 3) << 24) | (SB(s0, 2) << 16) | (SB(s1, 1) << 8) | SB(s2, 0)) ^
			  rk[43];
	}
}

/* One block (CBC). */
HD static inline void
aes_encrypt(const uint32_t *T, unsigned int lane, const uint32_t *rk, uint32_t s[4])
{
	aes_encrypt_n<1>(T, lane, rk, (uint32_t (*)[4])s);
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
 * AES-128 keys per packet, the data changed in place; items_fn counts a
 * packet's work items (NULL: one per 16-byte block). */
#define HPK_AES_KERNEL(var, nm, items_fn, launch_fn, emulate_fn)	\
	static const struct hpk_kernel var = {		\
		.name = nm,				\
		.flags = HPK_KEYED | HPK_OUT_DATA,	\
		.items = items_fn,			\
		.open = hpk_aes_open,			\
		.close = hpk_aes_close,			\
		.launch = launch_fn,			\
		.emulate = emulate_fn,			\
		.key_expand = hpk_aes128_expand,	\
		.result = hpk_result_data,		\
	};						\
	HPK_KERNEL_REGISTER(var)

#ifdef __CUDACC__
/* A block's shared copies of T0 (all threads take part; T 16-byte
 * aligned): four copies of an entry per 16-byte store, so a 256-thread
 * block fills its 32 KiB in 8 stores a thread (was 32 word stores, a
 * quarter of the old kernel's instructions per block). */
__device__ static inline void
aes_load_t0(uint32_t *T, const uint32_t *__restrict__ t0)
{
	for (uint32_t i = threadIdx.x; i < 256 * TCOPIES / 4; i += blockDim.x) {
		const uint32_t v = __ldg(&t0[i / (TCOPIES / 4)]);

		((uint4 *)T)[i] = make_uint4(v, v, v, v);
	}
	__syncthreads();
}
#endif

#endif /* HPK_AES_CUH */
