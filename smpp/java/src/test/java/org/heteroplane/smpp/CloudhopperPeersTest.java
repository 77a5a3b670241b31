/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real peers over 127.0.0.1, Cloudhopper (com.cloudhopper:ch-smpp) on the
 * other end:
 *  - a Cloudhopper client binds to hp-smppd, submits (sync and windowed
 *    async), gets submit_sm_resp with distinct message ids or the decode
 *    status, enquire_link and unbind work, wrong credentials are refused;
 *  - the same client over TLS gets delivery receipts its DeliveryReceipt
 *    parser reads, query_sm/replace_sm/cancel_sm answered from the store,
 *    and ESME_RINVPASWD, ESME_RTHROTTLED, ESME_RBINDFAIL before the close;
 *  - hp-smppsim (N sessions at a target TPS) against Cloudhopper's own
 *    SMPP server: every submit arrives with the generator's addresses, text
 *    and TLVs as Cloudhopper decodes them, and every one is answered.
 */
package org.heteroplane.smpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.cloudhopper.smpp.PduAsyncResponse;
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
import com.cloudhopper.smpp.pdu.EnquireLinkResp;
import com.cloudhopper.smpp.pdu.CancelSm;
import com.cloudhopper.smpp.pdu.DeliverSm;
import com.cloudhopper.smpp.pdu.QuerySm;
import com.cloudhopper.smpp.pdu.QuerySmResp;
import com.cloudhopper.smpp.pdu.ReplaceSm;
import com.cloudhopper.smpp.ssl.SslConfiguration;
import com.cloudhopper.smpp.util.DeliveryReceipt;
import com.cloudhopper.smpp.pdu.PduRequest;
import com.cloudhopper.smpp.pdu.PduResponse;
import com.cloudhopper.smpp.pdu.SubmitSm;
import com.cloudhopper.smpp.pdu.SubmitSmResp;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.type.Address;
import com.cloudhopper.smpp.type.SmppBindException;
import com.cloudhopper.smpp.type.SmppProcessingException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.cloudhopper.commons.util.windowing.WindowFuture;
import org.joda.time.DateTimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/* Cloudhopper's API has raw types (WindowFuture of PduRequest, BaseBind). */
@SuppressWarnings("rawtypes")
class CloudhopperPeersTest {
    static final Path BUILD = Path.of(System.getProperty("hp.build", "../../build")).toAbsolutePath();

    @TempDir
    Path tmp;

    /** hp-smppd on a free port; the caller destroys it. */
    Process smppd(int[] port) throws IOException {
        Path users = tmp.resolve("users.conf");
        Files.writeString(users, "user esme1 secret1\n");
        Process p = new ProcessBuilder(BUILD.resolve("smpp/tools/hp-smppd").toString(), "-c",
                users.toString(), "-a", "127.0.0.1", "-p", "0", "-b", "16", "-T", "2")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.US_ASCII)).readLine();
        assertNotNull(line, "hp-smppd did not start");
        assertTrue(line.contains("listening on 127.0.0.1:"), line);
        port[0] = Integer.parseInt(line.substring(line.lastIndexOf(':') + 1).trim());
        return p;
    }

    static SmppSessionConfiguration clientConfig(int port, String password) {
        SmppSessionConfiguration c = new SmppSessionConfiguration();
        c.setName("hp-test-client");
        c.setType(SmppBindType.TRANSCEIVER);
        c.setHost("127.0.0.1");
        c.setPort(port);
        c.setSystemId("esme1");
        c.setPassword(password);
        c.setWindowSize(32);
        c.setConnectTimeout(5000);
        c.setBindTimeout(5000);
        c.setRequestExpiryTimeout(10000);
        return c;
    }

    /* Windowed submits are collected through their futures: the handler
     * need not hear of them (the default one logs each). */
    static class QuietHandler extends DefaultSmppSessionHandler {
        @Override
        public void fireExpectedPduResponseReceived(PduAsyncResponse r) {
        }
    }

    static SubmitSm submit(int i, String src) throws Exception {
        SubmitSm s = new SubmitSm();
        s.setSourceAddress(new Address((byte) 1, (byte) 1, src));
        s.setDestAddress(new Address((byte) 1, (byte) 1, "4670" + (1000000 + i)));
        s.setRegisteredDelivery((byte) 1);
        s.setDataCoding((byte) 8);
        s.setShortMessage(("héllo " + i).getBytes(StandardCharsets.UTF_16BE));
        s.addOptionalParameter(new Tlv((short) 0x020C, new byte[] {0, (byte) i}));
        s.addOptionalParameter(new Tlv((short) 0x1501, "vendor".getBytes(StandardCharsets.US_ASCII)));
        return s;
    }

    @Test
    void cloudhopperClientAgainstHpSmppd() throws Exception {
        int[] port = new int[1];
        Process srv = smppd(port);
        DefaultSmppClient client = new DefaultSmppClient(Executors.newCachedThreadPool(), 1);
        try {
            SmppSession s = client.bind(clientConfig(port[0], "secret1"), new QuietHandler());
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < 40; i++) {
                SubmitSmResp r = s.submit(submit(i, "46700000"), 10000);
                assertEquals(SmppConstants.STATUS_OK, r.getCommandStatus());
                assertTrue(r.getMessageId().matches("[0-9a-f]{16}"), r.getMessageId());
                ids.add(r.getMessageId());
            }
            /* windowed: many outstanding at once, answered in batches */
            List<WindowFuture<Integer, PduRequest, PduResponse>> fut = new ArrayList<>();
            for (int i = 40; i < 140; i++) {
                fut.add(s.sendRequestPdu(submit(i, "46700000"), 10000, false));
            }
            for (WindowFuture<Integer, PduRequest, PduResponse> f : fut) {
                assertTrue(f.await(10000));
                assertTrue(f.isSuccess());
                SubmitSmResp r = (SubmitSmResp) f.getResponse();
                assertEquals(SmppConstants.STATUS_OK, r.getCommandStatus());
                ids.add(r.getMessageId());
            }
            assertEquals(140, ids.size());
            /* a 25-digit source address is longer than v3.4 allows (21 with
             * NUL): hp-smppd's batch decoder answers ESME_RINVSRCADR */
            SubmitSmResp bad = s.submit(submit(0, "1234567890123456789012345"), 10000);
            assertEquals(SmppConstants.STATUS_INVSRCADR, bad.getCommandStatus());
            EnquireLinkResp el = s.enquireLink(new com.cloudhopper.smpp.pdu.EnquireLink(), 10000);
            assertEquals(SmppConstants.STATUS_OK, el.getCommandStatus());
            s.unbind(5000);
            SmppBindException e = assertThrows(SmppBindException.class,
                    () -> client.bind(clientConfig(port[0], "wrong"), new DefaultSmppSessionHandler()));
            assertEquals(SmppConstants.STATUS_INVPASWD, e.getBindResponse().getCommandStatus());
        } finally {
            client.destroy();
            srv.destroy();
            assertEquals(0, srv.waitFor(), "hp-smppd exit status after SIGTERM");
        }
    }

    /** A certificate and key for localhost, made by openssl in dir. */
    static Path[] certificate(Path dir) throws Exception {
        Path cert = dir.resolve("cert.pem"), key = dir.resolve("key.pem");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(), "-out",
                cert.toString(), "-days", "2", "-subj", "/CN=localhost")
                .redirectErrorStream(true).redirectOutput(dir.resolve("openssl.log").toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0,
                "openssl: " + Files.readString(dir.resolve("openssl.log")));
        return new Path[] {cert, key};
    }

    /** Collects the deliver_sm a session receives and answers each. */
    static final class Receipts extends QuietHandler {
        final BlockingQueue<DeliverSm> got = new LinkedBlockingQueue<>();

        @Override
        public PduResponse firePduRequestReceived(PduRequest req) {
            if (req instanceof DeliverSm d) {
                got.add(d);
            }
            return req.createResponse();
        }
    }

    static PduResponse call(SmppSession s, PduRequest r) throws Exception {
        WindowFuture<Integer, PduRequest, PduResponse> f = s.sendRequestPdu(r, 10000, true);
        assertTrue(f.await(10000) && f.isSuccess(), "no response to " + r);
        return f.getResponse();
    }

    static SubmitSm text(String body, String schedule) throws Exception {
        SubmitSm s = new SubmitSm();
        s.setSourceAddress(new Address((byte) 1, (byte) 1, "46700001"));
        s.setDestAddress(new Address((byte) 1, (byte) 1, "46700002"));
        s.setRegisteredDelivery((byte) 1);
        s.setShortMessage(body.getBytes(StandardCharsets.US_ASCII));
        if (schedule != null) {
            s.setScheduleDeliveryTime(schedule);
        }
        return s;
    }

    /** A receipt as Cloudhopper reads it: esm_class, TLVs, and the text by its own parser. */
    static DeliveryReceipt receipt(DeliverSm d, String id, String body) throws Exception {
        assertEquals(SmppConstants.ESM_CLASS_MT_SMSC_DELIVERY_RECEIPT, d.getEsmClass() & 0x3C);
        assertEquals(id, d.getOptionalParameter(SmppConstants.TAG_RECEIPTED_MSG_ID).getValueAsString());
        assertEquals(SmppConstants.STATE_DELIVERED,
                d.getOptionalParameter(SmppConstants.TAG_MSG_STATE).getValueAsByte());
        DeliveryReceipt r = DeliveryReceipt.parseShortMessage(
                new String(d.getShortMessage(), StandardCharsets.US_ASCII), DateTimeZone.UTC);
        assertEquals(id, r.getMessageId());
        assertEquals(SmppConstants.STATE_DELIVERED, r.getState());
        assertEquals(1, r.getSubmitCount());
        assertEquals(1, r.getDeliveredCount());
        assertEquals(0, r.getErrorCode());
        assertEquals(body, r.getText());
        assertNotNull(r.getSubmitDate());
        assertNotNull(r.getDoneDate());
        return r;
    }

    QuerySmResp query(SmppSession s, String id) throws Exception {
        QuerySm q = new QuerySm();
        q.setMessageId(id);
        q.setSourceAddress(new Address((byte) 1, (byte) 1, "46700001"));
        return (QuerySmResp) call(s, q);
    }

    /**
     * Cloudhopper's client over TLS (its SslConfiguration) and plain: a
     * receipt for registered_delivery=1 that Cloudhopper's DeliveryReceipt
     * reads, query_sm, replace_sm and cancel_sm on stored messages, and the
     * refusals a client must see before the close (wrong password, over the
     * system_id's binds=, over -m).
     */
    @Test
    void cloudhopperClientTlsReceiptsAndStore() throws Exception {
        Path[] ck = certificate(tmp);
        Path users = tmp.resolve("users-tls.conf");
        Files.writeString(users, "user esme1 secret1 binds=2\nuser esme2 pw2\n");
        Process srv = new ProcessBuilder(BUILD.resolve("smpp/tools/hp-smppd").toString(), "-c",
                users.toString(), "-a", "127.0.0.1", "-p", "0", "-S", "0", "-C", ck[0].toString(),
                "-K", ck[1].toString(), "-m", "3", "-o", "dlr_delay=0.2")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(srv.getInputStream(),
                StandardCharsets.US_ASCII));
        String plainLine = out.readLine(), tlsLine = out.readLine();
        assertTrue(plainLine != null && plainLine.contains("listening on 127.0.0.1:"), plainLine);
        assertTrue(tlsLine != null && tlsLine.contains("TLS listening on 127.0.0.1:"), tlsLine);
        int plain = Integer.parseInt(plainLine.substring(plainLine.lastIndexOf(':') + 1).trim());
        int tls = Integer.parseInt(tlsLine.substring(tlsLine.lastIndexOf(':') + 1).trim());
        DefaultSmppClient client = new DefaultSmppClient(Executors.newCachedThreadPool(), 3);
        try {
            SmppSessionConfiguration tc = clientConfig(tls, "secret1");
            SslConfiguration ssl = new SslConfiguration();
            ssl.setTrustAll(true);       /* a self-signed certificate made above */
            /* Cloudhopper 5.0.9's Netty 3 SslHandler stalls now and then in
             * a TLS 1.3 handshake on JDK 17 (one bind in each of two runs:
             * the handshake never completed on the server's side; the
             * JDK's own SSLSocket bound 100 of 100 times over 1.3), so its
             * client speaks 1.2 here, which the server also offers */
            ssl.setIncludeProtocols("TLSv1.2");
            tc.setUseSsl(true);
            tc.setSslConfiguration(ssl);
            Receipts rx = new Receipts();
            SmppSession s = client.bind(tc, rx);
            assertEquals(SmppConstants.VERSION_3_4, s.getInterfaceVersion());
            assertTrue(s.areOptionalParametersSupported(), "sc_interface_version in bind_resp");

            /* a receipt over TLS, read by Cloudhopper's parser; then query_sm */
            SubmitSmResp r = s.submit(text("over tls", null), 10000);
            assertEquals(SmppConstants.STATUS_OK, r.getCommandStatus());
            String id = r.getMessageId();
            DeliverSm d = rx.got.poll(10, TimeUnit.SECONDS);
            assertNotNull(d, "no delivery receipt");
            receipt(d, id, "over tls");
            QuerySmResp q = query(s, id);
            assertEquals(SmppConstants.STATUS_OK, q.getCommandStatus());
            assertEquals(id, q.getMessageId());
            assertEquals(SmppConstants.STATE_DELIVERED, q.getMessageState());

            /* two due in a day: replace_sm brings one forward with a new
             * text (its receipt quotes it), cancel_sm deletes the other */
            String[] ids = new String[2];
            for (int i = 0; i < 2; i++) {
                SubmitSmResp sr = s.submit(text("pending " + i, "000001000000000R"), 10000);
                assertEquals(SmppConstants.STATUS_OK, sr.getCommandStatus());
                ids[i] = sr.getMessageId();
                assertEquals(SmppConstants.STATE_ENROUTE, query(s, ids[i]).getMessageState());
            }
            ReplaceSm rep = new ReplaceSm();
            rep.setMessageId(ids[0]);
            rep.setSourceAddress(new Address((byte) 1, (byte) 1, "46700001"));
            rep.setScheduleDeliveryTime("000000000001000R");
            rep.setRegisteredDelivery((byte) 1);
            rep.setShortMessage("replaced".getBytes(StandardCharsets.US_ASCII));
            assertEquals(SmppConstants.STATUS_OK, call(s, rep).getCommandStatus());
            CancelSm can = new CancelSm();
            can.setMessageId(ids[1]);
            can.setSourceAddress(new Address((byte) 1, (byte) 1, "46700001"));
            can.setDestAddress(new Address((byte) 1, (byte) 1, ""));
            assertEquals(SmppConstants.STATUS_OK, call(s, can).getCommandStatus());
            assertEquals(SmppConstants.STATE_DELETED, query(s, ids[1]).getMessageState());
            assertEquals(SmppConstants.STATUS_CANCELFAIL, call(s, can).getCommandStatus());
            d = rx.got.poll(15, TimeUnit.SECONDS);
            assertNotNull(d, "no receipt for the replaced message");
            receipt(d, ids[0], "replaced");
            assertEquals(SmppConstants.STATE_DELIVERED, query(s, ids[0]).getMessageState());
            assertEquals(null, rx.got.poll(1, TimeUnit.SECONDS), "a receipt for the cancelled one");

            /* refusals before the close: a wrong password over TLS, then
             * esme1's second bind (plain) is fine and its third is over
             * binds=2, esme2 takes the last of -m 3 and one more is over */
            SmppSessionConfiguration bad = clientConfig(tls, "wrong");
            bad.setUseSsl(true);
            bad.setSslConfiguration(ssl);
            SmppBindException e = assertThrows(SmppBindException.class,
                    () -> client.bind(bad, new QuietHandler()));
            assertEquals(SmppConstants.STATUS_INVPASWD, e.getBindResponse().getCommandStatus());
            SmppSession s2 = client.bind(clientConfig(plain, "secret1"), new QuietHandler());
            e = assertThrows(SmppBindException.class,
                    () -> client.bind(clientConfig(plain, "secret1"), new QuietHandler()));
            assertEquals(SmppConstants.STATUS_THROTTLED, e.getBindResponse().getCommandStatus());
            SmppSessionConfiguration c2 = clientConfig(plain, "pw2");
            c2.setSystemId("esme2");
            SmppSession s3 = client.bind(c2, new QuietHandler());
            e = assertThrows(SmppBindException.class, () -> client.bind(c2, new QuietHandler()));
            assertEquals(SmppConstants.STATUS_BINDFAIL, e.getBindResponse().getCommandStatus());
            s3.unbind(5000);
            s2.unbind(5000);
            s.unbind(5000);
        } finally {
            client.destroy();
            srv.destroy();
            assertEquals(0, srv.waitFor(), "hp-smppd exit status after SIGTERM");
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Cloudhopper's SMPP server that records every submit_sm it decodes. */
    static final class Recorder implements SmppServerHandler {
        final Map<String, SubmitSm> got = new ConcurrentHashMap<>();
        final AtomicLong ids = new AtomicLong();

        @Override
        public void sessionBindRequested(Long id, SmppSessionConfiguration c, BaseBind bind)
                throws SmppProcessingException {
            if (!"esme1".equals(bind.getSystemId())) {
                throw new SmppProcessingException(SmppConstants.STATUS_INVSYSID);
            }
            if (!"pw".equals(bind.getPassword())) {
                throw new SmppProcessingException(SmppConstants.STATUS_INVPASWD);
            }
        }

        @Override
        public void sessionCreated(Long id, SmppServerSession session, BaseBindResp resp) {
            session.serverReady(new DefaultSmppSessionHandler() {
                @Override
                public PduResponse firePduRequestReceived(PduRequest req) {
                    PduResponse r = req.createResponse();
                    if (req instanceof SubmitSm sm) {
                        got.put(sm.getSourceAddress().getAddress(), sm);
                        ((SubmitSmResp) r).setMessageId(Long.toString(ids.incrementAndGet()));
                    }
                    return r;
                }
            });
        }

        @Override
        public void sessionDestroyed(Long id, SmppServerSession session) {
            session.destroy();
        }
    }

    record Sim(int rc, String json, String err) {
    }

    Sim sim(int port, String pw, String... args) throws Exception {
        return sim(tmp, port, pw, args);
    }

    /** hp-smppsim -j against 127.0.0.1:port; its exit status, JSON, stderr. */
    static Sim sim(Path tmp, int port, String pw, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(BUILD.resolve("smpp/tools/hp-smppsim").toString(),
                "-a", "127.0.0.1", "-p", Integer.toString(port), "-u", "esme1", "-w", pw, "-j"));
        cmd.addAll(List.of(args));
        Path out = tmp.resolve("sim.out"), err = tmp.resolve("sim.err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "hp-smppsim did not finish");
        return new Sim(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void hpSmppSimAgainstCloudhopperServer() throws Exception {
        SmppServerConfiguration cfg = new SmppServerConfiguration();
        int port = freePort();
        cfg.setPort(port);
        cfg.setHost("127.0.0.1");
        cfg.setMaxConnectionSize(10);
        cfg.setNonBlockingSocketsEnabled(true);
        cfg.setDefaultWindowSize(64);
        cfg.setJmxEnabled(false);
        Recorder rec = new Recorder();
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newCachedThreadPool();
        DefaultSmppServer server = new DefaultSmppServer(cfg, rec, pool);
        server.start();
        try {
            Sim r = sim(port, "pw", "-n", "3", "-r", "3000", "-c", "200", "-W", "16");
            assertEquals(0, r.rc(), r.json() + r.err());
            assertTrue(r.json().contains("\"bound\":3,"), r.json());
            assertTrue(r.json().contains("\"ok\":600,\"errors\":{},\"unanswered\":0"), r.json());
            assertEquals(600, rec.got.size());
            /* numbers 0..599 (session rank + k * sessions), each with the
             * generator's fields as Cloudhopper decoded them */
            for (int i = 0; i < 600; i++) {
                SubmitSm sm = rec.got.get(SmppDecoderTest.src(i));
                assertNotNull(sm, "submit number " + i);
                assertEquals(SmppDecoderTest.dst(i), sm.getDestAddress().getAddress());
                assertEquals(1, sm.getSourceAddress().getTon());
                assertArrayEquals(SmppDecoderTest.text(i, 20), sm.getShortMessage());
                assertEquals(5, sm.getOptionalParameters().size());
                for (int k = 0; k < 5; k++) {
                    assertEquals(SmppDecoderTest.SIM_TAGS[k], sm.getOptionalParameters().get(k).getTag());
                }
                assertEquals(1, sm.getRegisteredDelivery());
            }
            Sim bad = sim(port, "nope", "-n", "2", "-d", "0.2");
            assertEquals(1, bad.rc());
            assertTrue(bad.json().contains("\"bound\":0,"), bad.json());
            assertTrue(bad.err().contains("no session bound (bind refused: ESME_RINVPASWD)"), bad.err());
        } finally {
            server.destroy();
            pool.shutdownNow();
        }
    }
}
