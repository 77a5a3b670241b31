/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the SMPP unit tests: build a PDU from "name=value"
 * pairs through the table-driven encoder.
 */
#ifndef SMPP_TEST_UTIL_H
#define SMPP_TEST_UTIL_H

#include <errno.h>
#include <string.h>

#include "smpp.h"

struct kv { const char *k; const char *v; uint32_t u; };

/* Encode command name with fields kv[] (NULL-terminated on k) and tlvs. */
static inline int
build_pdu(const char *name, uint32_t seq, const struct kv *kv,
	  const struct smpp_tlv_value *tlv, unsigned ntlv, uint8_t *buf, size_t cap)
{
	const struct smpp_pdu_desc *d = smpp_pdu_desc_by_name(name);
	struct smpp_msg m;

	if (d == NULL)
		return -1;
	memset(&m, 0, sizeof(m));
	m.command_id = d->command_id;
	m.sequence_number = seq;
	for (; kv && kv->k; kv++) {
		int i = smpp_field_index(d, kv->k);
		if (i < 0)
			return -2;
		if (kv->v) {
			m.v[i].p = (const uint8_t *)kv->v;
			m.v[i].len = (uint32_t)strlen(kv->v);
		}
		m.v[i].u = kv->u;
	}
	m.tlv = tlv;
	m.ntlv = ntlv;
	return smpp_encode(&m, buf, cap);
}

#endif
