/* SPDX-License-Identifier: BSD-3-Clause
 * The apps: named chains of tasks, one row each, all in one place. An app
 * whose tasks are not all built (lib/nf or lib/ldpc left out) is not
 * offered (hp_app_find, hp_app_at).
 */
#include <rte_common.h>

#include "hp_task.h"

static const struct hp_app apps[] = {
	{ .name = "ran", .n_tasks = 2, .tasks = { "ldpc", "aes_ctr" },
	  .desc = "LDPC decode then AES-128-CTR (thesis baseband + crypto chain)" },
	{ .name = "vpn", .n_tasks = 1, .tasks = { "aes_cbc" },
	  .desc = "AES-128-CBC encryption per flow (Pythia encryption app)" },
	{ .name = "dedup", .n_tasks = 1, .tasks = { "md5" },
	  .desc = "MD5 fingerprint of every payload (Pythia packet hashing app)" },
	{ .name = "ids", .n_tasks = 1, .tasks = { "dpi" },
	  .desc = "deep packet inspection with ~10k fixed strings (Pythia DPI app)" },
	{ .name = "ids_ac", .n_tasks = 1, .tasks = { "dpi_ac" },
	  .desc = "ids on the own Aho-Corasick DFA instead of Hyperscan" },
	{ .name = "null", .n_tasks = 1, .tasks = { "null" },
	  .desc = "null task: forwarding through the pipeline only" },
	{ .name = "crypto", .n_tasks = 1, .tasks = { "aes_ctr" },
	  .desc = "AES-128-CTR encryption of every packet (thesis crypto driver)" },
};

RTE_INIT(hp_apps_register)
{
	for (unsigned int i = 0; i < RTE_DIM(apps); i++)
		hp_app_register(&apps[i]);
}
