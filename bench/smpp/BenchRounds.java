/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timing loop SmppJavaBench and TranscoderBench share: the paths run
 * in rounds (A B C A B C ...) so that load changes on a shared machine hit
 * all of them, after a warm-up of warm seconds (at least 2 rounds), for
 * at least secs seconds and reps rounds.  Per path and round: the rate
 * (units per second of wall time) and the rate per second of the calling
 * thread's CPU time (time other processes held the core left out).
 * Compiled with either bench (run_java_bench.py's run_java()).
 */

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

final class BenchRounds {
    /** Runs path k once; returns a value the JIT cannot drop. */
    interface Paths {
        long run(int k) throws Exception;
    }

    /** Per path, one rate per round (empty for a path not run). */
    final List<List<Double>> rate = new ArrayList<>(), cpuRate = new ArrayList<>();
    int rounds;
    /** The paths' results summed, for the caller's sink. */
    long sink;

    /** on[k]: whether path k runs; units: what one run of a path does (PDUs). */
    BenchRounds(Paths p, boolean[] on, double units, double warm, double secs, int reps)
            throws Exception {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        double t0 = now();
        int wr = 0;
        while (now() - t0 < warm || wr < 2) {
            for (int k = 0; k < on.length; k++) {
                if (on[k]) {
                    sink += p.run(k);
                }
            }
            wr++;
        }
        for (int k = 0; k < on.length; k++) {
            rate.add(new ArrayList<>());
            cpuRate.add(new ArrayList<>());
        }
        t0 = now();
        while (now() - t0 < secs || rounds < reps) {
            for (int k = 0; k < on.length; k++) {
                if (!on[k]) {
                    continue;
                }
                long c = cpu.getCurrentThreadCpuTime();
                double s = now();
                sink += p.run(k);
                rate.get(k).add(units / (now() - s));
                cpuRate.get(k).add(units / ((cpu.getCurrentThreadCpuTime() - c) * 1e-9));
            }
            rounds++;
        }
    }

    static double now() {
        return System.nanoTime() * 1e-9;
    }

    /* {median, max} of a[j] (b null: rates) or of a[j] / b[j] (per-round
     * ratios). */
    static double[] median(List<Double> a, List<Double> b) {
        List<Double> q = new ArrayList<>();
        for (int j = 0; j < a.size(); j++) {
            q.add(b == null ? a.get(j) : a.get(j) / b.get(j));
        }
        q.sort(null);
        return new double[] {q.get(q.size() / 2), q.get(q.size() - 1)};
    }
}
