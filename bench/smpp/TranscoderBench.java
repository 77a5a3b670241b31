/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cloudhopper's PduTranscoder interface, two implementations, one JVM, the
 * same PDUs (the thesis's SUBMIT_SM mix from the C generator), both
 * producing Cloudhopper's PDU objects:
 *
 *   cloudhopper     DefaultPduTranscoder.decode (ch-smpp 5.0.9) PDU by PDU
 *                   over Netty buffers, as SmppSessionPduDecoder calls it
 *   jni-transcoder  JniPduTranscoder.decode, the same calls on the same
 *                   buffers (one JNI call per up to 1024 PDUs of a buffer)
 *
 * and, to say where the JNI transcoder's time goes, on the same buffers:
 *
 *   jni-call        SmppDecoder.decode(byte[]) alone, batches cut where
 *                   the transcoder cuts them (C decoder + JNI crossing)
 *   jni-views       jni-call, then every field's offset and length and every
 *                   TLV header read from the records (no object)
 *   objects-only    the Cloudhopper objects the transcoder builds (SubmitSm,
 *                   2 Address, 5 Strings, short_message, ArrayList, 5 Tlv
 *                   with their values), from offsets found beforehand: no
 *                   decoding at all, the floor for any decoder that hands
 *                   out Cloudhopper's objects
 *
 * The buffers: the stream is cut into buffers of --per-buffer PDUs each
 * (1: one PDU per socket read, request/response; 64-1000: a busy
 * connection's reads); a round decodes all of them.  Paths run in rounds
 * (A B C D E A B ...), median over rounds; ratios are medians of the
 * per-round ratios to cloudhopper; CPU time is the calling thread's.
 * Decoded objects are kept in a ring so the JIT cannot drop them.
 * Output: one tab-separated line per path and buffer size.
 *
 *   java -Dhp.smpp.lib=.../libhpsmppjni.so -cp ... TranscoderBench
 *        [--pdus 100000] [--per-buffer 1,64,1000] [--secs 3] [--warm 2] [--reps 7]
 *        [--paths cloudhopper,jni-transcoder,...]   (for a profiler: cloudhopper is always first)
 */

import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.pdu.SubmitSm;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoder;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoderContext;
import com.cloudhopper.smpp.type.Address;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.heteroplane.smpp.DecodedBatch;
import org.heteroplane.smpp.Mode;
import org.heteroplane.smpp.Smpp;
import org.heteroplane.smpp.SmppConfig;
import org.heteroplane.smpp.SmppDecoder;
import org.heteroplane.smpp.cloudhopper.JniPduTranscoder;
import org.jboss.netty.buffer.ChannelBuffer;
import org.jboss.netty.buffer.ChannelBuffers;

public final class TranscoderBench {
    static final String[] PATHS = {"cloudhopper", "jni-transcoder", "jni-call", "jni-views", "objects-only"};
    static final int KEEP = 4096;
    static volatile long sink;

    final int n;
    final byte[] heap;
    final ChannelBuffer[] bufs;
    final int[] callOff, callLen;      /* the JNI batches the transcoder makes */
    final DefaultPduTranscoder ch = new DefaultPduTranscoder(new DefaultPduTranscoderContext());
    final JniPduTranscoder jni = new JniPduTranscoder();
    final SmppDecoder dec = new SmppDecoder(new SmppConfig().maxPduLen(JniPduTranscoder.MAX_PDU));
    final Object[] keep = new Object[KEEP];
    final byte[] flen = new byte[32];
    /* per PDU, for objects-only: offsets of the fields and TLVs */
    final int[][] at;

    TranscoderBench(int n, int perBuffer) {
        this.n = n;
        ByteBuffer gen = ByteBuffer.allocateDirect(n * 160 + 4096);
        int len = Smpp.simStream(gen, 0, 0, n, new SmppConfig());
        heap = new byte[len];
        gen.get(0, heap);
        int[] pduOff = new int[n + 1];
        for (int i = 0, p = 0; i <= n; i++) {
            pduOff[i] = p;
            if (i < n) {
                p += ByteBuffer.wrap(heap, p, 4).getInt();
            }
        }
        int nb = (n + perBuffer - 1) / perBuffer;
        bufs = new ChannelBuffer[nb];
        List<int[]> calls = new ArrayList<>();
        for (int b = 0; b < nb; b++) {
            int i0 = b * perBuffer, i1 = Math.min(n, i0 + perBuffer);
            bufs[b] = ChannelBuffers.wrappedBuffer(heap, pduOff[i0], pduOff[i1] - pduOff[i0]);
            for (int c = i0; c < i1; c += JniPduTranscoder.DEFAULT_MAX_BATCH) {
                int c1 = Math.min(i1, c + JniPduTranscoder.DEFAULT_MAX_BATCH);
                calls.add(new int[] {pduOff[c], pduOff[c1] - pduOff[c]});
            }
        }
        callOff = calls.stream().mapToInt(x -> x[0]).toArray();
        callLen = calls.stream().mapToInt(x -> x[1]).toArray();
        /* field offsets for objects-only, from our decoder, once */
        at = new int[n][];
        DecodedBatch d = dec.decode(heap, 0, heap.length, Mode.CPU);
        if (d.size() != n || d.errorCount() != 0) {
            throw new IllegalStateException("generator: " + d.size() + " PDUs, " + d.errorCount() + " errors");
        }
        String[] f = {"service_type", "source_addr", "destination_addr", "schedule_delivery_time",
            "validity_period", "short_message"};
        for (int i = 0; i < n; i++) {
            int nt = d.tlvCount(i);
            int[] a = new int[4 + 2 * f.length + 2 + 3 * nt];
            int k = 0;
            a[k++] = d.length(i);
            a[k++] = d.sequenceNumber(i);
            a[k++] = d.fieldOffset(i, Smpp.fieldIndex(Smpp.SUBMIT_SM, "source_addr_ton"));
            a[k++] = d.fieldOffset(i, Smpp.fieldIndex(Smpp.SUBMIT_SM, "dest_addr_ton"));
            for (String name : f) {
                int fi = Smpp.fieldIndex(Smpp.SUBMIT_SM, name);
                a[k++] = d.fieldOffset(i, fi);
                a[k++] = d.fieldLength(i, fi);
            }
            a[k++] = d.fieldOffset(i, Smpp.fieldIndex(Smpp.SUBMIT_SM, "esm_class"));
            a[k++] = nt;
            for (int t = 0; t < nt; t++) {
                a[k++] = d.tlvTag(i, t);
                a[k++] = d.tlvValueOffset(i, t);
                a[k++] = d.tlvLength(i, t);
            }
            at[i] = a;
        }
    }

    long cloudhopper() throws Exception {
        long c = 0;
        int j = 0;
        for (ChannelBuffer b : bufs) {
            b.readerIndex(0);
            while (b.readable()) {
                Pdu p = ch.decode(b);
                c += p.getSequenceNumber();
                keep[j++ & (KEEP - 1)] = p;
            }
        }
        return c;
    }

    long jniTranscoder() throws Exception {
        long c = 0;
        int j = 0;
        for (ChannelBuffer b : bufs) {
            b.readerIndex(0);
            while (b.readable()) {
                Pdu p = jni.decode(b);
                c += p.getSequenceNumber();
                keep[j++ & (KEEP - 1)] = p;
            }
        }
        return c;
    }

    long jniCall() {
        long c = 0;
        for (int k = 0; k < callOff.length; k++) {
            DecodedBatch d = dec.decode(heap, callOff[k], callLen[k], Mode.CPU);
            c += d.size() + d.errorCount();
        }
        return c;
    }

    long jniViews() {
        long c = 0;
        for (int k = 0; k < callOff.length; k++) {
            DecodedBatch d = dec.decode(heap, callOff[k], callLen[k], Mode.CPU);
            for (int i = 0, m = d.size(); i < m; i++) {
                c += d.error(i) + d.commandId(i) + d.commandStatus(i) + d.sequenceNumber(i) + d.length(i);
                int nf = d.fieldLengths(i, flen), o = d.pduOffset(i) + 16;
                for (int f = 0; f < nf; f++) {
                    o += flen[f] & 0xff;
                }
                c += o;
                int nt = d.tlvCount(i);
                if (nt > 0) {
                    int q = d.tlvAreaOffset(i);
                    for (int t = 0; t < nt; t++) {
                        int l = (heap[q + 2] & 0xff) << 8 | (heap[q + 3] & 0xff);
                        c += heap[q] + l;
                        q += 4 + l;
                    }
                }
            }
        }
        return c;
    }

    static String str(byte[] a, int off, int len) {
        return len == 0 ? "" : new String(a, off, len, StandardCharsets.ISO_8859_1);
    }

    final String[] names = new String[65536];

    long objectsOnly() throws Exception {
        long c = 0;
        byte[] h = heap;
        for (int i = 0; i < n; i++) {
            int[] a = at[i];
            SubmitSm s = new SubmitSm();
            s.setServiceType(str(h, a[4], a[5]));
            s.setSourceAddress(new Address(h[a[2]], h[a[2] + 1], str(h, a[6], a[7])));
            s.setDestAddress(new Address(h[a[3]], h[a[3] + 1], str(h, a[8], a[9])));
            int e = a[16];
            s.setEsmClass(h[e]);
            s.setProtocolId(h[e + 1]);
            s.setPriority(h[e + 2]);
            s.setScheduleDeliveryTime(str(h, a[10], a[11]));
            s.setValidityPeriod(str(h, a[12], a[13]));
            int e2 = a[12] + a[13] + 1;
            s.setRegisteredDelivery(h[e2]);
            s.setReplaceIfPresent(h[e2 + 1]);
            s.setDataCoding(h[e2 + 2]);
            s.setDefaultMsgId(h[e2 + 3]);
            s.setShortMessage(Arrays.copyOfRange(h, a[14], a[14] + a[15]));
            s.setCommandLength(a[0]);
            s.setCommandStatus(0);
            s.setSequenceNumber(a[1]);
            int nt = a[17];
            for (int t = 0, k = 18; t < nt; t++, k += 3) {
                int tag = a[k];
                String nm = names[tag];
                if (nm == null) {
                    nm = names[tag] = String.valueOf(tag);
                }
                s.addOptionalParameter(new Tlv((short) tag, Arrays.copyOfRange(h, a[k + 1], a[k + 1] + a[k + 2]), nm));
            }
            c += s.getSequenceNumber();
            keep[i & (KEEP - 1)] = s;
        }
        return c;
    }

    long run(int path) throws Exception {
        switch (path) {
            case 0: return cloudhopper();
            case 1: return jniTranscoder();
            case 2: return jniCall();
            case 3: return jniViews();
            default: return objectsOnly();
        }
    }

    static double now() {
        return System.nanoTime() * 1e-9;
    }

    static double[] median(List<Double> a, List<Double> b) {
        List<Double> q = new ArrayList<>();
        for (int j = 0; j < a.size(); j++) {
            q.add(b == null ? a.get(j) : a.get(j) / b.get(j));
        }
        q.sort(null);
        return new double[] {q.get(q.size() / 2), q.get(q.size() - 1)};
    }

    public static void main(String[] args) throws Exception {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        int pdus = 100000;
        int[] per = {1, 64, 1000};
        double secs = 3, warm = 2;
        int reps = 7;
        List<String> only = List.of(PATHS);
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--pdus" -> pdus = Integer.parseInt(args[i + 1]);
                case "--per-buffer" -> per = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--secs" -> secs = Double.parseDouble(args[i + 1]);
                case "--warm" -> warm = Double.parseDouble(args[i + 1]);
                case "--reps" -> reps = Integer.parseInt(args[i + 1]);
                case "--paths" -> only = List.of(args[i + 1].split(","));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("#path\tper_buffer\tpdus\trounds\tmedian_pdus_s\tbest_pdus_s"
                + "\tmedian_round_ratio_to_cloudhopper\tmedian_pdus_per_cpu_s\tmedian_round_cpu_ratio");
        for (int pb : per) {
            TranscoderBench b = new TranscoderBench(pdus, pb);
            /* the two must agree before anything is timed */
            b.cloudhopper();
            b.jniTranscoder();
            if (b.jni.fallbacks() != 0) {
                throw new IllegalStateException("fallbacks: " + b.jni.fallbackReasons());
            }
            double t0 = now();
            int wr = 0;
            while (now() - t0 < warm || wr < 2) {
                for (int k = 0; k < PATHS.length; k++) {
                    if (k == 0 || only.contains(PATHS[k])) {
                        sink += b.run(k);
                    }
                }
                wr++;
            }
            List<List<Double>> rate = new ArrayList<>(), cpuRate = new ArrayList<>();
            for (int k = 0; k < PATHS.length; k++) {
                rate.add(new ArrayList<>());
                cpuRate.add(new ArrayList<>());
            }
            t0 = now();
            int rounds = 0;
            while (now() - t0 < secs || rounds < reps) {
                for (int k = 0; k < PATHS.length; k++) {
                    if (k > 0 && !only.contains(PATHS[k])) {
                        continue;
                    }
                    long c = cpu.getCurrentThreadCpuTime();
                    double s = now();
                    sink += b.run(k);
                    rate.get(k).add(pdus / (now() - s));
                    cpuRate.get(k).add(pdus / ((cpu.getCurrentThreadCpuTime() - c) * 1e-9));
                }
                rounds++;
            }
            for (int k = 0; k < PATHS.length; k++) {
                if (rate.get(k).isEmpty()) {
                    continue;
                }
                double[] r = median(rate.get(k), null);
                double[] q = median(rate.get(k), rate.get(0));
                double[] cr = median(cpuRate.get(k), null);
                double[] cq = median(cpuRate.get(k), cpuRate.get(0));
                System.out.printf("%s\t%d\t%d\t%d\t%.0f\t%.0f\t%.3f\t%.0f\t%.3f%n", PATHS[k], pb, pdus,
                        rounds, r[0], r[1], q[0], cr[0], cq[0]);
            }
            long c0 = b.jni.nativeCalls();
            sink += b.jniTranscoder();
            System.out.printf("#jni-calls\t%d\t%d%n", pb, b.jni.nativeCalls() - c0);
            System.out.flush();
            b.jni.close();
            b.dec.close();
        }
        System.out.println("#sink\t" + (sink & 1));
    }
}
