/* SPDX-License-Identifier: BSD-3-Clause
 * Run-time choice of the hp_nf kernel variants: the library is compiled
 * for the x86-64-v2 baseline (so it runs on any x86-64 CPU since Nehalem)
 * and its AVX2, AVX-512 and AES-NI variants are used only where the CPU
 * has them, found once before main() runs.
 */
#include "nf_priv.h"

static unsigned int nf_isa_cpu;
static int nf_gather_slow;
unsigned int hp_nf_isa_on;
int hp_nf_md5_transpose;

static void __attribute__((constructor))
nf_isa_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
	/* Needed before libgcc's own constructor may have run. */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("aes"))
		nf_isa_cpu |= HP_NF_ISA_AESNI;
	if (__builtin_cpu_supports("avx2"))
		nf_isa_cpu |= HP_NF_ISA_AVX2;
	if (__builtin_cpu_supports("avx512f"))
		nf_isa_cpu |= HP_NF_ISA_AVX512;
	/* A measured table, not a start-up probe: a probe of a few
	 * microseconds on a shared core picks differently from run to run.
	 * On Zen 4 VPGATHERDD is microcoded and the gather-free MD5 is
	 * faster at every size (bench/results/nf-peer-2026-11-29.md); Intel
	 * keeps the gathers its earlier records were measured with. */
	nf_gather_slow = __builtin_cpu_is("amd");
#endif
	hp_nf_isa_on = nf_isa_cpu;
	hp_nf_md5_transpose = nf_gather_slow;
}

int
hp_nf_isa_gather_slow(void)
{
	return nf_gather_slow;
}

unsigned int
hp_nf_isa(void)
{
	return hp_nf_isa_on;
}

unsigned int
hp_nf_isa_cpu(void)
{
	return nf_isa_cpu;
}

unsigned int
hp_nf_isa_limit(unsigned int mask)
{
	hp_nf_isa_on = nf_isa_cpu & mask;
	return hp_nf_isa_on;
}

const char *
hp_nf_isa_name(unsigned int isa)
{
	static const char *const name[8] = {
		"x86-64-v2", "x86-64-v2+aesni", "avx2", "avx2+aesni",
		"avx512", "avx512+aesni", "avx512", "avx512+aesni",
	};

	return name[isa & 7];
}
