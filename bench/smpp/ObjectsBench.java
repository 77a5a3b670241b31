/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Java objects at speed (issue 28, part 4): what a Cloudhopper user gets
 * and reads, from Cloudhopper's own decoder and from LazyPduDecoder (one
 * JNI call per batch, Cloudhopper's classes decoded on first access), in
 * one JVM on the same PDUs (the thesis's SUBMIT_SM mix from the C
 * generator).  Each decoder gets the same batches (--batch PDUs in one
 * byte[] range: Cloudhopper PDU by PDU over a Netty buffer on it, as its
 * SmppSessionPduDecoder calls it; ours one decode() per batch), and the
 * consumer reads, on every PDU:
 *
 *   header   command id and sequence number (a router: the PDU is queued
 *            or forwarded whole)
 *   typical  + source and destination address strings, short_message,
 *            data_coding, registered_delivery, esm_class and one TLV by tag
 *            (user_message_reference), what an SMSC's submit handler reads
 *   all      every getter of SubmitSm and every TLV's value (all objects
 *            made: the eager worst case for the lazy objects)
 *
 * plus "slab" (SmppDecoder.decodeSlab alone on the same batches: the C
 * decode and JNI crossing, no object) to say where the lazy path's time
 * goes.  Paths run in rounds (BenchRounds: A B C ... A B C), medians over
 * rounds; ratios are per round (lazy-X / cloudhopper-X in the same round):
 * median, min and max.  Objects are kept in a ring so the JIT cannot drop
 * them.  Output: tab-separated lines.
 *
 *   java -Dhp.smpp.lib=.../libhpsmppjni.so -cp ... ObjectsBench
 *        [--pdus 65536] [--batch 1000,8000,64000] [--secs 3] [--warm 2] [--reps 9]
 */

import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.pdu.SubmitSm;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoder;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoderContext;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.heteroplane.smpp.Smpp;
import org.heteroplane.smpp.SmppConfig;
import org.heteroplane.smpp.SmppDecoder;
import org.heteroplane.smpp.cloudhopper.LazyPduDecoder;
import org.jboss.netty.buffer.ChannelBuffer;
import org.jboss.netty.buffer.ChannelBuffers;

public final class ObjectsBench {
    static final String[] LEVELS = {"header", "typical", "all"};
    /* path k: 2 * level = cloudhopper, 2 * level + 1 = lazy; then slab */
    static final int SLAB = 2 * LEVELS.length;
    static final int KEEP = 4096;
    static final short UMR = 0x0204;
    static volatile long sink;

    final int n;
    final byte[] heap;
    final int[] callOff, callLen;
    final ChannelBuffer[] bufs;
    final DefaultPduTranscoder ch = new DefaultPduTranscoder(new DefaultPduTranscoderContext());
    final LazyPduDecoder lazy = new LazyPduDecoder();
    final SmppDecoder dec = new SmppDecoder(new SmppConfig().maxPduLen(LazyPduDecoder.MAX_PDU));
    final Object[] keep = new Object[KEEP];
    final int[] slab;

    ObjectsBench(int n, int batch) {
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
        List<int[]> calls = new ArrayList<>();
        for (int i0 = 0; i0 < n; i0 += batch) {
            int i1 = Math.min(n, i0 + batch);
            calls.add(new int[] {pduOff[i0], pduOff[i1] - pduOff[i0]});
        }
        callOff = calls.stream().mapToInt(x -> x[0]).toArray();
        callLen = calls.stream().mapToInt(x -> x[1]).toArray();
        bufs = new ChannelBuffer[callOff.length];
        for (int k = 0; k < bufs.length; k++) {
            bufs[k] = ChannelBuffers.wrappedBuffer(heap, callOff[k], callLen[k]);
        }
        slab = new int[Math.min(n, batch) * SmppDecoder.SLAB_STRIDE];
    }

    /* What the consumer reads at each level; the same calls on both, in two
     * copies so that each path's call sites see only its own classes, as in
     * an application that uses one decoder. */
    static long consumeCh(Pdu p, int level) throws Exception {
        long c = p.getCommandId() + p.getSequenceNumber();
        if (level == 0 || !(p instanceof SubmitSm s)) {
            return c;
        }
        c += s.getSourceAddress().getAddress().length() + s.getDestAddress().getAddress().length()
                + s.getShortMessage().length + s.getDataCoding() + s.getRegisteredDelivery() + s.getEsmClass();
        if (level == 1) {
            Tlv t = s.getOptionalParameter(UMR);
            return c + (t == null ? 0 : t.getValue()[0]);
        }
        c += s.getServiceType().length() + s.getSourceAddress().getTon() + s.getSourceAddress().getNpi()
                + s.getDestAddress().getTon() + s.getDestAddress().getNpi() + s.getProtocolId() + s.getPriority()
                + s.getScheduleDeliveryTime().length() + s.getValidityPeriod().length() + s.getReplaceIfPresent()
                + s.getDefaultMsgId();
        List<Tlv> l = s.getOptionalParameters();
        if (l != null) {
            for (Tlv t : l) {
                c += t.getTag() + t.getValue().length;
            }
        }
        return c;
    }

    static long consumeLazy(Pdu p, int level) throws Exception {
        long c = p.getCommandId() + p.getSequenceNumber();
        if (level == 0 || !(p instanceof SubmitSm s)) {
            return c;
        }
        c += s.getSourceAddress().getAddress().length() + s.getDestAddress().getAddress().length()
                + s.getShortMessage().length + s.getDataCoding() + s.getRegisteredDelivery() + s.getEsmClass();
        if (level == 1) {
            Tlv t = s.getOptionalParameter(UMR);
            return c + (t == null ? 0 : t.getValue()[0]);
        }
        c += s.getServiceType().length() + s.getSourceAddress().getTon() + s.getSourceAddress().getNpi()
                + s.getDestAddress().getTon() + s.getDestAddress().getNpi() + s.getProtocolId() + s.getPriority()
                + s.getScheduleDeliveryTime().length() + s.getValidityPeriod().length() + s.getReplaceIfPresent()
                + s.getDefaultMsgId();
        List<Tlv> l = s.getOptionalParameters();
        if (l != null) {
            for (Tlv t : l) {
                c += t.getTag() + t.getValue().length;
            }
        }
        return c;
    }

    long cloudhopper(int level) throws Exception {
        long c = 0;
        int j = 0;
        for (ChannelBuffer b : bufs) {
            b.readerIndex(0);
            while (b.readable()) {
                Pdu p = ch.decode(b);
                c += consumeCh(p, level);
                keep[j++ & (KEEP - 1)] = p;
            }
        }
        return c;
    }

    long lazy(int level) throws Exception {
        long c = 0;
        int j = 0;
        for (int k = 0; k < callOff.length; k++) {
            LazyPduDecoder.Batch b = lazy.decode(heap, callOff[k], callLen[k]);
            for (int i = 0, m = b.size(); i < m; i++) {
                Pdu p = b.get(i);
                c += consumeLazy(p, level);
                keep[j++ & (KEEP - 1)] = p;
            }
        }
        return c;
    }

    long slabOnly() {
        long c = 0;
        for (int k = 0; k < callOff.length; k++) {
            c += dec.decodeSlab(heap, callOff[k], callLen[k], slab) + slab[SmppDecoder.SLAB_SEQ];
        }
        return c;
    }

    long run(int path) throws Exception {
        if (path == SLAB) {
            return slabOnly();
        }
        return (path & 1) == 0 ? cloudhopper(path >> 1) : lazy(path >> 1);
    }

    static double[] minMedMax(List<Double> a, List<Double> b) {
        double[] q = new double[a.size()];
        for (int j = 0; j < q.length; j++) {
            q[j] = b == null ? a.get(j) : a.get(j) / b.get(j);
        }
        Arrays.sort(q);
        return new double[] {q[0], q[q.length / 2], q[q.length - 1]};
    }

    public static void main(String[] args) throws Exception {
        int pdus = 65536;
        int[] batches = {1000, 8000, 64000};
        double secs = 3, warm = 2;
        int reps = 9;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--pdus" -> pdus = Integer.parseInt(args[i + 1]);
                case "--batch" -> batches = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--secs" -> secs = Double.parseDouble(args[i + 1]);
                case "--warm" -> warm = Double.parseDouble(args[i + 1]);
                case "--reps" -> reps = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("#path\tbatch\tpdus\trounds\tmedian_pdus_s\tmin_pdus_s\tmax_pdus_s"
                + "\tratio_min\tratio_median\tratio_max\tmedian_pdus_per_cpu_s\tcpu_ratio_median");
        for (int batch : batches) {
            ObjectsBench b = new ObjectsBench(pdus, batch);
            /* both must read the same before anything is timed */
            for (int l = 0; l < LEVELS.length; l++) {
                if (b.cloudhopper(l) != b.lazy(l)) {
                    throw new IllegalStateException("level " + LEVELS[l] + ": the decoders disagree");
                }
            }
            boolean[] on = new boolean[SLAB + 1];
            Arrays.fill(on, true);
            BenchRounds m = new BenchRounds(b::run, on, pdus, warm, secs, reps);
            sink += m.sink;
            for (int k = 0; k <= SLAB; k++) {
                String name = k == SLAB ? "slab" : ((k & 1) == 0 ? "cloudhopper-" : "lazy-") + LEVELS[k >> 1];
                int ref = k == SLAB ? 0 : k & ~1;
                double[] r = minMedMax(m.rate.get(k), null);
                double[] q = minMedMax(m.rate.get(k), m.rate.get(ref));
                double[] cr = minMedMax(m.cpuRate.get(k), null);
                double[] cq = minMedMax(m.cpuRate.get(k), m.cpuRate.get(ref));
                System.out.printf("%s\t%d\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.3f\t%.3f\t%.3f\t%.0f\t%.3f%n", name, batch,
                        pdus, m.rounds, r[1], r[0], r[2], q[0], q[1], q[2], cr[1], cq[1]);
            }
            System.out.flush();
            b.lazy.close();
            b.dec.close();
        }
        System.out.println("#sink\t" + (sink & 1));
    }
}
