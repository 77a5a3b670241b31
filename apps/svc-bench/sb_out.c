/* SPDX-License-Identifier: BSD-3-Clause
 * svc-bench's outputs from a run (real or modeled): the delay statistics,
 * the per-job, per-period and per-event CSV files, the JSON summary and
 * the lines printed before and after the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "hp_common.h"
#include "hp_svc.h"
#include "svc_bench.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct sstat {
	uint64_t n, p50, p99, max;
	double mean, sum;
	double resp_mean;	/* response: delay + the job's service time */
	uint64_t stalled_n;	/* jobs whose wait spans a stall of their lcore */
	double stalled_sum;	/* ... and their delays */
};

/* Did the lcore stall while a job waited from deadline to start (both
 * relative to the run start)?
 */
static bool
waited_through_stall(const struct sb_rec *r, uint64_t t0)
{
	const struct sb_lc *l = &sb_lc[r->lcore];
	unsigned int k;

	for (k = 0; k < l->n; k++)
		if (l->from[k] - t0 < r->start && l->to[k] - t0 > r->deadline)
			return true;
	return false;
}

static void
delay_stats(const struct sb_svc *d, struct sstat *s)
{
	uint64_t *v, i;

	memset(s, 0, sizeof(*s));
	if (d->n_rec == 0)
		return;
	v = malloc(d->n_rec * sizeof(*v));
	if (v == NULL)
		return;
	for (i = 0; i < d->n_rec; i++) {
		v[i] = d->rec[i].start - d->rec[i].deadline;
		s->sum += (double)v[i];
		s->resp_mean += (double)v[i] + (double)d->rec[i].dur;
		if (d->rec[i].lcore < RTE_MAX_LCORE && waited_through_stall(&d->rec[i], d->run->t0)) {
			s->stalled_n++;
			s->stalled_sum += (double)v[i];
		}
	}
	s->resp_mean /= (double)d->n_rec;
	qsort(v, d->n_rec, sizeof(*v), cmp_u64);
	s->n = d->n_rec;
	s->mean = s->sum / (double)d->n_rec;
	s->p50 = v[d->n_rec / 2];
	s->p99 = v[(d->n_rec * 99) / 100];
	s->max = v[d->n_rec - 1];
	free(v);
}

/* One row per job: deadline,start,delay,service,core. */
static void
put_jobs(FILE *f, const struct sb_run *sb, const struct sb_opts *o,
         const struct sb_result *res)
{
	unsigned int i;
	uint64_t j;

	(void)res;
	fprintf(f, "deadline,start,delay,service,core\n");
	for (i = 0; i < o->services; i++)
		for (j = 0; j < sb->svcs[i].n_rec; j++) {
			const struct sb_rec *r = &sb->svcs[i].rec[j];

			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u\n",
				r->deadline, r->start, r->start - r->deadline, i, r->lcore);
		}
}

/* Per period and service lcore: useful load, active (not parked). */
static void
put_loads(FILE *f, const struct sb_run *sb, const struct sb_opts *o,
          const struct sb_result *res)
{
	unsigned int k;
	size_t j;

	(void)o;
	fprintf(f, "t,lcore,load,active\n");
	for (j = 0; j < sb->n_lsamples; j++)
		for (k = 0; k < res->n_lcores; k++)
			fprintf(f, "%" PRId64 ",%u,%.4f,%u\n", sb->lsamples[j].t,
				res->lcore_id[k], sb->lsamples[j].load[k],
				(sb->lsamples[j].active >> k) & 1u);
}

/* The balancer's actions; the reason may hold a comma: quoted. */
static void
put_events(FILE *f, const struct sb_run *sb, const struct sb_opts *o,
           const struct sb_result *res)
{
	unsigned int i, k;

	(void)res;
	fprintf(f, "t,action,service,from,to,reason,result,cycles\n");
	for (k = 0; k < sb->n_events; k++) {
		const struct hp_svc_event *e = &sb->events[k];
		int s = -1;

		for (i = 0; i < o->services; i++)
			if (sb->svcs[i].id == e->service_id)
				s = (int)i;
		fprintf(f, "%" PRId64 ",%s,%d,%d,%d,\"%s\",%d,%" PRIu64 "\n",
			(int64_t)(e->tsc - sb->t0), hp_svc_action_name(e->d.action), s,
			e->from_lcore, e->to_lcore, e->d.reason, e->result, e->migrate_cycles);
	}
}

static void
put_json(FILE *f, const struct sb_run *sb, const struct sb_opts *o,
         const struct sb_result *res)
{
	unsigned int i, k;

	fprintf(f, "{\n  \"mode\": \"%s\",\n  \"balance\": \"%s\",\n"
		"  \"scale_down\": %s,\n  \"duration_s\": %g,\n  \"tsc_hz\": %.0f,\n"
		"  \"modeled\": %s,\n"
		"  \"cores\": %u,\n  \"mean_active_cores\": %.4f,\n"
		"  \"moves\": %" PRIu64 ",\n  \"move_failures\": %" PRIu64 ",\n",
		o->mode == M_TOKEN ? "token" : "deadline",
		o->balance == 0 ? "off" : o->balance == 1 ? "load" : "delay",
		o->scale_down ? "true" : "false", o->duration, sb->hz,
		res->modeled ? "true" : "false", o->cores,
		res->active_mean, res->moves, res->failures);
	fprintf(f, "  \"rt\": %s,\n  \"lcore_cpu_share\": [", res->rt ? "true" : "false");
	for (k = 0; k < res->n_lcores; k++)
		fprintf(f, "%s%.4f", k ? ", " : "", res->cpu_share[k]);
	fprintf(f, "],\n  \"lcore_wait_share\": [");
	for (k = 0; k < res->n_lcores; k++)
		fprintf(f, "%s%.4f", k ? ", " : "", res->wait_share[k]);
	fprintf(f, "],\n  \"lcore_stalls\": [");
	for (k = 0; k < res->n_lcores; k++)
		fprintf(f, "%s%u", k ? ", " : "", res->modeled ? 0 : sb_lc[res->lcore_id[k]].n);
	fprintf(f, "],\n  \"lcore_stall_s\": [");
	for (k = 0; k < res->n_lcores; k++) {
		const struct sb_lc *l = &sb_lc[res->lcore_id[k]];
		uint64_t t = 0;
		unsigned int j;

		for (j = 0; !res->modeled && j < l->n; j++)
			t += l->to[j] - l->from[j];
		fprintf(f, "%s%.6f", k ? ", " : "", (double)t / sb->hz);
	}
	fprintf(f, "],\n  \"services\": [\n");
	for (i = 0; i < o->services; i++) {
		struct sstat s;

		delay_stats(&sb->svcs[i], &s);
		fprintf(f, "    {\"service\": %u, \"jobs\": %" PRIu64 ", \"units\": %"
			PRIu64 ", \"lost_records\": %" PRIu64 ", \"delay_mean\": %.1f,"
			" \"delay_sum\": %.0f, \"delay_p50\": %" PRIu64 ", \"delay_p99\": %"
			PRIu64 ", \"delay_max\": %" PRIu64 ", \"response_mean\": %.1f,"
			" \"stalled_jobs\": %" PRIu64 ", \"stalled_delay_sum\": %.0f,"
			" \"running\": %u}%s\n",
			i, sb->svcs[i].jobs, sb->svcs[i].units, sb->svcs[i].lost, s.mean, s.sum,
			s.p50, s.p99, s.max, s.resp_mean, s.stalled_n, s.stalled_sum,
			res->running[i],
			i + 1 < o->services ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
}

typedef void (*put_fn)(FILE *f, const struct sb_run *sb, const struct sb_opts *o,
		       const struct sb_result *res);

static int
write_file(const char *path, put_fn put, const struct sb_run *sb, const struct sb_opts *o,
	   const struct sb_result *res)
{
	FILE *f;

	if (path == NULL)
		return 0;
	f = fopen(path, "w");
	if (f != NULL) {
		put(f, sb, o, res);
		if (fclose(f) == 0)
			return 0;
	}
	{
		char q[256];

		fprintf(stderr, "svc-bench: cannot write %s: %s\n",
			hp_quote(q, sizeof(q), path, 200), strerror(errno));
	}
	return -1;
}

int
sb_write_outputs(const struct sb_run *sb, const struct sb_opts *o, const struct sb_result *res)
{
	if (write_file(o->csv, put_jobs, sb, o, res) < 0 ||
	    write_file(o->loads_csv, put_loads, sb, o, res) < 0 ||
	    write_file(o->events_csv, put_events, sb, o, res) < 0 ||
	    write_file(o->json, put_json, sb, o, res) < 0)
		return -1;
	return 0;
}

void
sb_print_header(const struct sb_run *sb, const struct sb_opts *o)
{
	printf("svc-bench %s: %u services on %u %sservice lcores, balance %s%s, %.2f s, "
	       "TSC %.3f GHz\n", o->mode == M_TOKEN ? "token" : "deadline", o->services,
	       o->cores, o->model ? "MODELED dedicated " : "",
	       o->balance == 0 ? "off" : o->balance == 1 ? "load" : "delay",
	       o->scale_down ? " + scale-down" : "", o->duration, sb->hz / 1e9);
}

void
sb_print_summary(const struct sb_run *sb, const struct sb_opts *o, const struct sb_result *res)
{
	unsigned int s;

	for (s = 0; s < o->services; s++) {
		struct sstat st;

		delay_stats(&sb->svcs[s], &st);
		printf("  service %u (%s): %" PRIu64 " %s, delay mean %.2f us p50 %.2f p99 %.2f "
		       "max %.1f us, response mean %.2f us, on lcore mask 0x%x%s\n", s,
		       sb->svcs[s].name,
		       o->mode == M_TOKEN ? sb->svcs[s].units : sb->svcs[s].jobs,
		       o->mode == M_TOKEN ? "tokens" : "jobs",
		       st.mean * 1e6 / sb->hz, (double)st.p50 * 1e6 / sb->hz,
		       (double)st.p99 * 1e6 / sb->hz, (double)st.max * 1e6 / sb->hz,
		       st.resp_mean * 1e6 / sb->hz,
		       res->running[s], sb->svcs[s].lost ? " (records lost)" : "");
	}
	printf("  actions %" PRIu64 " (failed %" PRIu64 "), mean active service lcores %.2f\n",
	       res->moves, res->failures, res->active_mean);
	if (res->modeled)
		return;
	printf("  CPU time the service lcores got:");
	for (s = 0; s < res->n_lcores; s++)
		printf(" lcore %u %.0f %% (waited %.1f %%, %u stalls)", res->lcore_id[s],
		       100.0 * res->cpu_share[s], 100.0 * res->wait_share[s],
		       sb_lc[res->lcore_id[s]].n);
	printf(" of the run's wall time%s\n", res->rt ? ", SCHED_FIFO" : "");
}
