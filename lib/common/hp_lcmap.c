/* SPDX-License-Identifier: BSD-3-Clause
 * The default EAL --lcores map hplane builds for this machine: lcore 0 is
 * the main lcore (it wakes once a second), the polling lcores follow.
 */
#include <errno.h>
#include <stdio.h>

#include "hp_common.h"

int
hp_lcore_map(unsigned int ncpu, unsigned int ndev, unsigned int n_poll, char *buf,
	     size_t len)
{
	unsigned int i, cpu, need = 1 + n_poll;
	size_t o;
	int w;

	if (ncpu < 1)
		ncpu = 1;
	w = snprintf(buf, len, "--lcores=");
	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	o = (size_t)w;
	for (i = 0; i < need; i++) {
		/* Enough CPUs: one each. Too few: the devices spread over CPUs
		 * 1.., the scheduler and traffic share CPU 0 with main. */
		if (need <= ncpu)
			cpu = i;
		else if (i >= 1 && i <= ndev && ncpu > 1)
			cpu = 1 + (i - 1) % (ncpu - 1);
		else
			cpu = 0;
		w = snprintf(buf + o, len - o, "%s%u@%u", i ? "," : "", i, cpu);
		if (w < 0 || (size_t)w >= len - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	return need > ncpu;
}
