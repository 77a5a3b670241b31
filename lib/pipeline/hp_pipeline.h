/* SPDX-License-Identifier: BSD-3-Clause
 * The pipeline (DESIGN.md §1) as stages (hp_stage.h): a scheduler doing
 * rx, classification, scheduling, reorder and tx; the devices behind
 * rte_rings; and, for generated traffic, a traffic stage that generates
 * and sinks (verifies) packets; each on an lcore of its own or all as
 * services. hp_run() runs one experiment and fills a result.
 */
#ifndef HP_PIPELINE_H
#define HP_PIPELINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "hp_gen.h"
#include "hp_hist.h"
#include "hp_load.h"
#include "hp_pkt.h"
#include "hp_power.h"
#include "hp_sched.h"
#include "hp_task.h"

#define HP_MAX_WORKERS 16
#define HP_MAX_ACCEL 4    /* accelerators beside the CPU workers (--gpu, repeatable) */
#define HP_MAX_DEVICES (HP_MAX_WORKERS + HP_MAX_ACCEL) /* cpu workers, then accelerators */
#define HP_TRACE_MAX 36000
/* Scheduler lcores (--sched-lcores): each its own rx/tx queue pair */
#define HP_MAX_SCHED_LCORES 8
/* Polling loops with load counters: devices, then schedulers, traffic. */
#define HP_LOAD_LOOPS (HP_MAX_DEVICES + HP_MAX_SCHED_LCORES + 1)

enum hp_source_kind { HP_SRC_GEN, HP_SRC_PCAP, HP_SRC_AF_PACKET };

#define HP_MAX_SERVICE_CORES 32	/* lib/svc manages up to 32 lcores */
#define HP_PCAP_FOREVER UINT32_MAX

struct hp_run_cfg {
	const char *app;
	/* --apps: several apps at once (mix.n > 1; 0 with --app). A packet's
	 * app is chosen by its flow (pl_apps.c), the shares are of flows. */
	struct hp_app_mix mix;
	const char *sched;
	const char *scenario;     /* low|medium|stress|standard|random|trace */
	const char *trace_file;
	enum hp_source_kind src;
	const char *src_arg;      /* pcap file or interface */
	const char *tx_arg;       /* output pcap / interface (NULL: default) */
	/* pcap: replayed at the capture's pace divided by pcap_speed (0: as
	 * fast as the pipeline takes it, the file counted whole), pcap_loops
	 * times (0: once; HP_PCAP_FOREVER: until duration or max_packets) */
	double pcap_speed;
	unsigned int pcap_loops;
	const char *out_dir;
	unsigned int workers;
	/* --sched-lcores: scheduler stages, each with its own rx and tx
	 * queue and the flows RSS gives it (0 or 1: one, today's path) */
	unsigned int sched_lcores;
	const char *gpus[HP_MAX_ACCEL]; /* accelerator device specs, each its own
	                                 * device with its own batcher */
	unsigned int n_gpu;
	double duration_s;
	uint64_t max_packets;     /* stop after this many received (0: no) */
	double capacity_pps;      /* 0: measure */
	double calib_s;
	unsigned int burst;
	unsigned int ring_size;
	unsigned int mbufs;
	unsigned int flows_per_type;
	unsigned int max_flows;    /* flow table size (hp_flowtab.h) */
	double flow_idle_s;        /* a flow without packets this long is removed
				    * (0: never) */
	unsigned int reorder_win;
	double reorder_hold_us;    /* longest wait for a gap; 0: from the deadlines */
	unsigned int verify_every; /* 0: off */
	bool tx_results;           /* --tx-results: each frame leaves with its
				    * app and task results as a trailer
				    * (HP_RESULTS_*, docs/architecture.md) */
	bool gen_recycle;          /* generator reuses delivered frames (needs
				    * verify_every 0): a NIC at no CPU cost */
	int idle_yield;           /* HP_IDLE_SPIN, HP_IDLE_YIELD or HP_IDLE_SLEEP */
	uint64_t seed;
	bool quiet;
	double load_interval_s;   /* load estimate window (lib/load); 0: 1 s */
	/* scheduling (docs/scheduling.md) */
	bool task_gran;           /* --granularity task (thesis C2); else chain (C1) */
	const char *cpu_model;    /* --cpu-model PROFILE[,opt=v..]: CPU workers are
				   * modeled devices (the profile's cpu section) */
	/* --profile, loaded once by the caller (hp_sched_profile_load): the
	 * models policies read for devices not modeled themselves; NULL: none */
	const struct hp_sched_profile *profile;
	unsigned int n_sched_params;
	const char *sched_params[HP_SCHED_MAX_PARAMS]; /* --sched-param KEY=VALUE */
	void *sched_conf;         /* what the policy's check read (hp_run_sched_check) */
	double power_interval_s;  /* power sampler period (lib/power); 0: 1 s */
	/* --stages-as-services (docs/svc.md): scheduler, devices and traffic
	 * run as DPDK services on these service lcores, balanced by lib/svc */
	bool stages_as_services;
	unsigned int n_service_cores;
	unsigned int service_cores[HP_MAX_SERVICE_CORES];
	int svc_mode;             /* < 0: no balancing, else enum hp_svc_mode */
	bool svc_scale_down;      /* the balancer may consolidate and park cores */
	struct hp_imix imix;
	struct hp_type_table types;
	struct hp_task_cfg task;
	/* The caller's stop request (a signal handler's flag; NULL: none):
	 * once non-zero (the signal's number) the run ends as if its time
	 * were up (the traffic stops, what is in flight drains, the result
	 * is complete) and the result says so (interrupted). */
	const volatile sig_atomic_t *stop_signal;
};

struct hp_trace_row {
	double t;
	double offered_pps;
	double delivered_pps;
	double gbps;              /* L2: frames without FCS */
	double l1_gbps;           /* L1: + FCS, preamble, SFD, gap (HP_L1_OVERHEAD) */
	double p50_us, p99_us;
	/* percentages are NAN where they would be a share of nothing (no
	 * such packet this second): null in the outputs */
	double deadline_pct;
	double reorder_pct;       /* order-needing packets sent in order (at tx) */
	double arrived_pct;       /* order-needing packets that reached the
				   * reorder stage in order (hp_reorder.h) */
	uint64_t dropped_port;
	double sched_busy_pct;
	double sched_in_pct;      /* of its busy time, the way in (rx to rings) */
	double worker_busy_pct[HP_MAX_DEVICES]; /* per device lcore */
	/* load estimates per loop (lib/load): devices, scheduler, traffic */
	unsigned int n_load;
	struct hp_load_row load[HP_LOAD_LOOPS];
	double mean_us;                          /* mean latency this second */
	double dev_share_pct[HP_MAX_DEVICES];    /* completions per device */
	double power_w[HP_POWER_MAX];            /* last power sample */
	/* --apps, per app: received and delivered this second, p99 (NAN:
	 * none delivered), deadlines met (NAN: no latency-sensitive one) */
	double app_rx_pps[HP_MAX_APPS], app_pps[HP_MAX_APPS];
	double app_p99_us[HP_MAX_APPS], app_deadline_pct[HP_MAX_APPS];
	/* and its drops this second: at its rx (port) and by admission */
	uint64_t app_drop_port[HP_MAX_APPS], app_drop_adm[HP_MAX_APPS];
	/* a configuration-level policy's (pythia): goal and configuration
	 * at the row's end, switches so far; goal "" without one */
	char goal[HP_SCHED_GOALLEN];
	char cfg[64];
	uint64_t switches;
};

/* What the summary says about each device. */
struct hp_dev_report {
	char name[48];
	bool modeled;
	bool batch;
	uint64_t pkts;             /* delivered packets it ran */
	double lat_mean_us, lat_p99_us;
	uint64_t batches, batch_pkts;
	uint64_t driver_calls, driver_polls; /* a GPU backend's (0: none) */
	uint64_t gathered_pkts;    /* read in place from the mbufs by a GPU */
	uint64_t scattered_pkts;   /* written back into the mbufs in place by a GPU */
	double prep_cycles_pkt;    /* a GPU lcore's preparation per packet (TSC) */
	double commit_cycles_pkt;  /* ... and its commit of results per packet */
	uint64_t flush[8];         /* by enum hp_flush_reason */
	uint64_t fallback_pkts;
	bool failed;
	double failed_at_s;
	char fail_reason[160];
	double model_busy_pct;     /* modeled device time / run time */
	double busy_pct;           /* loop time with work / loop time (TSC) */
};

/* Bytes a frame takes on the wire beyond its L2 length (no FCS): FCS 4,
 * preamble and SFD 8, inter-frame gap 12; a frame under 60 B is padded to
 * 60 first. L1 rates count these, as TRex's and pktgen's line rates do. */
#define HP_L1_OVERHEAD 24u
#define HP_ETH_MIN_NOFCS 60u

/* --tx-results: 32 bytes after the frame's IP packet (an Ethernet
 * trailer: the IP and L4 lengths do not count it, receivers ignore it),
 * big endian: magic "HPR1", app index (u8), status (u8), task_err (u16),
 * res32, res32b (u32 each), digest (16 bytes): what the tasks left in the
 * packet's metadata (md5: digest; dpi: match count and first id), for an
 * outside check of a --tx capture. */
#define HP_RESULTS_MAGIC 0x48505231u /* "HPR1" */
#define HP_RESULTS_LEN 32u

/* What happened to the packets of one app of --apps (pl_apps.c). */
struct hp_app_report {
	const char *name;
	double share;              /* the share asked for */
	uint64_t received;         /* classified as this app's */
	uint64_t delivered, bytes_delivered;
	uint64_t task_errors;      /* its packets a task refused (dropped) */
	uint64_t dropped_admission; /* its packets the policy's admission refused */
	/* its packets dropped at the scheduler's rx, its pending FIFO full
	 * (part of the run's dropped_port: its own rx queue overflowing) */
	uint64_t dropped_port;
	uint64_t deadline_pkts, deadline_met;
	uint64_t order_out, order_out_in_order;
	uint64_t verified, verify_failures; /* at the sink */
	uint64_t dev_pkts[HP_MAX_DEVICES]; /* delivered, by the device that ran it */
	struct hp_hist lat;        /* ns */
	/* modeled power: sum over modeled devices of (busy W - idle W) x
	 * the app's modeled busy seconds there (its batches' service time):
	 * the energy the app's work added; idle power is nobody's. NAN
	 * where no device models power. */
	double joules_dynamic;
};

/* What happened to the packets of one type of the type table (index 0:
 * frames no row matched). */
struct hp_type_count {
	uint64_t rx;               /* classified as this type */
	uint64_t tx;               /* delivered */
	uint64_t bytes;            /* delivered, L2 */
	uint64_t dl_pkts, dl_met;  /* latency-sensitive: deadlines met */
};

/* What the port saw besides the packets it passed on (pl_ports.c). */
/* ethdev's counters of a run's ports: the rx port's i*, the tx port's o*. */
struct hp_eth_view {
	uint64_t ipackets, ibytes, imissed, ierrors, rx_nombuf;
	uint64_t opackets, obytes, oerrors;
};

struct hp_port_report {
	unsigned int mtu;          /* af_packet: the interface's MTU */
	unsigned int frame_max;    /* longest frame taken whole, in one mbuf */
	uint64_t kernel_drops;     /* af_packet: the socket's ring was full
				    * (PACKET_STATISTICS); part of dropped_port */
	/* af_packet: IPv4 datagrams the kernel reassembled for the socket
	 * (net_af_packet's fanout defragments) from so many fragments, and
	 * reassemblies that failed: the namespace's counters over the run */
	uint64_t reasm_datagrams, reasm_fragments, reasm_failed;
	uint64_t pcap_records;     /* pcap: records in one pass */
	bool pcap_cut;             /* pcap: the file ends inside a record */
	/* the ports as ethdev counts them over the measured phase: beside
	 * the run's own counts, which for the generator and pcap drops are
	 * made before the port (docs/operations.md) */
	struct hp_eth_view ethdev;
};

/* One scheduler lcore's part of the run (--sched-lcores): its queue's
 * counts and its loop's cost; the run's totals are their sums. */
struct hp_sched_lcore {
	unsigned int queue;        /* its rx/tx queue on the ports */
	uint64_t rx, tx, bytes_rx, bytes_tx;
	uint64_t dropped;          /* invalid, task errors, admission */
	uint64_t q_offered, q_dropped; /* its rx queue: offered, full (generator) */
	uint64_t busy_cycles, total_cycles;
	double cycles_per_pkt, in_cycles_per_pkt; /* as the run's, per lcore */
	uint64_t flows_created, reorder_pkts, order_out, order_out_in_order;
	uint64_t lat_count;        /* packets in its latency histogram */
};

struct hp_run_result {
	double duration_s;
	double capacity_pps;
	int interrupted;           /* the signal that stopped the run, or 0 */
	uint64_t offered, received, delivered, dropped_port, dropped_internal;
	uint64_t dropped_invalid[HP_DROP_REASONS];
	uint64_t verify_failures, verified, unverified;
	/* packets a task refused: dropped (reason task_error), never sent
	 * on; of them, refused by a security task (an invariant) */
	uint64_t task_errors, task_errors_security;
	/* packets the policy's admission refused (target-rate): dropped */
	uint64_t dropped_admission;
	uint64_t mbufs_leaked, mbufs_total;
	uint64_t bytes_received;   /* L2, as received (invalid frames too) */
	uint64_t bytes_delivered;  /* L2: frames without FCS */
	uint64_t bytes_delivered_l1; /* + HP_L1_OVERHEAD a frame, runts padded */
	struct hp_type_count type[HP_MAX_TYPES + 1];
	struct hp_hist lat;        /* ns */
	uint64_t deadline_pkts, deadline_met;
	uint64_t reorder_pkts, reorder_in_order, reorder_late, reorder_drains;
	uint64_t reorder_arrived_ooo, reorder_drained; /* see hp_reorder.h */
	uint64_t reorder_timeout_drains, reorder_skipped;
	double reorder_hold_us;
	/* order measured at tx against each flow's input order: order-needing
	 * packets sent, and those sent after every lower sequence of their
	 * flow; packets of any tracked flow sent behind a higher one */
	uint64_t order_out, order_out_in_order, out_of_order_all;
	/* the flow table: size, flows at the end, most at once, taken,
	 * removed idle, packets of new flows it could not take */
	uint64_t flows_max, flows_live, flows_peak, flows_created, flows_expired;
	uint64_t flows_refused;
	uint64_t dev_pkts[HP_MAX_DEVICES];
	struct hp_dev_report dev[HP_MAX_DEVICES];
	unsigned int n_dev;
	double oh1_us, oh2_us, oh3_us, proc_us; /* means per packet */
	double sched_cycles_per_pkt;
	double sched_in_cycles_per_pkt;  /* of it, rx to the device rings */
	uint64_t stage_retries;
	unsigned int n_rows;
	struct hp_trace_row *rows; /* malloc'd; caller frees */
	unsigned int n_load;       /* polling loops with load counters */
	char load_name[HP_LOAD_LOOPS][HP_LOAD_NAMELEN];
	unsigned int n_tasks;
	/* completions of each task by device (granularity task: where each
	 * task ran; chain: every task ran where the packet went) */
	uint64_t dev_task_pkts[HP_MAX_DEVICES][HP_MAX_TASKS];
	struct hp_power_report power; /* watts and joules per source */
	struct hp_port_report port;
	uint64_t results_written, results_no_room; /* --tx-results trailers */
	unsigned int n_apps;       /* --apps: apps below; 0 with one app */
	struct hp_app_report apps[HP_MAX_APPS];
	struct hp_sched_goalstat goal; /* goal "" when the policy has none */
	unsigned int n_sched;      /* scheduler lcores, each below */
	struct hp_sched_lcore sched_lcores[HP_MAX_SCHED_LCORES];
};

int hp_run(const struct hp_run_cfg *cfg, struct hp_run_result *res,
	   char *err, size_t errlen);
/* EAL lcores a run needs: main, scheduler, one per device, traffic (for
 * generated traffic); 0 when its stages run as services. */
unsigned int hp_run_lcores(const struct hp_run_cfg *cfg);
/* Without EAL: what --sched-lcores allows (its range, the combinations
 * that run with several scheduler lcores). 0 or -errno with one line. */
int hp_run_multi_check(const struct hp_run_cfg *cfg, char *err, size_t errlen);
/* Before hp_run and without EAL: the source and output cfg names can be
 * used as they are (a pcap of Ethernet frames with at least one whole
 * record, an output that is not the source file, interfaces that exist).
 * Opens nothing for writing. 0 or -errno with a one-line reason. */
int hp_run_source_check(const struct hp_run_cfg *cfg, char *err, size_t errlen);

/* What a scheduling policy sees of the run cfg describes before it starts
 * (hz 0; the pipeline completes it), with cfg's policy options. */
void hp_run_sched_env(const struct hp_run_cfg *cfg, struct hp_sched_env *env);
/* Before hp_run and without EAL: the policy's check of its options and
 * files against cfg (hp_sched_check); what it read is kept in
 * cfg->sched_conf for the run. 0 or -errno with a one-line reason. */
int hp_run_sched_check(struct hp_run_cfg *cfg, char *err, size_t errlen);
/* Frees cfg->sched_conf once the run is over. */
void hp_run_sched_release(struct hp_run_cfg *cfg);

/* Output: summary table on stdout, summary.json and trace.csv in dir. */
void hp_print_summary(const struct hp_run_cfg *cfg,
		      const struct hp_run_result *r);
int hp_write_outputs(const struct hp_run_cfg *cfg,
		     const struct hp_run_result *r, const char *dir,
		     char *err, size_t errlen);

#endif /* HP_PIPELINE_H */
