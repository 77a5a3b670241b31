/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Batches of SMPP PDUs into Cloudhopper's own PDU objects (ch-smpp 5.0.9),
 * decoded lazily: one JNI call per batch fills an int[] slab (the C
 * decoder's records, SmppDecoder.decodeSlab), and each PDU comes out as a
 * subclass of Cloudhopper's class (LazySubmitSm, LazyDeliverSm,
 * LazyDataSm: instanceof SubmitSm ... holds; all three generated from
 * src/main/template/Lazy@sm@.java at build time) that keeps its offset and
 * field lengths from the slab and makes a field's String, Address, byte[]
 * or Tlv from the batch's octets the first time a getter asks for it; the
 * header (command length, id, status, sequence number) is set at once.  What a user reads equals what Cloudhopper's
 * DefaultPduTranscoder makes of the same octets (LazyPduDecoderTest, every
 * accessor and then by reflection); encoding and toString load every field
 * first.  No JNI call per PDU or per field: the objects read the decoder's
 * copy of the octets.
 *
 * The responses with a message id, enquire_link, unbind and generic_nack
 * are made whole from the slab (they have at most one field); the rarer
 * PDUs (binds, query/cancel/replace, alert_notification), every PDU our
 * decoder gives a status (Cloudhopper decides what to make of it) and PDUs
 * over 65535 octets (the records' offsets are 16-bit) go to Cloudhopper's
 * DefaultPduTranscoder on their octets, so their result or exception is
 * Cloudhopper's: Batch.get(i) throws it.
 *
 * One decoder serves one thread at a time (decode is synchronized); the
 * objects it returns may be read from any thread once handed over safely,
 * but a lazy object loads into Cloudhopper's unsynchronized fields, so one
 * object is read by one thread at a time, as Cloudhopper's objects are.
 */
package org.heteroplane.smpp.cloudhopper;

import com.cloudhopper.smpp.pdu.BaseSmResp;
import com.cloudhopper.smpp.pdu.DataSmResp;
import com.cloudhopper.smpp.pdu.DeliverSmResp;
import com.cloudhopper.smpp.pdu.EnquireLink;
import com.cloudhopper.smpp.pdu.EnquireLinkResp;
import com.cloudhopper.smpp.pdu.GenericNack;
import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.pdu.PduResponse;
import com.cloudhopper.smpp.pdu.SubmitSmResp;
import com.cloudhopper.smpp.pdu.Unbind;
import com.cloudhopper.smpp.pdu.UnbindResp;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoder;
import com.cloudhopper.smpp.transcoder.DefaultPduTranscoderContext;
import com.cloudhopper.smpp.transcoder.PduTranscoderContext;
import com.cloudhopper.smpp.type.RecoverablePduException;
import com.cloudhopper.smpp.type.UnrecoverablePduException;

import java.util.Arrays;
import java.util.Objects;

import org.heteroplane.smpp.Smpp;
import org.heteroplane.smpp.SmppConfig;
import org.heteroplane.smpp.SmppDecoder;
import org.jboss.netty.buffer.ChannelBuffers;

import static org.heteroplane.smpp.SmppDecoder.SLAB_ERR_NTLV;
import static org.heteroplane.smpp.SmppDecoder.SLAB_FLEN;
import static org.heteroplane.smpp.SmppDecoder.SLAB_ID;
import static org.heteroplane.smpp.SmppDecoder.SLAB_LEN;
import static org.heteroplane.smpp.SmppDecoder.SLAB_NFIELDS;
import static org.heteroplane.smpp.SmppDecoder.SLAB_OFF;
import static org.heteroplane.smpp.SmppDecoder.SLAB_SEQ;
import static org.heteroplane.smpp.SmppDecoder.SLAB_STATUS;
import static org.heteroplane.smpp.SmppDecoder.SLAB_STRIDE;
import static org.heteroplane.smpp.SmppDecoder.SLAB_TLV;

public final class LazyPduDecoder implements AutoCloseable {
    /** Longer PDUs go to Cloudhopper (the records keep 16-bit offsets). */
    public static final int MAX_PDU = 65535;
    private static final int HEADER = 16;

    private final SmppDecoder dec = new SmppDecoder(new SmppConfig().maxPduLen(MAX_PDU));
    private final DefaultPduTranscoder cloudhopper;
    private final Names names;
    private int[] bounds = new int[64];
    private int[] slab = new int[64 * SLAB_STRIDE];    /* scratch: the objects copy what they need */

    /** The context's TLV names and result messages, cached (it must be a
     * pure function, as DefaultPduTranscoderContext is). */
    static final class Names {
        /* a cached lookup that gave null (identity compared) */
        private static final String NONE = new String("none");
        private final PduTranscoderContext context;
        private final String[] tags = new String[65536];
        private final String[] results = new String[256];

        Names(PduTranscoderContext context) {
            this.context = context;
        }

        String tagName(int tag) {
            String s = tags[tag];
            if (s == null) {
                s = context.lookupTlvTagName((short) tag);
                tags[tag] = s == null ? NONE : s;
                return s;
            }
            return s == NONE ? null : s;
        }

        String resultMessage(int status) {
            if (status < 0 || status >= results.length) {
                return context.lookupResultMessage(status);
            }
            String s = results[status];
            if (s == null) {
                s = context.lookupResultMessage(status);
                results[status] = s == null ? NONE : s;
                return s;
            }
            return s == NONE ? null : s;
        }
    }

    /** The PDUs of one decode(): each a Cloudhopper object or Cloudhopper's exception. */
    public static final class Batch {
        private final Pdu[] pdus;
        private final Exception[] errors;
        private final int n, consumed;

        Batch(Pdu[] pdus, Exception[] errors, int n, int consumed) {
            this.pdus = pdus;
            this.errors = errors;
            this.n = n;
            this.consumed = consumed;
        }

        public int size() {
            return n;
        }

        /** Octets of the input taken: whole PDUs (and a command_length below 16, which ends the batch). */
        public int consumed() {
            return consumed;
        }

        /** PDU i, or the exception Cloudhopper's decoder throws for its octets
         * (the same object each call). */
        public Pdu get(int i) throws RecoverablePduException, UnrecoverablePduException {
            if (i < 0 || i >= n) {
                throw new IndexOutOfBoundsException(i);
            }
            Exception e = errors == null ? null : errors[i];
            if (e instanceof RecoverablePduException r) {
                throw r;
            }
            if (e instanceof UnrecoverablePduException u) {
                throw u;
            }
            if (e instanceof RuntimeException x) {
                throw x;        /* Cloudhopper's decoder throws some (IndexOutOfBounds) */
            }
            return pdus[i];
        }

        /** Cloudhopper's exception for PDU i, or null. */
        public Exception error(int i) {
            Objects.checkIndex(i, n);
            return errors == null ? null : errors[i];
        }
    }

    public LazyPduDecoder() {
        this(new DefaultPduTranscoderContext());
    }

    public LazyPduDecoder(PduTranscoderContext context) {
        if (context == null) {
            throw new IllegalArgumentException("context null");
        }
        cloudhopper = new DefaultPduTranscoder(context);
        names = new Names(context);
    }

    /**
     * Decodes the whole PDUs of in[off, off + len); a trailing part of a
     * PDU is left (see Batch.consumed()).  The octets are copied once, so
     * in may be reused as soon as this returns.
     */
    public synchronized Batch decode(byte[] in, int off, int len) {
        Objects.checkFromIndexSize(off, len, in.length);
        /* frame: bounds[k] = PDU k's first octet; a command_length below 16
         * ends the batch with Cloudhopper's exception for it */
        int p = off, end = off + len, n = 0;
        boolean bad = false;
        while (end - p >= 4) {
            int l = (in[p] & 0xff) << 24 | (in[p + 1] & 0xff) << 16 | (in[p + 2] & 0xff) << 8 | (in[p + 3] & 0xff);
            if (l < HEADER) {       /* 0x80000000 and up too: Cloudhopper reads a signed int */
                bad = true;
                break;
            }
            if (l > end - p) {
                break;
            }
            if (n + 1 >= bounds.length) {
                bounds = Arrays.copyOf(bounds, 2 * bounds.length);
            }
            bounds[n++] = p - off;
            p += l;
        }
        bounds[n] = p - off;
        byte[] a = Arrays.copyOfRange(in, off, bad ? end : p);
        LazyOctets d = new LazyOctets(a, names);
        Pdu[] out = new Pdu[n + (bad ? 1 : 0)];
        Exception[] err = null;
        /* runs of PDUs the records can carry, one JNI call each */
        for (int i = 0; i < n; ) {
            if (bounds[i + 1] - bounds[i] > MAX_PDU) {
                err = viaCloudhopper(a, bounds[i], bounds[i + 1] - bounds[i], out, err, i, n + 1);
                i++;
                continue;
            }
            int j = i + 1;
            while (j < n && bounds[j + 1] - bounds[j] <= MAX_PDU) {
                j++;
            }
            err = run(d, i, j, out, err, n + 1);
            i = j;
        }
        if (bad) {
            err = viaCloudhopper(a, bounds[n], end - p, out, err, n, n + 1);
        }
        return new Batch(out, err, out.length, bad ? len : p - off);
    }

    /* PDUs i..j-1 (bounds) through one decodeSlab call. */
    private Exception[] run(LazyOctets d, int i, int j, Pdu[] out, Exception[] err, int cap) {
        if (slab.length < (j - i) * SLAB_STRIDE) {
            slab = new int[Math.max((j - i) * SLAB_STRIDE, 2 * slab.length)];
        }
        int[] s = slab;
        int m = dec.decodeSlab(d.a, bounds[i], bounds[j] - bounds[i], s);
        if (m != j - i) {
            throw new IllegalStateException("decodeSlab framed " + m + " PDUs, expected " + (j - i));
        }
        for (int k = 0, b = 0; k < m; k++, b += SLAB_STRIDE) {
            Pdu pdu = (s[b + SLAB_ERR_NTLV] & 0xffff) == Smpp.ESME_ROK ? make(d, s, b) : null;
            if (pdu == null) {
                err = viaCloudhopper(d.a, s[b + SLAB_OFF], s[b + SLAB_LEN], out, err, i + k, cap);
            } else {
                out[i + k] = pdu;
            }
        }
        return err;
    }

    /* Length of mandatory field k of the PDU at slab index b. */
    private static long fl(int[] s, int b, int k) {
        return s[b + SLAB_FLEN + (k >> 2)] >>> ((k & 3) << 3) & 0xff;
    }

    private Exception[] viaCloudhopper(byte[] a, int off, int len, Pdu[] out, Exception[] err, int i, int cap) {
        try {
            out[i] = cloudhopper.decode(ChannelBuffers.wrappedBuffer(a, off, len));
        } catch (RecoverablePduException | UnrecoverablePduException | RuntimeException e) {
            if (err == null) {
                err = new Exception[cap];
            }
            err[i] = e;
        }
        return err;
    }

    /* The PDU at slab index b, or null where Cloudhopper decides. */
    private Pdu make(LazyOctets d, int[] s, int b) {
        int status = s[b + SLAB_STATUS], off = s[b + SLAB_OFF];
        int tlv = s[b + SLAB_TLV], ntlv = s[b + SLAB_ERR_NTLV] >>> 16;
        Pdu p;
        int id = s[b + SLAB_ID];
        if (id == Smpp.SUBMIT_SM || id == Smpp.DELIVER_SM || id == Smpp.DATA_SM) {
            /* field indexes of v3.4's table: service_type 0, source_addr 3,
             * destination_addr 6, schedule_delivery_time 10,
             * validity_period 11, short_message 17 */
            long lens = fl(s, b, 0) | fl(s, b, 3) << 8 | fl(s, b, 6) << 16;
            if (id == Smpp.DATA_SM) {
                p = new LazyDataSm(d, off, lens, tlv, ntlv);
            } else {
                lens |= fl(s, b, 10) << 24 | fl(s, b, 11) << 32 | fl(s, b, 17) << 40;
                p = id == Smpp.SUBMIT_SM ? new LazySubmitSm(d, off, lens, tlv, ntlv)
                        : new LazyDeliverSm(d, off, lens, tlv, ntlv);
            }
            p.setCommandLength(s[b + SLAB_LEN]);
            p.setSequenceNumber(s[b + SLAB_SEQ]);
            p.setCommandStatus(status);
            return p;
        }
        switch (id) {
            case Smpp.SUBMIT_SM_RESP -> p = resp(new SubmitSmResp(), d, s, b);
            case Smpp.DELIVER_SM_RESP -> p = resp(new DeliverSmResp(), d, s, b);
            case Smpp.DATA_SM_RESP -> p = resp(new DataSmResp(), d, s, b);
            case Smpp.ENQUIRE_LINK -> p = new EnquireLink();
            case Smpp.ENQUIRE_LINK_RESP -> p = new EnquireLinkResp();
            case Smpp.UNBIND -> p = new Unbind();
            case Smpp.UNBIND_RESP -> p = new UnbindResp();
            case Smpp.GENERIC_NACK -> p = new GenericNack();
            default -> {
                return null;
            }
        }
        p.setCommandLength(s[b + SLAB_LEN]);
        p.setCommandStatus(status);
        p.setSequenceNumber(s[b + SLAB_SEQ]);
        if (p instanceof PduResponse r) {
            r.setResultMessage(names.resultMessage(status));
        }
        if (ntlv > 0) {
            d.addTlvs(p, tlv, ntlv, null);
        }
        return p;
    }

    /* message_id; a response without body reads null, as Cloudhopper's
     * C-string reader gives on an empty buffer */
    private static Pdu resp(BaseSmResp r, LazyOctets d, int[] s, int b) {
        r.setMessageId(s[b + SLAB_NFIELDS] == 0 ? null : d.str(s[b + SLAB_OFF] + HEADER, (int) fl(s, b, 0)));
        return r;
    }

    @Override
    public void close() {
        dec.close();
    }
}
