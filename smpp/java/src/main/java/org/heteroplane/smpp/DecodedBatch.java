/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The result of one SmppDecoder.decode: per PDU its framing, header, status
 * and every mandatory field and TLV as an (offset, length) view into the
 * input buffer.  Reads the C decoder's struct smpp_pdu records in place;
 * nothing is materialised until a caller asks (string(), bytes(), pdu()).
 *
 * All offsets returned are indexes into the input ByteBuffer (absolute, not
 * relative to the decoded range).  Valid until the next decode on the same
 * decoder or its close(); later use throws IllegalStateException.
 */
package org.heteroplane.smpp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class DecodedBatch {
    private static final int[] L = Smpp.LAYOUT;
    private static final int REC = L[Native.L_SIZE];
    private static final int O_PDU = L[Native.L_PDU], O_OFF = L[Native.L_OFF],
            O_LEN = L[Native.L_LEN], O_CORR_OFF = L[Native.L_CORR_OFF],
            O_CORR_LEN = L[Native.L_CORR_LEN], O_ERROR = L[Native.L_ERROR],
            O_ERROR_OFF = L[Native.L_ERROR_OFF], O_CMD_LEN = L[Native.L_CMD_LEN],
            O_CMD_ID = L[Native.L_CMD_ID], O_CMD_STATUS = L[Native.L_CMD_STATUS],
            O_SEQ = L[Native.L_SEQ], O_NFIELDS = L[Native.L_NFIELDS],
            O_NTLV = L[Native.L_NTLV], O_TLV_AREA_OFF = L[Native.L_TLV_AREA_OFF],
            O_TLV_AREA_LEN = L[Native.L_TLV_AREA_LEN], O_F = L[Native.L_F],
            O_TLV = L[Native.L_TLV], TLV_INLINE = L[Native.L_TLV_INLINE],
            VIEW = L[Native.L_VIEW_SIZE], TLVREC = L[Native.L_TLVREC_SIZE];

    private final SmppDecoder dec;
    private final int gen;
    private final ByteBuffer in;
    private final int inOff;
    private final ByteBuffer rec;
    private final int n;
    private final int nerr;
    private final Mode modeUsed;
    private final long base;

    DecodedBatch(SmppDecoder dec, ByteBuffer in, int inOff, ByteBuffer rec, int n,
                 int nerr, Mode modeUsed, long base) {
        this.dec = dec;
        this.gen = dec.generation;
        this.in = in;
        this.inOff = inOff;
        this.rec = rec;
        this.n = n;
        this.nerr = nerr;
        this.modeUsed = modeUsed;
        this.base = base;
    }

    /** Record start of PDU i, after checking that the batch is still live. */
    private int r(int i) {
        if (gen != dec.generation) {
            throw new IllegalStateException("DecodedBatch used after a later decode() or close()");
        }
        if (i < 0 || i >= n) {
            throw new IndexOutOfBoundsException("PDU " + i + " of " + n);
        }
        return i * REC;
    }

    /** PDUs (good and bad) in the batch. */
    public int size() {
        return n;
    }

    /** PDUs with a non-zero error(). */
    public int errorCount() {
        return nerr;
    }

    public Mode modeUsed() {
        return modeUsed;
    }

    /** The input buffer the offsets refer to. */
    public ByteBuffer input() {
        return in;
    }

    /** ESME_R* status of PDU i (ESME_ROK when it decoded cleanly). */
    public int error(int i) {
        return rec.getShort(r(i) + O_ERROR) & 0xffff;
    }

    /** Input index of the fault (when error(i) != 0). */
    public long errorOffset(int i) {
        return rec.getLong(r(i) + O_ERROR_OFF) + inOff;
    }

    /** Input index of element i (its correlation id in element framing). */
    public long offset(int i) {
        return rec.getLong(r(i) + O_OFF) + inOff;
    }

    /** Input index of the PDU's first octet. */
    public int pduOffset(int i) {
        return (int) (rec.getLong(r(i) + O_PDU) - base) + inOff;
    }

    /** Octets framed as PDU i (its command_length when framing was sound). */
    public int length(int i) {
        return rec.getInt(r(i) + O_LEN);
    }

    public long correlationOffset(int i) {
        return rec.getLong(r(i) + O_CORR_OFF) + inOff;
    }

    /** 0 in plain framing. */
    public int correlationLength(int i) {
        return rec.getShort(r(i) + O_CORR_LEN) & 0xffff;
    }

    /** The first up to 8 octets of the correlation id, big endian. */
    public long correlationId(int i) {
        int o = (int) correlationOffset(i), l = Math.min(8, correlationLength(i));
        long v = 0;
        for (int k = 0; k < l; k++) {
            v = v << 8 | (in.get(o + k) & 0xff);
        }
        return v;
    }

    public int commandLength(int i) {
        return rec.getInt(r(i) + O_CMD_LEN);
    }

    public int commandId(int i) {
        return rec.getInt(r(i) + O_CMD_ID);
    }

    public int commandStatus(int i) {
        return rec.getInt(r(i) + O_CMD_STATUS);
    }

    public int sequenceNumber(int i) {
        return rec.getInt(r(i) + O_SEQ);
    }

    /** Mandatory fields decoded (all of the PDU type's when error(i) == 0). */
    public int fieldCount(int i) {
        return rec.getShort(r(i) + O_NFIELDS) & 0xffff;
    }

    /** Input index of mandatory field k of PDU i. */
    public int fieldOffset(int i, int k) {
        return pduOffset(i) + (rec.getShort(fieldRec(i, k)) & 0xffff);
    }

    /** Length of mandatory field k (C-strings without their NUL). */
    public int fieldLength(int i, int k) {
        return rec.getShort(fieldRec(i, k) + 2) & 0xffff;
    }

    private int fieldRec(int i, int k) {
        int b = r(i);
        if (k < 0 || k >= (rec.getShort(b + O_NFIELDS) & 0xffff)) {
            throw new IndexOutOfBoundsException("field " + k + " of PDU " + i);
        }
        return b + O_F + k * VIEW;
    }

    /** Integer field k (FT_U8 / FT_SMLEN). */
    public int u8(int i, int k) {
        return in.get(fieldOffset(i, k)) & 0xff;
    }

    /** Field k as octets. */
    public byte[] bytes(int i, int k) {
        byte[] b = new byte[fieldLength(i, k)];
        in.get(fieldOffset(i, k), b);
        return b;
    }

    /** C-string field k as text (v3.4 C-Octet Strings are ASCII; read as Latin-1). */
    public String string(int i, int k) {
        return new String(bytes(i, k), StandardCharsets.ISO_8859_1);
    }

    /** Field index of name in PDU i's type, or -1. */
    public int fieldIndex(int i, String name) {
        return Smpp.fieldIndex(commandId(i), name);
    }

    /** TLVs in PDU i (all of them; for a PDU with an error, those read before it). */
    public int tlvCount(int i) {
        return rec.getShort(r(i) + O_NTLV) & 0xffff;
    }

    /* Input index of TLV k's header: inline records for the first ones, a
     * walk of the TLV area beyond them. */
    private int tlvHeader(int i, int k) {
        int b = r(i);
        int nt = rec.getShort(b + O_NTLV) & 0xffff;
        if (k < 0 || k >= nt) {
            throw new IndexOutOfBoundsException("TLV " + k + " of PDU " + i);
        }
        int pdu = pduOffset(i);
        if (k < TLV_INLINE) {
            return pdu + rec.getInt(b + O_TLV + k * TLVREC + 4) - 4;
        }
        int p = pdu + rec.getInt(b + O_TLV + (TLV_INLINE - 1) * TLVREC + 4) - 4;
        for (int j = TLV_INLINE - 1; j < k; j++) {
            p += 4 + (in.getShort(p + 2) & 0xffff);
        }
        return p;
    }

    public int tlvTag(int i, int k) {
        return in.getShort(tlvHeader(i, k)) & 0xffff;
    }

    public int tlvLength(int i, int k) {
        return in.getShort(tlvHeader(i, k) + 2) & 0xffff;
    }

    /** Input index of TLV k's value. */
    public int tlvValueOffset(int i, int k) {
        return tlvHeader(i, k) + 4;
    }

    public byte[] tlvValue(int i, int k) {
        int h = tlvHeader(i, k);
        byte[] b = new byte[in.getShort(h + 2) & 0xffff];
        in.get(h + 4, b);
        return b;
    }

    /** Index of the first TLV with this tag in PDU i, or -1. */
    public int tlvFind(int i, int tag) {
        int nt = tlvCount(i);
        for (int k = 0; k < nt; k++) {
            if (tlvTag(i, k) == tag) {
                return k;
            }
        }
        return -1;
    }

    /** Offset of the optional part from the PDU start, and its length. */
    public int tlvAreaOffset(int i) {
        return pduOffset(i) + rec.getInt(r(i) + O_TLV_AREA_OFF);
    }

    public int tlvAreaLength(int i) {
        return rec.getInt(r(i) + O_TLV_AREA_LEN);
    }

    /** One submit_multi dest_address / unsuccess_sme entry. */
    public record Dest(int destFlag, int ton, int npi, String address, int errorStatus) {
    }

    /** Entries of list field k (FT_DESTS or FT_UNSUCC) of PDU i. */
    public List<Dest> dests(int i, int k) {
        Smpp.PduType t = Smpp.pduType(commandId(i));
        int type = t == null ? -1 : t.fieldType(k);
        if (type != Smpp.FT_DESTS && type != Smpp.FT_UNSUCC) {
            throw new IllegalArgumentException("field " + k + " is not a list");
        }
        List<Dest> out = new ArrayList<>();
        int p = fieldOffset(i, k), end = p + fieldLength(i, k);
        while (p < end) {
            int flag = 1, ton = 0, npi = 0, st = 0;
            if (type == Smpp.FT_DESTS) {
                flag = in.get(p++) & 0xff;
            }
            if (flag == 1) {
                ton = in.get(p++) & 0xff;
                npi = in.get(p++) & 0xff;
            }
            int z = p;
            while (in.get(z) != 0) {
                z++;
            }
            byte[] a = new byte[z - p];
            in.get(p, a);
            p = z + 1;
            if (type == Smpp.FT_UNSUCC) {
                st = in.getInt(p);
                p += 4;
            }
            out.add(new Dest(flag, ton, npi, new String(a, StandardCharsets.ISO_8859_1), st));
        }
        return out;
    }

    /** One TLV, materialised. */
    public record Tlv(int tag, byte[] value) {
    }

    /** PDU i materialised: fields by name (Integer, String, byte[] or
     * List of Dest), TLVs in wire order.  For tools and tests. */
    public record Pdu(int commandId, int commandStatus, int sequenceNumber, int error,
                      Map<String, Object> fields, List<Tlv> tlvs) {
    }

    public Pdu pdu(int i) {
        Map<String, Object> f = new LinkedHashMap<>();
        Smpp.PduType t = Smpp.pduType(commandId(i));
        int nf = fieldCount(i);
        for (int k = 0; t != null && k < nf; k++) {
            Object v;
            switch (t.fieldType(k)) {
                case Smpp.FT_U8, Smpp.FT_SMLEN -> v = u8(i, k);
                case Smpp.FT_CSTR, Smpp.FT_TIME -> v = string(i, k);
                case Smpp.FT_OSTR -> v = bytes(i, k);
                default -> v = dests(i, k);
            }
            f.put(t.fieldName(k), v);
        }
        List<Tlv> tl = new ArrayList<>();
        int nt = tlvCount(i);
        for (int k = 0; k < nt; k++) {
            tl.add(new Tlv(tlvTag(i, k), tlvValue(i, k)));
        }
        return new Pdu(commandId(i), commandStatus(i), sequenceNumber(i), error(i), f, tl);
    }
}
