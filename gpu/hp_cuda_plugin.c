/* SPDX-License-Identifier: BSD-3-Clause
 * The `cuda` accelerator backend, built as a plugin (libhp_cuda.so) that
 * hplane loads at run time, so the core builds and runs without CUDA. It
 * gathers a batch's data regions into the pinned staging buffer of a free
 * stream, launches it asynchronously (hp_cuda_kern.cu), polls the stream's
 * event without blocking, and scatters results back: AES-CTR payloads, MD5
 * digests (never the MD5 payload). Results reach the mbufs only when a
 * batch completes, so a failed batch can be redone on the CPU untouched.
 *
 * Tasks: aes_ctr (app crypto) and md5 (app dedup), one-task chains.
 * Packets the CPU task would refuse or cannot be keyed the same way
 * (foreign packets without an hp header) run through the CPU task when
 * the batch completes, so both paths give byte-identical results.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "hp_common.h"
#include "hp_cuda_kern.h"
#include "hp_device.h"

#define NSTREAMS 4
#define CAP_PKTS HP_BATCH_MAX
#define CAP_BYTES (HP_BATCH_MAX * 1600u)
#define KEY_CACHE 4096 /* flows; direct mapped */

struct flowkey {
	uint64_t flow_id;
	uint32_t stamp;      /* batch that last gave it a key slot */
	uint32_t slot;       /* its index in that batch's key table */
	int valid;
	uint32_t rk[44];
	uint8_t nonce[8];
};

struct cuda_priv {
	struct hpk_ctx *k;
	enum hpk_op op;
	char info[256];
	struct hp_batch_job *q[NSTREAMS]; /* in flight, by stream */
	unsigned int head, n;             /* FIFO over streams */
	EVP_CIPHER_CTX *master;
	struct flowkey *keys;
	uint32_t stamp;
	/* service model learned online: EWMA of cycles per batch and per byte */
	double fixed_cyc, per_byte_cyc;
};

static int
cuda_open(struct hp_device *dev, const char *arg, char *err, size_t errlen)
{
	struct cuda_priv *p;
	const char *task = dev->ctx[0].ops->name;
	int gpu = 0, ret;

	if (dev->n_tasks != 1 || (strcmp(task, "aes_ctr") != 0 && strcmp(task, "md5") != 0)) {
		snprintf(err, errlen,
			 "device cuda implements one-task chains of aes_ctr (app crypto) or md5 (app dedup); app %s is not one",
			 dev->env->app->name);
		return -ENOTSUP;
	}
	if (arg != NULL && (sscanf(arg, "%d", &gpu) != 1 || gpu < 0)) {
		snprintf(err, errlen, "cuda:%s: expected a GPU index", arg);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->op = strcmp(task, "aes_ctr") == 0 ? HPK_AES_CTR : HPK_MD5;
	ret = hpk_open(&p->k, gpu, NSTREAMS, CAP_PKTS, CAP_BYTES, p->info, sizeof(p->info),
		       err, errlen);
	if (ret < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "device cuda: no usable GPU %d (%s)", gpu, why);
		ret = -ENODEV;
		goto fail;
	}
	if (p->op == HPK_AES_CTR) {
		p->keys = calloc(KEY_CACHE, sizeof(*p->keys));
		p->master = EVP_CIPHER_CTX_new();
		if (p->keys == NULL || p->master == NULL ||
		    EVP_EncryptInit_ex(p->master, EVP_aes_128_ecb(), NULL,
				       dev->env->task_cfg->key, NULL) != 1) {
			snprintf(err, errlen, "cuda: OpenSSL set-up failed");
			ret = -ENOMEM;
			goto fail;
		}
		EVP_CIPHER_CTX_set_padding(p->master, 0);
	}
	/* Until measured: 30 us per batch, 0.01 ns/byte (PCIe-class). */
	p->fixed_cyc = 30e-6 * (double)dev->env->hz;
	p->per_byte_cyc = 0.01e-9 * (double)dev->env->hz;
	dev->accel->priv = p;
	snprintf(dev->name, sizeof(dev->name), "cuda%d", gpu);
	dev->caps = (struct hp_dev_caps){
		.max_batch_pkts = CAP_PKTS,
		.max_batch_bytes = CAP_BYTES,
		.min_batch_pkts = 1,
		.copy_engines = hpk_copy_engines(p->k),
		.streams = NSTREAMS,
		.modeled = false,
		.mem_kind = "pinned+device",
	};
	return 0;
fail:
	hpk_close(p->k);
	EVP_CIPHER_CTX_free(p->master);
	free(p->keys);
	free(p);
	return ret;
}

static void
cuda_close(struct hp_device *dev)
{
	struct cuda_priv *p = dev->accel->priv;

	if (p == NULL)
		return;
	hpk_close(p->k);
	EVP_CIPHER_CTX_free(p->master);
	free(p->keys);
	free(p);
	dev->accel->priv = NULL;
}

/* The flow's key schedule and nonce, derived exactly as the aes_ctr task
 * does (docs/packet-format.md); NULL if the headers cannot be re-read. */
static struct flowkey *
flow_key(struct cuda_priv *p, struct rte_mbuf *m, const struct hp_meta *md)
{
	struct flowkey *f = &p->keys[md->flow_id & (KEY_CACHE - 1)];
	struct hp_flow_key key;
	uint8_t blk[16], fkey[16], nb[16];
	uint16_t off, len;
	int outl;

	if (f->valid && f->flow_id == md->flow_id)
		return f;
	if (hp_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
		     &key, &off, &len) != HP_DROP_NONE)
		return NULL;
	hp_flow_block(&key, 0x01, blk);
	if (EVP_EncryptUpdate(p->master, fkey, &outl, blk, 16) != 1)
		return NULL;
	hp_flow_block(&key, 0x02, blk);
	if (EVP_EncryptUpdate(p->master, nb, &outl, blk, 16) != 1)
		return NULL;
	hpk_aes128_expand(fkey, f->rk);
	memcpy(f->nonce, nb, 8);
	f->flow_id = md->flow_id;
	f->stamp = 0;
	f->valid = 1;
	return f;
}

/* Packets the GPU path takes: what the CPU task would process normally. */
static bool
gpu_eligible(const struct cuda_priv *p, struct rte_mbuf *m)
{
	const struct hp_meta *md = hp_meta(m);

	if (md->status != HP_ST_OK || m->nb_segs != 1 ||
	    (uint32_t)md->data_off + md->data_len > rte_pktmbuf_data_len(m))
		return false;
	/* AES: only packets with the sender's sequence (hp header) are keyed
	 * on the GPU; the CPU task owns the rules for the others. */
	return p->op == HPK_MD5 || (md->flags & HP_MF_HPHDR);
}

static int
cuda_submit(struct hp_device *dev, struct hp_batch_job *job)
{
	struct cuda_priv *p = dev->accel->priv;
	unsigned int s = (p->head + p->n) % NSTREAMS;
	struct hpk_batch *b;
	uint32_t i, n = 0, lens[HP_BATCH_MAX];
	char err[256];
	int ret;

	if (p->n == NSTREAMS)
		return -EBUSY;
	b = hpk_host(p->k, s);
	for (i = 0; i < job->n; i++)
		lens[i] = gpu_eligible(p, job->pkts[i]) ? hp_meta(job->pkts[i])->data_len : 0;
	if (hpk_layout(b, lens, job->n, CAP_PKTS, CAP_BYTES) != 0)
		return -ENOSPC;
	p->stamp++;
	b->n_keys = 0;
	for (i = 0; i < job->n; i++) {
		struct rte_mbuf *m = job->pkts[i];
		struct hp_meta *md = hp_meta(m);

		if (lens[i] == 0)
			continue;
		memcpy(b->data + b->off[i], rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off),
		       lens[i]);
		n++;
		if (p->op == HPK_AES_CTR) {
			struct flowkey *f = flow_key(p, m, md);

			if (f == NULL) {
				md->status = HP_ST_TASK_ERR;
				md->task_err = EIO;
				b->len[i] = 0; /* the kernel leaves it; no scatter */
				continue;
			}
			if (f->stamp != p->stamp) {
				f->stamp = p->stamp;
				f->slot = b->n_keys++;
				memcpy(b->rk + 44 * f->slot, f->rk, sizeof(f->rk));
			}
			b->key_idx[i] = f->slot;
			b->ctr[4 * i] = ((uint32_t)f->nonce[0] << 24) | ((uint32_t)f->nonce[1] << 16) |
					((uint32_t)f->nonce[2] << 8) | f->nonce[3];
			b->ctr[4 * i + 1] = ((uint32_t)f->nonce[4] << 24) | ((uint32_t)f->nonce[5] << 16) |
					    ((uint32_t)f->nonce[6] << 8) | f->nonce[7];
			b->ctr[4 * i + 2] = md->hdr_seq;
			b->ctr[4 * i + 3] = 0;
		}
	}
	if (n > 0) {
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
	struct hp_batch_job *job;
	struct hpk_batch *b;
	struct rte_mbuf *cpu[HP_BURST];
	char err[256];
	uint32_t i, ncpu = 0;
	int r;

	*errp = 0;
	if (p->n == 0)
		return NULL;
	job = p->q[p->head];
	b = hpk_host(p->k, (unsigned int)job->slot);
	r = hpk_query(p->k, (unsigned int)job->slot, err, sizeof(err));
	if (r < 0) {
		HP_LOG(ERR, "cuda: %s", err);
		*errp = r;
		return NULL;
	}
	if (r == 0)
		return NULL;
	for (i = 0; i < job->n; i++) {
		struct rte_mbuf *m = job->pkts[i];
		struct hp_meta *md = hp_meta(m);

		if (b->len[i] == 0) {
			/* Not taken by the GPU: the CPU task, now that the
			 * batch completes (a failed batch is redone whole on
			 * the CPU, so nothing may be done before this). */
			if (md->status == HP_ST_OK) {
				cpu[ncpu++] = m;
				if (ncpu == HP_BURST) {
					dev->ctx[0].ops->process(&dev->ctx[0], cpu, (uint16_t)ncpu);
					ncpu = 0;
				}
			}
			continue;
		}
		if (p->op == HPK_AES_CTR)
			memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off),
			       b->data + b->off[i], b->len[i]);
		else
			memcpy(md->digest, b->digest + 16 * i, 16);
	}
	if (ncpu)
		dev->ctx[0].ops->process(&dev->ctx[0], cpu, (uint16_t)ncpu);
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

	snprintf(buf, len, "%s: %s; %d streams, %u MiB pinned staging per stream", dev->name,
		 p->info, NSTREAMS, CAP_BYTES >> 20);
}

static const struct hp_accel_ops accel_cuda_ops = {
	.name = "cuda",
	.desc = "CUDA GPU: pinned staging, streams, event polling (plugin)",
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
