/* SPDX-License-Identifier: BSD-3-Clause
 * AES-128 in plain C for CPUs without AES-NI: the block function, the key
 * expansion into the round-key layout of AES-NI and intel-ipsec-mb, and
 * CBC encryption of one buffer. The distribution's ipsec-mb is built
 * without its own software AES (IMB_FEATURE_AESNI_EMU), so without these
 * the vpn app could not start on such a CPU. Byte by byte: ~0.25 us per
 * block (15x AES-NI's latency) and ~0.7 us per key expansion on a Zen 3
 * core; tests/unit/nf/test_nf_isa.c checks it against OpenSSL and
 * ipsec-mb. The S-box lookups depend on the data: not constant-time.
 */
#include <string.h>

#include "nf_priv.h"

static inline uint8_t
aes_xtime(uint8_t x)
{
	return (uint8_t)((x << 1) ^ ((x >> 7) * 0x1b));
}

static uint8_t
aes_gmul(uint8_t a, uint8_t b)
{
	uint8_t p = 0;

	for (; b != 0; b >>= 1, a = aes_xtime(a))
		if (b & 1)
			p ^= a;
	return p;
}

static inline uint8_t
aes_rotl8(uint8_t x, int n)
{
	return (uint8_t)(x << n | x >> (8 - n));
}

/* The S-box from its definition (FIPS-197 5.1.1: the inverse in GF(2^8),
 * x^254, then the affine map), once at load: ~10 us, and no second copy
 * of the table that gpu/ holds for its own AES. */
static uint8_t aes_sbox[256];

static void __attribute__((constructor))
aes_sbox_init(void)
{
	for (int x = 0; x < 256; x++) {
		uint8_t b = (uint8_t)x, inv = 1;

		for (int i = 1; i < 8; i++) { /* x^(2 + 4 + ... + 128) */
			b = aes_gmul(b, b);
			inv = aes_gmul(inv, b);
		}
		aes_sbox[x] = inv ^ aes_rotl8(inv, 1) ^ aes_rotl8(inv, 2) ^
			      aes_rotl8(inv, 3) ^ aes_rotl8(inv, 4) ^ 0x63;
	}
}

/* The rounds as AESENC/AESENCLAST compute them, on the same round keys. */
void
hp_nf_aes_soft_block(const struct hp_nf_aes_key *k, const uint8_t in[16],
		     uint8_t out[16])
{
	uint8_t s[16], t[16];

	for (int i = 0; i < 16; i++)
		s[i] = in[i] ^ k->enc[i];
	for (int r = 1; r <= 10; r++) {
		/* SubBytes and ShiftRows: row i of column c comes from
		 * column c + i (the state is column-major). */
		for (int c = 0; c < 4; c++)
			for (int i = 0; i < 4; i++)
				t[4 * c + i] = aes_sbox[s[4 * ((c + i) & 3) + i]];
		if (r < 10) {
			for (int c = 0; c < 4; c++) {
				uint8_t *a = &t[4 * c];
				uint8_t a0 = a[0], e = a[0] ^ a[1] ^ a[2] ^ a[3];

				a[0] ^= e ^ aes_xtime(a[0] ^ a[1]);
				a[1] ^= e ^ aes_xtime(a[1] ^ a[2]);
				a[2] ^= e ^ aes_xtime(a[2] ^ a[3]);
				a[3] ^= e ^ aes_xtime(a[3] ^ a0);
			}
		}
		for (int i = 0; i < 16; i++)
			s[i] = t[i] ^ k->enc[16 * r + i];
	}
	memcpy(out, s, 16);
}

/* FIPS-197 key expansion; the decryption keys are those of the
 * equivalent inverse cipher in AESDEC order, as ipsec-mb writes them:
 * dec[0] = enc[10], dec[r] = InvMixColumns(enc[10 - r]), dec[10] = enc[0]. */
void
hp_nf_aes_soft_expand(const uint8_t key[16], struct hp_nf_aes_key *out)
{
	static const uint8_t rcon[10] = { 0x01, 0x02, 0x04, 0x08, 0x10,
					  0x20, 0x40, 0x80, 0x1b, 0x36 };
	uint8_t *w = out->enc;

	memcpy(w, key, 16);
	for (int i = 16; i < 176; i += 4) {
		uint8_t t[4] = { w[i - 4], w[i - 3], w[i - 2], w[i - 1] };

		if (i % 16 == 0) {
			uint8_t t0 = t[0];

			t[0] = aes_sbox[t[1]] ^ rcon[i / 16 - 1];
			t[1] = aes_sbox[t[2]];
			t[2] = aes_sbox[t[3]];
			t[3] = aes_sbox[t0];
		}
		for (int j = 0; j < 4; j++)
			w[i + j] = w[i - 16 + j] ^ t[j];
	}
	memcpy(out->dec, w + 160, 16);
	memcpy(out->dec + 160, w, 16);
	for (int r = 1; r < 10; r++) {
		const uint8_t *e = w + 16 * (10 - r);
		uint8_t *d = out->dec + 16 * r;

		/* InvMixColumns: each byte times 14, 11, 13, 9 in GF(2^8),
		 * from x, 2x, 4x and 8x. */
		for (int c = 0; c < 16; c += 4) {
			uint8_t x[4][4]; /* x[i][0..3] = e[c + i] times 1, 2, 4, 8 */

			for (int i = 0; i < 4; i++) {
				x[i][0] = e[c + i];
				x[i][1] = aes_xtime(x[i][0]);
				x[i][2] = aes_xtime(x[i][1]);
				x[i][3] = aes_xtime(x[i][2]);
			}
			for (int i = 0; i < 4; i++) {
				const uint8_t *p = x[i], *q = x[(i + 1) & 3],
					      *u = x[(i + 2) & 3], *v = x[(i + 3) & 3];

				d[c + i] = (p[3] ^ p[2] ^ p[1]) ^       /* 14 */
					   (q[3] ^ q[1] ^ q[0]) ^       /* 11 */
					   (u[3] ^ u[2] ^ u[0]) ^       /* 13 */
					   (v[3] ^ v[0]);               /* 9 */
			}
		}
	}
}

void
hp_nf_aes_soft_cbc(const struct hp_nf_cbc_job *j)
{
	const uint8_t *prev = j->iv;
	uint8_t x[16];

	for (uint32_t off = 0; off < j->len; off += 16) {
		for (int i = 0; i < 16; i++)
			x[i] = j->buf[off + i] ^ prev[i];
		hp_nf_aes_soft_block(j->key, x, j->buf + off);
		prev = j->buf + off;
	}
}
