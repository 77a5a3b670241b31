/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The native methods of libhpsmppjni (smpp/java/native/smpp_jni.c) and the
 * loading of that library: -Dhp.smpp.lib=/path/libhpsmppjni.so, else
 * java.library.path.
 */
package org.heteroplane.smpp;

import java.io.File;
import java.nio.ByteBuffer;

final class Native {
    /* Indexes into layout(), in smpp_jni.c's order. */
    static final int L_SIZE = 0, L_PDU_OFF = 1, L_LEN = 2, L_CMD_ID = 3, L_CMD_STATUS = 4,
            L_SEQ = 5, L_ERROR_OFF = 6, L_ERROR = 7, L_CORR_LEN = 8, L_ELEM_BACK = 9,
            L_NTLV = 10, L_TLV_AREA_OFF = 11, L_LIST_LEN = 12, L_NUL_MASK = 13, L_FLEN = 14,
            L_NFIELDS = 15, L_LIST_IDX = 16, L_MAX_FIELDS = 17;

    static {
        String p = System.getProperty("hp.smpp.lib");
        if (p != null && !p.isEmpty()) {
            System.load(new File(p).getAbsolutePath());
        } else {
            System.loadLibrary("hpsmppjni");
        }
    }

    private Native() {
    }

    static native int[] layout();

    static native int[] commandIds();

    static native String pduName(int commandId);

    static native String[] fieldNames(int commandId);

    static native byte[] fieldTypes(int commandId);

    static native int[] tlvTags();

    static native String tlvName(int tag);

    static native String statusName(int status);

    static native long create(int threads, int maxPdu, int framing, int corrLen,
                              byte[] marker, int flags, int minParallel, int gpuThreshold);

    static native void free(long handle);

    static native ByteBuffer decode(long handle, ByteBuffer in, int off, int len,
                                    int mode, long[] stats);

    static native ByteBuffer decodeArray(long handle, byte[] in, int off, int len,
                                         int mode, long[] stats);

    static native int decodeSlab(long handle, byte[] in, int off, int len, int[] slab);

    static native int simStream(ByteBuffer out, int off, int cap, int first, int n,
                                int msgLen, int ntlv, int commandId, int framing,
                                int corrLen, byte[] marker);
}
