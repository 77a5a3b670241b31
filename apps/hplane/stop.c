/* SPDX-License-Identifier: BSD-3-Clause
 * How hplane ends (stop.h). Without this a signal killed the process:
 * no summary.json or trace.csv, a stale telemetry socket, and every run,
 * even a clean one, left an empty /var/run/dpdk/hplane<pid> (DPDK 22.11
 * makes the directory for telemetry even with --no-shconf, and removes
 * neither; --in-memory, which would avoid the hugepage files, is refused
 * with --no-huge, and the directory is made regardless).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include "stop.h"

volatile sig_atomic_t hp_cli_stop_signal;

static char rtdir[PATH_MAX];      /* EAL's runtime directory */
static char rtsock[PATH_MAX + 32]; /* its telemetry socket */
static bool rtdir_ours;
static volatile sig_atomic_t rtdir_set; /* the two above are complete */

/* Async-signal-safe: unlink, rmdir and write only. */
static void
on_signal(int sig)
{
	static const char again[] = "hplane: stopping: draining and writing the outputs (again to exit at once)\n";

	if (hp_cli_stop_signal != 0) {
		/* a second signal: exit now, still leaving no directory */
		if (rtdir_set) {
			unlink(rtsock);
			rmdir(rtdir);
		}
		_exit(128 + sig);
	}
	hp_cli_stop_signal = sig;
	if (write(STDERR_FILENO, again, sizeof(again) - 1) < 0) {
		/* nothing to do about it in a handler */
	}
}

void
hp_cli_stop_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* one the caller ignores (nohup, a background job) stays so */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static void
rtdir_remove(void)
{
	DIR *d;
	struct dirent *e;
	char path[PATH_MAX + 260];

	if (!rtdir_set)
		return;
	if (rtdir_ours && (d = opendir(rtdir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", rtdir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(rtdir);
}

void
hp_cli_rtdir_at_exit(void)
{
	atexit(rtdir_remove);
}

void
hp_cli_rtdir_note(bool ours)
{
	const char *d = rte_eal_get_runtime_dir();

	if (rtdir_set || d == NULL || d[0] == '\0' || strlen(d) >= sizeof(rtdir))
		return;
	rtdir_ours = ours;
	snprintf(rtsock, sizeof(rtsock), "%s/dpdk_telemetry.v2", d);
	memcpy(rtdir, d, strlen(d) + 1);
	rtdir_set = 1; /* the handler reads them from here on */
}
