/* SPDX-License-Identifier: BSD-3-Clause
 * Field-for-field comparison of two decoded SMPP batches, for the GPU
 * backend's tests and bench (the GPU or its emulation against the CPU
 * decoder). Compares everything smpp_decode_pdu defines: framing (offsets,
 * correlation id, PDU pointer), header, status and fault offset, the table
 * entry, the views of the decoded mandatory fields and the inline TLVs;
 * not the slots past nfields / ntlv, which the decoder leaves as they were.
 */
#ifndef SMPP_GPU_CMP_H
#define SMPP_GPU_CMP_H

#include <stdio.h>
#include <string.h>

#include "smpp.h"

/* 0 when equal, else 1 after one line on stderr naming the first
 * difference (what is a short label for the input). */
static inline int
smpp_gpu_cmp_pdu(const char *what, size_t i, const struct smpp_pdu *a, const struct smpp_pdu *b)
{
	const char *diff = NULL;
	unsigned nt = a->ntlv < SMPP_TLV_INLINE ? a->ntlv : SMPP_TLV_INLINE;

	if (a->pdu != b->pdu || a->off != b->off || a->len != b->len)
		diff = "framing (pdu, off, len)";
	else if (a->corr_off != b->corr_off || a->corr_len != b->corr_len)
		diff = "correlation id";
	else if (a->error != b->error || a->error_off != b->error_off)
		diff = "error / error_off";
	else if (a->command_length != b->command_length || a->command_id != b->command_id ||
		 a->command_status != b->command_status || a->sequence_number != b->sequence_number)
		diff = "header";
	else if (a->desc != b->desc)
		diff = "desc";
	else if (a->nfields != b->nfields || a->ntlv != b->ntlv ||
		 a->tlv_area_off != b->tlv_area_off || a->tlv_area_len != b->tlv_area_len)
		diff = "nfields / ntlv / tlv area";
	else if (a->nfields <= SMPP_MAX_FIELDS &&
		 memcmp(a->f, b->f, a->nfields * sizeof(a->f[0])) != 0)
		diff = "field views";
	else if (memcmp(a->tlv, b->tlv, nt * sizeof(a->tlv[0])) != 0)
		diff = "inline TLVs";
	if (diff == NULL)
		return 0;
	fprintf(stderr, "%s: PDU %zu: %s differ (status %#x vs %#x, error_off %llu vs %llu, "
		"nfields %u vs %u)\n", what, i, diff, a->error, b->error,
		(unsigned long long)a->error_off, (unsigned long long)b->error_off, a->nfields,
		b->nfields);
	return 1;
}

static inline int
smpp_gpu_cmp_batch(const char *what, const struct smpp_batch *a, const struct smpp_batch *b)
{
	if (a->n != b->n || a->nerr != b->nerr) {
		fprintf(stderr, "%s: %zu PDUs (%zu errors) vs %zu (%zu)\n", what, a->n, a->nerr,
			b->n, b->nerr);
		return 1;
	}
	for (size_t i = 0; i < a->n; i++)
		if (smpp_gpu_cmp_pdu(what, i, &a->pdus[i], &b->pdus[i]))
			return 1;
	return 0;
}

#endif /* SMPP_GPU_CMP_H */
