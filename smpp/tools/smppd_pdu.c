/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: the PDUs a session sends: framing, the half-PDU timeout, dispatch
 * by command.
 */
#include "smppd_srv.h"
/* ---- PDUs ------------------------------------------------------------------- */

static void
handle_resp(struct server *sv, struct session *s, uint32_t id, uint32_t st, uint32_t seq)
{
	switch (id) {
	case SMPP_DELIVER_SM_RESP:
		if (s->st != UNBOUND)
			srv_deliver_resp(sv, s, seq, st);
		break;
	case SMPP_GENERIC_NACK:
		if (s->st != UNBOUND)
			srv_deliver_resp(sv, s, seq, st ? st : ESME_RUNKNOWNERR);
		break;
	case SMPP_UNBIND_RESP:
		if (s->unbinding) {
			s->closing = 1;
			s->t_close = sv->now + 1.0;
			srv_mark_dirty(sv, s);
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

	srv_count_in(sv, s, id);
	s->t_rx = sv->now;
	s->t_enq = 0;
	if (id & SMPP_RESP_BIT) {
		handle_resp(sv, s, id, smpp_rd32(b + 8), seq);
		return;
	}
	if (id == SMPP_SUBMIT_SM && tx) {
		srv_queue_submit(sv, s, b, len);   /* decoded in the next batch */
		return;
	}
	err = smpp_decode_pdu(b, len, sv->cfg.flags, 0, &p);
	if (p.desc == NULL) {
		srv_reply(sv, s, SMPP_GENERIC_NACK, ESME_RINVCMDID, seq, NULL);
		return;
	}
	if (err != ESME_ROK) {
		if (id == SMPP_BIND_TRANSMITTER || id == SMPP_BIND_RECEIVER ||
		    id == SMPP_BIND_TRANSCEIVER)
			srv_bind_fail(sv, s, id, seq, -1, (uint32_t)err);
		else
			srv_reply(sv, s, id | SMPP_RESP_BIT, (uint32_t)err, seq, NULL);
		return;
	}
	switch (id) {
	case SMPP_BIND_TRANSMITTER:
	case SMPP_BIND_RECEIVER:
	case SMPP_BIND_TRANSCEIVER:
		srv_handle_bind(sv, s, &p);
		return;
	case SMPP_ENQUIRE_LINK:
		srv_reply(sv, s, SMPP_ENQUIRE_LINK_RESP, ESME_ROK, seq, NULL);
		return;
	case SMPP_UNBIND:
		if (s->st == UNBOUND) {
			srv_reply(sv, s, SMPP_UNBIND_RESP, ESME_RINVBNDSTS, seq, NULL);
			return;
		}
		srv_flush_batch(sv);  /* answer what it sent before leaving */
		srv_reply_close(sv, s, SMPP_UNBIND_RESP, ESME_ROK, seq);
		return;
	case SMPP_OUTBIND:
	case SMPP_ALERT_NOTIFICATION:
		/* SMSC -> ESME only; alert_notification has no response */
		srv_reply(sv, s, SMPP_GENERIC_NACK, ESME_RINVBNDSTS, seq, NULL);
		return;
	default:
		break;
	}
	/* ESME -> SMSC operations of a transmitter or transceiver (v3.4
	 * 2.3); before a bind, on a receiver, and deliver_sm (SMSC -> ESME):
	 * ESME_RINVBNDSTS */
	if (!tx || id == SMPP_DELIVER_SM || id == SMPP_SUBMIT_SM) {
		srv_reply(sv, s, id | SMPP_RESP_BIT, ESME_RINVBNDSTS, seq, NULL);
		return;
	}
	sv->now_ms = wall_ms();
	switch (id) {
	case SMPP_SUBMIT_MULTI: srv_submit_multi(sv, s, &p); return;
	case SMPP_DATA_SM:      srv_data_sm(sv, s, &p); return;
	case SMPP_QUERY_SM:     srv_query_sm(sv, s, &p); return;
	case SMPP_CANCEL_SM:    srv_cancel_sm(sv, s, &p); return;
	case SMPP_REPLACE_SM:   srv_replace_sm(sv, s, &p); return;
	default:
		srv_reply(sv, s, id | SMPP_RESP_BIT, ESME_RINVCMDID, seq, NULL);
		return;
	}
}

/* The complete PDUs in the session's buffer; a half one stays (its timer
 * started when it began). */
void
srv_process_rx(struct server *sv, struct session *s)
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
			srv_reply_close(sv, s, SMPP_GENERIC_NACK, ESME_RINVCMDLEN, seq);
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
		srv_sess_events(sv, s);
		return -EAGAIN;
	}
	smppd_log(SMPPD_INFO, "session %u (%s): TLS handshake failed: %s",
		  (unsigned)(s - sv->s), s->peer, ERR_reason_error_string(ERR_peek_error()) ?
		  ERR_reason_error_string(ERR_peek_error()) : "connection closed");
	srv_sess_close(sv, s);
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
		srv_flush_batch(sv);
	if (s->fd < 0)
		return;
	s->closing = 1;
	s->t_close = sv->now + 1.0;
	srv_mark_dirty(sv, s);
	srv_sess_events(sv, s);
}

/* Read at most read_budget octets and handle what is complete; when the
 * budget ran out the session goes on the ready list and is served again
 * after the others, so a flooding session costs the rest one budget per
 * turn. */
void
srv_sess_read(struct server *sv, struct session *s)
{
	size_t budget = (size_t)kv(K_READ_BUDGET), got = 0;
	uint32_t gen = s->gen;

	if (s->ssl != NULL && !s->hs_done && tls_handshake(sv, s) < 0)
		return;
	while (got < budget && s->fd >= 0 && s->gen == gen && srv_can_read(s)) {
		size_t room = sv->rxcap - s->rx_len;
		ssize_t r;

		if (room > budget - got)
			room = budget - got;
		r = srv_io_read(s, s->rx + s->rx_len, room);
		if (r == -EAGAIN)
			break;
		if (r == 0) {
			sess_eof(sv, s);
			return;
		}
		if (r < 0) {
			srv_sess_close(sv, s);
			return;
		}
		s->rx_len += (size_t)r;
		got += (size_t)r;
		srv_process_rx(sv, s);
	}
	if (s->fd < 0 || s->gen != gen)
		return;
	if (srv_can_read(s) && (got >= budget || (s->ssl != NULL && SSL_pending(s->ssl) > 0)))
		srv_mark_ready(sv, s);
	srv_sess_events(sv, s);
}

