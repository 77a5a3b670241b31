/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: delivery receipts: deliver_sm to the system_id's receivers, a
 * window per session, retries and their responses.
 */
#include "smppd_srv.h"
/* ---- delivery receipts -------------------------------------------------- */

/* A record became final: its receipt waits for a receiver when
 * registered_delivery asks for one (v3.4 5.2.17 bits 1-0: 01 always, 10
 * on failure only). */
void
srv_became_final(struct server *sv, uint32_t slot)
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

	srv_id_str(m->id, id);
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
	srv_sess_send(sv, s, &r);
}

/* Receipt k of the session was refused, timed out or its session closed:
 * back to the queue for another try, or dropped after DLR_TRIES. */
void
srv_requeue_dlr(struct server *sv, struct session *s, unsigned k)
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

void
srv_deliver_resp(struct server *sv, struct session *s, uint32_t seq, uint32_t st)
{
	for (unsigned k = 0; k < s->ndout; k++) {
		struct smppd_msg *m;

		if (s->dout[k].seq != seq)
			continue;
		m = &sv->store.m[s->dout[k].slot];
		if (st != ESME_ROK) {
			s->c.receipt_fails++;
			sv->ur[s->user].c.receipt_fails++;
			srv_requeue_dlr(sv, s, k);
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
void
srv_deliver_receipts(struct server *sv)
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

