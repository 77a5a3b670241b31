/* SPDX-License-Identifier: BSD-3-Clause
 * How hplane ends (stop.c): SIGINT, SIGTERM and SIGHUP ask the run to
 * stop (hp_run_cfg.stop_signal), so that it drains and writes its
 * outputs; a second one exits at once. DPDK's runtime directory of the
 * process (/var/run/dpdk/<prefix>: the telemetry socket) goes at exit.
 */
#ifndef HP_CLI_STOP_H
#define HP_CLI_STOP_H

#include <signal.h>
#include <stdbool.h>

/* The signal that asked to stop, or 0 (hp_run_cfg.stop_signal). */
extern volatile sig_atomic_t hp_cli_stop_signal;

/* Installs the handlers. */
void hp_cli_stop_install(void);

/* Before the first rte_eal_init: registers the removal of the runtime
 * directory at exit (before DPDK's telemetry registers its own, so that
 * its socket is gone when ours runs). */
void hp_cli_rtdir_at_exit(void);

/* After rte_eal_init (whether it worked or not): notes the runtime
 * directory EAL made. ours: hplane chose the file prefix (the default EAL
 * arguments), so whatever is in the directory is this process's and goes
 * with it; else the directory is removed only when empty. */
void hp_cli_rtdir_note(bool ours);

#endif /* HP_CLI_STOP_H */
