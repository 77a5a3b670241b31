/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd's parts shared between its files: the users file (smppd_users.c,
 * no OpenSSL so that the fuzz target can take it alone), password checks
 * (smppd_auth.c), the message store (smppd_store.c), counters, JSON and the
 * log (smppd_stats.c).
 */
#ifndef SMPPD_H
#define SMPPD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "smpp.h"

/* ---- log: one facility, levels, to stderr ------------------------------ */

enum smppd_level { SMPPD_ERR = 0, SMPPD_WARN, SMPPD_INFO, SMPPD_DEBUG };
extern int smppd_log_level;
void smppd_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "error", "warn", "info", "debug" -> level, or -1 */
int smppd_level_parse(const char *s);

/* ---- the users file ----------------------------------------------------- */

#define SMPPD_MAX_USERS  64
#define SMPPD_SALT_MAX   64
#define SMPPD_DK_LEN     32          /* PBKDF2-HMAC-SHA256 output */
#define SMPPD_HASH_TAG   "$pbkdf2-sha256$"
#define SMPPD_ITER_MIN   1000u
#define SMPPD_ITER_MAX   10000000u

struct smppd_user {
	char id[16];              /* system_id, at most 15 characters (v3.4 4.1.1) */
	int hashed;               /* 1: iter/salt/dk; 0: plain (kept for old files) */
	char plain[9];
	uint32_t iter;
	uint8_t salt[SMPPD_SALT_MAX];
	unsigned salt_len;
	uint8_t dk[SMPPD_DK_LEN];
	unsigned max_binds;       /* binds=N; 0: the server's default */
};

/*
 * Parse a users file held in text[0..len): lines
 *   user SYSTEM_ID SECRET [binds=N]
 * SECRET a plain password of 1-8 characters or
 * "$pbkdf2-sha256$ITER$SALT_HEX$DK_HEX" (ITER 1000..10^7, salt 8-64
 * octets, dk 32 octets); blank lines and '#' comments are skipped.
 * Returns 0 and *n, or -EINVAL with "line N: why" in err (the first fault;
 * nothing is skipped silently).
 */
int smppd_users_parse(const char *text, size_t len, struct smppd_user *u,
		      unsigned cap, unsigned *n, char *err, size_t errlen);

/* ---- passwords (smppd_auth.c, OpenSSL) --------------------------------- */

/* PBKDF2-HMAC-SHA256 of pw: 1 when it matches u's hash or plain password,
 * else 0 (constant time in the password). */
int smppd_auth_check(const struct smppd_user *u, const char *pw, size_t pwlen);
/* A users-file SECRET for pw with a fresh 16-octet salt; 0 or -EIO. */
int smppd_auth_hash(const char *pw, uint32_t iter, char *out, size_t cap);

/* HMAC-SHA256 of pw under key (the accepted-password cache); 0 or -EIO. */
int smppd_auth_tag(const uint8_t key[32], const char *pw, size_t pwlen, uint8_t tag[32]);
int smppd_auth_key(uint8_t key[32]);

/* The worker thread: bind requests in, results out, an eventfd that is
 * readable while results wait. */
struct smppd_auth_req {
	uint32_t slot, gen, seq, cmd;
	int user;
	char pw[9];
	uint8_t pwlen;
	int ok;
};
/* Start it for users[] (kept, read only) with room for cap requests;
 * returns the eventfd or -ENOMEM. */
int smppd_auth_start(const struct smppd_user *users, unsigned cap);
/* 0, or -EAGAIN when cap requests and results wait already. */
int smppd_auth_submit(const struct smppd_auth_req *req);
/* 1 and *out for a result, 0 when none waits (and the eventfd is reset). */
int smppd_auth_result(struct smppd_auth_req *out);
unsigned smppd_auth_pending(void);
void smppd_auth_stop(void);

/* ---- counters ------------------------------------------------------------ */

#define SMPPD_NCMD 28                /* the v3.4 command ids + "other" */
int smppd_cmd_idx(uint32_t command_id);
const char *smppd_cmd_name(int idx);

struct smppd_counters {
	uint64_t in[SMPPD_NCMD];          /* PDUs received, by command */
	uint64_t out[SMPPD_NCMD];         /* PDUs sent */
	uint64_t err[256];                /* non-zero statuses we answered with */
	uint64_t binds, bind_fails;
	uint32_t win_peak;                /* most submits in flight at once */
	uint32_t dlr_peak;                /* most deliver_sm unanswered at once */
	uint64_t receipts, receipt_fails;
};

/* JSON object members (no braces) of c, to f. */
void smppd_counters_json(FILE *f, const struct smppd_counters *c);
void smppd_json_str(FILE *f, const char *s);

/* ---- the message store --------------------------------------------------- */

#define SMPPD_ADDR  21               /* v3.4 C-string limit with NUL */
#define SMPPD_TEXT  20               /* octets kept for the receipt's text: */

struct smppd_msg {
	uint64_t id;
	int64_t submit_ms, due_ms, expire_ms, done_ms;  /* wall clock */
	uint32_t heap;              /* place in the timer heap, UINT32_MAX: none */
	uint16_t user;
	uint8_t state;              /* enum smpp_msg_state */
	uint8_t reg;                /* registered_delivery */
	uint8_t dlr;                /* 1: its receipt waits or is in flight */
	uint8_t tries;              /* receipt sends so far */
	uint8_t err;                /* error_code of query_sm_resp, receipt err: */
	uint8_t src_ton, src_npi, dst_ton, dst_npi;
	uint8_t text_len;
	char service[6];
	char src[SMPPD_ADDR], dst[SMPPD_ADDR];
	uint8_t text[SMPPD_TEXT];
};

/* A receipt waiting for a receiver: the record and its id, which tells a
 * record reused since from the one the receipt was for. */
struct smppd_dlr_ref {
	uint32_t slot;
	uint64_t id;
};

struct smppd_dlr_q {
	struct smppd_dlr_ref *q;
	uint32_t head, n, cap;
};

/*
 * Records in a ring in the order of their ids (ids only grow), so a
 * lookup is a binary search and the oldest record leaves first; a min-heap
 * of the pending ones by the time they become final; per user a queue of
 * receipts to send.  Bounded: cap records, allocated and touched once.
 */
struct smppd_store {
	struct smppd_msg *m;
	uint32_t cap, head, n;
	uint32_t *heap;             /* slots by final time */
	uint32_t nheap;
	uint64_t last_id;
	struct smppd_dlr_q dq[SMPPD_MAX_USERS];
	uint64_t evicted, full, dlr_dropped;
};

int smppd_store_init(struct smppd_store *st, uint32_t cap);
void smppd_store_free(struct smppd_store *st);
/* The next message id: the wall clock in microseconds, or one more than
 * the last id when that is not later, so ids grow within a run and a
 * restart starts past every id of the runs before it (unless the clock
 * went back, or a run issued more than a million ids per second). */
uint64_t smppd_store_new_id(struct smppd_store *st, int64_t now_us);
/* Room for k more records, evicting the oldest final ones; 0 or -ENOSPC
 * (the oldest record is still pending: ESME_RMSGQFUL). */
int smppd_store_room(struct smppd_store *st, uint32_t k);
/* Append a copy of m (after smppd_store_room) and arm its timer; returns
 * the record's slot. */
uint32_t smppd_store_add(struct smppd_store *st, const struct smppd_msg *m);
/* The first record with id (others of one submit_multi follow it), its
 * slot in *slot; NULL when absent. */
struct smppd_msg *smppd_store_find(struct smppd_store *st, uint64_t id, uint32_t *slot);
/* The record after slot if it has the same id, else NULL. */
struct smppd_msg *smppd_store_next(struct smppd_store *st, uint32_t *slot);
/* Re-arm (or disarm, when no longer ENROUTE) a record's timer after its
 * times or state changed. */
void smppd_store_retime(struct smppd_store *st, uint32_t slot);
/* Final time of a pending record: min(due, expiry). */
int64_t smppd_store_final_ms(const struct smppd_msg *m);
/* The earliest final time, INT64_MAX when nothing is pending. */
int64_t smppd_store_next_due(const struct smppd_store *st);
/* Take one record whose final time has come (its timer is disarmed);
 * returns its slot or -1. */
int64_t smppd_store_pop_due(struct smppd_store *st, int64_t now_ms);
/* Receipt queues: push (drops the oldest, counted, when cap are queued),
 * pop the next whose record is still that message's and still waits. */
int smppd_store_dlr_push(struct smppd_store *st, unsigned user, uint32_t slot);
struct smppd_msg *smppd_store_dlr_pop(struct smppd_store *st, unsigned user, uint32_t *slot);
uint32_t smppd_store_dlr_len(const struct smppd_store *st, unsigned user);

/* The receipt text of v3.4 appendix B for m: "id:... sub:001 dlvrd:001
 * submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000
 * text:...". Returns its length. */
int smppd_receipt_text(const struct smppd_msg *m, char *out, size_t cap);
/* "DELIVRD", "EXPIRED", ... for a message_state; -1 / NULL when unknown. */
const char *smppd_state_stat(unsigned state);
int smppd_state_parse(const char *stat);

#endif /* SMPPD_H */
