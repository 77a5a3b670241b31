/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppdump's pcap input: reads a capture (pcap or pcapng, through
 * libpcap) of SMPP over TCP, reassembles each direction of each TCP
 * connection (retransmissions trimmed, out-of-order segments held until the
 * gap fills), frames the byte stream by command_length and decodes every
 * PDU with smpp_decode_pdu.  Link types: Ethernet (with VLAN tags), Linux
 * cooked v1/v2, raw IPv4/IPv6, BSD loopback.  IPv4 and IPv6.
 *
 * A direction whose bytes can no longer be framed (command_length < 16 or
 * above the limit: TCP gives no other boundary), or that misses bytes the
 * capture never had, gets one "stream_error" line and is skipped from there
 * on; other connections are not affected.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "smpp.h"
#include "smppdump_pcap.h"
#include "tool_util.h"

#define MAX_FLOWS   65536
#define OOO_LIMIT   (16u << 20)  /* held out-of-order octets per direction */
#define NBUCKET     4096

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04

struct seg {
	struct seg *next;
	uint32_t seq, len;
	uint8_t data[];
};

/* One direction of one TCP connection. */
struct stream {
	struct stream *hnext, *lnext;
	uint8_t fam;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	char name[112];
	int have_seq, dead;
	uint32_t next_seq;
	uint8_t *buf;             /* reassembled octets not yet framed */
	size_t len, cap;
	uint64_t off;             /* stream offset of buf[0] */
	struct seg *ooo;
	size_t ooo_bytes;
};

struct pc {
	const struct smppdump_pcap_opts *o;
	FILE *out;
	struct stream *bucket[NBUCKET];
	struct stream *first, *last;
	unsigned nflows;
	uint64_t npkt, nfrag, nother, npdu, nerr, nfault, nflows_dropped;
	double ts;
	char *mbuf;               /* memstream for one PDU's JSON */
	size_t mlen;
	FILE *mf;
};

int
smppdump_is_pcap(const uint8_t *b, size_t len)
{
	static const uint32_t magic[] = {
		0xa1b2c3d4, 0xd4c3b2a1,     /* pcap, microseconds, either order */
		0xa1b23c4d, 0x4d3cb2a1,     /* pcap, nanoseconds */
		0x0a0d0d0a,                 /* pcapng section header block */
	};

	if (len < 4)
		return 0;
	for (unsigned i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if (smpp_rd32(b) == magic[i])
			return 1;
	return 0;
}

/* One "stream_error" line; fmt takes up to two %llu. */
static void
fault(struct pc *c, struct stream *s, uint64_t off, const char *fmt,
      unsigned long long a, unsigned long long b)
{
	fprintf(c->out, "{\"flow\":\"%s\",\"ts\":%.6f,\"stream_off\":%llu,\"stream_error\":\"",
		s->name, c->ts, (unsigned long long)off);
	fprintf(c->out, fmt, a, b);
	fputs("\"}\n", c->out);
	c->nfault++;
}

static struct stream *
flow(struct pc *c, uint8_t fam, const uint8_t *src, const uint8_t *dst,
     uint16_t sport, uint16_t dport)
{
	size_t al = fam == 4 ? 4 : 16;
	uint32_t h = 2166136261u;
	struct stream *s;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < al; i++)
		h = (h ^ src[i] ^ (uint32_t)dst[i] << 8) * 16777619u;
	h = (h ^ sport ^ (uint32_t)dport << 16) * 16777619u;
	for (s = c->bucket[h % NBUCKET]; s != NULL; s = s->hnext)
		if (s->fam == fam && s->sport == sport && s->dport == dport &&
		    memcmp(s->src, src, al) == 0 && memcmp(s->dst, dst, al) == 0)
			return s;
	if (c->nflows == MAX_FLOWS) {
		c->nflows_dropped++;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->fam = fam;
	memcpy(s->src, src, al);
	memcpy(s->dst, dst, al);
	s->sport = sport;
	s->dport = dport;
	inet_ntop(fam == 4 ? AF_INET : AF_INET6, src, a, sizeof(a));
	inet_ntop(fam == 4 ? AF_INET : AF_INET6, dst, b, sizeof(b));
	snprintf(s->name, sizeof(s->name), fam == 4 ? "%s:%u>%s:%u" : "[%s]:%u>[%s]:%u",
		 a, sport, b, dport);
	s->hnext = c->bucket[h % NBUCKET];
	c->bucket[h % NBUCKET] = s;
	if (c->last != NULL)
		c->last->lnext = s;
	else
		c->first = s;
	c->last = s;
	c->nflows++;
	return s;
}

static int
append(struct stream *s, const uint8_t *p, size_t n)
{
	if (tool_reserve(&s->buf, &s->cap, s->len, n) < 0)
		return -ENOMEM;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

static void
print_pdu(struct pc *c, struct stream *s, const uint8_t *b, uint32_t n, uint64_t off)
{
	struct smpp_pdu p;

	smpp_decode_pdu(b, n, c->o->flags, off, &p);
	p.off = off;
	p.corr_off = off;
	p.corr_len = 0;
	rewind(c->mf);
	smpp_pdu_print_json(c->mf, &p, NULL);
	fflush(c->mf);
	/* the PDU's object with the flow's keys in front of its own */
	fprintf(c->out, "{\"flow\":\"%s\",\"ts\":%.6f,\"stream_off\":%llu,%.*s", s->name,
		c->ts, (unsigned long long)off, (int)ftell(c->mf) - 1, c->mbuf + 1);
	c->npdu++;
	c->nerr += p.error != ESME_ROK;
}

/* Frame and decode every complete PDU at the head of the stream. */
static void
frame(struct pc *c, struct stream *s)
{
	size_t p = 0;

	while (!s->dead && s->len - p >= 4) {
		uint32_t cl = smpp_rd32(s->buf + p);

		if (cl < SMPP_HEADER_LEN || cl > c->o->max_pdu) {
			s->off += p;
			s->len -= p;
			memmove(s->buf, s->buf + p, s->len);
			p = 0;
			fault(c, s, s->off, "command_length %llu cannot be framed (below 16 or above "
			      "%llu); the rest of this direction is skipped", cl, c->o->max_pdu);
			s->dead = 1;
			break;
		}
		if (s->len - p < cl)
			break;
		print_pdu(c, s, s->buf + p, cl, s->off + p);
		p += cl;
	}
	s->off += p;
	s->len -= p;
	memmove(s->buf, s->buf + p, s->len);
}

static void
kill_stream(struct stream *s)
{
	s->dead = 1;
	while (s->ooo != NULL) {
		struct seg *g = s->ooo;

		s->ooo = g->next;
		free(g);
	}
	s->ooo_bytes = 0;
	s->len = 0;
}

static void
hold(struct pc *c, struct stream *s, uint32_t seq, const uint8_t *p, uint32_t n)
{
	struct seg **pp = &s->ooo, *g;

	if (s->ooo_bytes + n > OOO_LIMIT) {
		fault(c, s, s->off + s->len, "more than %llu octets after a hole of %llu octets that the "
		      "capture never filled; the rest of this direction is skipped",
		      OOO_LIMIT, seq - s->next_seq);
		kill_stream(s);
		return;
	}
	g = malloc(sizeof(*g) + n);
	if (g == NULL)
		return;
	g->seq = seq;
	g->len = n;
	memcpy(g->data, p, n);
	while (*pp != NULL && (int32_t)((*pp)->seq - seq) <= 0)
		pp = &(*pp)->next;
	g->next = *pp;
	*pp = g;
	s->ooo_bytes += n;
}

static void
tcp_data(struct pc *c, struct stream *s, uint32_t seq, uint8_t flags,
	 const uint8_t *p, uint32_t n)
{
	int32_t d;

	if (flags & TH_SYN) {
		s->have_seq = 1;
		s->next_seq = ++seq;  /* the SYN takes one sequence number */
	}
	if (n == 0 || s->dead)
		return;
	if (!s->have_seq) {
		/* capture began inside the connection: start where we are */
		s->have_seq = 1;
		s->next_seq = seq;
	}
	d = (int32_t)(seq - s->next_seq);
	if (d < 0) {
		if ((uint32_t)-d >= n)
			return;                 /* retransmission of what we have */
		p += -d;
		n -= (uint32_t)-d;
		d = 0;
	}
	if (d > 0) {
		hold(c, s, seq, p, n);
		return;
	}
	if (append(s, p, n) < 0) {
		kill_stream(s);
		return;
	}
	s->next_seq += n;
	/* segments held for this hole */
	while (s->ooo != NULL && (int32_t)(s->ooo->seq - s->next_seq) <= 0) {
		struct seg *g = s->ooo;
		uint32_t skip = s->next_seq - g->seq;

		s->ooo = g->next;
		s->ooo_bytes -= g->len;
		if (skip < g->len && append(s, g->data + skip, g->len - skip) == 0)
			s->next_seq += g->len - skip;
		free(g);
	}
	frame(c, s);
}

static void
tcp(struct pc *c, uint8_t fam, const uint8_t *src, const uint8_t *dst,
    const uint8_t *t, uint32_t avail, uint32_t declared)
{
	uint32_t doff;
	uint16_t sport, dport;
	struct stream *s;

	if (avail < 20 || declared < 20)
		return;
	doff = (uint32_t)(t[12] >> 4) * 4;
	if (doff < 20 || doff > declared || doff > avail)
		return;
	sport = smpp_rd16(t);
	dport = smpp_rd16(t + 2);
	if (c->o->port && sport != c->o->port && dport != c->o->port)
		return;
	s = flow(c, fam, src, dst, sport, dport);
	if (s == NULL)
		return;
	if (avail < declared && !s->dead) {
		/* snaplen cut this segment: its missing octets are a hole */
		fault(c, s, s->off + s->len, "segment of %llu octets captured with only %llu; the rest of "
		      "this direction is skipped", declared - doff, avail - doff);
		kill_stream(s);
		return;
	}
	tcp_data(c, s, smpp_rd32(t + 4), t[13], t + doff, declared - doff);
}

static void
ip(struct pc *c, const uint8_t *p, uint32_t caplen)
{
	if (caplen < 1)
		return;
	if (p[0] >> 4 == 4) {
		uint32_t ihl = (uint32_t)(p[0] & 15) * 4, tot;

		if (caplen < 20 || ihl < 20)
			return;
		tot = smpp_rd16(p + 2);
		if (tot < ihl)
			return;
		if (smpp_rd16(p + 6) & 0x3fff) {
			c->nfrag++;               /* fragments are not reassembled */
			return;
		}
		if (p[9] != 6) {
			c->nother++;
			return;
		}
		if (caplen < ihl)
			return;
		tcp(c, 4, p + 12, p + 16, p + ihl, caplen - ihl, tot - ihl);
	} else if (p[0] >> 4 == 6) {
		uint32_t off = 40, plen;
		uint8_t nh;

		if (caplen < 40)
			return;
		plen = smpp_rd16(p + 4);
		nh = p[6];
		/* hop-by-hop, routing, destination options */
		while ((nh == 0 || nh == 43 || nh == 60) && caplen >= off + 8) {
			uint32_t el = ((uint32_t)p[off + 1] + 1) * 8;

			nh = p[off];
			off += el;
		}
		if (nh == 44) {
			c->nfrag++;
			return;
		}
		if (nh != 6 || caplen < off || plen + 40 < off) {
			c->nother++;
			return;
		}
		tcp(c, 6, p + 8, p + 24, p + off, caplen - off, plen + 40 - off);
	} else {
		c->nother++;
	}
}

/* Link layer: returns the offset of the IP header, or -1 to skip. */
static long
link_off(int dlt, const uint8_t *p, uint32_t caplen)
{
	uint32_t off;
	uint16_t et;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return -1;
		off = 12;
		et = smpp_rd16(p + off);
		while ((et == 0x8100 || et == 0x88a8) && caplen >= off + 6) {
			off += 4;
			et = smpp_rd16(p + off);
		}
		off += 2;
		return et == 0x0800 || et == 0x86dd ? (long)off : -1;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return -1;
		et = smpp_rd16(p + 14);
		return et == 0x0800 || et == 0x86dd ? 16 : -1;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return -1;
		et = smpp_rd16(p);
		return et == 0x0800 || et == 0x86dd ? 20 : -1;
#endif
	case DLT_NULL:
	case DLT_LOOP:
		return caplen < 4 ? -1 : 4;   /* IP version tells v4 from v6 */
	case DLT_RAW:
#ifdef DLT_IPV4
	case DLT_IPV4:
	case DLT_IPV6:
#endif
		return 0;
	default:
		return -1;
	}
}

static int
dlt_known(int dlt)
{
	static const uint8_t probe[64];

	return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_NULL ||
	       dlt == DLT_LOOP || link_off(dlt, probe, sizeof(probe)) == 0
#ifdef DLT_LINUX_SLL2
	       || dlt == DLT_LINUX_SLL2
#endif
	       ;
}

static void
finish(struct pc *c)
{
	for (struct stream *s = c->first, *nx; s != NULL; s = nx) {
		nx = s->lnext;
		if (!s->dead && s->ooo != NULL)
			fault(c, s, s->off + s->len, "%llu octets missing before stream offset %llu (never "
			      "captured); what follows them was not decoded",
			      s->ooo->seq - s->next_seq,
			      s->off + s->len + (s->ooo->seq - s->next_seq));
		else if (!s->dead && s->len > 0)
			fault(c, s, s->off, "capture ends inside a PDU: %llu of %llu octets",
			      s->len, s->len >= 4 ? smpp_rd32(s->buf) : 0);
		kill_stream(s);
		free(s->buf);
		free(s);
	}
}

int
smppdump_pcap(const char *name, const uint8_t *buf, size_t len,
	      const struct smppdump_pcap_opts *o, FILE *out)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct pc c = { .o = o, .out = out };
	struct pcap_pkthdr *h;
	const u_char *data;
	FILE *f = fmemopen((void *)(uintptr_t)buf, len, "rb");
	pcap_t *pc;
	int dlt, r, rc = 0;

	if (f == NULL) {
		fprintf(stderr, "hp-smppdump: %s: %s\n", name, strerror(errno));
		return -1;
	}
	pc = pcap_fopen_offline(f, errbuf);
	if (pc == NULL) {
		fclose(f);
		fprintf(stderr, "hp-smppdump: %s: not a readable capture: %s\n", name, errbuf);
		return -1;
	}
	dlt = pcap_datalink(pc);
	if (!dlt_known(dlt)) {
		fprintf(stderr, "hp-smppdump: %s: link type %s (%d) not supported (Ethernet, "
			"Linux cooked, raw IP, loopback are)\n", name,
			pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "?",
			dlt);
		pcap_close(pc);
		return -1;
	}
	c.mf = open_memstream(&c.mbuf, &c.mlen);
	if (c.mf == NULL) {
		fprintf(stderr, "hp-smppdump: %s\n", strerror(errno));
		pcap_close(pc);
		return -1;
	}
	while ((r = pcap_next_ex(pc, &h, &data)) == 1) {
		long lo;

		c.npkt++;
		c.ts = (double)h->ts.tv_sec + h->ts.tv_usec * 1e-6;
		lo = link_off(dlt, data, h->caplen);
		if (lo < 0 || (uint32_t)lo > h->caplen) {
			c.nother++;
			continue;
		}
		ip(&c, data + lo, h->caplen - (uint32_t)lo);
	}
	if (r == PCAP_ERROR) {
		/* what was decoded so far is printed; the fault gets one line */
		fprintf(stderr, "hp-smppdump: %s: packet %llu: %s\n", name,
			(unsigned long long)c.npkt + 1, pcap_geterr(pc));
		rc = -1;
	}
	finish(&c);
	if (rc == 0) {
		fprintf(stderr, "hp-smppdump: %llu packets, %u TCP flows, %llu PDUs, %llu "
			"with errors, %llu stream faults, %llu IP fragments and %llu other "
			"packets skipped\n", (unsigned long long)c.npkt, c.nflows,
			(unsigned long long)c.npdu, (unsigned long long)c.nerr,
			(unsigned long long)c.nfault, (unsigned long long)c.nfrag,
			(unsigned long long)c.nother);
		if (c.nflows_dropped)
			fprintf(stderr, "hp-smppdump: packets of %llu flows beyond %u "
				"ignored\n", (unsigned long long)c.nflows_dropped, MAX_FLOWS);
	}
	fclose(c.mf);
	free(c.mbuf);
	pcap_close(pc);
	return rc;
}
