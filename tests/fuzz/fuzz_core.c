/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer target over the core's parsers of outside input: frames
 * (hp_parse: Ethernet/VLAN/QinQ/IPv4/IPv6/UDP/TCP headers of every received
 * packet, and hp_pkt_l4_fixup, what a task does to them after),
 * packet-type tables (--types FILE), rate traces (--trace FILE), service-
 * time profiles (--gpu model:FILE.json, hplane profile's output), Q-tables
 * (--qtable FILE), DPI pattern sets (--param patterns=FILE) and the IMIX
 * flags (--imix-sizes/--imix-shares). The first input byte picks the
 * parser (mod 8); a frame must parse or give a drop reason, and its
 * checksum verdict (hp_pkt_cksum_ok, before and after a fixup) must agree
 * with one from DPDK's generic sum; anything else must load into a
 * consistent result or give -errno with a one-line reason, and nothing may
 * read or write out of bounds (ASan, UBSan).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hp_batch.h"
#include "hp_gen.h"
#include "hp_model.h"
#include "hp_nf.h"
#include "hp_pkt.h"
#include "hp_sched_policy.h"

enum which { TYPES, TRACE, PROFILE, QTABLE };

/* An error is a -errno with exactly one line saying why. */
static void
check_err(int ret, const char *err)
{
	if (ret > 0 || (ret < 0 && (err[0] == '\0' || strchr(err, '\n') != NULL)))
		abort();
}

/* What a loaded profile promises its readers (the modeled device, the
 * schedulers, lib/plan): every task has rows of increasing batch size
 * within the model's limit, a prediction for them is a finite time, every
 * slow-down (measured or estimated for any mix of its kernels) is a
 * fraction below 1, and a PCIe link has a positive width. */
static void
check_profile(const struct hp_model *m)
{
	unsigned int i, r;

	if (m->n_tasks == 0 || m->n_tasks > HP_MODEL_TASKS || m->max_batch < 1 ||
	    m->max_batch > HP_BATCH_MAX)
		abort();
	for (i = 0; i < m->n_tasks; i++) {
		const struct hp_model_task *t = &m->tasks[i];

		if (t->n_rows == 0 || t->n_rows > HP_MODEL_ROWS)
			abort();
		for (r = 0; r < t->n_rows; r++)
			if (t->rows[r].batch < 1 || t->rows[r].batch > HP_MODEL_BATCH_MAX ||
			    (r > 0 && t->rows[r].batch <= t->rows[r - 1].batch))
				abort();
		if (!(hp_model_predict_us(m, t->name, m->max_batch, 1500 * m->max_batch) >= 0))
			abort();
	}
	if (m->n_interf > HP_MODEL_INTERF || m->n_copy_back > HP_MODEL_TASKS ||
	    (m->pcie && !(m->pcie_gbps > 0)) || m->cls > HP_MODEL_CLASS_DGPU)
		abort();
	for (i = 0; i < m->n_interf; i++) {
		const struct hp_model_interf *e = &m->interf[i];
		const char *k[4] = { e->task, e->co, e->co, e->co };
		const char *mix[3] = { e->task, e->co, m->tasks[0].name };

		if (e->k < 1 || !(e->slowdown >= 0 && e->slowdown < 1) ||
		    !(e->co_slowdown >= 0 && e->co_slowdown < 1))
			abort();
		for (r = 0; r < 4; r++) {
			double s = hp_model_slowdown_of(m, k, 1 + (e->k < 3 ? e->k : 3), r % (1 + e->k),
							 e->batch);
			double x = hp_model_slowdown_of(m, mix, 3, r % 3, e->batch + r);

			if (!(s >= 0 && s < 1) || !(x >= 0 && x < 1))
				abort();
		}
		(void)hp_model_copies_back(m, e->task);
	}
}

static int
load_file(const uint8_t *data, size_t size, enum which which)
{
	char path[] = "/tmp/hp_fuzz_XXXXXX", err[256] = "";
	struct hp_type_table tt;
	struct hp_profile prof;
	struct hp_qtable qt;
	struct hp_model m;
	int fd = mkstemp(path), ret;

	/* No file, no test: stop loudly rather than fuzz nothing. */
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		perror("fuzz_core: temporary file in /tmp");
		abort();
	}
	close(fd);
	switch (which) {
	case TYPES:
		ret = hp_type_table_load(&tt, path, err, sizeof(err));
		break;
	case TRACE:
		ret = hp_profile_load(&prof, path, 1e6, err, sizeof(err));
		break;
	case PROFILE:
		ret = hp_model_load(&m, path, err, sizeof(err));
		if (ret == 0)
			check_profile(&m);
		break;
	default:
		ret = hp_qtable_load(&qt, path, err, sizeof(err));
		if (ret == 0) {
			if (qt.n_states == 0 || qt.n_actions == 0 || qt.q == NULL ||
			    qt.visits == NULL)
				abort();
			hp_qtable_free(&qt);
		}
		break;
	}
	unlink(path);
	check_err(ret, err);
	return 0;
}

static int
patterns(const uint8_t *data, size_t size)
{
	struct hp_nf_patset *ps = calloc(1, sizeof(*ps));
	char err[256] = "";
	uint32_t i;
	int ret;

	if (ps == NULL)
		return 0;
	ret = hp_nf_patset_parse(ps, (const char *)data, size, "fuzz", err, sizeof(err));
	check_err(ret, err);
	for (i = 0; i < ps->n; i++)
		if (ps->len[i] == 0 || ps->len[i] > HP_NF_PAT_MAXLEN || ps->pat[i] == NULL)
			abort();
	hp_nf_patset_free(ps);
	return 0;
}

/* --imix-sizes and --imix-shares: the input up to the first NUL, and the
 * rest. */
static int
imix(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 2), *shares, err[256] = "";
	struct hp_imix mx;
	double sum = 0;
	unsigned int i;
	int ret;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = '\0';
	shares = buf + strlen(buf) + 1;
	if (shares > buf + size)
		shares = buf + size + 1;
	ret = hp_imix_parse(&mx, buf, shares, err, sizeof(err));
	check_err(ret, err);
	if (ret == 0) {
		if (mx.n == 0 || mx.n > HP_IMIX_MAX)
			abort();
		for (i = 0; i < mx.n; i++) {
			if (mx.size[i] < HP_GEN_MIN_FRAME || mx.size[i] > HP_GEN_MAX_FRAME ||
			    !(mx.share[i] >= 0 && mx.share[i] <= 1))
				abort();
			sum += mx.share[i];
		}
		if (!(sum > 0.999999 && sum < 1.000001))
			abort();
	}
	free(buf);
	return 0;
}

/* The verdict hp_pkt_cksum_ok must give on a classified frame, from
 * DPDK's generic sum (__rte_raw_cksum, not lib/pkt's own AVX2 one) over
 * the IPv4 header and the pseudo-header and L4 segment: right when the
 * IPv4 header sums to 0xffff and the segment with its pseudo-header too,
 * where a UDP checksum of 0 means "none" over IPv4 (right) and is refused
 * over IPv6 (RFC 8200 8.1); a TCP checksum of 0 is an ordinary value. */
static bool
ref_cksum_ok(const uint8_t *f, const struct hp_pkt_hdrs *h)
{
	const uint8_t *l4 = f + h->l4;
	const uint32_t l4len = (uint32_t)h->pay + h->pay_len - h->l4;
	const uint16_t ph[2] = { rte_cpu_to_be_16(h->proto), rte_cpu_to_be_16((uint16_t)l4len) };
	uint32_t sum;
	uint16_t ck;

	memcpy(&ck, l4 + (h->proto == IPPROTO_UDP ? offsetof(struct rte_udp_hdr, dgram_cksum) :
						    offsetof(struct rte_tcp_hdr, cksum)), 2);
	if (h->ipv6) {
		if (h->proto == IPPROTO_UDP && ck == 0)
			return false;
		sum = __rte_raw_cksum(f + h->l3 + offsetof(struct rte_ipv6_hdr, src_addr), 32, 0);
	} else {
		if (rte_raw_cksum(f + h->l3, (f[h->l3] & 0xfu) * 4) != 0xffff)
			return false;
		if (h->proto == IPPROTO_UDP && ck == 0)
			return true;
		sum = __rte_raw_cksum(f + h->l3 + offsetof(struct rte_ipv4_hdr, src_addr), 8, 0);
	}
	sum = __rte_raw_cksum(ph, sizeof(ph), sum);
	sum = __rte_raw_cksum(l4, l4len, sum);
	return __rte_raw_cksum_reduce(sum) == 0xffff;
}

/* A frame that classifies, as a task leaves it (hp_pkt_l4_fixup, in
 * software or for a NIC's offload; hp_pkt_l4_fixup_sum after a change of
 * some bytes whose sum is known, as the CUDA plugin's scatter gives it):
 * the headers stay inside the frame, hp_pkt_cksum_ok agrees with a
 * reference before and after, and in software the UDP/TCP checksum comes
 * out right (the IPv4 header's too, when it was right before).
 * hp_pkt_l4_fixup_early (then hp_pkt_l4_fixup where it declines) leaves
 * the frame and mbuf hp_pkt_l4_fixup leaves.
 * sel: bit 7 offload, bit 6 hp_pkt_l4_fixup_sum, bits 3-5 where in the
 * payload the changed bytes start and end (odd and even offsets). */
static void
fixup(uint8_t *frame, uint32_t len, uint8_t sel)
{
	static uint8_t copy[65536];
	struct rte_mbuf m, m2;
	struct hp_flow_key key;
	struct hp_pkt_hdrs h;
	bool sw = (sel & 0x80) == 0, ip_ok;
	uint32_t end, off, n, i, a = (sel >> 3) & 7;

	if (hp_parse_hdrs(frame, len, &key, &h) != HP_DROP_NONE)
		return;
	if (h.l3 >= h.l4 || h.l4 + 8 > h.pay || (uint32_t)h.pay + h.pay_len > len)
		abort();
	if (hp_pkt_cksum_ok(frame, len) != ref_cksum_ok(frame, &h))
		abort();
	ip_ok = h.ipv6 || rte_ipv4_cksum((const struct rte_ipv4_hdr *)(frame + h.l3)) == 0;
	memset(&m, 0, sizeof(m));
	m.buf_addr = frame;
	m.data_len = (uint16_t)len;
	m.pkt_len = len;
	m.nb_segs = 1;
	if (sel & 0x40) {
		/* a task rewrote [off, off + n) and knows its sum */
		end = (uint32_t)h.pay + h.pay_len;
		off = h.pay + 3 * a < end ? h.pay + 3 * a : end;
		n = end - off > a ? end - off - a : 0;
		for (i = off; i < off + n; i++)
			frame[i] ^= (uint8_t)(0x5a + i);
		hp_pkt_l4_fixup_sum(&m, &h, (uint16_t)off, (uint16_t)n,
				    rte_raw_cksum(frame + off, n), sw ? 0 : HP_PKT_TX_CKSUM_OFFLOADS);
	} else {
		m2 = m;
		m2.buf_addr = copy;
		if (len <= sizeof(copy)) {
			memcpy(copy, frame, len);
			if (!hp_pkt_l4_fixup_early(&m2, &h, sw ? 0 : HP_PKT_TX_CKSUM_OFFLOADS))
				hp_pkt_l4_fixup(&m2, &h, 0, sw ? 0 : HP_PKT_TX_CKSUM_OFFLOADS);
		}
		hp_pkt_l4_fixup(&m, &h, 0, sw ? 0 : HP_PKT_TX_CKSUM_OFFLOADS);
		if (len <= sizeof(copy) && (memcmp(copy, frame, len) != 0 ||
					    m.ol_flags != m2.ol_flags ||
					    m.tx_offload != m2.tx_offload))
			abort();
	}
	if (hp_parse_hdrs(frame, len, &key, &h) != HP_DROP_NONE)
		abort(); /* only checksums and payload bytes changed */
	if (sw && hp_pkt_cksum_ok(frame, len) != ref_cksum_ok(frame, &h))
		abort();
	if (sw && ip_ok && !hp_pkt_cksum_ok(frame, len))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hp_flow_key key;
	uint16_t off = 0, len = 0;
	uint8_t *frame;

	if (size < 1)
		return 0;
	switch (data[0] % 8) {
	case 1:
		return load_file(data + 1, size - 1, TYPES);
	case 2:
		return load_file(data + 1, size - 1, TRACE);
	case 3:
		return load_file(data + 1, size - 1, PROFILE);
	case 4:
		return load_file(data + 1, size - 1, QTABLE);
	case 5:
		return patterns(data + 1, size - 1);
	case 6:
		return imix(data + 1, size - 1);
	default:
		/* an exact-size copy, so ASan sees any read past the frame */
		frame = malloc(size - 1 ? size - 1 : 1);
		if (frame == NULL)
			return 0;
		memcpy(frame, data + 1, size - 1);
		if (hp_parse(frame, (uint32_t)(size - 1), &key, &off, &len) == HP_DROP_NONE &&
		    (uint32_t)off + len > size - 1)
			abort(); /* the payload it reports lies inside the frame */
		fixup(frame, (uint32_t)(size - 1), data[0]);
		free(frame);
		return 0;
	}
}
