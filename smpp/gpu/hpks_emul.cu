/* SPDX-License-Identifier: BSD-3-Clause
 * The SMPP GPU backend's host emulation (hpks_priv.h): the kernels'
 * per-thread code (hpks_thread.cuh) run on the calling CPU, block by block
 * and thread by thread with the kernels' numbering, so the whole backend
 * runs and is byte-checked on machines without a GPU. Host code only:
 * nvcc's device pass sees nothing of this file.
 *
 * Cost note: the emulation runs either mode end to end at ~3 M thesis-mix
 * PDUs/s (100k-PDU element batch, best of 3, bench_smpp_gpu --emul on the
 * shared 2-vCPU VM): a correctness harness, not a speed.
 */
#ifndef __CUDA_ARCH__
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpks_thread.cuh"

/* The decode kernel's block: its threads' decoding into their slots, then
 * each warp's lanes storing the records, as k_decode_kernel orders them. */
void
hpks_emu_decode(const struct hpks_dargs *a, uint32_t grid, uint32_t nb, uint8_t *smem)
{
	uint32_t ntiles = (a->np + nb - 1) / nb, *stage = k_stage_of(smem, nb);

	for (uint32_t blk = 0; blk < grid; blk++) {
		for (uint32_t tile = blk; tile < ntiles; tile += grid) {
			uint32_t i0, i1, nw;
			uint64_t w0;
			int staged = k_tile(a, tile, nb, &i0, &i1, &w0, &nw);

			for (uint32_t tid = 0; staged && tid < nb; tid++)
				k_stage_thread(a, stage, w0, nw, tid, nb);
			for (uint32_t tid = 0; tid < nb && i0 + tid < i1; tid++)
				k_decode_thread(a, stage, staged, w0, i0 + tid,
						(struct smpp_pdu *)(smem + (tid / 32) * HPKS_REC_WARP +
								    (tid % 32) * HPKS_REC_SLOT));
			for (uint32_t wi0 = i0; wi0 < i1; wi0 += 32) {
				uint32_t n = i1 - wi0 < 32 ? i1 - wi0 : 32;

				for (uint32_t lane = 0; lane < 32; lane++)
					k_rec_store_lane(smem + (wi0 - i0) / 32 * HPKS_REC_WARP,
							 a->rec + wi0, n, lane);
			}
		}
	}
}

static void
emu_mark(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
	 uint32_t nchunks, uint64_t csz, uint64_t *sig, uint64_t *ex, uint32_t *cnt)
{
	for (uint32_t blk = 0; blk < grid; blk++)
		for (uint32_t tid = 0; tid < nb; tid++)
			k_mark_thread(c, in, blk * nb + tid, nchunks, csz, sig, ex, cnt);
}

static int
emu_resolve(const struct hpks_fcfg *c, const uint8_t *in, uint32_t nchunks, uint64_t csz,
	    const uint64_t *sig, const uint64_t *ex, const uint32_t *cnt, uint64_t *start,
	    uint64_t *base, uint64_t *total)
{
	uint64_t *m[2], *s[2], carry_m = 0, carry_s = 0;
	int bad = 0;

	m[0] = (uint64_t *)malloc(4 * RES_B * sizeof(uint64_t));
	if (m[0] == NULL)
		return -ENOMEM;
	m[1] = m[0] + RES_B;
	s[0] = m[1] + RES_B;
	s[1] = s[0] + RES_B;
	for (uint32_t t0 = 0; t0 < nchunks; t0 += RES_B) {
		int cur = 0;

		for (uint32_t tid = 0; tid < RES_B; tid++)
			k_res_load(t0 + tid, nchunks, sig, ex, cnt, &m[0][tid], &s[0][tid]);
		for (uint32_t d = 1; d < RES_B; d <<= 1) {
			for (uint32_t tid = 0; tid < RES_B; tid++)
				k_res_step(m[cur], s[cur], m[cur ^ 1], s[cur ^ 1], tid, d);
			cur ^= 1;
		}
		for (uint32_t tid = 0; tid < RES_B; tid++)
			if (!k_res_check(c, t0 + tid, nchunks, csz, sig, carry_m, carry_s, m[cur],
					 s[cur], tid, start, base))
				bad = 1;
		carry_m = carry_m > m[cur][RES_B - 1] ? carry_m : m[cur][RES_B - 1];
		carry_s += s[cur][RES_B - 1];
	}
	*total = bad ? k_resolve_seq(c, in, nchunks, csz, sig, ex, cnt, start, base) : carry_s;
	free(m[0]);
	return 0;
}

int
hpks_emu_mark_resolve(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
		      uint32_t nchunks, uint64_t csz, uint64_t *chunk, uint64_t *total)
{
	struct hpks_chunks k = hpks_chunks_of(chunk, nchunks);

	emu_mark(c, in, grid, nb, nchunks, csz, k.sig, k.ex, k.cnt);
	return emu_resolve(c, in, nchunks, csz, k.sig, k.ex, k.cnt, k.start, k.base, total);
}

void
hpks_emu_emit(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
	      uint32_t nchunks, uint64_t csz, const uint64_t *chunk, struct hpks_frame *fr)
{
	struct hpks_chunks k = hpks_chunks_of((uint64_t *)chunk, nchunks);

	for (uint32_t blk = 0; blk < grid; blk++)
		for (uint32_t tid = 0; tid < nb; tid++)
			k_emit_thread(c, in, blk * nb + tid, nchunks, csz, k.start, k.base, fr);
}

extern "C" int
smpp_gpu_emul_decode_pdu(const uint8_t *pdu, uint32_t len, unsigned flags, uint64_t base,
			 struct smpp_pdu *o)
{
	struct smpp_dec_tab t;
	int rc = hpks_tab_ready();

	if (rc < 0)
		return rc;
	t = k_tab();
	rc = smpp_dec_pdu(pdu, len, flags, base, o, &t, NULL, NULL);
	o->desc = o->desc ? &smpp_pdu_tab[o->desc - t.pdu] : NULL;
	return rc;
}

#endif /* !__CUDA_ARCH__ */
