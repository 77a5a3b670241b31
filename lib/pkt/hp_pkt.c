/* SPDX-License-Identifier: BSD-3-Clause
 * Packet metadata registration, the packet-type table (Johansson & Pap,
 * Table 4.1) and classification of real Ethernet/IPv4/UDP|TCP headers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "hp_common.h"
#include "hp_pkt.h"

const char *const hp_drop_reason_names[HP_DROP_REASONS] = {
	[HP_DROP_NONE] = "none",
	[HP_DROP_NOT_IPV4] = "not_ipv4",
	[HP_DROP_TRUNC_ETH] = "truncated_ethernet",
	[HP_DROP_TRUNC_IPV4] = "truncated_ipv4",
	[HP_DROP_BAD_IPV4] = "bad_ipv4_header",
	[HP_DROP_TRUNC_L4] = "truncated_l4",
	[HP_DROP_NOT_UDP_TCP] = "not_udp_tcp",
	[HP_DROP_IP_FRAGMENT] = "ip_fragment",
	[HP_DROP_SEGMENTED] = "segmented_mbuf",
};

struct rte_mempool *
hp_pktmbuf_pool(const char *name, unsigned int n, int socket)
{
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create(name, n, RTE_MIN(256u, n / 8), HP_META_PRIV_SIZE,
				     RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (mp == NULL)
		HP_LOG(ERR, "cannot create pool %s of %u mbufs: %s", name, n,
		       rte_strerror(rte_errno));
	return mp;
}

void
hp_type_table_default(struct hp_type_table *tt, double deadline_us)
{
	/* Johansson & Pap, Table 4.1: size ranges x reorder x latency. */
	static const struct hp_type def[] = {
		{ 0, 255, true, true, 0 },
		{ 0, 255, false, false, 0 },
		{ 256, 1024, false, false, 0 },
		{ 256, 1024, true, false, 0 },
		{ 1025, 65535, false, false, 0 },
	};
	unsigned int i;

	memset(tt, 0, sizeof(*tt));
	tt->n = RTE_DIM(def);
	for (i = 0; i < tt->n; i++) {
		tt->t[i] = def[i];
		if (tt->t[i].latency)
			tt->t[i].deadline_us = deadline_us;
	}
}

static int
parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* Splits a type-table line into its 5 comma-separated fields, blanks
 * around each removed; the number of fields found. */
static unsigned int
type_fields(char *p, char *fld[5])
{
	unsigned int n = 0;
	char *e;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (n == 5)
			return 6;
		fld[n++] = p;
		e = p + strcspn(p, ",");
		p = *e == ',' ? e + 1 : NULL;
		*e = '\0';
		while (e > fld[n - 1] && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
		if (p == NULL)
			return n;
	}
}

int
hp_type_table_load(struct hp_type_table *tt, const char *path, char *err,
		   size_t errlen)
{
	char line[256];
	unsigned int lineno = 0;
	FILE *f;
	int ret = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "cannot open type table %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	memset(tt, 0, sizeof(*tt));
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *fld[5];
		unsigned int lo, hi;
		struct hp_type *t;
		double dl;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path, lineno);
			ret = -EINVAL;
			goto out;
		}
		line[strcspn(line, "\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\0' || *p == '\r')
			continue;
		if (type_fields(p, fld) != 5) {
			snprintf(err, errlen, "%s:%u: expected 'min,max,reorder,latency,deadline_us'",
				 path, lineno);
			ret = -EINVAL;
			goto out;
		}
		if (tt->n == HP_MAX_TYPES) {
			snprintf(err, errlen, "%s:%u: more than %d types", path,
				 lineno, HP_MAX_TYPES);
			ret = -E2BIG;
			goto out;
		}
		t = &tt->t[tt->n];
		/* every number whole and bounded: %u took 4294967551 as 255,
		 * %lf took nan and 1e400 */
		if (hp_parse_uint(fld[0], 0, 65535, &lo) < 0 ||
		    hp_parse_uint(fld[1], lo, 65535, &hi) < 0 ||
		    hp_parse_double(fld[4], 0, HP_DEADLINE_US_MAX, &dl) < 0 ||
		    parse_bool(fld[2], &t->reorder) < 0 ||
		    parse_bool(fld[3], &t->latency) < 0) {
			snprintf(err, errlen, "%s:%u: bad value (min<=max<=65535, yes/no flags, deadline 0..%.0f us)",
				 path, lineno, HP_DEADLINE_US_MAX);
			ret = -EINVAL;
			goto out;
		}
		t->min_len = lo;
		t->max_len = hi;
		t->deadline_us = dl;
		if (t->latency && dl <= 0) {
			snprintf(err, errlen, "%s:%u: latency-sensitive type needs a deadline > 0",
				 path, lineno);
			ret = -EINVAL;
			goto out;
		}
		tt->n++;
	}
	if (tt->n == 0) {
		snprintf(err, errlen, "%s: no types", path);
		ret = -EINVAL;
	}
out:
	fclose(f);
	return ret;
}

int
hp_type_lookup(const struct hp_type_table *tt, uint32_t len, bool reorder,
	       bool latency)
{
	unsigned int i;
	int size_match = 0;

	/* Exact row first; otherwise the first row of the right size, so a
	 * combination the table lacks still gets a size-consistent type. */
	for (i = 0; i < tt->n; i++) {
		const struct hp_type *t = &tt->t[i];

		if (len < t->min_len || len > t->max_len)
			continue;
		if (t->reorder == reorder && t->latency == latency)
			return i + 1;
		if (size_match == 0)
			size_match = i + 1;
	}
	return size_match;
}

void
hp_type_index_build(struct hp_type_index *ix, const struct hp_type_table *tt)
{
	unsigned int c, len;

	RTE_BUILD_BUG_ON(HP_MAX_TYPES > UINT8_MAX);
	ix->tt = tt;
	for (c = 0; c < 4; c++)
		for (len = 0; len < HP_TYPE_INDEX_LEN; len++)
			ix->t[c][len] = (uint8_t)hp_type_lookup(tt, len, c & 2, c & 1);
}


void
hp_flow_block(const struct hp_flow_key *k, uint8_t domain, uint8_t out[16])
{
	/* src ip | dst ip | src port | dst port | proto | 0 0 | domain, all in
	 * network order: docs/packet-format.md, reproducible by a receiver. */
	memcpy(out, &k->src_ip, 4);
	memcpy(out + 4, &k->dst_ip, 4);
	memcpy(out + 8, &k->src_port, 2);
	memcpy(out + 10, &k->dst_port, 2);
	out[12] = k->proto;
	out[13] = 0;
	out[14] = 0;
	out[15] = domain;
}

