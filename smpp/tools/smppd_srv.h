/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd's private header: the server's state (struct server, its sessions,
 * listeners and users at run time), its tunables and the functions the files
 * of the server share (each file one part of the epoll loop: I/O, submits and
 * the store, receipts, binds, PDUs, accepting and timers, the stats socket,
 * setup). Not installed; the library's API is smpp.h.
 */
#ifndef SMPPD_SRV_H
#define SMPPD_SRV_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "smpp.h"
#include "smppd.h"
#include "tool_util.h"

#define CORR_LEN    8            /* session slot (4) + session generation (4) */
#define OUT_HIGH    (256u << 10) /* pending output that stops reading a session */
#define OUT_LIMIT   (4u << 20)   /* pending output that closes it */
#define TICK        0.1          /* timer sweep, seconds */
#define NSTATS_CLI  4
#define TAG_LST     0xFFFFFF00u  /* + listener index */
#define TAG_AUTH    0xFFFFFF10u
#define TAG_STATS   0xFFFFFF11u
#define TAG_SCLI    0xFFFFFF20u  /* + stats client index */
#define DLR_TRIES   3
#define P           "hp-smppd"   /* for the flag errors */

enum bind_state { UNBOUND = 0, BOUND_TX = 1, BOUND_RX = 2, BOUND_TRX = 3 };

/* A deliver_sm of ours waiting for its response. */
struct dlr_out {
	uint32_t seq, slot;
	uint64_t id;
	double t;
};

struct session {
	int fd;
	uint32_t gen;
	enum bind_state st;
	int user;                 /* users[] index once bound */
	int closing;              /* close once the output is written */
	int unbinding;            /* our unbind is out: close at its response */
	int binding;              /* its bind is with the password worker */
	int paused;               /* output above OUT_HIGH: not read */
	int ready, dirty;         /* on the ready / flush lists */
	uint32_t events;          /* epoll interest */
	SSL *ssl;
	int hs_done, ssl_want_write;
	uint8_t *rx;
	size_t rx_len;
	uint8_t *out;
	size_t out_len, out_cap;
	double t_open, t_rx, t_partial, t_enq, t_close;
	uint32_t inflight;        /* submit_sm in the batch, not answered */
	struct dlr_out *dout;
	unsigned ndout;
	char peer[64];
	struct smppd_counters c;
};

struct listener {
	int fd, tls;
	double paused_until;      /* accept stopped (EMFILE) until then */
	char name[80];
};

/* What a system_id has at run time. */
struct user_rt {
	unsigned bound, limit;
	uint32_t *rx;             /* its receiver/transceiver sessions */
	unsigned nrx, rr;
	int tag_ok;               /* tag: HMAC of the accepted password */
	uint8_t tag[32];
	struct smppd_counters c;
};

struct stats_cli {
	int fd;
	char *buf;
	size_t len, off;
};

/* -o KEY=VALUE: limits, timeouts and the simulator's behaviour. */
struct knob {
	const char *key;
	double lo, hi, v;
	int integer;
};

enum {
	K_BACKLOG, K_MAX_UNBOUND, K_BINDS_PER_ID, K_BIND_TIMEOUT, K_IDLE_TIMEOUT,
	K_RESP_TIMEOUT, K_PDU_TIMEOUT, K_READ_BUDGET, K_WINDOW, K_DLR_WINDOW, K_STORE,
	K_DLR_DELAY, K_DLR_ERR, K_HASH_ITER, K_AUTH_QUEUE, NKNOBS
};

extern struct knob srv_knobs[NKNOBS];

/* Field indices of submit_sm, read once (the batch path is hot). */
struct sm_fields {
	int service, src_ton, src_npi, src, dst_ton, dst_npi, dst, sched, valid, reg, text;
};

struct server {
	struct smpp_ctx *ctx;
	struct smpp_config cfg;
	struct smpp_batch batch;
	uint8_t *bbuf;             /* pending submit_sm, element framing */
	size_t blen, bcap;
	unsigned bcount, bmax;
	double bfirst;             /* time the oldest pending PDU arrived */
	unsigned flush_ms;
	struct session *s;
	unsigned nslots, max_sessions, max_unbound, nbound, nunbound;
	uint32_t *free_slots, *ready, *dirty;
	unsigned nfree, nready, ndirty;
	uint32_t max_pdu;
	size_t rxcap;
	struct listener lst[2];
	unsigned nlst;
	int ep, auth_fd, stats_fd;
	struct stats_cli sc[NSTATS_CLI];
	const char *stats_path;
	SSL_CTX *tls;
	unsigned nusers;
	struct smppd_user users[SMPPD_MAX_USERS];
	struct user_rt ur[SMPPD_MAX_USERS];
	uint8_t tag_key[32];
	struct smppd_store store;
	int final_state;
	uint32_t next_seq;         /* our own requests */
	struct sm_fields sm;
	double now, t_start, next_sweep;
	int64_t now_ms;
	uint8_t enc[8192];         /* one encoded PDU (submit_multi_resp fits) */
	/* server-wide counters */
	uint64_t accepted, evicted, accept_errors, accept_pauses;
	uint64_t to_bind, to_pdu, to_idle, to_close;
	double last_accept_log;
};

static inline double
kv(int k)
{
	return srv_knobs[k].v;
}

static inline int64_t
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t
wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

struct view {
	const uint8_t *p;
	uint32_t len;
};


/* smppd_accept.c */
void srv_resume_accept(struct server *sv);
void srv_do_accept(struct server *sv, struct listener *l);
void srv_sweep(struct server *sv);

/* smppd_bind.c */
void srv_bind_fail(struct server *sv, struct session *s, uint32_t cmd, uint32_t seq, int user, uint32_t st);
void srv_handle_bind(struct server *sv, struct session *s, const struct smpp_pdu *p);
void srv_auth_results(struct server *sv);

/* smppd_dlr.c */
void srv_became_final(struct server *sv, uint32_t slot);
void srv_requeue_dlr(struct server *sv, struct session *s, unsigned k);
void srv_deliver_resp(struct server *sv, struct session *s, uint32_t seq, uint32_t st);
void srv_deliver_receipts(struct server *sv);

/* smppd_io.c */
void srv_count_in(struct server *sv, struct session *s, uint32_t cmd);
int srv_can_read(const struct session *s);
void srv_sess_events(struct server *sv, struct session *s);
void srv_mark_dirty(struct server *sv, struct session *s);
void srv_mark_ready(struct server *sv, struct session *s);
void srv_sess_close(struct server *sv, struct session *s);
ssize_t srv_io_read(struct session *s, uint8_t *buf, size_t n);
void srv_sess_flush(struct server *sv, struct session *s);
void srv_sess_send(struct server *sv, struct session *s, const struct smpp_msg *m);
void srv_reply(struct server *sv, struct session *s, uint32_t cmd, uint32_t status, uint32_t seq, const char *body_str);
void srv_request(struct server *sv, struct session *s, uint32_t cmd);
void srv_reply_close(struct server *sv, struct session *s, uint32_t cmd, uint32_t st, uint32_t seq);

/* smppd_pdu.c */
void srv_process_rx(struct server *sv, struct session *s);
void srv_sess_read(struct server *sv, struct session *s);

/* smppd_statsock.c */
void srv_stats_close(struct server *sv, struct stats_cli *c);
void srv_stats_write(struct server *sv, struct stats_cli *c);
void srv_stats_accept(struct server *sv);
int srv_stats_query(const char *path);

/* smppd_submit.c */
struct view srv_fview(const struct smpp_pdu *p, const char *name);
void srv_vcopy(char *dst, size_t cap, struct view v);
int srv_vequal(const char *s, struct view v);
void srv_id_str(uint64_t id, char out[17]);
void srv_flush_batch(struct server *sv);
void srv_queue_submit(struct server *sv, struct session *s, const uint8_t *pdu, uint32_t len);
void srv_submit_multi(struct server *sv, struct session *s, const struct smpp_pdu *p);
void srv_data_sm(struct server *sv, struct session *s, const struct smpp_pdu *p);
void srv_query_sm(struct server *sv, struct session *s, const struct smpp_pdu *p);
void srv_cancel_sm(struct server *sv, struct session *s, const struct smpp_pdu *p);
void srv_replace_sm(struct server *sv, struct session *s, const struct smpp_pdu *p);

#endif /* SMPPD_SRV_H */
