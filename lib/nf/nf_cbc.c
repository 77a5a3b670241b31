/* SPDX-License-Identifier: BSD-3-Clause
 * AES-128-CBC for the vpn app: the multi-buffer path through
 * intel-ipsec-mb's cipher burst API, PKCS#7 padding, the per-flow key and
 * per-packet IV derivation (AES-NI, or a table-driven AES on a CPU
 * without it), and the OpenSSL EVP reference path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <intel-ipsec-mb.h>
#include <openssl/evp.h>
#include <wmmintrin.h>

#include "nf_priv.h"

#define CBC_MAX_BURST 64

/* mgr is NULL on a CPU without AES-NI when ipsec-mb has no software AES:
 * the engine then runs nf_aes_soft.c. */
struct hp_nf_cbc {
	IMB_MGR *mgr;
	IMB_ARCH arch;
	IMB_JOB jobs[CBC_MAX_BURST];
};

/* ipsec-mb's widest code within hp_nf_isa_limit() (its sse without AES-NI
 * is its software AES, when built in). */
static void
cbc_init_limited(struct hp_nf_cbc *c)
{
	unsigned int on = hp_nf_isa_on;

	if (on & HP_NF_ISA_AESNI && on & HP_NF_ISA_AVX512)
		init_mb_mgr_avx512(c->mgr);
	else if (on & HP_NF_ISA_AESNI && on & HP_NF_ISA_AVX2)
		init_mb_mgr_avx2(c->mgr);
	else
		init_mb_mgr_sse(c->mgr);
	c->arch = (IMB_ARCH)c->mgr->used_arch;
}

int
hp_nf_cbc_create(struct hp_nf_cbc **out)
{
	int aesni = (hp_nf_isa_on & HP_NF_ISA_AESNI) != 0;
	struct hp_nf_cbc *c;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->mgr = alloc_mb_mgr(aesni ? 0 : IMB_FLAG_AESNI_OFF);
	if (c->mgr == NULL && !aesni) {
		*out = c; /* no AESNI_EMU in this ipsec-mb: our own AES */
		return 0;
	}
	if (c->mgr == NULL) {
		free(c);
		return -ENOMEM;
	}
	/* Unlimited: the widest implementation the CPU has. */
	if (hp_nf_isa_on == hp_nf_isa_cpu())
		init_mb_mgr_auto(c->mgr, &c->arch);
	else
		cbc_init_limited(c);
	if (imb_get_errno(c->mgr) != 0) {
		free_mb_mgr(c->mgr);
		free(c);
		return -ENOTSUP;
	}
	*out = c;
	return 0;
}

void
hp_nf_cbc_free(struct hp_nf_cbc *c)
{
	if (c == NULL)
		return;
	if (c->mgr != NULL)
		free_mb_mgr(c->mgr);
	free(c);
}

const char *
hp_nf_cbc_arch(const struct hp_nf_cbc *c)
{
	if (c->mgr == NULL)
		return "scalar";
	switch (c->arch) {
	case IMB_ARCH_NOAESNI: return "noaesni";
	case IMB_ARCH_SSE: return "sse";
	case IMB_ARCH_AVX: return "avx";
	case IMB_ARCH_AVX2: return "avx2";
	case IMB_ARCH_AVX512: return "avx512";
	default: return "none";
	}
}

void
hp_nf_cbc_expand(struct hp_nf_cbc *c, const uint8_t key[16],
		 struct hp_nf_aes_key *out)
{
	if (c->mgr != NULL)
		IMB_AES_KEYEXP_128(c->mgr, key, out->enc, out->dec);
	else
		hp_nf_aes_soft_expand(key, out);
}

int
hp_nf_cbc_encrypt_burst(struct hp_nf_cbc *c, struct hp_nf_cbc_job *jobs,
			unsigned int n)
{
	unsigned int i, k, done;

	if (c->mgr == NULL) {
		for (i = 0; i < n; i++)
			if (jobs[i].len % HP_NF_AES_BLOCK != 0)
				return -EINVAL;
		for (i = 0; i < n; i++)
			hp_nf_aes_soft_cbc(&jobs[i]);
		return 0;
	}
	for (i = 0; i < n; i += k) {
		k = n - i < CBC_MAX_BURST ? n - i : CBC_MAX_BURST;
		uint8_t ord[CBC_MAX_BURST];

		/* Longest first: the lanes then drain together instead of one
		 * long message running alone at the end of the burst
		 * (bench/tasks, IMIX: 49 -> 57 Gbit/s). */
		for (unsigned int j = 0; j < k; j++) {
			unsigned int q = j;

			while (q > 0 && jobs[i + ord[q - 1]].len < jobs[i + j].len) {
				ord[q] = ord[q - 1];
				q--;
			}
			ord[q] = (uint8_t)j;
		}
		for (unsigned int j = 0; j < k; j++) {
			IMB_JOB *job = &c->jobs[j];
			const struct hp_nf_cbc_job *in = &jobs[i + ord[j]];

			if (in->len % HP_NF_AES_BLOCK != 0)
				return -EINVAL;
			job->enc_keys = in->key->enc;
			job->dec_keys = in->key->dec;
			job->src = in->buf;
			job->dst = in->buf;
			job->cipher_start_src_offset_in_bytes = 0;
			job->msg_len_to_cipher_in_bytes = in->len;
			job->iv = in->iv;
			job->iv_len_in_bytes = 16;
		}
		/* Synchronous: all k jobs are complete on return. The checked
		 * variant costs a few ns per job and catches a bad job. */
		done = IMB_SUBMIT_CIPHER_BURST(c->mgr, c->jobs, k,
					       IMB_CIPHER_CBC, IMB_DIR_ENCRYPT,
					       IMB_KEY_128_BYTES);
		if (done != k)
			return -EIO;
	}
	return 0;
}

/* Cost note (bench/tasks ctr columns): the burst API runs the jobs one
 * after another, each over all its blocks at once (VAES or AES-NI
 * pipelined), so no order helps here; one call per burst keeps the
 * manager's dispatch off the per-packet path. */
int
hp_nf_ctr_encrypt_burst(struct hp_nf_cbc *c, const struct hp_nf_cbc_job *jobs,
			unsigned int n)
{
	unsigned int i, k, done;

	if (c->mgr == NULL)
		return -ENOTSUP;
	for (i = 0; i < n; i += k) {
		k = n - i < CBC_MAX_BURST ? n - i : CBC_MAX_BURST;
		for (unsigned int j = 0; j < k; j++) {
			IMB_JOB *job = &c->jobs[j];
			const struct hp_nf_cbc_job *in = &jobs[i + j];

			job->enc_keys = in->key->enc;
			job->dec_keys = in->key->enc; /* CTR decrypts by encrypting */
			job->src = in->buf;
			job->dst = in->buf;
			job->cipher_start_src_offset_in_bytes = 0;
			job->msg_len_to_cipher_in_bytes = in->len;
			job->iv = in->iv;
			job->iv_len_in_bytes = 16; /* the whole first counter block */
		}
		done = IMB_SUBMIT_CIPHER_BURST(c->mgr, c->jobs, k, IMB_CIPHER_CNTR,
					       IMB_DIR_ENCRYPT, IMB_KEY_128_BYTES);
		if (done != k)
			return -EIO;
	}
	return 0;
}

uint32_t
hp_nf_cbc_pad(uint8_t *buf, uint32_t len)
{
	uint8_t p = (uint8_t)(HP_NF_AES_BLOCK - len % HP_NF_AES_BLOCK);

	memset(buf + len, p, p);
	return len + p;
}

int
hp_nf_cbc_unpad(const uint8_t *buf, uint32_t len, uint32_t *out_len)
{
	uint8_t p;

	if (len == 0 || len % HP_NF_AES_BLOCK != 0)
		return -EBADMSG;
	p = buf[len - 1];
	if (p == 0 || p > HP_NF_AES_BLOCK)
		return -EBADMSG;
	for (uint32_t i = len - p; i < len; i++)
		if (buf[i] != p)
			return -EBADMSG;
	*out_len = len - p;
	return 0;
}

void
hp_nf_cbc_flow_block(const uint8_t sip[4], const uint8_t dip[4],
		     const uint8_t sport[2], const uint8_t dport[2],
		     uint8_t proto, uint8_t out[16])
{
	/* 4 + 4 + 4 + 2 + 2 + 1 = 17 > 16, so the label is 3 bytes "CB1". */
	out[0] = 'C';
	out[1] = 'B';
	out[2] = '1';
	memcpy(out + 3, sip, 4);
	memcpy(out + 7, dip, 4);
	memcpy(out + 11, sport, 2);
	memcpy(out + 13, dport, 2);
	out[15] = proto;
}

void
hp_nf_cbc_seq_block(uint32_t seq, uint8_t out[16])
{
	memset(out, 0, 16);
	memcpy(out, "CBIV", 4);
	out[12] = (uint8_t)(seq >> 24);
	out[13] = (uint8_t)(seq >> 16);
	out[14] = (uint8_t)(seq >> 8);
	out[15] = (uint8_t)seq;
}

static __attribute__((target("aes"))) void
aes_block_aesni(const struct hp_nf_aes_key *k, const uint8_t in[16],
		uint8_t out[16])
{
	/* ~10 ns: 10 dependent AESENC; two per packet (IV) or per new flow. */
	const __m128i *rk = (const __m128i *)k->enc;
	__m128i s = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), rk[0]);

	for (int r = 1; r < 10; r++)
		s = _mm_aesenc_si128(s, rk[r]);
	s = _mm_aesenclast_si128(s, rk[10]);
	_mm_storeu_si128((__m128i *)out, s);
}

void
hp_nf_aes_block(const struct hp_nf_aes_key *k, const uint8_t in[16],
		uint8_t out[16])
{
	/* Neither variant is inlined (AES-NI: another target; the software
	 * one: another file), so this is a load, a test and a jump on top of
	 * the call. */
	if (__builtin_expect(hp_nf_isa_on & HP_NF_ISA_AESNI, 1))
		aes_block_aesni(k, in, out);
	else
		hp_nf_aes_soft_block(k, in, out);
}

static int
evp_ecb_block(const uint8_t key[16], const uint8_t in[16], uint8_t out[16])
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int ol = 0, rc = -EIO;

	if (x == NULL)
		return -ENOMEM;
	if (EVP_EncryptInit_ex(x, EVP_aes_128_ecb(), NULL, key, NULL) != 1)
		goto out;
	EVP_CIPHER_CTX_set_padding(x, 0);
	if (EVP_EncryptUpdate(x, out, &ol, in, 16) != 1 || ol != 16)
		goto out;
	rc = 0;
out:
	EVP_CIPHER_CTX_free(x);
	return rc;
}

int
hp_nf_cbc_derive_ref(const uint8_t master[16], const uint8_t flow_block[16],
		     uint32_t seq, uint8_t key[16], uint8_t iv[16])
{
	uint8_t sb[16];
	int rc;

	rc = evp_ecb_block(master, flow_block, key);
	if (rc != 0)
		return rc;
	hp_nf_cbc_seq_block(seq, sb);
	return evp_ecb_block(key, sb, iv);
}

int
hp_nf_cbc_evp(const uint8_t key[16], const uint8_t iv[16], uint8_t *buf,
	      uint32_t len, int enc)
{
	EVP_CIPHER_CTX *x;
	int ol = 0, fl = 0, rc = -EIO;

	if (len % HP_NF_AES_BLOCK != 0)
		return -EINVAL;
	x = EVP_CIPHER_CTX_new();
	if (x == NULL)
		return -ENOMEM;
	if (EVP_CipherInit_ex(x, EVP_aes_128_cbc(), NULL, key, iv, enc) != 1)
		goto out;
	EVP_CIPHER_CTX_set_padding(x, 0);
	if (len > 0 && EVP_CipherUpdate(x, buf, &ol, buf, (int)len) != 1)
		goto out;
	if (EVP_CipherFinal_ex(x, buf + ol, &fl) != 1 ||
	    (uint32_t)(ol + fl) != len)
		goto out;
	rc = 0;
out:
	EVP_CIPHER_CTX_free(x);
	return rc;
}
