/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The example server (Cloudhopper transport and PDU classes, submit_sm
 * through the JNI batch decoder) with real clients: a Cloudhopper client
 * binds, submits in a window and gets message ids, a source address longer
 * than v3.4 allows comes back ESME_RINVSRCADR (our decoder's verdict, which
 * Cloudhopper's own decoder would not give), wrong credentials and submits
 * before bind are refused; hp-smppsim's sessions are all answered; a
 * command_length too short or too long gets a generic_nack ESME_RINVCMDLEN
 * and the close at once (not after reading the body it announces), an
 * unbind before bind ESME_RINVBNDSTS.
 */
package org.heteroplane.smpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.cloudhopper.smpp.SmppConstants;
import com.cloudhopper.smpp.SmppSession;
import com.cloudhopper.smpp.impl.DefaultSmppClient;
import com.cloudhopper.smpp.pdu.EnquireLink;
import com.cloudhopper.smpp.pdu.PduRequest;
import com.cloudhopper.smpp.pdu.PduResponse;
import com.cloudhopper.smpp.pdu.SubmitSmResp;
import com.cloudhopper.smpp.pdu.Unbind;
import com.cloudhopper.smpp.type.SmppBindException;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;

import com.cloudhopper.commons.util.windowing.WindowFuture;
import org.heteroplane.smpp.example.BatchSmppServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@SuppressWarnings("rawtypes")
class BatchSmppServerTest {
    @TempDir
    Path tmp;

    static BatchSmppServer start() {
        return new BatchSmppServer(Map.of("esme1", "secret1"),
                new InetSocketAddress("127.0.0.1", 0), 16, 2);
    }

    @Test
    void cloudhopperClient() throws Exception {
        DefaultSmppClient client = new DefaultSmppClient(Executors.newCachedThreadPool(), 1);
        try (BatchSmppServer srv = start()) {
            SmppSession s = client.bind(CloudhopperPeersTest.clientConfig(srv.port(), "secret1"), new CloudhopperPeersTest.QuietHandler());
            List<WindowFuture<Integer, PduRequest, PduResponse>> fut = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                fut.add(s.sendRequestPdu(CloudhopperPeersTest.submit(i, "46700000"), 10000, false));
            }
            Set<String> ids = new HashSet<>();
            for (WindowFuture<Integer, PduRequest, PduResponse> f : fut) {
                assertTrue(f.await(10000) && f.isSuccess());
                SubmitSmResp r = (SubmitSmResp) f.getResponse();
                assertEquals(SmppConstants.STATUS_OK, r.getCommandStatus());
                ids.add(r.getMessageId());
            }
            assertEquals(100, ids.size());
            SubmitSmResp bad = s.submit(CloudhopperPeersTest.submit(1, "1234567890123456789012345"), 10000);
            assertEquals(SmppConstants.STATUS_INVSRCADR, bad.getCommandStatus());
            assertEquals(SmppConstants.STATUS_OK, s.enquireLink(new EnquireLink(), 10000).getCommandStatus());
            s.unbind(5000);
            assertTrue(srv.decoded() >= 101);
            SmppBindException e = assertThrows(SmppBindException.class,
                    () -> client.bind(CloudhopperPeersTest.clientConfig(srv.port(), "wrong"), new CloudhopperPeersTest.QuietHandler()));
            assertEquals(SmppConstants.STATUS_INVPASWD, e.getBindResponse().getCommandStatus());
            /* before a bind: the submit is refused, not decoded */
            try (Socket raw = new Socket("127.0.0.1", srv.port())) {
                byte[] pdu = Ch.encode(CloudhopperPeersTest.submit(7, "4670"));
                new DataOutputStream(raw.getOutputStream()).write(pdu);
                DataInputStream in = new DataInputStream(raw.getInputStream());
                int len = in.readInt(), id = in.readInt(), st = in.readInt();
                assertEquals(Smpp.SUBMIT_SM_RESP, id);
                assertEquals(SmppConstants.STATUS_INVBNDSTS, st);
                assertTrue(len >= 16);
            }
        } finally {
            client.destroy();
        }
    }

    /* Sends raw octets, returns the socket after the first answer's header. */
    static int[] rawHeader(DataInputStream in) throws Exception {
        int len = in.readInt(), id = in.readInt(), st = in.readInt(), seq = in.readInt();
        in.skipNBytes(len - 16);
        return new int[] {len, id, st, seq};
    }

    @Test
    void badCommandLengthGetsGenericNackAndClose() throws Exception {
        try (BatchSmppServer srv = start()) {
            /* {command_length, octets sent}: huge (the body is never sent),
             * zero, short, just above MAX_PDU; with and without the rest of
             * the header */
            int[][] cases = {{0x7fffffff, 16}, {0x7fffffff, 4}, {0, 16}, {0, 4}, {8, 16},
                {15, 16}, {4097, 16}, {0xffffffff, 16}};
            for (int[] c : cases) {
                try (Socket raw = new Socket("127.0.0.1", srv.port())) {
                    raw.setSoTimeout(5000);
                    /* one write: the header arrives in one segment */
                    raw.getOutputStream().write(java.nio.ByteBuffer.allocate(16).putInt(c[0])
                            .putInt(Smpp.SUBMIT_SM).putInt(0).putInt(77).array(), 0, c[1]);
                    long t0 = System.nanoTime();
                    DataInputStream in = new DataInputStream(raw.getInputStream());
                    int[] h = rawHeader(in);
                    String what = String.format("command_length 0x%x (%d octets)", c[0], c[1]);
                    assertEquals(16, h[0], what);
                    assertEquals(Smpp.GENERIC_NACK, h[1], what);
                    assertEquals(SmppConstants.STATUS_INVCMDLEN, h[2], what);
                    assertEquals(c[1] == 16 ? 77 : 0, h[3], what);
                    assertEquals(-1, in.read(), what + ": connection not closed");
                    assertTrue(System.nanoTime() - t0 < 3_000_000_000L, what + ": slow close");
                }
            }
            /* the server goes on serving */
            DefaultSmppClient client = new DefaultSmppClient(Executors.newCachedThreadPool(), 1);
            try {
                SmppSession s = client.bind(CloudhopperPeersTest.clientConfig(srv.port(), "secret1"),
                        new CloudhopperPeersTest.QuietHandler());
                assertEquals(SmppConstants.STATUS_OK, s.enquireLink(new EnquireLink(), 10000).getCommandStatus());
                s.unbind(5000);
            } finally {
                client.destroy();
            }
        }
    }

    @Test
    void unbindBeforeBindIsRefused() throws Exception {
        try (BatchSmppServer srv = start(); Socket raw = new Socket("127.0.0.1", srv.port())) {
            raw.setSoTimeout(5000);
            DataOutputStream out = new DataOutputStream(raw.getOutputStream());
            DataInputStream in = new DataInputStream(raw.getInputStream());
            Unbind u = new Unbind();
            u.setSequenceNumber(5);
            out.write(Ch.encode(u));
            int[] h = rawHeader(in);
            assertEquals(Smpp.UNBIND_RESP, h[1]);
            assertEquals(SmppConstants.STATUS_INVBNDSTS, h[2]);
            assertEquals(5, h[3]);
            /* the connection stays: enquire_link is answered */
            EnquireLink el = new EnquireLink();
            el.setSequenceNumber(6);
            out.write(Ch.encode(el));
            h = rawHeader(in);
            assertEquals(Smpp.ENQUIRE_LINK_RESP, h[1]);
            assertEquals(SmppConstants.STATUS_OK, h[2]);
            assertEquals(6, h[3]);
        }
    }

    @Test
    void simulatorSessions() throws Exception {
        try (BatchSmppServer srv = start()) {
            CloudhopperPeersTest.Sim r = CloudhopperPeersTest.sim(tmp, srv.port(), "secret1", "-n", "4", "-r", "4000", "-c", "250", "-W", "32");
            assertEquals(0, r.rc(), r.json() + r.err());
            assertTrue(r.json().contains("\"ok\":1000,\"errors\":{},\"unanswered\":0"), r.json());
            assertEquals(1000, srv.decoded());
        }
    }
}
