/* SPDX-License-Identifier: BSD-3-Clause
 * hplane: the heteroplane command line.
 *   hplane run  [options] [-- EAL args]   run the pipeline and report
 *   hplane gen  --pcap FILE [options]     write generated traffic to a pcap
 *   hplane list                           apps, tasks and schedulers built in
 *   hplane ramp --from A --to B --step S --hold T [run options]
 *                                         stepped load, load estimators per step
 *   hplane train --qtable FILE [run options]   qlearn training (random actions)
 *   hplane profile --out FILE [run options]    characterise every task on every
 *                                         device (writes a profile JSON)
 *   hplane compare [options]              schedulers x scenarios x granularities
 *                                         (tools/sched_compare.py)
 *   hplane report OUT                     (re)build OUT/report.html from a
 *                                         finished run's folder (report.c)
 * Bad input gets one line on stderr and exit status 2; a run whose summary
 * breaks an invariant (internal drop, verify failure, mbuf leak, a packet
 * a security task refused) exits 3.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdarg.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "hp_common.h"
#include "hp_gen.h"
#include "hp_flowtab.h"
#include "hp_pipeline.h"
#include "hp_device.h"
#include "hp_sched.h"
#include "hp_plan.h"
#include "hp_svc_balance.h"
#include "profile.h"
#include "ramp.h"
#include "report.h"
#include "stop.h"

#define EXIT_USAGE 2
#define EXIT_INVARIANT 3
#define MAX_PACKETS 1000000000000ull /* --packets, --count: 10^12 */

static const char *prog = "hplane";

static void
usage(FILE *o)
{
	fprintf(o,
"usage: hplane run  [options] [-- EAL arguments]\n"
"       hplane gen  --pcap FILE [--count N] [--imix-sizes ..] [--imix-shares ..] [--seed N]\n"
"       hplane list\n"
"       hplane ramp --from A --to B --step S [--fine-from F --fine-step s] [--hold T] [run options]\n"
"       hplane train --qtable FILE [run options]     (qlearn: random actions, writes FILE)\n"
"       hplane profile --out FILE [--batches LIST] [--reps N] [run options]\n"
"       hplane profile --configs APPS --platform NAME --out FILE.json\n"
"                     [--batches LIST] [--train-time S]   (Pythia's offline analysis)\n"
"       hplane compare [--help for its options]      (docs/scheduling.md)\n"
"       hplane report OUT       (re)build OUT/report.html from a run's folder\n"
"       hplane ctl goal [NAME[:ARG]] [--file-prefix P | --pid N]   a running --goal run's goal\n"
"\n"
"run options:\n"
"  --app NAME            app (chain of tasks) to run: see `hplane list` [crypto]\n"
"  --apps NAME:SHARE,... several apps at once (run only), e.g.\n"
"                        ids:0.3,dedup:0.3,vpn:0.4: each takes that share of the\n"
"                        flows (by flow hash, any source); shares sum to 1, at\n"
"                        most 4 apps and 4 tasks in all; not with --app\n"
"  --sched NAME          scheduling policy: rr, static, qlearn, adaptive, pin [rr]\n"
"  --granularity G       chain (one decision per packet, thesis C1) or task (one\n"
"                        before every task, C2) [chain]\n"
"  --sched-param KEY=VALUE\n"
"                        an option of the policy, which reads its own; repeat for\n"
"                        more: static: util=U (0.5); pin: dev=N; qlearn: qtable=FILE,\n"
"                        train=1 (random actions, write the table: hplane train)\n"
"  --profile NAME        service-time models for static/adaptive of devices that\n"
"                        are not modeled (profiles/NAME.json or FILE.json)\n"
"  --qtable FILE         qlearn's Q-table (hplane train writes it); the same as\n"
"                        --sched-param qtable=FILE\n"
"  --cpu-model SPEC      model each CPU worker with a profile's cpu section:\n"
"                        PROFILE[,opt=v...], e.g. jetson-thesis or\n"
"                        jetson-thesis,scale=4 (reported as modeled)\n"
"  --power-interval S    power sampling period (RAPL, NVML, modeled) [1]\n"
"  --scenario NAME       low | medium | stress | standard | random [standard]\n"
"                        rates are fractions of the measured capacity:\n"
"                        low 0.1x, medium 0.5x, stress 2x, standard 0.2..1.2x\n"
"  --trace FILE          rate profile, lines '<seconds> <rate>' (rate in pps,\n"
"                        10k, 1.5M, or 0.5x of capacity); replaces --scenario\n"
"                        (--scenario, --trace, --calib and --flows shape generated\n"
"                        traffic: refused with a pcap or af_packet source)\n"
"  --source SRC          gen (in-process generator) | pcap:FILE | af_packet:IFACE [gen]\n"
"  --tx DST              output for pcap (a pcap file) [OUT/out.pcap] or af_packet\n"
"                        (an interface) [the source interface]\n"
"  --tx-results          each frame leaves with a 32-byte trailer after its IP\n"
"                        packet: its app and task results (docs/architecture.md)\n"
"  --pcap-speed X        pcap: replay at the capture's timestamps, X times as fast\n"
"                        (0.001..1000); paced, a full port queue drops, like a\n"
"                        NIC's; 0 or max: as fast as the pipeline takes it, the\n"
"                        file counted whole [1]\n"
"  --pcap-loop N         pcap: play the file N times, 0: until --duration or\n"
"                        --packets [1]\n"
"  --workers N           CPU worker lcores [1]\n"
"  --sched-lcores N      scheduler lcores, each with its own rx/tx queue and the\n"
"                        flows symmetric RSS gives it (generator, pcap, af_packet:\n"
"                        N queue pairs, the kernel's fanout hash) [1]\n"
"  --gpu DEV             add an accelerator device beside the CPU workers (repeat\n"
"                        for several, each its own device and batcher, at most 4):\n"
"                        model:PROFILE (timings from profiles/PROFILE.json, results\n"
"                        from the CPU code; reported as modeled), e.g.\n"
"                        model:jetson-thesis; or cuda (the CUDA plugin). Options\n"
"                        after commas: batch=N min_batch=N max_bytes=N\n"
"                        timeout_us=T adapt=0|1 fail_after=N (fault injection)\n"
"  --platform NAME       a modeled machine of several devices (profiles/NAME.json\n"
"                        with a \"platform\" object, e.g. pythia-8700k): its cpu\n"
"                        section models the CPU workers (--cpu-model), every other\n"
"                        device is an accelerator (--gpu model:NAME@DEV)\n"
"  --goal NAME[:ARG]     with --platform: Pythia's monitor (--sched pythia) keeps\n"
"                        the configuration this goal picks: max-throughput,\n"
"                        min-latency, min-energy, min-power, target-rate:GBPS,\n"
"                        or a --goal-lib one\n"
"  --goal-period MS      how often the monitor re-checks [500]\n"
"  --goal-inner fixed|adaptive  inside the configuration: least queued of its\n"
"                        devices, or adaptive's per-deadline placement [fixed]\n"
"  --goal-at WHEN:GOAL   set GOAL at WHEN seconds into the run (repeatable)\n"
"  --goal-lib FILE.so    load a goal (its hp_goal_ops_v1; docs/scheduling.md)\n"
"  --duration S          seconds to run (pcap: until the file is consumed) [8]\n"
"  --packets N           stop after N packets received [no limit]\n"
"  --capacity PPS        capacity the scenario is scaled to [measured at start]\n"
"  --calib S             seconds of capacity measurement [1.0]\n"
"  --out DIR             write summary.json, trace.csv and report.html (plots of\n"
"                        both, one self-contained page) into DIR [out/run]\n"
"  --no-report           no report.html (hplane report DIR builds it later)\n"
"  --imix-sizes LIST     frame sizes in bytes [243,486,1458]\n"
"  --imix-shares LIST    relative shares [2,1,2]\n"
"  --types FILE          packet-type table, lines 'min,max,reorder,latency,deadline_us'\n"
"                        [thesis Table 4.1]\n"
"  --deadline-us US      deadline of latency-sensitive types in the default table [2000]\n"
"  --flows N             flows per packet type in the generator [16]\n"
"  --max-flows N         flow table size, 1..1048576: flows with a sequence (order,\n"
"                        AES counters); packets of a new flow past it are counted\n"
"                        and go on unordered, and crypto drops them (exit 3) [131072]\n"
"  --flow-idle S         a flow with no packet for S seconds and none in flight\n"
"                        leaves the table, 0.01..86400, 0 = never [10]\n"
"  --reorder-window N    reorder window per flow, power of two [64]\n"
"  --reorder-hold-us US  longest a window waits for a missing packet before it\n"
"                        drains (a timeout drain), 1..60000000 [the longest\n"
"                        deadline of the type table, else 100000]\n"
"  --burst N             burst size, 1..32 [32]\n"
"  --ring-size N         ring and port queue size, power of two [1024]\n"
"  --mbufs N             mbufs in the pool [32767]\n"
"  --verify-every N      sink verifies every Nth packet, 0 = off [1]\n"
"  --gen-recycle         the generator sends delivered frames again as they are\n"
"                        instead of building new ones: a NIC at no CPU cost, for\n"
"                        measuring the pipeline on small machines where the\n"
"                        generator shares a CPU (needs --verify-every 0)\n"
"  --key HEX             128-bit master key, 32 hex digits [000102..0f]\n"
"  --param OPTS          task options, name=value[,name=value...], e.g.\n"
"                        ids: engine=hs|ac,patterns=FILE|gen=N,seed=S,plant=P;\n"
"                        ran: code=wifi:1944:1/2,iters=N,flips=N,seed=S,isa=..;\n"
"                        crypto, vpn, dedup: impl=.. (docs/nf.md, docs/ldpc.md)\n"
"  --seed N              generator seed [1]\n"
"  --idle MODE           auto | yield | spin | sleep: what a polling lcore does when\n"
"                        idle; auto yields when lcores share CPUs; sleep (100 us)\n"
"                        suits modeled platforms on small machines [auto]\n"
"  --quiet               no per-second progress lines\n"
"  --load-interval S     window of each loop's own load estimate, 0.01..60 [1]\n"
"  --stages-as-services  run the scheduler, each device's loop and the traffic\n"
"                        generator/sink as DPDK services on --service-cores,\n"
"                        moved between them by lib/svc's balancer (docs/svc.md)\n"
"  --service-cores LIST  EAL lcores for the services, e.g. 1,2 or 1-2; without\n"
"                        EAL arguments hplane maps them onto the CPUs\n"
"  --svc-balance MODE    off | load | delay: the balancer's mode [load]\n"
"  --svc-scale-down      let the balancer consolidate the stages onto fewer\n"
"                        service lcores when all are under 20 %% load and park\n"
"                        the freed ones (guarded on the stages' response time)\n"
"\n"
"ramp options (the linearity experiment, docs/load.md; writes OUT/ramp.csv, ramp.png):\n"
"  --from A --to B --step S   offered load per step: fractions of the measured\n"
"                        capacity (0.1 or 0.1x) or rates (50k, 1.2M)\n"
"  --fine-from F --fine-step s   steps s apart from F on (same units): the\n"
"                        drop onset and the 95 %% crossing are known to a step\n"
"  --hold T              seconds per step, the first one left out [5]\n"
"                        (--ring-size, --burst and --mbufs vary the set-up)\n"
"  -h, --help            this text\n"
"\n"
"Without EAL arguments hplane uses: --no-huge --no-pci -m 1024 --no-shconf and an\n"
"--lcores map that puts workers on their own CPUs where there are enough.\n");
}

static int
fail(int code, const char *fmt, ...)
{
	va_list ap;

	char msg[1024], q[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line whatever the user's text held (a flag with a newline) */
	fprintf(stderr, "%s: %s\n", prog, hp_quote(q, sizeof(q), msg, sizeof(q)));
	return code;
}

/* mkdir -p: each missing parent, then the folder (no shell: the name is
 * the user's). 0 or -errno. */
static int
mkdir_p(const char *path)
{
	char buf[4096];
	size_t i, n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		buf[i] = path[i];
	}
	return 0;
}

/* A flag's number, whole and within [lo, hi] (hp_parse_*: plain decimal,
 * finite; strtoull would take " -1" as 2^64-1). */
/* --out takes files, checked before the run: a read-only folder (or a
 * summary.json that is a folder) failed only once the run was over. The
 * outputs are written beside their names and renamed (hp_write_outputs),
 * so the probe is the same operation. 0 or -errno. */
static int
out_writable(const char *dir)
{
	static const char *const names[] = { "summary.json", "trace.csv" };
	char path[4200];
	struct stat st;
	unsigned int i;
	int fd;

	if (snprintf(path, sizeof(path), "%s/.hplane-probe-XXXXXX", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	close(fd);
	unlink(path);
	for (i = 0; i < RTE_DIM(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return -EISDIR;
	}
	return 0;
}

static int
parse_u64(const char *s, uint64_t *v, uint64_t lo, uint64_t hi)
{
	return hp_parse_u64(s, lo, hi, v) < 0 ? -EINVAL : 0;
}

static int
parse_uint(const char *s, unsigned int *v, unsigned int lo, unsigned int hi)
{
	return hp_parse_uint(s, lo, hi, v) < 0 ? -EINVAL : 0;
}

static int
parse_double(const char *s, double *v, double lo, double hi)
{
	return hp_parse_double(s, lo, hi, v) < 0 ? -EINVAL : 0;
}

static int
hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* 32 hex digits (sscanf's %2x took " f" and "+f") */
static int
parse_key(const char *s, uint8_t key[16])
{
	unsigned int i;

	if (strlen(s) != 32)
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static void
list_all(void)
{
	const struct hp_app *a;
	const struct hp_task_ops *t;
	const struct hp_sched_ops *s;
	unsigned int i, k;

	printf("apps:\n");
	for (i = 0; (a = hp_app_at(i)) != NULL; i++) {
		printf("  %-10s ", a->name);
		for (k = 0; k < a->n_tasks; k++)
			printf("%s%s", k ? " -> " : "", a->tasks[k]);
		printf("   %s\n", a->desc ? a->desc : "");
	}
	printf("tasks:\n");
	for (i = 0; (t = hp_task_at(i)) != NULL; i++)
		printf("  %-10s %s\n", t->name, t->desc ? t->desc : "");
	printf("schedulers:\n");
	for (i = 0; (s = hp_sched_at(i)) != NULL; i++)
		printf("  %-10s %s\n", s->name, s->desc ? s->desc : "");
	printf("scenarios:\n  low medium stress standard random (or --trace FILE)\n");
}

enum {
	O_APP = 256, O_SCHED, O_SCEN, O_TRACE, O_SRC, O_TX, O_WORKERS, O_DUR,
	O_PKTS, O_CAP, O_CALIB, O_OUT, O_SIZES, O_SHARES, O_TYPES, O_DEADLINE,
	O_FLOWS, O_MAXFLOWS, O_WIN, O_BURST, O_RING, O_MBUFS, O_VERIFY, O_KEY,
	O_SEED, O_IDLE, O_QUIET, O_PCAP, O_COUNT, O_GPU, O_PARAM,
	O_FROM, O_TO, O_STEP, O_FINE_FROM, O_FINE_STEP, O_HOLD, O_LOADIV,
	O_GRAN, O_SPARAM, O_PROFILE, O_QTABLE, O_CPUMODEL, O_PWIV, O_BATCHES, O_REPS,
	O_SAS, O_SVCCORES, O_SVCBAL, O_SVCSD, O_RECYCLE, O_FLOWIDLE, O_HOLD_US,
	O_PSPEED, O_PLOOP, O_NOREPORT, O_PLATFORM, O_CONFIGS, O_TRAINT,
	O_APPS, O_TXRES,
	O_GOAL, O_GOALPER, O_GOALAT, O_GOALLIB,
	O_SCHEDLC, O_GOALINNER,
	O_END
};

static const struct option longopts[] = {
	{ "app", required_argument, NULL, O_APP },
	{ "sched", required_argument, NULL, O_SCHED },
	{ "scenario", required_argument, NULL, O_SCEN },
	{ "trace", required_argument, NULL, O_TRACE },
	{ "source", required_argument, NULL, O_SRC },
	{ "tx", required_argument, NULL, O_TX },
	{ "workers", required_argument, NULL, O_WORKERS },
	{ "duration", required_argument, NULL, O_DUR },
	{ "packets", required_argument, NULL, O_PKTS },
	{ "capacity", required_argument, NULL, O_CAP },
	{ "calib", required_argument, NULL, O_CALIB },
	{ "out", required_argument, NULL, O_OUT },
	{ "imix-sizes", required_argument, NULL, O_SIZES },
	{ "imix-shares", required_argument, NULL, O_SHARES },
	{ "types", required_argument, NULL, O_TYPES },
	{ "deadline-us", required_argument, NULL, O_DEADLINE },
	{ "flows", required_argument, NULL, O_FLOWS },
	{ "max-flows", required_argument, NULL, O_MAXFLOWS },
	{ "reorder-window", required_argument, NULL, O_WIN },
	{ "burst", required_argument, NULL, O_BURST },
	{ "ring-size", required_argument, NULL, O_RING },
	{ "mbufs", required_argument, NULL, O_MBUFS },
	{ "verify-every", required_argument, NULL, O_VERIFY },
	{ "key", required_argument, NULL, O_KEY },
	{ "seed", required_argument, NULL, O_SEED },
	{ "idle", required_argument, NULL, O_IDLE },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "pcap", required_argument, NULL, O_PCAP },
	{ "count", required_argument, NULL, O_COUNT },
	{ "gpu", required_argument, NULL, O_GPU },
	{ "param", required_argument, NULL, O_PARAM },
	{ "from", required_argument, NULL, O_FROM },
	{ "to", required_argument, NULL, O_TO },
	{ "step", required_argument, NULL, O_STEP },
	{ "fine-from", required_argument, NULL, O_FINE_FROM },
	{ "fine-step", required_argument, NULL, O_FINE_STEP },
	{ "hold", required_argument, NULL, O_HOLD },
	{ "load-interval", required_argument, NULL, O_LOADIV },
	{ "granularity", required_argument, NULL, O_GRAN },
	{ "sched-param", required_argument, NULL, O_SPARAM },
	{ "profile", required_argument, NULL, O_PROFILE },
	{ "qtable", required_argument, NULL, O_QTABLE },
	{ "cpu-model", required_argument, NULL, O_CPUMODEL },
	{ "power-interval", required_argument, NULL, O_PWIV },
	{ "batches", required_argument, NULL, O_BATCHES },
	{ "reps", required_argument, NULL, O_REPS },
	{ "stages-as-services", no_argument, NULL, O_SAS },
	{ "service-cores", required_argument, NULL, O_SVCCORES },
	{ "svc-balance", required_argument, NULL, O_SVCBAL },
	{ "svc-scale-down", no_argument, NULL, O_SVCSD },
	{ "gen-recycle", no_argument, NULL, O_RECYCLE },
	{ "flow-idle", required_argument, NULL, O_FLOWIDLE },
	{ "reorder-hold-us", required_argument, NULL, O_HOLD_US },
	{ "pcap-speed", required_argument, NULL, O_PSPEED },
	{ "pcap-loop", required_argument, NULL, O_PLOOP },
	{ "no-report", no_argument, NULL, O_NOREPORT },
	{ "platform", required_argument, NULL, O_PLATFORM },
	{ "configs", required_argument, NULL, O_CONFIGS },
	{ "train-time", required_argument, NULL, O_TRAINT },
	{ "apps", required_argument, NULL, O_APPS },
	{ "tx-results", no_argument, NULL, O_TXRES },
	{ "goal", required_argument, NULL, O_GOAL },
	{ "goal-period", required_argument, NULL, O_GOALPER },
	{ "goal-at", required_argument, NULL, O_GOALAT },
	{ "goal-lib", required_argument, NULL, O_GOALLIB },
	{ "sched-lcores", required_argument, NULL, O_SCHEDLC },
	{ "goal-inner", required_argument, NULL, O_GOALINNER },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	struct hp_run_cfg cfg;
	const char *apps_spec;      /* --apps, parsed after the other flags */
	const char *sizes, *shares, *types_file, *idle, *pcap_out;
	const char *profile;        /* --profile NAME */
	struct hp_sched_profile sched_prof; /* ... loaded once, for the run */
	bool sched_checked;         /* profile loaded, policy's check done */
	char qtable_opt[4096 + 8];  /* --qtable FILE as the option qtable=FILE */
	double deadline_us;
	uint64_t count;
	struct hp_ramp ramp;
	bool scen_set;              /* --scenario or --trace given */
	bool svc_bal_set;           /* --svc-balance given */
	bool no_report;             /* --no-report: no OUT/report.html */
	const char *gen_flag;       /* a generator's flag given (name) */
	const char *pcap_flag;      /* a pcap replay's flag given */
	struct hp_profile_opts prof; /* hplane profile */
	char plat_spec[HP_PLATFORM_SPECS][160]; /* --platform's device specs */
	bool plat_done;
	/* --goal and its flags, as sched pythia's options (goal_params) */
	const char *goal, *goal_period, *goal_lib, *goal_inner;
	const char *goal_at[HP_SCHED_MAX_PARAMS];
	unsigned int n_goal_at;
	char goal_kv[HP_SCHED_MAX_PARAMS][200];
	bool goal_done;
	bool sched_set;             /* --sched given */
};

/* --service-cores: "1,2", "1-3", "1,3-4"; distinct ids. */
static int
parse_lcore_list(const char *s, struct hp_run_cfg *cfg)
{
	char buf[256], *save = NULL, *tok;
	unsigned int n = 0, i;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		unsigned int lo, hi, l;

		if (dash != NULL)
			*dash = '\0';
		if (parse_uint(tok, &lo, 0, RTE_MAX_LCORE - 1) < 0 ||
		    parse_uint(dash ? dash + 1 : tok, &hi, lo, RTE_MAX_LCORE - 1) < 0)
			return -EINVAL;
		for (l = lo; l <= hi; l++) {
			if (n == HP_MAX_SERVICE_CORES)
				return -EINVAL;
			for (i = 0; i < n; i++)
				if (cfg->service_cores[i] == l)
					return -EINVAL;
			cfg->service_cores[n++] = l;
		}
	}
	if (n == 0)
		return -EINVAL;
	cfg->n_service_cores = n;
	return 0;
}

/* One policy option, KEY=VALUE; which keys exist is the policy's to say
 * (hp_run_sched_check). 0 or -EINVAL. */
static int
sched_opt_add(struct hp_run_cfg *cfg, const char *kv)
{
	const char *eq = strchr(kv, '=');

	if (eq == NULL || eq == kv || cfg->n_sched_params == HP_SCHED_MAX_PARAMS)
		return -EINVAL;
	cfg->sched_params[cfg->n_sched_params++] = kv;
	return 0;
}

static int
parse_opts(struct cli *c, int argc, char **argv)
{
	struct hp_run_cfg *cfg = &c->cfg;
	bool seen[O_END - O_APP] = { false };
	char err[256];
	int opt;

	RTE_BUILD_BUG_ON(RTE_DIM(longopts) != O_END - O_APP + 2);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		const char *a = optarg;
		int bad = 0;

		/* a flag with a value takes one: given twice, the first was
		 * silently dropped (a repeated --app ran the last one); only
		 * --sched-param adds one option each time, --gpu one device */
		if (opt >= O_APP && opt < O_END && opt != O_SPARAM && opt != O_GPU && opt != O_GOALAT &&
		    longopts[opt - O_APP].has_arg == required_argument) {
			if (seen[opt - O_APP])
				return fail(EXIT_USAGE, "--%s given twice (it takes one value; see --help)",
					    longopts[opt - O_APP].name);
			seen[opt - O_APP] = true;
		}
		switch (opt) {
		case O_APP: cfg->app = a; break;
		case O_TXRES: cfg->tx_results = true; break;
		case O_APPS: c->apps_spec = a; break;
		case O_SCHED: cfg->sched = a; c->sched_set = true; break;
		case O_SCEN: cfg->scenario = a; c->scen_set = true; break;
		case O_TRACE: cfg->trace_file = a; c->scen_set = true; break;
		case O_SRC:
			if (!strcmp(a, "gen")) {
				cfg->src = HP_SRC_GEN;
			} else if (!strncmp(a, "pcap:", 5) && a[5]) {
				cfg->src = HP_SRC_PCAP;
				cfg->src_arg = a + 5;
			} else if (!strncmp(a, "af_packet:", 10) && a[10]) {
				cfg->src = HP_SRC_AF_PACKET;
				cfg->src_arg = a + 10;
			} else {
				return fail(EXIT_USAGE, "bad --source '%s' (gen, pcap:FILE or af_packet:IFACE)", a);
			}
			break;
		case O_TX: cfg->tx_arg = a; break;
		case O_WORKERS: bad = parse_uint(a, &cfg->workers, 1, HP_MAX_WORKERS); break;
		case O_SCHEDLC:
			bad = parse_uint(a, &cfg->sched_lcores, 1, HP_MAX_SCHED_LCORES);
			break;
		case O_DUR: bad = parse_double(a, &cfg->duration_s, 0, 3600) ||
				  cfg->duration_s <= 0; break;
		case O_PKTS: bad = parse_u64(a, &cfg->max_packets, 1, MAX_PACKETS); break;
		case O_CAP: bad = parse_double(a, &cfg->capacity_pps, 0, HP_RATE_MAX) ||
				  cfg->capacity_pps <= 0; break;
		case O_CALIB: bad = parse_double(a, &cfg->calib_s, 0.1, 60); break;
		case O_OUT: cfg->out_dir = a; break;
		case O_SIZES: c->sizes = a; break;
		case O_SHARES: c->shares = a; break;
		case O_TYPES: c->types_file = a; break;
		case O_DEADLINE: bad = parse_double(a, &c->deadline_us, 0, HP_DEADLINE_US_MAX) ||
				       c->deadline_us <= 0; break;
		case O_FLOWS: bad = parse_uint(a, &cfg->flows_per_type, 1, 4096); break;
		case O_MAXFLOWS: bad = parse_uint(a, &cfg->max_flows, 1, HP_FLOWTAB_MAX); break;
		case O_FLOWIDLE: bad = parse_double(a, &cfg->flow_idle_s, 0, 86400) ||
				       (cfg->flow_idle_s != 0 && cfg->flow_idle_s < 0.01); break;
		case O_HOLD_US: bad = parse_double(a, &cfg->reorder_hold_us, 1, 60e6); break;
		case O_WIN: bad = parse_uint(a, &cfg->reorder_win, 2, 1024) ||
				  (cfg->reorder_win & (cfg->reorder_win - 1)); break;
		case O_BURST: bad = parse_uint(a, &cfg->burst, 1, HP_BURST); break;
		case O_RING: bad = parse_uint(a, &cfg->ring_size, 64, 65536) ||
				   (cfg->ring_size & (cfg->ring_size - 1)); break;
		case O_MBUFS: bad = parse_uint(a, &cfg->mbufs, 1024, 4000000); break;
		case O_VERIFY: bad = parse_uint(a, &cfg->verify_every, 0, 1000000000); break;
		case O_KEY: bad = parse_key(a, cfg->task.key); break;
		case O_SEED: bad = parse_u64(a, &cfg->seed, 0, UINT64_MAX); break;
		case O_IDLE: c->idle = a;
			bad = strcmp(a, "auto") && strcmp(a, "yield") && strcmp(a, "spin") &&
			      strcmp(a, "sleep"); break;
		case O_QUIET: cfg->quiet = true; break;
		case O_RECYCLE: cfg->gen_recycle = true; break;
		case O_PCAP: c->pcap_out = a; break;
		case O_COUNT: bad = parse_u64(a, &c->count, 1, MAX_PACKETS); break;
		case O_GPU:
			if (cfg->n_gpu == HP_MAX_ACCEL)
				return fail(EXIT_USAGE, "--gpu: at most %d accelerators", HP_MAX_ACCEL);
			if (hp_gpu_twice(cfg, a, err, sizeof(err)))
				return fail(EXIT_USAGE, "%s", err);
			cfg->gpus[cfg->n_gpu++] = a;
			break;
		case O_PLATFORM: c->prof.platform = a; break;
		case O_GOAL: c->goal = a; break;
		case O_GOALPER: c->goal_period = a; break;
		case O_GOALINNER: c->goal_inner = a; break;
		case O_GOALLIB: c->goal_lib = a; break;
		case O_GOALAT:
			bad = c->n_goal_at == HP_SCHED_MAX_PARAMS;
			if (!bad)
				c->goal_at[c->n_goal_at++] = a;
			break;
		case O_CONFIGS: c->prof.configs = a; break;
		case O_TRAINT: bad = parse_double(a, &c->prof.train_time_s, 0.001, 3600); break;
		case O_PARAM: cfg->task.param = a; break;
		case O_FROM: bad = hp_ramp_rate(&c->ramp, a, &c->ramp.from); break;
		case O_TO: bad = hp_ramp_rate(&c->ramp, a, &c->ramp.to); break;
		case O_STEP: bad = hp_ramp_rate(&c->ramp, a, &c->ramp.step); break;
		case O_FINE_FROM: bad = hp_ramp_rate(&c->ramp, a, &c->ramp.fine_from); break;
		case O_FINE_STEP: bad = hp_ramp_rate(&c->ramp, a, &c->ramp.fine_step); break;
		case O_HOLD: bad = parse_double(a, &c->ramp.hold_s, 0, 3600); break;
		case O_LOADIV: bad = parse_double(a, &cfg->load_interval_s, HP_LOAD_INTERVAL_MIN,
						  HP_LOAD_INTERVAL_MAX); break;
		case O_GRAN: bad = strcmp(a, "chain") && strcmp(a, "task");
			cfg->task_gran = !strcmp(a, "task"); break;
		case O_SPARAM: bad = sched_opt_add(cfg, a); break;
		case O_PROFILE: c->profile = a; break;
		case O_QTABLE:
			/* an alias kept from before --sched-param */
			bad = a[0] == '\0' || snprintf(c->qtable_opt, sizeof(c->qtable_opt),
						      "qtable=%s", a) >= (int)sizeof(c->qtable_opt) ||
			      sched_opt_add(cfg, c->qtable_opt);
			break;
		case O_CPUMODEL: cfg->cpu_model = a; break;
		case O_PWIV: bad = parse_double(a, &cfg->power_interval_s, 0.1, 60); break;
		case O_BATCHES: c->prof.batches = a; break;
		case O_REPS: bad = parse_uint(a, &c->prof.reps, 1, 100000); break;
		case O_SAS: cfg->stages_as_services = true; break;
		case O_SVCCORES:
			if (parse_lcore_list(a, cfg) < 0)
				return fail(EXIT_USAGE, "bad --service-cores '%s': distinct lcore ids 0..%d, at most %d, e.g. 1,2 or 1-2",
					    a, RTE_MAX_LCORE - 1, HP_MAX_SERVICE_CORES);
			break;
		case O_SVCBAL:
			bad = strcmp(a, "off") && strcmp(a, "load") && strcmp(a, "delay");
			cfg->svc_mode = !strcmp(a, "off") ? -1 : !strcmp(a, "delay") ?
					HP_SVC_MODE_DELAY : HP_SVC_MODE_LOAD;
			c->svc_bal_set = true;
			break;
		case O_SVCSD: cfg->svc_scale_down = true; break;
		case O_NOREPORT: c->no_report = true; break;
		case O_PSPEED:
			c->pcap_flag = "--pcap-speed";
			if (!strcmp(a, "max"))
				cfg->pcap_speed = 0;
			else
				bad = parse_double(a, &cfg->pcap_speed, 0, 1000) ||
				      (cfg->pcap_speed != 0 && cfg->pcap_speed < 0.001);
			break;
		case O_PLOOP:
			c->pcap_flag = "--pcap-loop";
			bad = parse_uint(a, &cfg->pcap_loops, 0, 1000000);
			if (cfg->pcap_loops == 0)
				cfg->pcap_loops = HP_PCAP_FOREVER;
			break;
		case 'h': usage(stdout); exit(0);
		case ':': return fail(EXIT_USAGE, "option %s needs a value", argv[optind - 1]);
		default: return fail(EXIT_USAGE, "unknown option '%s' (see --help)", argv[optind - 1]);
		}
		if (bad)
			return fail(EXIT_USAGE, "bad value '%s' for --%s (see --help)", a,
				    longopts[opt - O_APP].name);
		if (opt == O_SCEN || opt == O_TRACE || opt == O_CALIB || opt == O_FLOWS)
			c->gen_flag = longopts[opt - O_APP].name;
	}
	if (optind < argc)
		return fail(EXIT_USAGE, "unexpected argument '%s' (EAL arguments go after --)",
			    argv[optind]);
	if (c->apps_spec != NULL) {
		char err[256];

		/* parsed after the loop, so that a repeated --apps is refused
		 * as repeated, whatever its value */
		if (hp_app_mix_parse(&cfg->mix, c->apps_spec, err, sizeof(err)) < 0)
			return fail(EXIT_USAGE, "%s", err);
		if (seen[O_APP - O_APP])
			return fail(EXIT_USAGE, "--app and --apps together: name every app in --apps");
		if (cfg->task_gran)
			return fail(EXIT_USAGE, "--apps runs whole chains only (--granularity chain)");
		/* one app at share 1 is --app */
		cfg->app = cfg->mix.n > 1 ? cfg->mix.name : cfg->mix.app[0]->name;
		if (cfg->mix.n == 1)
			cfg->mix.n = 0;
	}
	/* a flag that cannot apply to the source is refused, not ignored */
	if (cfg->src != HP_SRC_GEN && c->gen_flag)
		return fail(EXIT_USAGE, "--%s applies to generated traffic (--source gen) only: %s",
			    c->gen_flag, cfg->src == HP_SRC_PCAP ?
			    "a pcap is replayed at its own timestamps (see --pcap-speed)" :
			    "an interface brings its own traffic");
	if (cfg->src != HP_SRC_PCAP && c->pcap_flag)
		return fail(EXIT_USAGE, "%s applies to a pcap source (--source pcap:FILE) only",
			    c->pcap_flag);
	if (cfg->stages_as_services && cfg->n_service_cores == 0)
		return fail(EXIT_USAGE, "--stages-as-services needs --service-cores LIST");
	if (!cfg->stages_as_services && (cfg->n_service_cores || c->svc_bal_set))
		return fail(EXIT_USAGE, "--service-cores and --svc-balance need --stages-as-services");
	if (cfg->svc_scale_down && (!cfg->stages_as_services || cfg->svc_mode < 0))
		return fail(EXIT_USAGE, "--svc-scale-down needs --stages-as-services and a balancer (--svc-balance load or delay)");
	/* a service returns to its lcore's runner when idle: nothing to yield */
	if (cfg->stages_as_services && (!strcmp(c->idle, "yield") || !strcmp(c->idle, "sleep")))
		return fail(EXIT_USAGE, "--idle %s does not apply to --stages-as-services (service lcores poll)",
			    c->idle);
	if (cfg->task.param != NULL) {
		char err[512];

		struct hp_app joint = { .name = cfg->app };

		/* --apps: a name read by any task of any of the apps */
		for (unsigned int a = 0; a < cfg->mix.n; a++)
			for (unsigned int k = 0; k < cfg->mix.app[a]->n_tasks; k++)
				joint.tasks[joint.n_tasks++] = cfg->mix.app[a]->tasks[k];
		if (hp_app_param_check(cfg->mix.n > 1 ? &joint : hp_app_find(cfg->app),
				       cfg->task.param, err, sizeof(err)) < 0)
			return fail(EXIT_USAGE, "%s", err);
	}
	return 0;
}

static void
defaults(struct cli *c)
{
	struct hp_run_cfg *cfg = &c->cfg;
	unsigned int i;

	memset(c, 0, sizeof(*c));
	cfg->app = "crypto";
	cfg->sched = "rr";
	cfg->scenario = "standard";
	cfg->src = HP_SRC_GEN;
	cfg->pcap_speed = 1;
	cfg->pcap_loops = 1;
	cfg->out_dir = "out/run";
	cfg->workers = 1;
	cfg->duration_s = 8;
	cfg->calib_s = 1.0;
	cfg->burst = HP_BURST;
	cfg->ring_size = 1024;
	cfg->mbufs = 32767;
	cfg->flows_per_type = 16;
	cfg->max_flows = 131072;
	cfg->flow_idle_s = 10;
	cfg->reorder_win = 64;
	cfg->verify_every = 1;
	cfg->seed = 1;
	cfg->idle_yield = -1;
	cfg->svc_mode = HP_SVC_MODE_LOAD;
	for (i = 0; i < 16; i++)
		cfg->task.key[i] = (uint8_t)i;
	c->sizes = "243,486,1458";
	c->shares = "2,1,2";
	c->deadline_us = 2000;
	c->idle = "auto";
	hp_ramp_defaults(&c->ramp);
}

/* Scheduling inputs checked before EAL starts, each file read once and
 * kept for the run: the --profile models and what the policy's own check
 * read (qlearn: its Q-table). */
static int
validate_sched(struct cli *c)
{
	struct hp_run_cfg *cfg = &c->cfg;
	char err[512], spec[600];

	if (c->profile != NULL && !c->sched_checked) {
		if (hp_sched_profile_load(&c->sched_prof, c->profile, err, sizeof(err)) < 0)
			return fail(EXIT_USAGE, "--profile: %s", err);
		cfg->profile = &c->sched_prof;
	}
	if (cfg->cpu_model != NULL &&
	    (hp_device_cpu_model_spec(spec, sizeof(spec), cfg->cpu_model, cfg->burst, NULL) < 0 ||
	     hp_device_check(spec, err, sizeof(err)) < 0))
		return fail(EXIT_USAGE, "--cpu-model: %s", err);
	if (!c->sched_checked && hp_run_sched_check(cfg, err, sizeof(err)) < 0)
		return fail(EXIT_USAGE, "%s", err);
	c->sched_checked = true;
	/* the devices' own checks (a modeled device reads its profile here,
	 * once, for the run) */
	for (unsigned int i = 0; i < cfg->n_gpu; i++) {
		char q[80];

		if (hp_device_check(cfg->gpus[i], err, sizeof(err)) < 0)
			return fail(EXIT_USAGE, "device %s: %s",
				    hp_quote(q, sizeof(q), cfg->gpus[i], 60), err);
	}
	return 0;
}

/* --platform NAME (configs.c), once. */
static int
apply_platform(struct cli *c)
{
	char err[512];

	if (c->prof.platform == NULL || c->plat_done)
		return 0;
	c->plat_done = true;
	if (hp_platform_apply(&c->cfg, c->prof.platform, c->plat_spec, err, sizeof(err)) < 0)
		return fail(EXIT_USAGE, "%s", err);
	return 0;
}

/* --goal and its flags: the pythia policy with its options (the policy
 * checks them); 0 or EXIT_USAGE. */
static int
goal_params(struct cli *c)
{
	struct hp_run_cfg *cfg = &c->cfg;
	const char *kv[5 + HP_SCHED_MAX_PARAMS][2];
	unsigned int n = 0, i;
	char q[64];

	if (c->goal_done)
		return 0;
	c->goal_done = true;
	if (c->goal == NULL && (c->goal_period || c->goal_lib || c->goal_inner || c->n_goal_at))
		return fail(EXIT_USAGE, "--goal-period, --goal-at, --goal-inner and --goal-lib need --goal NAME");
	if (c->goal == NULL && strcmp(cfg->sched, "pythia") != 0)
		return 0;
	if (c->goal != NULL && c->sched_set && strcmp(cfg->sched, "pythia") != 0)
		return fail(EXIT_USAGE, "--goal runs the pythia policy: not with --sched %s",
			    hp_quote(q, sizeof(q), cfg->sched, 40));
	cfg->sched = "pythia";
	if (c->prof.platform != NULL) {
		kv[n][0] = "platform";
		kv[n++][1] = c->prof.platform;
	}
	if (c->goal != NULL) {
		kv[n][0] = "goal";
		kv[n++][1] = c->goal;
	}
	if (c->goal_period != NULL) {
		kv[n][0] = "period";
		kv[n++][1] = c->goal_period;
	}
	if (c->goal_inner != NULL) {
		kv[n][0] = "inner";
		kv[n++][1] = c->goal_inner;
	}
	if (c->goal_lib != NULL) {
		kv[n][0] = "lib";
		kv[n++][1] = c->goal_lib;
	}
	for (i = 0; i < c->n_goal_at; i++) {
		double t = strtod(c->goal_at[i], NULL);

		/* the policy parses it; the run's length is known here */
		if (t > cfg->duration_s)
			return fail(EXIT_USAGE, "--goal-at %s: past the run's %.1f s (--duration)",
				    hp_quote(q, sizeof(q), c->goal_at[i], 40), cfg->duration_s);
		kv[n][0] = "at";
		kv[n++][1] = c->goal_at[i];
	}
	for (i = 0; i < n; i++) {
		if (i == RTE_DIM(c->goal_kv) ||
		    snprintf(c->goal_kv[i], sizeof(c->goal_kv[i]), "%s=%s", kv[i][0], kv[i][1]) >=
		    (int)sizeof(c->goal_kv[i]) || sched_opt_add(cfg, c->goal_kv[i]) < 0)
			return fail(EXIT_USAGE, "--goal: too many options or one too long");
	}
	return 0;
}

/* What validate_sched kept for the run. */
static void
cli_free(struct cli *c)
{
	hp_run_sched_release(&c->cfg);
	hp_sched_profile_free(&c->sched_prof);
	c->cfg.profile = NULL;
	hp_ramp_free(&c->ramp);
}

/* Checks everything that can be checked before EAL starts, so bad input
 * costs no EAL start-up and gets one line. */
static int
validate(struct cli *c)
{
	struct hp_run_cfg *cfg = &c->cfg;
	char err[512];
	static struct hp_profile prof;
	FILE *f;
	int ret;

	if (apply_platform(c) != 0 || goal_params(c) != 0)
		return EXIT_USAGE;
	if (cfg->gen_recycle && (cfg->verify_every != 0 || cfg->src != HP_SRC_GEN))
		return fail(EXIT_USAGE, "--gen-recycle needs the generator (--source gen) and --verify-every 0");
	if (hp_run_multi_check(cfg, err, sizeof(err)) < 0)
		return fail(EXIT_USAGE, "%s", err);
	if (hp_imix_parse(&cfg->imix, c->sizes, c->shares, err, sizeof(err)) < 0)
		return fail(EXIT_USAGE, "%s", err);
	if (c->types_file) {
		if (hp_type_table_load(&cfg->types, c->types_file, err, sizeof(err)) < 0)
			return fail(EXIT_USAGE, "%s", err);
	} else {
		hp_type_table_default(&cfg->types, c->deadline_us);
	}
	if (cfg->mix.n <= 1 && hp_app_find(cfg->app) == NULL)
		return fail(EXIT_USAGE, "unknown app '%s' (see hplane list)", cfg->app);
	if (hp_sched_find(cfg->sched) == NULL)
		return fail(EXIT_USAGE, "unknown scheduler '%s' (see hplane list)", cfg->sched);
	if (validate_sched(c) != 0)
		return EXIT_USAGE;
	if (cfg->trace_file) {
		if (hp_profile_load(&prof, cfg->trace_file, 1.0, err, sizeof(err)) < 0)
			return fail(EXIT_USAGE, "%s", err);
	} else if (hp_profile_scenario(&prof, cfg->scenario, 1.0, 1.0, 1) < 0) {
		return fail(EXIT_USAGE, "unknown scenario '%s' (low, medium, stress, standard, random)",
			    cfg->scenario);
	}
	/* the source file, its link type, an output that is not the source
	 * (checked before anything opens the output) and interfaces */
	if (hp_run_source_check(cfg, err, sizeof(err)) < 0)
		return fail(EXIT_USAGE, "%s", err);
	if (cfg->src == HP_SRC_GEN && cfg->tx_arg)
		return fail(EXIT_USAGE, "--tx applies to pcap and af_packet sources only");
	if (cfg->src == HP_SRC_PCAP && cfg->tx_arg) {
		f = fopen(cfg->tx_arg, "w");
		if (f == NULL)
			return fail(EXIT_USAGE, "cannot write %s: %s", cfg->tx_arg, strerror(errno));
		fclose(f);
	}
	ret = mkdir_p(cfg->out_dir);
	if (ret < 0)
		return fail(EXIT_USAGE, "cannot create output directory %s: %s", cfg->out_dir,
			    strerror(-ret));
	ret = out_writable(cfg->out_dir);
	if (ret < 0)
		return fail(EXIT_USAGE, "cannot write into output directory %s: %s", cfg->out_dir,
			    strerror(-ret));
	return 0;
}

static int default_eal(struct cli *c, char **eargv, char *store, size_t storelen);

/* The app's first task may write the bodies (LDPC codewords from known
 * bits, planted DPI patterns), as in `hplane run`, so a replay of the file
 * through `--source pcap:FILE --app NAME` is checked at the sink. Its
 * context may use DPDK memory: the EAL comes up for it then. Returns 1
 * when the hook is set, 0 when the app has none, or -1 (message out). */
static int
gen_body_setup(struct cli *c, struct hp_gen *g, struct hp_task_ctx *ctx)
{
	const struct hp_app *app = hp_app_find(c->cfg.app);
	const struct hp_task_ops *ops;
	char *eargv[64], store[1024];
	int eargc, ret;

	if (app == NULL) {
		fail(EXIT_USAGE, "unknown app '%s' (see hplane list)", c->cfg.app);
		return -1;
	}
	ops = hp_task_find(app->tasks[0]);
	ctx->ops = NULL;
	if (ops == NULL || ops->gen_body == NULL)
		return 0;
	eargc = default_eal(c, eargv, store, sizeof(store));
	eargv[eargc] = NULL;
	ret = rte_eal_init(eargc, eargv);
	hp_cli_rtdir_note(true);
	if (ret < 0) {
		fail(EXIT_USAGE, "EAL initialisation failed: %s", rte_strerror(rte_errno));
		return -1;
	}
	ret = hp_task_body_init(ctx, ops, &c->cfg.task);
	if (ret < 0) {
		rte_eal_cleanup();
		fail(EXIT_USAGE, "task %s: set-up failed: %s", ops->name, strerror(-ret));
		return -1;
	}
	hp_gen_set_body(g, hp_task_gen_body, ctx);
	return 1;
}

static int
cmd_gen(struct cli *c)
{
	struct hp_task_ctx gctx;
	struct hp_gen g;
	char err[256], tmp[4200];
	pcap_t *p;
	pcap_dumper_t *d;
	uint8_t buf[HP_GEN_MAX_FRAME];
	uint64_t i;
	int ret, body, fd, werr;
	mode_t um;
	FILE *f;

	if (c->pcap_out == NULL)
		return fail(EXIT_USAGE, "gen needs --pcap FILE");
	if (c->count == 0)
		c->count = 1000;
	if (hp_imix_parse(&c->cfg.imix, c->sizes, c->shares, err, sizeof(err)) < 0)
		return fail(EXIT_USAGE, "%s", err);
	if (c->types_file) {
		if (hp_type_table_load(&c->cfg.types, c->types_file, err, sizeof(err)) < 0)
			return fail(EXIT_USAGE, "%s", err);
	} else {
		hp_type_table_default(&c->cfg.types, c->deadline_us);
	}
	ret = hp_gen_init(&g, &c->cfg.imix, &c->cfg.types, c->cfg.flows_per_type,
			  c->cfg.seed, err, sizeof(err));
	if (ret < 0)
		return fail(EXIT_USAGE, "%s", err);
	body = gen_body_setup(c, &g, &gctx);
	if (body < 0) {
		hp_gen_free(&g);
		return EXIT_USAGE;
	}
	/* written beside its name and renamed: a failed write (a full disk;
	 * pcap_dump reports nothing) leaves no short file under the name */
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", c->pcap_out) >= (int)sizeof(tmp)) {
		ret = fail(EXIT_USAGE, "cannot write %s: %s", c->pcap_out, strerror(ENAMETOOLONG));
		goto out;
	}
	fd = mkstemp(tmp);
	um = umask(0);
	umask(um);
	f = fd >= 0 && fchmod(fd, 0666 & ~um) == 0 ? fdopen(fd, "w") : NULL;
	p = f != NULL ? pcap_open_dead(DLT_EN10MB, 65535) : NULL;
	d = p != NULL ? pcap_dump_fopen(p, f) : NULL;
	if (d == NULL) {
		ret = fail(1, "cannot write %s: %s", c->pcap_out,
			   fd < 0 || f == NULL || p == NULL ? strerror(errno) : pcap_geterr(p));
		if (p != NULL)
			pcap_close(p);
		if (f != NULL)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		if (fd >= 0)
			unlink(tmp);
		goto out;
	}
	for (i = 0; i < c->count; i++) {
		struct pcap_pkthdr h = { 0 };
		uint32_t size;
		unsigned int flow;

		hp_gen_pick(&g, &size, &flow);
		/* a body hook decides the frame's length */
		size = hp_gen_frame(&g, flow, size, buf);
		h.ts.tv_sec = (time_t)(i / 1000000);
		h.ts.tv_usec = (suseconds_t)(i % 1000000);
		h.caplen = h.len = size;
		pcap_dump((u_char *)d, &h, buf);
	}
	errno = 0;
	werr = pcap_dump_flush(d) < 0 || ferror(f) ? (errno ? errno : EIO) :
	       fsync(fd) < 0 && errno != EINVAL ? errno : 0;
	pcap_dump_close(d);
	pcap_close(p);
	if (werr == 0 && rename(tmp, c->pcap_out) < 0)
		werr = errno;
	if (werr != 0) {
		unlink(tmp);
		ret = fail(1, "cannot write %s: %s", c->pcap_out, strerror(werr));
		goto out;
	}
	printf("wrote %" PRIu64 " packets to %s\n", c->count, c->pcap_out);
	ret = 0;
out:
	hp_gen_free(&g);
	if (body > 0) {
		if (gctx.ops->ctx_free != NULL)
			gctx.ops->ctx_free(&gctx);
		rte_eal_cleanup();
	}
	return ret;
}

/* What needs EAL up: every service lcore is an EAL worker lcore, and EAL
 * has the lcores the run needs. 0, or EXIT_USAGE with one line. */
static int
check_lcores(const struct hp_run_cfg *cfg)
{
	unsigned int need = hp_run_lcores(cfg), main_lc = rte_get_main_lcore(), i;

	for (i = 0; i < cfg->n_service_cores; i++) {
		unsigned int lc = cfg->service_cores[i];

		if (lc >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lc) || lc == main_lc)
			return fail(EXIT_USAGE, "--service-cores: lcore %u is not an EAL worker lcore (the main lcore is %u; map more with --lcores)",
				    lc, main_lc);
	}
	if (rte_lcore_count() < need && cfg->sched_lcores > 1)
		return fail(EXIT_USAGE, "%u scheduler lcores and %u workers%s need %u lcores (main, schedulers%s, workers%s) but EAL has %u: map more with --lcores",
			    cfg->sched_lcores, cfg->workers, cfg->n_gpu ? " and accelerators" : "", need,
			    cfg->src == HP_SRC_GEN ? ", traffic" : "", cfg->n_gpu ? ", accelerators" : "",
			    rte_lcore_count());
	if (rte_lcore_count() < need)
		return fail(EXIT_USAGE, "%u workers%s need %u lcores (main, scheduler%s, workers%s) but EAL has %u: map more with --lcores",
			    cfg->workers, cfg->n_gpu ? " and accelerators" : "", need,
			    cfg->src == HP_SRC_GEN ? ", traffic" : "", cfg->n_gpu ? ", accelerators" : "",
			    rte_lcore_count());
	return 0;
}

/* Default EAL arguments for this machine: no hugepages, no PCI, one lcore
 * per role; workers get CPUs of their own where there are enough. */
static int
default_eal(struct cli *c, char **eargv, char *store, size_t storelen)
{
	unsigned int ndev = c->cfg.workers + c->cfg.n_gpu;
	unsigned int need = hp_run_lcores(&c->cfg);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	static char prefix[64];
	size_t o = 0;
	unsigned int i;
	int n = 0, shared;
	char *lc;

	if (ncpu < 1)
		ncpu = 1;
	eargv[n++] = (char *)prog;
	eargv[n++] = (char *)"--no-huge";
	eargv[n++] = (char *)"--no-pci";
	eargv[n++] = (char *)"-m";
	eargv[n++] = (char *)"1024";
	eargv[n++] = (char *)"--no-shconf";
	snprintf(prefix, sizeof(prefix), "--file-prefix=hplane%ld", (long)getpid());
	eargv[n++] = prefix;
	eargv[n++] = (char *)"--log-level=lib.eal:error";
	eargv[n++] = (char *)"--log-level=lib.ethdev:error";
	lc = store;
	o += (size_t)snprintf(store + o, storelen - o, "--lcores=");
	if (c->cfg.stages_as_services) {
		/* main and the service lcores float over every CPU: a service
		 * lcore pinned to a CPU that other work holds (a real-time
		 * poller, a heavier task group) waited there for seconds,
		 * runnable, while every stage mapped on it stopped the whole
		 * pipeline; floating, the kernel moves it to a CPU it can have */
		o += (size_t)snprintf(store + o, storelen - o, "0@(0-%ld)", ncpu - 1);
		for (i = 0; i < c->cfg.n_service_cores && o < storelen; i++)
			if (c->cfg.service_cores[i] != 0)
				o += (size_t)snprintf(store + o, storelen - o, ",%u@(0-%ld)",
						      c->cfg.service_cores[i], ncpu - 1);
		eargv[n++] = lc;
		c->cfg.idle_yield = 0;
		return n;
	}
	/* lcore 0: main; 1..ndev: devices; then scheduler and traffic. A
	 * scheduler and a generator that spin on one CPU get half of it each
	 * (seen on a 16-CPU GPU machine: 31 kpps of a 344 kpps platform). */
	shared = hp_lcore_map((unsigned int)ncpu, ndev, need - 1, store, storelen);
	if (shared >= 0)    /* store holds the 2 + HP_MAX_DEVICES lcores */
		eargv[n++] = lc;
	if (c->cfg.idle_yield < 0)
		c->cfg.idle_yield = shared != 0;
	return n;
}

/* ---- the verbs ---- */

static int
verb_list(int argc, char **argv)
{
	if (argc > 1)
		return fail(EXIT_USAGE, "list takes no arguments (got '%s')", argv[1]);
	list_all();
	return 0;
}

/* train: qlearn's training run, random actions over the random scenario
 * (thesis §4.10.4) unless told otherwise. */
static int
prep_train(struct cli *c, char *err, size_t errlen)
{
	c->cfg.sched = "qlearn";
	if (sched_opt_add(&c->cfg, "train=1") < 0) {
		snprintf(err, errlen, "too many --sched-param options (at most %d)",
			 HP_SCHED_MAX_PARAMS);
		return -EINVAL;
	}
	if (!c->scen_set)
		c->cfg.scenario = "random";
	return 0;
}

static int
prep_profile(struct cli *c, char *err, size_t errlen)
{
	if (c->prof.configs != NULL) {
		static char runs[4200];
		size_t l = strlen(c->cfg.out_dir);

		c->prof.out = c->cfg.out_dir;
		if (c->prof.platform == NULL && c->cfg.n_gpu + 1 > HP_PLAN_MAX_DEV) {
			snprintf(err, errlen, "--configs: at most %d devices (the CPU worker and %d --gpu)",
				 HP_PLAN_MAX_DEV, HP_PLAN_MAX_DEV - 1);
			return -EINVAL;
		}
		if (c->prof.platform != NULL && c->cfg.n_gpu > 0) {
			snprintf(err, errlen, "--configs: either a modeled --platform or the devices to measure (--gpu), not both");
			return -EINVAL;
		}
		if (c->prof.platform == NULL && l > 5) {	/* measured: EAL's output aside */
			snprintf(runs, sizeof(runs), "%.*s.runs", (int)(l - 5), c->cfg.out_dir);
			c->cfg.out_dir = runs;
		}
		return hp_configs_check(&c->prof, err, errlen);
	}
	if (c->prof.train_time_s > 0) {
		snprintf(err, errlen, "--train-time is for profile --configs");
		return -EINVAL;
	}
	if (c->prof.platform != NULL) {
		snprintf(err, errlen, "profile characterises one accelerator beside the CPU; a whole --platform: profile --configs");
		return -EINVAL;
	}
	return hp_profile_check(&c->prof, &c->cfg, err, errlen);
}

/* ramp offers its own load; its output directory must exist before it
 * measures (validate creates it). */
static int
prep_ramp(struct cli *c, char *err, size_t errlen)
{
	if (c->cfg.src != HP_SRC_GEN || c->cfg.trace_file != NULL) {
		snprintf(err, errlen, "ramp offers its own load: no --source or --trace");
		return -EINVAL;
	}
	if (validate(c) != 0)
		return -ECANCELED;	/* validate said why */
	return hp_ramp_prepare(&c->ramp, &c->cfg, err, errlen);
}

static int
exec_profile(struct cli *c, char *err, size_t errlen)
{
	int ret = c->prof.configs != NULL ? hp_cmd_configs_measure(&c->prof, &c->cfg, err, errlen) :
					    hp_cmd_profile(&c->prof, &c->cfg, err, errlen);

	if (ret == -EINTR)
		return fail(128 + hp_cli_stop_signal, "%s", err);
	return ret < 0 ? fail(ret == -EINVAL || ret == -ENOTSUP || ret == -ENODEV ?
			      EXIT_USAGE : 1, "%s", err) : 0;
}

static int
ramp_report(struct cli *c, struct hp_run_result *res, char *err, size_t errlen)
{
	return hp_ramp_report(&c->ramp, &c->cfg, res, err, errlen);
}

/* run, train and ramp: the pipeline, its summary and outputs, and the
 * invariants as the exit status. */
static int
exec_run(struct cli *c, int (*report)(struct cli *, struct hp_run_result *, char *, size_t),
	 char *err, size_t errlen)
{
	static struct hp_run_result res;
	int ret, rc;

	ret = check_lcores(&c->cfg);
	if (ret)
		return ret;
	ret = hp_run(&c->cfg, &res, err, errlen);
	if (ret < 0) {
		free(res.rows);
		return fail(ret == -EINVAL || ret == -ENODEV || ret == -ENOTSUP ? EXIT_USAGE : 1, "%s%s",
			    err, ret == -ENOMEM ? " (try a larger -m or fewer --mbufs)" : "");
	}
	hp_print_summary(&c->cfg, &res);
	rc = 0;
	if (hp_write_outputs(&c->cfg, &res, c->cfg.out_dir, err, errlen) < 0)
		rc = fail(1, "%s", err);
	else
		printf("  %-26s %s/summary.json, %s/trace.csv\n", "written", c->cfg.out_dir,
		       c->cfg.out_dir);
	/* an interrupted ramp has no whole steps to report */
	if (rc == 0 && report != NULL && !res.interrupted && report(c, &res, err, errlen) < 0)
		rc = fail(1, "%s", err);
	/* the page is built from the files just written (and ramp's), as
	 * `hplane report` would */
	if (rc == 0 && !c->no_report) {
		char html[4200];

		if (hp_report_build(c->cfg.out_dir, html, sizeof(html), err, errlen) < 0)
			rc = fail(1, "report: %s", err);
		else
			printf("  %-26s %s\n", "report", html);
	}
	/* a security task's refusal: the packet was dropped, not sent in
	 * clear, but the run could not do what it was asked */
	if (rc == 0 && (res.dropped_internal || res.verify_failures || res.mbufs_leaked ||
			res.task_errors_security))
		rc = fail(EXIT_INVARIANT, "invariant broken: dropped_internal=%" PRIu64
			  " verify_failures=%" PRIu64 " mbufs_leaked=%" PRIu64
			  " security_task_drops=%" PRIu64,
			  res.dropped_internal, res.verify_failures, res.mbufs_leaked,
			  res.task_errors_security);
	/* stopped by a signal: the shell's status for it (130 for SIGINT,
	 * 143 for SIGTERM), the outputs written; a failed write says 1 */
	if (res.interrupted && rc != 1)
		rc = 128 + res.interrupted;
	free(res.rows);
	return rc;
}

/* report OUT: the page of a finished run's (or compare's) folder. */
static int
verb_report(int argc, char **argv)
{
	char html[4200], err[1024];
	int ret;

	if (argc != 2 || argv[1][0] == '-')
		return fail(EXIT_USAGE, "usage: hplane report OUT (a run's --out folder)");
	ret = hp_report_build(argv[1], html, sizeof(html), err, sizeof(err));
	if (ret < 0)
		return fail(ret == -ENOENT || ret == -ENOTDIR || ret == -EINVAL ? EXIT_USAGE : 1,
			    "report: %s", err);
	printf("report: %s\n", html);
	return 0;
}

/* A verb: either whole (its own argument handling) or a pipeline verb,
 * which shares option parsing, validation and EAL start-up. */
struct verb {
	const char *name;
	int (*whole)(int argc, char **argv);
	int (*direct)(struct cli *c);            /* after parsing; starts EAL itself */
	int (*prepare)(struct cli *c, char *err, size_t errlen);
	bool own_exec;                           /* exec_profile instead of exec_run */
	int (*report)(struct cli *c, struct hp_run_result *res, char *err, size_t errlen);
};

static const struct verb verbs[] = {
	{ .name = "run" },
	{ .name = "gen", .direct = cmd_gen },
	{ .name = "ramp", .prepare = prep_ramp, .report = ramp_report },
	{ .name = "train", .prepare = prep_train },
	{ .name = "profile", .prepare = prep_profile, .own_exec = true },
	{ .name = "compare", .whole = hp_cmd_compare },
	{ .name = "list", .whole = verb_list },
	{ .name = "report", .whole = verb_report },
	{ .name = "ctl", .whole = hp_cmd_ctl },
};

static const struct verb *
verb_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(verbs); i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}

/* The EAL arguments: the user's after --, or this machine's defaults. */
static int
eal_args(struct cli *c, int argc, char **argv, int split, char **eargv, char *store,
	 size_t storelen)
{
	int i, n = 0;

	if (split < argc) {
		eargv[n++] = (char *)prog;
		for (i = split + 1; i < argc && n < 63; i++)
			eargv[n++] = argv[i];
		if (c->cfg.idle_yield < 0)
			c->cfg.idle_yield = 0;
	} else {
		n = default_eal(c, eargv, store, storelen);
	}
	eargv[n] = NULL;
	return n;
}

static int
run_verb(const struct verb *v, int argc, char **argv)
{
	static struct cli c;
	char *eargv[64], lcstore[1024], err[512];
	int split = argc, i, ret, rc;

	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			split = i;
			break;
		}
	defaults(&c);
	ret = parse_opts(&c, split - 1, argv + 1);
	if (ret)
		return ret;
	if (c.cfg.mix.n > 1 && strcmp(v->name, "run") != 0)
		return fail(EXIT_USAGE, "--apps applies to hplane run only (%s measures one app: --app)",
			    v->name);
	if (v->direct != NULL)
		return v->direct(&c);
	c.prof.argc = argc;
	c.prof.argv = argv;
	err[0] = '\0';
	if (v->prepare != NULL && (ret = v->prepare(&c, err, sizeof(err))) < 0) {
		cli_free(&c);
		return ret == -ECANCELED ? EXIT_USAGE : fail(EXIT_USAGE, "%s", err);
	}
	if (v->own_exec && c.prof.configs != NULL && c.prof.platform != NULL) {	/* computed: no EAL */
		ret = hp_cmd_configs(&c.prof, err, sizeof(err));
		cli_free(&c);
		return ret < 0 ? fail(ret == -EINVAL ? EXIT_USAGE : 1, "profile --configs: %s", err) : 0;
	}
	ret = validate(&c);
	if (ret) {
		cli_free(&c);
		return ret;
	}
	if (!strcmp(c.idle, "sleep"))
		c.cfg.idle_yield = HP_IDLE_SLEEP;
	else if (!strcmp(c.idle, "yield"))
		c.cfg.idle_yield = 1;
	else if (!strcmp(c.idle, "spin"))
		c.cfg.idle_yield = 0;
	/* without EAL arguments lcore 0 is the main lcore: say so before EAL
	 * starts (after it, its own messages come first) */
	for (i = 0; split == argc && i < (int)c.cfg.n_service_cores; i++)
		if (c.cfg.service_cores[i] == 0) {
			cli_free(&c);
			return fail(EXIT_USAGE, "--service-cores: lcore 0 is the main lcore; list others, e.g. 1,2");
		}
	/* from here a signal stops the run cleanly (stop.h) */
	hp_cli_stop_install();
	c.cfg.stop_signal = &hp_cli_stop_signal;
	ret = eal_args(&c, argc, argv, split, eargv, lcstore, sizeof(lcstore));
	ret = rte_eal_init(ret, eargv);
	hp_cli_rtdir_note(split == argc);
	if (ret < 0) {
		cli_free(&c);
		return fail(EXIT_USAGE, "EAL initialisation failed: %s", rte_strerror(rte_errno));
	}
	if (c.cfg.idle_yield < 0)
		c.cfg.idle_yield = 0;
	rc = v->own_exec ? exec_profile(&c, err, sizeof(err)) :
			   exec_run(&c, v->report, err, sizeof(err));
	cli_free(&c);
	rte_eal_cleanup();
	return rc;
}

int
main(int argc, char **argv)
{
	const struct verb *v;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	hp_cli_rtdir_at_exit();
	v = verb_find(argv[1]);
	if (v == NULL)
		return fail(EXIT_USAGE, "unknown command '%s' (run, gen, ramp, train, profile, compare, report, list, ctl; see --help)",
			    argv[1]);
	if (v->whole != NULL)
		return v->whole(argc - 1, argv + 1);
	return run_verb(v, argc, argv);
}
