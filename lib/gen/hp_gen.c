/* SPDX-License-Identifier: BSD-3-Clause
 * Traffic generator (see hp_gen.h) and rate profiles.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "hp_common.h"
#include "hp_gen.h"

#define GEN_POOL (64 * 1024)

/* rte_hash_crc() itself loads 8/4/2 bytes through casts: frame bodies
 * start at odd offsets (after 14 + 20 + 8 + header bytes), which UBSan
 * reports as misaligned loads. The same CRC32C steps through memcpy()
 * loads: same result, and the compiler emits the same unaligned movs.
 */
uint32_t
hp_crc32c(const void *data, uint32_t len)
{
	const uint8_t *p = data;
	uint32_t crc = 0xffffffffu;
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&v8, p, 8);
		crc = rte_hash_crc_8byte(v8, crc);
	}
	if (len & 4) {
		memcpy(&v4, p, 4);
		crc = rte_hash_crc_4byte(v4, crc);
		p += 4;
	}
	if (len & 2) {
		memcpy(&v2, p, 2);
		crc = rte_hash_crc_2byte(v2, crc);
		p += 2;
	}
	if (len & 1)
		crc = rte_hash_crc_1byte(*p, crc);
	return ~crc;
}

/* A comma-separated list of plain decimal numbers, each -1e9..1e9 (the
 * caller checks its own bounds). */
static int
parse_list(const char *s, double *out, unsigned int max, unsigned int *n)
{
	const char *end;

	*n = 0;
	while (*s) {
		if (*n == max)
			return -E2BIG;
		if (hp_parse_double_prefix(s, -1e9, 1e9, &out[*n], &end) < 0)
			return -EINVAL;
		(*n)++;
		s = end;
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -EINVAL;
	}
	return *n ? 0 : -EINVAL;
}

int
hp_imix_parse(struct hp_imix *mx, const char *sizes, const char *shares,
	      char *err, size_t errlen)
{
	double sz[HP_IMIX_MAX], sh[HP_IMIX_MAX], sum = 0;
	unsigned int ns, nh, i;
	char q[64];

	if (parse_list(sizes, sz, HP_IMIX_MAX, &ns) < 0) {
		snprintf(err, errlen, "bad --imix-sizes '%s' (comma-separated frame sizes, at most %d)",
			 hp_quote(q, sizeof(q), sizes, 48), HP_IMIX_MAX);
		return -EINVAL;
	}
	if (parse_list(shares, sh, HP_IMIX_MAX, &nh) < 0 || nh != ns) {
		snprintf(err, errlen, "bad --imix-shares '%s' (one non-negative weight per size)",
			 hp_quote(q, sizeof(q), shares, 48));
		return -EINVAL;
	}
	for (i = 0; i < ns; i++) {
		if (sz[i] != floor(sz[i]) || sz[i] < HP_GEN_MIN_FRAME ||
		    sz[i] > HP_GEN_MAX_FRAME) {
			snprintf(err, errlen, "IMIX size %g outside %d..%d bytes",
				 sz[i], HP_GEN_MIN_FRAME, HP_GEN_MAX_FRAME);
			return -EINVAL;
		}
		if (sh[i] < 0) {
			snprintf(err, errlen, "IMIX share %g is negative", sh[i]);
			return -EINVAL;
		}
		sum += sh[i];
	}
	if (sum <= 0) {
		snprintf(err, errlen, "IMIX shares sum to zero");
		return -EINVAL;
	}
	mx->n = ns;
	for (i = 0; i < ns; i++) {
		mx->size[i] = (uint32_t)sz[i];
		mx->share[i] = sh[i] / sum;
	}
	return 0;
}

int
hp_gen_init(struct hp_gen *g, const struct hp_imix *mx,
	    const struct hp_type_table *types, unsigned int flows_per_type,
	    uint64_t seed, char *err, size_t errlen)
{
	unsigned int i, t, f;
	uint64_t r;

	memset(g, 0, sizeof(*g));
	if (flows_per_type == 0 || flows_per_type > 4096) {
		snprintf(err, errlen, "flows per type must be 1..4096");
		return -EINVAL;
	}
	g->imix = *mx;
	g->types = types;
	g->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
	g->flows_per_type = flows_per_type;
	for (i = 0; i < mx->n; i++) {
		for (t = 0; t < types->n; t++)
			if (mx->size[i] >= types->t[t].min_len &&
			    mx->size[i] <= types->t[t].max_len)
				g->size_types[i][g->size_ntypes[i]++] = (uint8_t)(t + 1);
		if (g->size_ntypes[i] == 0 && mx->share[i] > 0) {
			snprintf(err, errlen, "IMIX size %u matches no packet type",
				 mx->size[i]);
			return -EINVAL;
		}
	}
	g->n_flows = types->n * flows_per_type;
	g->flows = calloc(g->n_flows, sizeof(*g->flows));
	g->pool_len = GEN_POOL;
	g->pool = malloc(GEN_POOL);
	if (g->flows == NULL || g->pool == NULL) {
		hp_gen_free(g);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = g->rng ^ 0xabcdef;
	for (i = 0; i < GEN_POOL; i += 8) {
		uint64_t v = hp_rand64(&r);

		memcpy(g->pool + i, &v, 8);
	}
	/* Addresses stay in 127.0.0.0/8: generated traffic never names a
	 * routable host, even when it crosses a veth pair in a test. */
	for (t = 0; t < types->n; t++) {
		for (f = 0; f < flows_per_type; f++) {
			struct hp_gen_flow *fl = &g->flows[t * flows_per_type + f];
			const struct hp_type *ty = &types->t[t];

			fl->type = (uint8_t)(t + 1);
			fl->key.src_ip = rte_cpu_to_be_32(RTE_IPV4(127, 1, t, 0) + f % 250 + 1);
			fl->key.dst_ip = rte_cpu_to_be_32(RTE_IPV4(127, 2, 0, 1));
			fl->key.src_port = rte_cpu_to_be_16(10000 + f);
			fl->key.dst_port = rte_cpu_to_be_16(5000 + t);
			fl->key.proto = ty->reorder ? IPPROTO_TCP : IPPROTO_UDP;
			fl->key.dscp = ty->latency ? HP_DSCP_EF : 0;
		}
	}
	return 0;
}

void
hp_gen_free(struct hp_gen *g)
{
	free(g->flows);
	free(g->pool);
	g->flows = NULL;
	g->pool = NULL;
}

void
hp_gen_pick(struct hp_gen *g, uint32_t *size, unsigned int *flow)
{
	double u = hp_rand_unit(&g->rng), acc = 0;
	unsigned int i, t;

	for (i = 0; i + 1 < g->imix.n; i++) {
		acc += g->imix.share[i];
		if (u < acc)
			break;
	}
	*size = g->imix.size[i];
	t = g->size_types[i][hp_rand64(&g->rng) % g->size_ntypes[i]] - 1;
	*flow = t * g->flows_per_type +
		(unsigned int)(hp_rand64(&g->rng) % g->flows_per_type);
}

void
hp_gen_set_body(struct hp_gen *g, hp_gen_body_fn fn, void *arg)
{
	g->body_fn = fn;
	g->body_arg = fn != NULL ? arg : NULL;
}

void
hp_gen_set_tag(struct hp_gen *g, bool on)
{
	g->no_tag = !on;
}

/* A body of len bytes from the random pool, chosen by the packet index,
 * with the index itself in front, so bodies differ. */
static void
pool_body(const struct hp_gen *g, uint8_t *body, uint32_t len)
{
	uint32_t off = (uint32_t)((g->gen_id * 2654435761u) % (g->pool_len - len - 8));

	memcpy(body, g->pool + off, len);
	if (len >= 8)
		memcpy(body, &g->gen_id, 8);
}

/* Writes the frame into buf, which holds cap bytes (cap >= size >=
 * HP_GEN_MIN_FRAME). A frame too short for the hp header after its L4
 * header (TCP below 70 bytes) carries none: its payload is pool bytes, as
 * in a foreign packet, and the sink cannot verify it. */
static uint32_t
gen_frame(struct hp_gen *g, unsigned int flow, uint32_t size, uint8_t *buf,
	  uint32_t cap)
{
	struct hp_gen_flow *fl = &g->flows[flow];
	struct rte_ether_hdr *eth = (void *)buf;
	struct rte_ipv4_hdr *ip = (void *)(eth + 1);
	uint8_t *l4 = (uint8_t *)(ip + 1);
	struct hp_app_hdr *h;
	uint32_t l4hl, hdr_len, body_len;
	uint8_t *body;
	bool hph;

	static const struct rte_ether_addr src = {{ 0x02, 0, 0, 0, 0, 1 }};
	static const struct rte_ether_addr dst = {{ 0x02, 0, 0, 0, 0, 2 }};

	l4hl = fl->key.proto == IPPROTO_TCP ? sizeof(struct rte_tcp_hdr) :
					      sizeof(struct rte_udp_hdr);
	h = (void *)(l4 + l4hl);
	hph = size >= (uint32_t)((uint8_t *)(h + 1) - buf);
	body = hph ? (uint8_t *)(h + 1) : (uint8_t *)h;
	hdr_len = (uint32_t)(body - buf);
	if (g->body_fn != NULL && hph) {
		/* The hook decides the body, and so the frame length. */
		g->body_flow = flow;
		body_len = g->body_fn(g->body_arg, g->gen_id, size, hdr_len, body,
				      cap - hdr_len);
		if (body_len > cap - hdr_len)
			body_len = cap - hdr_len;
		size = hdr_len + body_len;
	} else {
		body_len = size - hdr_len;
		pool_body(g, body, body_len);
	}
	rte_ether_addr_copy(&dst, &eth->dst_addr);
	rte_ether_addr_copy(&src, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = (uint8_t)(fl->key.dscp << 2);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(size - sizeof(*eth)));
	ip->packet_id = rte_cpu_to_be_16((uint16_t)g->gen_id);
	ip->time_to_live = 64;
	ip->next_proto_id = fl->key.proto;
	ip->src_addr = fl->key.src_ip;
	ip->dst_addr = fl->key.dst_ip;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (hph) {
		h->magic = rte_cpu_to_be_32(HP_HDR_MAGIC);
		h->seq = rte_cpu_to_be_32(fl->seq);
		h->gen_id = rte_cpu_to_be_32((uint32_t)g->gen_id);
		h->tag = g->no_tag ? 0 : rte_cpu_to_be_32(hp_crc32c(body, body_len));
	}
	/* The L4 checksum last, over everything above: one pass over the
	 * segment, ~115 cycles for a 778-byte frame (hp_pkt.c's cost note),
	 * beside ~300 for the CRC32C tag. */
	if (fl->key.proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *t = (void *)l4;

		memset(t, 0, sizeof(*t));
		t->src_port = fl->key.src_port;
		t->dst_port = fl->key.dst_port;
		t->data_off = (uint8_t)((sizeof(*t) / 4) << 4);
		t->tcp_flags = RTE_TCP_PSH_FLAG | RTE_TCP_ACK_FLAG;
		t->rx_win = rte_cpu_to_be_16(65535);
		t->sent_seq = rte_cpu_to_be_32(fl->seq * 1500u);
		t->cksum = rte_ipv4_udptcp_cksum(ip, t);
	} else {
		struct rte_udp_hdr *u = (void *)l4;

		u->src_port = fl->key.src_port;
		u->dst_port = fl->key.dst_port;
		u->dgram_len = rte_cpu_to_be_16((uint16_t)(size - sizeof(*eth) -
							   sizeof(*ip)));
		u->dgram_cksum = 0;
		u->dgram_cksum = rte_ipv4_udptcp_cksum(ip, u);
	}
	fl->seq++;
	g->gen_id++;
	return size;
}

uint32_t
hp_gen_frame(struct hp_gen *g, unsigned int flow, uint32_t size, uint8_t *buf)
{
	return gen_frame(g, flow, size, buf,
			 g->body_fn != NULL ? HP_GEN_MAX_FRAME : size);
}

int
hp_gen_build(struct hp_gen *g, struct rte_mbuf *m)
{
	uint32_t size, cap = rte_pktmbuf_tailroom(m);
	unsigned int flow;

	hp_gen_pick(g, &size, &flow);
	if (cap < size)
		return -ENOSPC;
	if (cap > HP_GEN_MAX_FRAME)
		cap = HP_GEN_MAX_FRAME;
	size = gen_frame(g, flow, size, rte_pktmbuf_mtod(m, uint8_t *),
			 g->body_fn != NULL ? cap : size);
	if (rte_pktmbuf_append(m, (uint16_t)size) == NULL)
		return -ENOSPC;
	return 0;
}

/* ---- rate profiles ---- */

static void
profile_add(struct hp_profile *p, double t, double rate)
{
	if (p->n < HP_PROFILE_MAX) {
		p->s[p->n].t = t;
		p->s[p->n].rate = rate;
		p->n++;
	}
}

int
hp_profile_scenario(struct hp_profile *p, const char *name,
		    double cap, double dur, uint64_t seed)
{
	/* The thesis's standard test varies the rate across thresholds; ours
	 * walks up through capacity and back down, as fractions of capacity. */
	static const double standard[] = { 0.2, 0.4, 0.7, 0.9, 1.2, 0.8, 0.5, 0.3 };
	unsigned int i;

	memset(p, 0, offsetof(struct hp_profile, s));
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (!strcmp(name, "low")) {
		profile_add(p, 0, 0.1 * cap);
	} else if (!strcmp(name, "medium")) {
		profile_add(p, 0, 0.5 * cap);
	} else if (!strcmp(name, "stress")) {
		profile_add(p, 0, 2.0 * cap);
	} else if (!strcmp(name, "standard")) {
		for (i = 0; i < RTE_DIM(standard); i++)
			profile_add(p, dur * i / RTE_DIM(standard),
				    standard[i] * cap);
	} else if (!strcmp(name, "random")) {
		uint64_t r = seed ? seed : 1;
		double t;

		for (t = 0; t < dur && p->n < HP_PROFILE_MAX; t += 0.5)
			profile_add(p, t, (0.05 + 1.15 * hp_rand_unit(&r)) * cap);
	} else {
		return -EINVAL;
	}
	return 0;
}

int
hp_profile_load(struct hp_profile *p, const char *path, double cap,
		char *err, size_t errlen)
{
	char line[256];
	unsigned int lineno = 0;
	double last = -1;
	FILE *f;
	int ret = 0;

	memset(p, 0, offsetof(struct hp_profile, s));
	snprintf(p->name, sizeof(p->name), "trace");
	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "cannot open trace file %s: %s", path,
			 strerror(errno));
		return -ENOENT;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *s = line, *end;
		double t, r, unit = 1;
		bool of_cap = false;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path, lineno);
			ret = -EINVAL;
			goto out;
		}
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '#' || *s == '\0')
			continue;
		/* numbers whole, finite and bounded: strtod took 1e30 pps */
		if (hp_parse_double_prefix(s, 0, HP_PROFILE_T_MAX, &t, &end) < 0 || t < last ||
		    !(isspace((unsigned char)*end) || *end == ',')) {
			snprintf(err, errlen, "%s:%u: expected '<seconds> <rate>' with non-decreasing seconds 0..%.0f",
				 path, lineno, HP_PROFILE_T_MAX);
			ret = -EINVAL;
			goto out;
		}
		s = end + 1;
		while (isspace((unsigned char)*s))
			s++;
		if (hp_parse_double_prefix(s, 0, HP_RATE_MAX, &r, &end) < 0) {
			snprintf(err, errlen, "%s:%u: bad rate (pps, 10k, 1.5M or 0.5x; at most %.0e pps or %.0fx)",
				 path, lineno, HP_RATE_MAX, HP_RATE_X_MAX);
			ret = -EINVAL;
			goto out;
		}
		switch (*end) {
		case 'k': case 'K': unit = 1e3; end++; break;
		case 'M': case 'm': unit = 1e6; end++; break;
		case 'x': case 'X': of_cap = true; end++; break;
		default: break;
		}
		while (isspace((unsigned char)*end))
			end++;
		if (*end != '\0') {
			snprintf(err, errlen, "%s:%u: trailing text after rate", path,
				 lineno);
			ret = -EINVAL;
			goto out;
		}
		if (r > (of_cap ? HP_RATE_X_MAX : HP_RATE_MAX / unit)) {
			snprintf(err, errlen, "%s:%u: bad rate (pps, 10k, 1.5M or 0.5x; at most %.0e pps or %.0fx)",
				 path, lineno, HP_RATE_MAX, HP_RATE_X_MAX);
			ret = -EINVAL;
			goto out;
		}
		r *= of_cap ? cap : unit;
		if (p->n == HP_PROFILE_MAX) {
			snprintf(err, errlen, "%s: more than %d steps", path,
				 HP_PROFILE_MAX);
			ret = -E2BIG;
			goto out;
		}
		profile_add(p, t, r);
		last = t;
	}
	if (p->n == 0) {
		snprintf(err, errlen, "%s: no '<seconds> <rate>' lines", path);
		ret = -EINVAL;
	}
out:
	fclose(f);
	return ret;
}

double
hp_profile_rate(const struct hp_profile *p, double t)
{
	unsigned int i;
	double r = 0;

	for (i = 0; i < p->n && p->s[i].t <= t; i++)
		r = p->s[i].rate;
	return r;
}
