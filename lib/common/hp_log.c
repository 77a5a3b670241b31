/* SPDX-License-Identifier: BSD-3-Clause
 * The "heteroplane" log type, registered at start-up so every block logs
 * through DPDK's log system (--log-level=heteroplane:debug works).
 */
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
