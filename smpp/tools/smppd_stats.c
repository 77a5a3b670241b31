/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd's log (one facility: stderr, "hp-smppd: LEVEL: ...", filtered
 * by -v) and its counters: PDUs in and out by command, statuses it
 * answered with, binds, window peaks, as JSON for the stats socket.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "smppd.h"

int smppd_log_level = SMPPD_WARN;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

int
smppd_level_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, level_names[i]) == 0)
			return i;
	return -1;
}

void
smppd_log(int level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (level > smppd_log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* one write per line, so lines of a busy server stay whole */
	fprintf(stderr, "hp-smppd: %s: %s\n", level_names[level], buf);
}

/* The v3.4 command ids (5.1.2.1) in a fixed order; "other" last. */
static const uint32_t cmd_ids[SMPPD_NCMD - 1] = {
	SMPP_GENERIC_NACK, SMPP_BIND_RECEIVER, SMPP_BIND_RECEIVER_RESP,
	SMPP_BIND_TRANSMITTER, SMPP_BIND_TRANSMITTER_RESP, SMPP_QUERY_SM,
	SMPP_QUERY_SM_RESP, SMPP_SUBMIT_SM, SMPP_SUBMIT_SM_RESP, SMPP_DELIVER_SM,
	SMPP_DELIVER_SM_RESP, SMPP_UNBIND, SMPP_UNBIND_RESP, SMPP_REPLACE_SM,
	SMPP_REPLACE_SM_RESP, SMPP_CANCEL_SM, SMPP_CANCEL_SM_RESP,
	SMPP_BIND_TRANSCEIVER, SMPP_BIND_TRANSCEIVER_RESP, SMPP_OUTBIND,
	SMPP_ENQUIRE_LINK, SMPP_ENQUIRE_LINK_RESP, SMPP_SUBMIT_MULTI,
	SMPP_SUBMIT_MULTI_RESP, SMPP_ALERT_NOTIFICATION, SMPP_DATA_SM,
	SMPP_DATA_SM_RESP,
};

int
smppd_cmd_idx(uint32_t id)
{
	/* the hot ones first */
	switch (id) {
	case SMPP_SUBMIT_SM: return 7;
	case SMPP_SUBMIT_SM_RESP: return 8;
	case SMPP_DELIVER_SM: return 9;
	case SMPP_DELIVER_SM_RESP: return 10;
	default: break;
	}
	for (int i = 0; i < SMPPD_NCMD - 1; i++)
		if (cmd_ids[i] == id)
			return i;
	return SMPPD_NCMD - 1;
}

const char *
smppd_cmd_name(int idx)
{
	const struct smpp_pdu_desc *d;

	if (idx < 0 || idx >= SMPPD_NCMD - 1)
		return "other";
	d = smpp_pdu_desc_find(cmd_ids[idx]);
	return d ? d->name : "other";
}

void
smppd_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
by_cmd(FILE *f, const char *key, const uint64_t *v)
{
	int first = 1;

	fprintf(f, "\"%s\":{", key);
	for (int i = 0; i < SMPPD_NCMD; i++) {
		if (v[i] == 0)
			continue;
		fprintf(f, "%s\"%s\":%llu", first ? "" : ",", smppd_cmd_name(i),
			(unsigned long long)v[i]);
		first = 0;
	}
	fputc('}', f);
}

void
smppd_counters_json(FILE *f, const struct smppd_counters *c)
{
	int first = 1;

	fprintf(f, "\"binds\":%llu,\"bind_fails\":%llu,", (unsigned long long)c->binds,
		(unsigned long long)c->bind_fails);
	by_cmd(f, "pdus_in", c->in);
	fputc(',', f);
	by_cmd(f, "pdus_out", c->out);
	fputs(",\"errors\":{", f);
	for (int i = 1; i < 256; i++) {
		if (c->err[i] == 0)
			continue;
		/* statuses the table does not name get their number: keys stay distinct */
		if (strcmp(smpp_status_name((uint32_t)i), "ESME_R?") == 0)
			fprintf(f, "%s\"0x%02x\":%llu", first ? "" : ",", i,
				(unsigned long long)c->err[i]);
		else
			fprintf(f, "%s\"%s\":%llu", first ? "" : ",",
				smpp_status_name((uint32_t)i), (unsigned long long)c->err[i]);
		first = 0;
	}
	fprintf(f, "},\"window_peak\":%u,\"deliver_window_peak\":%u,"
		"\"receipts\":%llu,\"receipt_fails\":%llu", c->win_peak, c->dlr_peak,
		(unsigned long long)c->receipts, (unsigned long long)c->receipt_fails);
}
