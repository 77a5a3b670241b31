/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd: the message store's side of the PDUs: batched submit_sm through
 * the library's batch decoder, submit_multi, data_sm, query_sm, cancel_sm and
 * replace_sm.
 */
#include "smppd_srv.h"
/* ---- the message store's side of the PDUs ------------------------------- */


struct view
srv_fview(const struct smpp_pdu *p, const char *name)
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

void
srv_vcopy(char *dst, size_t cap, struct view v)
{
	size_t n = v.len < cap - 1 ? v.len : cap - 1;

	if (n > 0)
		memcpy(dst, v.p, n);
	dst[n] = '\0';
}

int
srv_vequal(const char *s, struct view v)
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
	srv_vcopy(m->service, sizeof(m->service), service);
}

void
srv_id_str(uint64_t id, char out[17])
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
		srv_reply(sv, s, SMPP_SUBMIT_SM_RESP, st, p->sequence_number, NULL);
		return;
	}
	msg_common(sv, s, fidx(p, f->service), &m);
	m.src_ton = (uint8_t)smpp_field_u(p, (unsigned)f->src_ton);
	m.src_npi = (uint8_t)smpp_field_u(p, (unsigned)f->src_npi);
	m.dst_ton = (uint8_t)smpp_field_u(p, (unsigned)f->dst_ton);
	m.dst_npi = (uint8_t)smpp_field_u(p, (unsigned)f->dst_npi);
	m.reg = (uint8_t)smpp_field_u(p, (unsigned)f->reg);
	srv_vcopy(m.src, sizeof(m.src), fidx(p, f->src));
	srv_vcopy(m.dst, sizeof(m.dst), fidx(p, f->dst));
	msg_text(p, fidx(p, f->text), &m);
	m.id = smppd_store_new_id(&sv->store, wall_us());
	smppd_store_add(&sv->store, &m);
	srv_id_str(m.id, id);
	srv_reply(sv, s, SMPP_SUBMIT_SM_RESP, ESME_ROK, p->sequence_number, id);
}

void
srv_flush_batch(struct server *sv)
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
			srv_reply(sv, s, SMPP_SUBMIT_SM_RESP, p->error, p->sequence_number, NULL);
		else
			submit_done(sv, s, p);
	}
	if (rc < 0)
		smppd_log(SMPPD_ERR, "batch decode failed: %s", strerror(-rc));
	sv->blen = 0;
	sv->bcount = 0;
}

void
srv_queue_submit(struct server *sv, struct session *s, const uint8_t *pdu, uint32_t len)
{
	uint8_t corr[CORR_LEN];
	uint32_t slot = (uint32_t)(s - sv->s);
	int r;

	if (s->inflight >= (uint32_t)kv(K_WINDOW)) {
		/* its window is full: v3.4 5.1.3's throttling error */
		srv_reply(sv, s, SMPP_SUBMIT_SM_RESP, ESME_RTHROTTLED, smpp_rd32(pdu + 12), NULL);
		return;
	}
	tool_put32(corr, slot);
	tool_put32(corr + 4, s->gen);
	r = smpp_element_append(&sv->cfg, sv->bbuf, sv->bcap, sv->blen, corr, pdu, len);
	if (r < 0) {
		srv_flush_batch(sv);
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
		srv_flush_batch(sv);
}

void
srv_submit_multi(struct server *sv, struct session *s, const struct smpp_pdu *p)
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
	st = msg_times(sv, srv_fview(p, "schedule_delivery_time"), srv_fview(p, "validity_period"), &m);
	while (st == ESME_ROK && smpp_list_iter(p, (unsigned)li, &it, &d))
		nok += d.dest_flag == 1;
	if (st == ESME_ROK && nok > 0 && smppd_store_room(&sv->store, nok) < 0)
		st = ESME_RMSGQFUL;
	if (st != ESME_ROK) {
		srv_reply(sv, s, SMPP_SUBMIT_MULTI_RESP, st, p->sequence_number, NULL);
		return;
	}
	msg_common(sv, s, srv_fview(p, "service_type"), &m);
	m.src_ton = fu8(p, "source_addr_ton");
	m.src_npi = fu8(p, "source_addr_npi");
	m.reg = fu8(p, "registered_delivery");
	srv_vcopy(m.src, sizeof(m.src), srv_fview(p, "source_addr"));
	msg_text(p, srv_fview(p, "short_message"), &m);
	if (nok > 0)
		m.id = smppd_store_new_id(&sv->store, wall_us());
	it = 0;
	while (smpp_list_iter(p, (unsigned)li, &it, &d)) {
		if (d.dest_flag == 1) {
			/* one record per SME address, all under the one id */
			m.dst_ton = d.ton;
			m.dst_npi = d.npi;
			srv_vcopy(m.dst, sizeof(m.dst), (struct view){ d.addr, d.addr_len });
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
		srv_id_str(m.id, id);
	memset(&r, 0, sizeof(r));
	r.command_id = SMPP_SUBMIT_MULTI_RESP;
	r.sequence_number = p->sequence_number;
	r.v[smpp_field_index(rd, "message_id")].p = (const uint8_t *)id;
	r.v[smpp_field_index(rd, "message_id")].len = (uint32_t)strlen(id);
	r.v[smpp_field_index(rd, "unsuccess_sme")].p = uns;
	r.v[smpp_field_index(rd, "unsuccess_sme")].len = (uint32_t)ul;
	r.v[smpp_field_index(rd, "unsuccess_sme")].u = nbad;
	srv_sess_send(sv, s, &r);
}

void
srv_data_sm(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	struct view src = srv_fview(p, "source_addr"), dst = srv_fview(p, "destination_addr");
	struct smppd_msg m;
	struct smpp_tlv t;
	char id[17];

	/* data_sm allows 64-character addresses; the store keeps 20 */
	if (src.len >= SMPPD_ADDR || dst.len >= SMPPD_ADDR) {
		srv_reply(sv, s, SMPP_DATA_SM_RESP, src.len >= SMPPD_ADDR ? ESME_RINVSRCADR :
		      ESME_RINVDSTADR, p->sequence_number, NULL);
		return;
	}
	if (smppd_store_room(&sv->store, 1) < 0) {
		srv_reply(sv, s, SMPP_DATA_SM_RESP, ESME_RMSGQFUL, p->sequence_number, NULL);
		return;
	}
	memset(&m, 0, sizeof(m));
	msg_common(sv, s, srv_fview(p, "service_type"), &m);
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
	srv_vcopy(m.src, sizeof(m.src), src);
	srv_vcopy(m.dst, sizeof(m.dst), dst);
	msg_text(p, (struct view){ NULL, 0 }, &m);
	m.id = smppd_store_new_id(&sv->store, wall_us());
	smppd_store_add(&sv->store, &m);
	srv_id_str(m.id, id);
	srv_reply(sv, s, SMPP_DATA_SM_RESP, ESME_ROK, p->sequence_number, id);
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
	if (m == NULL || m->user != s->user || (src.len > 0 && !srv_vequal(m->src, src))) {
		*st = notfound;
		return NULL;
	}
	*st = ESME_ROK;
	return m;
}

void
srv_query_sm(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	const struct smpp_pdu_desc *rd = smpp_pdu_desc_find(SMPP_QUERY_SM_RESP);
	struct smppd_msg *m;
	struct smpp_msg r;
	uint32_t slot, st;
	char id[17], fin[17] = "";

	m = own_msg(sv, s, srv_fview(p, "message_id"), srv_fview(p, "source_addr"), &slot, &st,
		    ESME_RQUERYFAIL);
	if (m == NULL) {
		srv_reply(sv, s, SMPP_QUERY_SM_RESP, st, p->sequence_number, NULL);
		return;
	}
	srv_id_str(m->id, id);
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
	srv_sess_send(sv, s, &r);
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
	return m->state == SMPP_STATE_ENROUTE && (dst.len == 0 || srv_vequal(m->dst, dst));
}

void
srv_cancel_sm(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	struct view idv = srv_fview(p, "message_id"), src = srv_fview(p, "source_addr");
	struct view dst = srv_fview(p, "destination_addr"), svc = srv_fview(p, "service_type");
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
			if (m->user == s->user && srv_vequal(m->src, src) && cancel_match(m, dst) &&
			    (svc.len == 0 || srv_vequal(m->service, svc))) {
				finalize(sv, k, SMPP_STATE_DELETED);
				n++;
			}
		}
	}
	if (st == ESME_ROK && n == 0)
		st = ESME_RCANCELFAIL;
	srv_reply(sv, s, SMPP_CANCEL_SM_RESP, st, p->sequence_number, NULL);
}

void
srv_replace_sm(struct server *sv, struct session *s, const struct smpp_pdu *p)
{
	struct view sched = srv_fview(p, "schedule_delivery_time");
	struct view valid = srv_fview(p, "validity_period");
	struct smppd_msg *m, t;
	uint32_t slot, st;

	m = own_msg(sv, s, srv_fview(p, "message_id"), srv_fview(p, "source_addr"), &slot, &st,
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
		msg_text(p, srv_fview(p, "short_message"), m);
		smppd_store_retime(&sv->store, slot);
	}
	srv_reply(sv, s, SMPP_REPLACE_SM_RESP, st, p->sequence_number, NULL);
}

