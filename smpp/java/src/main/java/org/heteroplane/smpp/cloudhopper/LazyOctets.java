/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The octets of one LazyPduDecoder.decode() (the decoder's own copy) and
 * the code that makes a lazy PDU's fields from them.  Each lazy PDU keeps
 * what it needs of the slab the C decoder filled (its offset, the lengths
 * of its variable fields packed in a long, its TLV area and count), so the
 * slab is scratch, reused by the next batch, and a field's offset is a few
 * adds.  Strings, Address, byte[] and Tlv are made on first access, exactly
 * as Cloudhopper's decoder makes them (ISO-8859-1 C-strings, "" for an
 * empty one, copies of the octets).
 */
package org.heteroplane.smpp.cloudhopper;

import com.cloudhopper.smpp.pdu.BaseSm;
import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.type.Address;
import com.cloudhopper.smpp.type.SmppInvalidArgumentException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

final class LazyOctets {
    /* BaseSm's fields, one bit each in a lazy PDU's "done" mask */
    static final int SVC = 1, SRC = 1 << 1, DST = 1 << 2, ESM = 1 << 3, PID = 1 << 4, PRIO = 1 << 5,
            SCHED = 1 << 6, VALID = 1 << 7, REG = 1 << 8, REPL = 1 << 9, DCS = 1 << 10, DFLT = 1 << 11,
            SM = 1 << 12;
    static final int SM_ALL = (1 << 13) - 1;
    static final int DATA_ALL = SVC | SRC | DST | ESM | REG | DCS;
    /* the one-octet fields after esm_class: made together, one walk */
    static final int SCALARS = ESM | PID | PRIO | REG | REPL | DCS | DFLT;
    /* lens: the lengths of service_type, source_addr, destination_addr,
     * schedule_delivery_time, validity_period, short_message, octet k */
    static final int L_SVC = 0, L_SRC = 1, L_DST = 2, L_SCHED = 3, L_VALID = 4, L_SM = 5;
    private static final int HEADER = 16;

    private static final VarHandle BE32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    final byte[] a;
    private final LazyPduDecoder.Names names;

    LazyOctets(byte[] a, LazyPduDecoder.Names names) {
        this.a = a;
        this.names = names;
    }

    static int len(long lens, int k) {
        return (int) (lens >>> (k << 3)) & 0xff;
    }

    /* ISO-8859-1, as Cloudhopper reads C-strings: the hibyte constructor
     * is String(bytes, off, len, ISO_8859_1) without the charset dispatch
     * (one array copy into a LATIN1 string). */
    @SuppressWarnings("deprecation")
    String str(int off, int len) {
        return len == 0 ? "" : new String(a, 0, off, len);
    }

    /* Offsets of a submit_sm / deliver_sm / data_sm at a[off]: a few adds
     * over the lengths in lens. */
    static int oSrc(int off, long lens) {
        return off + HEADER + len(lens, L_SVC) + 1;
    }

    static int oDst(int off, long lens) {
        return oSrc(off, lens) + len(lens, L_SRC) + 3;
    }

    static int oEsm(int off, long lens) {
        return oDst(off, lens) + len(lens, L_DST) + 3;
    }

    static int oSched(int off, long lens) {
        return oEsm(off, lens) + 3;
    }

    static int oValid(int off, long lens) {
        return oSched(off, lens) + len(lens, L_SCHED) + 1;
    }

    static int oReg(int off, long lens) {
        return oValid(off, lens) + len(lens, L_VALID) + 1;
    }

    Address addr(int o, int len) {
        return new Address(a[o], a[o + 1], str(o + 2, len));
    }

    /* One field each, small enough to inline into the lazy PDU's getter
     * (a getter calling one shared loader was not inlined: "callee uses
     * too much stack" in -XX:+PrintInlining). */
    String svc(int off, long lens) {
        return str(off + HEADER, len(lens, L_SVC));
    }

    Address src(int off, long lens) {
        return addr(oSrc(off, lens), len(lens, L_SRC));
    }

    Address dst(int off, long lens) {
        return addr(oDst(off, lens), len(lens, L_DST));
    }

    String sched(int off, long lens) {
        return str(oSched(off, lens), len(lens, L_SCHED));
    }

    String valid(int off, long lens) {
        return str(oValid(off, lens), len(lens, L_VALID));
    }

    byte[] sm(int off, long lens) {
        int o = oReg(off, lens) + 5;
        return Arrays.copyOfRange(a, o, o + len(lens, L_SM));
    }

    /**
     * Sets field bit of t (a submit_sm or deliver_sm at a[off], or with data
     * a data_sm) from the octets, through t's own setter.
     */
    void load(BaseSm<?> t, int off, long lens, int bit, int done, boolean data) {
        switch (bit) {
            case SVC -> t.setServiceType(svc(off, lens));
            case SRC -> t.setSourceAddress(src(off, lens));
            case DST -> t.setDestAddress(dst(off, lens));
            case SCHED -> t.setScheduleDeliveryTime(sched(off, lens));
            case VALID -> t.setValidityPeriod(valid(off, lens));
            case SM -> shortMessage(t, sm(off, lens));
            default -> scalars(t, off, lens, done, data);
        }
    }

    static void shortMessage(BaseSm<?> t, byte[] m) {
        try {
            t.setShortMessage(m);
        } catch (SmppInvalidArgumentException x) {
            throw new IllegalStateException(x);     /* <= 254 octets: cannot */
        }
    }

    /* The one-octet fields not in done, in one walk (data_sm's esm_class,
     * registered_delivery and data_coding follow each other). */
    void scalars(BaseSm<?> t, int off, long lens, int done, boolean data) {
        byte[] a = this.a;
        int e = oEsm(off, lens);
        if (data) {
            int m = (ESM | REG | DCS) & ~done;
            if ((m & ESM) != 0) {
                t.setEsmClass(a[e]);
            }
            if ((m & REG) != 0) {
                t.setRegisteredDelivery(a[e + 1]);
            }
            if ((m & DCS) != 0) {
                t.setDataCoding(a[e + 2]);
            }
            return;
        }
        int o = oReg(off, lens);
        int m = SCALARS & ~done;
        if ((m & ESM) != 0) {
            t.setEsmClass(a[e]);
        }
        if ((m & PID) != 0) {
            t.setProtocolId(a[e + 1]);
        }
        if ((m & PRIO) != 0) {
            t.setPriority(a[e + 2]);
        }
        if ((m & REG) != 0) {
            t.setRegisteredDelivery(a[o]);
        }
        if ((m & REPL) != 0) {
            t.setReplaceIfPresent(a[o + 1]);
        }
        if ((m & DCS) != 0) {
            t.setDataCoding(a[o + 2]);
        }
        if ((m & DFLT) != 0) {
            t.setDefaultMsgId(a[o + 3]);
        }
    }

    /** Loads every bit of want not in done. */
    void loadAll(BaseSm<?> t, int off, long lens, int done, int want, boolean data) {
        for (int m = want & ~done; m != 0; m &= m - 1) {
            int bit = Integer.lowestOneBit(m);
            load(t, off, lens, bit, done, data);
            if ((bit & SCALARS) != 0) {
                done |= SCALARS;
                m &= ~SCALARS;
            }
        }
    }

    /**
     * The first TLV with tag among the n from a[q]: its index << 32 | its
     * offset, or -1.  One big-endian int read a TLV header (tag, length).
     */
    long findTlv(int q, int n, short tag) {
        byte[] a = this.a;
        int t = tag & 0xffff;
        for (int k = 0; k < n; k++) {
            int h = (int) BE32.get(a, q);
            if (h >>> 16 == t) {
                return (long) k << 32 | q;
            }
            q += 4 + (h & 0xffff);
        }
        return -1;
    }

    /** The TLV at a[q] as Cloudhopper makes it (value copied, context's tag name). */
    Tlv tlvAt(int q) {
        int h = (int) BE32.get(a, q), tag = h >>> 16, l = h & 0xffff;
        return new Tlv((short) tag, Arrays.copyOfRange(a, q + 4, q + 4 + l), names.tagName(tag));
    }

    /** Adds the n TLVs from a[q] to p in wire order (those in made, by index, as they are). */
    void addTlvs(Pdu p, int q, int n, Tlv[] made) {
        for (int k = 0; k < n; k++) {
            p.addOptionalParameter(made != null && made[k] != null ? made[k] : tlvAt(q));
            q += 4 + ((int) BE32.get(a, q) & 0xffff);
        }
    }
}
