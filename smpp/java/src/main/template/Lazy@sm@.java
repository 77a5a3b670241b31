/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cloudhopper's @sm@, decoded on first access (LazyPduDecoder): the
 * header is set when made; each mandatory field and the TLVs are read from
 * the batch's octets (LazyOctets) the first time a getter asks, then
 * kept in Cloudhopper's own fields, so a field read twice is made once and
 * a setter wins over the octets.  Everything that reads the fields
 * directly (writeBody, calculateByteSizeOfBody, toString's parts, the TLV
 * list) loads them all first, so encoding, printing and reflection after
 * that see the same object Cloudhopper's decoder makes.
 * One template in src/main/template for LazySubmitSm, LazyDeliverSm and
 * LazyDataSm: each must extend Cloudhopper's concrete class (users test
 * instanceof SubmitSm), so they cannot share a base class.  pom.xml's
 * generate-sources phase writes each class from it and its .properties
 * there (the class name, data_sm or not) under
 * <target>/generated-sources/lazy.  data_sm has six of the fields
 * (LazyOctets.DATA_ALL): the others count as loaded from the start, so
 * they keep Cloudhopper's defaults and are never read from the octets.
 */
package org.heteroplane.smpp.cloudhopper;

import com.cloudhopper.smpp.pdu.@sm@;
import com.cloudhopper.smpp.tlv.Tlv;
import com.cloudhopper.smpp.transcoder.PduTranscoderContext;
import com.cloudhopper.smpp.type.Address;
import com.cloudhopper.smpp.type.RecoverablePduException;
import com.cloudhopper.smpp.type.SmppInvalidArgumentException;
import com.cloudhopper.smpp.type.UnrecoverablePduException;

import java.util.ArrayList;

import org.jboss.netty.buffer.ChannelBuffer;

import static org.heteroplane.smpp.cloudhopper.LazyOctets.DATA_ALL;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.DCS;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.DFLT;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.DST;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.ESM;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.PID;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.PRIO;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.REG;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.REPL;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.SCHED;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.SM;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.SM_ALL;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.SRC;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.SVC;
import static org.heteroplane.smpp.cloudhopper.LazyOctets.VALID;

final class Lazy@sm@ extends @sm@ {
    /* data_sm's layout (LazyOctets.scalars) and fields (DATA_ALL) */
    private static final boolean DATA = @data@;

    private final LazyOctets s;
    private final int off;      /* the PDU's first octet in s.a */
    private final long lens;    /* LazyOctets.L_* */
    private final int tlv;      /* the TLV area's first octet */
    private final int ntlv;
    private int done;
    private boolean tlvsLoaded;
    /* TLVs made by getOptionalParameter before the list: the first one
     * alone (a handler's usual single lookup costs no array), then all */
    private Tlv tlv1;
    private int tlv1k;
    private Tlv[] tlvs;

    Lazy@sm@(LazyOctets s, int off, long lens, int tlv, int ntlv) {
        this.s = s;
        this.off = off;
        this.lens = lens;
        this.tlv = tlv;
        this.ntlv = ntlv;
        if (DATA) {
            done = SM_ALL & ~DATA_ALL;
        }
    }

    private void loadBody() {
        s.loadAll(this, off, lens, done, SM_ALL, DATA);
    }

    private void loadTlvs() {
        if (!tlvsLoaded) {
            tlvsLoaded = true;
            if (tlv1 != null && tlvs == null) {
                tlvs = new Tlv[ntlv];
                tlvs[tlv1k] = tlv1;
            }
            s.addTlvs(this, tlv, ntlv, tlvs);
            tlvs = null;
            tlv1 = null;
        }
    }

    @Override
    public String getServiceType() {
        if ((done & SVC) == 0) {
            setServiceType(s.svc(off, lens));
        }
        return super.getServiceType();
    }

    @Override
    public void setServiceType(String v) {
        done |= SVC;
        super.setServiceType(v);
    }

    @Override
    public Address getSourceAddress() {
        if ((done & SRC) == 0) {
            setSourceAddress(s.src(off, lens));
        }
        return super.getSourceAddress();
    }

    @Override
    public void setSourceAddress(Address v) {
        done |= SRC;
        super.setSourceAddress(v);
    }

    @Override
    public Address getDestAddress() {
        if ((done & DST) == 0) {
            setDestAddress(s.dst(off, lens));
        }
        return super.getDestAddress();
    }

    @Override
    public void setDestAddress(Address v) {
        done |= DST;
        super.setDestAddress(v);
    }

    @Override
    public byte getEsmClass() {
        if ((done & ESM) == 0) {
            s.scalars(this, off, lens, done, DATA);
        }
        return super.getEsmClass();
    }

    @Override
    public void setEsmClass(byte v) {
        done |= ESM;
        super.setEsmClass(v);
    }

    @Override
    public byte getProtocolId() {
        if ((done & PID) == 0) {
            s.scalars(this, off, lens, done, DATA);
        }
        return super.getProtocolId();
    }

    @Override
    public void setProtocolId(byte v) {
        done |= PID;
        super.setProtocolId(v);
    }

    @Override
    public byte getPriority() {
        if ((done & PRIO) == 0) {
            s.scalars(this, off, lens, done, DATA);
        }
        return super.getPriority();
    }

    @Override
    public void setPriority(byte v) {
        done |= PRIO;
        super.setPriority(v);
    }

    @Override
    public String getScheduleDeliveryTime() {
        if ((done & SCHED) == 0) {
            setScheduleDeliveryTime(s.sched(off, lens));
        }
        return super.getScheduleDeliveryTime();
    }

    @Override
    public void setScheduleDeliveryTime(String v) {
        done |= SCHED;
        super.setScheduleDeliveryTime(v);
    }

    @Override
    public String getValidityPeriod() {
        if ((done & VALID) == 0) {
            setValidityPeriod(s.valid(off, lens));
        }
        return super.getValidityPeriod();
    }

    @Override
    public void setValidityPeriod(String v) {
        done |= VALID;
        super.setValidityPeriod(v);
    }

    @Override
    public byte getRegisteredDelivery() {
        if ((done & REG) == 0) {
            s.scalars(this, off, lens, done, DATA);
        }
        return super.getRegisteredDelivery();
    }

    @Override
    public void setRegisteredDelivery(byte v) {
        done |= REG;
        super.setRegisteredDelivery(v);
    }

    @Override
    public byte getReplaceIfPresent() {
        if ((done & REPL) == 0) {
            s.scalars(this, off, lens, done, DATA);
        }
        return super.getReplaceIfPresent();
    }

    @Override
    public void setReplaceIfPresent(byte v) {
        done |= REPL;
        super.setReplaceIfPresent(v);
    }

    @Override
    public byte getDataCoding() {
        if ((done & DCS) == 0) {
            s.scalars(this, off, lens, done, DATA);
        }
        return super.getDataCoding();
    }

    @Override
    public void setDataCoding(byte v) {
        done |= DCS;
        super.setDataCoding(v);
    }

    @Override
    public byte getDefaultMsgId() {
        if ((done & DFLT) == 0) {
            s.scalars(this, off, lens, done, DATA);
        }
        return super.getDefaultMsgId();
    }

    @Override
    public void setDefaultMsgId(byte v) {
        done |= DFLT;
        super.setDefaultMsgId(v);
    }

    @Override
    public byte[] getShortMessage() {
        if ((done & SM) == 0) {
            LazyOctets.shortMessage(this, s.sm(off, lens));
        }
        return super.getShortMessage();
    }

    @Override
    public  void setShortMessage(byte[] v) throws SmppInvalidArgumentException {
        super.setShortMessage(v);       /* may refuse (over 255): then nothing changed */
        done |= SM;
    }

    @Override
    public  int getShortMessageLength() {
        return (done & SM) == 0 ? LazyOctets.len(lens, LazyOctets.L_SM) : super.getShortMessageLength();
    }

    @Override
    public  void readBody(ChannelBuffer buf) throws UnrecoverablePduException, RecoverablePduException {
        done = SM_ALL;
        super.readBody(buf);
    }

    @Override
    public  int calculateByteSizeOfBody() {
        loadBody();
        return super.calculateByteSizeOfBody();
    }

    @Override
    public  void writeBody(ChannelBuffer buf) throws UnrecoverablePduException, RecoverablePduException {
        loadBody();
        super.writeBody(buf);
    }

    @Override
    public  void appendBodyToString(StringBuilder sb) {
        loadBody();
        super.appendBodyToString(sb);
    }

    /* ---- TLVs: looked up in the octets until the list is asked for ---- */

    @Override
    public  int getOptionalParameterCount() {
        return tlvsLoaded ? super.getOptionalParameterCount() : ntlv;
    }

    @Override
    public  ArrayList<Tlv> getOptionalParameters() {
        loadTlvs();
        return super.getOptionalParameters();
    }

    @Override
    public  void addOptionalParameter(Tlv t) {
        loadTlvs();
        super.addOptionalParameter(t);
    }

    @Override
    public  Tlv removeOptionalParameter(short tag) {
        loadTlvs();
        return super.removeOptionalParameter(tag);
    }

    @Override
    public  Tlv setOptionalParameter(Tlv t) {
        loadTlvs();
        return super.setOptionalParameter(t);
    }

    @Override
    public  boolean hasOptionalParameter(short tag) {
        return tlvsLoaded ? super.hasOptionalParameter(tag) : s.findTlv(tlv, ntlv, tag) >= 0;
    }

    @Override
    protected int findOptionalParameter(short tag) {
        loadTlvs();
        return super.findOptionalParameter(tag);
    }

    @Override
    public  Tlv getOptionalParameter(short tag) {
        if (tlvsLoaded) {
            return super.getOptionalParameter(tag);
        }
        long f = s.findTlv(tlv, ntlv, tag);
        if (f < 0) {
            return null;
        }
        int k = (int) (f >>> 32);
        if (tlv1 == null) {
            tlv1k = k;
            return tlv1 = s.tlvAt((int) f);
        }
        if (k == tlv1k) {
            return tlv1;
        }
        if (tlvs == null) {
            tlvs = new Tlv[ntlv];
            tlvs[tlv1k] = tlv1;
        }
        Tlv t = tlvs[k];
        return t != null ? t : (tlvs[k] = s.tlvAt((int) f));
    }

    @Override
    protected int calculateByteSizeOfOptionalParameters() {
        loadTlvs();
        return super.calculateByteSizeOfOptionalParameters();
    }

    @Override
    public  void readOptionalParameters(ChannelBuffer buf, PduTranscoderContext c)
            throws UnrecoverablePduException, RecoverablePduException {
        loadTlvs();
        super.readOptionalParameters(buf, c);
    }

    @Override
    public  void writeOptionalParameters(ChannelBuffer buf, PduTranscoderContext c)
            throws UnrecoverablePduException, RecoverablePduException {
        loadTlvs();
        super.writeOptionalParameters(buf, c);
    }

    @Override
    protected void appendOptionalParameterToString(StringBuilder sb) {
        loadTlvs();
        super.appendOptionalParameterToString(sb);
    }
}
