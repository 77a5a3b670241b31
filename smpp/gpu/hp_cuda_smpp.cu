/* SPDX-License-Identifier: BSD-3-Clause
 * SMPP batch decoding on the GPU (Weerasinghe 2017, 3.3.3, ch. 4): the
 * stream pipeline behind the library's gpu and gpu-fused modes, its
 * buffers and copies, and the public API (hp_cuda_smpp.h). The kernels and
 * their tables are in hpks_kernels.cu, the host emulation that runs the
 * same per-thread code in hpks_emul.cu (hpks_priv.h).
 *
 * Records: each thread writes a whole struct smpp_pdu. Its two pointer
 * fields carry integers on the device (pdu: the PDU's input offset, desc:
 * 1 + the PDU's table index) and are made pointers on the host when the
 * records come back, in the same pass that copies them into the batch.
 *
 * GPU figures: bench/results/smpp_gpu-*.md.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpks_priv.h"

/* ---- the backend's state: buffers grown on demand, streams -------------- */

struct gbuf {
	void *p;
	size_t cap;
};

struct hpks {
	int emul;
	int dev;
	unsigned engines;
	struct smpp_gpu_launch lc;
	cudaStream_t st[SMPP_GPU_MAX_STREAMS];
	cudaEvent_t ev[SMPP_GPU_MAX_STREAMS];
	/* "device" buffers (host memory in the emulation) */
	struct gbuf d_in, d_fr, d_rec, d_chunk, d_total;
	/* pinned host staging */
	struct gbuf h_in, h_fr, h_rec, h_total;
	uint8_t *emu_smem;              /* the emulation's shared memory */
	uint32_t dec_max;               /* largest decode block the GPU fits */
	int pin;                        /* this batch's input is caller-pinned */
	struct smpp_gpu_stats stats;    /* this batch's */
	char err[256];
};

static struct hpks *g_gpu;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_last_err[256];
static struct smpp_gpu_launch g_launch = { 0, 128, 4, 0 };
static struct smpp_gpu_stats g_stats;

/* Caller-pinned ranges (smpp_gpu_host_alloc / _register), under g_lock. */
#define MAX_PINNED 16
static struct pinned {
	uint8_t *p;
	size_t len;
	int alloc;                      /* 1: ours, 0: the caller's, registered */
	int cuda;                       /* pinned by CUDA (0 in the emulation) */
} g_pin[MAX_PINNED];

#define CK(g, call) do { \
	cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { \
		snprintf((g)->err, sizeof((g)->err), "%s: %s", #call, cudaGetErrorString(e_)); \
		return -EIO; \
	} } while (0)

static void
buf_free(struct hpks *g, struct gbuf *b, int pinned)
{
	if (b->p == NULL)
		return;
	if (g->emul)
		free(b->p);
	else if (pinned)
		cudaFreeHost(b->p);
	else
		cudaFree(b->p);
	b->p = NULL;
	b->cap = 0;
}

/* At least bytes in b (contents not kept), zeroed: a batch that reads
 * past its last PDU (the decode kernel's word staging) reads zeros. */
static int
buf_grow(struct hpks *g, struct gbuf *b, size_t bytes, int pinned)
{
	size_t cap = bytes + bytes / 4 + 256;

	if (b->cap >= bytes)
		return 0;
	buf_free(g, b, pinned);
	if (g->emul) {
		b->p = calloc(1, cap);
		if (b->p == NULL)
			goto nomem;
	} else if (pinned) {
		if (cudaHostAlloc(&b->p, cap, cudaHostAllocDefault) != cudaSuccess)
			goto nomem;
		memset(b->p, 0, cap);
	} else {
		/* the memset runs on the legacy stream, which our non-blocking
		 * streams do not wait for: finish it here */
		if (cudaMalloc(&b->p, cap) != cudaSuccess || cudaMemset(b->p, 0, cap) != cudaSuccess ||
		    cudaDeviceSynchronize() != cudaSuccess)
			goto nomem;
	}
	b->cap = cap;
	return 0;
nomem:
	if (!g->emul) {
		cudaGetLastError(); /* an allocation failure is not sticky: clear it */
		cudaFree(b->p);
	}
	b->p = NULL;
	snprintf(g->err, sizeof(g->err), "cannot allocate %zu bytes of %s memory", cap,
		 g->emul ? "host" : pinned ? "pinned host" : "GPU");
	return -ENOMEM;
}

static int
copy(struct hpks *g, void *dst, const void *src, size_t n, int h2d, unsigned s)
{
	if (n == 0)
		return 0;
	if (g->emul) {
		memcpy(dst, src, n);
		return 0;
	}
	CK(g, cudaMemcpyAsync(dst, src, n, h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
			      g->st[s]));
	return 0;
}

static int
ev_record(struct hpks *g, unsigned s)
{
	if (!g->emul)
		CK(g, cudaEventRecord(g->ev[s], g->st[s]));
	return 0;
}

static int
ev_wait(struct hpks *g, unsigned waiter, unsigned s)
{
	if (!g->emul && waiter != s)
		CK(g, cudaStreamWaitEvent(g->st[waiter], g->ev[s], 0));
	return 0;
}

/* The decode kernel's block: the launch's, at most dec_max (the record
 * slots and the staging must fit in the GPU's shared memory). */
static uint32_t
decode_block(const struct hpks *g)
{
	return g->lc.block < g->dec_max ? g->lc.block : g->dec_max;
}

static int
launch_decode(struct hpks *g, const struct hpks_dargs *a, unsigned s)
{
	uint32_t nb = decode_block(g), ntiles = (a->np + nb - 1) / nb;
	uint32_t grid = g->lc.grid && g->lc.grid < ntiles ? g->lc.grid : ntiles;

	if (a->np == 0)
		return 0;
	if (g->emul) {
		hpks_emu_decode(a, grid, nb, g->emu_smem);
		return 0;
	}
	CK(g, hpks_k_decode(a, grid, nb, g->st[s]));
	return 0;
}

static struct hpks_dargs
dargs(struct hpks *g, const struct smpp_config *cfg, uint32_t p0, uint32_t np)
{
	struct hpks_dargs a;

	a.in = (const uint8_t *)g->d_in.p;
	a.fr = (const struct hpks_frame *)g->d_fr.p;
	a.rec = (struct smpp_pdu *)g->d_rec.p;
	a.p0 = p0;
	a.np = np;
	a.stage_cap = hpks_stage_cap(decode_block(g));
	a.flags = cfg->flags;
	return a;
}

/* Records [p0, p0 + n) back into the batch, their pointer fields made
 * pointers. Returns the PDUs with errors. */
static size_t
copy_out(struct hpks *g, const uint8_t *in, struct smpp_batch *out, size_t p0, size_t n)
{
	const struct smpp_pdu *rec = (const struct smpp_pdu *)g->h_rec.p + p0;
	struct smpp_pdu *dst = out->pdus + p0;
	size_t nerr = 0;

	for (size_t i = 0; i < n; i++) {
		uintptr_t at = (uintptr_t)rec[i].pdu, di = (uintptr_t)rec[i].desc;

		dst[i] = rec[i];
		dst[i].pdu = in + at;
		dst[i].desc = di ? &smpp_pdu_tab[di - 1] : NULL;
		nerr += dst[i].error != ESME_ROK;
	}
	return nerr;
}

/* One host thread's share of the copy-out: slice `part` of nparts of
 * every chunk, each as soon as its event says the records are there. */
struct cp_job {
	struct hpks *g;
	const uint8_t *in;
	struct smpp_batch *out;
	size_t n, per, nerr;
	unsigned ns, part, nparts;
	cudaError_t err;
};

static void *
cp_run(void *arg)
{
	struct cp_job *j = (struct cp_job *)arg;
	struct hpks *g = j->g;

	if (!g->emul && j->part != 0 && (j->err = cudaSetDevice(g->dev)) != cudaSuccess)
		return NULL;
	for (unsigned k = 0; k < j->ns && k * j->per < j->n; k++) {
		size_t p0 = k * j->per, p1 = p0 + j->per < j->n ? p0 + j->per : j->n;
		size_t q0 = p0 + (p1 - p0) * j->part / j->nparts;
		size_t q1 = p0 + (p1 - p0) * (j->part + 1) / j->nparts;

		if (!g->emul && (j->err = cudaEventSynchronize(g->ev[k])) != cudaSuccess)
			return NULL;
		j->nerr += copy_out(g, j->in, j->out, q0, q1 - q0);
	}
	return NULL;
}

/* Host threads for the copy-out of n records: the launch's, or automatic,
 * one under 16k records (a thread start costs more than it saves), else
 * up to 4 of the online CPUs. The copy-out (224 octets read from pinned
 * memory and written per record, the pointers fixed) was what bound the
 * GPU modes at 25-35 M PDUs/s on one thread (issue 22). */
static unsigned
copy_threads(const struct hpks *g, size_t n)
{
	long cpus;

	if (g->lc.copy_threads)
		return g->lc.copy_threads;
	if (n < 16384)
		return 1;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus >= 4 ? 4 : cpus > 1 ? (unsigned)cpus : 1;
}

/* Waits for chunk k's records (n PDUs in chunks of per on ns streams) and
 * copies them out while the later chunks still run, on copy_threads()
 * host threads that each take a slice of every chunk. */
static int
collect(struct hpks *g, const uint8_t *in, struct smpp_batch *out, size_t n, size_t per,
	unsigned ns)
{
	struct cp_job job[SMPP_GPU_MAX_COPY_THREADS];
	pthread_t th[SMPP_GPU_MAX_COPY_THREADS];
	int started[SMPP_GPU_MAX_COPY_THREADS] = { 0 };
	unsigned nt = copy_threads(g, n);

	for (unsigned t = 0; t < nt; t++) {
		job[t] = (struct cp_job){ g, in, out, n, per, 0, ns, t, nt, cudaSuccess };
		/* a thread that cannot start: its slice runs here below */
		if (t > 0)
			started[t] = pthread_create(&th[t], NULL, cp_run, &job[t]) == 0;
	}
	cp_run(&job[0]);
	for (unsigned t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		else
			cp_run(&job[t]);
	}
	g->stats.copy_threads = nt;
	for (unsigned t = 0; t < nt; t++) {
		if (job[t].err != cudaSuccess) {
			snprintf(g->err, sizeof(g->err), "waiting for the records: %s",
				 cudaGetErrorString(job[t].err));
			return -EIO;
		}
		out->nerr += job[t].nerr;
	}
	return 0;
}

/* The octets [lo, lo + m) of the input as the H2D copy reads them: the
 * caller's own when pinned, else a copy in the pinned staging. */
static const uint8_t *
stage_in(struct hpks *g, const uint8_t *in, size_t lo, size_t m)
{
	if (g->pin)
		return in + lo;
	memcpy((uint8_t *)g->h_in.p + lo, in + lo, m);
	g->stats.staged += m;
	return (const uint8_t *)g->h_in.p + lo;
}

static int
batch_room(struct hpks *g, struct smpp_batch *b, size_t n)
{
	struct smpp_pdu *np;

	if (n <= b->cap)
		return 0;
	np = (struct smpp_pdu *)realloc(b->pdus, n * sizeof(*np));
	if (np == NULL) {
		snprintf(g->err, sizeof(g->err), "cannot grow the batch to %zu PDUs", n);
		return -ENOMEM;
	}
	b->pdus = np;
	b->cap = n;
	return 0;
}

static int
room(struct hpks *g, size_t len, size_t n)
{
	int rc;

	/* input padded by 16: the word staging reads up to 3 octets past it */
	if ((rc = buf_grow(g, &g->d_in, len + 16, 0)) < 0 ||
	    (!g->pin && (rc = buf_grow(g, &g->h_in, len + 16, 1)) < 0) ||
	    (rc = buf_grow(g, &g->d_fr, n * sizeof(struct hpks_frame), 0)) < 0 ||
	    (rc = buf_grow(g, &g->d_rec, n * sizeof(struct smpp_pdu), 0)) < 0 ||
	    (rc = buf_grow(g, &g->h_rec, n * sizeof(struct smpp_pdu), 1)) < 0)
		return rc;
	return 0;
}

/* Streams actually used for n items. */
static unsigned
nstreams(const struct hpks *g, size_t n)
{
	return n < g->lc.streams ? (unsigned)(n ? n : 1) : g->lc.streams;
}

/* ---- mode gpu: the CPU framed the batch, the GPU decodes it -------------- */

static int
run_framed(struct hpks *g, const struct smpp_config *cfg, const uint8_t *in, size_t len,
	   struct smpp_batch *out)
{
	size_t n = out->n, per;
	unsigned ns = nstreams(g, n);
	/* one copy engine: all H2D first, then kernels, then D2H, so the
	 * copies of chunk k+1 do not queue behind the D2H of chunk k
	 * (Weerasinghe 2.4.4.1 pattern B); two or more: depth first (C).
	 * The emulation plays one engine for odd stream counts and two for
	 * even ones, so the tests run both orders. */
	unsigned engines = g->emul ? 2 - g->lc.streams % 2 : g->engines;
	int breadth = engines <= 1;
	struct hpks_frame *hf;
	int rc;

	out->nerr = 0;
	if (n == 0)
		return 0;
	if (n > UINT32_MAX) {
		snprintf(g->err, sizeof(g->err), "%zu PDUs in one batch (max %u)", n, UINT32_MAX);
		return -E2BIG;
	}
	if ((rc = room(g, len, n)) < 0 ||
	    (rc = buf_grow(g, &g->h_fr, n * sizeof(struct hpks_frame), 1)) < 0)
		return rc;
	hf = (struct hpks_frame *)g->h_fr.p;
	per = (n + ns - 1) / ns;
	for (int phase = 0; phase < (breadth ? 3 : 1); phase++) {
		for (unsigned k = 0; k < ns && k * per < n; k++) {
			size_t p0 = k * per, p1 = p0 + per < n ? p0 + per : n;
			size_t lo = out->pdus[p0].off, hi = p1 < n ? out->pdus[p1].off : len;
			struct hpks_dargs a = dargs(g, cfg, (uint32_t)p0, (uint32_t)(p1 - p0));

			if (!breadth || phase == 0) {
				/* the CPU's frames and the chunk's octets into
				 * pinned staging (unless the caller's input is
				 * pinned), then to the GPU */
				for (size_t i = p0; i < p1; i++) {
					const struct smpp_pdu *p = &out->pdus[i];

					hf[i].off = p->off;
					hf[i].pdu_at = (uint64_t)(p->pdu - in);
					hf[i].len = p->len;
					hf[i].err = p->error;
					hf[i].corr_len = p->corr_len;
				}
				if ((rc = copy(g, (uint8_t *)g->d_in.p + lo,
					       stage_in(g, in, lo, hi - lo), hi - lo, 1, k)) < 0 ||
				    (rc = copy(g, (struct hpks_frame *)g->d_fr.p + p0, hf + p0,
					       (p1 - p0) * sizeof(*hf), 1, k)) < 0)
					return rc;
			}
			if ((!breadth || phase == 1) && (rc = launch_decode(g, &a, k)) < 0)
				return rc;
			if (!breadth || phase == 2) {
				if ((rc = copy(g, (struct smpp_pdu *)g->h_rec.p + p0,
					       (struct smpp_pdu *)g->d_rec.p + p0,
					       (p1 - p0) * sizeof(struct smpp_pdu), 0, k)) < 0 ||
				    (rc = ev_record(g, k)) < 0)
					return rc;
			}
		}
	}
	return collect(g, in, out, n, per, ns);
}

/* ---- mode gpu-fused: marking and decoding on the GPU --------------------- */

static void
fcfg_of(const struct smpp_config *cfg, size_t len, struct hpks_fcfg *c)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->len = len;
}

static int
run_fused(struct hpks *g, const struct smpp_config *cfg, const uint8_t *in, size_t len,
	  struct smpp_batch *out)
{
	uint32_t nb = g->lc.block, nchunks, mgrid;
	uint64_t csz, want, n;
	unsigned ns = g->lc.streams;
	size_t piece, per;
	struct hpks_fcfg c;
	int rc;

	out->n = 0;
	out->nerr = 0;
	if (len == 0)
		return 0;
	fcfg_of(cfg, len, &c);
	/* chunks: grid x block marking threads, or one per 4 KiB (the thesis
	 * found ~20k marking threads best for 1M PDUs, 4.3.2) */
	want = g->lc.grid ? (uint64_t)g->lc.grid * nb : len / 4096;
	want = want < 1 ? 1 : want > (1u << 22) ? (1u << 22) : want;
	csz = (len + want - 1) / want;
	nchunks = (uint32_t)((len + csz - 1) / csz);
	mgrid = (nchunks + nb - 1) / nb;
	if ((rc = buf_grow(g, &g->d_in, len + 16, 0)) < 0 ||
	    (!g->pin && (rc = buf_grow(g, &g->h_in, len + 16, 1)) < 0) ||
	    (rc = buf_grow(g, &g->d_chunk, (size_t)nchunks * HPKS_CHUNK_BYTES, 0)) < 0 ||
	    (rc = buf_grow(g, &g->d_total, 8, 0)) < 0 || (rc = buf_grow(g, &g->h_total, 8, 1)) < 0)
		return rc;
	/* the input in `ns` pieces: staging of piece k+1 overlaps the copy
	 * of piece k; marking starts when all are there (a bad element's
	 * resync may read to the end) */
	piece = (len + ns - 1) / ns;
	for (unsigned k = 0; k < ns && k * piece < len; k++) {
		size_t lo = k * piece, m = len - lo < piece ? len - lo : piece;

		if ((rc = copy(g, (uint8_t *)g->d_in.p + lo, stage_in(g, in, lo, m), m, 1, k)) < 0 ||
		    (rc = ev_record(g, k)) < 0 || (rc = ev_wait(g, 0, k)) < 0)
			return rc;
	}
	if (g->emul) {
		if ((rc = hpks_emu_mark_resolve(&c, (const uint8_t *)g->d_in.p, mgrid, nb, nchunks,
						 csz, (uint64_t *)g->d_chunk.p,
						 (uint64_t *)g->d_total.p)) < 0) {
			snprintf(g->err, sizeof(g->err), "out of memory");
			return rc;
		}
	} else {
		CK(g, hpks_k_mark_resolve(&c, (const uint8_t *)g->d_in.p, mgrid, nb, nchunks, csz,
					  (uint64_t *)g->d_chunk.p, (uint64_t *)g->d_total.p,
					  g->st[0]));
	}
	/* the one round trip: the PDU count sizes the rest */
	if ((rc = copy(g, g->h_total.p, g->d_total.p, 8, 0, 0)) < 0)
		return rc;
	if (!g->emul)
		CK(g, cudaStreamSynchronize(g->st[0]));
	n = *(uint64_t *)g->h_total.p;
	if (n > UINT32_MAX) {
		snprintf(g->err, sizeof(g->err), "%llu PDUs in one batch (max %u)",
			 (unsigned long long)n, UINT32_MAX);
		return -E2BIG;
	}
	if ((rc = room(g, len, n)) < 0 || (rc = batch_room(g, out, n)) < 0)
		return rc;
	if (g->emul)
		hpks_emu_emit(&c, (const uint8_t *)g->d_in.p, mgrid, nb, nchunks, csz,
			      (const uint64_t *)g->d_chunk.p, (struct hpks_frame *)g->d_fr.p);
	else
		CK(g, hpks_k_emit(&c, (const uint8_t *)g->d_in.p, mgrid, nb, nchunks, csz,
				  (const uint64_t *)g->d_chunk.p, (struct hpks_frame *)g->d_fr.p,
				  g->st[0]));
	if ((rc = ev_record(g, 0)) < 0)
		return rc;
	/* decode in `ns` chunks: D2H and the host copy-out of chunk k overlap
	 * the decoding of the later ones */
	ns = nstreams(g, n);
	per = (n + ns - 1) / ns;
	for (unsigned k = 0; k < ns && k * per < n; k++) {
		size_t p0 = k * per, p1 = p0 + per < n ? p0 + per : n;
		struct hpks_dargs a = dargs(g, cfg, (uint32_t)p0, (uint32_t)(p1 - p0));

		if ((rc = ev_wait(g, k, 0)) < 0 || (rc = launch_decode(g, &a, k)) < 0 ||
		    (rc = copy(g, (struct smpp_pdu *)g->h_rec.p + p0, (struct smpp_pdu *)g->d_rec.p + p0,
			       (p1 - p0) * sizeof(struct smpp_pdu), 0, k)) < 0)
			return rc;
	}
	/* the events are recorded after all waits on event 0 are queued */
	for (unsigned k = 0; k < ns && k * per < n; k++)
		if ((rc = ev_record(g, k)) < 0)
			return rc;
	if ((rc = collect(g, in, out, n, per, ns)) < 0)
		return rc;
	out->n = n;
	return 0;
}

/* ---- open / close --------------------------------------------------------- */

static void
hpks_close(struct hpks *g)
{
	if (g == NULL)
		return;
	if (!g->emul)
		cudaSetDevice(g->dev);
	for (unsigned i = 0; !g->emul && i < SMPP_GPU_MAX_STREAMS; i++) {
		if (g->st[i] != NULL)
			cudaStreamSynchronize(g->st[i]);
		if (g->ev[i] != NULL)
			cudaEventDestroy(g->ev[i]);
		if (g->st[i] != NULL)
			cudaStreamDestroy(g->st[i]);
	}
	buf_free(g, &g->d_in, 0);
	buf_free(g, &g->d_fr, 0);
	buf_free(g, &g->d_rec, 0);
	buf_free(g, &g->d_chunk, 0);
	buf_free(g, &g->d_total, 0);
	buf_free(g, &g->h_in, 1);
	buf_free(g, &g->h_fr, 1);
	buf_free(g, &g->h_rec, 1);
	buf_free(g, &g->h_total, 1);
	free(g->emu_smem);
	free(g);
}

static int
open_gpu(struct hpks *g, char *info, size_t infolen)
{
	struct cudaDeviceProp pr;
	int ndev = 0, drv = 0, rt = 0, optin = 0, rc;

	CK(g, cudaGetDeviceCount(&ndev));
	if (ndev <= g->dev) {
		snprintf(g->err, sizeof(g->err), "GPU %d requested, %d present", g->dev, ndev);
		return -ENODEV;
	}
	CK(g, cudaSetDevice(g->dev));
	CK(g, cudaGetDeviceProperties(&pr, g->dev));
	CK(g, cudaDriverGetVersion(&drv));
	CK(g, cudaRuntimeGetVersion(&rt));
	g->engines = (unsigned)pr.asyncEngineCount;
	snprintf(info, infolen,
		 "GPU %d: %.64s (sm_%d%d, %d SMs, %.1f GiB, %d copy engine(s)), driver CUDA %d.%d, runtime %d.%d",
		 g->dev, pr.name, pr.major, pr.minor, pr.multiProcessorCount,
		 (double)pr.totalGlobalMem / (1u << 30), pr.asyncEngineCount, drv / 1000,
		 (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
	if ((rc = hpks_gpu_setup(g->err, sizeof(g->err))) < 0)
		return rc;
	/* the largest decode block whose slots and staging fit (512 on
	 * sm_90, fewer where a block may have less shared memory) */
	CK(g, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, g->dev));
	for (g->dec_max = HPKS_DECODE_MAX_BLOCK;
	     g->dec_max > 32 && hpks_decode_smem(g->dec_max) > (size_t)optin; g->dec_max -= 32)
		;
	CK(g, hpks_k_decode_smem_limit(hpks_decode_smem(g->dec_max)));
	for (unsigned i = 0; i < SMPP_GPU_MAX_STREAMS; i++) {
		CK(g, cudaStreamCreateWithFlags(&g->st[i], cudaStreamNonBlocking));
		CK(g, cudaEventCreateWithFlags(&g->ev[i], cudaEventDisableTiming));
	}
	return 0;
}

static int
hpks_open(struct hpks **out, int emul, char *info, size_t infolen, char *err, size_t errlen)
{
	struct hpks *g = (struct hpks *)calloc(1, sizeof(*g));
	int rc;

	if (g == NULL)
		return -ENOMEM;
	g->emul = emul;
	g->dec_max = HPKS_DECODE_MAX_BLOCK;
	rc = hpks_tab_ready();
	if (rc < 0) {
		snprintf(err, errlen, "the SMPP tables do not fit the kernels' layout");
		free(g);
		return rc;
	}
	if (emul) {
		/* zeroed: a slot's TLV and field entries past the decoded
		 * ones are copied out as they are */
		g->emu_smem = (uint8_t *)calloc(1, HPKS_DECODE_SMEM_MAX);
		if (g->emu_smem == NULL) {
			free(g);
			return -ENOMEM;
		}
		snprintf(info, infolen, "host emulation of the SMPP GPU kernels (no GPU; for tests)");
	} else if ((rc = open_gpu(g, info, infolen)) < 0) {
		snprintf(err, errlen, "%s", g->err);
		cudaGetLastError();
		hpks_close(g);
		return -ENODEV;
	}
	*out = g;
	return 0;
}

/* ---- the library's backends and the public API ---------------------------- */

/* 1 when [p, p + len) lies in one caller-pinned range (under g_lock). */
static int
is_pinned(const uint8_t *p, size_t len)
{
	for (unsigned i = 0; i < MAX_PINNED; i++)
		if (g_pin[i].p != NULL && p >= g_pin[i].p &&
		    (size_t)(p - g_pin[i].p) <= g_pin[i].len &&
		    len <= g_pin[i].len - (size_t)(p - g_pin[i].p))
			return 1;
	return 0;
}

/* A free slot of g_pin for p, or -1 (under g_lock). */
static int
pin_slot(void)
{
	for (int i = 0; i < MAX_PINNED; i++)
		if (g_pin[i].p == NULL)
			return i;
	return -1;
}

typedef int (*run_fn)(struct hpks *, const struct smpp_config *, const uint8_t *, size_t,
		      struct smpp_batch *);

static int
backend(struct smpp_ctx *ctx, const uint8_t *in, size_t len, struct smpp_batch *out, run_fn run)
{
	int rc;

	pthread_mutex_lock(&g_lock);
	if (g_gpu == NULL) {
		pthread_mutex_unlock(&g_lock);
		return -ENOTSUP;
	}
	g_gpu->lc = g_launch;
	g_gpu->err[0] = '\0';
	g_gpu->pin = is_pinned(in, len);
	memset(&g_gpu->stats, 0, sizeof(g_gpu->stats));
	if (!g_gpu->emul && cudaSetDevice(g_gpu->dev) != cudaSuccess) {
		snprintf(g_gpu->err, sizeof(g_gpu->err), "cudaSetDevice(%d) failed", g_gpu->dev);
		rc = -EIO;
	} else {
		rc = run(g_gpu, smpp_ctx_config(ctx), in, len, out);
	}
	snprintf(g_last_err, sizeof(g_last_err), "%s", rc < 0 ? g_gpu->err : "");
	g_stats = g_gpu->stats;
	pthread_mutex_unlock(&g_lock);
	return rc;
}

static int
backend_gpu(struct smpp_ctx *ctx, const uint8_t *in, size_t len, struct smpp_batch *out)
{
	return backend(ctx, in, len, out, run_framed);
}

static int
backend_fused(struct smpp_ctx *ctx, const uint8_t *in, size_t len, struct smpp_batch *out)
{
	return backend(ctx, in, len, out, run_fused);
}

extern "C" int
smpp_gpu_init(unsigned flags, char *msg, size_t msglen)
{
	const char *env = getenv("HP_SMPP_GPU_EMUL");
	int emul = (flags & SMPP_GPU_EMUL) || (env != NULL && strcmp(env, "1") == 0);
	char info[320] = "", err[320] = "";
	struct hpks *g = NULL;
	int rc;

	pthread_mutex_lock(&g_lock);
	if (g_gpu != NULL) {
		pthread_mutex_unlock(&g_lock);
		return 0;
	}
	rc = hpks_open(&g, emul, info, sizeof(info), err, sizeof(err));
	if (rc < 0) {
		pthread_mutex_unlock(&g_lock);
		snprintf(msg, msglen, "no usable GPU: %s", err);
		return rc == -ENOMEM ? rc : -ENODEV;
	}
	g_gpu = g;
	pthread_mutex_unlock(&g_lock);
	smpp_backend_register(SMPP_MODE_GPU, backend_gpu);
	smpp_backend_register(SMPP_MODE_GPU_FUSED, backend_fused);
	snprintf(msg, msglen, "%s", info);
	return 0;
}

extern "C" void
smpp_gpu_fini(void)
{
	smpp_backend_register(SMPP_MODE_GPU, NULL);
	smpp_backend_register(SMPP_MODE_GPU_FUSED, NULL);
	pthread_mutex_lock(&g_lock);
	hpks_close(g_gpu);
	g_gpu = NULL;
	pthread_mutex_unlock(&g_lock);
}

extern "C" int
smpp_gpu_emulated(void)
{
	return g_gpu != NULL && g_gpu->emul;
}

extern "C" int
smpp_gpu_set_launch(const struct smpp_gpu_launch *l)
{
	struct smpp_gpu_launch v = *l;

	if (v.block == 0)
		v.block = 128;
	if (v.streams == 0)
		v.streams = 4;
	if (v.block % 32 || v.block > 1024 || v.streams > SMPP_GPU_MAX_STREAMS ||
	    v.copy_threads > SMPP_GPU_MAX_COPY_THREADS ||
	    v.grid > (1u << 22))
		return -EINVAL;
	pthread_mutex_lock(&g_lock);
	g_launch = v;
	pthread_mutex_unlock(&g_lock);
	return 0;
}

extern "C" void
smpp_gpu_get_launch(struct smpp_gpu_launch *l)
{
	pthread_mutex_lock(&g_lock);
	*l = g_launch;
	pthread_mutex_unlock(&g_lock);
}

extern "C" const char *
smpp_gpu_last_error(void)
{
	return g_last_err;
}

extern "C" void
smpp_gpu_last_stats(struct smpp_gpu_stats *st)
{
	pthread_mutex_lock(&g_lock);
	*st = g_stats;
	pthread_mutex_unlock(&g_lock);
}

/* Records a pinned range; alloc says whose memory it is (under g_lock,
 * with the backend open). */
static int
pin_add(void *p, size_t len, int alloc)
{
	int i = pin_slot();

	if (i < 0)
		return -ENOSPC;
	g_pin[i].p = (uint8_t *)p;
	g_pin[i].len = len;
	g_pin[i].alloc = alloc;
	g_pin[i].cuda = !g_gpu->emul;
	return 0;
}

extern "C" void *
smpp_gpu_host_alloc(size_t len)
{
	void *p = NULL;

	pthread_mutex_lock(&g_lock);
	if (g_gpu == NULL || len == 0 || pin_slot() < 0)
		goto out;
	if (g_gpu->emul) {
		p = malloc(len);
	} else if (cudaHostAlloc(&p, len, cudaHostAllocDefault) != cudaSuccess) {
		cudaGetLastError();
		p = NULL;
	}
	if (p != NULL)
		pin_add(p, len, 1);
out:
	pthread_mutex_unlock(&g_lock);
	return p;
}

/* Drops p's range; frees it when it is ours. 0 or -ENOENT. */
static int
pin_drop(void *p, int alloc)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&g_lock);
	for (unsigned i = 0; i < MAX_PINNED; i++) {
		if (g_pin[i].p != p || g_pin[i].alloc != alloc)
			continue;
		/* by how it was pinned: a range may outlive smpp_gpu_fini */
		if (g_pin[i].cuda && alloc)
			cudaFreeHost(p);
		else if (g_pin[i].cuda)
			cudaHostUnregister(p);
		else if (alloc)
			free(p);
		g_pin[i].p = NULL;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&g_lock);
	return rc;
}

extern "C" void
smpp_gpu_host_free(void *p)
{
	if (p != NULL)
		pin_drop(p, 1);
}

extern "C" int
smpp_gpu_host_register(void *p, size_t len)
{
	int rc = 0;

	if (p == NULL || len == 0)
		return -EINVAL;
	pthread_mutex_lock(&g_lock);
	if (g_gpu == NULL)
		rc = -ENODEV;
	else if (pin_slot() < 0)
		rc = -ENOSPC;
	else if (!g_gpu->emul && cudaHostRegister(p, len, cudaHostRegisterDefault) != cudaSuccess) {
		cudaGetLastError();
		rc = -EIO;
	}
	if (rc == 0)
		pin_add(p, len, 0);
	pthread_mutex_unlock(&g_lock);
	return rc;
}

extern "C" int
smpp_gpu_host_unregister(void *p)
{
	return pin_drop(p, 0);
}

