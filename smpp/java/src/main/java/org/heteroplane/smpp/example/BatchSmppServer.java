/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Example SMPP server on Cloudhopper whose submit_sm decoding goes through
 * the JNI batch decoder, after Weerasinghe 2017, 3.2 (figure 3-3): Netty
 * (Cloudhopper's transport) frames PDUs by command_length per connection;
 * submit_sm frames are appended, with the connection as correlation id, to
 * one off-heap batch in element form; the batch is decoded by SmppDecoder
 * when it holds BATCH PDUs or its oldest waited FLUSH_MS, and each PDU is
 * answered with a Cloudhopper SubmitSmResp (a message id, or the status of
 * its decode error).  Binds, enquire_link and unbind are decoded into
 * Cloudhopper's PDU classes by the JNI decoder too (JniPduTranscoder, PDU
 * by PDU) and answered with them.
 *
 * Framing: a command_length below 16 or above MAX_PDU leaves nothing to
 * resynchronise on, so it gets a generic_nack ESME_RINVCMDLEN (with the
 * sequence number when the header is there) and the connection is closed
 * at once, without reading the announced body.  Before a bind, every
 * request but bind and enquire_link (unbind included) is answered
 * ESME_RINVBNDSTS.
 *
 *   java -Dhp.smpp.lib=.../libhpsmppjni.so -cp ... \
 *        org.heteroplane.smpp.example.BatchSmppServer USERS_FILE [PORT] [BATCH] [FLUSH_MS]
 *
 * USERS_FILE has hp-smppd's format: lines "user SYSTEM_ID PASSWORD".
 */
package org.heteroplane.smpp.example;

import com.cloudhopper.smpp.SmppConstants;
import com.cloudhopper.smpp.pdu.BaseBind;
import com.cloudhopper.smpp.pdu.BaseBindResp;
import com.cloudhopper.smpp.pdu.GenericNack;
import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.pdu.PduRequest;
import com.cloudhopper.smpp.pdu.SubmitSmResp;
import com.cloudhopper.smpp.pdu.Unbind;
import com.cloudhopper.smpp.type.RecoverablePduException;
import com.cloudhopper.smpp.type.UnknownCommandIdException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.heteroplane.smpp.DecodedBatch;
import org.heteroplane.smpp.Mode;
import org.heteroplane.smpp.Smpp;
import org.heteroplane.smpp.SmppConfig;
import org.heteroplane.smpp.SmppDecoder;
import org.heteroplane.smpp.cloudhopper.JniPduTranscoder;
import org.jboss.netty.bootstrap.ServerBootstrap;
import org.jboss.netty.buffer.ChannelBuffer;
import org.jboss.netty.channel.Channel;
import org.jboss.netty.channel.ChannelFutureListener;
import org.jboss.netty.channel.ChannelHandlerContext;
import org.jboss.netty.channel.ChannelStateEvent;
import org.jboss.netty.channel.Channels;
import org.jboss.netty.channel.ExceptionEvent;
import org.jboss.netty.channel.MessageEvent;
import org.jboss.netty.channel.SimpleChannelUpstreamHandler;
import org.jboss.netty.channel.group.ChannelGroup;
import org.jboss.netty.channel.group.DefaultChannelGroup;
import org.jboss.netty.channel.socket.nio.NioServerSocketChannelFactory;
import org.jboss.netty.handler.codec.frame.FrameDecoder;

public final class BatchSmppServer implements AutoCloseable {
    static final int MAX_PDU = 4096;
    static final int CORR_LEN = 8;

    private final Map<String, String> users;
    private final int batchMax;
    private final long flushNanos;
    private final JniPduTranscoder tc = new JniPduTranscoder();
    private final SmppConfig cfg = new SmppConfig().element(CORR_LEN, SmppConfig.DEFAULT_MARKER);
    private final SmppDecoder decoder = new SmppDecoder(cfg);
    private final Map<Integer, Channel> byId = new ConcurrentHashMap<>();
    private final ChannelGroup all = new DefaultChannelGroup("hp-batch-smpp");
    private final ServerBootstrap boot;
    private final Channel listener;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    /* the pending batch: [channel id | 0 | submit_sm | marker] elements */
    private final byte[] marker = cfg.marker();
    private ByteBuffer pending;
    private int npending;
    private long oldest;
    private long nextId;
    private long decoded;

    /** Per-connection state, the channel's attachment. */
    private static final class Session {
        int bound;             /* 0, or the bind command id */
    }

    public BatchSmppServer(Map<String, String> users, InetSocketAddress at, int batch, int flushMs) {
        this.users = Map.copyOf(users);
        this.batchMax = batch;
        this.flushNanos = flushMs * 1_000_000L;
        this.pending = ByteBuffer.allocateDirect(batch * (MAX_PDU + CORR_LEN + marker.length));
        boot = new ServerBootstrap(new NioServerSocketChannelFactory(
                Executors.newCachedThreadPool(), Executors.newCachedThreadPool()));
        boot.setPipelineFactory(() -> Channels.pipeline(
                new Framer(),
                new Handler()));
        boot.setOption("child.tcpNoDelay", true);
        listener = boot.bind(at);
        all.add(listener);
        timer.scheduleAtFixedRate(this::flushIfOld, flushMs, Math.max(1, flushMs / 2),
                TimeUnit.MILLISECONDS);
    }

    public int port() {
        return ((InetSocketAddress) listener.getLocalAddress()).getPort();
    }

    /** submit_sm PDUs decoded by the JNI batch decoder so far. */
    public synchronized long decoded() {
        return decoded;
    }

    private void send(Channel ch, Pdu p) {
        try {
            ch.write(tc.encode(p));
        } catch (Exception e) {
            ch.close();
        }
    }

    private synchronized void queue(Channel ch, ChannelBuffer frame) {
        int n = frame.readableBytes();
        if (pending.remaining() < CORR_LEN + n + marker.length) {
            flush();
        }
        if (npending == 0) {
            oldest = System.nanoTime();
        }
        pending.putInt(ch.getId()).putInt(0);
        frame.getBytes(frame.readerIndex(), pending.slice(pending.position(), n));
        pending.position(pending.position() + n).put(marker);
        if (++npending >= batchMax) {
            flush();
        }
    }

    private synchronized void flushIfOld() {
        if (npending > 0 && System.nanoTime() - oldest >= flushNanos) {
            flush();
        }
    }

    /* One JNI call for the whole batch; one response per element. */
    private synchronized void flush() {
        if (npending == 0) {
            return;
        }
        DecodedBatch b = decoder.decode(pending, 0, pending.position(), Mode.AUTO);
        for (int i = 0; i < b.size(); i++) {
            Channel ch = byId.get((int) (b.correlationId(i) >>> 32));
            if (ch == null) {
                continue;                  /* closed meanwhile */
            }
            SubmitSmResp r = new SubmitSmResp();
            r.setSequenceNumber(b.sequenceNumber(i));
            if (b.error(i) == Smpp.ESME_ROK) {
                r.setMessageId(String.format("%016x", nextId++));
            } else {
                r.setCommandStatus(b.error(i));
            }
            send(ch, r);
        }
        decoded += b.size();
        pending.clear();
        npending = 0;
    }

    /* Whole PDUs by command_length (octets 0-3, counting themselves); a
     * length out of [16, MAX_PDU] ends the connection with a generic_nack
     * as soon as its 4 octets are in, whatever it announces. */
    private final class Framer extends FrameDecoder {
        private boolean failed;

        @Override
        protected Object decode(ChannelHandlerContext ctx, Channel ch, ChannelBuffer in) {
            if (failed) {
                in.skipBytes(in.readableBytes());
                return null;
            }
            if (in.readableBytes() < 4) {
                return null;
            }
            int len = in.getInt(in.readerIndex());
            if (len < 16 || len > MAX_PDU) {
                failed = true;
                int seq = in.readableBytes() >= 16 ? in.getInt(in.readerIndex() + 12) : 0;
                in.skipBytes(in.readableBytes());
                ch.setReadable(false);
                nackAndClose(ch, SmppConstants.STATUS_INVCMDLEN, seq);
                return null;
            }
            return in.readableBytes() < len ? null : in.readBytes(len);
        }
    }

    private final class Handler extends SimpleChannelUpstreamHandler {
        @Override
        public void channelOpen(ChannelHandlerContext ctx, ChannelStateEvent e) {
            all.add(e.getChannel());
            byId.put(e.getChannel().getId(), e.getChannel());
            ctx.setAttachment(new Session());
        }

        @Override
        public void channelClosed(ChannelHandlerContext ctx, ChannelStateEvent e) {
            byId.remove(e.getChannel().getId());
        }

        @Override
        @SuppressWarnings("rawtypes")
        public void messageReceived(ChannelHandlerContext ctx, MessageEvent e) {
            Channel ch = e.getChannel();
            Session s = (Session) ctx.getAttachment();
            ChannelBuffer f = (ChannelBuffer) e.getMessage();   /* 16..MAX_PDU octets */
            int id = f.getInt(f.readerIndex() + 4), seq = f.getInt(f.readerIndex() + 12);
            if (id == Smpp.SUBMIT_SM) {
                if (s.bound == Smpp.BIND_TRANSMITTER || s.bound == Smpp.BIND_TRANSCEIVER) {
                    queue(ch, f);
                } else {
                    SubmitSmResp r = new SubmitSmResp();
                    r.setSequenceNumber(seq);
                    r.setCommandStatus(SmppConstants.STATUS_INVBNDSTS);
                    send(ch, r);
                }
                return;
            }
            Pdu p;
            try {
                p = tc.decode(f);
            } catch (UnknownCommandIdException x) {
                GenericNack n = new GenericNack();
                n.setSequenceNumber(seq);
                n.setCommandStatus(SmppConstants.STATUS_INVCMDID);
                send(ch, n);
                return;
            } catch (RecoverablePduException x) {
                /* a body Cloudhopper could not read; the frame was sound */
                GenericNack n = new GenericNack();
                n.setSequenceNumber(seq);
                n.setCommandStatus(SmppConstants.STATUS_SYSERR);
                send(ch, n);
                return;
            } catch (Exception x) {
                nackAndClose(ch, SmppConstants.STATUS_INVCMDLEN, seq);
                return;
            }
            if (p instanceof BaseBind bind) {
                BaseBindResp r = (BaseBindResp) bind.createResponse();
                r.setSystemId("hp-batch-smpp");
                String want = users.get(bind.getSystemId());
                if (s.bound != 0) {
                    r.setCommandStatus(SmppConstants.STATUS_ALYBND);
                } else if (want == null) {
                    r.setCommandStatus(SmppConstants.STATUS_INVSYSID);
                } else if (!want.equals(bind.getPassword())) {
                    r.setCommandStatus(SmppConstants.STATUS_INVPASWD);
                } else {
                    s.bound = id;
                }
                send(ch, r);
            } else if (p instanceof Unbind u && s.bound != 0) {
                ch.write(encode(u.createResponse())).addListener(ChannelFutureListener.CLOSE);
            } else if (p instanceof PduRequest req) {
                Pdu r = req.createResponse();
                if (id != Smpp.ENQUIRE_LINK) {
                    /* a decoder front end: no message store to query */
                    r.setCommandStatus(s.bound == 0 ? SmppConstants.STATUS_INVBNDSTS
                            : SmppConstants.STATUS_INVCMDID);
                }
                send(ch, r);
            }
            /* responses from the ESME need no answer */
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, ExceptionEvent e) {
            e.getChannel().close();
        }
    }

    private ChannelBuffer encode(Pdu p) {
        try {
            return tc.encode(p);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void nackAndClose(Channel ch, int status, int seq) {
        GenericNack n = new GenericNack();
        n.setSequenceNumber(seq);
        n.setCommandStatus(status);
        ch.write(encode(n)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        all.close().awaitUninterruptibly();
        boot.releaseExternalResources();
        synchronized (this) {
            decoder.close();
        }
        tc.close();
    }

    /** hp-smppd's users file: "user SYSTEM_ID PASSWORD" lines, '#' comments. */
    public static Map<String, String> readUsers(Path p) throws IOException {
        Map<String, String> u = new HashMap<>();
        for (String l : Files.readAllLines(p)) {
            String[] w = l.replaceAll("#.*", "").trim().split("\\s+");
            if (w.length == 3 && w[0].equals("user")) {
                u.put(w[1], w[2]);
            }
        }
        return u;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: BatchSmppServer USERS_FILE [PORT] [BATCH] [FLUSH_MS]");
            System.exit(2);
        }
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 2775;
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        int flush = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        BatchSmppServer s = new BatchSmppServer(readUsers(Path.of(args[0])),
                new InetSocketAddress("127.0.0.1", port), batch, flush);
        System.out.println("BatchSmppServer: listening on 127.0.0.1:" + s.port());
        Runtime.getRuntime().addShutdownHook(new Thread(s::close));
        Thread.currentThread().join();
    }
}
