/* SPDX-License-Identifier: BSD-3-Clause
 * AES-128-CTR primitives behind the aes_ctr task, exposed for tests and
 * benches: the EVP path the task runs and the ECB-based reference path the
 * sink verifies with.
 */
#ifndef HP_AES_CTR_H
#define HP_AES_CTR_H

#include <stdint.h>

int hp_aes_ctr_evp(const uint8_t key[16], const uint8_t iv[16], uint8_t *buf,
		   uint32_t len);
int hp_aes_ctr_ref(const uint8_t key[16], const uint8_t iv[16], uint8_t *buf,
		   uint32_t len);

#endif /* HP_AES_CTR_H */
