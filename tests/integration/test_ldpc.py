# SPDX-License-Identifier: BSD-3-Clause
"""LDPC block validated against things it did not write: H built here from
the standard tables (lib/ldpc/codes/), the AWGN channel in numpy, and the
`ldpc` package's floating-point sum-product decoder (PyPI) as the
independent reference. Runs the hp-ldpc tool from BUILD_DIR (default
build/). Seeds are fixed, so the numbers are reproducible."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'bench', 'ldpc'))
import ldpc_ref as R  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.exists(R.tool_path()),
                                reason='hp-ldpc not built: ' + R.tool_path())

WIFI = ['wifi:%d:%s' % (n, r) for n in (648, 1296, 1944)
        for r in ('1/2', '2/3', '3/4', '5/6')]


def fer_ber(dec, info):
    err = dec != info
    return float(np.mean(err.any(axis=1))), float(np.mean(err))


@pytest.mark.parametrize('spec', WIFI + ['nr:1:2', 'nr:1:15', 'nr:1:384',
                                         'nr:2:2', 'nr:2:13', 'nr:2:384'])
def test_encoder_output_satisfies_independent_h(spec):
    h, k, punct = R.parity_check(spec)
    cw = R.encode(spec, 3, 11)
    assert cw.shape == (3, h.shape[1])
    assert not np.any((h @ cw.T) % 2), spec
    assert cw[:, :k].any()  # random info, not the all-zero word


@pytest.mark.parametrize('spec,ebn0', [('wifi:1944:1/2', 1.25), ('nr:1:32', 0.75)])
def test_fer_ber_within_0p3_db_of_sum_product(spec, ebn0):
    """hp-ldpc (int8 layered OMS, 20 iterations) 0.3 dB above a point
    is at least as good as float sum-product (50 flooding iterations) at
    that point, and not better than it at the same point."""
    h, k, punct = R.parity_check(spec)
    cw = R.encode(spec, 200, 7)
    info = cw[:, :k]
    llr = R.awgn_llr(cw, k, punct, ebn0, np.random.default_rng(1))
    ref_fer, ref_ber = fer_ber(R.ref_decode(spec, llr, 50), info)
    same_fer, _ = fer_ber(R.hp_decode(spec, R.quantise(llr), 20), info)
    llr3 = R.awgn_llr(cw, k, punct, ebn0 + 0.3, np.random.default_rng(2))
    hp_fer, hp_ber = fer_ber(R.hp_decode(spec, R.quantise(llr3), 20), info)
    # The point is in the waterfall: some frames fail, most do not.
    assert 0.005 <= ref_fer <= 0.3, ref_fer
    assert hp_fer <= ref_fer + 0.02, (hp_fer, ref_fer)
    # A failed min-sum frame keeps more wrong bits than a failed BP frame
    # (BP fails closer to a codeword), so BER gets a factor, not FER.
    assert hp_ber <= 4 * ref_ber + 1e-4, (hp_ber, ref_ber)
    assert same_fer >= ref_fer - 0.01, (same_fer, ref_fer)


@pytest.mark.parametrize('spec,ebn0', [('wifi:1944:1/2', 2.5), ('wifi:648:5/6', 4.5),
                                       ('nr:1:32', 2.0), ('nr:2:32', 2.0)])
def test_bit_exact_with_sum_product_at_high_snr(spec, ebn0):
    h, k, punct = R.parity_check(spec)
    cw = R.encode(spec, 64, 3)
    info = cw[:, :k]
    llr = R.awgn_llr(cw, k, punct, ebn0, np.random.default_rng(3))
    # The channel did flip hard decisions, so decoding had work to do.
    assert np.any((llr < 0) != cw[:, punct:].astype(bool))
    ref = R.ref_decode(spec, llr, 50)
    for isa in ('scalar', 'avx2', 'avx512'):
        if isa != 'scalar' and not _isa_ok(isa):
            continue
        # Both modes: codewords across the lanes, and one codeword with
        # the lanes across Z (the low-latency mode).
        for mode in ('batch', 'single'):
            mine = R.hp_decode(spec, R.quantise(llr), 10, ('--isa', isa, '--mode', mode))
            assert np.array_equal(mine, ref), (spec, isa, mode)
            assert np.array_equal(mine, info), (spec, isa, mode)


def _isa_ok(isa):
    return R.run_tool('bench', '--code', 'wifi:648:1/2', '--isa', isa,
                      '--seconds', '0.01', check=False).returncode == 0 and \
        'not supported' not in R.run_tool('bench', '--code', 'wifi:648:1/2', '--isa',
                                          isa, '--seconds', '0.01').stdout


def test_sim_prints_fer_and_throughput():
    p = R.run_tool('sim', '--code', 'wifi:1944:1/2', '--ebn0', '1,3', '--frames', 128)
    rows = [l.split() for l in p.stdout.splitlines() if l and l[0] != '#'][1:]
    assert len(rows) == 2
    low, high = rows
    assert float(low[3]) > 0.5          # FER at 1 dB, 10 iterations
    assert float(high[3]) == 0.0 and float(high[4]) == 0.0
    assert float(high[6]) > 0           # info Mbit/s
    assert float(high[7]) > 0 and float(high[8]) > 0  # batch / cw latency


@pytest.mark.parametrize('spec,flips', [('wifi:1944:1/2', 60), ('wifi:1296:3/4', 19),
                                        ('nr:2:13', 20)])
def test_units_decode_to_sent_bits(spec, flips):
    """The ran app's units at the most errors a decoded unit can list:
    every unit decodes to its sent info bits and rebuilds exactly."""
    p = R.run_tool('units', '--code', spec, '--frames', 600, '--flips', flips,
                   '--iters', 30)
    row = [l.split() for l in p.stdout.splitlines() if l and l[0] != '#'][1]
    assert row[:3] == ['600', '600', 'all'], p.stdout


def test_units_report_undecodable():
    """More errors than a unit can list (or the code correct): the tool
    says so and exits 1."""
    p = R.run_tool('units', '--frames', 64, '--flips', 250, check=False)
    row = [l.split() for l in p.stdout.splitlines() if l and l[0] != '#'][1]
    assert p.returncode == 1 and int(row[1]) < 64 and row[2] == 'NO', p.stdout


@pytest.mark.parametrize('args,needle', [
    (['units', '--flips', '300'], '--flips'),
    (['sim', '--code', 'wifi:1944:1/3'], 'unknown code'),
    (['sim', '--code', 'nr:1:17'], 'unknown code'),
    (['sim', '--iters', '0'], '--iters'),
    (['sim', '--ebn0', 'x'], '--ebn0'),
    (['sim', '--frames', '-3'], '--frames'),
    (['sim', '--isa', 'neon'], '--isa'),
    (['sim', '--mode', 'fast'], '--mode'),
    (['sim', '--mode', 'both'], '--mode both'),
    (['sim', '--bogus'], 'unknown'),
    (['frobnicate'], 'unknown command'),
    ([], 'missing command'),
    (['decode', '--code', 'wifi:648:1/2'], '--in'),
])
def test_bad_flags_one_error_line(args, needle):
    p = R.run_tool(*args, check=False)
    assert p.returncode != 0
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('hp-ldpc: error:'), p.stderr
    assert needle in lines[0]


def test_decode_rejects_wrong_llr_length(tmp_path):
    f = tmp_path / 'llr.bin'
    f.write_bytes(bytes(1943))
    p = R.run_tool('decode', '--code', 'wifi:1944:1/2', '--in', f,
                   '--out', tmp_path / 'o.bin', check=False)
    assert p.returncode != 0 and 'not a whole number of LLR blocks' in p.stderr
