/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU's PDU decoders (smpp_decode_pdu and the compact record's fast
 * path) once per instruction set -- AVX-512BW, AVX2, and the build's own
 * baseline -- and the choice among them when the library loads
 * (__builtin_cpu_supports).  Only the NUL bitmaps that find C-strings use
 * vectors; each instance is the same code (smpp_dec_tmpl.h over
 * smpp_decode.h) compiled with its target attribute, so a build for the
 * baseline x86-64 runs everywhere and still decodes at full speed where
 * the CPU has the wider vectors.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SMPP_X86 1
#endif

#include "smpp.h"
#include "smpp_priv.h"

_Static_assert(sizeof(struct smpp_rec) == 64, "one cache line per record");
_Static_assert(offsetof(struct smpp_rec, flen) + 24 == sizeof(struct smpp_rec),
	       "the fast path writes flen..rsv in three 8-octet stores");

/* A window [base, base + n) of the PDU, n <= 64, with its NUL bitmap. */
struct nulwin {
	uint32_t base, n;
	uint64_t mask;
};

/* First NUL at or after body offset p (< 128) in a 128-octet NUL bitmap;
 * 128 when there is none. */
static inline uint32_t
nul_from(uint64_t m0, uint64_t m1, uint32_t p)
{
	if (p < 64) {
		uint64_t s = m0 >> p;

		if (s != 0)
			return p + (uint32_t)__builtin_ctzll(s);
		return m1 != 0 ? 64 + (uint32_t)__builtin_ctzll(m1) : 128;
	}
	m1 >>= p - 64;
	return m1 != 0 ? p + (uint32_t)__builtin_ctzll(m1) : 128;
}

/* submit_sm / deliver_sm (v3.4 4.4.1, 4.6.1): fields 0, 3, 6 (C-strings)
 * and 10, 11 (times) carry a NUL; test_smpp_batch checks this against the
 * table. */
#define SM_NUL_MASK 0xC49u

/* The fast path's record of a good submit_sm / deliver_sm: lengths
 * [st,1,1,src,1,1,dst,1 | 1,1,sched,valid,1,1,1,1 | 1,smlen], then
 * nfields 18, list_idx none, rsv 0. */
static inline __attribute__((always_inline)) void
rec_good(struct smpp_rec *r, const uint8_t *b, uint32_t len, uint32_t id, unsigned nt,
	 uint32_t area, uint32_t l0, uint32_t l3, uint32_t l6, uint32_t l10, uint32_t l11,
	 uint32_t smlen)
{
	uint64_t w0 = UINT64_C(0x0100010100010100) | l0 | (uint64_t)l3 << 24 |
		      (uint64_t)l6 << 48;
	uint64_t w1 = UINT64_C(0x0101010100000101) | (uint64_t)l10 << 16 |
		      (uint64_t)l11 << 24;
	uint64_t w2 = UINT64_C(0x00000000ff120001) | (uint64_t)smlen << 8;
	/* the 24 octets from flen to the record's end */
	uint8_t *q = (uint8_t *)r + offsetof(struct smpp_rec, flen);

	r->len = len;
	r->command_id = id;
	r->command_status = smpp_rd32(b + 8);
	r->sequence_number = smpp_rd32(b + 12);
	r->error_off = 0;
	r->error = ESME_ROK;
	r->ntlv = (uint16_t)nt;
	r->tlv_area_off = (uint16_t)area;
	r->list_len = 0;
	r->nul_mask = SM_NUL_MASK;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(q, &w0, 8);
	memcpy(q + 8, &w1, 8);
	memcpy(q + 16, &w2, 8);
#else
	for (unsigned i = 0; i < 8; i++) {
		q[i] = (uint8_t)(w0 >> (8 * i));
		q[8 + i] = (uint8_t)(w1 >> (8 * i));
		q[16 + i] = (uint8_t)(w2 >> (8 * i));
	}
#endif
}

/* Without masked loads a window cannot stop at the PDU's end. */
static inline int
nul_tail_none(const uint8_t *p, uint32_t n, uint64_t *m)
{
	(void)p;
	(void)n;
	(void)m;
	return -1;
}

/* ---- the build's baseline: SSE2 on x86-64, bytes elsewhere -------------- */

#define KT
#define KN(x) generic_##x

static inline uint64_t
generic_nul64(const uint8_t *p)
{
#if defined(__SSE2__)
	__m128i z = _mm_setzero_si128();
	uint64_t m = 0;

	for (unsigned i = 0; i < 4; i++)
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)(p + 16 * i)), z)) << (16 * i);
	return m;
#else
	uint64_t m = 0;

	for (unsigned i = 0; i < 64; i++)
		m |= (uint64_t)(p[i] == 0) << i;
	return m;
#endif
}

#define generic_nul_tail nul_tail_none

#include "smpp_dec_tmpl.h"
#undef KT
#undef KN

#if SMPP_X86
/* ---- AVX2 (x86-64-v3's BMI1/2 too: tzcnt, shifts without flags) -------- */

#define KT __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define KN(x) avx2_bmi2_##x

static inline KT uint64_t
avx2_bmi2_nul64(const uint8_t *p)
{
	__m256i z = _mm256_setzero_si256();
	uint64_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
		_mm256_loadu_si256((const __m256i *)p), z));
	uint64_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
		_mm256_loadu_si256((const __m256i *)(p + 32)), z));

	return hi << 32 | lo;
}

#define avx2_bmi2_nul_tail nul_tail_none

#include "smpp_dec_tmpl.h"
#undef KT
#undef KN

/* ---- AVX-512BW: one compare per 64 octets, masked near the PDU's end ---- */

#define KT __attribute__((target("avx512f,avx512bw,avx2,bmi,bmi2,popcnt")))
#define KN(x) avx512bw_bmi2_##x

static inline KT uint64_t
avx512bw_bmi2_nul64(const uint8_t *p)
{
	return _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(p), _mm512_setzero_si512());
}

/* A masked load does not touch the octets it leaves out. */
static inline KT int
avx512bw_bmi2_nul_tail(const uint8_t *p, uint32_t n, uint64_t *m)
{
	__mmask64 k = (UINT64_C(1) << n) - 1;

	*m = _mm512_cmpeq_epi8_mask(_mm512_maskz_loadu_epi8(k, p), _mm512_setzero_si512()) & k;
	return 0;
}

#include "smpp_dec_tmpl.h"
#undef KT
#undef KN
#endif /* SMPP_X86 */

/* ---- the choice --------------------------------------------------------- */

/* Best first. */
static const struct smpp_dec_isa isas[] = {
#if SMPP_X86
	{ "avx512", avx512bw_bmi2_decode_pdu, avx512bw_bmi2_decode_rec },
	{ "avx2", avx2_bmi2_decode_pdu, avx2_bmi2_decode_rec },
#endif
	{ "generic", generic_decode_pdu, generic_decode_rec },
};

/* The baseline until the constructor has looked at the CPU: correct for
 * any caller that runs before it. */
struct smpp_dec_isa smpp_dec = { "generic", generic_decode_pdu, generic_decode_rec };

static int
isa_runs(const struct smpp_dec_isa *i)
{
#if SMPP_X86
	int v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
		 __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");

	if (strcmp(i->name, "avx512") == 0)
		return v3 && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512bw");
	if (strcmp(i->name, "avx2") == 0)
		return v3;
#endif
	return strcmp(i->name, "generic") == 0;
}

int
smpp_dec_isa_select(const char *name)
{
	for (unsigned k = 0; k < sizeof(isas) / sizeof(isas[0]); k++) {
		if (strcmp(isas[k].name, name) != 0)
			continue;
		if (!isa_runs(&isas[k]))
			return -ENOTSUP;
		smpp_dec = isas[k];
		return 0;
	}
	return -ENOENT;
}

__attribute__((constructor)) static void
smpp_dec_isa_init(void)
{
#if SMPP_X86
	/* constructors may run before libgcc's own CPU probe */
	__builtin_cpu_init();
#endif
	for (unsigned k = 0; k < sizeof(isas) / sizeof(isas[0]); k++) {
		if (isa_runs(&isas[k])) {
			smpp_dec = isas[k];
			return;
		}
	}
}
