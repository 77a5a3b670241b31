/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cloudhopper's PduTranscoder (com.cloudhopper:ch-smpp 5.0.9) backed by the
 * JNI batch decoder: decode() returns Cloudhopper's own PDU objects
 * (SubmitSm, DeliverSm, BindTransmitter, ... with Address and Tlv), equal
 * field for field to what Cloudhopper's DefaultPduTranscoder makes of the
 * same bytes; encode() is Cloudhopper's.
 *
 * Batching under a per-PDU interface: Cloudhopper's SmppSessionPduDecoder
 * (a Netty FrameDecoder) calls decode(buffer) once per PDU for as long as it
 * returns one.  The first call decodes every complete PDU in the buffer's
 * readable bytes (up to maxBatch) in one JNI call (SmppDecoder over the
 * buffer's own array, pinned, no copy; a copy for buffers without one) and
 * builds the PDU at the reader index; the following calls build the next
 * records, each after checking that the buffer, reader index, length,
 * command id and sequence number are still the record's.  Decoder state is
 * per thread (one SmppDecoder per I/O thread), so one instance serves all
 * the connections of a server.  The contract is the one Netty's
 * FrameDecoder keeps: readable bytes not yet consumed are not rewritten in
 * place between two calls.
 *
 * Fallback: every PDU the compact records cannot carry as a Cloudhopper
 * object goes to Cloudhopper's DefaultPduTranscoder on the same bytes, so
 * its result or exception is exactly Cloudhopper's: a status from our
 * decoder (a field over its v3.4 length, a known TLV of a wrong length,
 * a truncated body, an unknown command id ...: Cloudhopper decides), a
 * command Cloudhopper has no class for (outbind, submit_multi), a
 * query_sm_resp without body, a PDU over 65535 octets, a command_length
 * below 16 (Cloudhopper's UnrecoverablePduException).  Each is counted by
 * reason (fallbackReasons()).
 */
package org.heteroplane.smpp.cloudhopper;

import com.cloudhopper.smpp.channel.SmppChannelConstants;
import com.cloudhopper.smpp.channel.SmppSessionPduDecoder;
import com.cloudhopper.smpp.pdu.AlertNotification;
import com.cloudhopper.smpp.pdu.BaseBind;
import com.cloudhopper.smpp.pdu.BaseBindResp;
import com.cloudhopper.smpp.pdu.BaseSm;
import com.cloudhopper.smpp.pdu.BaseSmResp;
import com.cloudhopper.smpp.pdu.BindReceiver;
import com.cloudhopper.smpp.pdu.BindReceiverResp;
import com.cloudhopper.smpp.pdu.BindTransceiver;
import com.cloudhopper.smpp.pdu.BindTransceiverResp;
import com.cloudhopper.smpp.pdu.BindTransmitter;
import com.cloudhopper.smpp.pdu.BindTransmitterResp;
import com.cloudhopper.smpp.pdu.CancelSm;
import com.cloudhopper.smpp.pdu.CancelSmResp;
import com.cloudhopper.smpp.pdu.DataSm;
import com.cloudhopper.smpp.pdu.DataSmResp;
import com.cloudhopper.smpp.pdu.DeliverSm;
import com.cloudhopper.smpp.pdu.DeliverSmResp;
import com.cloudhopper.smpp.pdu.EnquireLink;
import com.cloudhopper.smpp.pdu.EnquireLinkResp;
import com.cloudhopper.smpp.pdu.GenericNack;
import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.pdu.PduResponse;
import com.cloudhopper.smpp.pdu.QuerySm;
import com.cloudhopper.smpp.pdu.QuerySmResp;
import com.cloudhopper.smpp.pdu.ReplaceSm;
import com.cloudhopper.smpp.pdu.ReplaceSmResp;
import com.cloudhopper.smpp.pdu.SubmitSm;
import com.cloudhopper.smpp.pdu.SubmitSmResp;
import com.cloudhopper.smpp.pdu.Unbind;
import com.cloudhopper.smpp.pdu.UnbindResp;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoder;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoderContext;
import com.cloudhopper.smpp.transcoder.PduTranscoder;
import com.cloudhopper.smpp.transcoder.PduTranscoderContext;
import com.cloudhopper.smpp.type.Address;
import com.cloudhopper.smpp.type.RecoverablePduException;
import com.cloudhopper.smpp.type.SmppInvalidArgumentException;
import com.cloudhopper.smpp.type.UnrecoverablePduException;

import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

import org.heteroplane.smpp.DecodedBatch;
import org.heteroplane.smpp.Mode;
import org.heteroplane.smpp.Smpp;
import org.heteroplane.smpp.SmppConfig;
import org.heteroplane.smpp.SmppDecoder;
import org.jboss.netty.buffer.ChannelBuffer;
import org.jboss.netty.channel.Channel;

public final class JniPduTranscoder implements PduTranscoder, AutoCloseable {
    /** PDUs per JNI call at most (a socket read of 64 KiB holds ~600 thesis-mix PDUs). */
    public static final int DEFAULT_MAX_BATCH = 1024;
    /** The compact records keep 16-bit offsets: longer PDUs go to Cloudhopper. */
    public static final int MAX_PDU = 65535;

    private static final int HEADER = 16;
    private static final String EMPTY = "";
    /* a cached lookup that gave null (identity compared) */
    private static final String NO_NAME = new String("no name");

    private final PduTranscoderContext context;
    private final DefaultPduTranscoder cloudhopper;
    private final int maxBatch;
    private final ThreadLocal<State> state = ThreadLocal.withInitial(this::newState);
    private final ConcurrentLinkedQueue<State> states = new ConcurrentLinkedQueue<>();
    private final ConcurrentHashMap<String, LongAdder> reasons = new ConcurrentHashMap<>();
    private final LongAdder fallbacks = new LongAdder();
    /* counters of states whose thread ended */
    private final LongAdder goneNative = new LongAdder(), goneCalls = new LongAdder();
    private final String[] tagNames = new String[65536];
    private final String[] resultMessages = new String[256];
    private volatile boolean closed;

    /** One thread's decoder and the batch it decoded last. */
    private static final class State {
        final WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());
        final SmppDecoder dec = new SmppDecoder(new SmppConfig().maxPduLen(MAX_PDU));
        final byte[] flen = new byte[32];
        final Fields f = new Fields();
        ChannelBuffer buf;      /* the buffer the batch came from (identity) */
        DecodedBatch batch;
        byte[] arr;             /* what the batch's offsets index */
        int delta;              /* buffer index = array index + delta */
        int cur, n;
        int limit;              /* PDUs per JNI call now: shrinks on thrashing */
        byte[] scratch = new byte[0];
        long nativePdus, calls; /* written by the owner, read racily by stats */
    }

    public JniPduTranscoder() {
        this(new DefaultPduTranscoderContext());
    }

    public JniPduTranscoder(PduTranscoderContext context) {
        this(context, DEFAULT_MAX_BATCH);
    }

    /**
     * @param context  TLV names and result messages, as Cloudhopper's
     *                 DefaultPduTranscoder takes it; its answers are cached
     *                 per tag and per status below 256, so it must be a
     *                 pure function (DefaultPduTranscoderContext is)
     * @param maxBatch PDUs per JNI call at most
     */
    public JniPduTranscoder(PduTranscoderContext context, int maxBatch) {
        if (context == null || maxBatch < 1) {
            throw new IllegalArgumentException("context null or maxBatch < 1");
        }
        this.context = context;
        this.cloudhopper = new DefaultPduTranscoder(context);
        this.maxBatch = maxBatch;
    }

    private State newState() {
        State s = new State();
        s.limit = maxBatch;
        /* states of ended threads: free their decoders, keep their counts */
        for (Iterator<State> it = states.iterator(); it.hasNext(); ) {
            State o = it.next();
            if (o.owner.get() == null || !o.owner.get().isAlive()) {
                goneNative.add(o.nativePdus);
                goneCalls.add(o.calls);
                o.dec.close();
                it.remove();
            }
        }
        states.add(s);
        return s;
    }

    /**
     * Puts a SmppSessionPduDecoder over this transcoder in the place of the
     * one Cloudhopper put in ch's pipeline (its name is
     * SmppChannelConstants.PIPELINE_SESSION_PDU_DECODER_NAME): for a
     * session made some other way than JniSmppClient / JniSmppServer, e.g.
     * {@code transcoder.installOn(session.getChannel())} right after it was
     * created, before the peer sent anything (bytes the old decoder holds
     * are not moved over).
     *
     * @throws java.util.NoSuchElementException the pipeline has no such decoder
     */
    public void installOn(Channel ch) {
        ch.getPipeline().replace(SmppChannelConstants.PIPELINE_SESSION_PDU_DECODER_NAME,
                SmppChannelConstants.PIPELINE_SESSION_PDU_DECODER_NAME, new SmppSessionPduDecoder(this));
    }

    /** Cloudhopper's encoder. */
    @Override
    public ChannelBuffer encode(Pdu pdu) throws UnrecoverablePduException, RecoverablePduException {
        return cloudhopper.encode(pdu);
    }

    /**
     * The PDU at buf's reader index, or null when the buffer holds less
     * than a whole PDU (reader index unchanged); the reader index moves past
     * the PDU.  Results and exceptions are those of Cloudhopper's
     * DefaultPduTranscoder for the same bytes.
     */
    @Override
    public Pdu decode(ChannelBuffer buf) throws UnrecoverablePduException, RecoverablePduException {
        int ri = buf.readerIndex(), avail = buf.writerIndex() - ri;
        if (avail < 4) {
            return null;
        }
        int len = buf.getInt(ri);
        if (len < HEADER) {
            return fallback(buf, "command_length < 16");
        }
        if (avail < len) {
            return null;
        }
        if (closed) {
            return fallback(buf, "transcoder closed");
        }
        State st = state.get();
        Pdu p;
        String why = null;
        try {
            if (!hit(st, buf, ri, len)) {
                if (len > MAX_PDU) {
                    return fallback(buf, "command_length > 65535");
                }
                load(st, buf, ri);
            }
            int i = st.cur++;
            p = build(st, i);
            if (p == null) {
                why = reason(st.batch, i);
            }
        } catch (IllegalStateException e) {
            if (!closed) {
                throw e;
            }
            return fallback(buf, "transcoder closed");    /* close() meanwhile */
        } catch (SmppInvalidArgumentException | RuntimeException e) {
            /* not expected: the record said ESME_ROK; Cloudhopper decides */
            return fallback(buf, "record not buildable: " + e.getClass().getSimpleName());
        }
        if (p == null) {
            return fallback(buf, why);
        }
        buf.readerIndex(ri + len);
        st.nativePdus++;
        return p;
    }

    /* Is the next record of st's batch the PDU at buf[ri]? */
    private static boolean hit(State st, ChannelBuffer buf, int ri, int len) {
        if (st.buf != buf || st.cur >= st.n) {
            return false;
        }
        DecodedBatch b = st.batch;
        int i = st.cur;
        return b.pduOffset(i) + st.delta == ri && b.length(i) == len
                && b.commandId(i) == buf.getInt(ri + 4) && b.sequenceNumber(i) == buf.getInt(ri + 12);
    }

    /* One JNI call over the whole PDUs from buf[ri] on (at least the one at
     * ri, which the caller checked is whole and at most MAX_PDU octets). */
    private void load(State st, ChannelBuffer buf, int ri) {
        if (st.cur < st.n) {
            st.limit = Math.max(1, st.limit >> 2);     /* left records unused */
        } else if (st.limit < maxBatch) {
            st.limit = Math.min(maxBatch, st.limit << 1);
        }
        int wi = buf.writerIndex(), p = ri, n = 0;
        while (n < st.limit && wi - p >= HEADER) {
            int l = buf.getInt(p);
            if (l < HEADER || l > MAX_PDU || l > wi - p) {
                break;
            }
            p += l;
            n++;
        }
        int off;
        if (buf.hasArray()) {
            st.arr = buf.array();
            off = buf.arrayOffset() + ri;
        } else {
            if (st.scratch.length < p - ri) {
                st.scratch = new byte[Math.max(p - ri, 2 * st.scratch.length)];
            }
            buf.getBytes(ri, st.scratch, 0, p - ri);
            st.arr = st.scratch;
            off = 0;
        }
        st.batch = st.dec.decode(st.arr, off, p - ri, Mode.CPU);
        st.buf = buf;
        st.delta = ri - off;
        st.cur = 0;
        st.n = st.batch.size();
        st.calls++;
    }

    private Pdu fallback(ChannelBuffer buf, String why) throws UnrecoverablePduException,
            RecoverablePduException {
        fallbacks.increment();
        reasons.computeIfAbsent(why, k -> new LongAdder()).increment();
        return cloudhopper.decode(buf);
    }

    private static String reason(DecodedBatch b, int i) {
        int e = b.error(i);
        if (e != Smpp.ESME_ROK) {
            return "decoder status " + Smpp.statusName(e);
        }
        Smpp.PduType t = Smpp.pduType(b.commandId(i));
        return (t == null ? String.format("0x%08x", b.commandId(i)) : t.name)
                + (b.fieldCount(i) == 0 && t != null && t.fieldCount() > 0 ? " without body"
                        : ": no Cloudhopper class");
    }

    /* ---- records to Cloudhopper objects ---- */

    private static String str(byte[] a, int off, int len) {
        return len == 0 ? EMPTY : new String(a, off, len, StandardCharsets.ISO_8859_1);
    }

    private String tagName(int tag) {
        String s = tagNames[tag];
        if (s == null) {
            s = context.lookupTlvTagName((short) tag);
            tagNames[tag] = s == null ? NO_NAME : s;
            return s;
        }
        return s == NO_NAME ? null : s;
    }

    private String resultMessage(int status) {
        if (status < 0 || status >= resultMessages.length) {
            return context.lookupResultMessage(status);
        }
        String s = resultMessages[status];
        if (s == null) {
            s = context.lookupResultMessage(status);
            resultMessages[status] = s == null ? NO_NAME : s;
            return s;
        }
        return s == NO_NAME ? null : s;
    }

    /* A cursor over one PDU's mandatory fields in wire order. */
    private static final class Fields {
        byte[] a;
        byte[] fl;
        int o;                  /* next field's array index */
        int k;                  /* next field's index */

        String cstr() {
            int l = fl[k++] & 0xff;
            String s = str(a, o, l);
            o += l + 1;
            return s;
        }

        byte u8() {
            k++;
            return a[o++];
        }

        Address addr() {
            byte ton = a[o], npi = a[o + 1];
            o += 2;
            k += 2;
            return new Address(ton, npi, cstr());
        }

        /* sm_length and short_message */
        byte[] sm() {
            int l = a[o] & 0xff;
            o++;
            k += 2;
            byte[] m = Arrays.copyOfRange(a, o, o + l);
            o += l;
            return m;
        }
    }

    /* PDU i of st's batch as Cloudhopper's object, or null where it is
     * Cloudhopper's to decode (see the class comment). */
    private Pdu build(State st, int i) throws SmppInvalidArgumentException {
        DecodedBatch b = st.batch;
        if (b.error(i) != Smpp.ESME_ROK) {
            return null;
        }
        int id = b.commandId(i), status = b.commandStatus(i);
        byte[] a = st.arr;
        int nf = b.fieldLengths(i, st.flen);
        Fields f = st.f;
        f.a = a;
        f.fl = st.flen;
        f.o = b.pduOffset(i) + HEADER;
        f.k = 0;
        Pdu p;
        switch (id) {
            case Smpp.SUBMIT_SM -> p = sm(new SubmitSm(), f);
            case Smpp.DELIVER_SM -> p = sm(new DeliverSm(), f);
            case Smpp.DATA_SM -> {
                DataSm d = new DataSm();
                d.setServiceType(f.cstr());
                d.setSourceAddress(f.addr());
                d.setDestAddress(f.addr());
                d.setEsmClass(f.u8());
                d.setRegisteredDelivery(f.u8());
                d.setDataCoding(f.u8());
                p = d;
            }
            case Smpp.SUBMIT_SM_RESP -> p = smResp(new SubmitSmResp(), f, nf);
            case Smpp.DELIVER_SM_RESP -> p = smResp(new DeliverSmResp(), f, nf);
            case Smpp.DATA_SM_RESP -> p = smResp(new DataSmResp(), f, nf);
            case Smpp.BIND_TRANSMITTER -> p = bind(new BindTransmitter(), f);
            case Smpp.BIND_RECEIVER -> p = bind(new BindReceiver(), f);
            case Smpp.BIND_TRANSCEIVER -> p = bind(new BindTransceiver(), f);
            case Smpp.BIND_TRANSMITTER_RESP -> p = bindResp(new BindTransmitterResp(), f, nf);
            case Smpp.BIND_RECEIVER_RESP -> p = bindResp(new BindReceiverResp(), f, nf);
            case Smpp.BIND_TRANSCEIVER_RESP -> p = bindResp(new BindTransceiverResp(), f, nf);
            case Smpp.ENQUIRE_LINK -> p = new EnquireLink();
            case Smpp.ENQUIRE_LINK_RESP -> p = new EnquireLinkResp();
            case Smpp.UNBIND -> p = new Unbind();
            case Smpp.UNBIND_RESP -> p = new UnbindResp();
            case Smpp.GENERIC_NACK -> p = new GenericNack();
            case Smpp.CANCEL_SM_RESP -> p = new CancelSmResp();
            case Smpp.REPLACE_SM_RESP -> p = new ReplaceSmResp();
            case Smpp.QUERY_SM -> {
                QuerySm q = new QuerySm();
                q.setMessageId(f.cstr());
                q.setSourceAddress(f.addr());
                p = q;
            }
            case Smpp.QUERY_SM_RESP -> {
                if (nf == 0) {
                    return null;    /* Cloudhopper reads past the end: its exception */
                }
                QuerySmResp q = new QuerySmResp();
                q.setMessageId(f.cstr());
                q.setFinalDate(f.cstr());
                q.setMessageState(f.u8());
                q.setErrorCode(f.u8());
                p = q;
            }
            case Smpp.CANCEL_SM -> {
                CancelSm c = new CancelSm();
                c.setServiceType(f.cstr());
                c.setMessageId(f.cstr());
                c.setSourceAddress(f.addr());
                c.setDestAddress(f.addr());
                p = c;
            }
            case Smpp.REPLACE_SM -> {
                ReplaceSm r = new ReplaceSm();
                r.setMessageId(f.cstr());
                r.setSourceAddress(f.addr());
                r.setScheduleDeliveryTime(f.cstr());
                r.setValidityPeriod(f.cstr());
                r.setRegisteredDelivery(f.u8());
                r.setDefaultMsgId(f.u8());
                r.setShortMessage(f.sm());
                p = r;
            }
            case Smpp.ALERT_NOTIFICATION -> {
                AlertNotification an = new AlertNotification();
                an.setSourceAddress(f.addr());
                an.setEsmeAddress(f.addr());
                p = an;
            }
            default -> {
                return null;        /* outbind, submit_multi[_resp]: no class */
            }
        }
        p.setCommandLength(b.length(i));
        p.setCommandStatus(status);
        p.setSequenceNumber(b.sequenceNumber(i));
        if (p instanceof PduResponse r) {
            r.setResultMessage(resultMessage(status));
        }
        int nt = b.tlvCount(i);
        if (nt > 0) {
            int q = b.tlvAreaOffset(i);
            for (int k = 0; k < nt; k++) {
                int tag = (a[q] & 0xff) << 8 | (a[q + 1] & 0xff);
                int l = (a[q + 2] & 0xff) << 8 | (a[q + 3] & 0xff);
                p.addOptionalParameter(new Tlv((short) tag, Arrays.copyOfRange(a, q + 4, q + 4 + l),
                        tagName(tag)));
                q += 4 + l;
            }
        }
        return p;
    }

    private static Pdu sm(BaseSm<?> s, Fields f) throws SmppInvalidArgumentException {
        s.setServiceType(f.cstr());
        s.setSourceAddress(f.addr());
        s.setDestAddress(f.addr());
        s.setEsmClass(f.u8());
        s.setProtocolId(f.u8());
        s.setPriority(f.u8());
        s.setScheduleDeliveryTime(f.cstr());
        s.setValidityPeriod(f.cstr());
        s.setRegisteredDelivery(f.u8());
        s.setReplaceIfPresent(f.u8());
        s.setDataCoding(f.u8());
        s.setDefaultMsgId(f.u8());
        s.setShortMessage(f.sm());
        return s;
    }

    /* A response without body (status != 0, header only) reads null, as
     * Cloudhopper's C-string reader gives on an empty buffer. */
    private static Pdu smResp(BaseSmResp r, Fields f, int nf) {
        r.setMessageId(nf == 0 ? null : f.cstr());
        return r;
    }

    private static Pdu bindResp(BaseBindResp r, Fields f, int nf) {
        r.setSystemId(nf == 0 ? null : f.cstr());
        return r;
    }

    private static Pdu bind(BaseBind<?> b, Fields f) {
        b.setSystemId(f.cstr());
        b.setPassword(f.cstr());
        b.setSystemType(f.cstr());
        b.setInterfaceVersion(f.u8());
        b.setAddressRange(f.addr());
        return b;
    }

    /* ---- counters ---- */

    /** PDUs built from the JNI decoder's records (all threads). */
    public long nativeDecoded() {
        long s = goneNative.sum();
        for (State st : states) {
            s += st.nativePdus;
        }
        return s;
    }

    /** JNI batch calls made. */
    public long nativeCalls() {
        long s = goneCalls.sum();
        for (State st : states) {
            s += st.calls;
        }
        return s;
    }

    /** PDUs (or command_length faults) handed to Cloudhopper's decoder. */
    public long fallbacks() {
        return fallbacks.sum();
    }

    /** Fallbacks by reason, e.g. "decoder status ESME_RINVSRCADR",
     * "submit_multi: no Cloudhopper class", "query_sm_resp without body",
     * "command_length > 65535", "command_length < 16". */
    public Map<String, Long> fallbackReasons() {
        Map<String, Long> m = new TreeMap<>();
        reasons.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    /** Frees the per-thread native decoders; later decodes go to Cloudhopper's. */
    @Override
    public void close() {
        closed = true;
        for (State st : states) {
            st.dec.close();
        }
    }
}
