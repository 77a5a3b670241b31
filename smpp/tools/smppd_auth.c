/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd's passwords: PBKDF2-HMAC-SHA256 (OpenSSL's PKCS5_PBKDF2_HMAC)
 * with a per-user salt, checked on a worker thread, because a hash worth
 * its iterations costs tens of milliseconds and the event loop must keep
 * serving bound sessions meanwhile.  Once a password was accepted, the
 * server keeps an HMAC of it under a key drawn at start and answers later
 * binds of that user (right or wrong) from it in microseconds, so only a
 * user's first bind pays the hash.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "smppd.h"

int
smppd_auth_check(const struct smppd_user *u, const char *pw, size_t pwlen)
{
	uint8_t dk[SMPPD_DK_LEN];
	char a[9] = { 0 }, b[9] = { 0 };
	int ok;

	if (!u->hashed) {
		/* compare 9 padded octets: the time does not depend on where
		 * the strings differ */
		if (pwlen > 8)
			return 0;
		memcpy(a, pw, pwlen);
		memcpy(b, u->plain, strlen(u->plain));
		return CRYPTO_memcmp(a, b, sizeof(a)) == 0 && strlen(u->plain) == pwlen;
	}
	if (PKCS5_PBKDF2_HMAC(pw, (int)pwlen, u->salt, (int)u->salt_len, (int)u->iter,
			      EVP_sha256(), SMPPD_DK_LEN, dk) != 1)
		return 0;
	ok = CRYPTO_memcmp(dk, u->dk, SMPPD_DK_LEN) == 0;
	OPENSSL_cleanse(dk, sizeof(dk));
	return ok;
}

int
smppd_auth_hash(const char *pw, uint32_t iter, char *out, size_t cap)
{
	uint8_t salt[16], dk[SMPPD_DK_LEN];
	size_t o;

	if (RAND_bytes(salt, sizeof(salt)) != 1 ||
	    PKCS5_PBKDF2_HMAC(pw, (int)strlen(pw), salt, sizeof(salt), (int)iter,
			      EVP_sha256(), SMPPD_DK_LEN, dk) != 1)
		return -EIO;
	o = (size_t)snprintf(out, cap, SMPPD_HASH_TAG "%u$", iter);
	for (unsigned i = 0; i < sizeof(salt) && o + 3 < cap; i++, o += 2)
		snprintf(out + o, cap - o, "%02x", salt[i]);
	if (o + 1 < cap)
		out[o++] = '$';
	for (unsigned i = 0; i < SMPPD_DK_LEN && o + 3 < cap; i++, o += 2)
		snprintf(out + o, cap - o, "%02x", dk[i]);
	OPENSSL_cleanse(dk, sizeof(dk));
	return o + 1 < cap ? 0 : -ENOSPC;
}

int
smppd_auth_tag(const uint8_t key[32], const char *pw, size_t pwlen, uint8_t tag[32])
{
	unsigned n = 32;

	return HMAC(EVP_sha256(), key, 32, (const uint8_t *)pw, pwlen, tag, &n) ? 0 : -EIO;
}

int
smppd_auth_key(uint8_t key[32])
{
	return RAND_bytes(key, 32) == 1 ? 0 : -EIO;
}

/* ---- the worker --------------------------------------------------------- */

static struct {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, stop, efd;
	const struct smppd_user *users;
	struct smppd_auth_req *q;     /* requests, then results, two rings */
	struct smppd_auth_req *r;
	unsigned cap, qh, qn, rh, rn;
} aw = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .efd = -1 };

static void *
worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&aw.mu);
	for (;;) {
		struct smppd_auth_req req;
		uint64_t one = 1;

		while (aw.qn == 0 && !aw.stop)
			pthread_cond_wait(&aw.cv, &aw.mu);
		if (aw.stop)
			break;
		req = aw.q[aw.qh];
		aw.qh = (aw.qh + 1) % aw.cap;
		aw.qn--;
		pthread_mutex_unlock(&aw.mu);
		req.ok = smppd_auth_check(&aw.users[req.user], req.pw, req.pwlen);
		pthread_mutex_lock(&aw.mu);
		/* the result ring has room: a request left the other ring */
		aw.r[(aw.rh + aw.rn) % aw.cap] = req;
		aw.rn++;
		OPENSSL_cleanse(&req, sizeof(req));
		/* fails only when the counter would overflow: the loop looks anyway */
		(void)!write(aw.efd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&aw.mu);
	return NULL;
}

int
smppd_auth_start(const struct smppd_user *users, unsigned cap)
{
	aw.users = users;
	aw.cap = cap;
	aw.q = calloc(cap, sizeof(*aw.q));
	aw.r = calloc(cap, sizeof(*aw.r));
	aw.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (aw.q == NULL || aw.r == NULL || aw.efd < 0)
		goto fail;
	if (pthread_create(&aw.th, NULL, worker, NULL) != 0)
		goto fail;
	aw.started = 1;
	return aw.efd;
fail:
	free(aw.q);
	free(aw.r);
	if (aw.efd >= 0)
		close(aw.efd);
	aw.q = aw.r = NULL;
	aw.efd = -1;
	return -ENOMEM;
}

int
smppd_auth_submit(const struct smppd_auth_req *req)
{
	int rc = 0;

	pthread_mutex_lock(&aw.mu);
	/* requests and results together stay within cap, so neither ring
	 * overflows */
	if (aw.qn + aw.rn + 1 > aw.cap) {
		rc = -EAGAIN;
	} else {
		aw.q[(aw.qh + aw.qn) % aw.cap] = *req;
		aw.qn++;
		pthread_cond_signal(&aw.cv);
	}
	pthread_mutex_unlock(&aw.mu);
	return rc;
}

unsigned
smppd_auth_pending(void)
{
	unsigned n;

	pthread_mutex_lock(&aw.mu);
	n = aw.qn + aw.rn;
	pthread_mutex_unlock(&aw.mu);
	return n;
}

int
smppd_auth_result(struct smppd_auth_req *out)
{
	int got = 0;
	uint64_t v;

	pthread_mutex_lock(&aw.mu);
	if (aw.rn > 0) {
		*out = aw.r[aw.rh];
		OPENSSL_cleanse(&aw.r[aw.rh], sizeof(aw.r[aw.rh]));
		aw.rh = (aw.rh + 1) % aw.cap;
		aw.rn--;
		got = 1;
	} else {
		/* empty: reset the counter under the lock, so that a result
		 * added later signals again */
		(void)!read(aw.efd, &v, sizeof(v));
	}
	pthread_mutex_unlock(&aw.mu);
	return got;
}

void
smppd_auth_stop(void)
{
	if (aw.started) {
		pthread_mutex_lock(&aw.mu);
		aw.stop = 1;
		pthread_cond_signal(&aw.cv);
		pthread_mutex_unlock(&aw.mu);
		pthread_join(aw.th, NULL);
		aw.started = 0;
	}
	if (aw.q != NULL)
		OPENSSL_cleanse(aw.q, aw.cap * sizeof(*aw.q));
	free(aw.q);
	free(aw.r);
	aw.q = aw.r = NULL;
	if (aw.efd >= 0)
		close(aw.efd);
	aw.efd = -1;
}
