/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: binds: checked off the loop by the password worker, session
 * limits per server and system_id, bind responses.
 */
#include "smppd_srv.h"
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
	srv_sess_send(sv, s, &m);
}

void
srv_bind_fail(struct server *sv, struct session *s, uint32_t cmd, uint32_t seq, int user,
	  uint32_t st)
{
	s->c.bind_fails++;
	if (user >= 0)
		sv->ur[user].c.bind_fails++;
	smppd_log(SMPPD_INFO, "session %u (%s): bind refused: %s", (unsigned)(s - sv->s),
		  s->peer, smpp_status_name(st));
	srv_reply_close(sv, s, cmd | SMPP_RESP_BIT, st, seq);
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
		srv_bind_fail(sv, s, cmd, seq, user, ESME_RINVPASWD);
		return;
	}
	if (!u->tag_ok && smppd_auth_tag(sv->tag_key, pw, pwlen, u->tag) == 0)
		u->tag_ok = 1;
	st = bind_limits(sv, user);   /* again: the worker took its time */
	if (st != ESME_ROK)
		srv_bind_fail(sv, s, cmd, seq, user, st);
	else
		bind_ok(sv, s, cmd, seq, user);
}

void
srv_handle_bind(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	struct view id = srv_fview(p, "system_id"), pw = srv_fview(p, "password");
	struct smppd_auth_req req;
	char pws[9];
	uint8_t tag[32];
	int user = -1;
	uint32_t st;

	if (s->st != UNBOUND) {
		srv_reply(sv, s, p->command_id | SMPP_RESP_BIT, ESME_RALYBND, p->sequence_number, NULL);
		return;
	}
	for (unsigned u = 0; u < sv->nusers; u++)
		if (srv_vequal(sv->users[u].id, id))
			user = (int)u;
	if (user < 0) {
		srv_bind_fail(sv, s, p->command_id, p->sequence_number, -1, ESME_RINVSYSID);
		return;
	}
	/* over a limit: refused before the password costs anything */
	st = bind_limits(sv, user);
	if (st != ESME_ROK) {
		srv_bind_fail(sv, s, p->command_id, p->sequence_number, user, st);
		return;
	}
	srv_vcopy(pws, sizeof(pws), pw);
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
		srv_bind_fail(sv, s, p->command_id, p->sequence_number, user, ESME_RTHROTTLED);
	} else {
		s->binding = 1;       /* no more reading until the verdict */
		srv_sess_events(sv, s);
	}
	OPENSSL_cleanse(&req, sizeof(req));
out:
	OPENSSL_cleanse(pws, sizeof(pws));
}


void
srv_auth_results(struct server *sv)
{
	struct smppd_auth_req r;

	while (smppd_auth_result(&r)) {
		struct session *s = &sv->s[r.slot];

		if (r.slot < sv->nslots && s->fd >= 0 && s->gen == r.gen && s->binding) {
			s->binding = 0;
			bind_verdict(sv, s, r.cmd, r.seq, r.user, r.ok, r.pw, r.pwlen);
			/* PDUs that came behind the bind */
			if (s->fd >= 0 && s->gen == r.gen) {
				srv_process_rx(sv, s);
				srv_mark_ready(sv, s);
				srv_sess_events(sv, s);
			}
		}
		OPENSSL_cleanse(&r, sizeof(r));
	}
}

