/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cloudhopper's DefaultSmppServer whose connections decode with the JNI
 * batch decoder: the one change an existing Cloudhopper server needs is
 *
 *     SmppServer server = new JniSmppServer(configuration, handler);   // was new DefaultSmppServer(...)
 *
 * Everything else is Cloudhopper's (binding, sessions, windows, encoding,
 * SSL): its SmppServerConnector builds each connection's pipeline with
 * new SmppSessionPduDecoder(server.getTranscoder()), and getTranscoder()
 * answers a JniPduTranscoder here (one for all connections; its decoder
 * state is per I/O thread).
 */
package org.heteroplane.smpp.cloudhopper;

import com.cloudhopper.smpp.SmppServerConfiguration;
import com.cloudhopper.smpp.SmppServerHandler;
import com.cloudhopper.smpp.impl.DefaultSmppServer;
import com.cloudhopper.smpp.transcoder.PduTranscoder;
import com.cloudhopper.smpp.util.DaemonExecutors;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

public class JniSmppServer extends DefaultSmppServer {
    private final JniPduTranscoder transcoder;

    public JniSmppServer(SmppServerConfiguration configuration, SmppServerHandler handler) {
        this(configuration, handler, DaemonExecutors.newCachedDaemonThreadPool());
    }

    public JniSmppServer(SmppServerConfiguration configuration, SmppServerHandler handler,
                         ExecutorService executor) {
        this(configuration, handler, executor, null);
    }

    public JniSmppServer(SmppServerConfiguration configuration, SmppServerHandler handler,
                         ExecutorService executor, ScheduledExecutorService monitorExecutor) {
        this(configuration, handler, executor, monitorExecutor, new JniPduTranscoder());
    }

    /** With a transcoder of one's own (a PduTranscoderContext, batch size); destroy() closes it. */
    public JniSmppServer(SmppServerConfiguration configuration, SmppServerHandler handler,
                         ExecutorService executor, ScheduledExecutorService monitorExecutor,
                         JniPduTranscoder transcoder) {
        super(configuration, handler, executor, monitorExecutor);
        this.transcoder = transcoder;
    }

    /** The decoder of every connection (Cloudhopper's SmppServerConnector asks for it). */
    @Override
    public PduTranscoder getTranscoder() {
        return transcoder;
    }

    /** The same, typed: its counters say how many PDUs went native or fell back. */
    public JniPduTranscoder getJniTranscoder() {
        return transcoder;
    }

    @Override
    public void destroy() {
        super.destroy();
        transcoder.close();
    }
}
