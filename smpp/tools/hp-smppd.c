/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: an SMPP v3.4 server (SMSC side) and SMSC simulator, one epoll
 * loop.  Sessions: binds checked against a users file (PBKDF2 hashes,
 * checked off the loop), limits on bound sessions (server and per
 * system_id: a bind_resp with ESME_RBINDFAIL / ESME_RTHROTTLED before the
 * close), unbound connections in a small separate pool whose oldest goes
 * first, bind / inactivity (enquire_link, then unbind) / half-PDU
 * timeouts, a read budget per connection per turn so no session starves
 * another, a window of submits in flight, accept pausing on EMFILE, TLS on
 * a second listener, IPv6.  Messages: submit_sm are decoded in batches by
 * the library's batch decoder; submit_sm, submit_multi and data_sm go to a
 * bounded store (ids unique across restarts) that answers query_sm,
 * cancel_sm and replace_sm and sends delivery receipts to the same
 * system_id's receivers.  Counters per session and system_id as JSON on a
 * UNIX socket.  Usage: -h, and docs/smpp.md.
 */
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

static struct knob knobs[NKNOBS] = {
	[K_BACKLOG]      = { "backlog", 1, 65535, 1024, 1 },
	[K_MAX_UNBOUND]  = { "max_unbound", 1, 65536, 64, 1 },
	[K_BINDS_PER_ID] = { "binds_per_id", 0, 65536, 0, 1 },
	[K_BIND_TIMEOUT] = { "bind_timeout", 0.05, 3600, 10, 0 },
	[K_IDLE_TIMEOUT] = { "idle_timeout", 0.05, 86400, 30, 0 },
	[K_RESP_TIMEOUT] = { "resp_timeout", 0.05, 3600, 10, 0 },
	[K_PDU_TIMEOUT]  = { "pdu_timeout", 0.05, 3600, 5, 0 },
	[K_READ_BUDGET]  = { "read_budget", 512, 1 << 20, 16384, 1 },
	[K_WINDOW]       = { "window", 1, 65535, 256, 1 },
	[K_DLR_WINDOW]   = { "dlr_window", 1, 1024, 32, 1 },
	[K_STORE]        = { "store", 16, 1e7, 100000, 1 },
	[K_DLR_DELAY]    = { "dlr_delay", 0, 86400, 0, 0 },
	[K_DLR_ERR]      = { "dlr_err", 0, 255, 0, 1 },
	[K_HASH_ITER]    = { "hash_iter", SMPPD_ITER_MIN, SMPPD_ITER_MAX, 100000, 1 },
	[K_AUTH_QUEUE]   = { "auth_queue", 1, 4096, 32, 1 },
};

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

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double
kv(int k)
{
	return knobs[k].v;
}

static int64_t
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t
wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- counters ------------------------------------------------------------ */

static struct smppd_counters *
user_c(struct server *sv, struct session *s)
{
	return s->user >= 0 ? &sv->ur[s->user].c : NULL;
}

static void
count_in(struct server *sv, struct session *s, uint32_t cmd)
{
	int k = smppd_cmd_idx(cmd);
	struct smppd_counters *u = user_c(sv, s);

	s->c.in[k]++;
	if (u != NULL)
		u->in[k]++;
}

static void
count_out(struct server *sv, struct session *s, uint32_t cmd, uint32_t st)
{
	int k = smppd_cmd_idx(cmd);
	struct smppd_counters *u = user_c(sv, s);

	s->c.out[k]++;
	if (st != 0)
		s->c.err[st & 0xff]++;
	if (u != NULL) {
		u->out[k]++;
		if (st != 0)
			u->err[st & 0xff]++;
	}
}

/* ---- sessions: lists, interest, I/O ------------------------------------- */

static int
can_read(const struct session *s)
{
	return !s->closing && !s->binding && !s->paused;
}

static void
sess_events(struct server *sv, struct session *s)
{
	struct epoll_event ev = { .data.u32 = (uint32_t)(s - sv->s) };
	uint32_t want = 0;

	if (s->fd < 0)
		return;
	if (can_read(s) || (s->ssl != NULL && !s->hs_done))
		want |= EPOLLIN;
	if (s->out_len > 0 || s->ssl_want_write)
		want |= EPOLLOUT;
	if (want == s->events)
		return;
	ev.events = want;
	epoll_ctl(sv->ep, EPOLL_CTL_MOD, s->fd, &ev);
	s->events = want;
}

static void
mark_dirty(struct server *sv, struct session *s)
{
	if (!s->dirty) {
		s->dirty = 1;
		sv->dirty[sv->ndirty++] = (uint32_t)(s - sv->s);
	}
}

static void
mark_ready(struct server *sv, struct session *s)
{
	if (!s->ready) {
		s->ready = 1;
		sv->ready[sv->nready++] = (uint32_t)(s - sv->s);
	}
}

static void requeue_dlr(struct server *sv, struct session *s, unsigned k);

static void
rx_list_del(struct server *sv, struct session *s)
{
	struct user_rt *u = &sv->ur[s->user];
	uint32_t slot = (uint32_t)(s - sv->s);

	for (unsigned i = 0; i < u->nrx; i++)
		if (u->rx[i] == slot) {
			u->rx[i] = u->rx[--u->nrx];
			return;
		}
}

static void
sess_close(struct server *sv, struct session *s)
{
	if (s->fd < 0)
		return;
	smppd_log(SMPPD_INFO, "session %u (%s): closed", (unsigned)(s - sv->s), s->peer);
	while (s->ndout > 0)
		requeue_dlr(sv, s, s->ndout - 1);
	if (s->st != UNBOUND) {
		sv->nbound--;
		sv->ur[s->user].bound--;
		if (s->st != BOUND_TX)
			rx_list_del(sv, s);
	} else {
		sv->nunbound--;
	}
	if (s->ssl != NULL) {
		ERR_clear_error();
		SSL_shutdown(s->ssl);   /* one try: the peer may be gone */
		SSL_free(s->ssl);
		s->ssl = NULL;
	}
	epoll_ctl(sv->ep, EPOLL_CTL_DEL, s->fd, NULL);
	close(s->fd);
	s->fd = -1;
	s->gen++;              /* pending batch entries and auth results are dropped */
	/* the ready/dirty flags stay: their list entries skip a closed slot
	 * and serve the slot's next session */
	sv->free_slots[sv->nfree++] = (uint32_t)(s - sv->s);
}

/* Read at most n octets: > 0, 0 at the end, -EAGAIN, -EIO. */
static ssize_t
io_read(struct session *s, uint8_t *buf, size_t n)
{
	ssize_t r;
	int e;

	if (s->ssl == NULL) {
		do
			r = recv(s->fd, buf, n, 0);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -EIO;
		return r;
	}
	ERR_clear_error();
	r = SSL_read(s->ssl, buf, (int)n);
	if (r > 0)
		return r;
	e = SSL_get_error(s->ssl, (int)r);
	if (e == SSL_ERROR_WANT_READ)
		return -EAGAIN;
	if (e == SSL_ERROR_WANT_WRITE) {
		s->ssl_want_write = 1;
		return -EAGAIN;
	}
	return e == SSL_ERROR_ZERO_RETURN ? 0 : -EIO;
}

static ssize_t
io_write(struct session *s, const uint8_t *buf, size_t n)
{
	ssize_t r;
	int e;

	if (s->ssl == NULL) {
		do
			r = send(s->fd, buf, n, MSG_NOSIGNAL);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -EIO;
		return r;
	}
	ERR_clear_error();
	r = SSL_write(s->ssl, buf, (int)n);
	if (r > 0)
		return r;
	e = SSL_get_error(s->ssl, (int)r);
	if (e == SSL_ERROR_WANT_WRITE) {
		s->ssl_want_write = 1;
		return -EAGAIN;
	}
	return e == SSL_ERROR_WANT_READ ? -EAGAIN : -EIO;
}

static void
sess_flush(struct server *sv, struct session *s)
{
	size_t done = 0;

	if (s->fd < 0)
		return;
	s->ssl_want_write = 0;
	while (done < s->out_len) {
		ssize_t w = io_write(s, s->out + done, s->out_len - done);

		if (w == -EAGAIN)
			break;
		if (w < 0) {
			sess_close(sv, s);
			return;
		}
		done += (size_t)w;
	}
	if (done > 0) {
		memmove(s->out, s->out + done, s->out_len - done);
		s->out_len -= done;
	}
	if (s->out_len == 0 && s->closing) {
		sess_close(sv, s);
		return;
	}
	/* read again once most of what piled up is out */
	if (s->paused && s->out_len < OUT_HIGH / 2) {
		s->paused = 0;
		mark_ready(sv, s);
	}
	sess_events(sv, s);
}

/* Queue one PDU for the session; written at the end of this loop turn. */
static void
sess_send(struct server *sv, struct session *s, const struct smpp_msg *m)
{
	int n = smpp_encode(m, sv->enc, sizeof(sv->enc));

	if (s->fd < 0)
		return;
	if (n < 0) {
		smppd_log(SMPPD_ERR, "session %u: cannot encode 0x%08x: %s",
			  (unsigned)(s - sv->s), m->command_id, strerror(-n));
		return;
	}
	if (s->out_len + (size_t)n > OUT_LIMIT ||
	    tool_reserve(&s->out, &s->out_cap, s->out_len, (size_t)n) < 0) {
		smppd_log(SMPPD_WARN, "session %u (%s): does not read its responses, closed",
			  (unsigned)(s - sv->s), s->peer);
		sess_close(sv, s);
		return;
	}
	memcpy(s->out + s->out_len, sv->enc, (size_t)n);
	s->out_len += (size_t)n;
	count_out(sv, s, m->command_id, m->command_status);
	if (s->out_len >= OUT_HIGH && !s->paused)
		s->paused = 1;
	mark_dirty(sv, s);
}

static void
reply(struct server *sv, struct session *s, uint32_t cmd, uint32_t status,
      uint32_t seq, const char *body_str)
{
	const struct smpp_pdu_desc *d = smpp_pdu_desc_find(cmd);
	struct smpp_msg m;

	memset(&m, 0, sizeof(m));
	m.command_id = cmd;
	m.command_status = status;
	m.sequence_number = seq;
	/* error responses go without body (v3.4 4.x.2) */
	m.no_body = status != 0;
	if (body_str != NULL && d != NULL && d->nfields > 0) {
		m.v[0].p = (const uint8_t *)body_str;
		m.v[0].len = (uint32_t)strlen(body_str);
	}
	sess_send(sv, s, &m);
}

/* A request of ours (enquire_link, unbind): header only. */
static void
request(struct server *sv, struct session *s, uint32_t cmd)
{
	struct smpp_msg m;

	memset(&m, 0, sizeof(m));
	m.command_id = cmd;
	m.sequence_number = sv->next_seq;
	sv->next_seq = sv->next_seq >= 0x7fffffff ? 1 : sv->next_seq + 1;
	sess_send(sv, s, &m);
}

/* Answer, then close once it is written (at the latest after 1 s). */
static void
reply_close(struct server *sv, struct session *s, uint32_t cmd, uint32_t st, uint32_t seq)
{
	reply(sv, s, cmd, st, seq, NULL);
	s->closing = 1;
	s->t_close = sv->now + 1.0;
	sess_events(sv, s);
}

/* ---- the message store's side of the PDUs ------------------------------- */

struct view {
	const uint8_t *p;
	uint32_t len;
};

static struct view
fview(const struct smpp_pdu *p, const char *name)
{
	const struct smpp_view *v = smpp_field(p, name);

	return v ? (struct view){ smpp_view_ptr(p, v), v->len } : (struct view){ NULL, 0 };
}

static struct view
fidx(const struct smpp_pdu *p, int k)
{
	if (k < 0 || (unsigned)k >= p->nfields)
		return (struct view){ NULL, 0 };
	return (struct view){ p->pdu + p->f[k].off, p->f[k].len };
}

static uint8_t
fu8(const struct smpp_pdu *p, const char *name)
{
	int k = smpp_field_index(p->desc, name);

	return k < 0 ? 0 : (uint8_t)smpp_field_u(p, (unsigned)k);
}

static void
vcopy(char *dst, size_t cap, struct view v)
{
	size_t n = v.len < cap - 1 ? v.len : cap - 1;

	if (n > 0)
		memcpy(dst, v.p, n);
	dst[n] = '\0';
}

static int
vequal(const char *s, struct view v)
{
	return strlen(s) == v.len && (v.len == 0 || memcmp(s, v.p, v.len) == 0);
}

/* The text a receipt quotes: short_message, or message_payload. */
static void
msg_text(const struct smpp_pdu *p, struct view sm, struct smppd_msg *m)
{
	struct smpp_tlv t;

	if (sm.len == 0 && smpp_tlv_get(p, SMPP_TLV_MESSAGE_PAYLOAD, &t)) {
		sm.p = p->pdu + t.off;
		sm.len = t.len;
	}
	m->text_len = (uint8_t)(sm.len < SMPPD_TEXT ? sm.len : SMPPD_TEXT);
	if (m->text_len > 0)
		memcpy(m->text, sm.p, m->text_len);
}

/* Due and expiry times from schedule_delivery_time and validity_period
 * (v3.4 7.1.1); the status for a bad one. */
static uint32_t
msg_times(struct server *sv, struct view sched, struct view valid, struct smppd_msg *m)
{
	int64_t t;
	int k;

	m->due_ms = sv->now_ms;
	m->expire_ms = INT64_MAX;
	if ((k = smpp_time_parse(sched.p, sched.len, sv->now_ms, &t)) < 0)
		return ESME_RINVSCHED;
	if (k != SMPP_TIME_NONE)
		m->due_ms = t;
	if ((k = smpp_time_parse(valid.p, valid.len, sv->now_ms, &t)) < 0)
		return ESME_RINVEXPIRY;
	if (k != SMPP_TIME_NONE) {
		/* already over, or over before the message is due */
		if (t <= sv->now_ms || t < m->due_ms)
			return ESME_RINVEXPIRY;
		m->expire_ms = t;
	}
	m->due_ms += (int64_t)(kv(K_DLR_DELAY) * 1000);
	return ESME_ROK;
}

static void
msg_common(struct server *sv, struct session *s, struct view service, struct smppd_msg *m)
{
	m->submit_ms = sv->now_ms;
	m->user = (uint16_t)s->user;
	m->state = SMPP_STATE_ENROUTE;
	vcopy(m->service, sizeof(m->service), service);
}

static void
id_str(uint64_t id, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)id);
}

/* Our ids: 16 hex digits; anything else is no message of ours. */
static int
id_parse(struct view v, uint64_t *id)
{
	uint64_t x = 0;

	if (v.len != 16)
		return -1;
	for (unsigned i = 0; i < 16; i++) {
		int c = v.p[i], d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*id = x;
	return 0;
}

/* One submit_sm the batch decoded: store it, answer it. */
static void
submit_done(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	const struct sm_fields *f = &sv->sm;
	struct smppd_msg m;
	uint32_t st;
	char id[17];

	memset(&m, 0, sizeof(m));
	st = msg_times(sv, fidx(p, f->sched), fidx(p, f->valid), &m);
	if (st == ESME_ROK && smppd_store_room(&sv->store, 1) < 0)
		st = ESME_RMSGQFUL;
	if (st != ESME_ROK) {
		reply(sv, s, SMPP_SUBMIT_SM_RESP, st, p->sequence_number, NULL);
		return;
	}
	msg_common(sv, s, fidx(p, f->service), &m);
	m.src_ton = (uint8_t)smpp_field_u(p, (unsigned)f->src_ton);
	m.src_npi = (uint8_t)smpp_field_u(p, (unsigned)f->src_npi);
	m.dst_ton = (uint8_t)smpp_field_u(p, (unsigned)f->dst_ton);
	m.dst_npi = (uint8_t)smpp_field_u(p, (unsigned)f->dst_npi);
	m.reg = (uint8_t)smpp_field_u(p, (unsigned)f->reg);
	vcopy(m.src, sizeof(m.src), fidx(p, f->src));
	vcopy(m.dst, sizeof(m.dst), fidx(p, f->dst));
	msg_text(p, fidx(p, f->text), &m);
	m.id = smppd_store_new_id(&sv->store, wall_us());
	smppd_store_add(&sv->store, &m);
	id_str(m.id, id);
	reply(sv, s, SMPP_SUBMIT_SM_RESP, ESME_ROK, p->sequence_number, id);
}

static void
flush_batch(struct server *sv)
{
	int rc;

	if (sv->bcount == 0)
		return;
	sv->now_ms = wall_ms();
	rc = smpp_decode_batch(sv->ctx, sv->bbuf, sv->blen, SMPP_MODE_AUTO, &sv->batch);
	for (size_t i = 0; rc == 0 && i < sv->batch.n; i++) {
		const struct smpp_pdu *p = &sv->batch.pdus[i];
		const uint8_t *corr = sv->bbuf + p->corr_off;
		uint32_t slot = smpp_rd32(corr), gen = smpp_rd32(corr + 4);
		struct session *s;

		if (p->corr_len != CORR_LEN || slot >= sv->nslots)
			continue;
		s = &sv->s[slot];
		if (s->fd < 0 || s->gen != gen)
			continue;      /* the session went away meanwhile */
		s->inflight--;
		if (p->error != ESME_ROK)
			reply(sv, s, SMPP_SUBMIT_SM_RESP, p->error, p->sequence_number, NULL);
		else
			submit_done(sv, s, p);
	}
	if (rc < 0)
		smppd_log(SMPPD_ERR, "batch decode failed: %s", strerror(-rc));
	sv->blen = 0;
	sv->bcount = 0;
}

static void
queue_submit(struct server *sv, struct session *s, const uint8_t *pdu, uint32_t len)
{
	uint8_t corr[CORR_LEN];
	uint32_t slot = (uint32_t)(s - sv->s);
	int r;

	if (s->inflight >= (uint32_t)kv(K_WINDOW)) {
		/* its window is full: v3.4 5.1.3's throttling error */
		reply(sv, s, SMPP_SUBMIT_SM_RESP, ESME_RTHROTTLED, smpp_rd32(pdu + 12), NULL);
		return;
	}
	tool_put32(corr, slot);
	tool_put32(corr + 4, s->gen);
	r = smpp_element_append(&sv->cfg, sv->bbuf, sv->bcap, sv->blen, corr, pdu, len);
	if (r < 0) {
		flush_batch(sv);
		r = smpp_element_append(&sv->cfg, sv->bbuf, sv->bcap, sv->blen, corr, pdu, len);
		if (r < 0)
			return;
	}
	if (sv->bcount == 0)
		sv->bfirst = sv->now;
	sv->blen = (size_t)r;
	s->inflight++;
	if (s->inflight > s->c.win_peak) {
		s->c.win_peak = s->inflight;
		if (s->inflight > sv->ur[s->user].c.win_peak)
			sv->ur[s->user].c.win_peak = s->inflight;
	}
	if (++sv->bcount >= sv->bmax)
		flush_batch(sv);
}

static void
submit_multi(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	const struct smpp_pdu_desc *rd = smpp_pdu_desc_find(SMPP_SUBMIT_MULTI_RESP);
	int li = smpp_field_index(p->desc, "dest_address");
	uint8_t uns[254 * (2 + SMPPD_ADDR + 4)];
	size_t ul = 0;
	unsigned nok = 0, nbad = 0;
	struct smppd_msg m;
	struct smpp_dest d;
	struct smpp_msg r;
	uint32_t it = 0, st;
	char id[17] = "";

	memset(&m, 0, sizeof(m));
	st = msg_times(sv, fview(p, "schedule_delivery_time"), fview(p, "validity_period"), &m);
	while (st == ESME_ROK && smpp_list_iter(p, (unsigned)li, &it, &d))
		nok += d.dest_flag == 1;
	if (st == ESME_ROK && nok > 0 && smppd_store_room(&sv->store, nok) < 0)
		st = ESME_RMSGQFUL;
	if (st != ESME_ROK) {
		reply(sv, s, SMPP_SUBMIT_MULTI_RESP, st, p->sequence_number, NULL);
		return;
	}
	msg_common(sv, s, fview(p, "service_type"), &m);
	m.src_ton = fu8(p, "source_addr_ton");
	m.src_npi = fu8(p, "source_addr_npi");
	m.reg = fu8(p, "registered_delivery");
	vcopy(m.src, sizeof(m.src), fview(p, "source_addr"));
	msg_text(p, fview(p, "short_message"), &m);
	if (nok > 0)
		m.id = smppd_store_new_id(&sv->store, wall_us());
	it = 0;
	while (smpp_list_iter(p, (unsigned)li, &it, &d)) {
		if (d.dest_flag == 1) {
			/* one record per SME address, all under the one id */
			m.dst_ton = d.ton;
			m.dst_npi = d.npi;
			vcopy(m.dst, sizeof(m.dst), (struct view){ d.addr, d.addr_len });
			smppd_store_add(&sv->store, &m);
			continue;
		}
		/* a distribution list: this SMSC has none (v3.4 4.5.2 entry:
		 * ton, npi, address, error_status_code; no dest_flag) */
		uns[ul++] = 0;
		uns[ul++] = 0;
		memcpy(uns + ul, d.addr, d.addr_len);
		ul += d.addr_len;
		uns[ul++] = 0;
		tool_put32(uns + ul, ESME_RINVDLNAME);
		ul += 4;
		nbad++;
	}
	if (nok > 0)
		id_str(m.id, id);
	memset(&r, 0, sizeof(r));
	r.command_id = SMPP_SUBMIT_MULTI_RESP;
	r.sequence_number = p->sequence_number;
	r.v[smpp_field_index(rd, "message_id")].p = (const uint8_t *)id;
	r.v[smpp_field_index(rd, "message_id")].len = (uint32_t)strlen(id);
	r.v[smpp_field_index(rd, "unsuccess_sme")].p = uns;
	r.v[smpp_field_index(rd, "unsuccess_sme")].len = (uint32_t)ul;
	r.v[smpp_field_index(rd, "unsuccess_sme")].u = nbad;
	sess_send(sv, s, &r);
}

static void
data_sm(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	struct view src = fview(p, "source_addr"), dst = fview(p, "destination_addr");
	struct smppd_msg m;
	struct smpp_tlv t;
	char id[17];

	/* data_sm allows 64-character addresses; the store keeps 20 */
	if (src.len >= SMPPD_ADDR || dst.len >= SMPPD_ADDR) {
		reply(sv, s, SMPP_DATA_SM_RESP, src.len >= SMPPD_ADDR ? ESME_RINVSRCADR :
		      ESME_RINVDSTADR, p->sequence_number, NULL);
		return;
	}
	if (smppd_store_room(&sv->store, 1) < 0) {
		reply(sv, s, SMPP_DATA_SM_RESP, ESME_RMSGQFUL, p->sequence_number, NULL);
		return;
	}
	memset(&m, 0, sizeof(m));
	msg_common(sv, s, fview(p, "service_type"), &m);
	m.due_ms = sv->now_ms + (int64_t)(kv(K_DLR_DELAY) * 1000);
	m.expire_ms = INT64_MAX;
	/* data_sm has no validity_period; qos_time_to_live (5.3.2.9) stands in */
	if (smpp_tlv_get(p, SMPP_TLV_QOS_TIME_TO_LIVE, &t) && t.len == 4)
		m.expire_ms = sv->now_ms + (int64_t)smpp_rd32(p->pdu + t.off) * 1000;
	m.src_ton = fu8(p, "source_addr_ton");
	m.src_npi = fu8(p, "source_addr_npi");
	m.dst_ton = fu8(p, "dest_addr_ton");
	m.dst_npi = fu8(p, "dest_addr_npi");
	m.reg = fu8(p, "registered_delivery");
	vcopy(m.src, sizeof(m.src), src);
	vcopy(m.dst, sizeof(m.dst), dst);
	msg_text(p, (struct view){ NULL, 0 }, &m);
	m.id = smppd_store_new_id(&sv->store, wall_us());
	smppd_store_add(&sv->store, &m);
	id_str(m.id, id);
	reply(sv, s, SMPP_DATA_SM_RESP, ESME_ROK, p->sequence_number, id);
}

/* The first record of message id that this session's system_id sent from
 * source address src (any, when src is empty). */
static struct smppd_msg *
own_msg(struct server *sv, struct session *s, struct view idv, struct view src,
	uint32_t *slot, uint32_t *st, uint32_t notfound)
{
	struct smppd_msg *m;
	uint64_t id;

	if (id_parse(idv, &id) < 0) {
		*st = ESME_RINVMSGID;
		return NULL;
	}
	m = smppd_store_find(&sv->store, id, slot);
	if (m == NULL || m->user != s->user || (src.len > 0 && !vequal(m->src, src))) {
		*st = notfound;
		return NULL;
	}
	*st = ESME_ROK;
	return m;
}

static void
query_sm(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	const struct smpp_pdu_desc *rd = smpp_pdu_desc_find(SMPP_QUERY_SM_RESP);
	struct smppd_msg *m;
	struct smpp_msg r;
	uint32_t slot, st;
	char id[17], fin[17] = "";

	m = own_msg(sv, s, fview(p, "message_id"), fview(p, "source_addr"), &slot, &st,
		    ESME_RQUERYFAIL);
	if (m == NULL) {
		reply(sv, s, SMPP_QUERY_SM_RESP, st, p->sequence_number, NULL);
		return;
	}
	id_str(m->id, id);
	if (m->state != SMPP_STATE_ENROUTE && smpp_time_format(m->done_ms, fin) < 0)
		fin[0] = '\0';
	memset(&r, 0, sizeof(r));
	r.command_id = SMPP_QUERY_SM_RESP;
	r.sequence_number = p->sequence_number;
	r.v[smpp_field_index(rd, "message_id")].p = (const uint8_t *)id;
	r.v[smpp_field_index(rd, "message_id")].len = 16;
	r.v[smpp_field_index(rd, "final_date")].p = (const uint8_t *)fin;
	r.v[smpp_field_index(rd, "final_date")].len = (uint32_t)strlen(fin);
	r.v[smpp_field_index(rd, "message_state")].u = m->state;
	r.v[smpp_field_index(rd, "error_code")].u = m->err;
	sess_send(sv, s, &r);
}

static void
finalize(struct server *sv, uint32_t slot, int state)
{
	struct smppd_msg *m = &sv->store.m[slot];

	m->state = (uint8_t)state;
	m->done_ms = sv->now_ms;
	smppd_store_retime(&sv->store, slot);
}

static int
cancel_match(const struct smppd_msg *m, struct view dst)
{
	return m->state == SMPP_STATE_ENROUTE && (dst.len == 0 || vequal(m->dst, dst));
}

static void
cancel_sm(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	struct view idv = fview(p, "message_id"), src = fview(p, "source_addr");
	struct view dst = fview(p, "destination_addr"), svc = fview(p, "service_type");
	struct smppd_msg *m;
	uint32_t slot, st = ESME_ROK;
	unsigned n = 0;

	if (idv.len > 0) {
		m = own_msg(sv, s, idv, src, &slot, &st, ESME_RCANCELFAIL);
		for (; m != NULL; m = smppd_store_next(&sv->store, &slot))
			if (cancel_match(m, dst)) {
				finalize(sv, slot, SMPP_STATE_DELETED);
				n++;
			}
	} else {
		/* no id: every pending message from source_addr (to
		 * destination_addr, of service_type, when given; v3.4 4.9.1) */
		for (uint32_t i = 0; i < sv->store.n; i++) {
			uint32_t k = (sv->store.head + i) % sv->store.cap;

			m = &sv->store.m[k];
			if (m->user == s->user && vequal(m->src, src) && cancel_match(m, dst) &&
			    (svc.len == 0 || vequal(m->service, svc))) {
				finalize(sv, k, SMPP_STATE_DELETED);
				n++;
			}
		}
	}
	if (st == ESME_ROK && n == 0)
		st = ESME_RCANCELFAIL;
	reply(sv, s, SMPP_CANCEL_SM_RESP, st, p->sequence_number, NULL);
}

static void
replace_sm(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	struct view sched = fview(p, "schedule_delivery_time");
	struct view valid = fview(p, "validity_period");
	struct smppd_msg *m, t;
	uint32_t slot, st;

	m = own_msg(sv, s, fview(p, "message_id"), fview(p, "source_addr"), &slot, &st,
		    ESME_RREPLACEFAIL);
	if (m != NULL && m->state != SMPP_STATE_ENROUTE)
		st = ESME_RREPLACEFAIL;     /* final already */
	if (st == ESME_ROK) {
		/* empty times keep the old ones (v3.4 4.10.1) */
		st = msg_times(sv, sched, valid, &t);
		if (sched.len == 0)
			t.due_ms = m->due_ms;
		if (valid.len == 0)
			t.expire_ms = m->expire_ms;
		if (st == ESME_ROK && t.expire_ms < t.due_ms && valid.len == 0)
			st = ESME_RINVSCHED;
	}
	for (; st == ESME_ROK && m != NULL; m = smppd_store_next(&sv->store, &slot)) {
		m->due_ms = t.due_ms;
		m->expire_ms = t.expire_ms;
		m->reg = fu8(p, "registered_delivery");
		msg_text(p, fview(p, "short_message"), m);
		smppd_store_retime(&sv->store, slot);
	}
	reply(sv, s, SMPP_REPLACE_SM_RESP, st, p->sequence_number, NULL);
}

/* ---- delivery receipts -------------------------------------------------- */

/* A record became final: its receipt waits for a receiver when
 * registered_delivery asks for one (v3.4 5.2.17 bits 1-0: 01 always, 10
 * on failure only). */
static void
became_final(struct server *sv, uint32_t slot)
{
	struct smppd_msg *m = &sv->store.m[slot];
	unsigned want = m->reg & 3;

	m->state = (uint8_t)(m->due_ms <= m->expire_ms ? sv->final_state : SMPP_STATE_EXPIRED);
	m->done_ms = sv->now_ms;
	m->err = (uint8_t)kv(K_DLR_ERR);
	if (want == 1 || (want == 2 && m->state != SMPP_STATE_DELIVERED)) {
		m->dlr = 1;
		smppd_store_dlr_push(&sv->store, m->user, slot);
	}
}

static void
send_receipt(struct server *sv, struct session *s, uint32_t slot)
{
	const struct smpp_pdu_desc *d = smpp_pdu_desc_find(SMPP_DELIVER_SM);
	struct smppd_msg *m = &sv->store.m[slot];
	struct smpp_tlv_value tlv[3];
	uint8_t state = m->state, nec[3];
	char text[254], id[17];
	struct smpp_msg r;
	int n = smppd_receipt_text(m, text, sizeof(text));

	id_str(m->id, id);
	memset(&r, 0, sizeof(r));
	r.command_id = SMPP_DELIVER_SM;
	r.sequence_number = sv->next_seq;
	sv->next_seq = sv->next_seq >= 0x7fffffff ? 1 : sv->next_seq + 1;
	/* from the recipient to the sender of the original message */
	r.v[smpp_field_index(d, "source_addr_ton")].u = m->dst_ton;
	r.v[smpp_field_index(d, "source_addr_npi")].u = m->dst_npi;
	r.v[smpp_field_index(d, "source_addr")].p = (const uint8_t *)m->dst;
	r.v[smpp_field_index(d, "source_addr")].len = (uint32_t)strlen(m->dst);
	r.v[smpp_field_index(d, "dest_addr_ton")].u = m->src_ton;
	r.v[smpp_field_index(d, "dest_addr_npi")].u = m->src_npi;
	r.v[smpp_field_index(d, "destination_addr")].p = (const uint8_t *)m->src;
	r.v[smpp_field_index(d, "destination_addr")].len = (uint32_t)strlen(m->src);
	r.v[smpp_field_index(d, "esm_class")].u = 0x04;   /* SMSC delivery receipt, 5.2.12 */
	r.v[smpp_field_index(d, "short_message")].p = (const uint8_t *)text;
	r.v[smpp_field_index(d, "short_message")].len = (uint32_t)n;
	/* 5.3.2.12 receipted_message_id (C-string), 5.3.2.35 message_state */
	tlv[0] = (struct smpp_tlv_value){ SMPP_TLV_RECEIPTED_MESSAGE_ID, 17, (const uint8_t *)id };
	tlv[1] = (struct smpp_tlv_value){ SMPP_TLV_MESSAGE_STATE, 1, &state };
	r.tlv = tlv;
	r.ntlv = 2;
	if (m->err != 0) {
		/* 5.3.2.31 network_error_code: type 3 (GSM), the error */
		nec[0] = 3;
		nec[1] = 0;
		nec[2] = m->err;
		tlv[2] = (struct smpp_tlv_value){ SMPP_TLV_NETWORK_ERROR_CODE, 3, nec };
		r.ntlv = 3;
	}
	s->dout[s->ndout++] = (struct dlr_out){ r.sequence_number, slot, m->id, sv->now };
	if (s->ndout > s->c.dlr_peak) {
		s->c.dlr_peak = s->ndout;
		if (s->ndout > sv->ur[s->user].c.dlr_peak)
			sv->ur[s->user].c.dlr_peak = s->ndout;
	}
	m->tries++;
	sess_send(sv, s, &r);
}

/* Receipt k of the session was refused, timed out or its session closed:
 * back to the queue for another try, or dropped after DLR_TRIES. */
static void
requeue_dlr(struct server *sv, struct session *s, unsigned k)
{
	struct dlr_out o = s->dout[k];
	struct smppd_msg *m = &sv->store.m[o.slot];

	s->dout[k] = s->dout[--s->ndout];
	if (m->id != o.id || !m->dlr)
		return;
	if (m->tries >= DLR_TRIES) {
		m->dlr = 0;
		sv->store.dlr_dropped++;
		return;
	}
	smppd_store_dlr_push(&sv->store, m->user, o.slot);
}

static void
deliver_resp(struct server *sv, struct session *s, uint32_t seq, uint32_t st)
{
	for (unsigned k = 0; k < s->ndout; k++) {
		struct smppd_msg *m;

		if (s->dout[k].seq != seq)
			continue;
		m = &sv->store.m[s->dout[k].slot];
		if (st != ESME_ROK) {
			s->c.receipt_fails++;
			sv->ur[s->user].c.receipt_fails++;
			requeue_dlr(sv, s, k);
			return;
		}
		if (m->id == s->dout[k].id)
			m->dlr = 0;
		s->c.receipts++;
		sv->ur[s->user].c.receipts++;
		s->dout[k] = s->dout[--s->ndout];
		return;
	}
}

/* Send waiting receipts to receivers with room in their window, round
 * robin, a bounded number per turn. */
static void
deliver_receipts(struct server *sv)
{
	for (unsigned u = 0; u < sv->nusers; u++) {
		struct user_rt *ur = &sv->ur[u];
		unsigned budget = 256, idle = 0;

		while (budget > 0 && ur->nrx > 0 && smppd_store_dlr_len(&sv->store, u) > 0 &&
		       idle < ur->nrx) {
			struct session *s = &sv->s[ur->rx[ur->rr % ur->nrx]];
			struct smppd_msg *m;
			uint32_t slot;

			ur->rr++;
			if (s->ndout >= (unsigned)kv(K_DLR_WINDOW) || s->closing || s->unbinding ||
			    s->out_len >= OUT_HIGH) {
				idle++;
				continue;
			}
			idle = 0;
			m = smppd_store_dlr_pop(&sv->store, u, &slot);
			if (m == NULL)
				break;
			send_receipt(sv, s, slot);
			budget--;
		}
	}
}

/* ---- binds ----------------------------------------------------------------- */

static void
bind_ok(struct server *sv, struct session *s, uint32_t cmd, uint32_t seq, int user)
{
	struct user_rt *u = &sv->ur[user];
	uint8_t ver = 0x34;
	struct smpp_tlv_value tlv = { SMPP_TLV_SC_INTERFACE_VERSION, 1, &ver };
	struct smpp_msg m;

	s->st = cmd == SMPP_BIND_TRANSMITTER ? BOUND_TX :
		cmd == SMPP_BIND_RECEIVER ? BOUND_RX : BOUND_TRX;
	s->user = user;
	sv->nunbound--;
	sv->nbound++;
	u->bound++;
	u->c.binds++;
	s->c.binds++;
	if (s->st != BOUND_TX)
		u->rx[u->nrx++] = (uint32_t)(s - sv->s);
	s->t_rx = sv->now;
	smppd_log(SMPPD_INFO, "session %u (%s): bound %s as %s", (unsigned)(s - sv->s),
		  s->peer, sv->users[user].id, s->st == BOUND_TX ? "transmitter" :
		  s->st == BOUND_RX ? "receiver" : "transceiver");
	/* sc_interface_version (5.3.2.25) tells the ESME that this SMSC
	 * takes TLVs (v3.4 = 0x34) */
	memset(&m, 0, sizeof(m));
	m.command_id = cmd | SMPP_RESP_BIT;
	m.sequence_number = seq;
	m.v[0].p = (const uint8_t *)"hp-smppd";
	m.v[0].len = 8;
	m.tlv = &tlv;
	m.ntlv = 1;
	sess_send(sv, s, &m);
}

static void
bind_fail(struct server *sv, struct session *s, uint32_t cmd, uint32_t seq, int user,
	  uint32_t st)
{
	s->c.bind_fails++;
	if (user >= 0)
		sv->ur[user].c.bind_fails++;
	smppd_log(SMPPD_INFO, "session %u (%s): bind refused: %s", (unsigned)(s - sv->s),
		  s->peer, smpp_status_name(st));
	reply_close(sv, s, cmd | SMPP_RESP_BIT, st, seq);
}

/* The limits: sessions of the server (ESME_RBINDFAIL: this SMSC takes no
 * more binds) and of the system_id (ESME_RTHROTTLED: this account has
 * more than it may). */
static uint32_t
bind_limits(struct server *sv, int user)
{
	if (sv->nbound >= sv->max_sessions)
		return ESME_RBINDFAIL;
	if (sv->ur[user].limit && sv->ur[user].bound >= sv->ur[user].limit)
		return ESME_RTHROTTLED;
	return ESME_ROK;
}

/* The password's verdict is in: ok or not. */
static void
bind_verdict(struct server *sv, struct session *s, uint32_t cmd, uint32_t seq, int user,
	     int ok, const char *pw, size_t pwlen)
{
	struct user_rt *u = &sv->ur[user];
	uint32_t st;

	if (!ok) {
		bind_fail(sv, s, cmd, seq, user, ESME_RINVPASWD);
		return;
	}
	if (!u->tag_ok && smppd_auth_tag(sv->tag_key, pw, pwlen, u->tag) == 0)
		u->tag_ok = 1;
	st = bind_limits(sv, user);   /* again: the worker took its time */
	if (st != ESME_ROK)
		bind_fail(sv, s, cmd, seq, user, st);
	else
		bind_ok(sv, s, cmd, seq, user);
}

static void
handle_bind(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	struct view id = fview(p, "system_id"), pw = fview(p, "password");
	struct smppd_auth_req req;
	char pws[9];
	uint8_t tag[32];
	int user = -1;
	uint32_t st;

	if (s->st != UNBOUND) {
		reply(sv, s, p->command_id | SMPP_RESP_BIT, ESME_RALYBND, p->sequence_number, NULL);
		return;
	}
	for (unsigned u = 0; u < sv->nusers; u++)
		if (vequal(sv->users[u].id, id))
			user = (int)u;
	if (user < 0) {
		bind_fail(sv, s, p->command_id, p->sequence_number, -1, ESME_RINVSYSID);
		return;
	}
	/* over a limit: refused before the password costs anything */
	st = bind_limits(sv, user);
	if (st != ESME_ROK) {
		bind_fail(sv, s, p->command_id, p->sequence_number, user, st);
		return;
	}
	vcopy(pws, sizeof(pws), pw);
	if (!sv->users[user].hashed) {
		bind_verdict(sv, s, p->command_id, p->sequence_number, user,
			     smppd_auth_check(&sv->users[user], pws, pw.len), pws, pw.len);
		goto out;
	}
	if (sv->ur[user].tag_ok) {
		/* this user's password was accepted before: its HMAC answers */
		int ok = smppd_auth_tag(sv->tag_key, pws, pw.len, tag) == 0 &&
			 CRYPTO_memcmp(tag, sv->ur[user].tag, 32) == 0;

		bind_verdict(sv, s, p->command_id, p->sequence_number, user, ok, pws, pw.len);
		goto out;
	}
	memset(&req, 0, sizeof(req));
	req.slot = (uint32_t)(s - sv->s);
	req.gen = s->gen;
	req.seq = p->sequence_number;
	req.cmd = p->command_id;
	req.user = user;
	memcpy(req.pw, pws, sizeof(req.pw));
	req.pwlen = (uint8_t)pw.len;
	if (smppd_auth_submit(&req) < 0) {
		/* a queue of first binds (a guessing attack, say): try later */
		bind_fail(sv, s, p->command_id, p->sequence_number, user, ESME_RTHROTTLED);
	} else {
		s->binding = 1;       /* no more reading until the verdict */
		sess_events(sv, s);
	}
	OPENSSL_cleanse(&req, sizeof(req));
out:
	OPENSSL_cleanse(pws, sizeof(pws));
}

static void process_rx(struct server *sv, struct session *s);

static void
auth_results(struct server *sv)
{
	struct smppd_auth_req r;

	while (smppd_auth_result(&r)) {
		struct session *s = &sv->s[r.slot];

		if (r.slot < sv->nslots && s->fd >= 0 && s->gen == r.gen && s->binding) {
			s->binding = 0;
			bind_verdict(sv, s, r.cmd, r.seq, r.user, r.ok, r.pw, r.pwlen);
			/* PDUs that came behind the bind */
			if (s->fd >= 0 && s->gen == r.gen) {
				process_rx(sv, s);
				mark_ready(sv, s);
				sess_events(sv, s);
			}
		}
		OPENSSL_cleanse(&r, sizeof(r));
	}
}

/* ---- PDUs ------------------------------------------------------------------- */

static void
handle_resp(struct server *sv, struct session *s, uint32_t id, uint32_t st, uint32_t seq)
{
	switch (id) {
	case SMPP_DELIVER_SM_RESP:
		if (s->st != UNBOUND)
			deliver_resp(sv, s, seq, st);
		break;
	case SMPP_GENERIC_NACK:
		if (s->st != UNBOUND)
			deliver_resp(sv, s, seq, st ? st : ESME_RUNKNOWNERR);
		break;
	case SMPP_UNBIND_RESP:
		if (s->unbinding) {
			s->closing = 1;
			s->t_close = sv->now + 1.0;
			mark_dirty(sv, s);
		}
		break;
	default:
		break;   /* enquire_link_resp: any PDU counts as alive */
	}
}

/* One complete PDU (exactly command_length octets) from a session. */
static void
handle_pdu(struct server *sv, struct session *s, const uint8_t *b, uint32_t len)
{
	struct smpp_pdu p;
	uint32_t id = smpp_rd32(b + 4), seq = smpp_rd32(b + 12);
	int tx = s->st == BOUND_TX || s->st == BOUND_TRX;
	int err;

	count_in(sv, s, id);
	s->t_rx = sv->now;
	s->t_enq = 0;
	if (id & SMPP_RESP_BIT) {
		handle_resp(sv, s, id, smpp_rd32(b + 8), seq);
		return;
	}
	if (id == SMPP_SUBMIT_SM && tx) {
		queue_submit(sv, s, b, len);   /* decoded in the next batch */
		return;
	}
	err = smpp_decode_pdu(b, len, sv->cfg.flags, 0, &p);
	if (p.desc == NULL) {
		reply(sv, s, SMPP_GENERIC_NACK, ESME_RINVCMDID, seq, NULL);
		return;
	}
	if (err != ESME_ROK) {
		if (id == SMPP_BIND_TRANSMITTER || id == SMPP_BIND_RECEIVER ||
		    id == SMPP_BIND_TRANSCEIVER)
			bind_fail(sv, s, id, seq, -1, (uint32_t)err);
		else
			reply(sv, s, id | SMPP_RESP_BIT, (uint32_t)err, seq, NULL);
		return;
	}
	switch (id) {
	case SMPP_BIND_TRANSMITTER:
	case SMPP_BIND_RECEIVER:
	case SMPP_BIND_TRANSCEIVER:
		handle_bind(sv, s, &p);
		return;
	case SMPP_ENQUIRE_LINK:
		reply(sv, s, SMPP_ENQUIRE_LINK_RESP, ESME_ROK, seq, NULL);
		return;
	case SMPP_UNBIND:
		if (s->st == UNBOUND) {
			reply(sv, s, SMPP_UNBIND_RESP, ESME_RINVBNDSTS, seq, NULL);
			return;
		}
		flush_batch(sv);  /* answer what it sent before leaving */
		reply_close(sv, s, SMPP_UNBIND_RESP, ESME_ROK, seq);
		return;
	case SMPP_OUTBIND:
	case SMPP_ALERT_NOTIFICATION:
		/* SMSC -> ESME only; alert_notification has no response */
		reply(sv, s, SMPP_GENERIC_NACK, ESME_RINVBNDSTS, seq, NULL);
		return;
	default:
		break;
	}
	/* ESME -> SMSC operations of a transmitter or transceiver (v3.4
	 * 2.3); before a bind, on a receiver, and deliver_sm (SMSC -> ESME):
	 * ESME_RINVBNDSTS */
	if (!tx || id == SMPP_DELIVER_SM || id == SMPP_SUBMIT_SM) {
		reply(sv, s, id | SMPP_RESP_BIT, ESME_RINVBNDSTS, seq, NULL);
		return;
	}
	sv->now_ms = wall_ms();
	switch (id) {
	case SMPP_SUBMIT_MULTI: submit_multi(sv, s, &p); return;
	case SMPP_DATA_SM:      data_sm(sv, s, &p); return;
	case SMPP_QUERY_SM:     query_sm(sv, s, &p); return;
	case SMPP_CANCEL_SM:    cancel_sm(sv, s, &p); return;
	case SMPP_REPLACE_SM:   replace_sm(sv, s, &p); return;
	default:
		reply(sv, s, id | SMPP_RESP_BIT, ESME_RINVCMDID, seq, NULL);
		return;
	}
}

/* The complete PDUs in the session's buffer; a half one stays (its timer
 * started when it began). */
static void
process_rx(struct server *sv, struct session *s)
{
	uint32_t gen = s->gen;
	size_t off = 0;

	while (s->fd >= 0 && s->gen == gen && !s->closing && !s->binding &&
	       s->rx_len - off >= 4) {
		uint32_t cl = smpp_rd32(s->rx + off);

		if (cl < SMPP_HEADER_LEN || cl > sv->max_pdu) {
			/* no way to find the next PDU on this stream */
			uint32_t seq = s->rx_len - off >= 16 ? smpp_rd32(s->rx + off + 12) : 0;

			smppd_log(SMPPD_INFO, "session %u (%s): command_length %u, closed",
				  (unsigned)(s - sv->s), s->peer, cl);
			reply_close(sv, s, SMPP_GENERIC_NACK, ESME_RINVCMDLEN, seq);
			return;
		}
		if (s->rx_len - off < cl)
			break;
		handle_pdu(sv, s, s->rx + off, cl);
		off += cl;
	}
	if (s->fd < 0 || s->gen != gen)
		return;
	if (off > 0) {
		memmove(s->rx, s->rx + off, s->rx_len - off);
		s->rx_len -= off;
		s->t_partial = s->rx_len ? sv->now : 0;
	} else if (s->rx_len > 0 && s->t_partial == 0) {
		s->t_partial = sv->now;
	}
}

static int
tls_handshake(struct server *sv, struct session *s)
{
	int r, e;

	ERR_clear_error();
	r = SSL_accept(s->ssl);
	if (r == 1) {
		s->hs_done = 1;
		smppd_log(SMPPD_INFO, "session %u (%s): TLS %s", (unsigned)(s - sv->s),
			  s->peer, SSL_get_version(s->ssl));
		return 0;
	}
	e = SSL_get_error(s->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		s->ssl_want_write = e == SSL_ERROR_WANT_WRITE;
		sess_events(sv, s);
		return -EAGAIN;
	}
	smppd_log(SMPPD_INFO, "session %u (%s): TLS handshake failed: %s",
		  (unsigned)(s - sv->s), s->peer, ERR_reason_error_string(ERR_peek_error()) ?
		  ERR_reason_error_string(ERR_peek_error()) : "connection closed");
	sess_close(sv, s);
	return -EIO;
}

/* The peer has sent all it will (FIN, or TLS close_notify): what it sent
 * is answered before the close, submits still in the batch too, since a
 * client may half-close after its last PDU and still read (a half PDU left
 * over is dropped). */
static void
sess_eof(struct server *sv, struct session *s)
{
	if (s->inflight > 0)
		flush_batch(sv);
	if (s->fd < 0)
		return;
	s->closing = 1;
	s->t_close = sv->now + 1.0;
	mark_dirty(sv, s);
	sess_events(sv, s);
}

/* Read at most read_budget octets and handle what is complete; when the
 * budget ran out the session goes on the ready list and is served again
 * after the others, so a flooding session costs the rest one budget per
 * turn. */
static void
sess_read(struct server *sv, struct session *s)
{
	size_t budget = (size_t)kv(K_READ_BUDGET), got = 0;
	uint32_t gen = s->gen;

	if (s->ssl != NULL && !s->hs_done && tls_handshake(sv, s) < 0)
		return;
	while (got < budget && s->fd >= 0 && s->gen == gen && can_read(s)) {
		size_t room = sv->rxcap - s->rx_len;
		ssize_t r;

		if (room > budget - got)
			room = budget - got;
		r = io_read(s, s->rx + s->rx_len, room);
		if (r == -EAGAIN)
			break;
		if (r == 0) {
			sess_eof(sv, s);
			return;
		}
		if (r < 0) {
			sess_close(sv, s);
			return;
		}
		s->rx_len += (size_t)r;
		got += (size_t)r;
		process_rx(sv, s);
	}
	if (s->fd < 0 || s->gen != gen)
		return;
	if (can_read(s) && (got >= budget || (s->ssl != NULL && SSL_pending(s->ssl) > 0)))
		mark_ready(sv, s);
	sess_events(sv, s);
}

/* ---- accepting ---------------------------------------------------------- */

/* Close the unbound connection that has waited longest: the pool of
 * unbound connections is small, and an idle one must not keep a client
 * that binds at once from getting in. */
static int
evict_unbound(struct server *sv)
{
	struct session *old = NULL;

	for (unsigned i = 0; i < sv->nslots; i++) {
		struct session *s = &sv->s[i];

		if (s->fd >= 0 && s->st == UNBOUND && (old == NULL || s->t_open < old->t_open))
			old = s;
	}
	if (old == NULL)
		return 0;
	smppd_log(SMPPD_INFO, "session %u (%s): unbound, making room", (unsigned)(old - sv->s),
		  old->peer);
	sv->evicted++;
	sess_close(sv, old);
	return 1;
}

static void
peer_name(const struct sockaddr_storage *a, char *out, size_t cap)
{
	char h[INET6_ADDRSTRLEN] = "?";

	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)a;

		inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof(h));
		snprintf(out, cap, "[%s]:%u", h, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const void *)a;

		inet_ntop(AF_INET, &s4->sin_addr, h, sizeof(h));
		snprintf(out, cap, "%s:%u", h, ntohs(s4->sin_port));
	}
}

static void
pause_accept(struct server *sv, int err)
{
	/* out of descriptors and no unbound connection to give up: stop
	 * accepting for a moment rather than spin on a readable listener */
	for (unsigned i = 0; i < sv->nlst; i++) {
		struct epoll_event ev = { .events = 0, .data.u32 = TAG_LST + i };

		epoll_ctl(sv->ep, EPOLL_CTL_MOD, sv->lst[i].fd, &ev);
		sv->lst[i].paused_until = sv->now + 0.1;
	}
	sv->accept_pauses++;
	if (sv->now - sv->last_accept_log >= 1.0) {
		smppd_log(SMPPD_WARN, "accept: %s: not accepting for 100 ms (%llu times so far)",
			  strerror(err), (unsigned long long)sv->accept_pauses);
		sv->last_accept_log = sv->now;
	}
}

static void
resume_accept(struct server *sv)
{
	for (unsigned i = 0; i < sv->nlst; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TAG_LST + i };

		if (sv->lst[i].paused_until == 0 || sv->now < sv->lst[i].paused_until)
			continue;
		sv->lst[i].paused_until = 0;
		epoll_ctl(sv->ep, EPOLL_CTL_MOD, sv->lst[i].fd, &ev);
	}
}

static void
sess_open(struct server *sv, int fd, const struct listener *l,
	  const struct sockaddr_storage *peer)
{
	uint32_t slot = sv->free_slots[--sv->nfree];
	struct session *s = &sv->s[slot];
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = slot };
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (s->rx == NULL && (s->rx = malloc(sv->rxcap)) == NULL) {
		close(fd);
		sv->free_slots[sv->nfree++] = slot;
		return;
	}
	s->fd = fd;
	s->st = UNBOUND;
	s->user = -1;
	s->closing = s->unbinding = s->binding = s->paused = 0;
	s->rx_len = s->out_len = 0;
	s->t_open = s->t_rx = sv->now;
	s->t_partial = s->t_enq = s->t_close = 0;
	s->inflight = 0;
	s->ndout = 0;
	s->hs_done = s->ssl_want_write = 0;
	s->events = EPOLLIN;
	memset(&s->c, 0, sizeof(s->c));
	peer_name(peer, s->peer, sizeof(s->peer));
	sv->nunbound++;
	if (l->tls) {
		s->ssl = SSL_new(sv->tls);
		if (s->ssl == NULL || SSL_set_fd(s->ssl, fd) != 1) {
			sess_close(sv, s);
			return;
		}
	}
	if (epoll_ctl(sv->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		s->events = 0;
		sess_close(sv, s);
		return;
	}
	smppd_log(SMPPD_INFO, "session %u (%s): connected%s", slot, s->peer,
		  l->tls ? " (TLS)" : "");
}

static void
do_accept(struct server *sv, struct listener *l)
{
	/* a bounded number per turn: the sessions get their turn too */
	for (int k = 0; k < 64; k++) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		int fd = accept4(l->fd, (struct sockaddr *)&peer, &pl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			int e = errno;

			if (e == EAGAIN || e == EWOULDBLOCK)
				return;
			if (e == EINTR || e == ECONNABORTED || e == EPROTO)
				continue;
			sv->accept_errors++;
			if ((e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) &&
			    evict_unbound(sv))
				continue;
			pause_accept(sv, e);
			return;
		}
		sv->accepted++;
		if (sv->nunbound >= sv->max_unbound)
			evict_unbound(sv);
		sess_open(sv, fd, l, &peer);
	}
}

/* ---- timers --------------------------------------------------------------- */

static void
sweep(struct server *sv)
{
	for (unsigned i = 0; i < sv->nslots; i++) {
		struct session *s = &sv->s[i];

		if (s->fd < 0)
			continue;
		if (s->closing || s->unbinding) {
			if (sv->now >= s->t_close) {
				sv->to_close++;
				sess_close(sv, s);
			}
			continue;
		}
		if (s->st == UNBOUND) {
			if (sv->now - s->t_open > kv(K_BIND_TIMEOUT)) {
				smppd_log(SMPPD_INFO, "session %u (%s): no bind in %g s, closed",
					  i, s->peer, kv(K_BIND_TIMEOUT));
				sv->to_bind++;
				sess_close(sv, s);
			}
			continue;
		}
		if (s->t_partial && sv->now - s->t_partial > kv(K_PDU_TIMEOUT)) {
			smppd_log(SMPPD_INFO, "session %u (%s): half a PDU for %g s, closed",
				  i, s->peer, kv(K_PDU_TIMEOUT));
			sv->to_pdu++;
			sess_close(sv, s);
			continue;
		}
		if (s->t_enq == 0 && sv->now - s->t_rx > kv(K_IDLE_TIMEOUT)) {
			/* silence: is it there? (v3.4 4.11) */
			request(sv, s, SMPP_ENQUIRE_LINK);
			s->t_enq = sv->now;
		} else if (s->t_enq != 0 && sv->now - s->t_enq > kv(K_RESP_TIMEOUT)) {
			smppd_log(SMPPD_INFO, "session %u (%s): no answer to enquire_link, unbinding",
				  i, s->peer);
			sv->to_idle++;
			request(sv, s, SMPP_UNBIND);
			s->unbinding = 1;
			s->t_close = sv->now + kv(K_RESP_TIMEOUT);
			continue;
		}
		for (unsigned k = 0; k < s->ndout;)
			if (sv->now - s->dout[k].t > kv(K_RESP_TIMEOUT))
				requeue_dlr(sv, s, k);
			else
				k++;
	}
}

/* ---- stats socket ------------------------------------------------------- */

static const char *
state_name(const struct session *s)
{
	static const char *const n[] = { "unbound", "tx", "rx", "trx" };

	return s->binding ? "binding" : n[s->st];
}

static void
stats_json(struct server *sv, FILE *f)
{
	int first = 1;

	fprintf(f, "{\"uptime_s\":%.1f,\"sessions\":{\"bound\":%u,\"unbound\":%u,"
		"\"max\":%u,\"max_unbound\":%u},\"connections\":{\"accepted\":%llu,"
		"\"unbound_evicted\":%llu,\"accept_errors\":%llu,\"accept_pauses\":%llu,"
		"\"bind_timeouts\":%llu,\"pdu_timeouts\":%llu,\"idle_unbinds\":%llu,"
		"\"close_timeouts\":%llu,\"auth_pending\":%u},",
		sv->now - sv->t_start, sv->nbound, sv->nunbound, sv->max_sessions,
		sv->max_unbound, (unsigned long long)sv->accepted,
		(unsigned long long)sv->evicted, (unsigned long long)sv->accept_errors,
		(unsigned long long)sv->accept_pauses, (unsigned long long)sv->to_bind,
		(unsigned long long)sv->to_pdu, (unsigned long long)sv->to_idle,
		(unsigned long long)sv->to_close, smppd_auth_pending());
	fprintf(f, "\"store\":{\"messages\":%u,\"cap\":%u,\"pending\":%u,\"evicted\":%llu,"
		"\"refused_full\":%llu,\"receipts_dropped\":%llu},\"system_ids\":{",
		sv->store.n, sv->store.cap, sv->store.nheap,
		(unsigned long long)sv->store.evicted, (unsigned long long)sv->store.full,
		(unsigned long long)sv->store.dlr_dropped);
	for (unsigned u = 0; u < sv->nusers; u++) {
		fprintf(f, "%s", u ? "," : "");
		smppd_json_str(f, sv->users[u].id);
		fprintf(f, ":{\"bound\":%u,\"max_binds\":%u,\"receipts_waiting\":%u,",
			sv->ur[u].bound, sv->ur[u].limit, smppd_store_dlr_len(&sv->store, u));
		smppd_counters_json(f, &sv->ur[u].c);
		fputc('}', f);
	}
	fputs("},\"session_list\":[", f);
	for (unsigned i = 0; i < sv->nslots; i++) {
		struct session *s = &sv->s[i];

		if (s->fd < 0)
			continue;
		fprintf(f, "%s{\"slot\":%u,\"peer\":\"%s\",\"tls\":%s,\"state\":\"%s\","
			"\"system_id\":", first ? "" : ",", i, s->peer,
			s->ssl ? "true" : "false", state_name(s));
		if (s->user >= 0)
			smppd_json_str(f, sv->users[s->user].id);
		else
			fputs("null", f);
		fprintf(f, ",\"age_s\":%.1f,\"window\":{\"in_use\":%u,\"limit\":%u},"
			"\"deliver_window\":{\"in_use\":%u,\"limit\":%u},\"out_bytes\":%zu,",
			sv->now - s->t_open, s->inflight, (unsigned)kv(K_WINDOW), s->ndout,
			(unsigned)kv(K_DLR_WINDOW), s->out_len);
		smppd_counters_json(f, &s->c);
		fputc('}', f);
		first = 0;
	}
	fputs("]}\n", f);
}

static void
stats_close(struct server *sv, struct stats_cli *c)
{
	epoll_ctl(sv->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->buf);
	c->fd = -1;
	c->buf = NULL;
}

static void
stats_write(struct server *sv, struct stats_cli *c)
{
	while (c->off < c->len) {
		ssize_t w = send(c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w <= 0)
			break;
		c->off += (size_t)w;
	}
	stats_close(sv, c);
}

/* A connection to the stats socket gets one JSON object, then the end. */
static void
stats_accept(struct server *sv)
{
	int fd;

	while ((fd = accept4(sv->stats_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct epoll_event ev = { .events = EPOLLOUT };
		struct stats_cli *c = NULL;
		FILE *f;

		for (unsigned i = 0; i < NSTATS_CLI; i++)
			if (sv->sc[i].fd < 0) {
				c = &sv->sc[i];
				ev.data.u32 = TAG_SCLI + i;
			}
		if (c == NULL) {
			close(fd);      /* four readers at once is plenty */
			continue;
		}
		c->fd = fd;
		c->off = 0;
		f = open_memstream(&c->buf, &c->len);
		if (f == NULL) {
			close(fd);
			c->fd = -1;
			continue;
		}
		stats_json(sv, f);
		fclose(f);
		epoll_ctl(sv->ep, EPOLL_CTL_ADD, fd, &ev);
		stats_write(sv, c);
	}
}

/* hp-smppd -q PATH: print a running server's counters. */
static int
stats_query(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[65536];
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, P ": -q: path longer than %zu characters\n",
			sizeof(sa.sun_path) - 1);
		return 2;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* no server behind PATH: the argument is wrong, as for a bad file */
		fprintf(stderr, P ": -q %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 2;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return n < 0 ? 1 : 0;
}

/* ---- setup ----------------------------------------------------------------- */

static int
set_knob(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *e;
	double v;

	if (eq == NULL || eq == arg) {
		fprintf(stderr, P ": -o: expected KEY=VALUE, got '%s'\n", arg);
		return -1;
	}
	for (int k = 0; k < NKNOBS; k++) {
		if (strlen(knobs[k].key) != (size_t)(eq - arg) ||
		    memcmp(knobs[k].key, arg, (size_t)(eq - arg)) != 0)
			continue;
		errno = 0;
		v = strtod(eq + 1, &e);
		if (errno != 0 || e == eq + 1 || *e != '\0' || !(v >= knobs[k].lo) ||
		    !(v <= knobs[k].hi) || (knobs[k].integer && v != floor(v))) {
			fprintf(stderr, P ": -o %s: expected %s %g..%g\n", knobs[k].key,
				knobs[k].integer ? "an integer" : "a number", knobs[k].lo,
				knobs[k].hi);
			return -1;
		}
		knobs[k].v = v;
		return 0;
	}
	fprintf(stderr, P ": -o: unknown key '%.*s' (see -h)\n", (int)(eq - arg), arg);
	return -1;
}

static int
load_users(struct server *sv, const char *path)
{
	char err[160];
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0, r;
	int rc;

	if (f == NULL) {
		fprintf(stderr, P ": -c %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (tool_reserve((uint8_t **)&text, &cap, len, 65536) < 0 || len > (16u << 20)) {
			fprintf(stderr, P ": -c %s: larger than 16 MiB\n", path);
			fclose(f);
			free(text);
			return -1;
		}
		r = fread(text + len, 1, 65536, f);
		len += r;
	} while (r > 0);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc == 0)
		rc = smppd_users_parse(text, len, sv->users, SMPPD_MAX_USERS, &sv->nusers,
				       err, sizeof(err));
	else
		snprintf(err, sizeof(err), "%s", strerror(EIO));
	if (text != NULL)
		OPENSSL_cleanse(text, cap);
	free(text);
	if (rc < 0) {
		fprintf(stderr, P ": -c %s: %s\n", path, err);
		return -1;
	}
	for (unsigned u = 0; u < sv->nusers; u++)
		if (!sv->users[u].hashed)
			smppd_log(SMPPD_WARN, "%s: %s has a plain-text password; "
				  "hp-smppd -H %s makes a hashed line", path, sv->users[u].id,
				  sv->users[u].id);
	return 0;
}

static const char *
ssl_err(void)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	return r ? r : "unknown error";
}

static int
tls_setup(struct server *sv, const char *cert, const char *key)
{
	EVP_PKEY *pkey;
	FILE *f;
	int rc;

	/* readable at all: a plain errno says more than OpenSSL's PEM error */
	if ((f = fopen(cert, "r")) == NULL) {
		fprintf(stderr, P ": -C %s: %s\n", cert, strerror(errno));
		return -1;
	}
	fclose(f);
	sv->tls = SSL_CTX_new(TLS_server_method());
	if (sv->tls == NULL) {
		fprintf(stderr, P ": TLS: %s\n", ssl_err());
		return -1;
	}
	SSL_CTX_set_min_proto_version(sv->tls, TLS1_2_VERSION);
	SSL_CTX_set_mode(sv->tls, SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	ERR_clear_error();
	if (SSL_CTX_use_certificate_chain_file(sv->tls, cert) != 1) {
		fprintf(stderr, P ": -C %s: not a PEM certificate chain (%s)\n", cert, ssl_err());
		return -1;
	}
	/* Read apart from the use: OpenSSL 3's SSL_CTX_use_PrivateKey_file
	 * also compares the key with the certificate, so one error would say
	 * both "not a key" and "not this certificate's key". */
	ERR_clear_error();
	if ((f = fopen(key, "r")) == NULL) {
		fprintf(stderr, P ": -K %s: %s\n", key, strerror(errno));
		return -1;
	}
	pkey = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (pkey == NULL) {
		fprintf(stderr, P ": -K %s: not a PEM private key (%s)\n", key, ssl_err());
		return -1;
	}
	ERR_clear_error();
	rc = SSL_CTX_use_PrivateKey(sv->tls, pkey) == 1 &&
	     SSL_CTX_check_private_key(sv->tls) == 1;
	EVP_PKEY_free(pkey);
	if (!rc) {
		fprintf(stderr, P ": -K %s: does not match the certificate of -C %s (%s)\n",
			key, cert, ssl_err());
		return -1;
	}
	return 0;
}

/* ADDR: IPv4 or IPv6 (brackets allowed); 0 or -1. */
static int
parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char a[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(addr);

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		*len = sizeof(*s4);
		return 0;
	}
	if (n >= 2 && n < sizeof(a) && addr[0] == '[' && addr[n - 1] == ']') {
		memcpy(a, addr + 1, n - 2);
		a[n - 2] = '\0';
	} else if (n < sizeof(a)) {
		memcpy(a, addr, n + 1);
	} else {
		return -1;
	}
	if (inet_pton(AF_INET6, a, &s6->sin6_addr) != 1)
		return -1;
	s6->sin6_family = AF_INET6;
	*len = sizeof(*s6);
	return 0;
}

static int
listen_on(struct server *sv, struct listener *l, const struct sockaddr_storage *ss0,
	  socklen_t sl, unsigned port, int tls)
{
	struct sockaddr_storage ss = *ss0;
	char h[INET6_ADDRSTRLEN];
	int one = 1;

	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	l->tls = tls;
	l->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0)
		return -errno;
	setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l->fd, (struct sockaddr *)&ss, sl) < 0 ||
	    listen(l->fd, (int)kv(K_BACKLOG)) < 0 ||
	    getsockname(l->fd, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	if (ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, h, sizeof(h));
		snprintf(l->name, sizeof(l->name), "%s:%u", h,
			 ntohs(((struct sockaddr_in *)&ss)->sin_port));
	} else {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, h, sizeof(h));
		snprintf(l->name, sizeof(l->name), "[%s]:%u", h,
			 ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	}
	(void)sv;
	return 0;
}

static int
stats_listen(struct server *sv, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, P ": -s: path longer than %zu characters\n",
			sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, P ": -s %s: exists and is not a socket\n", path);
			return -1;
		}
		unlink(path);     /* a stale socket of an earlier run */
	}
	sv->stats_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sv->stats_fd < 0 || bind(sv->stats_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0600) < 0 || listen(sv->stats_fd, 8) < 0) {
		fprintf(stderr, P ": -s %s: %s\n", path, strerror(errno));
		return -1;
	}
	sv->stats_path = path;
	return 0;
}

/* hp-smppd -H SYSTEM_ID: a users-file line from a password on stdin. */
static int
make_hash(const char *id)
{
	char pw[64], out[256];
	size_t n;

	if (strlen(id) == 0 || strlen(id) > 15 || strpbrk(id, " \t#") != NULL) {
		fprintf(stderr, P ": -H: system_id of 1-15 characters without blanks expected\n");
		return 2;
	}
	if (fgets(pw, sizeof(pw), stdin) == NULL) {
		fprintf(stderr, P ": -H: no password on stdin\n");
		return 2;
	}
	n = strcspn(pw, "\r\n");
	pw[n] = '\0';
	if (n == 0 || n > 8) {
		fprintf(stderr, P ": -H: the password must have 1-8 characters (v3.4 4.1.1)\n");
		OPENSSL_cleanse(pw, sizeof(pw));
		return 2;
	}
	if (smppd_auth_hash(pw, (uint32_t)kv(K_HASH_ITER), out, sizeof(out)) < 0) {
		fprintf(stderr, P ": -H: %s\n", ssl_err());
		return 1;
	}
	OPENSSL_cleanse(pw, sizeof(pw));
	printf("user %s %s\n", id, out);
	return 0;
}

static void
usage(void)
{
	printf("usage: hp-smppd -c USERS [-a ADDR] [-p PORT] [-S TLS_PORT -C CERT -K KEY]\n"
	       "                [-b BATCH=64] [-T FLUSH_MS=5] [-m MAX_SESSIONS=64] [-L MAX_PDU=4096]\n"
	       "                [-t THREADS=1] [-s STATS_SOCKET] [-v error|warn|info|debug]\n"
	       "                [-o KEY=VALUE]...\n"
	       "       hp-smppd -H SYSTEM_ID [-o hash_iter=N] < password   (a users-file line)\n"
	       "       hp-smppd -q STATS_SOCKET                            (a server's counters)\n"
	       "USERS: lines 'user SYSTEM_ID SECRET [binds=N]', SECRET from -H (PBKDF2-SHA256).\n"
	       "ADDR: IPv4 or IPv6. -o keys (defaults):");
	for (int k = 0; k < NKNOBS; k++)
		printf("%s %s=%g", k % 5 ? "" : "\n ", knobs[k].key, knobs[k].v);
	printf("\n  final=DELIVRD (or EXPIRED, DELETED, UNDELIV, ACCEPTD, UNKNOWN, REJECTD)\n");
}

static void
serve_lists(struct server *sv)
{
	/* sessions whose budget ran out, after this turn's events */
	unsigned n = sv->nready;

	for (unsigned i = 0; i < n; i++) {
		struct session *s = &sv->s[sv->ready[i]];

		/* the flag means "on the list": each slot is there once */
		s->ready = 0;
		if (s->fd >= 0 && can_read(s))
			sess_read(sv, s);
	}
	/* those marked again during this pass stay for the next one */
	memmove(sv->ready, sv->ready + n, (sv->nready - n) * sizeof(*sv->ready));
	sv->nready -= n;
}

static void
flush_dirty(struct server *sv)
{
	for (unsigned i = 0; i < sv->ndirty; i++) {
		struct session *s = &sv->s[sv->dirty[i]];

		s->dirty = 0;
		if (s->fd >= 0)
			sess_flush(sv, s);
	}
	sv->ndirty = 0;
}

static int
loop_timeout(struct server *sv)
{
	double t = sv->next_sweep - sv->now;
	int64_t due = smppd_store_next_due(&sv->store);

	if (sv->nready > 0)
		return 0;
	if (sv->bcount && sv->bfirst + sv->flush_ms / 1000.0 - sv->now < t)
		t = sv->bfirst + sv->flush_ms / 1000.0 - sv->now;
	if (due != INT64_MAX && (double)(due - wall_ms()) / 1000.0 < t)
		t = (double)(due - wall_ms()) / 1000.0;
	for (unsigned i = 0; i < sv->nlst; i++)
		if (sv->lst[i].paused_until && sv->lst[i].paused_until - sv->now < t)
			t = sv->lst[i].paused_until - sv->now;
	return t <= 0 ? 0 : (int)ceil(t * 1000);
}

static void
run(struct server *sv)
{
	while (!stop) {
		struct epoll_event evs[64];
		int n = epoll_wait(sv->ep, evs, 64, loop_timeout(sv));

		sv->now = tool_now();
		for (int i = 0; i < n; i++) {
			uint32_t k = evs[i].data.u32;
			struct session *s;

			if (k >= TAG_LST && k < TAG_LST + sv->nlst) {
				do_accept(sv, &sv->lst[k - TAG_LST]);
				continue;
			}
			if (k == TAG_AUTH) {
				auth_results(sv);
				continue;
			}
			if (k == TAG_STATS) {
				stats_accept(sv);
				continue;
			}
			if (k >= TAG_SCLI && k < TAG_SCLI + NSTATS_CLI) {
				stats_write(sv, &sv->sc[k - TAG_SCLI]);
				continue;
			}
			s = &sv->s[k];
			if (s->fd < 0)
				continue;
			if ((evs[i].events & EPOLLOUT) && s->ssl != NULL && !s->hs_done)
				sess_read(sv, s);        /* the handshake wanted to write */
			else if (evs[i].events & EPOLLOUT)
				sess_flush(sv, s);
			if (s->fd >= 0 && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
				if (can_read(s) || (s->ssl != NULL && !s->hs_done))
					sess_read(sv, s);
				else if (evs[i].events & (EPOLLHUP | EPOLLERR))
					sess_close(sv, s);
			}
		}
		serve_lists(sv);
		if (sv->bcount && (sv->now - sv->bfirst) * 1000.0 >= sv->flush_ms)
			flush_batch(sv);
		if (smppd_store_next_due(&sv->store) != INT64_MAX) {
			int64_t slot;
			unsigned budget = 4096;

			sv->now_ms = wall_ms();
			while (budget-- > 0 && (slot = smppd_store_pop_due(&sv->store, sv->now_ms)) >= 0)
				became_final(sv, (uint32_t)slot);
		}
		deliver_receipts(sv);
		if (sv->now >= sv->next_sweep) {
			sweep(sv);
			sv->next_sweep = sv->now + TICK;
		}
		resume_accept(sv);
		flush_dirty(sv);
	}
}

int
main(int argc, char **argv)
{
	static struct server sv;
	const char *addr = "127.0.0.1", *users = NULL, *cert = NULL, *key = NULL;
	const char *stats = NULL, *hash_id = NULL, *query = NULL;
	struct sockaddr_storage ss;
	socklen_t sl;
	struct epoll_event ev;
	unsigned port = 2775, tls_port = 0;
	int opt, rc = 1, have_tls = 0, r;

	smpp_config_default(&sv.cfg);
	sv.cfg.framing = SMPP_FRAME_ELEMENT;
	sv.cfg.corr_len = CORR_LEN;
	sv.bmax = 64;
	sv.flush_ms = 5;
	sv.max_sessions = 64;
	sv.max_pdu = 4096;
	sv.final_state = SMPP_STATE_DELIVERED;
	sv.next_seq = 1;
	sv.ep = sv.auth_fd = sv.stats_fd = -1;
	opterr = 0;
	while ((opt = getopt(argc, argv, ":c:a:p:b:T:m:L:t:S:C:K:s:v:o:H:q:h")) != -1) {
		double v = 0;
		int bad = 0;

		switch (opt) {
		case 'c': users = optarg; break;
		case 'a': addr = optarg; break;
		case 'p': bad = tool_num(P, opt, optarg, 0, 65535, &v); port = (unsigned)v; break;
		case 'S': bad = tool_num(P, opt, optarg, 0, 65535, &v); tls_port = (unsigned)v;
			have_tls = 1; break;
		case 'C': cert = optarg; break;
		case 'K': key = optarg; break;
		case 's': stats = optarg; break;
		case 'b': bad = tool_num(P, opt, optarg, 1, 1 << 20, &v); sv.bmax = (unsigned)v; break;
		case 'T': bad = tool_num(P, opt, optarg, 0, 60000, &v); sv.flush_ms = (unsigned)v; break;
		case 'm': bad = tool_num(P, opt, optarg, 1, 65536, &v);
			sv.max_sessions = (unsigned)v; break;
		case 'L': bad = tool_num(P, opt, optarg, SMPP_HEADER_LEN, 65536, &v);
			sv.max_pdu = (uint32_t)v; break;
		case 't': bad = tool_num(P, opt, optarg, 1, 256, &v); sv.cfg.threads = (unsigned)v; break;
		case 'v':
			smppd_log_level = smppd_level_parse(optarg);
			if (smppd_log_level < 0) {
				fprintf(stderr, P ": -v: expected error, warn, info or debug\n");
				return 2;
			}
			break;
		case 'o':
			if (strncmp(optarg, "final=", 6) == 0) {
				sv.final_state = smppd_state_parse(optarg + 6);
				if (sv.final_state < 0) {
					fprintf(stderr, P ": -o final: expected DELIVRD, EXPIRED, "
						"DELETED, UNDELIV, ACCEPTD, UNKNOWN or REJECTD\n");
					return 2;
				}
				break;
			}
			bad = set_knob(optarg);
			break;
		case 'H': hash_id = optarg; break;
		case 'q': query = optarg; break;
		case 'h': usage(); return 0;
		default:
			return tool_bad_flag(P, opt, optopt);
		}
		if (bad)
			return 2;
	}
	if (optind != argc) {
		fprintf(stderr, P ": unexpected argument '%s' (-h: usage)\n", argv[optind]);
		return 2;
	}
	if (hash_id != NULL)
		return make_hash(hash_id);
	if (query != NULL)
		return stats_query(query);
	if (parse_addr(addr, &ss, &sl) < 0) {
		fprintf(stderr, P ": -a: not an IPv4 or IPv6 address: %s\n", addr);
		return 2;
	}
	if ((cert != NULL || key != NULL) && !have_tls) {
		fprintf(stderr, P ": -C and -K go with -S TLS_PORT\n");
		return 2;
	}
	if (have_tls && (cert == NULL || key == NULL)) {
		fprintf(stderr, P ": -S needs -C CERT_PEM and -K KEY_PEM\n");
		return 2;
	}
	if (users == NULL) {
		fprintf(stderr, P ": need -c USERS_FILE (-h: usage)\n");
		return 2;
	}
	if (load_users(&sv, users) < 0)
		return 2;
	if (have_tls && tls_setup(&sv, cert, key) < 0) {
		rc = 2;
		goto out;
	}
	if (stats != NULL && stats_listen(&sv, stats) < 0) {
		rc = 2;
		goto out;
	}
	sv.max_unbound = (unsigned)kv(K_MAX_UNBOUND);
	sv.nslots = sv.max_sessions + sv.max_unbound;
	sv.cfg.max_pdu_len = sv.max_pdu;
	sv.rxcap = (size_t)sv.max_pdu + (size_t)kv(K_READ_BUDGET);
	if (smpp_ctx_create(&sv.cfg, &sv.ctx) < 0)
		goto out;
	smpp_batch_init(&sv.batch);
	sv.bcap = (size_t)sv.bmax * (sv.max_pdu + CORR_LEN + sv.cfg.marker_len);
	sv.bbuf = malloc(sv.bcap);
	sv.s = calloc(sv.nslots, sizeof(*sv.s));
	sv.free_slots = calloc(sv.nslots, sizeof(*sv.free_slots));
	sv.ready = calloc(sv.nslots, sizeof(*sv.ready));
	sv.dirty = calloc(sv.nslots, sizeof(*sv.dirty));
	if (sv.bbuf == NULL || sv.s == NULL || sv.free_slots == NULL || sv.ready == NULL ||
	    sv.dirty == NULL || smppd_store_init(&sv.store, (uint32_t)kv(K_STORE)) < 0 ||
	    smppd_auth_key(sv.tag_key) < 0) {
		fprintf(stderr, P ": out of memory\n");
		goto out;
	}
	for (unsigned i = 0; i < sv.nslots; i++) {
		sv.s[i].fd = -1;
		sv.free_slots[i] = sv.nslots - 1 - i;   /* slot 0 first */
		sv.s[i].dout = calloc((size_t)kv(K_DLR_WINDOW), sizeof(*sv.s[i].dout));
		if (sv.s[i].dout == NULL)
			goto out;
	}
	sv.nfree = sv.nslots;
	for (unsigned u = 0; u < sv.nusers; u++) {
		unsigned lim = sv.users[u].max_binds ? sv.users[u].max_binds :
			       (unsigned)kv(K_BINDS_PER_ID);

		sv.ur[u].limit = lim;
		sv.ur[u].rx = calloc(sv.max_sessions, sizeof(*sv.ur[u].rx));
		if (sv.ur[u].rx == NULL)
			goto out;
	}
	{
		const struct smpp_pdu_desc *d = smpp_pdu_desc_find(SMPP_SUBMIT_SM);

		sv.sm = (struct sm_fields){
			smpp_field_index(d, "service_type"), smpp_field_index(d, "source_addr_ton"),
			smpp_field_index(d, "source_addr_npi"), smpp_field_index(d, "source_addr"),
			smpp_field_index(d, "dest_addr_ton"), smpp_field_index(d, "dest_addr_npi"),
			smpp_field_index(d, "destination_addr"),
			smpp_field_index(d, "schedule_delivery_time"),
			smpp_field_index(d, "validity_period"),
			smpp_field_index(d, "registered_delivery"),
			smpp_field_index(d, "short_message"),
		};
	}
	if ((r = listen_on(&sv, &sv.lst[0], &ss, sl, port, 0)) < 0) {
		fprintf(stderr, P ": listen %s:%u: %s\n", addr, port, strerror(-r));
		goto out;
	}
	sv.nlst = 1;
	if (have_tls) {
		if ((r = listen_on(&sv, &sv.lst[1], &ss, sl, tls_port, 1)) < 0) {
			fprintf(stderr, P ": listen %s:%u (TLS): %s\n", addr, tls_port, strerror(-r));
			goto out;
		}
		sv.nlst = 2;
	}
	sv.ep = epoll_create1(EPOLL_CLOEXEC);
	sv.auth_fd = smppd_auth_start(sv.users, (unsigned)kv(K_AUTH_QUEUE));
	if (sv.ep < 0 || sv.auth_fd < 0) {
		fprintf(stderr, P ": %s\n", strerror(errno));
		goto out;
	}
	ev.events = EPOLLIN;
	for (unsigned i = 0; i < sv.nlst; i++) {
		ev.data.u32 = TAG_LST + i;
		epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.lst[i].fd, &ev);
	}
	ev.data.u32 = TAG_AUTH;
	epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.auth_fd, &ev);
	for (unsigned i = 0; i < NSTATS_CLI; i++)
		sv.sc[i].fd = -1;
	if (sv.stats_fd >= 0) {
		ev.data.u32 = TAG_STATS;
		epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.stats_fd, &ev);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	printf("hp-smppd: listening on %s\n", sv.lst[0].name);
	if (have_tls)
		printf("hp-smppd: TLS listening on %s\n", sv.lst[1].name);
	fflush(stdout);
	sv.now = sv.t_start = tool_now();
	sv.next_sweep = sv.now + TICK;
	run(&sv);
	rc = 0;
out:
	smppd_auth_stop();
	for (unsigned i = 0; sv.s != NULL && i < sv.nslots; i++) {
		sess_close(&sv, &sv.s[i]);
		free(sv.s[i].rx);
		free(sv.s[i].out);
		free(sv.s[i].dout);
	}
	for (unsigned i = 0; i < NSTATS_CLI; i++)
		if (sv.sc[i].fd >= 0)
			stats_close(&sv, &sv.sc[i]);
	for (unsigned i = 0; i < sv.nlst; i++)
		close(sv.lst[i].fd);
	for (unsigned u = 0; u < sv.nusers; u++)
		free(sv.ur[u].rx);
	if (sv.stats_fd >= 0) {
		close(sv.stats_fd);
		if (sv.stats_path != NULL)
			unlink(sv.stats_path);
	}
	if (sv.ep >= 0)
		close(sv.ep);
	OPENSSL_cleanse(sv.users, sizeof(sv.users));
	SSL_CTX_free(sv.tls);
	free(sv.s);
	free(sv.free_slots);
	free(sv.ready);
	free(sv.dirty);
	free(sv.bbuf);
	smppd_store_free(&sv.store);
	smpp_batch_free(&sv.batch);
	smpp_ctx_free(sv.ctx);
	return rc;
}
