/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The result of one SmppDecoder.decode: per PDU its framing, header, status
 * and every mandatory field and TLV as an (offset, length) view into the
 * input buffer.  Reads the C decoder's 64-octet struct smpp_rec records in
 * place; nothing is materialised until a caller asks (string(), bytes(),
 * pdu()).
 *
 * All offsets returned are indexes into the input ByteBuffer (absolute, not
 * relative to the decoded range).  Valid until the next decode on the same
 * decoder or its close(); later use throws IllegalStateException.
 */
package org.heteroplane.smpp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class DecodedBatch {
    private static final int[] L = Smpp.LAYOUT;
    private static final int REC = L[Native.L_SIZE];
    private static final int O_PDU_OFF = L[Native.L_PDU_OFF], O_LEN = L[Native.L_LEN],
            O_CMD_ID = L[Native.L_CMD_ID], O_CMD_STATUS = L[Native.L_CMD_STATUS],
            O_SEQ = L[Native.L_SEQ], O_ERROR_OFF = L[Native.L_ERROR_OFF],
            O_ERROR = L[Native.L_ERROR], O_CORR_LEN = L[Native.L_CORR_LEN],
            O_ELEM_BACK = L[Native.L_ELEM_BACK], O_NTLV = L[Native.L_NTLV],
            O_TLV_AREA_OFF = L[Native.L_TLV_AREA_OFF], O_LIST_LEN = L[Native.L_LIST_LEN],
            O_NUL_MASK = L[Native.L_NUL_MASK], O_FLEN = L[Native.L_FLEN],
            O_NFIELDS = L[Native.L_NFIELDS], O_LIST_IDX = L[Native.L_LIST_IDX];
    private static final boolean LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final SmppDecoder dec;
    private final int gen;
    private final ByteBuffer in;
    private final int inOff;
    private final ByteBuffer rec;
    private final int n;
    private final int nerr;
    private final Mode modeUsed;

    DecodedBatch(SmppDecoder dec, ByteBuffer in, int inOff, ByteBuffer rec, int n,
                 int nerr, Mode modeUsed) {
        this.dec = dec;
        this.gen = dec.generation;
        this.in = in;
        this.inOff = inOff;
        this.rec = rec;
        this.n = n;
        this.nerr = nerr;
        this.modeUsed = modeUsed;
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

    /* Input octets, big endian whatever the buffer's order. */
    private int be16(int p) {
        return (in.get(p) & 0xff) << 8 | (in.get(p + 1) & 0xff);
    }

    private int be32(int p) {
        return be16(p) << 16 | be16(p + 2);
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
        int b = r(i);
        if ((rec.getShort(b + O_ERROR) & 0xffff) == 0) {
            return inOff;
        }
        return (rec.getInt(b + O_PDU_OFF) & 0xffffffffL) + (rec.getInt(b + O_ERROR_OFF) & 0xffffffffL)
                + inOff;
    }

    /** Input index of element i (its correlation id in element framing). */
    public long offset(int i) {
        int b = r(i);
        return (rec.getInt(b + O_PDU_OFF) & 0xffffffffL) - (rec.getShort(b + O_ELEM_BACK) & 0xffff)
                + inOff;
    }

    /** Input index of the PDU's first octet. */
    public int pduOffset(int i) {
        return rec.getInt(r(i) + O_PDU_OFF) + inOff;
    }

    /** Octets framed as PDU i (its command_length when framing was sound). */
    public int length(int i) {
        return rec.getInt(r(i) + O_LEN);
    }

    public long correlationOffset(int i) {
        return offset(i);
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

    /** The PDU's command_length octets (0 when fewer than 4 were framed). */
    public int commandLength(int i) {
        return length(i) >= 4 ? be32(pduOffset(i)) : 0;
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
        return rec.get(r(i) + O_NFIELDS) & 0xff;
    }

    /** Input index of mandatory field k of PDU i. */
    public int fieldOffset(int i, int k) {
        int b = fieldRec(i, k);
        return rec.getInt(b + O_PDU_OFF) + inOff + fieldRel(b, k);
    }

    /** Length of mandatory field k (C-strings without their NUL). */
    public int fieldLength(int i, int k) {
        int b = fieldRec(i, k);
        if ((rec.get(b + O_LIST_IDX) & 0xff) == k) {
            return rec.getShort(b + O_LIST_LEN) & 0xffff;
        }
        return rec.get(b + O_FLEN + k) & 0xff;
    }

    /**
     * The lengths of PDU i's mandatory fields, fieldLength(i, 0 ..
     * fieldCount(i) - 1), into out[0 ..] in one read of its record; returns
     * fieldCount(i).  A list field (submit_multi) reads 0 here.  For
     * callers that walk the fields in wire order themselves: field k + 1
     * starts after field k and, when field k is a C-string, its NUL.
     *
     * @throws IndexOutOfBoundsException out shorter than fieldCount(i)
     */
    public int fieldLengths(int i, byte[] out) {
        int b = r(i);
        int nf = rec.get(b + O_NFIELDS) & 0xff;
        rec.get(b + O_FLEN, out, 0, nf);
        return nf;
    }

    private int fieldRec(int i, int k) {
        int b = r(i);
        if (k < 0 || k >= (rec.get(b + O_NFIELDS) & 0xff)) {
            throw new IndexOutOfBoundsException("field " + k + " of PDU " + i);
        }
        return b;
    }

    /* Sum of the 8 octets of w (each < 256): pairs into 16-bit lanes, then
     * the lanes by one multiply. */
    private static int octetSum(long w) {
        long x = (w & 0x00FF00FF00FF00FFL) + ((w >>> 8) & 0x00FF00FF00FF00FFL);
        return (int) ((x * 0x0001000100010001L) >>> 48);
    }

    /* Field k's offset from the PDU start: each field starts where the one
     * before it ends, after its NUL for C-strings (struct smpp_rec). */
    private int fieldRel(int b, int k) {
        int off = 16 + Integer.bitCount(rec.getInt(b + O_NUL_MASK) & ((1 << k) - 1));
        if ((rec.get(b + O_LIST_IDX) & 0xff) < k) {
            off += rec.getShort(b + O_LIST_LEN) & 0xffff;
        }
        int o = b + O_FLEN;
        if (!LE) {
            for (int j = 0; j < k; j++) {
                off += rec.get(o + j) & 0xff;
            }
            return off;
        }
        for (; k >= 8; k -= 8, o += 8) {
            off += octetSum(rec.getLong(o));
        }
        if (k > 0) {
            off += octetSum(rec.getLong(o) & ((1L << (8 * k)) - 1));
        }
        return off;
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

    /* Input index of TLV k's header: a walk of the TLV area, which the
     * decoder validated as far as ntlv.  No cursor is kept between calls,
     * so a batch stays safe to read from several threads. */
    private int tlvHeader(int i, int k) {
        int b = r(i);
        int nt = rec.getShort(b + O_NTLV) & 0xffff;
        if (k < 0 || k >= nt) {
            throw new IndexOutOfBoundsException("TLV " + k + " of PDU " + i);
        }
        int p = rec.getInt(b + O_PDU_OFF) + inOff + (rec.getShort(b + O_TLV_AREA_OFF) & 0xffff);
        for (int j = 0; j < k; j++) {
            p += 4 + be16(p + 2);
        }
        return p;
    }

    public int tlvTag(int i, int k) {
        return be16(tlvHeader(i, k));
    }

    public int tlvLength(int i, int k) {
        return be16(tlvHeader(i, k) + 2);
    }

    /** Input index of TLV k's value. */
    public int tlvValueOffset(int i, int k) {
        return tlvHeader(i, k) + 4;
    }

    public byte[] tlvValue(int i, int k) {
        int h = tlvHeader(i, k);
        byte[] v = new byte[be16(h + 2)];
        in.get(h + 4, v);
        return v;
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
        return pduOffset(i) + (rec.getShort(r(i) + O_TLV_AREA_OFF) & 0xffff);
    }

    public int tlvAreaLength(int i) {
        int b = r(i);
        int a = rec.getShort(b + O_TLV_AREA_OFF) & 0xffff;
        return a == 0 ? 0 : rec.getInt(b + O_LEN) - a;
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
                st = be32(p);
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
