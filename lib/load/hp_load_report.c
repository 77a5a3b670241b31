/* SPDX-License-Identifier: BSD-3-Clause
 * The load estimates as the pipeline shows them: one row per loop per
 * second (progress line, trace.csv) and merged rows for ramp steps. Runs
 * on the thread that writes the row (the scheduler lcore, once a second),
 * never in a polling iteration.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hp_load.h"

/* The kernel's accounting of thread tid (/proc/self/task/TID/schedstat:
 * ns on a CPU, ns runnable but waiting for one): an outside view of how
 * much CPU the loop had, independent of its own counters. Leaves the
 * fields 0 where it cannot be read (no tid, no procfs). */
static void
os_read(int tid, struct hp_load_raw *r)
{
	char path[64], buf[128];
	struct timespec ts;
	uint64_t run, wait;
	ssize_t n;
	int fd;

	r->os_ns = r->os_run_ns = r->os_wait_ns = 0;
	if (tid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%" SCNu64 " %" SCNu64, &run, &wait) != 2 ||
	    clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return;
	r->os_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	r->os_run_ns = run;
	r->os_wait_ns = wait;
}

void
hp_load_row_take(const struct hp_load *ld, struct hp_load_raw *prev,
		 struct hp_load_row *row)
{
	struct hp_load_raw now;
	struct hp_load_est e;

	hp_load_read(ld, &now);
	os_read(__atomic_load_n(&ld->tid, __ATOMIC_RELAXED), &now);
	if (now.os_ns) /* the owner's thread is known and there */
		now.cpu_max = hp_load_cpu_max(__atomic_load_n(&ld->tid, __ATOMIC_RELAXED));
	memset(row, 0, sizeof(*row));
	if (prev->os_ns && now.os_ns > prev->os_ns && now.os_run_ns >= prev->os_run_ns &&
	    now.os_wait_ns >= prev->os_wait_ns) {
		row->d_os_ns = now.os_ns - prev->os_ns;
		row->d_os_run = now.os_run_ns - prev->os_run_ns;
		row->d_os_wait = now.os_wait_ns - prev->os_wait_ns;
	}
	row->cpu = ld->conf.cpu;
	row->warn_count = now.warn_count;
	row->warn_new = now.warn_count > prev->warn_count;
	if (hp_load_compute(prev, &now, ld->conf.max_batch, ld->conf.hz, &e) == 0) {
		row->polls = e.polls;
		row->busy = e.busy;
		row->load = e.load;
		row->headroom = e.headroom;
		row->cycles_per_pkt = e.cycles_per_pkt;
		row->sat_cycles_per_pkt = e.sat_cycles_per_pkt;
		row->d_total = now.total_cycles - prev->total_cycles;
		row->d_busy = now.busy_cycles - prev->busy_cycles;
		row->d_polls = now.polls - prev->polls;
		row->d_empty = now.empty_polls - prev->empty_polls;
		row->d_pkts = now.packets - prev->packets;
		row->d_lost = now.outlier_cycles - prev->outlier_cycles;
	}
	/* The projection is the owner's: it follows its own windows. */
	if (hp_load_last(ld, &e) == 0)
		row->projected = e.projected;
	*prev = now;
}

void
hp_load_row_merge(struct hp_load_row *acc, const struct hp_load_row *r)
{
	uint64_t t = acc->d_total + r->d_total;

	if (t) {
		/* (c) is items x cost / time: time-weighted is exact when the
		 * learnt cost does not move between rows. */
		acc->load = (acc->load * (double)acc->d_total +
			     r->load * (double)r->d_total) / (double)t;
		acc->projected = (acc->projected * (double)acc->d_total +
				  r->projected * (double)r->d_total) / (double)t;
		acc->sat_cycles_per_pkt = acc->d_pkts + r->d_pkts ?
			(acc->sat_cycles_per_pkt * (double)acc->d_pkts +
			 r->sat_cycles_per_pkt * (double)r->d_pkts) /
			(double)(acc->d_pkts + r->d_pkts) : 0;
	}
	acc->d_total = t;
	acc->d_busy += r->d_busy;
	acc->d_polls += r->d_polls;
	acc->d_empty += r->d_empty;
	acc->d_pkts += r->d_pkts;
	acc->d_lost += r->d_lost;
	acc->d_os_ns += r->d_os_ns;
	acc->d_os_run += r->d_os_run;
	acc->d_os_wait += r->d_os_wait;
	acc->warn_new |= r->warn_new;
	acc->warn_count = r->warn_count;
	acc->cpu = r->cpu;
	acc->busy = t ? (double)acc->d_busy / (double)t : 0;
	acc->polls = acc->d_polls ?
		(double)(acc->d_polls - acc->d_empty) / (double)acc->d_polls : 0;
	acc->headroom = acc->load < 1 ? 1 - acc->load : 0;
	acc->cycles_per_pkt = acc->d_pkts ? (double)acc->d_busy / (double)acc->d_pkts : 0;
}

int
hp_load_row_str(char *buf, size_t len, const char *name,
		const struct hp_load_row *row)
{
	if (!hp_load_enabled())
		return snprintf(buf, len, "%s n/a", name);
	return snprintf(buf, len, "%s %3.0f%% (busy %3.0f%%, polls %3.0f%%, headroom %3.0f%%, %.0f cyc/item)%s",
			name, row->load * 100, row->busy * 100, row->polls * 100,
			row->headroom * 100, row->cycles_per_pkt,
			row->warn_new ? " WARN" : "");
}

void
hp_load_csv_head(FILE *f, const char *name)
{
	fprintf(f, ",%s_a_polls,%s_b_busy,%s_c_load,%s_headroom,%s_projected,%s_cyc_per_item,%s_sat_cyc_per_item,%s_stolen,%s_warn,%s_os_cpu,%s_os_wait",
		name, name, name, name, name, name, name, name, name, name, name);
}

void
hp_load_csv_cols(FILE *f, const struct hp_load_row *row)
{
	fprintf(f, ",%.4f,%.4f,%.4f,%.4f,%.4f,%.1f,%.1f,%.4f,%d", row->polls, row->busy,
		row->load, row->headroom, row->projected, row->cycles_per_pkt,
		row->sat_cycles_per_pkt,
		row->d_total ? (double)row->d_lost / (double)row->d_total : 0,
		row->warn_new ? 1 : 0);
	/* the kernel's view: share of wall time on a CPU, and waiting for
	 * one (another thread had it); -1 where it was not read */
	if (row->d_os_ns)
		fprintf(f, ",%.4f,%.4f", (double)row->d_os_run / (double)row->d_os_ns,
			(double)row->d_os_wait / (double)row->d_os_ns);
	else
		fprintf(f, ",-1,-1");
}
