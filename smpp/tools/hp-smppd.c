/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: a small SMPP v3.4 server (SMSC side) over TCP, one epoll loop.
 * It accepts binds whose system_id/password are in a config file, refuses
 * other requests before a bind (ESME_RINVBNDSTS), answers enquire_link and
 * unbind, and decodes submit_sm in batches with the library's batch decoder
 * (flushed by size or by timeout), answering each with a submit_sm_resp
 * carrying a message id or the ESME_R* status of its decode error.  PDU
 * size and session count are bounded; a session sending garbage gets a
 * generic_nack and is closed without touching the others.  Messages are
 * acknowledged, not stored or delivered: this is a decoder front end.
 *
 *   hp-smppd -c USERS_FILE [-a ADDR] [-p PORT] [-b BATCH] [-T FLUSH_MS]
 *            [-m MAX_SESSIONS] [-L MAX_PDU] [-t THREADS]
 *
 * USERS_FILE: lines "user SYSTEM_ID PASSWORD" ('#' comments).  Prints
 * "hp-smppd: listening on ADDR:PORT" once ready (PORT 0 picks a free one).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "smpp.h"
#include "tool_util.h"

#define MAX_USERS   64
#define OUT_LIMIT   (1u << 20)   /* unsent bytes before a slow reader is cut */
#define CORR_LEN    8            /* session slot (4) + session generation (4) */
#define P           "hp-smppd"   /* for the flag errors */

enum bind_state { UNBOUND = 0, BOUND_TX = 1, BOUND_RX = 2, BOUND_TRX = 3 };

struct session {
	int fd;
	uint32_t gen;
	enum bind_state st;
	int closing;
	uint8_t *rx;
	size_t rx_len;
	uint8_t *out;
	size_t out_len, out_cap;
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
	unsigned max_sessions;
	uint32_t max_pdu;
	int ep, lfd;
	uint64_t next_msgid;
	unsigned nusers;
	char user[MAX_USERS][16], pass[MAX_USERS][9];
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
sess_close(struct server *sv, struct session *s)
{
	if (s->fd < 0)
		return;
	epoll_ctl(sv->ep, EPOLL_CTL_DEL, s->fd, NULL);
	close(s->fd);
	s->fd = -1;
	s->gen++;              /* pending batch entries for it are dropped */
	s->rx_len = 0;
	s->out_len = 0;
	s->st = UNBOUND;
	s->closing = 0;
}

static void
sess_flush_out(struct server *sv, struct session *s)
{
	struct epoll_event ev = { .data.u32 = (uint32_t)(s - sv->s) };
	size_t done = 0;

	while (done < s->out_len) {
		ssize_t w = send(s->fd, s->out + done, s->out_len - done, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (done < s->out_len && errno != EAGAIN && errno != EWOULDBLOCK) {
		sess_close(sv, s);
		return;
	}
	memmove(s->out, s->out + done, s->out_len - done);
	s->out_len -= done;
	ev.events = EPOLLIN | (s->out_len ? EPOLLOUT : 0);
	epoll_ctl(sv->ep, EPOLL_CTL_MOD, s->fd, &ev);
	if (s->out_len == 0 && s->closing)
		sess_close(sv, s);
}

/* Queue one PDU for the session; written at once when the socket takes it. */
static void
sess_send(struct server *sv, struct session *s, const struct smpp_msg *m)
{
	uint8_t buf[512];
	int n = smpp_encode(m, buf, sizeof(buf));

	if (n < 0 || s->fd < 0)
		return;
	if (s->out_len + (size_t)n > OUT_LIMIT) {
		sess_close(sv, s);     /* it does not read its responses */
		return;
	}
	if (tool_reserve(&s->out, &s->out_cap, s->out_len, (size_t)n) < 0) {
		sess_close(sv, s);
		return;
	}
	memcpy(s->out + s->out_len, buf, (size_t)n);
	s->out_len += (size_t)n;
	sess_flush_out(sv, s);
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

static void
flush_batch(struct server *sv)
{
	int rc;

	if (sv->bcount == 0)
		return;
	rc = smpp_decode_batch(sv->ctx, sv->bbuf, sv->blen, SMPP_MODE_AUTO, &sv->batch);
	for (size_t i = 0; rc == 0 && i < sv->batch.n; i++) {
		const struct smpp_pdu *p = &sv->batch.pdus[i];
		const uint8_t *corr = sv->bbuf + p->corr_off;
		uint32_t slot = smpp_rd32(corr), gen = smpp_rd32(corr + 4);
		struct session *s;
		char id[24];

		if (p->corr_len != CORR_LEN || slot >= sv->max_sessions)
			continue;
		s = &sv->s[slot];
		if (s->fd < 0 || s->gen != gen)
			continue;      /* the session went away meanwhile */
		if (p->error != ESME_ROK) {
			reply(sv, s, SMPP_SUBMIT_SM_RESP, p->error, p->sequence_number, NULL);
			continue;
		}
		snprintf(id, sizeof(id), "%016llx", (unsigned long long)sv->next_msgid++);
		reply(sv, s, SMPP_SUBMIT_SM_RESP, ESME_ROK, p->sequence_number, id);
	}
	if (rc < 0)
		fprintf(stderr, "hp-smppd: batch decode failed: %s\n", strerror(-rc));
	sv->blen = 0;
	sv->bcount = 0;
}

static void
queue_submit(struct server *sv, struct session *s, const uint8_t *pdu, uint32_t len)
{
	uint8_t corr[CORR_LEN];
	uint32_t slot = (uint32_t)(s - sv->s);
	int r;

	corr[0] = slot >> 24; corr[1] = slot >> 16; corr[2] = slot >> 8; corr[3] = slot;
	corr[4] = s->gen >> 24; corr[5] = s->gen >> 16; corr[6] = s->gen >> 8; corr[7] = s->gen;
	r = smpp_element_append(&sv->cfg, sv->bbuf, sv->bcap, sv->blen, corr, pdu, len);
	if (r < 0) {
		flush_batch(sv);
		r = smpp_element_append(&sv->cfg, sv->bbuf, sv->bcap, sv->blen, corr, pdu, len);
		if (r < 0)
			return;
	}
	if (sv->bcount == 0)
		sv->bfirst = tool_now();
	sv->blen = (size_t)r;
	if (++sv->bcount >= sv->bmax)
		flush_batch(sv);
}

static void
handle_bind(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	const struct smpp_view *id = smpp_field(p, "system_id");
	const struct smpp_view *pw = smpp_field(p, "password");
	uint32_t resp = p->command_id | SMPP_RESP_BIT;
	uint32_t st = ESME_RINVSYSID;

	if (s->st != UNBOUND) {
		reply(sv, s, resp, ESME_RALYBND, p->sequence_number, NULL);
		return;
	}
	for (unsigned u = 0; u < sv->nusers; u++) {
		if (strlen(sv->user[u]) != id->len ||
		    memcmp(sv->user[u], smpp_view_ptr(p, id), id->len) != 0)
			continue;
		if (strlen(sv->pass[u]) == pw->len &&
		    memcmp(sv->pass[u], smpp_view_ptr(p, pw), pw->len) == 0)
			st = ESME_ROK;
		else
			st = ESME_RINVPASWD;
		break;
	}
	if (st == ESME_ROK)
		s->st = p->command_id == SMPP_BIND_TRANSMITTER ? BOUND_TX :
			p->command_id == SMPP_BIND_RECEIVER ? BOUND_RX : BOUND_TRX;
	reply(sv, s, resp, st, p->sequence_number, "hp-smppd");
}

/* One complete PDU (exactly command_length octets) from a session. */
static void
handle_pdu(struct server *sv, struct session *s, const uint8_t *b, uint32_t len)
{
	struct smpp_pdu p;
	uint32_t id = smpp_rd32(b + 4), seq = smpp_rd32(b + 12);
	int err;

	if (id & SMPP_RESP_BIT)
		return;        /* responses to what we never send: ignore */
	if (id == SMPP_SUBMIT_SM && (s->st == BOUND_TX || s->st == BOUND_TRX)) {
		queue_submit(sv, s, b, len);   /* decoded in the next batch */
		return;
	}
	err = smpp_decode_pdu(b, len, sv->cfg.flags, 0, &p);
	if (p.desc == NULL) {
		reply(sv, s, SMPP_GENERIC_NACK, ESME_RINVCMDID, seq, NULL);
		return;
	}
	if (err != ESME_ROK) {
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
		s->closing = 1;
		reply(sv, s, SMPP_UNBIND_RESP, ESME_ROK, seq, NULL);
		return;
	default:
		if (s->st == UNBOUND || id == SMPP_SUBMIT_SM ||
		    id == SMPP_OUTBIND || id == SMPP_ALERT_NOTIFICATION) {
			/* before bind, submit on a receiver bind, or SMSC->ESME only */
			if (id == SMPP_OUTBIND || id == SMPP_ALERT_NOTIFICATION)
				reply(sv, s, SMPP_GENERIC_NACK, ESME_RINVBNDSTS, seq, NULL);
			else
				reply(sv, s, id | SMPP_RESP_BIT, ESME_RINVBNDSTS, seq, NULL);
			return;
		}
		/* query/cancel/replace/submit_multi/data_sm: no message store */
		reply(sv, s, id | SMPP_RESP_BIT, ESME_RINVCMDID, seq, NULL);
		return;
	}
}

static void
sess_read(struct server *sv, struct session *s)
{
	size_t cap = (size_t)sv->max_pdu + 4096;

	for (;;) {
		ssize_t r = recv(s->fd, s->rx + s->rx_len, cap - s->rx_len, 0);
		size_t off = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r <= 0) {
			sess_close(sv, s);
			return;
		}
		s->rx_len += (size_t)r;
		while (s->fd >= 0 && !s->closing && s->rx_len - off >= 4) {
			uint32_t cl = smpp_rd32(s->rx + off);

			if (cl < SMPP_HEADER_LEN || cl > sv->max_pdu) {
				/* no way to find the next PDU on this stream */
				uint32_t seq = s->rx_len - off >= 16 ? smpp_rd32(s->rx + off + 12) : 0;
				reply(sv, s, SMPP_GENERIC_NACK, ESME_RINVCMDLEN, seq, NULL);
				s->closing = 1;
				if (s->fd >= 0 && s->out_len == 0)
					sess_close(sv, s);
				return;
			}
			if (s->rx_len - off < cl)
				break;
			handle_pdu(sv, s, s->rx + off, cl);
			off += cl;
		}
		if (s->fd < 0 || s->closing)
			return;
		memmove(s->rx, s->rx + off, s->rx_len - off);
		s->rx_len -= off;
	}
}

static void
do_accept(struct server *sv)
{
	for (;;) {
		int fd = accept4(sv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = { .events = EPOLLIN };
		unsigned i;
		int one = 1;

		if (fd < 0)
			return;
		for (i = 0; i < sv->max_sessions && sv->s[i].fd >= 0; i++)
			;
		if (i == sv->max_sessions) {
			close(fd);         /* session limit */
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		sv->s[i].fd = fd;
		sv->s[i].st = UNBOUND;
		sv->s[i].rx_len = 0;
		sv->s[i].out_len = 0;
		sv->s[i].closing = 0;
		ev.data.u32 = i;
		if (epoll_ctl(sv->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			sess_close(sv, &sv->s[i]);
	}
}

static int
load_users(struct server *sv, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256], u[64], p[64];

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '#' || sscanf(line, "user %63s %63s", u, p) != 2)
			continue;
		/* system_id <= 15 and password <= 8 characters (v3.4 4.1.1) */
		if (strlen(u) > 15 || strlen(p) > 8 || sv->nusers == MAX_USERS) {
			fprintf(stderr, "hp-smppd: skipping user '%s' (too long / too many)\n", u);
			continue;
		}
		strcpy(sv->user[sv->nusers], u);
		strcpy(sv->pass[sv->nusers], p);
		sv->nusers++;
	}
	fclose(f);
	return 0;
}

int
main(int argc, char **argv)
{
	static struct server sv;
	const char *addr = "127.0.0.1", *users = NULL;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct epoll_event ev;
	unsigned port = 2775;
	int opt, one = 1, rc = 1;

	smpp_config_default(&sv.cfg);
	sv.cfg.framing = SMPP_FRAME_ELEMENT;
	sv.cfg.corr_len = CORR_LEN;
	sv.bmax = 64;
	sv.flush_ms = 5;
	sv.max_sessions = 64;
	sv.max_pdu = 4096;
	sv.next_msgid = 1;
	opterr = 0;
	while ((opt = getopt(argc, argv, ":c:a:p:b:T:m:L:t:h")) != -1) {
		double v = 0;
		int bad = 0;

		switch (opt) {
		case 'c': users = optarg; break;
		case 'a': addr = optarg; break;
		case 'p': bad = tool_num(P, opt, optarg, 0, 65535, &v); port = (unsigned)v; break;
		case 'b': bad = tool_num(P, opt, optarg, 1, 1 << 20, &v); sv.bmax = (unsigned)v; break;
		case 'T': bad = tool_num(P, opt, optarg, 0, 60000, &v); sv.flush_ms = (unsigned)v; break;
		case 'm': bad = tool_num(P, opt, optarg, 1, 1 << 20, &v);
			sv.max_sessions = (unsigned)v; break;
		case 'L': bad = tool_num(P, opt, optarg, SMPP_HEADER_LEN, 65536, &v);
			sv.max_pdu = (uint32_t)v; break;
		case 't': bad = tool_num(P, opt, optarg, 1, 256, &v); sv.cfg.threads = (unsigned)v; break;
		case 'h':
			printf("usage: hp-smppd -c USERS [-a ADDR] [-p PORT] [-b BATCH] "
			       "[-T FLUSH_MS] [-m MAX_SESSIONS] [-L MAX_PDU] [-t THREADS]\n");
			return 0;
		default:
			return tool_bad_flag(P, opt, optopt);
		}
		if (bad)
			return 2;
	}
	if (users == NULL || sv.bmax < 1 || sv.max_sessions < 1 ||
	    sv.max_pdu < SMPP_HEADER_LEN || sv.max_pdu > 65536) {
		fprintf(stderr, "hp-smppd: need -c USERS_FILE; batch, sessions >= 1; "
			"16 <= max PDU <= 65536\n");
		return 2;
	}
	if (load_users(&sv, users) < 0 || sv.nusers == 0) {
		fprintf(stderr, "hp-smppd: no users from %s\n", users);
		return 2;
	}
	sv.cfg.max_pdu_len = sv.max_pdu;
	if (smpp_ctx_create(&sv.cfg, &sv.ctx) < 0)
		return 2;
	smpp_batch_init(&sv.batch);
	sv.bcap = (size_t)sv.bmax * (sv.max_pdu + CORR_LEN + sv.cfg.marker_len);
	sv.bbuf = malloc(sv.bcap);
	sv.s = calloc(sv.max_sessions, sizeof(*sv.s));
	if (sv.bbuf == NULL || sv.s == NULL)
		goto out;
	for (unsigned i = 0; i < sv.max_sessions; i++) {
		sv.s[i].fd = -1;
		sv.s[i].rx = malloc((size_t)sv.max_pdu + 4096);
		if (sv.s[i].rx == NULL)
			goto out;
	}
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "hp-smppd: bad address %s\n", addr);
		goto out;
	}
	sa.sin_port = htons((uint16_t)port);
	sv.lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	setsockopt(sv.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sv.lfd < 0 || bind(sv.lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(sv.lfd, 64) < 0 || getsockname(sv.lfd, (struct sockaddr *)&sa, &sl) < 0) {
		fprintf(stderr, "hp-smppd: listen %s:%u: %s\n", addr, port, strerror(errno));
		goto out;
	}
	sv.ep = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	ev.data.u32 = UINT32_MAX;
	epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.lfd, &ev);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	printf("hp-smppd: listening on %s:%u\n", addr, ntohs(sa.sin_port));
	fflush(stdout);

	while (!stop) {
		struct epoll_event evs[64];
		int tmo = sv.bcount ? (int)sv.flush_ms : 200, n;

		n = epoll_wait(sv.ep, evs, 64, tmo);
		for (int i = 0; i < n; i++) {
			uint32_t k = evs[i].data.u32;

			if (k == UINT32_MAX) {
				do_accept(&sv);
				continue;
			}
			if (sv.s[k].fd < 0)
				continue;
			if (evs[i].events & EPOLLOUT)
				sess_flush_out(&sv, &sv.s[k]);
			if (sv.s[k].fd >= 0 && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
				sess_read(&sv, &sv.s[k]);
		}
		if (sv.bcount && (tool_now() - sv.bfirst) * 1000.0 >= sv.flush_ms)
			flush_batch(&sv);
	}
	rc = 0;
out:
	for (unsigned i = 0; sv.s != NULL && i < sv.max_sessions; i++) {
		sess_close(&sv, &sv.s[i]);
		free(sv.s[i].rx);
		free(sv.s[i].out);
	}
	free(sv.s);
	free(sv.bbuf);
	smpp_batch_free(&sv.batch);
	smpp_ctx_free(sv.ctx);
	return rc;
}
