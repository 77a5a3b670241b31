/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Our JNI batch decoder against Cloudhopper (com.cloudhopper:ch-smpp), the
 * independent Java reference of issue 5:
 *  - PDUs built and encoded by Cloudhopper decode to exactly the values
 *    Cloudhopper was given (header, every mandatory field, every TLV in
 *    order, vendor TLVs raw), in both batch forms, with 1 and 2 threads;
 *  - one corpus (the thesis workload from our encoder, Cloudhopper-encoded
 *    PDUs, the committed good seeds) decoded by both: field-for-field equal;
 *    so our encoder's output is accepted by Cloudhopper as well;
 *  - mutated PDUs: where both accept, both read the same; where Cloudhopper
 *    finds an unknown command id, a C-string without NUL or a truncated
 *    TLV, we report an error as well.
 */
package org.heteroplane.smpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.type.NotEnoughDataInBufferException;
import com.cloudhopper.smpp.type.TerminatingNullByteNotFoundException;
import com.cloudhopper.smpp.type.UnknownCommandIdException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

class CloudhopperAgreementTest {
    static ByteBuffer direct(byte[] b) {
        return ByteBuffer.allocateDirect(Math.max(1, b.length)).put(b).flip();
    }

    @Test
    void cloudhopperEncodedPdusDecodeToTheValuesGiven() throws Exception {
        List<Pdu> src = Ch.variety(1, 2400);
        List<Map<String, Object>> given = new ArrayList<>();
        List<byte[]> enc = new ArrayList<>();
        for (Pdu p : src) {
            given.add(Ch.fields(p));        /* before encoding: what was given */
            enc.add(Ch.encode(p));
        }
        ByteBuffer in = direct(Ch.concat(enc));
        try (SmppDecoder d = new SmppDecoder(new SmppConfig().strict(true))) {
            DecodedBatch b = d.decode(in);
            assertEquals(src.size(), b.size());
            assertEquals(0, b.errorCount());
            for (int i = 0; i < src.size(); i++) {
                Ch.assertAgree(src.get(i), b, i, "PDU " + i + " " + src.get(i).getName());
                assertEquals(given.get(i).keySet(), b.pdu(i).fields().keySet());
            }
        }
    }

    @Test
    void elementFormTwoThreadsCarryCorrelationIds() throws Exception {
        List<Pdu> src = Ch.variety(2, 3000);
        SmppConfig cfg = new SmppConfig().element(8, new byte[] {0x0d, 0x0a, 0x0d})
                .threads(2).minParallel(0);
        ByteBuffer in = ByteBuffer.allocateDirect(src.size() * 2100);
        for (int i = 0; i < src.size(); i++) {
            in.putLong(0x5e55_1000_0000_0000L + i).put(Ch.encode(src.get(i))).put(cfg.marker());
        }
        in.flip();
        try (SmppDecoder d = new SmppDecoder(cfg)) {
            DecodedBatch b = d.decode(in);
            assertEquals(src.size(), b.size());
            assertEquals(0, b.errorCount());
            for (int i = 0; i < src.size(); i++) {
                assertEquals(0x5e55_1000_0000_0000L + i, b.correlationId(i));
                Ch.assertAgree(src.get(i), b, i, "element " + i);
            }
        }
    }

    /* The thesis workload (our encoder), Cloudhopper-encoded PDUs and the
     * committed good seeds Cloudhopper implements, decoded by both. */
    @Test
    void sameCorpusBothDecodersAgreeFieldForField() throws Exception {
        List<byte[]> corpus = new ArrayList<>();
        ByteBuffer sim = SmppDecoderTest.sim(3000, new SmppConfig(), 20, 5);
        for (int p = 0; p < sim.limit(); ) {
            byte[] one = new byte[sim.getInt(p)];
            sim.get(p, one);
            corpus.add(one);
            p += one.length;
        }
        for (Pdu p : Ch.variety(3, 1200)) {
            corpus.add(Ch.encode(p));
        }
        Path seeds = SmppDecoderTest.ROOT.resolve("smpp/fuzz/corpus");
        int nseeds = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(seeds, "ok_*")) {
            for (Path f : ds) {
                byte[] b = Files.readAllBytes(f);
                int id = ByteBuffer.wrap(b).getInt(4);
                if (id != Smpp.OUTBIND && id != Smpp.SUBMIT_MULTI && id != Smpp.SUBMIT_MULTI_RESP) {
                    corpus.add(b);      /* Cloudhopper has no outbind / submit_multi */
                    nseeds++;
                }
            }
        }
        assertTrue(nseeds >= 10, "good seeds: " + nseeds);
        byte[] stream = Ch.concat(corpus);
        List<Pdu> theirs = Ch.decodeAll(stream);
        try (SmppDecoder d = new SmppDecoder(new SmppConfig())) {
            DecodedBatch b = d.decode(direct(stream));
            assertEquals(theirs.size(), b.size());
            assertEquals(corpus.size(), b.size());
            for (int i = 0; i < b.size(); i++) {
                Ch.assertAgree(theirs.get(i), b, i, "corpus PDU " + i);
            }
        }
    }

    @Test
    void mutatedPdusAgreeWhereBothAcceptAndErrorsAgree() throws Exception {
        Random r = new Random(4);
        List<byte[]> base = new ArrayList<>();
        for (Pdu p : Ch.variety(5, 480)) {
            base.add(Ch.encode(p));
        }
        int both = 0, theyReject = 0, n = 6000;
        try (SmppDecoder d = new SmppDecoder(new SmppConfig())) {
            ByteBuffer in = ByteBuffer.allocateDirect(70000);
            for (int m = 0; m < n; m++) {
                byte[] b = base.get(r.nextInt(base.size())).clone();
                int flips = 1 + r.nextInt(3);
                for (int k = 0; k < flips; k++) {
                    int at = 4 + r.nextInt(b.length - 4);  /* command_length stays */
                    b[at] = switch (r.nextInt(3)) {
                        case 0 -> 0;
                        case 1 -> (byte) r.nextInt(256);
                        default -> (byte) (b[at] ^ (1 << r.nextInt(8)));
                    };
                }
                in.clear();
                in.put(b).flip();
                DecodedBatch ours = d.decode(in);
                assertEquals(1, ours.size());
                Pdu theirs;
                try {
                    theirs = Ch.decodeOne(b);
                } catch (UnknownCommandIdException e) {
                    int id = ours.commandId(0);
                    if (id != Smpp.OUTBIND && id != Smpp.SUBMIT_MULTI && id != Smpp.SUBMIT_MULTI_RESP) {
                        assertEquals(Smpp.ESME_RINVCMDID, ours.error(0), "mutant " + m);
                    }
                    theyReject++;
                    continue;
                } catch (TerminatingNullByteNotFoundException | NotEnoughDataInBufferException e) {
                    assertNotEquals(Smpp.ESME_ROK, ours.error(0), "mutant " + m + ": " + e);
                    theyReject++;
                    continue;
                } catch (Exception e) {
                    theyReject++;       /* other Cloudhopper faults: no claim */
                    continue;
                }
                if (ours.error(0) == Smpp.ESME_ROK) {
                    Ch.assertAgree(theirs, ours, 0, "mutant " + m);
                    both++;
                }
            }
        }
        /* the test must compare a good share, not pass on rejections */
        assertTrue(both > n / 4, "mutants both decoders accepted: " + both);
        assertTrue(theyReject > 0, "mutants Cloudhopper rejected: " + theyReject);
    }
}
