/* SPDX-License-Identifier: BSD-3-Clause
 * Private to hp_nf: the kernel variants compiled for an ISA above the
 * x86-64-v2 baseline and the run-time choice among them (nf_isa.c).
 */
#ifndef NF_PRIV_H
#define NF_PRIV_H

#include "hp_nf.h"

/* HP_NF_ISA_* the kernels use now: the CPU's, found once at load, or
 * fewer after hp_nf_isa_limit(). Read on every call (a load and a test,
 * next to kernels of 10 ns and more), so a limit takes effect at once;
 * hidden, so the -fPIC library loads it without the GOT. */
extern unsigned int hp_nf_isa_on __attribute__((visibility("hidden")));

/* 1 where the CPU's gathers are slow (nf_isa.c's table), and whether
 * hp_nf_md5_mb uses the gather-free transpose now. */
int hp_nf_isa_gather_slow(void);
extern int hp_nf_md5_transpose __attribute__((visibility("hidden")));
/* Multi-buffer MD5 (nf_md5_mb.h), 8 and 16 lanes. */
void hp_nf_md5_mb_avx2(struct hp_nf_md5_job *jobs, unsigned int n);
void hp_nf_md5_mb_avx512(struct hp_nf_md5_job *jobs, unsigned int n);
/* The same with row loads and a register transpose instead of gathers. */
void hp_nf_md5_mb_nogather_avx2(struct hp_nf_md5_job *jobs, unsigned int n);
void hp_nf_md5_mb_nogather_avx512(struct hp_nf_md5_job *jobs, unsigned int n);

/* AES-128 without AES-NI (nf_aes_soft.c). */
void hp_nf_aes_soft_block(const struct hp_nf_aes_key *k, const uint8_t in[16],
			  uint8_t out[16]);
void hp_nf_aes_soft_expand(const uint8_t key[16], struct hp_nf_aes_key *out);
/* Encrypts one job in place (len a multiple of 16). */
void hp_nf_aes_soft_cbc(const struct hp_nf_cbc_job *j);

#endif /* NF_PRIV_H */
