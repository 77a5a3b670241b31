/* SPDX-License-Identifier: BSD-3-Clause
 * heteroplane LDPC block: quasi-cyclic LDPC codes (IEEE 802.11n n=648/1296/
 * 1944, rates 1/2..5/6; 5G NR base graphs 1 and 2 with every lifting size),
 * a systematic encoder and a layered min-sum decoder on int8 LLRs that
 * decodes several codewords at once with AVX-512BW, AVX2 or scalar code
 * chosen at run time. Independent of DPDK: the pipeline task lives in
 * lib/task/ldpc/.
 *
 * Conventions: bits are one per byte (0 or 1); an LLR is log(P(0)/P(1)),
 * so a positive LLR means bit 0. Functions return 0 (or a count) on
 * success and a negative errno on failure.
 */
#ifndef HP_LDPC_H
#define HP_LDPC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hp_ldpc_code;

enum hp_ldpc_family {
	HP_LDPC_WIFI = 1,  /* IEEE 802.11n/ac (802.11-2012 Annex F) */
	HP_LDPC_NR = 2,    /* 3GPP TS 38.212 5.3.2 base graphs */
};

/*
 * Builds a code from a spec string:
 *   "wifi:<n>:<rate>"  n in {648,1296,1944}, rate in {1/2,2/3,3/4,5/6}
 *   "nr:<bg>:<Z>"      bg in {1,2}, Z any lifting size of Table 5.3.2-1
 * NR codes are the mother codes: the first 2Z systematic bits are
 * punctured (not transmitted), so BG1 has rate 22/66 = 1/3 and BG2 10/50.
 * Returns 0, -EINVAL for a malformed or unknown spec, -ENOMEM.
 */
int hp_ldpc_code_create(const char *spec, struct hp_ldpc_code **out);
void hp_ldpc_code_free(struct hp_ldpc_code *c);

/* The spec string, normalised ("wifi:1944:1/2", "nr:1:384"). */
const char *hp_ldpc_code_name(const struct hp_ldpc_code *c);
/* Information bits per codeword. */
unsigned int hp_ldpc_code_k(const struct hp_ldpc_code *c);
/* Transmitted codeword length (what the decoder takes as LLRs). */
unsigned int hp_ldpc_code_n(const struct hp_ldpc_code *c);
/* Full (lifted) codeword length, punctured bits included: cols * z. */
unsigned int hp_ldpc_code_n_full(const struct hp_ldpc_code *c);
/* Leading bits of the full codeword that are not transmitted. */
unsigned int hp_ldpc_code_punct(const struct hp_ldpc_code *c);
unsigned int hp_ldpc_code_z(const struct hp_ldpc_code *c);
unsigned int hp_ldpc_code_rows(const struct hp_ldpc_code *c);
unsigned int hp_ldpc_code_cols(const struct hp_ldpc_code *c);
/* Nonzero blocks in the base matrix (edges = nnz * z). */
unsigned int hp_ldpc_code_nnz(const struct hp_ldpc_code *c);
/* The i-th nonzero block (row-major order): its row, column and lifted
 * shift (already reduced mod z). -EINVAL when i >= nnz. */
int hp_ldpc_code_entry(const struct hp_ldpc_code *c, unsigned int i,
		       unsigned int *row, unsigned int *col,
		       unsigned int *shift);

/*
 * Systematic encoding: info (k bits) -> cw (n_full bits; the first k are
 * the info bits, punctured ones included). Returns 0 or -EINVAL.
 */
int hp_ldpc_encode(const struct hp_ldpc_code *c, const uint8_t *info,
		   uint8_t *cw);
/* Number of unsatisfied parity checks of a full codeword (0 = codeword). */
int hp_ldpc_syndrome(const struct hp_ldpc_code *c, const uint8_t *cw);

enum hp_ldpc_alg {
	HP_LDPC_NMS = 0,   /* normalised min-sum: m * (1 - 2^-nms_shift) */
	HP_LDPC_OMS = 1,   /* offset min-sum: max(m - oms_offset, 0) */
};

enum hp_ldpc_isa {
	HP_LDPC_ISA_AUTO = 0,
	HP_LDPC_ISA_SCALAR,
	HP_LDPC_ISA_AVX2,
	HP_LDPC_ISA_AVX512,
};

/*
 * How a decoder spreads its SIMD lanes. BATCH: one codeword per lane (64
 * per AVX-512 batch, 32 AVX2), the most throughput, but a call with one
 * codeword costs a whole batch (NR BG1 Z=384, 5 iterations: ~4 ms).
 * SINGLE: the lanes over the z check nodes of a base row, one codeword
 * at a time, for latency. Both give bit-identical words and results.
 */
enum hp_ldpc_mode {
	HP_LDPC_MODE_BATCH = 0,
	HP_LDPC_MODE_SINGLE,
};

struct hp_ldpc_dec_cfg {
	unsigned int max_iter;     /* >= 1 */
	enum hp_ldpc_alg alg;
	unsigned int nms_shift;    /* 1..7; 2 gives the factor 0.75 */
	unsigned int oms_offset;   /* in LLR quantisation steps, 0..15 */
	enum hp_ldpc_isa isa;      /* AUTO picks the widest the CPU has */
	int no_early_stop;         /* 1: always run max_iter iterations */
	enum hp_ldpc_mode mode;    /* initial mode (hp_ldpc_dec_set_mode) */
};

/* Per-codeword outcome. */
struct hp_ldpc_result {
	uint8_t ok;      /* 1 when the decoded word satisfies every check */
	uint8_t iters;   /* iterations run until then (max_iter if not ok) */
};

struct hp_ldpc_dec;

/* Fills cfg with the defaults: 10 iterations, OMS offset 2, auto ISA. */
void hp_ldpc_dec_cfg_default(struct hp_ldpc_dec_cfg *cfg);
/* -EINVAL for a bad cfg (zero iterations, shift out of range),
 * -ENOTSUP when the requested ISA is not available on this CPU. */
int hp_ldpc_dec_create(const struct hp_ldpc_code *c,
		       const struct hp_ldpc_dec_cfg *cfg,
		       struct hp_ldpc_dec **out);
void hp_ldpc_dec_free(struct hp_ldpc_dec *d);
/* Codewords decoded side by side (SIMD lanes): 64, 32 or 1. */
unsigned int hp_ldpc_dec_lanes(const struct hp_ldpc_dec *d);
const char *hp_ldpc_dec_isa(const struct hp_ldpc_dec *d);
const struct hp_ldpc_code *hp_ldpc_dec_code(const struct hp_ldpc_dec *d);
/* Mode of the next decode calls (a decoder holds the buffers of both);
 * -EINVAL for an unknown mode. */
int hp_ldpc_dec_set_mode(struct hp_ldpc_dec *d, enum hp_ldpc_mode mode);
enum hp_ldpc_mode hp_ldpc_dec_mode(const struct hp_ldpc_dec *d);
/*
 * Cost model for choosing the mode per call: measured time of one
 * iteration (no early stop) of one codeword in the single mode and of one
 * full batch of `lanes` codewords in the batch mode, best of a few runs.
 */
struct hp_ldpc_costs {
	double single_ns;
	double batch_ns;
	unsigned int lanes;
};
/* Measures the costs of cfg's kernel (cfg->isa) on this CPU: a few ms
 * (NR BG1 Z=384 with AVX-512: ~6 ms). -errno as hp_ldpc_dec_create. */
int hp_ldpc_costs_probe(const struct hp_ldpc_code *c,
			const struct hp_ldpc_dec_cfg *cfg,
			struct hp_ldpc_costs *out);
/* Estimated time of a call with m codewords at the worst case of iters
 * iterations: single m * iters * single_ns, batch ceil(m / lanes) *
 * iters * batch_ns. */
double hp_ldpc_mode_est(const struct hp_ldpc_costs *k, enum hp_ldpc_mode mode,
			unsigned int m, unsigned int iters);
/* The mode that finishes m codewords first by that estimate (single on a
 * tie). As a call returns all its codewords together, the faster mode is
 * also the one that costs less CPU. */
enum hp_ldpc_mode hp_ldpc_mode_pick(const struct hp_ldpc_costs *k, unsigned int m,
				    unsigned int iters);
/* Whether an ISA can run on this CPU. */
int hp_ldpc_isa_supported(enum hp_ldpc_isa isa);

/*
 * Decodes n_cw codewords. llr holds n_cw blocks of llr_len int8 LLRs, one
 * per transmitted bit; llr_len must equal hp_ldpc_code_n() (else
 * -EINVAL). Decoded information bits go to info (n_cw * k bytes, 0/1);
 * res (may be NULL) gets one entry per codeword. Returns the number of
 * codewords that decoded to a valid codeword, or a negative errno.
 * Not thread-safe per decoder: use one decoder per thread.
 */
int hp_ldpc_decode(struct hp_ldpc_dec *d, const int8_t *llr, size_t llr_len,
		   unsigned int n_cw, uint8_t *info,
		   struct hp_ldpc_result *res);

/* As hp_ldpc_decode, but cw gets all n_full hard decisions of each
 * codeword (n_cw * hp_ldpc_code_n_full() bytes, punctured bits
 * included): for a decoded word, the codeword itself, so no re-encoding
 * is needed to compare it with what was received. */
int hp_ldpc_decode_hard(struct hp_ldpc_dec *d, const int8_t *llr,
			size_t llr_len, unsigned int n_cw, uint8_t *cw,
			struct hp_ldpc_result *res);

/* Packs nbits bits (one per byte) into bytes, MSB first; and back. */
void hp_ldpc_pack(const uint8_t *bits, unsigned int nbits, uint8_t *bytes);
void hp_ldpc_unpack(const uint8_t *bytes, unsigned int nbits, uint8_t *bits);

/*
 * Packet units of the `ran` app (thesis 4.3: 243-byte units, one 802.11n
 * n=1944 R=1/2 codeword each; other codes work the same way). A received
 * unit is the hard decisions (the sign of each LLR, i.e. LLRs quantised
 * to one bit) of the n transmitted bits of one codeword, packed MSB
 * first into L = ceil(n/8) bytes. A decoded unit has the same length:
 *   bytes 0..B-1   the k info bits, packed MSB first (pad bits 0),
 *                  B = ceil(k/8)
 *   byte  B        F, the number of received bits the decoder flipped
 *   bytes B+1..    F big-endian uint16 transmitted-bit positions,
 *                  ascending; zeros to the end
 * so the received unit can be rebuilt exactly (encode, then flip), which
 * is what the sink's verification does. F <= the code's max_flip =
 * min(255, (L - B - 1) / 2): 60 for the thesis unit (243 bytes).
 */
#define HP_LDPC_UNIT_CODE "wifi:1944:1/2"
#define HP_LDPC_UNIT_LEN 243
#define HP_LDPC_UNIT_MAXFLIP 60
/* LLR magnitude given to a hard decision, in quantisation steps. */
#define HP_LDPC_UNIT_LLR 16
/* Largest full codeword length a unit code may have (nr:1:384). */
#define HP_LDPC_UNIT_MAXBITS 26112

/* Unit length in bytes and the most flips a decoded unit lists; -EINVAL
 * when the code leaves no room for a flip list (e.g. high rates of the
 * short 802.11n codes). */
int hp_ldpc_unit_geom(const struct hp_ldpc_code *c, unsigned int *len,
		      unsigned int *max_flip);
/* Makes a received unit: random info bits from seed, encoded, nflips
 * distinct transmitted bits flipped (nflips <= n). 0 or -EINVAL. */
int hp_ldpc_unit_gen(const struct hp_ldpc_code *c, uint8_t *unit,
		     uint64_t seed, unsigned int nflips);
/* The info bits of the unit hp_ldpc_unit_gen makes from seed, packed as
 * in a decoded unit (ceil(k/8) bytes, pad bits 0). 0 or -EINVAL. */
int hp_ldpc_unit_info(const struct hp_ldpc_code *c, uint64_t seed,
		      uint8_t *info);
/*
 * Decodes the units of n bodies in place (body i: lens[i] bytes; whole
 * units only, trailing bytes untouched), all units side by side through
 * d. A body is rewritten only when every unit in it decoded to a
 * codeword within max_flip flips; ok[i] says which (1) and which not (0:
 * left as it was). scratch: at least hp_ldpc_units_scratch(d, total
 * units) bytes (0 when d's code cannot carry units). Returns the number
 * of bodies rewritten or a negative errno.
 */
size_t hp_ldpc_units_scratch(const struct hp_ldpc_dec *d, unsigned int units);
int hp_ldpc_units_decode(struct hp_ldpc_dec *d, uint8_t *const *bodies,
			 const uint32_t *lens, unsigned int n, uint8_t *ok,
			 void *scratch);
/* Rebuilds the received units from decoded ones (the reference path):
 * 0, or -EBADMSG when a unit is malformed. */
int hp_ldpc_units_restore(const struct hp_ldpc_code *c, uint8_t *body,
			  uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* HP_LDPC_H */
