/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppdump's pcap input: SMPP over TCP from a capture file (pcap or
 * pcapng), TCP streams reassembled per direction, PDUs framed by
 * command_length and decoded.  Internal to the tool.
 */
#ifndef SMPPDUMP_PCAP_H
#define SMPPDUMP_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct smppdump_pcap_opts {
	uint16_t port;            /* only flows with this port at one end (0: all) */
	uint32_t max_pdu;         /* command_length above this cannot be framed */
	unsigned flags;           /* SMPP_F_* for the decoder */
};

/* Is buf (len octets) a pcap or pcapng file? */
int smppdump_is_pcap(const uint8_t *buf, size_t len);

/*
 * Decode every SMPP PDU of the capture in buf, one JSON line each to out
 * (the fields of smpp_pdu_print_json plus "flow", "ts" and "stream_off"),
 * and stream-level faults (gaps, unframeable data) as JSON lines with
 * "stream_error".  Returns 0, or -1 after printing one error line to
 * stderr (name is the file name to print) for a capture it cannot read.
 */
int smppdump_pcap(const char *name, const uint8_t *buf, size_t len,
		  const struct smppdump_pcap_opts *o, FILE *out);

#endif /* SMPPDUMP_PCAP_H */
