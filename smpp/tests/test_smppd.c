/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of hp-smppd's parts that need no socket: the users file
 * parser (every refusal has its line number), the message store (id
 * order, binary search, eviction of final records only, the timer heap
 * under retiming, receipt queues that skip reused records) and the
 * receipt text of v3.4 appendix B.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smppd.h"

#define HASH "$pbkdf2-sha256$1000$00112233445566778899aabbccddeeff$" \
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static int
parse(const char *text, struct smppd_user *u, unsigned *n, char *err)
{
	return smppd_users_parse(text, strlen(text), u, 4, n, err, 160);
}

static void
test_users(void **state)
{
	static const struct { const char *text, *why; } bad[] = {
		{ "", "no 'user" },
		{ "# only a comment\n", "no 'user" },
		{ "usr a b\n", "line 1: expected 'user" },
		{ "user a\n", "line 1: expected 'user" },
		{ "\nuser abcdefghijklmnop x\n", "line 2: system_id longer than 15" },
		{ "user a 123456789\n", "line 1: password longer than 8" },
		{ "user a b\nuser a c\n", "line 2: system_id listed twice" },
		{ "user a b binds=0\n", "line 1: binds= expects 1..65536" },
		{ "user a b binds=x\n", "line 1: binds= expects" },
		{ "user a b colour=red\n", "line 1: unknown option" },
		{ "user a $md5$x\n", "line 1: unknown hash" },
		{ "user a $pbkdf2-sha256$999$00112233445566778899aabbccddeeff$00\n",
		  "line 1: hash: iterations" },
		{ "user a $pbkdf2-sha256$1000$0011$00\n", "line 1: hash: salt" },
		{ "user a $pbkdf2-sha256$1000$00112233445566778899aabbccddeeff$0011\n",
		  "line 1: hash: PBKDF2" },
		{ "user a $pbkdf2-sha256$1000$zz112233445566778899aabbccddeeff$00\n",
		  "line 1: hash: salt" },
		{ "user a $pbkdf2-sha256$1000\n", "line 1: hash: expected" },
		{ "user a b\x01\n", "line 1: a character that is not printable" },
		{ "user a b c d e f g h i\n", "line 1: too many words" },
		{ "user a b\nuser c d\nuser e f\nuser g h\nuser i j\n", "line 5: too many users" },
	};
	struct smppd_user u[4];
	unsigned n;
	char err[160];

	(void)state;
	assert_int_equal(parse("# users\n\n  user esme1 secret1\r\n\tuser e2 " HASH
			       " binds=3\nuser e3 #x", u, &n, err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(u[0].id, "esme1");
	assert_int_equal(u[0].hashed, 0);
	assert_string_equal(u[0].plain, "secret1");
	assert_int_equal(u[0].max_binds, 0);
	assert_string_equal(u[1].id, "e2");
	assert_int_equal(u[1].hashed, 1);
	assert_int_equal(u[1].iter, 1000);
	assert_int_equal(u[1].salt_len, 16);
	assert_int_equal(u[1].salt[15], 0xff);
	assert_int_equal(u[1].dk[31], 0x1f);
	assert_int_equal(u[1].max_binds, 3);
	assert_string_equal(u[2].plain, "#x");      /* '#' inside a password */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(bad[i].text, u, &n, err), -22);
		if (strncmp(err, bad[i].why, strlen(bad[i].why)) != 0)
			fail_msg("'%s': got '%s', want '%s'", bad[i].text, err, bad[i].why);
	}
	/* a NUL inside the text */
	assert_int_equal(smppd_users_parse("user a b\0c\n", 11, u, 4, &n, err, sizeof(err)), -22);
	assert_string_equal(err, "line 1: a NUL octet");
}

static struct smppd_msg
msg(uint64_t id, int64_t due)
{
	struct smppd_msg m;

	memset(&m, 0, sizeof(m));
	m.id = id;
	m.state = SMPP_STATE_ENROUTE;
	m.due_ms = due;
	m.expire_ms = INT64_MAX;
	return m;
}

static void
test_store(void **state)
{
	struct smppd_store st;
	struct smppd_msg m, *p;
	uint32_t slot, s2;
	int64_t got[8];

	(void)state;
	assert_int_equal(smppd_store_init(&st, 8), 0);
	/* ids: the clock, or one more than the last */
	assert_true(smppd_store_new_id(&st, 1000) == 1000);
	assert_true(smppd_store_new_id(&st, 1000) == 1001);
	assert_true(smppd_store_new_id(&st, 900) == 1002);
	assert_true(smppd_store_new_id(&st, 5000) == 5000);
	/* 8 records, due in scrambled order; two share an id (submit_multi) */
	static const int64_t due[8] = { 50, 10, 70, 30, 30, 20, 80, 60 };
	static const uint64_t ids[8] = { 1, 2, 3, 3, 4, 5, 6, 7 };
	for (int i = 0; i < 8; i++) {
		assert_int_equal(smppd_store_room(&st, 1), 0);
		m = msg(ids[i], due[i]);
		smppd_store_add(&st, &m);
	}
	/* full, the oldest pending: no room */
	assert_int_equal(smppd_store_room(&st, 1), -28);
	assert_int_equal(st.full, 1);
	p = smppd_store_find(&st, 3, &slot);
	assert_non_null(p);
	assert_int_equal(slot, 2);
	assert_non_null(smppd_store_next(&st, &slot));
	assert_int_equal(slot, 3);
	assert_null(smppd_store_next(&st, &slot));
	assert_null(smppd_store_find(&st, 8, &slot));
	assert_null(smppd_store_find(&st, 0, &slot));
	/* retime: record of id 7 now due first, id 2 last */
	assert_non_null(smppd_store_find(&st, 7, &s2));
	st.m[s2].due_ms = 5;
	smppd_store_retime(&st, s2);
	assert_non_null(smppd_store_find(&st, 2, &s2));
	st.m[s2].due_ms = 90;
	smppd_store_retime(&st, s2);
	/* an expiry before the due time makes it final earlier */
	assert_non_null(smppd_store_find(&st, 6, &s2));
	st.m[s2].expire_ms = 1;
	smppd_store_retime(&st, s2);
	assert_int_equal(smppd_store_next_due(&st), 1);
	assert_int_equal(smppd_store_pop_due(&st, 0), -1);
	for (int i = 0; i < 8; i++) {
		int64_t s = smppd_store_pop_due(&st, 1000);

		assert_true(s >= 0);
		got[i] = smppd_store_final_ms(&st.m[s]);
		st.m[s].state = SMPP_STATE_DELIVERED;
	}
	for (int i = 1; i < 8; i++)
		assert_true(got[i - 1] <= got[i]);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[7], 90);
	assert_int_equal(smppd_store_next_due(&st), INT64_MAX);
	/* receipts: queued for user 1; the record is then evicted and its
	 * slot reused, so the queue entry is skipped */
	assert_non_null(smppd_store_find(&st, 1, &slot));
	st.m[slot].dlr = 1;
	st.m[slot].user = 1;
	assert_int_equal(smppd_store_dlr_push(&st, 1, slot), 0);
	assert_non_null(smppd_store_find(&st, 2, &s2));
	st.m[s2].dlr = 1;
	assert_int_equal(smppd_store_dlr_push(&st, 1, s2), 0);
	assert_int_equal(smppd_store_dlr_len(&st, 1), 2);
	assert_int_equal(smppd_store_room(&st, 1), 0);     /* evicts id 1 */
	assert_int_equal(st.evicted, 1);
	assert_int_equal(st.dlr_dropped, 1);
	m = msg(9, 100);
	assert_int_equal(smppd_store_add(&st, &m), slot);  /* the same slot */
	p = smppd_store_dlr_pop(&st, 1, &s2);
	assert_non_null(p);
	assert_true(p->id == 2);
	assert_null(smppd_store_dlr_pop(&st, 1, &s2));
	/* the ring wrapped: lookups still work */
	assert_non_null(smppd_store_find(&st, 9, &s2));
	assert_int_equal(s2, slot);
	assert_non_null(smppd_store_find(&st, 2, &s2));
	assert_null(smppd_store_find(&st, 1, &s2));
	smppd_store_free(&st);
}

static void
test_receipt_text(void **state)
{
	struct smppd_msg m;
	struct smpp_receipt r;
	char t[254];
	int n;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.id = 0x6612a51c37d92ULL;
	m.submit_ms = 1795694400000LL;              /* 2026-11-26 12:00 UTC */
	m.done_ms = 1795694400000LL + 61000;
	m.state = SMPP_STATE_UNDELIVERABLE;
	m.err = 7;
	memcpy(m.text, "hello\0world, and more", 20);
	m.text_len = 20;
	n = smppd_receipt_text(&m, t, sizeof(t));
	assert_int_equal(n, (int)strlen(t));
	assert_string_equal(t, "id:0006612a51c37d92 sub:001 dlvrd:000 submit date:2611261200 "
			    "done date:2611261201 stat:UNDELIV err:007 text:hello.world, and mor");
	/* the library's own receipt parser reads it */
	assert_int_equal(smpp_receipt_parse(t, (size_t)n, &r), 8);
	assert_memory_equal(r.v[SMPP_DLR_STAT], "UNDELIV", 7);
	assert_string_equal(smppd_state_stat(SMPP_STATE_DELIVERED), "DELIVRD");
	assert_int_equal(smppd_state_parse("REJECTD"), SMPP_STATE_REJECTED);
	assert_int_equal(smppd_state_parse("ENROUTE"), -1);   /* not a final state */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_users),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_receipt_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
