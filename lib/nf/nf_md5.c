/* SPDX-License-Identifier: BSD-3-Clause
 * MD5 for the dedup app: the OpenSSL EVP reference and an own
 * multi-buffer MD5 that hashes one message per 32-bit SIMD lane (16 lanes
 * with AVX-512F, 8 with AVX2; nf_md5_mb.h, picked at run time). MD5 is a
 * serial chain inside one message, so, like CBC, it only gets faster by
 * hashing several messages at once. intel-ipsec-mb has multi-buffer MD5
 * only inside HMAC-MD5 (its inner hash covers the ipad block, so it cannot
 * produce a plain MD5; bench/tasks measures its HMAC-MD5 beside this).
 * Each ISA variant comes with gather loads and with a gather-free
 * transpose; hp_nf_md5_mb_loads picks one (nf_isa.c's table by default).
 */
#include <errno.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "nf_priv.h"

int
hp_nf_md5_ref(const uint8_t *data, size_t len, uint8_t digest[16])
{
	unsigned int dl = 0;

	if (EVP_Digest(data, len, digest, &dl, EVP_md5(), NULL) != 1 || dl != 16)
		return -EIO;
	return 0;
}

unsigned int
hp_nf_md5_mb_lanes(void)
{
	return hp_nf_isa_on & HP_NF_ISA_AVX512 ? 16 :
	       hp_nf_isa_on & HP_NF_ISA_AVX2 ? 8 : 0;
}

enum hp_nf_md5_loads
hp_nf_md5_mb_loads(enum hp_nf_md5_loads mode)
{
	if (mode == HP_NF_MD5_LOADS_AUTO)
		hp_nf_md5_transpose = hp_nf_isa_gather_slow();
	else
		hp_nf_md5_transpose = mode == HP_NF_MD5_LOADS_TRANSPOSE;
	return hp_nf_md5_transpose ? HP_NF_MD5_LOADS_TRANSPOSE :
				     HP_NF_MD5_LOADS_GATHER;
}

const char *
hp_nf_md5_mb_name(void)
{
	int t = hp_nf_md5_transpose;

	if (hp_nf_isa_on & HP_NF_ISA_AVX512)
		return t ? "own-avx512-nogather" : "own-avx512-gather";
	if (hp_nf_isa_on & HP_NF_ISA_AVX2)
		return t ? "own-avx2-nogather" : "own-avx2-gather";
	return "openssl";
}

void
hp_nf_md5_mb(struct hp_nf_md5_job *jobs, unsigned int n)
{
	if (hp_nf_isa_on & HP_NF_ISA_AVX512) {
		if (hp_nf_md5_transpose)
			hp_nf_md5_mb_nogather_avx512(jobs, n);
		else
			hp_nf_md5_mb_avx512(jobs, n);
	} else if (hp_nf_isa_on & HP_NF_ISA_AVX2) {
		if (hp_nf_md5_transpose)
			hp_nf_md5_mb_nogather_avx2(jobs, n);
		else
			hp_nf_md5_mb_avx2(jobs, n);
	} else {
		/* No SIMD lanes: the reference per message. */
		for (unsigned int i = 0; i < n; i++)
			hp_nf_md5_ref(jobs[i].data, jobs[i].len, jobs[i].digest);
	}
}
