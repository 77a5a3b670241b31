/* SPDX-License-Identifier: BSD-3-Clause
 * The `cuda` accelerator backend, built as a plugin (libhp_cuda.so) that
 * hplane loads at run time, so the core builds and runs without CUDA.
 *
 * It runs any one-task app whose task offers an offload (hp_task.h):
 * aes_ctr (crypto), aes_cbc (vpn), md5 (dedup), dpi / dpi_ac (ids,
 * ids_ac). Per batch: the task's offload_prep writes each packet's kernel
 * input into the pinned staging of a free stream and gives key and IV;
 * the plugin expands keys once per distinct key, launches H2D + kernel +
 * D2H on that stream (hp_cuda_kern.cu) and later polls the stream's event
 * without blocking; on completion the task's offload_done puts the result
 * into each packet. prep never changes a packet, so a batch that fails on
 * the GPU is redone from scratch by the CPU task, nothing twice.
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

#include "hp_common.h"
#include "hp_cuda_kern.h"
#include "hp_device.h"
#ifdef HP_HAVE_NF
#include "hp_nf.h"
#endif

#define NSTREAMS 4
#define CAP_PKTS HP_BATCH_MAX
#define CAP_BYTES (HP_BATCH_MAX * 2064u) /* any mbuf's data region, padded */
#define KEY_CACHE 4096                   /* expanded keys; direct mapped */

struct keyent {
	uint8_t key[16];
	uint32_t rk[44];
	uint32_t stamp;      /* batch that last gave it a slot */
	uint32_t slot;       /* its index in that batch's key table */
	int valid;
};

struct cuda_priv {
	struct hpk_ctx *k;
	enum hpk_op op;
	int emul;
	char info[256];
	struct hp_batch_job *q[NSTREAMS]; /* in flight, by stream */
	unsigned int head, n;             /* FIFO over streams */
	struct hp_offload *o[NSTREAMS];   /* per packet kernel arguments */
	int8_t *state[NSTREAMS];          /* 0 on the GPU, 1 nothing to do, <0 error */
	struct keyent *keys;
	uint32_t stamp;
	/* service model learned online (cycles) */
	double fixed_cyc, per_byte_cyc;
};

static enum hpk_op
kernel_of(enum hp_offload_kind k)
{
	switch (k) {
	case HP_OFFLOAD_AES_CTR: return HPK_AES_CTR;
	case HP_OFFLOAD_AES_CBC: return HPK_AES_CBC;
	case HP_OFFLOAD_MD5: return HPK_MD5;
	case HP_OFFLOAD_DFA: return HPK_DFA;
	default: return (enum hpk_op)0;
	}
}

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

static int
upload_tables(struct hp_device *dev, struct cuda_priv *p, char *err, size_t errlen)
{
	const struct hp_task_ops *t = dev->ctx[0].ops;

	if (p->op != HPK_DFA)
		return 0;
#ifdef HP_HAVE_NF
	{
		const struct hp_nf_ac_dfa *d = t->offload_data ? t->offload_data(&dev->ctx[0]) : NULL;
		struct hpk_dfa kd;

		if (d == NULL) {
			snprintf(err, errlen, "device cuda: task %s has no DFA to upload", t->name);
			return -EINVAL;
		}
		kd = (struct hpk_dfa){ .n_states = d->n_states, .tab_len = d->tab_len, .st = d->st,
				       .tab = d->tab, .out_count = d->out_count,
				       .out_first = d->out_first };
		return hpk_dfa_upload(p->k, &kd, err, errlen);
	}
#else
	snprintf(err, errlen, "device cuda: built without lib/nf, no DFA kernel tables");
	return -ENOTSUP;
#endif
}

static int
cuda_open(struct hp_device *dev, const char *arg, char *err, size_t errlen)
{
	const struct hp_task_ops *t = dev->ctx[0].ops;
	struct cuda_priv *p;
	unsigned int s;
	int gpu = 0, ret;

	if (dev->n_tasks != 1 || t->offload == HP_OFFLOAD_NONE || t->offload_prep == NULL ||
	    t->offload_done == NULL || kernel_of(t->offload) == 0) {
		snprintf(err, errlen,
			 "device cuda runs one-task apps whose task has a GPU kernel (crypto, vpn, dedup, ids, ids_ac); app %s is not one",
			 dev->env->app->name);
		return -ENOTSUP;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->op = kernel_of(t->offload);
	if (arg != NULL && strcmp(arg, "emul") == 0) {
		p->emul = 1;
		ret = hpk_open_emul(&p->k, NSTREAMS, CAP_PKTS, CAP_BYTES, p->info, sizeof(p->info));
		if (ret < 0)
			snprintf(err, errlen, "device cuda:emul: out of memory");
	} else {
		if (arg != NULL && (sscanf(arg, "%d", &gpu) != 1 || gpu < 0)) {
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
	/* Until measured: 30 us per batch, 0.01 ns/byte (PCIe-class). */
	p->fixed_cyc = 30e-6 * (double)dev->env->hz;
	p->per_byte_cyc = 0.01e-9 * (double)dev->env->hz;
	dev->accel->priv = p;
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
	struct cuda_priv *p = dev->accel->priv;

	if (p == NULL)
		return;
	priv_free(p);
	dev->accel->priv = NULL;
}

/* The batch's key-table slot of key, expanding it once per distinct key
 * (FIPS-197 schedule; ~150 ns) and uploading it once per batch. */
static uint32_t
key_slot(struct cuda_priv *p, struct hpk_batch *b, const uint8_t key[16])
{
	uint64_t h;
	struct keyent *e;

	memcpy(&h, key, 8);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	e = &p->keys[(h >> 32) & (KEY_CACHE - 1)];
	if (!e->valid || memcmp(e->key, key, 16) != 0) {
		memcpy(e->key, key, 16);
		hpk_aes128_expand(key, e->rk);
		e->valid = 1;
		e->stamp = 0;
	}
	if (e->stamp != p->stamp) {
		e->stamp = p->stamp;
		e->slot = b->n_keys++;
		memcpy(b->rk + 44 * e->slot, e->rk, sizeof(e->rk));
	}
	return e->slot;
}

static inline uint32_t
be32_at(const uint8_t *x)
{
	return ((uint32_t)x[0] << 24) | ((uint32_t)x[1] << 16) | ((uint32_t)x[2] << 8) | x[3];
}

static int
cuda_submit(struct hp_device *dev, struct hp_batch_job *job)
{
	struct cuda_priv *p = dev->accel->priv;
	struct hp_task_ctx *tc = &dev->ctx[0];
	unsigned int s = (p->head + p->n) % NSTREAMS;
	struct hp_offload *o;
	struct hpk_batch *b;
	uint32_t i, off = 0, blocks = 0, on_gpu = 0;
	int8_t *st;
	char err[256];
	int ret;

	if (p->n == NSTREAMS)
		return -EBUSY;
	b = hpk_host(p->k, s);
	o = p->o[s];
	st = p->state[s];
	p->stamp++;
	b->n_keys = 0;
	for (i = 0; i < job->n; i++) {
		uint32_t len = 0;

		ret = tc->ops->offload_prep(tc, job->pkts[i], &o[i], b->data + off,
					    CAP_BYTES - off);
		st[i] = (int8_t)(ret > 0 ? 1 : ret < 0 ? -1 : 0);
		if (ret == 0) {
			len = o[i].in_len;
			on_gpu++;
			if (p->op == HPK_AES_CTR || p->op == HPK_AES_CBC) {
				b->key_idx[i] = key_slot(p, b, o[i].key);
				b->ctr[4 * i] = be32_at(o[i].iv);
				b->ctr[4 * i + 1] = be32_at(o[i].iv + 4);
				b->ctr[4 * i + 2] = be32_at(o[i].iv + 8);
				b->ctr[4 * i + 3] = be32_at(o[i].iv + 12);
			}
		}
		b->off[i] = off;
		b->len[i] = len;
		b->blk[i] = blocks;
		blocks += (len + 15) / 16;
		off += 16 * ((len + 15) / 16);
	}
	b->blk[job->n] = blocks;
	b->n = job->n;
	b->data_bytes = off;
	if (on_gpu > 0) {
		ret = hpk_launch(p->k, s, p->op, err, sizeof(err));
		if (ret < 0) {
			HP_LOG(ERR, "cuda: %s", err);
			return ret;
		}
	}
	job->slot = (int)s;
	p->q[s] = job;
	p->n++;
	return 0;
}

static struct hp_batch_job *
cuda_poll(struct hp_device *dev, int *errp)
{
	struct cuda_priv *p = dev->accel->priv;
	struct hp_task_ctx *tc = &dev->ctx[0];
	struct hp_batch_job *job;
	struct hpk_batch *b;
	unsigned int s;
	char err[256];
	uint32_t i;
	int r;

	*errp = 0;
	if (p->n == 0)
		return NULL;
	job = p->q[p->head];
	s = (unsigned int)job->slot;
	b = hpk_host(p->k, s);
	r = hpk_query(p->k, s, err, sizeof(err));
	if (r < 0) {
		HP_LOG(ERR, "cuda: %s", err);
		*errp = r;
		return NULL;
	}
	if (r == 0)
		return NULL;
	for (i = 0; i < job->n; i++) {
		const uint8_t *out;

		if (p->state[s][i] != 0)
			continue;
		out = p->op == HPK_MD5 ? b->digest + 16 * i :
		      p->op == HPK_DFA ? (const uint8_t *)(b->match + 2 * i) :
		      b->data + b->off[i];
		tc->ops->offload_done(tc, job->pkts[i], &p->o[s][i], out);
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
	const struct cuda_priv *p = dev->accel->priv;

	return p->n;
}

static struct hp_batch_job *
cuda_reclaim(struct hp_device *dev)
{
	struct cuda_priv *p = dev->accel->priv;
	struct hp_batch_job *job;

	if (p->n == 0)
		return NULL;
	job = p->q[p->head];
	p->head = (p->head + 1) % NSTREAMS;
	p->n--;
	return job;
}

static uint64_t
cuda_predict(const struct hp_device *dev, unsigned int task, uint32_t n, uint32_t bytes)
{
	const struct cuda_priv *p = dev->accel->priv;

	RTE_SET_USED(task);
	RTE_SET_USED(n);
	return (uint64_t)(p->fixed_cyc + p->per_byte_cyc * bytes);
}

static void
cuda_describe(const struct hp_device *dev, char *buf, size_t len)
{
	const struct cuda_priv *p = dev->accel->priv;

	snprintf(buf, len, "%s: %s; %d streams, %u MiB staging per stream%s", dev->name,
		 p->info, NSTREAMS, CAP_BYTES >> 20, p->emul ? " (emulated: no GPU)" : "");
}

static const struct hp_accel_ops accel_cuda_ops = {
	.name = "cuda",
	.desc = "CUDA GPU: pinned staging, streams, event polling (plugin); cuda:emul runs the kernels' code on the CPU",
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
