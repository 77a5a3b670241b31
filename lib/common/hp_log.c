/* SPDX-License-Identifier: BSD-3-Clause
 * The "heteroplane" log type, registered at start-up so every block logs
 * through DPDK's log system (--log-level=heteroplane:debug works), and
 * hp_quote, which makes outside text safe to echo in a one-line error.
 */
#include <stdio.h>
#include <string.h>

#include <rte_log.h>

#include "hp_common.h"

int hp_logtype;

RTE_INIT(hp_log_init)
{
	hp_logtype = rte_log_register_type_and_pick_level("heteroplane",
							  RTE_LOG_INFO);
	if (hp_logtype < 0)
		hp_logtype = RTE_LOGTYPE_USER1;
}

const char *
hp_quote(char *buf, size_t len, const char *s, size_t max)
{
	size_t o = 0, i;

	if (len < 4) {
		if (len > 0)
			buf[0] = '\0';
		return buf;
	}
	for (i = 0; s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t need = c == '\n' ? 2 : (c < 0x20 || c == 0x7f) ? 4 : 1;

		/* room for this character and for "..." after it */
		if (i == max || o + need + 4 > len) {
			memcpy(buf + o, "...", 4);
			return buf;
		}
		if (need == 1)
			buf[o] = (char)c;
		else if (need == 2)
			memcpy(buf + o, "\\n", 2);
		else
			snprintf(buf + o, 5, "\\x%02x", c);
		o += need;
	}
	buf[o] = '\0';
	return buf;
}
