/* SPDX-License-Identifier: BSD-3-Clause
 * Known answers for the aes_ctr task's transform, as hex, for its tests:
 * FIPS-197 Appendix C.1 (one AES-128 block) and NIST SP 800-38A F.5.1
 * (CTR-AES128.Encrypt, four blocks).
 */
#ifndef AES_CTR_VECTORS_H
#define AES_CTR_VECTORS_H

#define FIPS197_C1_KEY "000102030405060708090a0b0c0d0e0f"
#define FIPS197_C1_PT  "00112233445566778899aabbccddeeff"
#define FIPS197_C1_CT  "69c4e0d86a7b0430d8cdb78070b4c55a"

#define SP800_38A_KEY  "2b7e151628aed2a6abf7158809cf4f3c"
#define SP800_38A_PT   "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51" \
		       "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
#define SP800_38A_F51_CTR "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
#define SP800_38A_F51_CT  "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff" \
			  "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"

#endif /* AES_CTR_VECTORS_H */
