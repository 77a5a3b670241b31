/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JNI batch decoder on its own: the thesis workload decodes to the
 * values the generator put in, both batch forms, one vs two threads, the
 * committed fuzz corpus gets the statuses smpp/fuzz/expected.txt lists,
 * TLVs beyond the inline ones, and misuse is refused with an exception
 * (never a crash).
 */
package org.heteroplane.smpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class SmppDecoderTest {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("../..").normalize();

    static ByteBuffer sim(int n, SmppConfig cfg, int msgLen, int ntlv) {
        ByteBuffer b = ByteBuffer.allocateDirect(n * (120 + msgLen + 6 * ntlv) + 4096);
        int len = Smpp.simStream(b, 0, 0, n, msgLen, ntlv, Smpp.SUBMIT_SM, cfg);
        return b.limit(len);
    }

    /* What smpp/smpp_sim.c writes for PDU number i. */
    static String src(int i) {
        return String.format("9477%07d", i % 10000000);
    }

    static String dst(int i) {
        return String.format("9471%07d", (int) (((long) i * 7919) % 10000000));
    }

    static byte[] text(int i, int len) {
        byte[] t = new byte[len];
        for (int k = 0; k < len; k++) {
            t[k] = (byte) ('a' + (i + k * 7) % 26);
        }
        return t;
    }

    static final int[] SIM_TAGS = {0x020C, 0x020E, 0x020F, 0x0204, 0x020A, 0x020B, 0x020D, 0x0019};

    @Test
    void thesisMixDecodesToTheGeneratedValues() {
        SmppConfig cfg = new SmppConfig();
        ByteBuffer in = sim(1000, cfg, 20, 5);
        try (SmppDecoder d = new SmppDecoder(cfg)) {
            DecodedBatch b = d.decode(in);
            assertEquals(1000, b.size());
            assertEquals(0, b.errorCount());
            assertEquals(Mode.CPU, b.modeUsed());
            int kSrc = Smpp.fieldIndex(Smpp.SUBMIT_SM, "source_addr");
            int kDst = Smpp.fieldIndex(Smpp.SUBMIT_SM, "destination_addr");
            int kMsg = Smpp.fieldIndex(Smpp.SUBMIT_SM, "short_message");
            int kTon = Smpp.fieldIndex(Smpp.SUBMIT_SM, "source_addr_ton");
            int off = 0;
            for (int i = 0; i < 1000; i++) {
                assertEquals(Smpp.SUBMIT_SM, b.commandId(i));
                assertEquals(i + 1, b.sequenceNumber(i));
                assertEquals(off, b.pduOffset(i));
                assertEquals(in.getInt(off), b.commandLength(i));
                off += b.commandLength(i);
                assertEquals(src(i), b.string(i, kSrc));
                assertEquals(dst(i), b.string(i, kDst));
                assertArrayEquals(text(i, 20), b.bytes(i, kMsg));
                assertEquals(1, b.u8(i, kTon));
                assertEquals(18, b.fieldCount(i));
                assertEquals(5, b.tlvCount(i));
                for (int k = 0; k < 5; k++) {
                    assertEquals(SIM_TAGS[k], b.tlvTag(i, k));
                }
                assertEquals(2, b.tlvLength(i, 0));
                assertEquals((i >> 8) & 0xff, b.input().get(b.tlvValueOffset(i, 0)) & 0xff);
                assertEquals(2, b.tlvFind(i, 0x020F));
                assertEquals(-1, b.tlvFind(i, Smpp.TLV_MESSAGE_PAYLOAD));
            }
            assertEquals(in.limit(), off);
        }
    }

    @Test
    void elementFramingCarriesCorrelationIds() {
        SmppConfig cfg = new SmppConfig().element(8, SmppConfig.DEFAULT_MARKER);
        ByteBuffer in = sim(500, cfg, 20, 5);
        try (SmppDecoder d = new SmppDecoder(cfg)) {
            DecodedBatch b = d.decode(in);
            assertEquals(500, b.size());
            assertEquals(0, b.errorCount());
            for (int i = 0; i < 500; i++) {
                assertEquals(8, b.correlationLength(i));
                assertEquals((long) i << 32, b.correlationId(i));
                assertEquals(b.offset(i) + 8, b.pduOffset(i));
                assertEquals(dst(i), b.string(i, b.fieldIndex(i, "destination_addr")));
            }
        }
    }

    /* Every PDU i with i % every == phase loses its service_type NUL. */
    private static void corrupt(ByteBuffer in, int every, int phase) {
        for (int p = 0, i = 0; p < in.limit(); i++) {
            int cl = in.getInt(p);
            if (i % every == phase) {
                in.put(p + 16, (byte) 'x');
            }
            p += cl;
        }
    }

    @Test
    void twoThreadsGiveTheSameRecordsAsOne() {
        SmppConfig one = new SmppConfig();
        SmppConfig two = new SmppConfig().threads(2).minParallel(0);
        ByteBuffer in = sim(20000, one, 20, 5);
        corrupt(in, 997, 5);   /* so that errors are compared too */
        try (SmppDecoder a = new SmppDecoder(one); SmppDecoder b2 = new SmppDecoder(two)) {
            DecodedBatch x = a.decode(in);
            DecodedBatch y = b2.decode(in);
            assertEquals(x.size(), y.size());
            assertTrue(x.errorCount() > 0);
            assertEquals(x.errorCount(), y.errorCount());
            for (int i = 0; i < x.size(); i++) {
                assertEquals(x.error(i), y.error(i));
                assertEquals(x.errorOffset(i), y.errorOffset(i));
                assertEquals(x.pduOffset(i), y.pduOffset(i));
                assertEquals(x.fieldCount(i), y.fieldCount(i));
                for (int k = 0; k < x.fieldCount(i); k++) {
                    assertEquals(x.fieldOffset(i, k), y.fieldOffset(i, k));
                    assertEquals(x.fieldLength(i, k), y.fieldLength(i, k));
                }
            }
        }
    }

    @Test
    void tlvsBeyondTheInlineOnes() {
        SmppConfig cfg = new SmppConfig();
        ByteBuffer in = sim(10, cfg, 0, 12);
        try (SmppDecoder d = new SmppDecoder(cfg)) {
            DecodedBatch b = d.decode(in);
            assertEquals(0, b.errorCount());
            for (int i = 0; i < 10; i++) {
                assertEquals(12, b.tlvCount(i));
                int p = b.tlvAreaOffset(i);
                for (int k = 0; k < 12; k++) {
                    assertEquals(SIM_TAGS[k % 8], b.tlvTag(i, k));
                    assertEquals(p + 4, b.tlvValueOffset(i, k));
                    p += 4 + b.tlvLength(i, k);
                }
                assertEquals(b.tlvAreaOffset(i) + b.tlvAreaLength(i), p);
                assertEquals(12, b.pdu(i).tlvs().size());
            }
        }
    }

    /* smpp/fuzz/corpus + expected.txt: the status of each seed's first PDU
     * (plain framing, max PDU 4096 as in the C replay test). */
    @Test
    void fuzzCorpusStatuses() throws IOException {
        Path dir = ROOT.resolve("smpp/fuzz");
        List<String> lines = Files.readAllLines(dir.resolve("expected.txt"), StandardCharsets.US_ASCII);
        int checked = 0;
        try (SmppDecoder d = new SmppDecoder(new SmppConfig().maxPduLen(4096))) {
            for (String l : lines) {
                if (l.startsWith("#") || l.isBlank()) {
                    continue;
                }
                String[] w = l.trim().split("\\s+");
                byte[] data = Files.readAllBytes(dir.resolve("corpus").resolve(w[0]));
                ByteBuffer in = ByteBuffer.allocateDirect(data.length).put(data).flip();
                DecodedBatch b = d.decode(in);
                assertTrue(b.size() >= 1, w[0]);
                assertEquals(Integer.parseInt(w[1], 16), b.error(0),
                        w[0] + ": " + Smpp.statusName(b.error(0)));
                for (int i = 0; i < b.size(); i++) {
                    b.pdu(i);         /* every view materialises without a fault */
                }
                checked++;
            }
        }
        assertTrue(checked >= 30, "corpus seeds checked: " + checked);
    }

    @Test
    void submitMultiListsAndSmallPdus() throws IOException {
        byte[] data = Files.readAllBytes(ROOT.resolve("smpp/fuzz/corpus/ok_submit_multi"));
        ByteBuffer in = ByteBuffer.allocateDirect(data.length + 3).position(3);
        in.put(data).flip().position(3);
        try (SmppDecoder d = new SmppDecoder(new SmppConfig())) {
            DecodedBatch b = d.decode(in);
            assertEquals(1, b.size());
            assertEquals(3, b.pduOffset(0));
            assertEquals(Smpp.SUBMIT_MULTI, b.commandId(0));
            List<DecodedBatch.Dest> l = b.dests(0, b.fieldIndex(0, "dest_address"));
            assertEquals(b.u8(0, b.fieldIndex(0, "number_of_dests")), l.size());
            assertTrue(l.size() >= 1);
        }
    }

    @Test
    void heapArrayDecodesLikeDirectBuffer() {
        SmppConfig cfg = new SmppConfig();
        ByteBuffer in = sim(5000, cfg, 20, 5);
        corrupt(in, 501, 7);
        /* the batch at index 7 of a larger array: offsets are array indexes */
        byte[] a = new byte[in.limit() + 11];
        in.get(0, a, 7, in.limit());
        try (SmppDecoder d1 = new SmppDecoder(cfg); SmppDecoder d2 = new SmppDecoder(cfg)) {
            DecodedBatch x = d1.decode(in);
            DecodedBatch y = d2.decode(a, 7, in.limit(), Mode.CPU);
            assertEquals(5000, y.size());
            assertTrue(y.errorCount() > 0);
            assertEquals(x.errorCount(), y.errorCount());
            for (int i = 0; i < x.size(); i++) {
                assertEquals(x.error(i), y.error(i));
                assertEquals(x.errorOffset(i) + 7, y.errorOffset(i));
                assertEquals(x.pduOffset(i) + 7, y.pduOffset(i));
                assertEquals(x.sequenceNumber(i), y.sequenceNumber(i));
                assertEquals(x.fieldCount(i), y.fieldCount(i));
                for (int k = 0; k < x.fieldCount(i); k++) {
                    assertEquals(x.fieldOffset(i, k) + 7, y.fieldOffset(i, k));
                    assertEquals(x.fieldLength(i, k), y.fieldLength(i, k));
                }
                assertEquals(x.tlvCount(i), y.tlvCount(i));
                for (int k = 0; k < x.tlvCount(i); k++) {
                    assertEquals(x.tlvTag(i, k), y.tlvTag(i, k));
                    assertArrayEquals(x.tlvValue(i, k), y.tlvValue(i, k));
                }
            }
            assertThrows(IllegalArgumentException.class,
                    () -> d2.decode(a, 12, in.limit(), Mode.CPU));
            assertThrows(IllegalArgumentException.class,
                    () -> d2.decode(a, -1, 4, Mode.CPU));
        }
    }

    @Test
    void misuseIsRefused() {
        SmppConfig cfg = new SmppConfig();
        ByteBuffer in = sim(3, cfg, 20, 5);
        SmppDecoder d = new SmppDecoder(cfg);
        assertThrows(IllegalArgumentException.class,
                () -> d.decode(ByteBuffer.allocate(64)));
        assertThrows(IllegalArgumentException.class,
                () -> d.decode(in, 0, in.capacity() + 1, Mode.CPU));
        assertThrows(UnsupportedOperationException.class,
                () -> d.decode(in, 0, in.limit(), Mode.GPU));
        DecodedBatch old = d.decode(in);
        assertEquals(3, old.size());
        assertThrows(IndexOutOfBoundsException.class, () -> old.commandId(3));
        assertThrows(IndexOutOfBoundsException.class, () -> old.fieldOffset(0, 18));
        d.decode(in);
        assertThrows(IllegalStateException.class, () -> old.commandId(0));
        d.close();
        assertThrows(IllegalStateException.class, () -> d.decode(in));
        assertThrows(IllegalArgumentException.class,
                () -> new SmppDecoder(new SmppConfig().threads(0)));
        assertThrows(IllegalArgumentException.class,
                () -> new SmppDecoder(new SmppConfig().element(0, new byte[0])));
    }

    @Test
    void tablesComeFromTheCLibrary() {
        assertEquals(27, Smpp.commandIds().length);
        assertEquals("submit_sm", Smpp.pduType(Smpp.SUBMIT_SM).name);
        assertEquals(Smpp.FT_OSTR, Smpp.pduType(Smpp.SUBMIT_SM).fieldType(17));
        assertEquals("message_payload", Smpp.tlvName(Smpp.TLV_MESSAGE_PAYLOAD));
        assertEquals("ESME_RINVCMDLEN", Smpp.statusName(Smpp.ESME_RINVCMDLEN));
        assertEquals(null, Smpp.pduType(0x77));
    }
}
