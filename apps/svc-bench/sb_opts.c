/* SPDX-License-Identifier: BSD-3-Clause
 * svc-bench's command line: the mode, the options and their checks, with
 * one line on stderr for anything refused.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_common.h"
#include "hp_svc.h"
#include "svc_bench.h"

/* SPEC: "0.4" or "t:v/t:v/..." with t in [0,1] increasing, v in [0,1]. */
static int
parse_profile(const char *s, struct sb_profile *p)
{
	char buf[256], *save = NULL, *tok, *end;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	p->n = 0;
	if (strchr(buf, ':') == NULL) {
		p->v[0] = strtod(buf, &end);
		if (*end || end == buf || !(p->v[0] >= 0 && p->v[0] <= 1))
			return -1;
		p->t[0] = 0;
		p->n = 1;
		return 0;
	}
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (p->n == SB_MAX_PTS)
			return -1;
		p->t[p->n] = strtod(tok, &end);
		if (*end != ':' || end == tok)
			return -1;
		tok = end + 1;
		p->v[p->n] = strtod(tok, &end);
		if (*end || end == tok || !(p->v[p->n] >= 0 && p->v[p->n] <= 1) ||
		    !(p->t[p->n] >= 0 && p->t[p->n] <= 1) ||
		    (p->n > 0 && !(p->t[p->n] > p->t[p->n - 1])))
			return -1;
		p->n++;
	}
	return p->n ? 0 : -1;
}

static void
usage(FILE *f)
{
	fprintf(f,
"usage: svc-bench deadline|token|overhead [options] [-- EAL args]\n"
"  --services N          services (1-%d, default 2)\n"
"  --cores N             service lcores (default 2): the first N EAL workers\n"
"  --map LIST            lcore index per service, e.g. 0,0,1 (default all 0)\n"
"  --load SPEC[,SPEC..]  per-service load: 0.4 or t:v/t:v (t in 0..1 of the run)\n"
"  --balance off|load|delay   (default load)\n"
"  --scale-down          consolidate and park cores when all are cold\n"
"  --threshold F         core load that triggers a move (0.70)\n"
"  --scale-down-threshold F   (0.20)\n"
"  --scale-down-max-delay F   predicted extra delay allowed (0.10, <0: none)\n"
"  --scale-down-measure response|wait   ... of the jobs' response time\n"
"                        (wait + service, default) or of their wait alone\n"
"  --delay-target-us F   delay mode: a mean delay above this is hot (1.0)\n"
"  --sustain N --cooldown N   anti-thrashing, in intervals (2, 20)\n"
"  --period-us N --interval-us N   sampling and balancing (250, 5000)\n"
"  --migrate-timeout-us N  give up a migration after (100000)\n"
"  --rt                  for the run only: service lcores SCHED_FIFO 1, the\n"
"                        control side (main lcore, asleep between periods)\n"
"                        SCHED_FIFO 2; runs over ~0.9 s meet the kernel's\n"
"                        real-time throttling (see docs/svc.md)\n"
"  --model               deadline only: run on MODELED dedicated cores in\n"
"                        virtual time (no EAL; the real balancer decisions)\n"
"  --model-ghz F --model-call-cycles N --model-loop-cycles N\n"
"                        the model's TSC and costs (2.3, %d, %d: measured\n"
"                        with 'svc-bench overhead' on this project's VM)\n"
"  --duration S          seconds (default 1)\n"
"  --work-us F[,F..]     deadline job size in us, one or per service (10)\n"
"  --jitter F            deadline jitter, fraction of the gap (default 1.0)\n"
"  --token-cycles N --bucket N   token mode: cycles per token, tokens per\n"
"                        withdrawal (100, 64)\n"
"  --seed N --max-records N\n"
"  --csv FILE            one row per job: deadline,start,delay,service,core\n"
"  --loads-csv FILE      per period: t,lcore,load,active\n"
"  --events-csv FILE     balancer actions\n"
"  --json FILE           summary\n"
"Without EAL args: --no-huge --no-pci --no-shconf -m 256 and --lcores with\n"
"main on CPU 0 and service lcores on CPUs 1, 0, 1, ...\n", SB_MAX_SVC,
	MODEL_CALL_CYCLES, MODEL_LOOP_CYCLES);
}

static int
parse_u(const char *s, uint64_t *v, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || end == s || s[0] == '-' || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

static int
parse_d(const char *s, double *v, double lo, double hi)
{
	char *end;

	*v = strtod(s, &end);
	return (*end || end == s || !(*v >= lo && *v <= hi)) ? -1 : 0;
}

/* One item of a comma-separated per-service list: 0 or -1. */
typedef int (*list_item_fn)(const char *s, struct sb_opts *o, unsigned int i);

static int
one_map(const char *s, struct sb_opts *o, unsigned int i)
{
	uint64_t u;

	if (parse_u(s, &u, 0, HP_SVC_MAX_LCORES - 1) < 0)
		return -1;
	o->map[i] = (int)u;
	return 0;
}

static int
one_profile(const char *s, struct sb_opts *o, unsigned int i)
{
	return parse_profile(s, &o->prof[i]);
}

static int
one_work(const char *s, struct sb_opts *o, unsigned int i)
{
	return parse_d(s, &o->work_us[i], 0.1, 100000);
}

/* "a,b,c": at most SB_MAX_SVC items, each through fn; *n = their count. */
static int
parse_list(const char *a, list_item_fn fn, struct sb_opts *o, unsigned int *n)
{
	char buf[1024], *save = NULL, *t;
	unsigned int i = 0;

	if (strlen(a) >= sizeof(buf) || a[0] == ',' || strstr(a, ",,") != NULL ||
	    (a[0] != '\0' && a[strlen(a) - 1] == ','))
		return -1;	/* an empty item */
	strcpy(buf, a);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), i++)
		if (i >= SB_MAX_SVC || fn(t, o, i) < 0)
			return -1;
	*n = i;
	return i ? 0 : -1;
}

enum {
	O_SERVICES = 256, O_CORES, O_MAP, O_LOAD, O_BALANCE, O_SD, O_THR, O_SDTHR,
	O_SDMAX, O_SDMEAS, O_DTARGET, O_SUSTAIN, O_COOLDOWN, O_PERIOD, O_INTERVAL, O_DUR,
	O_WORK, O_JITTER, O_TOKC, O_BUCKET, O_SEED, O_MAXREC, O_CSV, O_LCSV,
	O_ECSV, O_JSON, O_MIGTO, O_MODEL, O_MGHZ, O_MCALL, O_MLOOP, O_RT,
};

int
sb_parse_opts(struct sb_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "services", 1, NULL, O_SERVICES }, { "cores", 1, NULL, O_CORES },
		{ "map", 1, NULL, O_MAP }, { "load", 1, NULL, O_LOAD },
		{ "balance", 1, NULL, O_BALANCE }, { "scale-down", 0, NULL, O_SD },
		{ "threshold", 1, NULL, O_THR },
		{ "scale-down-threshold", 1, NULL, O_SDTHR },
		{ "scale-down-max-delay", 1, NULL, O_SDMAX },
		{ "scale-down-measure", 1, NULL, O_SDMEAS },
		{ "delay-target-us", 1, NULL, O_DTARGET },
		{ "sustain", 1, NULL, O_SUSTAIN }, { "cooldown", 1, NULL, O_COOLDOWN },
		{ "period-us", 1, NULL, O_PERIOD }, { "interval-us", 1, NULL, O_INTERVAL },
		{ "duration", 1, NULL, O_DUR }, { "work-us", 1, NULL, O_WORK },
		{ "jitter", 1, NULL, O_JITTER }, { "token-cycles", 1, NULL, O_TOKC },
		{ "bucket", 1, NULL, O_BUCKET }, { "seed", 1, NULL, O_SEED },
		{ "max-records", 1, NULL, O_MAXREC }, { "csv", 1, NULL, O_CSV },
		{ "loads-csv", 1, NULL, O_LCSV }, { "events-csv", 1, NULL, O_ECSV },
		{ "json", 1, NULL, O_JSON }, { "migrate-timeout-us", 1, NULL, O_MIGTO },
		{ "model", 0, NULL, O_MODEL }, { "model-ghz", 1, NULL, O_MGHZ },
		{ "model-call-cycles", 1, NULL, O_MCALL },
		{ "model-loop-cycles", 1, NULL, O_MLOOP },
		{ "rt", 0, NULL, O_RT },
		{ "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode;
	uint64_t u = 0;
	int opt, bad, li = 0;
	unsigned int i, n;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? -1 : 1;
	}
	mode = argv[1];
	if (strcmp(mode, "deadline") == 0)
		o->mode = M_DEADLINE;
	else if (strcmp(mode, "token") == 0)
		o->mode = M_TOKEN;
	else if (strcmp(mode, "overhead") == 0)
		o->mode = M_OVERHEAD;
	else {
		fprintf(stderr, "svc-bench: unknown mode '%s' (deadline, token, overhead)\n", mode);
		return -1;
	}
	optind = 2;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", lo, &li)) != -1) {
		const char *a = optarg;

		bad = 0;
		switch (opt) {
		case O_SERVICES: bad = parse_u(a, &u, 1, SB_MAX_SVC); o->services = u; break;
		case O_CORES: bad = parse_u(a, &u, 1, HP_SVC_MAX_LCORES); o->cores = u; break;
		case O_MAP: bad = parse_list(a, one_map, o, &n); break;
		case O_LOAD: bad = parse_list(a, one_profile, o, &o->n_prof); break;
		case O_BALANCE:
			if (strcmp(a, "off") == 0)
				o->balance = 0;
			else if (strcmp(a, "load") == 0)
				o->balance = 1;
			else if (strcmp(a, "delay") == 0)
				o->balance = 2;
			else
				bad = 1;
			break;
		case O_SD: o->scale_down = true; break;
		case O_THR: bad = parse_d(a, &o->threshold, 0.01, 1.0); break;
		case O_SDTHR: bad = parse_d(a, &o->sd_threshold, 0.0, 0.99); break;
		case O_SDMAX: bad = parse_d(a, &o->sd_max_delay, -1.0, 100.0); break;
		case O_SDMEAS:
			if (strcmp(a, "response") == 0)
				o->sd_measure = HP_SVC_SD_RESPONSE;
			else if (strcmp(a, "wait") == 0)
				o->sd_measure = HP_SVC_SD_WAIT;
			else
				bad = 1;
			break;
		case O_DTARGET: bad = parse_d(a, &o->delay_target_us, 0.0, 1e6); break;
		case O_SUSTAIN: bad = parse_u(a, &u, 1, 1000); o->sustain = u; break;
		case O_COOLDOWN: bad = parse_u(a, &u, 0, 100000); o->cooldown = u; break;
		case O_PERIOD: bad = parse_u(a, &u, 10, 1000000); o->period_us = u; break;
		case O_INTERVAL: bad = parse_u(a, &u, 10, 10000000); o->interval_us = u; break;
		case O_DUR: bad = parse_d(a, &o->duration, 0.01, 600); break;
		case O_WORK: bad = parse_list(a, one_work, o, &o->n_work); break;
		case O_JITTER: bad = parse_d(a, &o->jitter, 0.0, 1.0); break;
		case O_TOKC: bad = parse_u(a, &o->token_cycles, 1, 1000000); break;
		case O_BUCKET: bad = parse_u(a, &o->bucket, 1, 1000000); break;
		case O_SEED: bad = parse_u(a, &o->seed, 0, UINT64_MAX); break;
		case O_MAXREC: bad = parse_u(a, &o->max_records, 1, 100000000); break;
		case O_CSV: o->csv = a; break;
		case O_LCSV: o->loads_csv = a; break;
		case O_ECSV: o->events_csv = a; break;
		case O_JSON: o->json = a; break;
		case O_MIGTO: bad = parse_u(a, &u, 1, 10000000); o->migrate_timeout_us = u; break;
		case O_MODEL: o->model = true; break;
		case O_MGHZ: bad = parse_d(a, &o->model_ghz, 0.1, 10.0); break;
		case O_MCALL: bad = parse_u(a, &o->model_call_cycles, 1, 1000000); break;
		case O_MLOOP: bad = parse_u(a, &o->model_loop_cycles, 0, 1000000); break;
		case O_RT: o->rt = true; break;
		case 'h': usage(stdout); return 1;
		case ':':
			fprintf(stderr, "svc-bench: %s needs a value\n", argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "svc-bench: unknown option %s\n", argv[optind - 1]);
			return -1;
		}
		if (bad) {
			char q[64];

			/* one line whatever the value held */
			fprintf(stderr, "svc-bench: bad value '%s' for --%s\n",
				hp_quote(q, sizeof(q), a, 48), lo[li].name);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "svc-bench: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	for (i = 0; i < o->services; i++)
		if (o->map[i] >= (int)o->cores) {
			fprintf(stderr, "svc-bench: service %u mapped to lcore index %d, "
				"only %u cores\n", i, o->map[i], o->cores);
			return -1;
		}
	if (o->n_work != 1 && o->n_work != o->services) {
		fprintf(stderr, "svc-bench: --work-us gives %u sizes for %u services\n",
			o->n_work, o->services);
		return -1;
	}
	if (o->n_prof != 0 && o->n_prof != 1 && o->n_prof != o->services) {
		fprintf(stderr, "svc-bench: --load gives %u profiles for %u services\n",
			o->n_prof, o->services);
		return -1;
	}
	if (o->interval_us < o->period_us || o->interval_us % o->period_us) {
		fprintf(stderr, "svc-bench: --interval-us must be a multiple of --period-us\n");
		return -1;
	}
	if (o->rt && (o->model || o->mode == M_OVERHEAD)) {
		fprintf(stderr, "svc-bench: --rt is for deadline and token runs on real lcores\n");
		return -1;
	}
	if (o->model && o->mode != M_DEADLINE) {
		fprintf(stderr, "svc-bench: --model runs the deadline application only\n");
		return -1;
	}
	if (o->sd_threshold >= o->threshold) {
		fprintf(stderr, "svc-bench: --scale-down-threshold must be under --threshold\n");
		return -1;
	}
	return 0;
}
