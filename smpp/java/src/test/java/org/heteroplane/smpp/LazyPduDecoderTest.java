/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LazyPduDecoder against Cloudhopper's own DefaultPduTranscoder on the same
 * octets: the thesis mix, 2400 Cloudhopper-made PDUs of every type, the
 * smpplib-made corpus (when test_smpp_java.py passes it), the fuzz seeds,
 * mutants, and hand-made odd cases (UDH with esm_class 0x40, UCS2, an
 * empty short_message with message_payload, a repeated TLV tag, Latin-1
 * octets in addresses, a PDU over 65535 octets, command_length below 16).
 * Per PDU: Cloudhopper's result or exception; for a lazy object every
 * accessor a Cloudhopper user calls, in a random order (so each field is
 * made from the octets alone, before or after the others), TLVs looked up
 * by tag before the list is made, then toString, the encoding and every
 * field by reflection equal to Cloudhopper's object.
 */
package org.heteroplane.smpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.cloudhopper.smpp.pdu.BaseSm;
import com.cloudhopper.smpp.pdu.BaseSmResp;
import com.cloudhopper.smpp.pdu.DataSm;
import com.cloudhopper.smpp.pdu.DeliverSm;
import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.pdu.PduResponse;
import com.cloudhopper.smpp.pdu.SubmitSm;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.type.Address;
import com.cloudhopper.smpp.type.UnrecoverablePduException;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.heteroplane.smpp.cloudhopper.LazyPduDecoder;
import org.jboss.netty.buffer.ChannelBuffer;
import org.jboss.netty.buffer.ChannelBuffers;
import org.junit.jupiter.api.Test;

class LazyPduDecoderTest {
    interface Check {
        void run() throws Exception;
    }

    /** Cloudhopper's outcomes PDU by PDU: a Pdu or an Exception each. */
    static List<Object> cloudhopper(byte[] stream) {
        List<Object> out = new ArrayList<>();
        ChannelBuffer b = ChannelBuffers.wrappedBuffer(stream);
        while (b.readableBytes() >= 4) {
            int ri = b.readerIndex(), len = b.getInt(ri);
            try {
                Pdu p = Ch.TC.decode(b);
                if (p == null) {
                    break;
                }
                out.add(p);
            } catch (UnrecoverablePduException e) {
                out.add(e);
                if (len < 16) {
                    break;
                }
                b.readerIndex(ri + len);
            } catch (Exception e) {
                out.add(e);
                b.readerIndex(ri + len);
            }
        }
        return out;
    }

    /** Our outcomes, decoding in batches of random sizes cut at PDU
     * boundaries or inside a PDU (then the rest comes with the next). */
    static List<Object> lazy(LazyPduDecoder dec, byte[] stream, Random r) {
        List<Object> out = new ArrayList<>();
        int p = 0;
        while (p < stream.length) {
            int want = r.nextInt(4) == 0 ? stream.length - p : 1 + r.nextInt(Math.min(stream.length - p, 20000));
            LazyPduDecoder.Batch b = dec.decode(stream, p, want);
            if (b.size() == 0) {
                if (p + want == stream.length) {
                    break;      /* a trailing part */
                }
                continue;
            }
            for (int i = 0; i < b.size(); i++) {
                try {
                    out.add(b.get(i));
                } catch (Exception e) {
                    out.add(e);
                }
            }
            p += b.consumed();
        }
        return out;
    }

    static void same(Object want, Object got, String what) {
        if (want instanceof Exception w) {
            assertTrue(got instanceof Exception, what + ": want " + w + ", got " + got);
            assertEquals(w.getClass(), got.getClass(), what);
            assertEquals(w.getMessage(), ((Exception) got).getMessage(), what);
            return;
        }
        assertTrue(got instanceof Pdu, what + ": want " + want + ", got " + got);
        Pdu w = (Pdu) want, g = (Pdu) got;
        assertTrue(w.getClass().isInstance(g), what + ": " + g.getClass() + " is no " + w.getClass());
        assertEquals(w.getCommandId(), g.getCommandId(), what);
        assertEquals(w.getCommandLength(), g.getCommandLength(), what);
        assertEquals(w.getCommandStatus(), g.getCommandStatus(), what);
        assertEquals(w.getSequenceNumber(), g.getSequenceNumber(), what);
        assertEquals(w.getName(), g.getName(), what);
        if (w instanceof PduResponse wr) {
            assertEquals(wr.getResultMessage(), ((PduResponse) g).getResultMessage(), what);
        }
        if (w instanceof BaseSmResp wr) {
            assertEquals(wr.getMessageId(), ((BaseSmResp) g).getMessageId(), what);
        }
        if (w instanceof BaseSm<?> ws) {
            accessors(ws, (BaseSm<?>) g, what);
        }
        /* what reads Cloudhopper's fields directly: printing, encoding, reflection */
        assertEquals(w.toString(), g.toString(), what + ": toString");
        encoding(w, g, what);
        fields(w, g, what);
    }

    /* The same octets, or the same exception (Cloudhopper cannot encode
     * some of what it decodes, e.g. a stale command_length with a null
     * system_id). */
    static void encoding(Pdu w, Pdu g, String what) {
        Object we, ge;
        try {
            ChannelBuffer b = Ch.TC.encode(w);
            we = java.util.Arrays.toString(java.util.Arrays.copyOfRange(b.array(), b.arrayOffset() + b.readerIndex(),
                    b.arrayOffset() + b.writerIndex()));
        } catch (Exception e) {
            we = e.getClass();
        }
        try {
            ChannelBuffer b = Ch.TC.encode(g);
            ge = java.util.Arrays.toString(java.util.Arrays.copyOfRange(b.array(), b.arrayOffset() + b.readerIndex(),
                    b.arrayOffset() + b.writerIndex()));
        } catch (Exception e) {
            ge = e.getClass();
        }
        assertEquals(we, ge, what + ": encoding");
    }

    /* Every accessor of BaseSm and the TLVs, in a random order. */
    static void accessors(BaseSm<?> w, BaseSm<?> g, String what) {
        Random r = new Random(what.hashCode());
        List<Check> c = new ArrayList<>(List.of(
            () -> assertEquals(w.getServiceType(), g.getServiceType(), what + ": service_type"),
            () -> addr(w.getSourceAddress(), g.getSourceAddress(), what + ": source"),
            () -> addr(w.getDestAddress(), g.getDestAddress(), what + ": dest"),
            () -> assertEquals(w.getEsmClass(), g.getEsmClass(), what + ": esm_class"),
            () -> assertEquals(w.getProtocolId(), g.getProtocolId(), what + ": protocol_id"),
            () -> assertEquals(w.getPriority(), g.getPriority(), what + ": priority"),
            () -> assertEquals(w.getScheduleDeliveryTime(), g.getScheduleDeliveryTime(), what + ": schedule"),
            () -> assertEquals(w.getValidityPeriod(), g.getValidityPeriod(), what + ": validity"),
            () -> assertEquals(w.getRegisteredDelivery(), g.getRegisteredDelivery(), what + ": registered"),
            () -> assertEquals(w.getReplaceIfPresent(), g.getReplaceIfPresent(), what + ": replace"),
            () -> assertEquals(w.getDataCoding(), g.getDataCoding(), what + ": data_coding"),
            () -> assertEquals(w.getDefaultMsgId(), g.getDefaultMsgId(), what + ": default_msg_id"),
            () -> assertEquals(w.getShortMessageLength(), g.getShortMessageLength(), what + ": sm_length"),
            () -> assertArrayEquals(w.getShortMessage(), g.getShortMessage(), what + ": short_message"),
            () -> assertEquals(w.getOptionalParameterCount(), g.getOptionalParameterCount(), what + ": TLVs"),
            () -> {
                List<Tlv> wl = w.getOptionalParameters();
                List<Short> tags = new ArrayList<>(List.of((short) 0x1234, (short) 0x0424, (short) 0x0204));
                if (wl != null) {
                    wl.forEach(t -> tags.add(t.getTag()));
                }
                Collections.shuffle(tags, r);
                for (short t : tags) {
                    assertEquals(w.hasOptionalParameter(t), g.hasOptionalParameter(t), what + ": has " + t);
                    Tlv wt = w.getOptionalParameter(t), gt = g.getOptionalParameter(t);
                    Deep.assertSame(wt, gt, what + ": TLV " + t);
                    if (gt != null) {
                        assertTrue(gt == g.getOptionalParameter(t), what + ": the same Tlv twice");
                    }
                }
            }));
        Collections.shuffle(c, r);
        try {
            for (Check k : c) {
                k.run();
            }
        } catch (Exception e) {
            throw new AssertionError(what, e);
        }
        Deep.assertSame(w.getOptionalParameters(), g.getOptionalParameters(), what + ": TLV list");
    }

    static void addr(Address w, Address g, String what) {
        Deep.assertSame(w, g, what);
    }

    /* Every field from Cloudhopper's class up, by reflection. */
    static void fields(Pdu w, Pdu g, String what) {
        for (Class<?> c = w.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                f.setAccessible(true);
                try {
                    Deep.assertSame(f.get(w), f.get(g), what + "." + f.getName());
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    static int agree(LazyPduDecoder dec, byte[] stream, long seed, String what) {
        List<Object> want = cloudhopper(stream), got = lazy(dec, stream, new Random(seed));
        assertEquals(want.size(), got.size(), what + ": PDUs");
        for (int i = 0; i < want.size(); i++) {
            same(want.get(i), got.get(i), what + " #" + i);
        }
        return want.size();
    }

    @Test
    void agreesWithCloudhopperOnEveryCorpus() throws Exception {
        try (LazyPduDecoder dec = new LazyPduDecoder()) {
            assertTrue(agree(dec, CloudhopperTranscoderTest.thesisMix(), 1, "thesis mix") >= 5000);
            assertEquals(2400, agree(dec, Ch.concat(CloudhopperTranscoderTest.variety(26, 2400)), 2,
                    "Cloudhopper-made"));
            byte[] lib = CloudhopperTranscoderTest.smpplibCorpus();
            if (lib != null) {
                assertTrue(agree(dec, lib, 3, "smpplib-made") >= 1000);
            }
            for (byte[] f : CloudhopperTranscoderTest.fuzzSeeds("*")) {
                agree(dec, f, 4, "fuzz seed");
            }
            Random r = new Random(27);
            List<byte[]> v = CloudhopperTranscoderTest.variety(28, 300);
            for (int m = 0; m < 3000; m++) {
                byte[] p = v.get(r.nextInt(v.size())).clone();
                for (int k = 1 + r.nextInt(3); k > 0; k--) {
                    int at = 4 + r.nextInt(p.length - 4);     /* command_length kept: one PDU */
                    p[at] = (byte) r.nextInt(256);
                }
                agree(dec, p, m, "mutant " + m);
            }
        }
    }

    static SubmitSm submit(int seq) throws Exception {
        SubmitSm s = new SubmitSm();
        s.setSequenceNumber(seq);
        s.setSourceAddress(new Address((byte) 5, (byte) 0, "Caf\u00e9 \u00ff"));
        s.setDestAddress(new Address((byte) 1, (byte) 1, "491701234567"));
        return s;
    }

    @Test
    void oddCases() throws Exception {
        List<byte[]> parts = new ArrayList<>();
        SubmitSm udh = submit(1);                     /* UDHI: concatenated part 1 of 2 */
        udh.setEsmClass((byte) 0x40);
        udh.setShortMessage(new byte[] {5, 0, 3, 0x2a, 2, 1, 'h', 'i'});
        parts.add(Ch.encode(udh));
        SubmitSm ucs2 = submit(2);
        ucs2.setDataCoding((byte) 8);
        ucs2.setShortMessage("\u043f\u0440\u0438\u0432\u0435\u0442 \u20ac".getBytes(StandardCharsets.UTF_16BE));
        parts.add(Ch.encode(ucs2));
        SubmitSm payload = submit(3);                 /* empty short_message, message_payload */
        payload.setShortMessage(new byte[0]);
        byte[] big = new byte[3000];
        new Random(5).nextBytes(big);
        payload.addOptionalParameter(new Tlv((short) 0x0424, big));
        payload.addOptionalParameter(new Tlv((short) 0x020c, new byte[] {0, 7}));
        parts.add(Ch.encode(payload));
        SubmitSm twice = submit(4);                   /* a tag twice: the first is the one found */
        twice.addOptionalParameter(new Tlv((short) 0x1401, new byte[] {1}));
        twice.addOptionalParameter(new Tlv((short) 0x1401, new byte[] {2, 2}));
        parts.add(Ch.encode(twice));
        DeliverSm receipt = new DeliverSm();
        receipt.setSequenceNumber(5);
        receipt.setEsmClass((byte) 0x04);
        receipt.setShortMessage("id:0123456789 sub:001 dlvrd:001 stat:DELIVRD".getBytes(StandardCharsets.US_ASCII));
        receipt.addOptionalParameter(new Tlv((short) 0x001e, "0123456789\0".getBytes(StandardCharsets.US_ASCII)));
        parts.add(Ch.encode(receipt));
        DataSm data = new DataSm();
        data.setSequenceNumber(6);
        data.setSourceAddress(new Address((byte) 0, (byte) 0, ""));
        data.setDestAddress(new Address((byte) 2, (byte) 9, "12"));
        data.setDataCoding((byte) 4);
        data.addOptionalParameter(new Tlv((short) 0x0424, new byte[] {1, 2, 3}));
        parts.add(Ch.encode(data));
        SubmitSm huge = submit(7);                    /* over 65535 octets: Cloudhopper's */
        for (int k = 0; k < 3; k++) {
            huge.addOptionalParameter(new Tlv((short) (0x1500 + k), new byte[30000]));
        }
        parts.add(Ch.encode(huge));
        parts.add(Ch.encode(udh));
        parts.add(new byte[] {0, 0, 0, 12, 0, 0, 0, 4, 0, 0, 0, 0});     /* command_length 12: the end */
        byte[] stream = Ch.concat(parts);
        try (LazyPduDecoder dec = new LazyPduDecoder()) {
            for (long seed = 0; seed < 20; seed++) {
                assertEquals(9, agree(dec, stream, seed, "odd cases, seed " + seed));
            }
            LazyPduDecoder.Batch b = dec.decode(stream, 0, stream.length);
            assertEquals(9, b.size());
            assertEquals(stream.length, b.consumed());
            assertThrows(UnrecoverablePduException.class, () -> b.get(8));
            assertNotNull(b.error(8));
            assertNull(b.error(0));
            SubmitSm s = (SubmitSm) b.get(0);
            /* a lazy object encoded before any getter is the same octets */
            assertArrayEquals(Ch.encode(udh), Ch.encode(s));
            /* a setter wins over the octets, also when encoding */
            SubmitSm t = (SubmitSm) dec.decode(stream, 0, stream.length).get(2);
            t.setDestAddress(new Address((byte) 1, (byte) 1, "999"));
            t.setShortMessage(new byte[] {'x'});
            t.removeOptionalParameter((short) 0x0424);
            payload.setDestAddress(new Address((byte) 1, (byte) 1, "999"));
            payload.setShortMessage(new byte[] {'x'});
            payload.removeOptionalParameter((short) 0x0424);
            payload.removeCommandLength();    /* both were decoded with the old length */
            t.removeCommandLength();
            assertEquals("999", t.getDestAddress().getAddress());
            assertEquals(1, t.getShortMessageLength());
            assertArrayEquals(Ch.encode(payload), Ch.encode(t));
            /* command_length 0xffffffff: Cloudhopper's exception, the batch ends */
            byte[] neg = Ch.concat(List.of(Ch.encode(udh), new byte[] {-1, -1, -1, -1, 0, 0, 0, 4}));
            assertEquals(2, agree(dec, neg, 1, "command_length 0xffffffff"));
            LazyPduDecoder.Batch nb = dec.decode(neg, 0, neg.length);
            assertEquals(2, nb.size());
            assertThrows(UnrecoverablePduException.class, () -> nb.get(1));
            /* the input array may be reused once decode returned */
            byte[] copy = stream.clone();
            LazyPduDecoder.Batch c = dec.decode(copy, 0, copy.length);
            java.util.Arrays.fill(copy, (byte) 0);
            same(Ch.decodeOne(Ch.encode(ucs2)), c.get(1), "after the input was overwritten");
        }
    }
}
