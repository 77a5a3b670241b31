/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: accepting connections (the unbound pool, EMFILE pausing) and the
 * timer sweep (bind, inactivity, response and half-PDU timeouts).
 */
#include "smppd_srv.h"
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
	srv_sess_close(sv, old);
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

void
srv_resume_accept(struct server *sv)
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
			srv_sess_close(sv, s);
			return;
		}
	}
	if (epoll_ctl(sv->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		s->events = 0;
		srv_sess_close(sv, s);
		return;
	}
	smppd_log(SMPPD_INFO, "session %u (%s): connected%s", slot, s->peer,
		  l->tls ? " (TLS)" : "");
}

void
srv_do_accept(struct server *sv, struct listener *l)
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

void
srv_sweep(struct server *sv)
{
	for (unsigned i = 0; i < sv->nslots; i++) {
		struct session *s = &sv->s[i];

		if (s->fd < 0)
			continue;
		if (s->closing || s->unbinding) {
			if (sv->now >= s->t_close) {
				sv->to_close++;
				srv_sess_close(sv, s);
			}
			continue;
		}
		if (s->st == UNBOUND) {
			if (sv->now - s->t_open > kv(K_BIND_TIMEOUT)) {
				smppd_log(SMPPD_INFO, "session %u (%s): no bind in %g s, closed",
					  i, s->peer, kv(K_BIND_TIMEOUT));
				sv->to_bind++;
				srv_sess_close(sv, s);
			}
			continue;
		}
		if (s->t_partial && sv->now - s->t_partial > kv(K_PDU_TIMEOUT)) {
			smppd_log(SMPPD_INFO, "session %u (%s): half a PDU for %g s, closed",
				  i, s->peer, kv(K_PDU_TIMEOUT));
			sv->to_pdu++;
			srv_sess_close(sv, s);
			continue;
		}
		if (s->t_enq == 0 && sv->now - s->t_rx > kv(K_IDLE_TIMEOUT)) {
			/* silence: is it there? (v3.4 4.11) */
			srv_request(sv, s, SMPP_ENQUIRE_LINK);
			s->t_enq = sv->now;
		} else if (s->t_enq != 0 && sv->now - s->t_enq > kv(K_RESP_TIMEOUT)) {
			smppd_log(SMPPD_INFO, "session %u (%s): no answer to enquire_link, unbinding",
				  i, s->peer);
			sv->to_idle++;
			srv_request(sv, s, SMPP_UNBIND);
			s->unbinding = 1;
			s->t_close = sv->now + kv(K_RESP_TIMEOUT);
			continue;
		}
		for (unsigned k = 0; k < s->ndout;)
			if (sv->now - s->dout[k].t > kv(K_RESP_TIMEOUT))
				srv_requeue_dlr(sv, s, k);
			else
				k++;
	}
}

