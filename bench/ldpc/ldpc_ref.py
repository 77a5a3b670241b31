# SPDX-License-Identifier: BSD-3-Clause
"""Reference side of the LDPC validation, shared by the pytest module
(tests/integration/test_ldpc.py) and the comparison bench
(bench/ldpc/compare.py): builds the parity-check matrix H from the data
files in lib/ldpc/codes/ (independently of the C library), runs the AWGN
channel in numpy and decodes with an independent sum-product decoder, the
`ldpc` package from PyPI (BpDecoder, bp_method='product_sum', floating
point), and drives the hp-ldpc tool."""
import os
import subprocess
import tempfile

import numpy as np
import scipy.sparse as sp

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CODES = os.path.join(ROOT, 'lib', 'ldpc', 'codes')
NR_Z = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24,
        26, 28, 30, 32, 36, 40, 44, 48, 52, 56, 60, 64, 72, 80, 88, 96, 104,
        112, 120, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352,
        384]


def _lines(path):
    for line in open(path):
        f = line.split('#', 1)[0].split()
        if f:
            yield f


def base_matrix(spec):
    """(entries [(row, col, shift)], z, mb, nb, punct) for a code spec."""
    fam, a, b = spec.split(':')
    if fam == 'wifi':
        cur, rows = None, []
        for f in _lines(os.path.join(CODES, 'ieee80211n.txt')):
            if f[0] == 'code':
                cur = (f[1] == a and f[2] == b)
                if cur:
                    z, mb, nb = int(f[4]), int(f[6]), int(f[8])
                continue
            if cur:
                rows.append(f)
        if not rows:
            raise ValueError(spec)
        ents = [(r, c, int(v) % z) for r, row in enumerate(rows)
                for c, v in enumerate(row) if v != '-']
        return ents, z, mb, nb, 0
    if fam == 'nr':
        z = int(b)
        ils = None
        for f in _lines(os.path.join(CODES, 'nr_lifting.txt')):
            if z in [int(x) for x in f[1:]]:
                ils = int(f[0])
        if ils is None:
            raise ValueError(spec)
        ents = []
        for f in _lines(os.path.join(CODES, 'nr_bg%s.txt' % a)):
            if f[0] == 'bg':
                mb, nb = int(f[3]), int(f[5])
                continue
            ents.append((int(f[0]), int(f[1]), int(f[2 + ils]) % z))
        return ents, z, mb, nb, 2 * z
    raise ValueError(spec)


def parity_check(spec):
    """H (scipy csr, mb*z x nb*z), k, punct: row r*z+i has a 1 in column
    c*z + (i + s) % z for each base entry (r, c, s)."""
    ents, z, mb, nb, punct = base_matrix(spec)
    rows, cols = [], []
    i = np.arange(z)
    for r, c, s in ents:
        rows.append(r * z + i)
        cols.append(c * z + (i + s) % z)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    h = sp.csr_matrix((np.ones(len(rows), np.uint8), (rows, cols)),
                      shape=(mb * z, nb * z))
    return h, (nb - mb) * z, punct


def tool_path():
    build = os.environ.get('BUILD_DIR', os.path.join(ROOT, 'build'))
    return os.path.join(build, 'bench', 'ldpc', 'hp-ldpc')


def run_tool(*args, check=True):
    return subprocess.run([tool_path()] + [str(a) for a in args],
                          capture_output=True, text=True, check=check)


def encode(spec, frames, seed):
    """Full codewords (frames x n_full, uint8) from hp-ldpc encode."""
    h, k, punct = parity_check(spec)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'cw.bin')
        run_tool('encode', '--code', spec, '--frames', frames, '--seed', seed,
                 '--out', out)
        cw = np.fromfile(out, np.uint8)
    return cw.reshape(frames, h.shape[1])


def awgn_llr(cw, k, punct, ebn0, rng):
    """Float LLRs of the transmitted bits after BPSK (0 -> +1) + AWGN."""
    tx = cw[:, punct:]
    rate = k / tx.shape[1]
    sigma2 = 1.0 / (2 * rate * 10 ** (ebn0 / 10))
    y = 1.0 - 2.0 * tx + np.sqrt(sigma2) * rng.standard_normal(tx.shape)
    return 2 * y / sigma2


def quantise(llr, qscale=4.0, qmax=63):
    return np.clip(np.rint(llr * qscale), -qmax, qmax).astype(np.int8)


def hp_decode(spec, qllr, iters=10, extra=()):
    """Info bits (frames x k) decoded by hp-ldpc from int8 LLRs."""
    h, k, punct = parity_check(spec)
    with tempfile.TemporaryDirectory() as d:
        fin, fout = os.path.join(d, 'llr.bin'), os.path.join(d, 'info.bin')
        qllr.astype(np.int8).tofile(fin)
        run_tool('decode', '--code', spec, '--in', fin, '--out', fout,
                 '--iters', iters, *extra)
        out = np.fromfile(fout, np.uint8)
    return out.reshape(qllr.shape[0], k)


def ref_decode(spec, llr, iters=50):
    """Info bits decoded by the ldpc package's float sum-product decoder
    (flooding schedule) from float LLRs; punctured bits get LLR 0."""
    from ldpc import BpDecoder

    h, k, punct = parity_check(spec)
    n_full = h.shape[1]
    dec = BpDecoder(h, error_channel=np.full(n_full, 0.1), max_iter=iters,
                    bp_method='product_sum', schedule='parallel',
                    input_vector_type='received_vector')
    out = np.zeros((llr.shape[0], k), np.uint8)
    for f in range(llr.shape[0]):
        full = np.concatenate([np.zeros(punct), llr[f]])
        a = np.minimum(np.abs(full), 30.0)
        p = np.clip(1.0 / (1.0 + np.exp(a)), 1e-12, 0.5)
        dec.update_channel_probs(p)
        hard = (full < 0).astype(np.uint8)
        out[f] = dec.decode(hard)[:k]
    return out
