/* SPDX-License-Identifier: BSD-3-Clause
 * The `cuda` accelerator backend, built as a plugin (libhp_cuda.so) that
 * hplane loads at run time, so the core builds and runs without CUDA.
 *
 * It runs any app whose every task names a registered kernel in its
 * offload (hp_task.h; the kernels are lib/task/<name>/<name>.cu, found by
 * name through hpk.h). A kernel's table (the DFA, the LDPC code) is the
 * task's offload_data blob, uploaded once as it is. A batch goes through
 * the chain stage by stage (a stage per task, all on the batch's stream):
 * the task's offload_prep gives key and IV and either writes each
 * packet's kernel input into the stream's pinned staging or, for a task
 * that can be read in place (offload_in_place; md5, dpi, aes_ctr) whose
 * mbuf lies in memory registered at open (every mempool's chunks), only
 * says where the bytes are: the GPU gathers them from the mbuf (zero
 * copy on the way in). The plugin expands keys once per distinct key for
 * keyed kernels and launches one H2D of the packed per-packet arrays and
 * keys, one of the staged payload, the gather, the kernel and D2H
 * (hpk_stream.cu; the device lcore binds itself to the GPU on its
 * first launch, and nothing is allocated per batch); the device lcore
 * polls the stream without blocking. Results come back in place where
 * the task says where they belong (o->dst: aes_ctr's payload, md5's
 * digest, dpi's match record, all in the registered mbufs): a scatter
 * kernel writes them into the mbufs over PCIe and then the packet's step
 * (the mark), so the lcore only calls offload_done(out NULL) for what is
 * left (headers, checksums); otherwise, when a stage completes, the
 * task's offload_done copies the result from the staging into each
 * packet, whose step moves past that task. Then the next stage starts. prep never changes a packet, so
 * when the GPU fails the CPU chain redoes each packet from its step:
 * nothing is done twice (a packet committed in place has its step
 * moved by the GPU after its result, so it is finished, not redone).
 *
 * `--gpu cuda:emul` runs the same plugin with the kernels' per-thread code
 * executed on the device lcore (no GPU): the whole path around the
 * kernels is tested on machines without a GPU; reports say "(emulated)".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mempool.h>

#include "hp_common.h"
#include "hp_accel.h"
#include "hpk.h"

#define NSTREAMS 4
#define CAP_PKTS HP_BATCH_MAX
#define CAP_BYTES (HP_BATCH_MAX * 2064u) /* any mbuf's data region, padded */
#define KEY_CACHE 4096                   /* expanded keys; direct mapped */

struct keyent {
	uint8_t key[16];
	const struct hpk_kernel *by; /* whose expansion rk is */
	uint32_t rk[HPK_KEY_WORDS];
	uint32_t stamp;      /* batch that last gave it a slot */
	uint32_t slot;       /* its index in that batch's key table */
	int valid;
};

struct cuda_priv {
	struct hpk_ctx *k;
	const struct hpk_kernel *kern[HP_MAX_TASKS]; /* each task's kernel */
	int emul;
	char info[256];
	struct hp_batch_job *q[NSTREAMS]; /* in flight, by stream */
	unsigned int stage[NSTREAMS];     /* task the stream's job is at */
	unsigned int head, n;             /* FIFO over streams */
	struct hp_offload *o[NSTREAMS];   /* per packet kernel arguments */
	int8_t *state[NSTREAMS];          /* 0 on the GPU, 1 nothing to do, <0 error */
	struct keyent *keys;
	uint32_t stamp;
	unsigned int mem_chunks;          /* mbuf memory registered for the gather */
	bool staged;                      /* cuda:...:staged: never gather */
	/* service model learned online (cycles) */
	double fixed_cyc, per_byte_cyc;
};

static void
priv_free(struct cuda_priv *p)
{
	unsigned int s;

	hpk_close(p->k);
	for (s = 0; s < NSTREAMS; s++) {
		free(p->o[s]);
		free(p->state[s]);
	}
	free(p->keys);
	free(p);
}

/* Tables the chain's kernels read, each the task's blob, uploaded once. */
static int
upload_tables(struct hp_device *dev, struct cuda_priv *p, char *err, size_t errlen)
{
	for (unsigned int k = 0; k < dev->n_tasks; k++) {
		const struct hp_task_ops *t = dev->ctx[k].ops;
		const void *d = NULL;
		size_t len = 0;
		int ret;

		if (!hpk_kernel_has_table(p->kern[k]))
			continue;
		if (t->offload_data != NULL)
			d = t->offload_data(&dev->ctx[k], &len);
		if (d == NULL) {
			snprintf(err, errlen, "device cuda: task %s has no table to upload", t->name);
			return -EINVAL;
		}
		ret = hpk_table(p->k, p->kern[k], d, len, err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

struct reg_walk {
	struct cuda_priv *p;
	int failed;
};

static void
reg_chunk(struct rte_mempool *mp, void *arg, struct rte_mempool_memhdr *mh, unsigned int idx)
{
	struct reg_walk *w = arg;
	char err[256];

	RTE_SET_USED(idx);
	if (hpk_mem_register(w->p->k, mh->addr, mh->len, err, sizeof(err)) == 0) {
		w->p->mem_chunks++;
	} else if (!w->failed) {
		/* its packets are staged: slower, not wrong */
		HP_LOG(WARNING, "cuda: pool %s: %s; its packets go through the staging",
		       mp->name, err);
		w->failed = 1;
	}
}

static void
reg_pool(struct rte_mempool *mp, void *arg)
{
	rte_mempool_mem_iter(mp, reg_chunk, arg);
}

/* A task runs here when it names a registered kernel and has both
 * offload hooks. */
static bool
cuda_supports(const struct hp_task_ops *t)
{
	return t->offload != NULL && t->offload_prep != NULL && t->offload_done != NULL &&
	       hpk_kernel_find(t->offload) != NULL;
}

static int
cuda_open(struct hp_device *dev, const char *arg, char *err, size_t errlen)
{
	struct cuda_priv *p;
	unsigned int s, k;
	char which[16];
	const char *c;
	int gpu = 0, ret;

	for (k = 0; k < dev->n_tasks; k++) {
		const struct hp_task_ops *t = dev->ctx[k].ops;
		const struct hpk_kernel *kn;
		char names[128] = "";
		size_t o = 0;

		if (cuda_supports(t))
			continue;
		for (unsigned int i = 0; (kn = hpk_kernel_at(i)) != NULL && o < sizeof(names); i++)
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", i ? ", " : "",
					      hpk_kernel_name(kn));
		snprintf(err, errlen,
			 "device cuda runs apps whose every task has a GPU kernel (kernels: %s); app %s's task %s has none",
			 names, dev->env->app->name, t->name);
		return -ENOTSUP;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	for (k = 0; k < dev->n_tasks; k++)
		p->kern[k] = hpk_kernel_find(dev->ctx[k].ops->offload);
	/* ":staged" after the GPU: every packet through the staging (the
	 * fallback path, to measure against the gather) */
	if (arg != NULL && (c = strchr(arg, ':')) != NULL) {
		if (strcmp(c, ":staged") != 0 || c == arg || (size_t)(c - arg) >= sizeof(which)) {
			snprintf(err, errlen, "cuda:%s: expected cuda[:N|:emul][:staged]", arg);
			free(p);
			return -EINVAL;
		}
		p->staged = true;
		snprintf(which, sizeof(which), "%.*s", (int)(c - arg), arg);
		arg = which;
	}
	if (arg != NULL && strcmp(arg, "emul") == 0) {
		p->emul = 1;
		ret = hpk_open_emul(&p->k, NSTREAMS, CAP_PKTS, CAP_BYTES, p->info, sizeof(p->info));
		if (ret < 0)
			snprintf(err, errlen, "device cuda:emul: out of memory");
	} else {
		char tail;

		if (arg != NULL && (sscanf(arg, "%d%c", &gpu, &tail) != 1 || gpu < 0)) {
			snprintf(err, errlen, "cuda:%s: expected a GPU index or 'emul'", arg);
			free(p);
			return -EINVAL;
		}
		ret = hpk_open(&p->k, gpu, NSTREAMS, CAP_PKTS, CAP_BYTES, p->info,
			       sizeof(p->info), err, errlen);
		if (ret < 0) {
			char why[256];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "device cuda: no usable GPU %d (%s)", gpu, why);
			ret = -ENODEV;
		}
	}
	if (ret < 0)
		goto fail;
	p->keys = calloc(KEY_CACHE, sizeof(*p->keys));
	for (s = 0; s < NSTREAMS; s++) {
		p->o[s] = calloc(CAP_PKTS, sizeof(*p->o[s]));
		p->state[s] = calloc(CAP_PKTS, 1);
		if (p->o[s] == NULL || p->state[s] == NULL)
			ret = -ENOMEM;
	}
	if (p->keys == NULL || ret < 0) {
		snprintf(err, errlen, "device cuda: out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	ret = upload_tables(dev, p, err, errlen);
	if (ret < 0)
		goto fail;
	/* The pools that exist now (the pipeline's mbufs are made before
	 * its devices): a task that can be read in place is then gathered
	 * by the GPU from the mbuf, not copied into the staging. */
	if (!p->staged)
		rte_mempool_walk(reg_pool, &(struct reg_walk){ .p = p });
	/* Until measured: 30 us per batch, 0.01 ns/byte (PCIe-class). */
	p->fixed_cyc = 30e-6 * (double)dev->env->hz;
	p->per_byte_cyc = 0.01e-9 * (double)dev->env->hz;
	hp_accel_set_priv(dev, p);
	snprintf(dev->name, sizeof(dev->name), p->emul ? "cuda-emul" : "cuda%d", gpu);
	dev->caps = (struct hp_dev_caps){
		.max_batch_pkts = CAP_PKTS,
		.max_batch_bytes = CAP_BYTES / 2,
		.min_batch_pkts = 1,
		.copy_engines = hpk_copy_engines(p->k),
		.streams = NSTREAMS,
		.modeled = false,
	};
	snprintf(dev->caps.mem_kind, sizeof(dev->caps.mem_kind), "%s",
		 p->emul ? "host (emulated)" : "pinned+device");
	return 0;
fail:
	priv_free(p);
	return ret;
}

static void
cuda_close(struct hp_device *dev)
{
	struct cuda_priv *p = hp_accel_priv(dev);

	if (p == NULL)
		return;
	priv_free(p);
	hp_accel_set_priv(dev, NULL);
}

/* The batch's key-table slot of key, expanding it once per distinct key
 * (FIPS-197 schedule; ~150 ns) and uploading it once per batch. */
static uint32_t
key_slot(struct cuda_priv *p, struct hpk_batch *b, const struct hpk_kernel *kn,
	 const uint8_t key[16])
{
	uint64_t h;
	struct keyent *e;

	memcpy(&h, key, 8);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	e = &p->keys[(h >> 32) & (KEY_CACHE - 1)];
	if (!e->valid || e->by != kn || memcmp(e->key, key, 16) != 0) {
		memcpy(e->key, key, 16);
		hpk_key_expand(kn, key, e->rk);
		e->by = kn;
		e->valid = 1;
		e->stamp = 0;
	}
	if (e->stamp != p->stamp) {
		e->stamp = p->stamp;
		e->slot = b->n_keys++;
		memcpy(b->rk + HPK_KEY_WORDS * e->slot, e->rk, sizeof(e->rk));
	}
	return e->slot;
}

/* Stage k's packets that the GPU committed in place (dst): their mark,
 * the step, moved past k behind the result, and done does the rest
 * (out NULL). After a completed stage that is all of them; after a
 * failure those whose mark landed, and the CPU redoes the others from
 * their step. Returns the packets in place whose mark is missing. */
static uint32_t
finish_in_place(struct hp_device *dev, struct cuda_priv *p, unsigned int s,
		struct hp_batch_job *job, unsigned int k)
{
	struct hp_task_ctx *tc = &dev->ctx[k];
	const struct hpk_batch *b = hpk_host(p->k, s);
	/* a kernel that changed the data summed what it wrote */
	const bool sums = hpk_kernel_out_bytes(p->kern[k]) == UINT32_MAX;
	uint32_t i, missing = 0;

	if (b->n_dst == 0)
		return 0;
	for (i = 0; i < job->n; i++) {
		if (p->state[s][i] != 0 || b->dst[i] == 0)
			continue;
		if (hp_meta(job->pkts[i])->step != k + 1) {
			missing++;
			continue;
		}
		p->state[s][i] = 1; /* finished: nothing more for this stage */
		p->o[s][i].out_sum = sums ? (uint16_t)b->sum[i] : 0;
		tc->ops->offload_done(tc, job->pkts[i], &p->o[s][i], NULL);
	}
	return missing;
}

static inline uint32_t
be32_at(const uint8_t *x)
{
	return ((uint32_t)x[0] << 24) | ((uint32_t)x[1] << 16) | ((uint32_t)x[2] << 8) | x[3];
}

/* Puts stage k's results into the packets and moves their step past k:
 * done for those committed in place, the copy from the staging for the
 * others. -EIO when a packet committed in place has no mark (the stream
 * completed without its result: the device failed). Cost note: this is
 * the lcore's commit, timed into commit_cycles (summary.json's
 * commit_cycles_per_pkt; bench/gpu_host). */
static int
stage_finish(struct hp_device *dev, struct cuda_priv *p, unsigned int s,
	     struct hp_batch_job *job, unsigned int k)
{
	struct hp_task_ctx *tc = &dev->ctx[k];
	uint64_t t0 = rte_rdtsc();
	uint32_t i;

	if (finish_in_place(dev, p, s, job, k) != 0) {
		HP_LOG(ERR, "cuda: stage %u completed without every in-place result", k);
		return -EIO;
	}
	for (i = 0; i < job->n; i++) {
		struct hp_meta *md = hp_meta(job->pkts[i]);

		if (md->step > k)
			continue;
		md->step = (uint8_t)(k + 1);
		if (p->state[s][i] != 0)
			continue;
		tc->ops->offload_done(tc, job->pkts[i], &p->o[s][i],
				      hpk_result(p->k, s, p->kern[k], i));
	}
	dev->st.commit_cycles += rte_rdtsc() - t0;
	dev->st.commit_pkts += job->n;
	return 0;
}

/* The driver calls so far into the device's counters (the summary's
 * driver_calls and driver_polls: calls per batch; gathered_packets: read
 * in place from the mbufs). */
static void
calls_to_stats(struct hp_device *dev, const struct cuda_priv *p)
{
	struct hpk_calls c;

	hpk_calls(p->k, &c);
	dev->st.driver_calls = c.launch;
	dev->st.driver_polls = c.poll;
	dev->st.gathered_pkts = c.gathered;
	dev->st.scattered_pkts = c.scattered;
}

/* Lays out and launches task k for the job's packets that have not run
 * it yet (step <= k). 1: some went to the GPU; 0: none needed it;
 * -errno: a CUDA error. */
static int
stage_launch(struct hp_device *dev, struct cuda_priv *p, unsigned int s,
	     struct hp_batch_job *job, unsigned int k)
{
	struct hp_task_ctx *tc = &dev->ctx[k];
	const struct hpk_kernel *kn = p->kern[k];
	struct hpk_batch *b = hpk_begin(p->k, s, job->n);
	struct hp_offload *o = p->o[s];
	int8_t *st = p->state[s];
	/* bytes of the kernel's output a packet that a scatter writes in
	 * place (0: results by copy) */
	const uint32_t ob = p->staged ? 0 : hpk_kernel_out_bytes(kn);
	uint32_t i, off = 0, count = 0, on_gpu = 0;
	uint64_t t0 = rte_rdtsc();
	char err[256];
	int ret;

	p->stamp++;
	b->mark_val = k + 1;
	for (i = 0; i < job->n; i++) {
		struct rte_mbuf *m = job->pkts[i];
		const uint8_t *obj = (const uint8_t *)m;
		const uint8_t *end = (const uint8_t *)m->buf_addr + m->buf_len;
		uint32_t len = 0, items, bytes;
		uint64_t at = 0;
		/* in place: the GPU gathers the bytes from the mbuf and writes
		 * the result back into it. One look-up covers the whole
		 * object (header, metadata, data region): a mempool chunk
		 * holds whole objects. */
		bool zc = tc->ops->offload_in_place &&
			  hpk_mem_find(p->k, obj, (size_t)(end - obj), &at);

		o[i].src = NULL;
		o[i].dst = NULL;
		ret = hp_meta(m)->step > k ? 1 :
		      tc->ops->offload_prep(tc, m, &o[i], zc ? NULL : b->data + off,
					    CAP_BYTES - off);
		if (ret == 0 && zc && o[i].src == NULL) {
			HP_LOG(ERR, "cuda: task %s's prep gave no source for in-place reading",
			       tc->ops->name);
			return -EINVAL;
		}
		st[i] = (int8_t)(ret > 0 ? 1 : ret < 0 ? -1 : 0);
		b->src[i] = 0;
		b->dst[i] = 0;
		if (ret == 0) {
			len = o[i].in_len;
			on_gpu++;
			if (zc) {
				const uint8_t *d = o[i].dst;
				uint32_t dl = ob == UINT32_MAX ? len : ob;

				b->src[i] = at + (uint64_t)(o[i].src - obj);
				b->n_src++;
				/* the result in place too, when the task says where
				 * (inside the object), then the step as the mark */
				if (ob != 0 && d != NULL && d >= obj && d + dl <= end) {
					b->dst[i] = at + (uint64_t)(d - obj);
					b->mark[i] = at + (uint64_t)(&hp_meta(m)->step - obj);
					b->n_dst++;
				}
			} else {
				b->n_staged++;
			}
			if (hpk_kernel_keyed(kn)) {
				b->key_idx[i] = key_slot(p, b, kn, o[i].key);
				b->ctr[4 * i] = be32_at(o[i].iv);
				b->ctr[4 * i + 1] = be32_at(o[i].iv + 4);
				b->ctr[4 * i + 2] = be32_at(o[i].iv + 8);
				b->ctr[4 * i + 3] = be32_at(o[i].iv + 12);
			}
		}
		b->off[i] = off;
		b->len[i] = len;
		b->blk[i] = count;
		/* the kernel says what a packet adds: its work items (16-byte
		 * blocks, LDPC units) and its staging bytes */
		hpk_span(p->k, kn, len, &items, &bytes);
		count += items;
		off += bytes;
	}
	b->blk[job->n] = count;
	b->data_bytes = off;
	/* the lcore's own per-packet work: prep, descriptors or copies */
	dev->st.prep_cycles += rte_rdtsc() - t0;
	dev->st.prep_pkts += job->n;
	p->stage[s] = k;
	if (on_gpu == 0)
		return 0;
	ret = hpk_launch(p->k, s, kn, err, sizeof(err));
	calls_to_stats(dev, p);
	if (ret < 0) {
		HP_LOG(ERR, "cuda: %s", err);
		/* what the GPU committed before it failed is finished here;
		 * the device layer hands the rest to the CPU at its step */
		finish_in_place(dev, p, s, job, k);
		return ret;
	}
	return 1;
}

/* Runs the chain from task k on: launches the first stage some packet
 * needs on the GPU (returns 1), or finishes them all at once (0). */
static int
stages_from(struct hp_device *dev, struct cuda_priv *p, unsigned int s,
	    struct hp_batch_job *job, unsigned int k)
{
	for (; k < dev->n_tasks; k++) {
		int r = stage_launch(dev, p, s, job, k);

		if (r != 0)
			return r;
		r = stage_finish(dev, p, s, job, k);
		if (r < 0)
			return r;
	}
	p->stage[s] = dev->n_tasks;
	return 0;
}

static int
cuda_submit(struct hp_device *dev, struct hp_batch_job *job)
{
	struct cuda_priv *p = hp_accel_priv(dev);
	unsigned int s = (p->head + p->n) % NSTREAMS, k = dev->n_tasks;
	uint32_t i;
	int ret;

	if (p->n == NSTREAMS)
		return -EBUSY;
	for (i = 0; i < job->n; i++)
		k = RTE_MIN(k, (unsigned int)hp_meta(job->pkts[i])->step);
	ret = stages_from(dev, p, s, job, k);
	if (ret < 0)
		return ret;
	job->slot = (int)s;
	p->q[s] = job;
	p->n++;
	return 0;
}

static struct hp_batch_job *
cuda_poll(struct hp_device *dev, int *errp)
{
	struct cuda_priv *p = hp_accel_priv(dev);
	struct hp_batch_job *job;
	unsigned int s;
	char err[256];
	int r;

	*errp = 0;
	if (p->n == 0)
		return NULL;
	job = p->q[p->head];
	s = (unsigned int)job->slot;
	if (p->stage[s] < dev->n_tasks) {
		r = hpk_query(p->k, s, err, sizeof(err));
		calls_to_stats(dev, p);
		if (r < 0) {
			HP_LOG(ERR, "cuda: %s", err);
			*errp = r;
			return NULL;
		}
		if (r == 0)
			return NULL;
		r = stage_finish(dev, p, s, job, p->stage[s]);
		if (r < 0) {
			*errp = r;
			return NULL;
		}
		/* the chain's next task, on the same stream */
		r = stages_from(dev, p, s, job, p->stage[s] + 1);
		if (r != 0) {
			*errp = r < 0 ? r : 0;
			return NULL;
		}
	}
	{
		/* learn the service time: EWMA over batches, split into a
		 * per-batch and a per-byte part with a 1/16 weight */
		double t = (double)(rte_rdtsc() - job->t_submit);
		double per = job->bytes ? (t - p->fixed_cyc) / job->bytes : 0;

		if (per > 0)
			p->per_byte_cyc += (per - p->per_byte_cyc) / 16;
		if (job->n < 8)
			p->fixed_cyc += (t - p->fixed_cyc) / 16;
	}
	p->head = (p->head + 1) % NSTREAMS;
	p->n--;
	return job;
}

static unsigned int
cuda_inflight(const struct hp_device *dev)
{
	const struct cuda_priv *p = hp_accel_priv(dev);

	return p->n;
}

static struct hp_batch_job *
cuda_reclaim(struct hp_device *dev)
{
	struct cuda_priv *p = hp_accel_priv(dev);
	struct hp_batch_job *job;

	if (p->n == 0)
		return NULL;
	job = p->q[p->head];
	/* the packets whose in-place result landed are finished, not redone */
	if (p->stage[job->slot] < dev->n_tasks)
		finish_in_place(dev, p, (unsigned int)job->slot, job, p->stage[job->slot]);
	p->head = (p->head + 1) % NSTREAMS;
	p->n--;
	return job;
}

static uint64_t
cuda_predict(const struct hp_device *dev, unsigned int task, uint32_t n, uint32_t bytes)
{
	const struct cuda_priv *p = hp_accel_priv(dev);

	RTE_SET_USED(task);
	RTE_SET_USED(n);
	return (uint64_t)(p->fixed_cyc + p->per_byte_cyc * bytes);
}

static void
cuda_describe(const struct hp_device *dev, char *buf, size_t len)
{
	const struct cuda_priv *p = hp_accel_priv(dev);

	snprintf(buf, len,
		 "%s: %s; %d streams, %u MiB staging per stream, %u mbuf memory chunk(s) registered for in-place reads%s",
		 dev->name, p->info, NSTREAMS, CAP_BYTES >> 20, p->mem_chunks,
		 p->emul ? " (emulated: no GPU)" : "");
}

static const struct hp_accel_ops accel_cuda_ops = {
	.name = "cuda",
	.usage = "cuda[:N|:emul][:staged]",
	.desc = "CUDA GPU: pinned staging, one packed upload per batch, streams, polled completion (plugin); cuda:emul runs the kernels' code on the CPU",
	.supports = cuda_supports,
	.open = cuda_open,
	.close = cuda_close,
	.submit = cuda_submit,
	.poll = cuda_poll,
	.inflight = cuda_inflight,
	.reclaim = cuda_reclaim,
	.predict = cuda_predict,
	.describe = cuda_describe,
};

HP_ACCEL_REGISTER(accel_cuda_ops);
