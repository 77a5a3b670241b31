/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMPP v3.4 constants and the C library's tables as seen from Java: PDU
 * names, each PDU's mandatory fields (name and type, in wire order), TLV
 * names and status names, read once from libhpsmppjni so that Java and C
 * share the one table.  Also the workload generator (thesis 4.1 mix).
 */
package org.heteroplane.smpp;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

public final class Smpp {
    /* command_id values (v3.4 5.1.2.1) */
    public static final int GENERIC_NACK = 0x80000000;
    public static final int BIND_RECEIVER = 0x00000001;
    public static final int BIND_RECEIVER_RESP = 0x80000001;
    public static final int BIND_TRANSMITTER = 0x00000002;
    public static final int BIND_TRANSMITTER_RESP = 0x80000002;
    public static final int QUERY_SM = 0x00000003;
    public static final int QUERY_SM_RESP = 0x80000003;
    public static final int SUBMIT_SM = 0x00000004;
    public static final int SUBMIT_SM_RESP = 0x80000004;
    public static final int DELIVER_SM = 0x00000005;
    public static final int DELIVER_SM_RESP = 0x80000005;
    public static final int UNBIND = 0x00000006;
    public static final int UNBIND_RESP = 0x80000006;
    public static final int REPLACE_SM = 0x00000007;
    public static final int REPLACE_SM_RESP = 0x80000007;
    public static final int CANCEL_SM = 0x00000008;
    public static final int CANCEL_SM_RESP = 0x80000008;
    public static final int BIND_TRANSCEIVER = 0x00000009;
    public static final int BIND_TRANSCEIVER_RESP = 0x80000009;
    public static final int OUTBIND = 0x0000000B;
    public static final int ENQUIRE_LINK = 0x00000015;
    public static final int ENQUIRE_LINK_RESP = 0x80000015;
    public static final int SUBMIT_MULTI = 0x00000021;
    public static final int SUBMIT_MULTI_RESP = 0x80000021;
    public static final int ALERT_NOTIFICATION = 0x00000102;
    public static final int DATA_SM = 0x00000103;
    public static final int DATA_SM_RESP = 0x80000103;

    /* command_status values the decoder reports (v3.4 table 5-2) */
    public static final int ESME_ROK = 0x00;
    public static final int ESME_RINVMSGLEN = 0x01;
    public static final int ESME_RINVCMDLEN = 0x02;
    public static final int ESME_RINVCMDID = 0x03;
    public static final int ESME_RINVSRCADR = 0x0A;
    public static final int ESME_RINVDSTADR = 0x0B;
    public static final int ESME_RINVMSGID = 0x0C;
    public static final int ESME_RINVPASWD = 0x0E;
    public static final int ESME_RINVSYSID = 0x0F;
    public static final int ESME_RINVSERTYP = 0x15;
    public static final int ESME_RINVNUMDESTS = 0x33;
    public static final int ESME_RINVDESTFLAG = 0x40;
    public static final int ESME_RINVSCHED = 0x61;
    public static final int ESME_RINVEXPIRY = 0x62;
    public static final int ESME_RINVOPTPARSTREAM = 0xC0;
    public static final int ESME_ROPTPARNOTALLWD = 0xC1;
    public static final int ESME_RINVPARLEN = 0xC2;

    /* mandatory field types (enum smpp_ftype) */
    public static final int FT_U8 = 0, FT_CSTR = 1, FT_TIME = 2, FT_SMLEN = 3,
            FT_OSTR = 4, FT_DESTS = 5, FT_UNSUCC = 6;

    /* a few TLV tags (v3.4 5.3.2) */
    public static final int TLV_SAR_MSG_REF_NUM = 0x020C;
    public static final int TLV_SAR_TOTAL_SEGMENTS = 0x020E;
    public static final int TLV_SAR_SEGMENT_SEQNUM = 0x020F;
    public static final int TLV_MESSAGE_PAYLOAD = 0x0424;
    public static final int TLV_RECEIPTED_MESSAGE_ID = 0x001E;
    public static final int TLV_MESSAGE_STATE = 0x0427;

    /** One PDU type of the C table: its name and mandatory fields in wire order. */
    public static final class PduType {
        public final int commandId;
        public final String name;
        private final String[] fields;
        private final byte[] types;
        private final Map<String, Integer> index = new HashMap<>();

        PduType(int id, String name, String[] fields, byte[] types) {
            this.commandId = id;
            this.name = name;
            this.fields = fields;
            this.types = types;
            for (int i = 0; i < fields.length; i++) {
                index.put(fields[i], i);
            }
        }

        public int fieldCount() {
            return fields.length;
        }

        public String fieldName(int k) {
            return fields[k];
        }

        /** FT_* type of field k. */
        public int fieldType(int k) {
            return types[k];
        }

        /** Index of a field by its v3.4 name, or -1. */
        public int fieldIndex(String name) {
            Integer k = index.get(name);
            return k == null ? -1 : k;
        }

        public String[] fieldNames() {
            return fields.clone();
        }
    }

    static final int[] LAYOUT = Native.layout();
    private static final Map<Integer, PduType> TYPES;
    private static final Map<Integer, String> TLV_NAMES;

    static {
        Map<Integer, PduType> t = new HashMap<>();
        for (int id : Native.commandIds()) {
            t.put(id, new PduType(id, Native.pduName(id), Native.fieldNames(id),
                    Native.fieldTypes(id)));
        }
        TYPES = Collections.unmodifiableMap(t);
        Map<Integer, String> n = new HashMap<>();
        for (int tag : Native.tlvTags()) {
            n.put(tag, Native.tlvName(tag));
        }
        TLV_NAMES = Collections.unmodifiableMap(n);
    }

    private Smpp() {
    }

    /** The PDU type of a command id, or null for one v3.4 does not define. */
    public static PduType pduType(int commandId) {
        return TYPES.get(commandId);
    }

    /** All command ids of the table (sorted). */
    public static int[] commandIds() {
        return TYPES.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    /** Field index of name in the PDU type commandId, or -1. */
    public static int fieldIndex(int commandId, String name) {
        PduType t = TYPES.get(commandId);
        return t == null ? -1 : t.fieldIndex(name);
    }

    /** v3.4 name of a TLV tag, or null for unknown and vendor tags. */
    public static String tlvName(int tag) {
        return TLV_NAMES.get(tag);
    }

    /** "ESME_RINVCMDLEN" etc. */
    public static String statusName(int status) {
        return Native.statusName(status);
    }

    /** Width of the compact struct smpp_rec records (for sizing and the docs). */
    public static int recordSize() {
        return LAYOUT[Native.L_SIZE];
    }

    /**
     * Writes n PDUs of the thesis workload (SUBMIT_SM or DELIVER_SM, distinct
     * addresses per number, msgLen-octet text, ntlv TLVs), numbers first ..
     * first + n - 1, framed as cfg says, into the direct buffer out from index
     * off.  Returns the number of octets written.
     */
    public static int simStream(ByteBuffer out, int off, int first, int n, int msgLen,
                                int ntlv, int commandId, SmppConfig cfg) {
        return Native.simStream(out, off, out.capacity() - off, first, n, msgLen, ntlv,
                commandId, cfg.framing, cfg.corrLen, cfg.marker);
    }

    /** simStream with the thesis defaults: SUBMIT_SM, 20 characters, 5 TLVs. */
    public static int simStream(ByteBuffer out, int off, int first, int n, SmppConfig cfg) {
        return simStream(out, off, first, n, 20, 5, SUBMIT_SM, cfg);
    }
}
