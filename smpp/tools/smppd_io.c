/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: counters per session and system_id, the session lists (ready,
 * dirty, free slots), epoll interest, reads and writes (plain and TLS),
 * requests and replies.
 */
#include "smppd_srv.h"
/* ---- counters ------------------------------------------------------------ */

static struct smppd_counters *
user_c(struct server *sv, struct session *s)
{
	return s->user >= 0 ? &sv->ur[s->user].c : NULL;
}

void
srv_count_in(struct server *sv, struct session *s, uint32_t cmd)
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

int
srv_can_read(const struct session *s)
{
	return !s->closing && !s->binding && !s->paused;
}

void
srv_sess_events(struct server *sv, struct session *s)
{
	struct epoll_event ev = { .data.u32 = (uint32_t)(s - sv->s) };
	uint32_t want = 0;

	if (s->fd < 0)
		return;
	if (srv_can_read(s) || (s->ssl != NULL && !s->hs_done))
		want |= EPOLLIN;
	if (s->out_len > 0 || s->ssl_want_write)
		want |= EPOLLOUT;
	if (want == s->events)
		return;
	ev.events = want;
	epoll_ctl(sv->ep, EPOLL_CTL_MOD, s->fd, &ev);
	s->events = want;
}

void
srv_mark_dirty(struct server *sv, struct session *s)
{
	if (!s->dirty) {
		s->dirty = 1;
		sv->dirty[sv->ndirty++] = (uint32_t)(s - sv->s);
	}
}

void
srv_mark_ready(struct server *sv, struct session *s)
{
	if (!s->ready) {
		s->ready = 1;
		sv->ready[sv->nready++] = (uint32_t)(s - sv->s);
	}
}


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

void
srv_sess_close(struct server *sv, struct session *s)
{
	if (s->fd < 0)
		return;
	smppd_log(SMPPD_INFO, "session %u (%s): closed", (unsigned)(s - sv->s), s->peer);
	while (s->ndout > 0)
		srv_requeue_dlr(sv, s, s->ndout - 1);
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
ssize_t
srv_io_read(struct session *s, uint8_t *buf, size_t n)
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

void
srv_sess_flush(struct server *sv, struct session *s)
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
			srv_sess_close(sv, s);
			return;
		}
		done += (size_t)w;
	}
	if (done > 0) {
		memmove(s->out, s->out + done, s->out_len - done);
		s->out_len -= done;
	}
	if (s->out_len == 0 && s->closing) {
		srv_sess_close(sv, s);
		return;
	}
	/* read again once most of what piled up is out */
	if (s->paused && s->out_len < OUT_HIGH / 2) {
		s->paused = 0;
		srv_mark_ready(sv, s);
	}
	srv_sess_events(sv, s);
}

/* Queue one PDU for the session; written at the end of this loop turn. */
void
srv_sess_send(struct server *sv, struct session *s, const struct smpp_msg *m)
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
		srv_sess_close(sv, s);
		return;
	}
	memcpy(s->out + s->out_len, sv->enc, (size_t)n);
	s->out_len += (size_t)n;
	count_out(sv, s, m->command_id, m->command_status);
	if (s->out_len >= OUT_HIGH && !s->paused)
		s->paused = 1;
	srv_mark_dirty(sv, s);
}

void
srv_reply(struct server *sv, struct session *s, uint32_t cmd, uint32_t status,
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
	srv_sess_send(sv, s, &m);
}

/* A request of ours (enquire_link, unbind): header only. */
void
srv_request(struct server *sv, struct session *s, uint32_t cmd)
{
	struct smpp_msg m;

	memset(&m, 0, sizeof(m));
	m.command_id = cmd;
	m.sequence_number = sv->next_seq;
	sv->next_seq = sv->next_seq >= 0x7fffffff ? 1 : sv->next_seq + 1;
	srv_sess_send(sv, s, &m);
}

/* Answer, then close once it is written (at the latest after 1 s). */
void
srv_reply_close(struct server *sv, struct session *s, uint32_t cmd, uint32_t st, uint32_t seq)
{
	srv_reply(sv, s, cmd, st, seq, NULL);
	s->closing = 1;
	s->t_close = sv->now + 1.0;
	srv_sess_events(sv, s);
}

