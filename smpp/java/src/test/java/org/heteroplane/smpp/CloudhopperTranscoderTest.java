/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JNI decoder as Cloudhopper's PduTranscoder (JniPduTranscoder), against
 * Cloudhopper's own DefaultPduTranscoder on the same bytes:
 *  - differential: every decode call over many PDUs (the thesis mix of
 *    submit_sm and deliver_sm the benches generate, PDUs built with
 *    Cloudhopper's API, smpplib-made PDUs when the pytest passes them, the
 *    committed fuzz seeds good and bad, thousands of mutants) gives the
 *    same PDU object field for field (reflection over every field), or the
 *    same exception with the same partial PDU, and leaves the same reader
 *    index; whole buffers, TCP-like chunks into a cumulation buffer, a
 *    direct buffer, several threads on one transcoder;
 *  - what the compact records cannot carry falls back to Cloudhopper's
 *    decoder and is counted by reason;
 *  - Cloudhopper's DefaultSmppServer and DefaultSmppClient (JniSmppServer,
 *    JniSmppClient: one line each) bind, submit_sm with TLVs, deliver_sm,
 *    enquire_link both ways and unbind, every PDU received equal to what
 *    Cloudhopper's decoder makes of the bytes sent, with and without the
 *    JNI transcoder on the other side.
 */
package org.heteroplane.smpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.cloudhopper.commons.util.windowing.WindowFuture;
import com.cloudhopper.smpp.SmppBindType;
import com.cloudhopper.smpp.SmppConstants;
import com.cloudhopper.smpp.SmppServerConfiguration;
import com.cloudhopper.smpp.SmppServerHandler;
import com.cloudhopper.smpp.SmppServerSession;
import com.cloudhopper.smpp.SmppSession;
import com.cloudhopper.smpp.SmppSessionConfiguration;
import com.cloudhopper.smpp.impl.DefaultSmppClient;
import com.cloudhopper.smpp.impl.DefaultSmppServer;
import com.cloudhopper.smpp.impl.DefaultSmppSessionHandler;
import com.cloudhopper.smpp.pdu.BaseBind;
import com.cloudhopper.smpp.pdu.BaseBindResp;
import com.cloudhopper.smpp.pdu.BindTransceiver;
import com.cloudhopper.smpp.pdu.DeliverSm;
import com.cloudhopper.smpp.pdu.DeliverSmResp;
import com.cloudhopper.smpp.pdu.EnquireLink;
import com.cloudhopper.smpp.pdu.EnquireLinkResp;
import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.pdu.PduRequest;
import com.cloudhopper.smpp.pdu.PduResponse;
import com.cloudhopper.smpp.pdu.SubmitSm;
import com.cloudhopper.smpp.pdu.SubmitSmResp;
import com.cloudhopper.smpp.pdu.Unbind;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.type.Address;
import com.cloudhopper.smpp.type.SmppProcessingException;
import com.cloudhopper.smpp.type.UnrecoverablePduException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.heteroplane.smpp.cloudhopper.JniPduTranscoder;
import org.heteroplane.smpp.cloudhopper.JniSmppClient;
import org.heteroplane.smpp.cloudhopper.JniSmppServer;
import org.jboss.netty.buffer.ChannelBuffer;
import org.jboss.netty.buffer.ChannelBuffers;
import org.junit.jupiter.api.Test;

@SuppressWarnings("rawtypes")
class CloudhopperTranscoderTest {
    /* ---- corpora ---- */

    static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(b.position(), a);
        return a;
    }

    /** The benches' workload: thesis mix submit_sm and deliver_sm, and
     * other message lengths and TLV counts. */
    static byte[] thesisMix() {
        List<byte[]> parts = new ArrayList<>();
        parts.add(bytes(SmppDecoderTest.sim(3000, new SmppConfig(), 20, 5)));
        int[][] shapes = {{0, 0}, {160, 0}, {70, 8}, {254, 2}};
        for (int[] s : shapes) {
            parts.add(bytes(SmppDecoderTest.sim(300, new SmppConfig(), s[0], s[1])));
        }
        ByteBuffer d = ByteBuffer.allocateDirect(1000 * 200 + 4096);
        int len = Smpp.simStream(d, 0, 5000, 1000, 20, 5, Smpp.DELIVER_SM, new SmppConfig());
        parts.add(bytes(d.limit(len)));
        return Ch.concat(parts);
    }

    static List<byte[]> variety(long seed, int n) throws Exception {
        List<byte[]> out = new ArrayList<>();
        for (Pdu p : Ch.variety(seed, n)) {
            out.add(Ch.encode(p));
        }
        return out;
    }

    static List<byte[]> fuzzSeeds(String glob) throws IOException {
        List<byte[]> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(
                SmppDecoderTest.ROOT.resolve("smpp/fuzz/corpus"), glob)) {
            for (Path f : ds) {
                out.add(Files.readAllBytes(f));
            }
        }
        return out;
    }

    /** PDUs python-smpplib encoded (tests/integration/test_smpp_java.py
     * writes them and names the file), or null when run without it. */
    static byte[] smpplibCorpus() throws IOException {
        String f = System.getProperty("hp.smpplib.corpus", "");
        return f.isEmpty() ? null : Files.readAllBytes(Path.of(f));
    }

    /* ---- the differential ---- */

    /** Both decoders over the same bytes, call by call, in one buffer each
     * (heap, or direct when asked); the PDUs decoded. */
    static int differential(JniPduTranscoder jni, byte[] stream, boolean direct, String what) {
        ChannelBuffer a = ChannelBuffers.wrappedBuffer(stream.clone());
        ChannelBuffer b = direct ? ChannelBuffers.directBuffer(Math.max(1, stream.length))
                : ChannelBuffers.wrappedBuffer(stream.clone());
        if (direct) {
            b.writeBytes(stream);
        }
        int n = 0;
        for (;;) {
            Deep.Outcome w = Deep.decode(Ch.TC, a), g = Deep.decode(jni, b);
            Deep.assertSameOutcome(w, g, what + " call " + n);
            if (w.more() || w.error() instanceof UnrecoverablePduException) {
                return n;
            }
            n++;
        }
    }

    /** As Netty's FrameDecoder feeds it: TCP-sized chunks appended to a
     * cumulation buffer, decode until null (sometimes stopping early),
     * sometimes discarding the bytes read. */
    static int chunked(JniPduTranscoder jni, byte[] stream, Random r, String what) {
        ChannelBuffer a = ChannelBuffers.dynamicBuffer(), b = ChannelBuffers.dynamicBuffer();
        int pos = 0, n = 0;
        boolean end = false;
        while (!end) {
            int k = Math.min(stream.length - pos, 1 + r.nextInt(r.nextBoolean() ? 100 : 9000));
            a.writeBytes(stream, pos, k);
            b.writeBytes(stream, pos, k);
            pos += k;
            end = pos == stream.length;
            int stop = !end && r.nextInt(5) == 0 ? r.nextInt(3) : Integer.MAX_VALUE;
            for (int j = 0; j < stop; j++) {
                Deep.Outcome w = Deep.decode(Ch.TC, a), g = Deep.decode(jni, b);
                Deep.assertSameOutcome(w, g, what + " call " + n);
                if (w.error() instanceof UnrecoverablePduException) {
                    return n;
                }
                if (w.more()) {
                    break;
                }
                n++;
            }
            if (r.nextBoolean()) {
                a.discardReadBytes();
                b.discardReadBytes();
            }
        }
        return n;
    }

    @Test
    void sameObjectsAsCloudhopperOverTheCorpora() throws Exception {
        try (JniPduTranscoder jni = new JniPduTranscoder()) {
            byte[] mix = thesisMix();
            int nmix = differential(jni, mix, false, "thesis mix");
            assertEquals(5200, nmix);
            assertEquals(5200, differential(jni, mix, true, "thesis mix, direct buffer"));
            byte[] ch = Ch.concat(variety(11, 2400));
            assertEquals(2400, differential(jni, ch, false, "Cloudhopper-made"));
            assertEquals(0, jni.fallbacks(), "fallbacks: " + jni.fallbackReasons());
            assertEquals(2 * 5200 + 2400, jni.nativeDecoded());
            assertTrue(jni.nativeCalls() < 100, "JNI calls: " + jni.nativeCalls());

            byte[] lib = smpplibCorpus();
            if (lib != null) {
                int framed = 0;
                for (int p = 0; p < lib.length; p += ByteBuffer.wrap(lib, p, 4).getInt()) {
                    framed++;
                }
                long nat0 = jni.nativeDecoded();
                assertEquals(framed, differential(jni, lib, false, "smpplib-made"));
                assertTrue(framed >= 1000, "smpplib PDUs: " + framed);
                /* smpplib writes a 2-octet integer TLV of value 0 as one
                 * octet: those fall back; the rest is native */
                long nat = jni.nativeDecoded() - nat0;
                assertTrue(nat > framed * 8L / 10, nat + " of " + framed + " native; "
                        + jni.fallbackReasons());
            }
            Random r = new Random(12);
            assertEquals(5200, chunked(jni, mix, r, "thesis mix in chunks"));
            assertEquals(2400, chunked(jni, ch, r, "Cloudhopper-made in chunks"));
            /* the good seeds in one stream (outbind and submit_multi among
             * them: Cloudhopper's UnknownCommandIdException, from its decoder) */
            List<byte[]> good = fuzzSeeds("ok_*");
            assertEquals(good.size(), differential(jni, Ch.concat(good), false, "good seeds"));
        }
    }

    @Test
    void badSeedsAndMutantsGiveCloudhoppersOutcome() throws Exception {
        try (JniPduTranscoder jni = new JniPduTranscoder()) {
            for (byte[] seed : fuzzSeeds("*")) {
                differential(jni, seed, false, "seed");
                differential(jni, seed, true, "seed, direct");
            }
            /* mutants of Cloudhopper-made PDUs, command_length kept: each
             * alone, then all in one stream (errors among good PDUs) */
            Random r = new Random(13);
            List<byte[]> base = variety(14, 480), mutants = new ArrayList<>();
            for (int m = 0; m < 6000; m++) {
                byte[] b = base.get(r.nextInt(base.size())).clone();
                for (int k = 1 + r.nextInt(3); k > 0; k--) {
                    int at = 4 + r.nextInt(b.length - 4);
                    b[at] = switch (r.nextInt(3)) {
                        case 0 -> 0;
                        case 1 -> (byte) r.nextInt(256);
                        default -> (byte) (b[at] ^ (1 << r.nextInt(8)));
                    };
                }
                mutants.add(b);
                differential(jni, b, false, "mutant " + m);
            }
            long before = jni.nativeDecoded();
            assertEquals(6000, differential(jni, Ch.concat(mutants), false, "mutants in one stream"));
            long nat = jni.nativeDecoded() - before;
            /* most mutants still decode natively; the rest fell back */
            assertTrue(nat > 2000 && nat < 6000, "native " + nat + " " + jni.fallbackReasons());
            assertTrue(jni.fallbackReasons().keySet().stream().anyMatch(k -> k.startsWith("decoder status")),
                    jni.fallbackReasons().toString());
        }
    }

    static byte[] header(int len, int id, int status, int seq) {
        return ByteBuffer.allocate(16).putInt(len).putInt(id).putInt(status).putInt(seq).array();
    }

    @Test
    void whatRecordsCannotCarryFallsBackAndIsCounted() throws Exception {
        List<byte[]> cases = new ArrayList<>();
        /* a 25-digit source address: ours says ESME_RINVSRCADR, Cloudhopper reads it */
        cases.add(Ch.encode(CloudhopperPeersTest.submit(1, "1234567890123456789012345")));
        BindTransceiver bt = new BindTransceiver();
        bt.setSystemId("a-system-id-of-28-characters");
        bt.setPassword("pw");
        cases.add(Ch.encode(bt));                                       /* ESME_RINVSYSID */
        SubmitSm wrongTlv = CloudhopperPeersTest.submit(2, "4670");
        wrongTlv.addOptionalParameter(new Tlv((short) 0x020C, new byte[] {1}));  /* 2 octets in v3.4 */
        cases.add(Ch.encode(wrongTlv));
        cases.add(fuzzSeeds("ok_outbind").get(0));                     /* no Cloudhopper class */
        cases.add(fuzzSeeds("ok_submit_multi").get(0));
        cases.add(header(16, Smpp.QUERY_SM_RESP, 0x67, 9));             /* body-less query_sm_resp */
        SubmitSm big = CloudhopperPeersTest.submit(3, "4670");
        big.setShortMessage(new byte[0]);
        big.addOptionalParameter(new Tlv((short) 0x0424, new byte[40000]));
        big.addOptionalParameter(new Tlv((short) 0x1401, new byte[40000]));
        cases.add(Ch.encode(big));                                      /* over 65535 octets */
        cases.add(header(8, Smpp.ENQUIRE_LINK, 0, 1));                  /* command_length < 16 */
        try (JniPduTranscoder jni = new JniPduTranscoder()) {
            for (int i = 0; i < cases.size(); i++) {
                differential(jni, cases.get(i), false, "case " + i);
            }
            Map<String, Long> why = jni.fallbackReasons();
            assertEquals(cases.size(), jni.fallbacks(), why.toString());
            assertEquals(0, jni.nativeDecoded());
            for (String k : new String[] {"decoder status ESME_RINVSRCADR",
                "decoder status ESME_RINVSYSID", "outbind: no Cloudhopper class",
                "submit_multi: no Cloudhopper class", "query_sm_resp without body",
                "command_length > 65535", "command_length < 16"}) {
                assertEquals(1L, why.get(k), k + " in " + why);
            }
            assertEquals(8, why.values().stream().mapToLong(Long::longValue).sum(), why.toString());

            /* a response without body that Cloudhopper reads as a null
             * message_id is built natively */
            byte[] nobody = header(16, Smpp.SUBMIT_SM_RESP, 0x45, 10);
            differential(jni, nobody, false, "body-less submit_sm_resp");
            assertEquals(1, jni.nativeDecoded());
        }
    }

    @Test
    void oneTranscoderManyThreadsAndInterleavedBuffers() throws Exception {
        byte[] mix = thesisMix();
        byte[] ch = Ch.concat(variety(15, 1200));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        JniPduTranscoder jni = new JniPduTranscoder();
        try {
            List<Future<Integer>> f = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                final int tt = t;
                f.add(pool.submit(() -> tt % 2 == 0 ? differential(jni, mix, false, "thread " + tt)
                        : chunked(jni, ch, new Random(tt), "thread " + tt)));
            }
            for (int t = 0; t < 4; t++) {
                assertEquals(t % 2 == 0 ? 5200 : 1200, f.get(t).get(120, TimeUnit.SECONDS));
            }
            /* one thread, two buffers read in turn: the batch of one is
             * evicted by the other each time; results stay Cloudhopper's */
            ChannelBuffer[] a = {ChannelBuffers.wrappedBuffer(mix.clone()), ChannelBuffers.wrappedBuffer(ch.clone())};
            ChannelBuffer[] b = {ChannelBuffers.wrappedBuffer(mix.clone()), ChannelBuffers.wrappedBuffer(ch.clone())};
            for (int i = 0; i < 2400; i++) {
                int k = i & 1;
                Deep.assertSameOutcome(Deep.decode(Ch.TC, a[k]), Deep.decode(jni, b[k]), "interleaved " + i);
            }
            assertEquals(0, jni.fallbacks(), jni.fallbackReasons().toString());
            /* after close(): Cloudhopper's decoder, counted */
            jni.close();
            assertEquals(200, differential(jni, Ch.concat(variety(16, 200)), false, "closed"));
            assertEquals(200L, jni.fallbackReasons().get("transcoder closed"));
        } finally {
            jni.close();
            pool.shutdownNow();
        }
    }

    /* ---- Cloudhopper's server and client ---- */

    /** What Cloudhopper's own decoder makes of the bytes Cloudhopper's
     * encoder wrote for p (the bytes that went on the wire). */
    static Pdu chOf(Pdu p) throws Exception {
        return Ch.decodeOne(Ch.encode(p));
    }

    static final class Server implements SmppServerHandler {
        final List<Pdu> got = new CopyOnWriteArrayList<>();
        final Map<Integer, PduResponse> answered = new ConcurrentHashMap<>();
        final List<BaseBind> binds = new CopyOnWriteArrayList<>();
        final Map<Long, BaseBindResp> bindResps = new ConcurrentHashMap<>();
        volatile SmppServerSession session;

        @Override
        public void sessionBindRequested(Long id, SmppSessionConfiguration c, BaseBind bind)
                throws SmppProcessingException {
            binds.add(bind);
            if (!"esme1".equals(bind.getSystemId()) || !"pw".equals(bind.getPassword())) {
                throw new SmppProcessingException(SmppConstants.STATUS_INVPASWD);
            }
        }

        @Override
        public void sessionCreated(Long id, SmppServerSession s, BaseBindResp resp) {
            bindResps.put(id, resp);
            session = s;
            s.serverReady(new DefaultSmppSessionHandler() {
                @Override
                public PduResponse firePduRequestReceived(PduRequest req) {
                    got.add(req);
                    PduResponse r = req.createResponse();
                    if (r instanceof SubmitSmResp sr) {
                        sr.setMessageId(String.format("%016x", req.getSequenceNumber()));
                        sr.addOptionalParameter(new Tlv((short) 0x1403, new byte[] {7, 7}));
                    }
                    answered.put(req.getSequenceNumber(), r);
                    return r;
                }
            });
        }

        @Override
        public void sessionDestroyed(Long id, SmppServerSession s) {
            s.destroy();
        }
    }

    static final class Client extends DefaultSmppSessionHandler {
        final List<Pdu> got = new CopyOnWriteArrayList<>();
        final Map<Integer, PduResponse> answered = new ConcurrentHashMap<>();

        @Override
        public PduResponse firePduRequestReceived(PduRequest req) {
            got.add(req);
            PduResponse r = req.createResponse();
            answered.put(req.getSequenceNumber(), r);
            return r;
        }

        @Override
        public void fireExpectedPduResponseReceived(com.cloudhopper.smpp.PduAsyncResponse r) {
        }
    }

    static SubmitSm submit(int i) throws Exception {
        SubmitSm s = CloudhopperPeersTest.submit(i, "4670000" + i);
        s.setServiceType(i % 3 == 0 ? "CMT" : "");
        s.setValidityPeriod(i % 2 == 0 ? "000001000000000R" : null);
        s.setEsmClass((byte) (i % 4 == 0 ? 0x40 : 0));
        s.addOptionalParameter(new Tlv((short) 0x0204, new byte[] {0, (byte) i}));
        if (i % 5 == 0) {
            s.setShortMessage(new byte[0]);
            s.addOptionalParameter(new Tlv((short) 0x0424, ("a long text " + i).repeat(40)
                    .getBytes(StandardCharsets.ISO_8859_1)));
        }
        return s;
    }

    static DeliverSm receipt(int i) throws Exception {
        DeliverSm d = new DeliverSm();
        d.setSourceAddress(new Address((byte) 1, (byte) 1, "4670000" + i));
        d.setDestAddress(new Address((byte) 5, (byte) 0, "esme1"));
        d.setEsmClass((byte) 0x04);
        String id = String.format("%016x", i);
        d.setShortMessage(("id:" + id + " sub:001 dlvrd:001 submit date:2611260900 done date:2611260901"
                + " stat:DELIVRD err:000 text:hello").getBytes(StandardCharsets.US_ASCII));
        d.addOptionalParameter(new Tlv((short) 0x001E, (id + "\0").getBytes(StandardCharsets.US_ASCII)));
        d.addOptionalParameter(new Tlv((short) 0x0427, new byte[] {2}));
        return d;
    }

    /** One session end to end; JNI on the server, the client, or both. */
    void endToEnd(boolean jniServer, boolean jniClient) throws Exception {
        SmppServerConfiguration cfg = new SmppServerConfiguration();
        cfg.setHost("127.0.0.1");
        cfg.setPort(CloudhopperPeersTest.freePort());
        cfg.setJmxEnabled(false);
        cfg.setDefaultWindowSize(64);
        cfg.setNonBlockingSocketsEnabled(true);
        Server srvH = new Server();
        DefaultSmppServer server = jniServer ? new JniSmppServer(cfg, srvH) : new DefaultSmppServer(cfg, srvH);
        DefaultSmppClient client = jniClient ? new JniSmppClient() : new DefaultSmppClient();
        String what = (jniServer ? "JNI" : "Cloudhopper") + " server, " + (jniClient ? "JNI" : "Cloudhopper")
                + " client";
        server.start();
        try {
            SmppSessionConfiguration sc = CloudhopperPeersTest.clientConfig(cfg.getPort(), "pw");
            sc.setType(SmppBindType.TRANSCEIVER);
            sc.setSystemType("hp");
            sc.setAddressRange(new Address((byte) 1, (byte) 1, "^4670"));
            Client cliH = new Client();
            SmppSession s = client.bind(sc, cliH);
            assertTrue(s.isBound(), what);
            /* submits, sync and windowed; the server answers each with a
             * message id and a vendor TLV */
            List<SubmitSm> sent = new ArrayList<>();
            List<PduResponse> resps = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                SubmitSm sm = submit(i);
                sent.add(sm);
                resps.add(s.submit(sm, 10000));
            }
            List<WindowFuture<Integer, PduRequest, PduResponse>> fut = new ArrayList<>();
            for (int i = 20; i < 220; i++) {
                SubmitSm sm = submit(i);
                sent.add(sm);
                fut.add(s.sendRequestPdu(sm, 10000, false));
            }
            for (WindowFuture<Integer, PduRequest, PduResponse> f : fut) {
                assertTrue(f.await(10000) && f.isSuccess(), what);
                resps.add(f.getResponse());
            }
            EnquireLinkResp el = s.enquireLink(new EnquireLink(), 10000);
            assertEquals(SmppConstants.STATUS_OK, el.getCommandStatus(), what);
            /* the server delivers receipts and enquires */
            SmppServerSession ss = srvH.session;
            assertNotNull(ss, what);
            List<DeliverSm> dl = new ArrayList<>();
            List<PduResponse> dlResps = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                DeliverSm d = receipt(i);
                dl.add(d);
                WindowFuture<Integer, PduRequest, PduResponse> f = ss.sendRequestPdu(d, 10000, true);
                assertTrue(f.await(10000) && f.isSuccess(), what);
                dlResps.add(f.getResponse());
            }
            assertEquals(SmppConstants.STATUS_OK, ss.enquireLink(new EnquireLink(), 10000).getCommandStatus());

            /* every PDU each side received is what Cloudhopper's decoder
             * makes of the bytes the other side's encoder wrote */
            for (int i = 0; i < sent.size(); i++) {
                Pdu got = srvH.got.stream().filter(p -> p instanceof SubmitSm).toList().get(i);
                Deep.assertSame(chOf(sent.get(i)), got, what + ": submit_sm " + i);
                Deep.assertSame(chOf(srvH.answered.get(resps.get(i).getSequenceNumber())), resps.get(i),
                        what + ": submit_sm_resp " + i);
                assertEquals(String.format("%016x", sent.get(i).getSequenceNumber()),
                        ((SubmitSmResp) resps.get(i)).getMessageId());
            }
            List<Pdu> cliGot = cliH.got.stream().filter(p -> p instanceof DeliverSm).toList();
            assertEquals(30, cliGot.size(), what);
            for (int i = 0; i < 30; i++) {
                Deep.assertSame(chOf(dl.get(i)), cliGot.get(i), what + ": deliver_sm " + i);
                Deep.assertSame(chOf(cliH.answered.get(dlResps.get(i).getSequenceNumber())), dlResps.get(i),
                        what + ": deliver_sm_resp " + i);
                assertTrue(dlResps.get(i) instanceof DeliverSmResp);
            }
            Deep.assertSame(chOf(el), el, what + ": enquire_link_resp");
            BaseBind bind = srvH.binds.get(0);
            Deep.assertSame(chOf(bind), bind, what + ": bind");
            assertEquals("hp", bind.getSystemType());
            assertEquals("^4670", bind.getAddressRange().getAddress());
            s.unbind(5000);
            long t0 = System.nanoTime();
            while (srvH.got.stream().noneMatch(p -> p instanceof Unbind) && System.nanoTime() - t0 < 5e9) {
                Thread.sleep(10);
            }
            Pdu unbind = srvH.got.stream().filter(p -> p instanceof Unbind).findFirst().orElseThrow();
            Deep.assertSame(chOf(unbind), unbind, what + ": unbind");
            for (Pdu p : srvH.got) {
                Deep.assertSame(chOf(p), p, what + ": server got " + p.getName());
            }
            /* how many went through the JNI decoder: all of them */
            if (jniServer) {
                JniPduTranscoder t = ((JniSmppServer) server).getJniTranscoder();
                assertEquals(0, t.fallbacks(), what + ": " + t.fallbackReasons());
                /* bind, 220 submits, enquire_link, 30 deliver_sm_resp,
                 * enquire_link_resp, unbind */
                assertEquals(1 + 220 + 1 + 30 + 1 + 1, t.nativeDecoded(), what);
            }
            if (jniClient) {
                JniPduTranscoder t = ((JniSmppClient) client).getJniTranscoder();
                assertEquals(0, t.fallbacks(), what + ": " + t.fallbackReasons());
                /* bind_resp, 220 submit_sm_resp, enquire_link_resp, 30
                 * deliver_sm, enquire_link (unbind_resp: maybe not yet) */
                assertTrue(t.nativeDecoded() >= 1 + 220 + 1 + 30 + 1, what + ": " + t.nativeDecoded());
            }
        } finally {
            client.destroy();
            server.destroy();
        }
    }

    @Test
    void cloudhopperServerAndClientWithTheJniTranscoder() throws Exception {
        endToEnd(true, true);
    }

    @Test
    void jniOnOneSideOnly() throws Exception {
        endToEnd(true, false);
        endToEnd(false, true);
    }

    @Test
    void wrongPasswordRefusedThroughTheJniServer() throws Exception {
        SmppServerConfiguration cfg = new SmppServerConfiguration();
        cfg.setHost("127.0.0.1");
        cfg.setPort(CloudhopperPeersTest.freePort());
        cfg.setJmxEnabled(false);
        JniSmppServer server = new JniSmppServer(cfg, new Server());
        JniSmppClient client = new JniSmppClient();
        server.start();
        try {
            com.cloudhopper.smpp.type.SmppBindException e = org.junit.jupiter.api.Assertions.assertThrows(
                    com.cloudhopper.smpp.type.SmppBindException.class,
                    () -> client.bind(CloudhopperPeersTest.clientConfig(cfg.getPort(), "wrong"), new Client()));
            assertEquals(SmppConstants.STATUS_INVPASWD, e.getBindResponse().getCommandStatus());
            assertEquals(0, client.getJniTranscoder().fallbacks());
            assertTrue(client.getJniTranscoder().nativeDecoded() >= 1);
        } finally {
            client.destroy();
            server.destroy();
        }
    }
}
