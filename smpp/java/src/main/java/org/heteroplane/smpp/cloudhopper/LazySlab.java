/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One native run of LazyPduDecoder: the PDU octets (the decoder's own copy)
 * and the int[] slab the C decoder filled in one JNI call
 * (SmppDecoder.decodeSlab, SLAB_STRIDE ints a PDU).  The lazy PDUs of the
 * run keep it and read their fields from it on first access: offsets come
 * from the field lengths in the slab (a few adds), Strings, Address, byte[]
 * and Tlv are made only then, exactly as Cloudhopper's decoder makes them
 * (ISO-8859-1 C-strings, "" for an empty one, copies of the octets).
 */
package org.heteroplane.smpp.cloudhopper;

import com.cloudhopper.smpp.pdu.BaseSm;
import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.type.Address;
import com.cloudhopper.smpp.type.SmppInvalidArgumentException;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.heteroplane.smpp.SmppDecoder.SLAB_ERR_NTLV;
import static org.heteroplane.smpp.SmppDecoder.SLAB_FLEN;
import static org.heteroplane.smpp.SmppDecoder.SLAB_OFF;
import static org.heteroplane.smpp.SmppDecoder.SLAB_TLV;

final class LazySlab {
    /* BaseSm's fields, one bit each in a lazy PDU's "done" mask */
    static final int SVC = 1, SRC = 1 << 1, DST = 1 << 2, ESM = 1 << 3, PID = 1 << 4, PRIO = 1 << 5,
            SCHED = 1 << 6, VALID = 1 << 7, REG = 1 << 8, REPL = 1 << 9, DCS = 1 << 10, DFLT = 1 << 11,
            SM = 1 << 12;
    static final int SM_ALL = (1 << 13) - 1;
    static final int DATA_ALL = SVC | SRC | DST | ESM | REG | DCS;
    private static final int HEADER = 16;

    final byte[] a;
    final int[] s;
    private final LazyPduDecoder.Names names;

    LazySlab(byte[] a, int[] s, LazyPduDecoder.Names names) {
        this.a = a;
        this.s = s;
        this.names = names;
    }

    String str(int off, int len) {
        return len == 0 ? "" : new String(a, off, len, StandardCharsets.ISO_8859_1);
    }

    /** Length of mandatory field k of the PDU at slab index b. */
    int fl(int b, int k) {
        return s[b + SLAB_FLEN + (k >> 2)] >>> ((k & 3) << 3) & 0xff;
    }

    int ntlv(int b) {
        return s[b + SLAB_ERR_NTLV] >>> 16;
    }

    /**
     * Sets field bit of t (a submit_sm or deliver_sm, or with data a
     * data_sm: its esm_class, registered_delivery and data_coding follow
     * each other) from the octets, through t's own setter.
     */
    void load(BaseSm<?> t, int b, int bit, boolean data) {
        byte[] a = this.a;
        int o = s[b + SLAB_OFF] + HEADER;
        int l = fl(b, 0);
        if (bit == SVC) {
            t.setServiceType(str(o, l));
            return;
        }
        o += l + 1;             /* source_addr_ton */
        l = fl(b, 3);
        if (bit == SRC) {
            t.setSourceAddress(new Address(a[o], a[o + 1], str(o + 2, l)));
            return;
        }
        o += l + 3;             /* dest_addr_ton */
        l = fl(b, 6);
        if (bit == DST) {
            t.setDestAddress(new Address(a[o], a[o + 1], str(o + 2, l)));
            return;
        }
        o += l + 3;             /* esm_class */
        if (data) {
            switch (bit) {
                case ESM -> t.setEsmClass(a[o]);
                case REG -> t.setRegisteredDelivery(a[o + 1]);
                case DCS -> t.setDataCoding(a[o + 2]);
                default -> throw new IllegalArgumentException("not a data_sm field: " + bit);
            }
            return;
        }
        switch (bit) {
            case ESM -> t.setEsmClass(a[o]);
            case PID -> t.setProtocolId(a[o + 1]);
            case PRIO -> t.setPriority(a[o + 2]);
            default -> {
                o += 3;         /* schedule_delivery_time */
                l = fl(b, 10);
                if (bit == SCHED) {
                    t.setScheduleDeliveryTime(str(o, l));
                    return;
                }
                o += l + 1;     /* validity_period */
                l = fl(b, 11);
                if (bit == VALID) {
                    t.setValidityPeriod(str(o, l));
                    return;
                }
                o += l + 1;     /* registered_delivery */
                switch (bit) {
                    case REG -> t.setRegisteredDelivery(a[o]);
                    case REPL -> t.setReplaceIfPresent(a[o + 1]);
                    case DCS -> t.setDataCoding(a[o + 2]);
                    case DFLT -> t.setDefaultMsgId(a[o + 3]);
                    case SM -> {
                        try {
                            t.setShortMessage(Arrays.copyOfRange(a, o + 5, o + 5 + fl(b, 17)));
                        } catch (SmppInvalidArgumentException e) {
                            throw new IllegalStateException(e);     /* <= 254 octets: cannot */
                        }
                    }
                    default -> throw new IllegalArgumentException("field bit " + bit);
                }
            }
        }
    }

    /** Loads every bit of want not in done. */
    void loadAll(BaseSm<?> t, int b, int done, int want, boolean data) {
        for (int m = want & ~done; m != 0; m &= m - 1) {
            load(t, b, Integer.lowestOneBit(m), data);
        }
    }

    /** short_message's length without making the array. */
    int smLength(int b) {
        return fl(b, 17);
    }

    /** Index of the first TLV with tag, or -1. */
    int findTlv(int b, short tag) {
        byte[] a = this.a;
        int q = s[b + SLAB_TLV], n = ntlv(b), t = tag & 0xffff;
        for (int k = 0; k < n; k++) {
            if (((a[q] & 0xff) << 8 | (a[q + 1] & 0xff)) == t) {
                return k;
            }
            q += 4 + ((a[q + 2] & 0xff) << 8 | (a[q + 3] & 0xff));
        }
        return -1;
    }

    /** TLV k as Cloudhopper makes it (value copied, context's tag name). */
    Tlv tlv(int b, int k) {
        byte[] a = this.a;
        int q = s[b + SLAB_TLV];
        for (int i = 0; i < k; i++) {
            q += 4 + ((a[q + 2] & 0xff) << 8 | (a[q + 3] & 0xff));
        }
        int tag = (a[q] & 0xff) << 8 | (a[q + 1] & 0xff), l = (a[q + 2] & 0xff) << 8 | (a[q + 3] & 0xff);
        return new Tlv((short) tag, Arrays.copyOfRange(a, q + 4, q + 4 + l), names.tagName(tag));
    }

    /** Adds every TLV to p in wire order (those in made, by index, as they are). */
    void addTlvs(Pdu p, int b, Tlv[] made) {
        byte[] a = this.a;
        int q = s[b + SLAB_TLV], n = ntlv(b);
        for (int k = 0; k < n; k++) {
            int tag = (a[q] & 0xff) << 8 | (a[q + 1] & 0xff), l = (a[q + 2] & 0xff) << 8 | (a[q + 3] & 0xff);
            Tlv t = made != null && made[k] != null ? made[k]
                    : new Tlv((short) tag, Arrays.copyOfRange(a, q + 4, q + 4 + l), names.tagName(tag));
            p.addOptionalParameter(t);
            q += 4 + l;
        }
    }
}
