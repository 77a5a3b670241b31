/* SPDX-License-Identifier: BSD-3-Clause
 * heteroplane network-function kernels (library hp_nf): AES-128-CBC,
 * MD5 and multi-pattern DPI as batch functions over plain byte buffers.
 * Nothing here needs DPDK or its EAL: the task glue (lib/task/aes_cbc, md5, dpi), the
 * hp-nf tool, the unit tests and the benchmarks all call these functions,
 * and a GPU device can reuse them as its verification reference.
 * See docs/nf.md for formats and the key/IV/padding definition.
 */
#ifndef HP_NF_H
#define HP_NF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ==================================================================== ISA */

/* The library is compiled for the x86-64-v2 baseline; its kernels that
 * gain from newer instructions carry variants, and the widest one the CPU
 * has is picked once at load: multi-buffer MD5 with AVX-512F (16 lanes) or
 * AVX2 (8 lanes), else OpenSSL; hp_nf_aes_block() with AES-NI, else a
 * table-driven AES; the DFA walks with AVX2 or the baseline. The CBC
 * engine is intel-ipsec-mb, which picks its own code (hp_nf_cbc_arch()),
 * or without AES-NI, where the distribution's ipsec-mb has no software
 * AES, the same table-driven AES ("scalar"). Hyperscan's fat runtime
 * picks its own code too. */
#define HP_NF_ISA_AESNI  (1u << 0)
#define HP_NF_ISA_AVX2   (1u << 1)
#define HP_NF_ISA_AVX512 (1u << 2) /* AVX-512F */
#define HP_NF_ISA_ALL    (~0u)

/* HP_NF_ISA_* features the kernels use now. */
unsigned int hp_nf_isa(void);
/* HP_NF_ISA_* features of this CPU that some kernel can use. */
unsigned int hp_nf_isa_cpu(void);
/* Lets the kernels use only the features in mask (and the CPU's): for
 * tests and side-by-side measurements. Returns the features now in use.
 * Set it while no kernel runs; CBC engines created before keep theirs. */
unsigned int hp_nf_isa_limit(unsigned int mask);
/* "avx2+aesni", "x86-64-v2", ...: the name of a feature mask, for logs. */
const char *hp_nf_isa_name(unsigned int isa);

/* ================================================================ AES-CBC */

#define HP_NF_AES_BLOCK 16

/* AES-128 round keys (11 x 16 bytes) in the layout of intel-ipsec-mb and
 * of AES-NI; aligned because ipsec-mb loads them with aligned moves. */
struct hp_nf_aes_key {
	uint8_t enc[11 * 16] __attribute__((aligned(16)));
	uint8_t dec[11 * 16] __attribute__((aligned(16)));
};

/* One buffer to encrypt in place: len must be a multiple of 16 (pad first
 * with hp_nf_cbc_pad()). */
struct hp_nf_cbc_job {
	uint8_t *buf;
	uint32_t len;
	const struct hp_nf_aes_key *key;
	const uint8_t *iv; /* 16 bytes */
};

/* Multi-buffer engine (an intel-ipsec-mb manager); one per thread. */
struct hp_nf_cbc;

int hp_nf_cbc_create(struct hp_nf_cbc **out);
void hp_nf_cbc_free(struct hp_nf_cbc *c);
/* Name of the SIMD architecture ipsec-mb picked ("avx512", "avx2", ...),
 * or "scalar" for the own AES without AES-NI. */
const char *hp_nf_cbc_arch(const struct hp_nf_cbc *c);
void hp_nf_cbc_expand(struct hp_nf_cbc *c, const uint8_t key[16],
		      struct hp_nf_aes_key *out);
/* Encrypts n jobs with ipsec-mb's cipher burst API (several buffers in
 * the lanes of one SIMD register). 0 or -EINVAL (bad length). */
int hp_nf_cbc_encrypt_burst(struct hp_nf_cbc *c, struct hp_nf_cbc_job *jobs,
			    unsigned int n);

/* AES-128-CTR of n jobs in place with the same manager (any len; iv is
 * the first 16-byte counter block, incremented per block as a big-endian
 * number, as OpenSSL's EVP_aes_128_ctr does while the low 32 bits do not
 * carry). 0, -ENOTSUP without a manager (no AES-NI: the caller keeps
 * OpenSSL), or -EIO. */
int hp_nf_ctr_encrypt_burst(struct hp_nf_cbc *c, const struct hp_nf_cbc_job *jobs,
			    unsigned int n);

/* PKCS#7: appends 1..16 bytes of value p so the length becomes a multiple
 * of 16 (a full block when it already is). buf needs len + 16 bytes of
 * room. Returns the new length. */
uint32_t hp_nf_cbc_pad(uint8_t *buf, uint32_t len);
/* Checks and strips PKCS#7 padding: 0 and *out_len, or -EBADMSG. */
int hp_nf_cbc_unpad(const uint8_t *buf, uint32_t len, uint32_t *out_len);

/* The 16-byte block that names a flow for key derivation:
 * "CB1" | src ip | dst ip | src port | dst port | proto
 * (addresses and ports in network byte order as found in the headers). */
void hp_nf_cbc_flow_block(const uint8_t sip[4], const uint8_t dip[4],
			  const uint8_t sport[2], const uint8_t dport[2],
			  uint8_t proto, uint8_t out[16]);
/* Per-packet IV input block: "CBIV" | 8 zero bytes | seq (big endian). */
void hp_nf_cbc_seq_block(uint32_t seq, uint8_t out[16]);
/* One AES-128 block with expanded keys (used for the key and IV
 * derivation on the fast path): AES-NI, or without it a table-driven AES
 * that gives the same bytes at ~15x the time. */
void hp_nf_aes_block(const struct hp_nf_aes_key *k, const uint8_t in[16],
		     uint8_t out[16]);

/* OpenSSL EVP reference: derives K_flow = AES_Kmaster(flow_block) and
 * IV = AES_Kflow(seq_block), the definition in docs/nf.md. 0 or -EIO. */
int hp_nf_cbc_derive_ref(const uint8_t master[16], const uint8_t flow_block[16],
			 uint32_t seq, uint8_t key[16], uint8_t iv[16]);
/* OpenSSL EVP AES-128-CBC without padding over len (multiple of 16)
 * bytes in place. enc = 1 encrypts, 0 decrypts. 0 or -EINVAL/-EIO. */
int hp_nf_cbc_evp(const uint8_t key[16], const uint8_t iv[16], uint8_t *buf,
		  uint32_t len, int enc);

/* ==================================================================== MD5 */

struct hp_nf_md5_job {
	const uint8_t *data;
	uint32_t len;
	uint8_t *digest; /* 16 bytes out */
};

/* OpenSSL EVP MD5 of one buffer (reference and single-packet path). */
int hp_nf_md5_ref(const uint8_t *data, size_t len, uint8_t digest[16]);
/* Number of SIMD lanes of the multi-buffer MD5 (16 with AVX-512F, 8 with
 * AVX2; 0 on a CPU with neither: hp_nf_md5_mb then loops OpenSSL). */
unsigned int hp_nf_md5_mb_lanes(void);
/* Own multi-buffer MD5: one message per 32-bit SIMD lane; a lane that
 * finishes takes the next message, so unequal lengths share the lanes. */
void hp_nf_md5_mb(struct hp_nf_md5_job *jobs, unsigned int n);
/* How hp_nf_md5_mb loads the message words into the lanes: with gathers,
 * or with row loads and a register transpose. AUTO (the default) takes the
 * measured table in nf_isa.c: transpose on AMD (Zen's gathers are slow),
 * gathers elsewhere. Returns the mode now in effect (never AUTO). */
enum hp_nf_md5_loads {
	HP_NF_MD5_LOADS_AUTO,
	HP_NF_MD5_LOADS_GATHER,
	HP_NF_MD5_LOADS_TRANSPOSE,
};
enum hp_nf_md5_loads hp_nf_md5_mb_loads(enum hp_nf_md5_loads mode);
/* The kernel hp_nf_md5_mb runs now, e.g. "own-avx512-nogather",
 * "own-avx2-gather" or "openssl" (no SIMD lanes). */
const char *hp_nf_md5_mb_name(void);

/* ==================================================================== DPI */

#define HP_NF_PAT_MAXLEN 255     /* longest pattern in bytes */
#define HP_NF_PAT_MAX    1000000 /* most patterns in one set */
#define HP_NF_NO_MATCH   UINT32_MAX

/* A pattern set: pattern i has id i (its 0-based index in file order). */
struct hp_nf_patset {
	uint32_t n;
	uint32_t cap;
	uint8_t **pat;
	uint16_t *len;
};

/* Result for one buffer. count = number of (pattern id, end offset) pairs
 * at which a pattern occurs (overlaps and repeats count); first = id of the
 * first match: smallest end offset, then smallest id; HP_NF_NO_MATCH when
 * count is 0. */
struct hp_nf_dpi_res {
	uint32_t count;
	uint32_t first;
};

struct hp_nf_patset *hp_nf_patset_new(void);
void hp_nf_patset_free(struct hp_nf_patset *ps);
int hp_nf_patset_add(struct hp_nf_patset *ps, const uint8_t *p, uint16_t len);
/* Parses Snort-style content lines (see docs/nf.md): raw bytes, |hex hex|
 * escapes, \\ \| \" \; escapes; blank lines and lines starting with '#'
 * are skipped. On error returns -EINVAL (-ENOMEM) and writes one line
 * "<name>:<line>: <reason>" into err. */
int hp_nf_patset_parse(struct hp_nf_patset *ps, const char *buf, size_t len,
		       const char *name, char *err, size_t errlen);
int hp_nf_patset_load(const char *path, struct hp_nf_patset **out, char *err,
		      size_t errlen);
/* Writes the set in the same format (printable bytes raw, others |hex|). */
int hp_nf_patset_write(const struct hp_nf_patset *ps, FILE *f);
/* Deterministic Snort-like set of n distinct patterns (see docs/nf.md). */
int hp_nf_patset_generate(uint64_t seed, uint32_t n, struct hp_nf_patset **out);
/* Fills buf with background bytes and, with probability p_match, copies
 * one pattern of ps to a random position. Returns 1 if it inserted one.
 * Deterministic in *seed. */
int hp_nf_traffic_fill(const struct hp_nf_patset *ps, uint64_t *seed,
		       uint8_t *buf, uint32_t len, double p_match);

/* --- own Aho-Corasick, compiled to a dense DFA over byte classes --- */
struct hp_nf_ac;

/* The DFA in the flat form a GPU kernel walks. Every state has one
 * transition per byte (no failure loops at scan time), stored compactly
 * in one entry table tab[]. In an Aho-Corasick DFA every transition into
 * a state s is on the same byte a (the last byte of its string), and s
 * almost always moves on byte b exactly as the depth-1 state "a" does, so
 *   tab[a * 256 + b]          = delta("a", b) (rows 0..255; the root's row
 *                               where no pattern starts with a)
 *   tab[256 * 256 + b]        = delta(root, b) (row 256: before the first
 *                               byte, "a" = 256)
 *   st[s].keys[0..11]         bytes on which s differs from row a (unused
 *                               slots repeat keys[0]),
 *   tab[st[s].off + i]        and the entry for keys[i].
 * A state with more than HP_NF_AC_SPARSE differences has a dense row of
 * its own: st[s].off = HP_NF_AC_OWNROW | row offset, keys unused.
 * One step on byte b after byte a (16-byte state, SSE2 compare, cmov):
 *   own = off & OWNROW; i = first key == b (none if own);
 *   e = tab[i found ? off + i : (own ? off & ~OWNROW : a * 256) + b]
 * An entry is the next state's index, | HP_NF_AC_MATCH when that state
 * reports matches: out_count[state] of them, the smallest id being
 * out_first[state].
 */
#define HP_NF_AC_MATCH  0x80000000u
#define HP_NF_AC_OWNROW 0x80000000u
#define HP_NF_AC_SPARSE 12
struct hp_nf_ac_state {
	uint8_t keys[HP_NF_AC_SPARSE];
	uint32_t off;
};

struct hp_nf_ac_dfa {
	uint32_t n_states;
	uint32_t n_dense;  /* states with a dense row of their own */
	uint32_t tab_len;
	const struct hp_nf_ac_state *st;
	const uint32_t *tab;
	const uint32_t *out_count;
	const uint32_t *out_first;
};

int hp_nf_ac_build(const struct hp_nf_patset *ps, struct hp_nf_ac **out);
void hp_nf_ac_free(struct hp_nf_ac *ac);
const struct hp_nf_ac_dfa *hp_nf_ac_dfa(const struct hp_nf_ac *ac);
size_t hp_nf_ac_mem(const struct hp_nf_ac *ac);
/* DFA walk of one buffer. */
void hp_nf_ac_scan(const struct hp_nf_ac *ac, const uint8_t *data,
		   uint32_t len, struct hp_nf_dpi_res *res);
/* DFA walk of n buffers, several interleaved so that the table loads of
 * one hide the latency of the others. */
void hp_nf_ac_scan_batch(const struct hp_nf_ac *ac, const uint8_t *const *data,
			 const uint32_t *len, unsigned int n,
			 struct hp_nf_dpi_res *res);
/* Walk of the goto/failure automaton (the trie before DFA compilation):
 * a second, slower implementation kept as a cross-check. */
void hp_nf_ac_scan_nfa(const struct hp_nf_ac *ac, const uint8_t *data,
		       uint32_t len, struct hp_nf_dpi_res *res);

/* --- Hyperscan (literal API) --- */
struct hp_nf_hs;
struct hp_nf_hs_scratch;

/* 1 when built with Hyperscan. The functions below return -ENOTSUP
 * otherwise. */
int hp_nf_hs_available(void);
int hp_nf_hs_build(const struct hp_nf_patset *ps, struct hp_nf_hs **out,
		   char *err, size_t errlen);
void hp_nf_hs_free(struct hp_nf_hs *hs);
int hp_nf_hs_scratch_alloc(const struct hp_nf_hs *hs,
			   struct hp_nf_hs_scratch **out);
void hp_nf_hs_scratch_free(struct hp_nf_hs_scratch *s);
int hp_nf_hs_scan(const struct hp_nf_hs *hs, struct hp_nf_hs_scratch *s,
		  const uint8_t *data, uint32_t len, struct hp_nf_dpi_res *res);

#endif /* HP_NF_H */
