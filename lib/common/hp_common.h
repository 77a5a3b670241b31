/* SPDX-License-Identifier: BSD-3-Clause
 * heteroplane common definitions: logging through DPDK's log system, TSC
 * helpers and small utilities shared by every block.
 */
#ifndef HP_COMMON_H
#define HP_COMMON_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <rte_log.h>
#include <rte_cycles.h>

extern int hp_logtype;

/* HP_LOG(ERR, "fmt", ...): one line through rte_log under "heteroplane". */
#define HP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hp_logtype, "heteroplane: " fmt "\n", ##__VA_ARGS__)

#define HP_BURST 32

/* Outside text (a flag, a file's key) for a one-line error: at most max
 * bytes of s with no control character (a newline shows as \n, the others
 * and DEL as \xNN; bytes from 0x80 pass, so UTF-8 names stay readable),
 * "..." where cut short, always terminated. Returns buf. */
const char *hp_quote(char *buf, size_t len, const char *s, size_t max);

/* Numbers from outside (a flag, a field of a file), parsed whole: plain
 * decimal (no blank, sign, base prefix, inf or nan), within [lo, hi].
 * 0, -EINVAL (not a number) or -ERANGE (out of bounds, 1e400); *v is
 * written only on success. The _prefix form parses the number at the
 * start of s and sets *end past it, for a unit or a separator after it. */
int hp_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v);
int hp_parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *v);
int hp_parse_double(const char *s, double lo, double hi, double *v);
int hp_parse_double_prefix(const char *s, double lo, double hi, double *v,
			   const char **end);

/* The default EAL --lcores map into buf ("--lcores=0@0,1@1,..."): lcore
 * 0 main, 1..ndev the devices, then the other polling lcores (scheduler,
 * traffic), n_poll in all, on ncpu CPUs. Each polling lcore gets a CPU of
 * its own where there are enough (the main lcore keeps CPU 0); else the
 * devices spread over CPUs 1.. and the rest share CPU 0. Returns 1 when
 * polling lcores share a CPU (they must yield when idle), 0 when none
 * does, -ENOSPC when buf is too small. */
int hp_lcore_map(unsigned int ncpu, unsigned int ndev, unsigned int n_poll, char *buf,
		 size_t len);

/* What a polling lcore does after a run of empty polls (--idle): keep
 * spinning, yield the CPU, or sleep 100 us (modeled platforms on a small
 * shared machine: the lcores mostly wait for modeled time, and ~0.15 ms
 * of reaction is nothing next to modeled milliseconds; shorter sleeps
 * spent more CPU in wake-ups than the whole modeled run needed). */
#define HP_IDLE_SPIN 0
#define HP_IDLE_YIELD 1
#define HP_IDLE_SLEEP 2

static inline void
hp_idle_giveup(int mode)
{
	if (mode == HP_IDLE_SLEEP) {
		struct timespec ts = { 0, 100000 };

		nanosleep(&ts, NULL);
	} else {
		sched_yield();
	}
}

/* CPU time the calling thread has had, in ns: unlike TSC spans it leaves
 * out the time the thread was preempted, which on a shared CPU can be most
 * of a polling loop's wall time. */
static inline uint64_t
hp_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
hp_us_to_tsc(double us)
{
	return (uint64_t)(us * (double)rte_get_tsc_hz() / 1e6);
}

/* xorshift64* PRNG: deterministic, seedable, cheap (a few cycles). */
static inline uint64_t
hp_rand64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform double in [0, 1). */
static inline double
hp_rand_unit(uint64_t *s)
{
	return (double)(hp_rand64(s) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* HP_COMMON_H */
