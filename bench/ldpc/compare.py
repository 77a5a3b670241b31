#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""LDPC bench: hp-ldpc side by side with its peers, written to
bench/results/ldpc-<date>.md.
  1. FER/BER curves of hp-ldpc (int8 layered offset min-sum, 10 and 20
     iterations) against the `ldpc` package's float sum-product decoder
     (50 flooding iterations) on the same frames and noise, and the Eb/N0
     each needs for FER 1e-2.
  2. Throughput of the scalar, AVX2 and AVX-512 kernels in the same run
     (hp-ldpc bench --isa all), info bits per second on one core.
  3. The ran app's packet units (hp-ldpc units): make, decode, rebuild.
Usage: .venv/bin/python bench/ldpc/compare.py [--build build] [--frames N]
       [--quick] [--record]"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ldpc_ref as R  # noqa: E402


def fer_at(points, fers, target=1e-2):
    """Eb/N0 where the FER curve crosses target (log-linear), or None."""
    for (x0, f0), (x1, f1) in zip(zip(points, fers), zip(points[1:], fers[1:])):
        if f0 >= target >= f1 and f0 > 0:
            if f1 <= 0:
                f1 = 0.5 / 1e9
            return x0 + (np.log10(f0) - np.log10(target)) / \
                (np.log10(f0) - np.log10(f1)) * (x1 - x0)
    return None


def curves(spec, points, frames, out):
    h, k, punct = R.parity_check(spec)
    cw = R.encode(spec, frames, 21)
    info = cw[:, :k]
    res = {'sp50': [], 'hp10': [], 'hp20': []}
    out.append('\n### %s (n=%d, k=%d), %d frames per point\n\n' %
               (spec, h.shape[1] - punct, k, frames))
    out.append('| Eb/N0 dB | FER SP-50 (ref) | FER hp-10 | FER hp-20 | '
               'BER SP-50 | BER hp-10 | BER hp-20 |\n|---|---|---|---|---|---|---|\n')
    for i, eb in enumerate(points):
        llr = R.awgn_llr(cw, k, punct, eb, np.random.default_rng(1000 + i))
        row = {}
        row['sp50'] = R.ref_decode(spec, llr, 50)
        row['hp10'] = R.hp_decode(spec, R.quantise(llr), 10)
        row['hp20'] = R.hp_decode(spec, R.quantise(llr), 20)
        fb = {key: (float(np.mean((v != info).any(axis=1))), float(np.mean(v != info)))
              for key, v in row.items()}
        for key in res:
            res[key].append(fb[key][0])
        out.append('| %.2f | %.4f | %.4f | %.4f | %.2e | %.2e | %.2e |\n' % (
            eb, fb['sp50'][0], fb['hp10'][0], fb['hp20'][0],
            fb['sp50'][1], fb['hp10'][1], fb['hp20'][1]))
        print(spec, eb, {k_: v[0] for k_, v in fb.items()}, flush=True)
    x = {key: fer_at(points, v) for key, v in res.items()}
    fmt = lambda v: 'n/a (not crossed)' if v is None else '%.2f dB' % v
    out.append('\nEb/N0 at FER 1e-2: SP-50 %s, hp-10 %s, hp-20 %s' %
               (fmt(x['sp50']), fmt(x['hp10']), fmt(x['hp20'])))
    if x['sp50'] is not None:
        for key in ('hp10', 'hp20'):
            if x[key] is not None:
                out.append('; gap %s %.2f dB' % (key, x[key] - x['sp50']))
    out.append('\n')


def throughput(build, spec, ebn0, iters, early, seconds, out):
    cmd = [R.tool_path(), 'bench', '--code', spec, '--ebn0', str(ebn0),
           '--iters', str(iters), '--isa', 'all', '--seconds', str(seconds)]
    if not early:
        cmd.append('--no-early-stop')
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out.append('\n`%s`\n\n```\n%s```\n' % (' '.join(
        ['hp-ldpc'] + cmd[1:]), p.stdout))
    print(p.stdout, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.environ.get('BUILD_DIR', 'build'))
    ap.add_argument('--frames', type=int, default=400)
    ap.add_argument('--quick', action='store_true', help='fewer points, 1 s per kernel')
    ap.add_argument('--record', action='store_true',
                    help='write bench/results/ldpc-<date>.md (else print only)')
    a = ap.parse_args()
    os.environ['BUILD_DIR'] = os.path.abspath(a.build)
    if not os.path.exists(R.tool_path()):
        sys.exit('compare.py: error: %s not built' % R.tool_path())
    cpu = 'unknown'
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            cpu = line.split(':', 1)[1].strip()
            break
    flags = open('/proc/cpuinfo').read()
    commit = subprocess.run(['git', '-C', R.ROOT, 'rev-parse', '--short', 'HEAD'],
                            capture_output=True, text=True).stdout.strip()
    date = datetime.date.today().isoformat()
    t0 = time.time()
    out = ['# LDPC measurements, %s\n\n' % date,
           '- machine: %s, %d logical CPUs (shared with other work while measured), '
           'avx2=%s avx512bw=%s, %s\n' % (cpu, os.cpu_count(), 'avx2' in flags,
                                           'avx512bw' in flags, platform.platform()),
           '- commit: %s\n- command: `.venv/bin/python bench/ldpc/compare.py --build %s'
           ' --frames %d%s --record`\n' % (commit, a.build, a.frames, ' --quick' if a.quick else ''),
           '- hp-ldpc: int8 LLRs, 4 steps per unit LLR, clip 63; layered offset '
           'min-sum, offset 2 steps (0.5), messages capped at 63, early stop on '
           'syndrome (curves).\n',
           '- reference: `ldpc` (PyPI) BpDecoder, bp_method=product_sum (float '
           'sum-product), 50 flooding iterations, same frames and noise.\n',
           '- NR BG1 curves use Z=32 (K=704, R=1/3 mother code, 2Z punctured) to keep '
           'the Python reference fast; throughput uses Z=384.\n',
           '\n## FER/BER vs the sum-product reference\n']
    pts_w = [1.0, 1.25, 1.5, 1.75, 2.0] if not a.quick else [1.25, 1.5, 1.75]
    pts_n = [0.5, 0.75, 1.0, 1.25, 1.5] if not a.quick else [0.75, 1.0, 1.25]
    curves('wifi:1944:1/2', pts_w, a.frames, out)
    curves('nr:1:32', pts_n, a.frames, out)
    out.append('\n## Throughput, one core, scalar vs AVX2 vs AVX-512 in the same run\n\n'
               'best_mbps: information bits per second of the fastest of repeated '
               'decodes of 256 frames; mean_mbps: over all repeats (includes '
               'interference from other jobs on this shared 2-core machine); '
               'batch_us: latency of one batch (lanes codewords finish together); '
               'cw_us: batch time per codeword; cpu_mbps: the same bits over the '
               'best thread CPU time of a repeat (time while another job had the '
               'CPU not counted; caches and memory still shared).\n')
    sec = 1 if a.quick else 3
    for spec, eb, it, early in (('wifi:1944:1/2', 2.5, 10, False),
                                ('wifi:1944:1/2', 2.5, 5, False),
                                ('wifi:1944:1/2', 2.0, 10, True),
                                ('nr:1:384', 2.0, 5, False),
                                ('nr:1:384', 2.0, 10, False),
                                ('nr:1:384', 1.5, 10, True)):
        throughput(a.build, spec, eb, it, early, sec, out)
    out.append('\n## The ran app\'s packet units\n\n'
               'Hard-decision units (LLRs quantised to their sign) with random bit '
               'errors, made, decoded 256 per call as the ldpc task does, and rebuilt '
               'by the reference path; every unit is checked against its sent info '
               'bits. Times per unit on one core; decode_mbps counts info bits.\n')
    for spec, flips in (('wifi:1944:1/2', None), ('wifi:1944:1/2', 60),
                        ('wifi:648:1/2', None), ('nr:1:32', None)):
        cmd = [R.tool_path(), 'units', '--code', spec, '--frames',
               '5000' if a.quick else '20000', '--iters', '20']
        if flips is not None:
            cmd += ['--flips', str(flips)]
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        out.append('\n`%s`\n\n```\n%s```\n' % (' '.join(['hp-ldpc'] + cmd[1:]), p.stdout))
        print(p.stdout, flush=True)
    out.append('\n(total bench time %.0f s)\n' % (time.time() - t0))
    if not a.record:
        print(''.join(out))
        return
    path = os.path.join(R.ROOT, 'bench', 'results', 'ldpc-%s.md' % date)
    with open(path, 'w') as f:
        f.write(''.join(out))
    print('wrote', path)


if __name__ == '__main__':
    main()
