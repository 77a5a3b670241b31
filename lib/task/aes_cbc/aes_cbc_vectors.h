/* SPDX-License-Identifier: BSD-3-Clause
 * Known answers for the aes_cbc task's transform, as hex, for its tests:
 * NIST SP 800-38A F.2.1 (CBC-AES128.Encrypt, four blocks; the key and
 * plaintext are those of every SP 800-38A AES-128 example).
 */
#ifndef AES_CBC_VECTORS_H
#define AES_CBC_VECTORS_H

#define SP800_38A_F21_KEY "2b7e151628aed2a6abf7158809cf4f3c"
#define SP800_38A_F21_IV  "000102030405060708090a0b0c0d0e0f"
#define SP800_38A_F21_PT  "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51" \
			  "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
#define SP800_38A_F21_CT  "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2" \
			  "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"

#endif /* AES_CBC_VECTORS_H */
