/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the software RSS (lib/pkt/hp_rss.h) the generator and a
 * pcap replay spread frames with over the scheduler lcores: the hash
 * against values computed independently (Python's Toeplitz, in the
 * comments), symmetry (swapped addresses and ports, IPv4 and IPv6, on
 * random tuples), a frame's hash as its parsed tuple's, and the RETA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>

#include "hp_rss.h"

static struct hp_flow_key
v4(uint32_t s, uint32_t d, uint16_t sp, uint16_t dp)
{
	struct hp_flow_key k = { 0 };

	k.src_ip = rte_cpu_to_be_32(s);
	k.dst_ip = rte_cpu_to_be_32(d);
	k.src_port = rte_cpu_to_be_16(sp);
	k.dst_port = rte_cpu_to_be_16(dp);
	k.proto = 17;
	return k;
}

static struct hp_flow_key
swapped(const struct hp_flow_key *k)
{
	struct hp_flow_key r = *k;

	r.src_ip = k->dst_ip;
	r.dst_ip = k->src_ip;
	r.src_port = k->dst_port;
	r.dst_port = k->src_port;
	memcpy(r.src6, k->dst6, 16);
	memcpy(r.dst6, k->src6, 16);
	return r;
}

/* toeplitz(inet_aton('10.0.0.1') + inet_aton('192.168.1.2') +
 * pack('!HH', 1234, 80), key 0x6d5a * 20) = 0xcb65cb65; the IPv6 one for
 * 2001:db8::1 -> 2001:db8::2 = 0xc78dc78d */
static void
test_known_values(void **state)
{
	struct hp_flow_key k = v4(0x0a000001, 0xc0a80102, 1234, 80);

	(void)state;
	assert_int_equal(hp_rss_hash_key(&k), 0xcb65cb65u);
	memset(&k, 0, sizeof(k));
	k.ipv6 = 1;
	k.proto = 6;
	k.src6[0] = 0x20; k.src6[1] = 0x01; k.src6[2] = 0x0d; k.src6[3] = 0xb8; k.src6[15] = 1;
	memcpy(k.dst6, k.src6, 16);
	k.dst6[15] = 2;
	k.src_port = rte_cpu_to_be_16(1234);
	k.dst_port = rte_cpu_to_be_16(80);
	assert_int_equal(hp_rss_hash_key(&k), 0xc78dc78du);
}

static void
test_symmetric(void **state)
{
	struct hp_rss rss;
	unsigned int i, j, n;

	(void)state;
	srand(27);
	for (n = 1; n <= HP_RSS_MAX_Q; n++) {
		hp_rss_init(&rss, n);
		for (i = 0; i < 2000; i++) {
			struct hp_flow_key k = v4((uint32_t)rand(), (uint32_t)rand(),
						  (uint16_t)rand(), (uint16_t)rand());
			struct hp_flow_key r = swapped(&k);

			assert_int_equal(hp_rss_hash_key(&k), hp_rss_hash_key(&r));
			assert_int_equal(hp_rss_queue(&rss, hp_rss_hash_key(&k)),
					 hp_rss_queue(&rss, hp_rss_hash_key(&r)));
			k.ipv6 = 1;
			for (j = 0; j < 16; j++) {
				k.src6[j] = (uint8_t)rand();
				k.dst6[j] = (uint8_t)rand();
			}
			r = swapped(&k);
			assert_int_equal(hp_rss_hash_key(&k), hp_rss_hash_key(&r));
		}
	}
}

/* A UDP frame's hash is its tuple's; a frame the parser refuses is 0. */
static void
test_frame(void **state)
{
	uint8_t f[64] = { 0 };
	struct hp_flow_key k = v4(0x0a000001, 0xc0a80102, 1234, 80);

	(void)state;
	f[12] = 0x08;                    /* IPv4 */
	f[14] = 0x45;
	f[16] = 0;
	f[17] = 46;                      /* total length: 20 + 8 + 18 */
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, &k.src_ip, 4);
	memcpy(f + 30, &k.dst_ip, 4);
	memcpy(f + 34, &k.src_port, 2);
	memcpy(f + 36, &k.dst_port, 2);
	f[39] = 26;                      /* UDP length */
	assert_int_equal(hp_rss_hash_frame(f, 60), 0xcb65cb65u);
	f[12] = 0x12;                    /* not IP */
	assert_int_equal(hp_rss_hash_frame(f, 60), 0);
}

/* The default RETA is round robin, every queue gets 128 / n entries or
 * one more, as ethdev's default. */
static void
test_reta(void **state)
{
	struct hp_rss rss;
	unsigned int n, i, cnt[HP_RSS_MAX_Q];

	(void)state;
	for (n = 1; n <= HP_RSS_MAX_Q; n++) {
		hp_rss_init(&rss, n);
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < HP_RSS_RETA; i++) {
			assert_true(rss.reta[i] < n);
			assert_int_equal(hp_rss_queue(&rss, i), i % n);
			assert_int_equal(hp_rss_queue(&rss, i + HP_RSS_RETA), i % n);
			cnt[rss.reta[i]]++;
		}
		for (i = 0; i < n; i++)
			assert_true(cnt[i] == HP_RSS_RETA / n || cnt[i] == HP_RSS_RETA / n + 1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_reta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
