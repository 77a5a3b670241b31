/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Batch decoder settings (struct smpp_config): threads, PDU size limit,
 * framing of the input (plain PDUs or [correlation id | PDU | end marker]
 * elements), strict TLV checks, thresholds.  Defaults are the C ones.
 */
package org.heteroplane.smpp;

public final class SmppConfig {
    /** Plain concatenated PDUs framed by command_length. */
    public static final int FRAME_PLAIN = 0;
    /** [correlation id | PDU | end marker] elements (thesis 3.3.2). */
    public static final int FRAME_ELEMENT = 1;
    /** The C library's default end marker. */
    public static final byte[] DEFAULT_MARKER = {(byte) 0xfe, (byte) 0xed, (byte) 0xfa, (byte) 0xce};

    int threads = 1;
    int maxPduLen = 65536;
    int framing = FRAME_PLAIN;
    int corrLen = 8;
    byte[] marker = DEFAULT_MARKER.clone();
    boolean strict;
    int minParallel = 4096;
    int gpuThreshold = 10000;

    public SmppConfig threads(int n) {
        threads = n;
        return this;
    }

    public SmppConfig maxPduLen(int n) {
        maxPduLen = n;
        return this;
    }

    public SmppConfig plain() {
        framing = FRAME_PLAIN;
        return this;
    }

    /** Element framing with a correlation id of corrLen octets and this end marker. */
    public SmppConfig element(int corrLen, byte[] marker) {
        framing = FRAME_ELEMENT;
        this.corrLen = corrLen;
        this.marker = marker.clone();
        return this;
    }

    /** TLVs the PDU does not allow (v3.4 ch. 4) become ESME_ROPTPARNOTALLWD. */
    public SmppConfig strict(boolean on) {
        strict = on;
        return this;
    }

    /** PDUs (estimated at 64 octets each) below which one thread does it all. */
    public SmppConfig minParallel(int n) {
        minParallel = n;
        return this;
    }

    public SmppConfig gpuThreshold(int n) {
        gpuThreshold = n;
        return this;
    }

    public int framing() {
        return framing;
    }

    public int corrLen() {
        return corrLen;
    }

    public byte[] marker() {
        return marker.clone();
    }

    public int threads() {
        return threads;
    }
}
