/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cloudhopper's DefaultSmppClient whose sessions decode with the JNI batch
 * decoder: the one change an existing Cloudhopper client needs is
 *
 *     SmppClient client = new JniSmppClient();   // was new DefaultSmppClient()
 *
 * Cloudhopper builds each session's pipeline itself (createSession); this
 * class lets it, then puts a SmppSessionPduDecoder over a JniPduTranscoder
 * in the place of its decoder, before the bind request is sent.  Binding,
 * windows, encoding and SSL stay Cloudhopper's.
 */
package org.heteroplane.smpp.cloudhopper;

import com.cloudhopper.smpp.SmppSessionConfiguration;
import com.cloudhopper.smpp.SmppSessionHandler;
import com.cloudhopper.smpp.impl.DefaultSmppClient;
import com.cloudhopper.smpp.impl.DefaultSmppSession;
import com.cloudhopper.smpp.type.SmppChannelException;
import com.cloudhopper.smpp.type.SmppTimeoutException;
import com.cloudhopper.smpp.util.DaemonExecutors;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

import org.jboss.netty.channel.Channel;

public class JniSmppClient extends DefaultSmppClient {
    private final JniPduTranscoder transcoder;

    public JniSmppClient() {
        this(DaemonExecutors.newCachedDaemonThreadPool());
    }

    public JniSmppClient(ExecutorService executor) {
        this(executor, Runtime.getRuntime().availableProcessors());
    }

    public JniSmppClient(ExecutorService executor, int expectedSessions) {
        this(executor, expectedSessions, null);
    }

    public JniSmppClient(ExecutorService executor, int expectedSessions,
                         ScheduledExecutorService monitorExecutor) {
        this(executor, expectedSessions, monitorExecutor, new JniPduTranscoder());
    }

    /** With a transcoder of one's own; destroy() closes it. */
    public JniSmppClient(ExecutorService executor, int expectedSessions,
                         ScheduledExecutorService monitorExecutor, JniPduTranscoder transcoder) {
        super(executor, expectedSessions, monitorExecutor);
        this.transcoder = transcoder;
    }

    @Override
    protected DefaultSmppSession createSession(Channel channel, SmppSessionConfiguration config,
                                               SmppSessionHandler handler)
            throws SmppTimeoutException, SmppChannelException, InterruptedException {
        DefaultSmppSession session = super.createSession(channel, config, handler);
        transcoder.installOn(channel);
        return session;
    }

    public JniPduTranscoder getJniTranscoder() {
        return transcoder;
    }

    @Override
    public void destroy() {
        super.destroy();
        transcoder.close();
    }
}
