/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cloudhopper (com.cloudhopper:ch-smpp 5.0.9) as the independent reference:
 * its PDU objects seen under the v3.4 field names of our table, its encoder
 * and decoder, a generator of varied PDUs built with its API, and the
 * field-for-field comparison of one of its PDUs with one of ours.
 */
package org.heteroplane.smpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
import com.cloudhopper.smpp.type.Address;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.jboss.netty.buffer.ChannelBuffer;
import org.jboss.netty.buffer.ChannelBuffers;

final class Ch {
    static final DefaultPduTranscoder TC = new DefaultPduTranscoder(new DefaultPduTranscoderContext());

    private Ch() {
    }

    static byte[] encode(Pdu p) {
        try {
            ChannelBuffer b = TC.encode(p);
            byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        } catch (Exception e) {
            throw new AssertionError("Cloudhopper could not encode " + p, e);
        }
    }

    /** Cloudhopper's decoder over a stream of PDUs, PDU by PDU. */
    static List<Pdu> decodeAll(byte[] stream) throws Exception {
        ChannelBuffer b = ChannelBuffers.wrappedBuffer(stream);
        List<Pdu> out = new ArrayList<>();
        while (b.readableBytes() > 0) {
            Pdu p = TC.decode(b);
            if (p == null) {
                throw new AssertionError("Cloudhopper: incomplete PDU at the end");
            }
            out.add(p);
        }
        return out;
    }

    static Pdu decodeOne(byte[] pdu) throws Exception {
        return TC.decode(ChannelBuffers.wrappedBuffer(pdu));
    }

    private static String s(String v) {
        return v == null ? "" : v;
    }

    private static void addr(Map<String, Object> m, String pre, String name, Address a) {
        m.put(pre + "_ton", a == null ? 0 : a.getTon() & 0xff);
        m.put(pre + "_npi", a == null ? 0 : a.getNpi() & 0xff);
        m.put(name, a == null ? "" : s(a.getAddress()));
    }

    /** The mandatory fields of p under our table's names, in wire order
     * (empty C-strings as "", Cloudhopper reads them as null). */
    static Map<String, Object> fields(Pdu p) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (p instanceof DataSm d) {
            m.put("service_type", s(d.getServiceType()));
            addr(m, "source_addr", "source_addr", d.getSourceAddress());
            addr(m, "dest_addr", "destination_addr", d.getDestAddress());
            m.put("esm_class", d.getEsmClass() & 0xff);
            m.put("registered_delivery", d.getRegisteredDelivery() & 0xff);
            m.put("data_coding", d.getDataCoding() & 0xff);
        } else if (p instanceof BaseSm<?> d) {
            m.put("service_type", s(d.getServiceType()));
            addr(m, "source_addr", "source_addr", d.getSourceAddress());
            addr(m, "dest_addr", "destination_addr", d.getDestAddress());
            m.put("esm_class", d.getEsmClass() & 0xff);
            m.put("protocol_id", d.getProtocolId() & 0xff);
            m.put("priority_flag", d.getPriority() & 0xff);
            m.put("schedule_delivery_time", s(d.getScheduleDeliveryTime()));
            m.put("validity_period", s(d.getValidityPeriod()));
            m.put("registered_delivery", d.getRegisteredDelivery() & 0xff);
            m.put("replace_if_present_flag", d.getReplaceIfPresent() & 0xff);
            m.put("data_coding", d.getDataCoding() & 0xff);
            m.put("sm_default_msg_id", d.getDefaultMsgId() & 0xff);
            m.put("sm_length", d.getShortMessageLength());
            m.put("short_message", d.getShortMessage() == null ? new byte[0] : d.getShortMessage());
        } else if (p instanceof ReplaceSm d) {
            m.put("message_id", s(d.getMessageId()));
            addr(m, "source_addr", "source_addr", d.getSourceAddress());
            m.put("schedule_delivery_time", s(d.getScheduleDeliveryTime()));
            m.put("validity_period", s(d.getValidityPeriod()));
            m.put("registered_delivery", d.getRegisteredDelivery() & 0xff);
            m.put("sm_default_msg_id", d.getDefaultMsgId() & 0xff);
            m.put("sm_length", d.getShortMessageLength());
            m.put("short_message", d.getShortMessage() == null ? new byte[0] : d.getShortMessage());
        } else if (p instanceof CancelSm d) {
            m.put("service_type", s(d.getServiceType()));
            m.put("message_id", s(d.getMessageId()));
            addr(m, "source_addr", "source_addr", d.getSourceAddress());
            addr(m, "dest_addr", "destination_addr", d.getDestAddress());
        } else if (p instanceof QuerySm d) {
            m.put("message_id", s(d.getMessageId()));
            addr(m, "source_addr", "source_addr", d.getSourceAddress());
        } else if (p instanceof QuerySmResp d) {
            m.put("message_id", s(d.getMessageId()));
            m.put("final_date", s(d.getFinalDate()));
            m.put("message_state", d.getMessageState() & 0xff);
            m.put("error_code", d.getErrorCode() & 0xff);
        } else if (p instanceof AlertNotification d) {
            addr(m, "source_addr", "source_addr", d.getSourceAddress());
            addr(m, "esme_addr", "esme_addr", d.getEsmeAddress());
        } else if (p instanceof BaseBind<?> d) {
            m.put("system_id", s(d.getSystemId()));
            m.put("password", s(d.getPassword()));
            m.put("system_type", s(d.getSystemType()));
            m.put("interface_version", d.getInterfaceVersion() & 0xff);
            addr(m, "addr", "address_range", d.getAddressRange());
        } else if (p instanceof BaseBindResp d) {
            m.put("system_id", s(d.getSystemId()));
        } else if (p instanceof BaseSmResp d) {
            m.put("message_id", s(d.getMessageId()));
        }
        return m;
    }

    static List<Tlv> tlvs(Pdu p) {
        return p.getOptionalParameters() == null ? List.of() : p.getOptionalParameters();
    }

    /** Our PDU i of b must carry exactly what Cloudhopper's p carries. */
    static void assertAgree(Pdu p, DecodedBatch b, int i, String what) {
        assertEquals(0, b.error(i), what + ": our status " + Smpp.statusName(b.error(i)));
        assertEquals(p.getCommandId(), b.commandId(i), what);
        assertEquals(p.getCommandStatus(), b.commandStatus(i), what);
        assertEquals(p.getSequenceNumber(), b.sequenceNumber(i), what);
        Map<String, Object> want = fields(p);
        DecodedBatch.Pdu ours = b.pdu(i);
        Smpp.PduType t = Smpp.pduType(b.commandId(i));
        if (b.fieldCount(i) == 0 && t.fieldCount() > 0) {
            /* a response without body (status != 0): Cloudhopper has nulls */
            for (Object v : want.values()) {
                assertEquals("", v, what + ": body-less response");
            }
        } else {
            assertEquals(List.copyOf(want.keySet()), List.of(t.fieldNames()), what + ": field list");
            for (Map.Entry<String, Object> e : want.entrySet()) {
                Object v = ours.fields().get(e.getKey());
                if (e.getValue() instanceof byte[] w) {
                    assertArrayEquals(w, (byte[]) v, what + ": " + e.getKey());
                } else {
                    assertEquals(e.getValue(), v, what + ": " + e.getKey());
                }
            }
        }
        List<Tlv> tl = tlvs(p);
        assertEquals(tl.size(), b.tlvCount(i), what + ": TLV count");
        for (int k = 0; k < tl.size(); k++) {
            assertEquals(tl.get(k).getTag() & 0xffff, b.tlvTag(i, k), what + ": TLV " + k);
            assertArrayEquals(tl.get(k).getValue(), b.tlvValue(i, k), what + ": TLV " + k + " value");
        }
    }

    /* ---- varied PDUs built with Cloudhopper's API ---- */

    private static String digits(Random r, int max) {
        int n = r.nextInt(max + 1);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append((char) ('0' + r.nextInt(10)));
        }
        return n == 0 && r.nextBoolean() ? null : s.toString();
    }

    private static String text(Random r, int max) {
        int n = r.nextInt(max + 1);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append((char) (0x21 + r.nextInt(0x5e)));
        }
        return n == 0 && r.nextBoolean() ? null : s.toString();
    }

    private static String time(Random r) {
        return switch (r.nextInt(3)) {
            case 0 -> null;
            case 1 -> String.format("2611%02d%02d%02d%02d%d04+", 1 + r.nextInt(28), r.nextInt(24),
                    r.nextInt(60), r.nextInt(60), r.nextInt(10));
            default -> String.format("0000%02d%02d%02d%02d000R", r.nextInt(30), r.nextInt(24),
                    r.nextInt(60), r.nextInt(60));
        };
    }

    private static Address address(Random r, int max) {
        return new Address((byte) r.nextInt(7), (byte) r.nextInt(19), digits(r, max));
    }

    private static byte[] bytes(Random r, int max) {
        byte[] b = new byte[r.nextInt(max + 1)];
        r.nextBytes(b);
        return b;
    }

    /* TLVs of known tags with v3.4 lengths that submit_sm / deliver_sm /
     * data_sm allow, plus vendor tags (0x1400-0x3FFF), kept raw by us. */
    private static final int[][] SM_TLVS = {
        {0x0204, 2}, {0x020A, 2}, {0x020B, 2}, {0x020C, 2}, {0x020E, 1}, {0x020F, 1},
        {0x0019, 1}, {0x0201, 1}, {0x020D, 1}, {0x0381, 7}, {0x0202, 5}, {0x0203, 4},
    };

    private static void addTlvs(Random r, Pdu p, boolean payload) {
        int n = r.nextInt(7);
        for (int k = 0; k < n; k++) {
            if (r.nextInt(4) == 0) {
                p.addOptionalParameter(new Tlv((short) (0x1400 + r.nextInt(0x2c00)), bytes(r, 40)));
            } else {
                int[] t = SM_TLVS[r.nextInt(SM_TLVS.length)];
                byte[] v = new byte[t[1]];
                r.nextBytes(v);
                p.addOptionalParameter(new Tlv((short) t[0], v));
            }
        }
        if (payload) {
            p.addOptionalParameter(new Tlv((short) 0x0424, bytes(r, 1500)));
        }
    }

    private static void fillSm(Random r, BaseSm<?> s, boolean payload) throws Exception {
        s.setServiceType(text(r, 5));
        s.setSourceAddress(address(r, 20));
        s.setDestAddress(address(r, 20));
        s.setEsmClass((byte) r.nextInt(256));
        s.setProtocolId((byte) r.nextInt(256));
        s.setPriority((byte) r.nextInt(4));
        s.setScheduleDeliveryTime(time(r));
        s.setValidityPeriod(time(r));
        s.setRegisteredDelivery((byte) r.nextInt(32));
        s.setReplaceIfPresent((byte) r.nextInt(2));
        s.setDataCoding((byte) new int[] {0, 1, 3, 4, 8, 0xf1}[r.nextInt(6)]);
        s.setDefaultMsgId((byte) r.nextInt(256));
        s.setShortMessage(payload ? new byte[0] : bytes(r, 254));
        addTlvs(r, s, payload);
    }

    private static <T extends BaseBind<?>> T bind(Random r, T b) {
        b.setSystemId(text(r, 15));
        b.setPassword(text(r, 8));
        b.setSystemType(text(r, 12));
        b.setInterfaceVersion((byte) 0x34);
        b.setAddressRange(new Address((byte) r.nextInt(7), (byte) r.nextInt(19), digits(r, 40)));
        return b;
    }

    private static <T extends PduResponse> T status(Random r, T p) {
        p.setCommandStatus(r.nextInt(3) == 0 ? r.nextInt(0x100) : 0);
        return p;
    }

    /** n PDUs of every type Cloudhopper implements, values at random within
     * the v3.4 limits (so a strict v3.4 decoder accepts them all). */
    static List<Pdu> variety(long seed, int n) throws Exception {
        Random r = new Random(seed);
        List<Pdu> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Pdu p;
            switch (i % 24) {
                case 0, 1, 2 -> {
                    SubmitSm s = new SubmitSm();
                    fillSm(r, s, i % 24 == 2);
                    p = s;
                }
                case 3, 4 -> {
                    DeliverSm s = new DeliverSm();
                    fillSm(r, s, false);
                    s.addOptionalParameter(new Tlv((short) 0x001E,
                            (Long.toHexString(r.nextLong()) + "\0").getBytes(StandardCharsets.US_ASCII)));
                    s.addOptionalParameter(new Tlv((short) 0x0427, new byte[] {(byte) r.nextInt(9)}));
                    p = s;
                }
                case 5 -> {
                    DataSm s = new DataSm();
                    s.setServiceType(text(r, 5));
                    s.setSourceAddress(address(r, 64));
                    s.setDestAddress(address(r, 64));
                    s.setEsmClass((byte) r.nextInt(256));
                    s.setRegisteredDelivery((byte) r.nextInt(32));
                    s.setDataCoding((byte) 8);
                    addTlvs(r, s, r.nextBoolean());
                    p = s;
                }
                case 6 -> {
                    QuerySm q = new QuerySm();
                    q.setMessageId(text(r, 64));
                    q.setSourceAddress(address(r, 20));
                    p = q;
                }
                case 7 -> {
                    QuerySmResp q = status(r, new QuerySmResp());
                    q.setMessageId(text(r, 64));
                    q.setFinalDate(time(r));
                    q.setMessageState((byte) r.nextInt(9));
                    q.setErrorCode((byte) r.nextInt(256));
                    p = q;
                }
                case 8 -> {
                    CancelSm c = new CancelSm();
                    c.setServiceType(text(r, 5));
                    c.setMessageId(text(r, 64));
                    c.setSourceAddress(address(r, 20));
                    c.setDestAddress(address(r, 20));
                    p = c;
                }
                case 9 -> {
                    ReplaceSm c = new ReplaceSm();
                    c.setMessageId(text(r, 64));
                    c.setSourceAddress(address(r, 20));
                    c.setScheduleDeliveryTime(time(r));
                    c.setValidityPeriod(time(r));
                    c.setRegisteredDelivery((byte) r.nextInt(32));
                    c.setDefaultMsgId((byte) r.nextInt(256));
                    c.setShortMessage(bytes(r, 254));
                    p = c;
                }
                case 10 -> p = bind(r, new BindTransmitter());
                case 11 -> p = bind(r, new BindReceiver());
                case 12 -> p = bind(r, new BindTransceiver());
                case 13, 14, 15 -> {
                    BaseBindResp b = status(r, i % 24 == 13 ? new BindTransmitterResp()
                            : i % 24 == 14 ? new BindReceiverResp() : new BindTransceiverResp());
                    b.setSystemId(text(r, 15));
                    if (r.nextBoolean()) {
                        b.addOptionalParameter(new Tlv((short) 0x0210, new byte[] {0x34}));
                    }
                    p = b;
                }
                case 16, 17, 18 -> {
                    BaseSmResp b = status(r, i % 24 == 16 ? new SubmitSmResp()
                            : i % 24 == 17 ? new DeliverSmResp() : new DataSmResp());
                    b.setMessageId(text(r, 64));
                    p = b;
                }
                case 19 -> p = r.nextBoolean() ? new EnquireLink() : status(r, new EnquireLinkResp());
                case 20 -> p = r.nextBoolean() ? new Unbind() : status(r, new UnbindResp());
                case 21 -> p = r.nextBoolean() ? status(r, new CancelSmResp()) : status(r, new ReplaceSmResp());
                case 22 -> {
                    AlertNotification a = new AlertNotification();
                    a.setSourceAddress(address(r, 64));
                    a.setEsmeAddress(address(r, 64));
                    if (r.nextBoolean()) {
                        a.addOptionalParameter(new Tlv((short) 0x0422, new byte[] {(byte) r.nextInt(3)}));
                    }
                    p = a;
                }
                default -> p = status(r, new GenericNack());
            }
            p.setSequenceNumber(r.nextInt(0x7fffffff));
            out.add(p);
        }
        return out;
    }

    static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] b : parts) {
            o.writeBytes(b);
        }
        return o.toByteArray();
    }
}
