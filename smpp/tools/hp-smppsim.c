/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppsim: the SMPP traffic simulator of Weerasinghe 2017, 4.1.
 *
 * TCP mode: N ESME sessions bind to an SMPP server (hp-smppd or any other),
 * then submit the thesis workload (SUBMIT_SM with distinct addresses,
 * 20-character messages and 5 TLVs by default, smpp_sim_pdu) at a target
 * total TPS, with at most WINDOW unanswered submits per session, for a
 * duration or a count per session.  Reports achieved TPS, submit ->
 * submit_sm_resp latency percentiles, and errors by status; exits 1 when a
 * session failed, a submit was refused or went unanswered.
 *
 *   hp-smppsim -a HOST -p PORT -u SYSTEM_ID -w PASSWORD [-n SESSIONS]
 *              [-r TPS] [-d SECONDS | -c COUNT] [-W WINDOW] [-l MSG_LEN]
 *              [-k TLVS] [-B tx|trx] [-T TIMEOUT_S] [-j]
 *
 * File mode: the same PDUs straight into a file for batch benchmarks.
 *
 *   hp-smppsim -o FILE -N PDUS [-e [-C CORR_LEN]] [-l MSG_LEN] [-k TLVS] [-D]
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "smpp.h"
#include "tool_util.h"

#define MAX_SESSIONS 1024
#define MAX_STATUS   16
#define P            "hp-smppsim" /* for the flag errors */

enum { S_BINDING, S_BOUND, S_UNBINDING, S_DONE, S_FAILED };

struct pend {
	uint32_t seq;             /* 0: free */
	double t;
};

struct sess {
	int fd;
	int state;
	unsigned rank;            /* among bound sessions, for PDU numbering */
	uint32_t next_seq;
	uint64_t sent, answered;
	unsigned outstanding;
	struct pend *win;
	uint8_t *rx;
	size_t rx_len;
	uint8_t *tx;
	size_t tx_len, tx_off, tx_cap;
	char why[96];             /* first failure of this session */
};

struct sim {
	struct sess *s;
	unsigned n, nbound;
	double tps;
	double duration;          /* 0: count mode */
	uint64_t count;           /* per session */
	unsigned window, wcap;
	double timeout;
	uint32_t bind_id;
	struct smpp_sim_config sc;
	int ep;
	/* results */
	uint64_t ok, unexpected, lost;
	uint32_t st_code[MAX_STATUS];
	uint64_t st_cnt[MAX_STATUS];
	unsigned nst;
	float *lat;               /* ms per answered submit */
	size_t nlat, lat_cap;
	double t0, t_send_end, t_last_resp;
};

static void
fail_sess(struct sim *m, struct sess *s, const char *why)
{
	if (s->state == S_FAILED || s->state == S_DONE)
		return;
	if (s->why[0] == '\0')
		snprintf(s->why, sizeof(s->why), "%s", why);
	s->state = S_FAILED;
	/* its unanswered submits are lost */
	m->lost += s->outstanding;
	s->outstanding = 0;
	if (s->fd >= 0) {
		epoll_ctl(m->ep, EPOLL_CTL_DEL, s->fd, NULL);
		close(s->fd);
		s->fd = -1;
	}
}

/* Room for n more octets in the session's send buffer. */
static uint8_t *
tx_room(struct sess *s, size_t n)
{
	if (s->tx_off > 0 && s->tx_off == s->tx_len)
		s->tx_off = s->tx_len = 0;
	if (tool_reserve(&s->tx, &s->tx_cap, s->tx_len, n) < 0)
		return NULL;
	return s->tx + s->tx_len;
}

static int
queue_raw(struct sess *s, const uint8_t *p, size_t n)
{
	uint8_t *d = tx_room(s, n);

	if (d == NULL)
		return -ENOMEM;
	memcpy(d, p, n);
	s->tx_len += n;
	return 0;
}

/* Header-only PDU (enquire_link_resp, unbind, unbind_resp). */
static int
queue_header(struct sess *s, uint32_t id, uint32_t seq)
{
	uint8_t h[16];

	tool_put32(h, 16);
	tool_put32(h + 4, id);
	tool_put32(h + 8, 0);
	tool_put32(h + 12, seq);
	return queue_raw(s, h, sizeof(h));
}

static int
flush_tx(struct sim *m, struct sess *s)
{
	while (s->tx_off < s->tx_len) {
		ssize_t w = send(s->fd, s->tx + s->tx_off, s->tx_len - s->tx_off, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			char why[96];
			snprintf(why, sizeof(why), "send: %s", strerror(errno));
			fail_sess(m, s, why);
			return -1;
		}
		s->tx_off += (size_t)w;
	}
	struct epoll_event ev = {
		.events = EPOLLIN | (s->tx_off < s->tx_len ? EPOLLOUT : 0),
		.data.ptr = s,
	};
	epoll_ctl(m->ep, EPOLL_CTL_MOD, s->fd, &ev);
	return 0;
}

static void
count_status(struct sim *m, uint32_t st)
{
	unsigned i;

	for (i = 0; i < m->nst && m->st_code[i] != st; i++)
		;
	if (i == m->nst) {
		if (m->nst == MAX_STATUS)
			i = MAX_STATUS - 1;       /* lumped with the last one */
		else
			m->st_code[m->nst++] = st;
	}
	m->st_cnt[i]++;
}

static int
add_latency(struct sim *m, double ms)
{
	if (m->nlat == m->lat_cap) {
		size_t nc = m->lat_cap ? m->lat_cap * 2 : 65536;
		float *nl = realloc(m->lat, nc * sizeof(*nl));

		if (nl == NULL)
			return -ENOMEM;
		m->lat = nl;
		m->lat_cap = nc;
	}
	m->lat[m->nlat++] = (float)ms;
	return 0;
}

/* A response to one of our submits: latency, status. */
static void
on_submit_resp(struct sim *m, struct sess *s, uint32_t seq, uint32_t st, double t)
{
	struct pend *p = &s->win[seq & (m->wcap - 1)];

	if (p->seq != seq) {
		m->unexpected++;
		return;
	}
	p->seq = 0;
	s->outstanding--;
	s->answered++;
	m->t_last_resp = t;
	add_latency(m, (t - p->t) * 1e3);
	if (st == ESME_ROK)
		m->ok++;
	else
		count_status(m, st);
}

static void
on_pdu(struct sim *m, struct sess *s, const uint8_t *b, double t)
{
	uint32_t id = smpp_rd32(b + 4), st = smpp_rd32(b + 8), seq = smpp_rd32(b + 12);
	char why[96];

	switch (id) {
	case SMPP_BIND_TRANSMITTER_RESP:
	case SMPP_BIND_TRANSCEIVER_RESP:
		if (s->state != S_BINDING)
			break;
		if (st != ESME_ROK) {
			snprintf(why, sizeof(why), "bind refused: %s", smpp_status_name(st));
			fail_sess(m, s, why);
		} else {
			s->state = S_BOUND;
		}
		break;
	case SMPP_SUBMIT_SM_RESP:
		on_submit_resp(m, s, seq, st, t);
		break;
	case SMPP_GENERIC_NACK:
		if (s->state == S_BINDING) {
			snprintf(why, sizeof(why), "bind answered by generic_nack %s",
				 smpp_status_name(st));
			fail_sess(m, s, why);
		} else {
			on_submit_resp(m, s, seq, st ? st : ESME_RUNKNOWNERR, t);
		}
		break;
	case SMPP_ENQUIRE_LINK:
		queue_header(s, SMPP_ENQUIRE_LINK_RESP, seq);
		break;
	case SMPP_DELIVER_SM: {
		/* transceiver: acknowledge, message_id empty (v3.4 4.6.2) */
		uint8_t r[17];

		tool_put32(r, 17);
		tool_put32(r + 4, SMPP_DELIVER_SM_RESP);
		tool_put32(r + 8, 0);
		tool_put32(r + 12, seq);
		r[16] = 0;
		queue_raw(s, r, sizeof(r));
		break;
	}
	case SMPP_UNBIND:
		queue_header(s, SMPP_UNBIND_RESP, seq);
		flush_tx(m, s);
		if (s->state != S_FAILED) {
			m->lost += s->outstanding;
			s->outstanding = 0;
			if (s->state != S_UNBINDING)
				snprintf(s->why, sizeof(s->why), "unbound by the server");
			s->state = S_DONE;
		}
		break;
	case SMPP_UNBIND_RESP:
		if (s->state == S_UNBINDING)
			s->state = S_DONE;
		break;
	default:
		break;
	}
}

static void
on_readable(struct sim *m, struct sess *s)
{
	for (;;) {
		ssize_t r;

		if (s->state == S_FAILED || s->fd < 0)
			return;
		r = recv(s->fd, s->rx + s->rx_len, 65536 + 16 - s->rx_len, 0);
		if (r == 0) {
			if (s->state != S_DONE) {
				fail_sess(m, s, "connection closed by the server");
			} else {
				/* after unbind: the server's close is the expected end */
				epoll_ctl(m->ep, EPOLL_CTL_DEL, s->fd, NULL);
				close(s->fd);
				s->fd = -1;
			}
			return;
		}
		if (r < 0) {
			char why[96];

			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			snprintf(why, sizeof(why), "recv: %s", strerror(errno));
			fail_sess(m, s, why);
			return;
		}
		s->rx_len += (size_t)r;
		double t = tool_now();
		size_t p = 0;

		while (s->rx_len - p >= 16) {
			uint32_t cl = smpp_rd32(s->rx + p);

			if (cl < 16 || cl > 65536) {
				fail_sess(m, s, "server sent a PDU with a bad command_length");
				return;
			}
			if (s->rx_len - p < cl)
				break;
			on_pdu(m, s, s->rx + p, t);
			if (s->state == S_FAILED)
				return;
			p += cl;
		}
		memmove(s->rx, s->rx + p, s->rx_len - p);
		s->rx_len -= p;
	}
	if (s->state != S_FAILED && s->fd >= 0 && s->tx_len > s->tx_off)
		flush_tx(m, s);
}

static int
queue_bind(struct sim *m, struct sess *s, const char *user, const char *pass)
{
	const struct smpp_pdu_desc *d = smpp_pdu_desc_find(m->bind_id);
	struct smpp_msg msg;
	uint8_t buf[128];
	int n;

	memset(&msg, 0, sizeof(msg));
	msg.command_id = m->bind_id;
	msg.sequence_number = 1;
	msg.v[smpp_field_index(d, "system_id")].p = (const uint8_t *)user;
	msg.v[smpp_field_index(d, "system_id")].len = (uint32_t)strlen(user);
	msg.v[smpp_field_index(d, "password")].p = (const uint8_t *)pass;
	msg.v[smpp_field_index(d, "password")].len = (uint32_t)strlen(pass);
	msg.v[smpp_field_index(d, "interface_version")].u = 0x34;
	n = smpp_encode(&msg, buf, sizeof(buf));
	if (n < 0)
		return n;
	s->next_seq = 2;
	return queue_raw(s, buf, (size_t)n);
}

static int
queue_submit(struct sim *m, struct sess *s)
{
	uint64_t number = s->sent * m->nbound + s->rank;
	uint8_t *d = tx_room(s, 1024);
	struct pend *p;
	int n;

	if (d == NULL)
		return -ENOMEM;
	n = smpp_sim_pdu(&m->sc, (uint32_t)number, d, 1024);
	if (n < 0)
		return n;
	tool_put32(d + 12, s->next_seq);
	p = &s->win[s->next_seq & (m->wcap - 1)];
	if (p->seq != 0) {
		/* its slot came round again: that submit was never answered */
		m->lost++;
		s->outstanding--;
	}
	p->seq = s->next_seq;
	p->t = tool_now();
	s->next_seq = s->next_seq == 0x7fffffff ? 2 : s->next_seq + 1;
	s->tx_len += (size_t)n;
	s->sent++;
	s->outstanding++;
	return 0;
}

static int
connect_to(const char *host, const char *port, char *why, size_t wl)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
	int fd = -1, rc, one = 1;

	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		snprintf(why, wl, "%s:%s: %s", host, port, gai_strerror(rc));
		return -1;
	}
	for (a = res; a != NULL; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		snprintf(why, wl, "connect %s:%s: %s", host, port, strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd >= 0) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}
	return fd;
}

static int
cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

static double
pct(const float *v, size_t n, double q)
{
	size_t i;

	if (n == 0)
		return 0;
	i = (size_t)ceil(q * (double)n) - (q > 0);
	return v[i < n ? i : n - 1];
}

/* Wait for socket events for at most wait seconds and handle them. */
static void
poll_once(struct sim *m, double wait)
{
	struct epoll_event ev[64];
	int ms = wait <= 0 ? 0 : (int)ceil(wait * 1e3);
	int k = epoll_wait(m->ep, ev, 64, ms > 100 ? 100 : ms);

	for (int i = 0; i < k; i++) {
		struct sess *s = ev[i].data.ptr;

		if (s->state == S_FAILED)
			continue;
		if (ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
			on_readable(m, s);
		if (s->state != S_FAILED && (ev[i].events & EPOLLOUT))
			flush_tx(m, s);
	}
}

static unsigned
count_state(const struct sim *m, int st)
{
	unsigned c = 0;

	for (unsigned i = 0; i < m->n; i++)
		c += m->s[i].state == st;
	return c;
}

static void
send_phase(struct sim *m)
{
	double rate = m->tps / m->nbound;   /* per session */

	m->t0 = tool_now();
	for (;;) {
		double t = tool_now() - m->t0, next = 1.0;
		int more = 0;

		for (unsigned i = 0; i < m->n; i++) {
			struct sess *s = &m->s[i];
			uint64_t due;

			if (s->state != S_BOUND)
				continue;
			if (m->duration > 0 && t >= m->duration)
				continue;
			due = (uint64_t)(t * rate);
			if (m->count && due > m->count)
				due = m->count;
			while (s->sent < due && s->outstanding < m->window)
				if (queue_submit(m, s) < 0) {
					fail_sess(m, s, "out of memory");
					break;
				}
			if (s->state == S_BOUND && s->tx_len > s->tx_off)
				flush_tx(m, s);
			if (m->count && s->sent >= m->count)
				continue;
			more = 1;
			/* next submit due (or the window is full: wait for input) */
			if (s->outstanding < m->window) {
				double w = (double)(s->sent + 1) / rate - t;
				if (w < next)
					next = w;
			}
		}
		if (!more)
			break;
		poll_once(m, next);
	}
	m->t_send_end = tool_now();
}

static void
drain_phase(struct sim *m)
{
	double end = tool_now() + m->timeout;

	for (;;) {
		unsigned out = 0;

		for (unsigned i = 0; i < m->n; i++)
			if (m->s[i].state == S_BOUND)
				out += m->s[i].outstanding;
		if (out == 0 || tool_now() >= end)
			break;
		poll_once(m, end - tool_now());
	}
	for (unsigned i = 0; i < m->n; i++) {
		struct sess *s = &m->s[i];

		if (s->state != S_BOUND)
			continue;
		m->lost += s->outstanding;
		s->outstanding = 0;
		s->state = S_UNBINDING;
		queue_header(s, SMPP_UNBIND, s->next_seq);
		flush_tx(m, s);
	}
	end = tool_now() + (m->timeout < 2 ? m->timeout : 2);
	while (count_state(m, S_UNBINDING) > 0 && tool_now() < end)
		poll_once(m, end - tool_now());
}

static void
report(struct sim *m, int json, double target)
{
	uint64_t sent = 0, answered = 0, errs = 0;
	double send_s = m->t_send_end - m->t0;
	double resp_s = m->t_last_resp > m->t0 ? m->t_last_resp - m->t0 : 0;
	double mean = 0;
	const char *why = NULL;
	unsigned failed = 0;

	for (unsigned i = 0; i < m->n; i++) {
		sent += m->s[i].sent;
		answered += m->s[i].answered;
		if (m->s[i].why[0] != '\0') {
			failed++;
			if (why == NULL)
				why = m->s[i].why;
		}
	}
	for (unsigned i = 0; i < m->nst; i++)
		errs += m->st_cnt[i];
	if (m->nlat > 0)
		qsort(m->lat, m->nlat, sizeof(*m->lat), cmp_float);
	for (size_t i = 0; i < m->nlat; i++)
		mean += m->lat[i];
	mean = m->nlat ? mean / (double)m->nlat : 0;
	if (json) {
		printf("{\"sessions\":%u,\"bound\":%u,\"failed_sessions\":%u,"
		       "\"first_failure\":\"%s\",\"target_tps\":%.1f,\"sent\":%llu,"
		       "\"send_s\":%.4f,\"sent_tps\":%.1f,\"answered\":%llu,"
		       "\"answered_tps\":%.1f,\"ok\":%llu,\"errors\":{",
		       m->n, m->nbound, failed, why ? why : "", target,
		       (unsigned long long)sent, send_s,
		       send_s > 0 ? (double)sent / send_s : 0,
		       (unsigned long long)answered,
		       resp_s > 0 ? (double)answered / resp_s : 0,
		       (unsigned long long)m->ok);
		for (unsigned i = 0; i < m->nst; i++)
			printf("%s\"%s\":%llu", i ? "," : "", smpp_status_name(m->st_code[i]),
			       (unsigned long long)m->st_cnt[i]);
		printf("},\"unanswered\":%llu,\"unexpected_responses\":%llu,"
		       "\"latency_ms\":{\"mean\":%.3f,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,"
		       "\"p999\":%.3f,\"max\":%.3f}}\n",
		       (unsigned long long)m->lost, (unsigned long long)m->unexpected, mean,
		       pct(m->lat, m->nlat, 0.5), pct(m->lat, m->nlat, 0.9),
		       pct(m->lat, m->nlat, 0.99), pct(m->lat, m->nlat, 0.999),
		       pct(m->lat, m->nlat, 1.0));
		return;
	}
	printf("hp-smppsim: %u of %u sessions bound; %llu submit_sm sent in %.3f s "
	       "(%.1f/s, target %.1f/s); %llu answered (%.1f/s): %llu ESME_ROK, "
	       "%llu refused, %llu unanswered\n", m->nbound, m->n,
	       (unsigned long long)sent, send_s, send_s > 0 ? (double)sent / send_s : 0,
	       target, (unsigned long long)answered,
	       resp_s > 0 ? (double)answered / resp_s : 0, (unsigned long long)m->ok,
	       (unsigned long long)errs, (unsigned long long)m->lost);
	for (unsigned i = 0; i < m->nst; i++)
		printf("hp-smppsim: refused %s: %llu\n", smpp_status_name(m->st_code[i]),
		       (unsigned long long)m->st_cnt[i]);
	printf("hp-smppsim: latency ms: mean %.3f p50 %.3f p90 %.3f p99 %.3f "
	       "p99.9 %.3f max %.3f\n", mean, pct(m->lat, m->nlat, 0.5),
	       pct(m->lat, m->nlat, 0.9), pct(m->lat, m->nlat, 0.99),
	       pct(m->lat, m->nlat, 0.999), pct(m->lat, m->nlat, 1.0));
	if (why != NULL)
		printf("hp-smppsim: %u session(s) failed, first: %s\n", failed, why);
}

static int
file_mode(const char *path, uint64_t n, const struct smpp_sim_config *sc,
	  int element, unsigned corr_len)
{
	struct smpp_config fr;
	size_t cap = 16u << 20;
	uint8_t *buf = malloc(cap);
	FILE *f = fopen(path, "wb");
	int rc = 1;

	smpp_config_default(&fr);
	if (element) {
		fr.framing = SMPP_FRAME_ELEMENT;
		fr.corr_len = (uint16_t)corr_len;
	}
	if (buf == NULL || f == NULL) {
		fprintf(stderr, "hp-smppsim: %s: %s\n", path, strerror(errno));
		goto out;
	}
	for (uint64_t i = 0; i < n; i += 10000) {
		uint32_t k = n - i < 10000 ? (uint32_t)(n - i) : 10000;
		int len = smpp_sim_stream(sc, &fr, (uint32_t)i, k, buf, cap);

		if (len < 0) {
			fprintf(stderr, "hp-smppsim: generator: %s\n", strerror(-len));
			goto out;
		}
		if (fwrite(buf, 1, (size_t)len, f) != (size_t)len) {
			fprintf(stderr, "hp-smppsim: %s: %s\n", path, strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	if (f != NULL && fclose(f) != 0 && rc == 0) {
		fprintf(stderr, "hp-smppsim: %s: %s\n", path, strerror(errno));
		rc = 1;
	}
	free(buf);
	return rc;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: hp-smppsim -a HOST -p PORT -u SYSTEM_ID -w PASSWORD [-n SESSIONS=1]\n"
		"                  [-r TPS=100] [-d SECONDS=5 | -c COUNT_PER_SESSION]\n"
		"                  [-W WINDOW=64] [-l MSG_LEN=20] [-k TLVS=5] [-B tx|trx]\n"
		"                  [-T TIMEOUT_S=5] [-j]\n"
		"       hp-smppsim -o FILE -N PDUS [-e [-C CORR_LEN=8]] [-l MSG_LEN] [-k TLVS] [-D]\n");
}

int
main(int argc, char **argv)
{
	struct sim m = { .n = 1, .tps = 100, .duration = 5, .window = 64, .timeout = 5,
			 .bind_id = SMPP_BIND_TRANSMITTER, .ep = -1 };
	const char *host = NULL, *port = NULL, *user = NULL, *pass = NULL, *out = NULL;
	uint64_t file_n = 0;
	int json = 0, element = 0, opt, rc = 1;
	unsigned corr_len = 8;
	double v;

	smpp_sim_config_default(&m.sc);
	opterr = 0;
	while ((opt = getopt(argc, argv, ":a:p:u:w:n:r:d:c:W:l:k:B:T:jo:N:eC:Dh")) != -1) {
		int bad = 0;

		switch (opt) {
		case 'a': host = optarg; break;
		case 'p': port = optarg; break;
		case 'u': user = optarg; break;
		case 'w': pass = optarg; break;
		case 'n': bad = tool_num(P, opt, optarg, 1, MAX_SESSIONS, &v); m.n = (unsigned)v; break;
		case 'r': bad = tool_num(P, opt, optarg, 0.001, 1e7, &m.tps); break;
		case 'd': bad = tool_num(P, opt, optarg, 0.001, 86400, &m.duration); m.count = 0; break;
		case 'c': bad = tool_num(P, opt, optarg, 1, 1e9, &v); m.count = (uint64_t)v;
			m.duration = 0; break;
		case 'W': bad = tool_num(P, opt, optarg, 1, 65536, &v); m.window = (unsigned)v; break;
		case 'l': bad = tool_num(P, opt, optarg, 0, 254, &v); m.sc.msg_len = (unsigned)v; break;
		case 'k': bad = tool_num(P, opt, optarg, 0, 64, &v); m.sc.ntlv = (unsigned)v; break;
		case 'B':
			if (strcmp(optarg, "tx") == 0)
				m.bind_id = SMPP_BIND_TRANSMITTER;
			else if (strcmp(optarg, "trx") == 0)
				m.bind_id = SMPP_BIND_TRANSCEIVER;
			else
				bad = 1, fprintf(stderr, P ": -B: expected tx or trx\n");
			break;
		case 'T': bad = tool_num(P, opt, optarg, 0.01, 3600, &m.timeout); break;
		case 'j': json = 1; break;
		case 'o': out = optarg; break;
		case 'N': bad = tool_num(P, opt, optarg, 1, 4e9, &v); file_n = (uint64_t)v; break;
		case 'e': element = 1; break;
		case 'C': bad = tool_num(P, opt, optarg, 0, 255, &v); corr_len = (unsigned)v; break;
		case 'D': m.sc.command_id = SMPP_DELIVER_SM; break;
		case 'h': usage(stdout); return 0;
		default: return tool_bad_flag(P, opt, optopt);
		}
		if (bad)
			return 2;
	}
	if (optind != argc) {
		fprintf(stderr, P ": unexpected argument (-h: usage)\n");
		return 2;
	}
	if (out != NULL) {
		if (file_n == 0) {
			fprintf(stderr, "hp-smppsim: -o needs -N PDUS\n");
			return 2;
		}
		return file_mode(out, file_n, &m.sc, element, corr_len);
	}
	if (host == NULL || port == NULL || user == NULL || pass == NULL) {
		fprintf(stderr, "hp-smppsim: need -a HOST -p PORT -u SYSTEM_ID -w PASSWORD "
			"(or -o FILE -N PDUS)\n");
		return 2;
	}
	if (strlen(user) > 15 || strlen(pass) > 8) {
		fprintf(stderr, "hp-smppsim: system_id is at most 15 characters, password 8 "
			"(SMPP v3.4 4.1.1)\n");
		return 2;
	}
	for (m.wcap = 1; m.wcap < 2 * m.window; m.wcap *= 2)
		;
	m.s = calloc(m.n, sizeof(*m.s));
	m.ep = epoll_create1(EPOLL_CLOEXEC);
	if (m.s == NULL || m.ep < 0) {
		fprintf(stderr, "hp-smppsim: %s\n", strerror(errno));
		goto out;
	}
	for (unsigned i = 0; i < m.n; i++) {
		struct sess *s = &m.s[i];

		s->state = S_BINDING;
		s->fd = -1;
		s->win = calloc(m.wcap, sizeof(*s->win));
		s->rx = malloc(65536 + 16);
		if (s->win == NULL || s->rx == NULL) {
			fprintf(stderr, "hp-smppsim: out of memory\n");
			goto out;
		}
		s->fd = connect_to(host, port, s->why, sizeof(s->why));
		if (s->fd < 0) {
			s->state = S_FAILED;
			continue;
		}
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = s };
		epoll_ctl(m.ep, EPOLL_CTL_ADD, s->fd, &ev);
		if (queue_bind(&m, s, user, pass) < 0 || flush_tx(&m, s) < 0)
			fail_sess(&m, s, "bind could not be sent");
	}
	/* bind phase */
	double end = tool_now() + m.timeout;
	while (count_state(&m, S_BINDING) > 0 && tool_now() < end)
		poll_once(&m, end - tool_now());
	for (unsigned i = 0; i < m.n; i++) {
		if (m.s[i].state == S_BINDING)
			fail_sess(&m, &m.s[i], "no bind response");
		if (m.s[i].state == S_BOUND)
			m.s[i].rank = m.nbound++;
	}
	if (m.nbound == 0) {
		const char *why = m.s[0].why;

		report(&m, json, m.tps);
		fprintf(stderr, "hp-smppsim: no session bound (%s)\n", why);
		goto out;
	}
	send_phase(&m);
	drain_phase(&m);
	report(&m, json, m.tps);
	rc = 0;
	for (unsigned i = 0; i < m.nst; i++)
		rc = 1;
	if (m.lost || m.nbound < m.n || count_state(&m, S_FAILED) > 0)
		rc = 1;
	for (unsigned i = 0; i < m.n; i++)
		if (m.s[i].why[0] != '\0')
			rc = 1;
	if (rc != 0)
		fprintf(stderr, "hp-smppsim: not every submit_sm was accepted "
			"(see the report)\n");
out:
	for (unsigned i = 0; m.s != NULL && i < m.n; i++) {
		if (m.s[i].fd >= 0)
			close(m.s[i].fd);
		free(m.s[i].win);
		free(m.s[i].rx);
		free(m.s[i].tx);
	}
	free(m.s);
	free(m.lat);
	if (m.ep >= 0)
		close(m.ep);
	return rc;
}
