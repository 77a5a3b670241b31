/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SMPP batch decoder from Java: one JNI call per batch.  The input is a
 * direct ByteBuffer (or a byte[], pinned for the call) of PDUs in either
 * batch form; the result is a
 * DecodedBatch that reads the C decoder's compact records (64 octets per
 * PDU) in place (a direct ByteBuffer view, made once and kept while the
 * array does not move), so decoding creates no Java object per PDU or per
 * field.
 *
 * Not thread-safe beyond its own lock: one batch decodes at a time per
 * decoder (struct smpp_ctx is single-caller); use one decoder per thread
 * for concurrent batches, and the decoder's own threads for one big batch.
 */
package org.heteroplane.smpp;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

public final class SmppDecoder implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Frees the native handle once, from close() or when unreachable. */
    private static final class Handle implements Runnable {
        private long h;

        Handle(long h) {
            this.h = h;
        }

        @Override
        public synchronized void run() {
            if (h != 0) {
                Native.free(h);
                h = 0;
            }
        }
    }

    private final Handle handle;
    private final Cleaner.Cleanable cleanable;
    private final SmppConfig config;
    private final long[] stats = new long[3];
    private ByteBuffer view;
    /* Bumped by every decode and by close: a DecodedBatch of an older
     * generation refuses to read (its records were overwritten or freed). */
    int generation;

    public SmppDecoder(SmppConfig cfg) {
        int flags = cfg.strict ? 1 : 0;
        long h = Native.create(cfg.threads, cfg.maxPduLen, cfg.framing, cfg.corrLen,
                cfg.marker, flags, cfg.minParallel, cfg.gpuThreshold);
        config = cfg;
        handle = new Handle(h);
        cleanable = CLEANER.register(this, handle);
    }

    public SmppConfig config() {
        return config;
    }

    /** Decodes in[position, limit) on the CPU. */
    public DecodedBatch decode(ByteBuffer in) {
        return decode(in, in.position(), in.remaining(), Mode.CPU);
    }

    /**
     * Decodes in[off, off + len).  in must be a direct buffer; it stays
     * referenced by the result, whose offsets are indexes into it.  The
     * result is valid until the next decode on this decoder or close().
     *
     * @throws IllegalArgumentException not a direct buffer, range outside it
     * @throws UnsupportedOperationException a GPU mode without a GPU backend
     */
    public synchronized DecodedBatch decode(ByteBuffer in, int off, int len, Mode mode) {
        if (handle.h == 0) {
            throw new IllegalStateException("SmppDecoder closed");
        }
        generation++;
        ByteBuffer v = Native.decode(handle.h, in, off, len, mode.ordinal(), stats);
        return batch(v, in, off);
    }

    /** Decodes a[0, a.length) on the CPU. */
    public DecodedBatch decode(byte[] a) {
        return decode(a, 0, a.length, Mode.CPU);
    }

    /**
     * Decodes a[off, off + len) in place: the array is pinned for the
     * native call (no copy into a direct buffer), so bytes that arrive in a
     * heap array cross once.  The result's input() wraps a; its offsets are
     * indexes into a.
     *
     * @throws IllegalArgumentException range outside the array
     * @throws UnsupportedOperationException a GPU mode without a GPU backend
     */
    public synchronized DecodedBatch decode(byte[] a, int off, int len, Mode mode) {
        if (handle.h == 0) {
            throw new IllegalStateException("SmppDecoder closed");
        }
        generation++;
        ByteBuffer v = Native.decodeArray(handle.h, a, off, len, mode.ordinal(), stats);
        return batch(v, ByteBuffer.wrap(a), off);
    }

    /** Ints per PDU in decodeSlab's slab, and the index of each value in a PDU's run. */
    public static final int SLAB_STRIDE = 16;
    /** PDU's first octet (index into the array), command_length, command_id,
     * command_status, sequence_number, error | ntlv << 16, TLV area's first
     * octet (0: none), mandatory fields decoded, then the field lengths four
     * to an int (field k in bits 8 * (k % 4) of int SLAB_FLEN + k / 4). */
    public static final int SLAB_OFF = 0, SLAB_LEN = 1, SLAB_ID = 2, SLAB_STATUS = 3, SLAB_SEQ = 4,
            SLAB_ERR_NTLV = 5, SLAB_TLV = 6, SLAB_NFIELDS = 7, SLAB_FLEN = 8;

    /**
     * Decodes a[off, off + len) (plain framing, CPU) into a caller-owned
     * int[]: SLAB_STRIDE ints per PDU, offsets as indexes into a.  Unlike
     * a DecodedBatch the result stays valid after the next decode, so
     * objects made from it may outlive the call (LazyPduDecoder); like any
     * decode it ends this decoder's last DecodedBatch (the records are
     * reused).  One JNI call; both arrays are pinned for it.
     *
     * @return the PDUs written
     * @throws IllegalArgumentException range outside a, or slab shorter
     *         than SLAB_STRIDE ints per framed PDU
     */
    public synchronized int decodeSlab(byte[] a, int off, int len, int[] slab) {
        if (handle.h == 0) {
            throw new IllegalStateException("SmppDecoder closed");
        }
        generation++;
        return Native.decodeSlab(handle.h, a, off, len, slab);
    }

    private DecodedBatch batch(ByteBuffer v, ByteBuffer in, int off) {
        if (v != null) {
            view = v.order(ByteOrder.nativeOrder());
        }
        return new DecodedBatch(this, in, off, view, (int) stats[0], (int) stats[1],
                Mode.values()[(int) stats[2]]);
    }

    @Override
    public synchronized void close() {
        generation++;
        view = null;
        cleanable.clean();
    }
}
