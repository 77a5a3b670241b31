/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMPP decoding in Java, side by side in one JVM on the same PDUs (the
 * thesis's SUBMIT_SM mix from the C generator):
 *
 *   cloudhopper   Cloudhopper's own decoder (DefaultPduTranscoder.decode over
 *                 a Netty buffer of the batch, PDU by PDU, as its server does);
 *                 T threads each decode a contiguous share of the batch.
 *   jni-decode    SmppDecoder.decode of a direct buffer already filled: the
 *                 JNI call alone (C batch decoder on T pthreads).
 *   jni-views     end to end: copy the batch from byte[] into the direct
 *                 buffer, decode, read per PDU status, command id, sequence,
 *                 destination address and message views (no objects).
 *   jni-objects   end to end with what Cloudhopper hands its user: copy,
 *                 decode, then per PDU Strings for the five C-string fields,
 *                 byte[] for short_message and each TLV value (T threads).
 *   jni-views-heap  end to end from the byte[] Cloudhopper reads too, without
 *                 the copy: SmppDecoder.decode(byte[]) pins the array for the
 *                 call; then the same views as jni-views.
 *
 * Timing: per batch size and thread count, the five are run in rounds
 * (A B C D E A B C D E ...) so that load changes on a shared machine hit all of
 * them; a warm-up of --warm seconds first, then at least --reps rounds and
 * --secs seconds.  Reported: median and best PDUs/s over the rounds, and
 * the median over rounds of (this path / Cloudhopper in the same round),
 * which a loaded machine disturbs less than either rate alone; for one
 * thread also the same from the calling thread's CPU time (the time other
 * processes held the core left out; so are the JVM's GC and JIT threads,
 * which favours Cloudhopper, whose allocations the GC pays for).
 * Output: one tab-separated line per configuration (for run_java_bench.py).
 *
 *   java -Dhp.smpp.lib=.../libhpsmppjni.so -cp ... SmppJavaBench
 *        [--sizes 1000,10000,100000,1000000] [--threads 1,2] [--secs 2]
 *        [--warm 1] [--reps 5]
 */

import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.pdu.SubmitSm;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoder;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoderContext;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.heteroplane.smpp.DecodedBatch;
import org.heteroplane.smpp.Mode;
import org.heteroplane.smpp.Smpp;
import org.heteroplane.smpp.SmppConfig;
import org.heteroplane.smpp.SmppDecoder;
import org.jboss.netty.buffer.ChannelBuffer;
import org.jboss.netty.buffer.ChannelBuffers;

public final class SmppJavaBench {
    static final String[] IMPLS = {"cloudhopper", "jni-decode", "jni-views", "jni-objects",
        "jni-views-heap"};
    static volatile long sink;

    final int n;
    final int threads;
    final byte[] heap;
    final ByteBuffer direct;
    final int[] cut;           /* PDU-boundary split of the batch per thread */
    final int[] cutIdx;
    final ExecutorService pool;
    final SmppDecoder dec;
    final DefaultPduTranscoder[] tc;

    SmppJavaBench(int n, int threads, ExecutorService pool) {
        this.n = n;
        this.threads = threads;
        this.pool = pool;
        ByteBuffer gen = ByteBuffer.allocateDirect(n * 160 + 4096);
        int len = Smpp.simStream(gen, 0, 0, n, new SmppConfig());
        heap = new byte[len];
        gen.get(0, heap);
        direct = ByteBuffer.allocateDirect(len);
        direct.put(0, heap);
        cut = new int[threads + 1];
        cutIdx = new int[threads + 1];
        int per = (n + threads - 1) / threads, p = 0;
        for (int i = 0, t = 1; i < n; i++) {
            if (i == t * per) {
                cut[t] = p;
                cutIdx[t++] = i;
            }
            p += ByteBuffer.wrap(heap, p, 4).getInt();
        }
        for (int t = 1; t <= threads; t++) {
            if (cut[t] == 0) {
                cut[t] = len;
                cutIdx[t] = n;
            }
        }
        dec = new SmppDecoder(new SmppConfig().threads(threads).minParallel(threads > 1 ? 0 : 4096));
        keep = new Object[threads][KEEP];
        tc = new DefaultPduTranscoder[threads];
        for (int t = 0; t < threads; t++) {
            tc[t] = new DefaultPduTranscoder(new DefaultPduTranscoderContext());
        }
    }

    /* Runs body(t) on T threads (the caller's thread is one of them). */
    interface Part {
        long run(int t) throws Exception;
    }

    long parallel(Part body) throws Exception {
        if (threads == 1) {
            return body.run(0);
        }
        List<Future<Long>> f = new ArrayList<>();
        for (int t = 1; t < threads; t++) {
            final int tt = t;
            f.add(pool.submit(() -> body.run(tt)));
        }
        long s = body.run(0);
        for (Future<Long> x : f) {
            s += x.get();
        }
        return s;
    }

    /* Decoded PDUs are handed on, as a server hands them to its handler:
     * kept in a ring per thread, so the JIT cannot drop their allocation
     * (escape analysis would, for objects that die in the loop). */
    static final int KEEP = 4096;
    final Object[][] keep;

    long cloudhopper() throws Exception {
        return parallel(t -> {
            ChannelBuffer b = ChannelBuffers.wrappedBuffer(heap, cut[t], cut[t + 1] - cut[t]);
            Object[] k = keep[t];
            long c = 0;
            int j = 0;
            while (b.readableBytes() > 0) {
                Pdu p = tc[t].decode(b);
                SubmitSm s = (SubmitSm) p;
                c += s.getSequenceNumber() + s.getDestAddress().getAddress().length()
                        + s.getShortMessageLength() + s.getOptionalParameters().size();
                k[j++ & (KEEP - 1)] = p;
            }
            return c;
        });
    }

    long jniDecode() {
        DecodedBatch b = dec.decode(direct, 0, direct.capacity(), Mode.CPU);
        check(b);
        return b.size();
    }

    private void check(DecodedBatch b) {
        if (b.size() != n || b.errorCount() != 0) {
            throw new IllegalStateException("decoded " + b.size() + " PDUs, " + b.errorCount() + " errors");
        }
    }

    static final int K_DST = Smpp.fieldIndex(Smpp.SUBMIT_SM, "destination_addr");
    static final int K_MSG = Smpp.fieldIndex(Smpp.SUBMIT_SM, "short_message");
    static final int[] K_STR = {
        Smpp.fieldIndex(Smpp.SUBMIT_SM, "service_type"),
        Smpp.fieldIndex(Smpp.SUBMIT_SM, "source_addr"),
        Smpp.fieldIndex(Smpp.SUBMIT_SM, "destination_addr"),
        Smpp.fieldIndex(Smpp.SUBMIT_SM, "schedule_delivery_time"),
        Smpp.fieldIndex(Smpp.SUBMIT_SM, "validity_period"),
    };

    long jniViews() {
        direct.put(0, heap);
        DecodedBatch b = dec.decode(direct, 0, direct.capacity(), Mode.CPU);
        check(b);
        return views(b);
    }

    /* per PDU: status, command id, sequence, destination and message views,
     * TLV count (no objects) */
    long views(DecodedBatch b) {
        long c = 0;
        for (int i = 0; i < n; i++) {
            c += b.error(i) + b.commandId(i) + b.sequenceNumber(i) + b.fieldOffset(i, K_DST)
                    + b.fieldLength(i, K_DST) + b.fieldLength(i, K_MSG) + b.tlvCount(i);
        }
        return c;
    }

    long jniViewsHeap() {
        DecodedBatch b = dec.decode(heap, 0, heap.length, Mode.CPU);
        check(b);
        return views(b);
    }

    /** What the objects path hands on per PDU: the values Cloudhopper's
     * SubmitSm holds (its Address and Tlv wrappers aside). */
    record Sm(int seq, String serviceType, String src, String dst, String sched,
              String validity, byte[] msg, int[] tlvTags, byte[][] tlvValues) {
    }

    long jniObjects() throws Exception {
        direct.put(0, heap);
        DecodedBatch b = dec.decode(direct, 0, direct.capacity(), Mode.CPU);
        check(b);
        return parallel(t -> {
            Object[] keepT = keep[t];
            long c = 0;
            for (int i = cutIdx[t]; i < cutIdx[t + 1]; i++) {
                int nt = b.tlvCount(i);
                int[] tags = new int[nt];
                byte[][] vals = new byte[nt][];
                for (int k = 0; k < nt; k++) {
                    tags[k] = b.tlvTag(i, k);
                    vals[k] = b.tlvValue(i, k);
                }
                Sm s = new Sm(b.sequenceNumber(i), b.string(i, K_STR[0]), b.string(i, K_STR[1]),
                        b.string(i, K_STR[2]), b.string(i, K_STR[3]), b.string(i, K_STR[4]),
                        b.bytes(i, K_MSG), tags, vals);
                c += s.seq() + s.dst().length() + s.msg().length + nt + b.error(i);
                keepT[i & (KEEP - 1)] = s;
            }
            return c;
        });
    }

    long run(int impl) throws Exception {
        switch (impl) {
            case 0: return cloudhopper();
            case 1: return jniDecode();
            case 2: return jniViews();
            case 3: return jniObjects();
            default: return jniViewsHeap();
        }
    }

    public static void main(String[] args) throws Exception {
        int[] sizes = {1000, 10000, 100000, 1000000};
        int[] threads = {1, 2};
        double secs = 2, warm = 1;
        int reps = 5;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--threads" -> threads = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--secs" -> secs = Double.parseDouble(args[i + 1]);
                case "--warm" -> warm = Double.parseDouble(args[i + 1]);
                case "--reps" -> reps = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(Arrays.stream(threads).max().getAsInt());
        System.out.println("#impl\tbatch\tthreads\trounds\tmedian_pdus_s\tbest_pdus_s\tmedian_mb_s"
                + "\tmedian_round_ratio_to_cloudhopper\tmedian_pdus_per_cpu_s\tmedian_round_cpu_ratio");
        for (int size : sizes) {
            for (int t : threads) {
                SmppJavaBench b = new SmppJavaBench(size, t, pool);
                boolean[] all = new boolean[IMPLS.length];
                Arrays.fill(all, true);
                BenchRounds m = new BenchRounds(b::run, all, size, warm, secs, reps);
                sink += m.sink;
                List<List<Double>> rate = m.rate, cpuRate = m.cpuRate;
                int rounds = m.rounds;
                for (int k = 0; k < IMPLS.length; k++) {
                    double[] r = BenchRounds.median(rate.get(k), null);
                    double[] q = BenchRounds.median(rate.get(k), rate.get(0));
                    double[] cr = BenchRounds.median(cpuRate.get(k), null);
                    double[] cq = BenchRounds.median(cpuRate.get(k), cpuRate.get(0));
                    /* CPU time: the calling thread's, so 1-thread rows only */
                    System.out.printf("%s\t%d\t%d\t%d\t%.0f\t%.0f\t%.1f\t%.3f\t%.0f\t%.3f%n",
                            IMPLS[k], size, t, rounds, r[0], r[1], r[0] * b.heap.length / size / 1e6,
                            q[0], t == 1 ? cr[0] : 0.0, t == 1 ? cq[0] : 0.0);
                }
                System.out.flush();
                b.dec.close();
            }
        }
        pool.shutdown();
        System.out.println("#sink\t" + (sink & 1));
    }
}
