/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Field-for-field equality of Cloudhopper objects (PDUs, Address, Tlv) by
 * reflection: every instance field of every class up to Object, lists
 * element by element, byte[] by content.  So "equal" covers what a
 * Cloudhopper user can reach (command_length, result message, TLV names)
 * and what they cannot, and no field is forgotten when a class has more
 * than its getters show.  Also the outcome of one decode call: the PDU, or
 * the exception (class, message, partial PDU), and the reader index.
 */
package org.heteroplane.smpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.cloudhopper.smpp.pdu.Pdu;
import com.cloudhopper.smpp.transcoder.PduTranscoder;
import com.cloudhopper.smpp.type.RecoverablePduException;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;

import org.jboss.netty.buffer.ChannelBuffer;

final class Deep {
    private Deep() {
    }

    static void assertSame(Object want, Object got, String path) {
        if (want == null || got == null) {
            assertEquals(want, got, path);
            return;
        }
        assertEquals(want.getClass(), got.getClass(), path + ": class");
        if (want instanceof byte[] w) {
            assertArrayEquals(w, (byte[]) got, path);
        } else if (want instanceof String || want instanceof Number || want instanceof Boolean
                || want instanceof Character) {
            assertEquals(want, got, path);
        } else if (want instanceof List<?> lw) {
            List<?> lg = (List<?>) got;
            assertEquals(lw.size(), lg.size(), path + ": size");
            for (int i = 0; i < lw.size(); i++) {
                assertSame(lw.get(i), lg.get(i), path + "[" + i + "]");
            }
        } else {
            assertTrue(want.getClass().getName().startsWith("com.cloudhopper."),
                    path + ": unexpected " + want.getClass());
            for (Class<?> c = want.getClass(); c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    f.setAccessible(true);
                    try {
                        assertSame(f.get(want), f.get(got), path + "." + f.getName());
                    } catch (IllegalAccessException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        }
    }

    /** What one decode call did: a PDU, null (needs more), or an exception. */
    record Outcome(Pdu pdu, Throwable error, int readerIndex) {
        boolean more() {
            return pdu == null && error == null;
        }
    }

    static Outcome decode(PduTranscoder tc, ChannelBuffer b) {
        try {
            Pdu p = tc.decode(b);
            return new Outcome(p, null, b.readerIndex());
        } catch (Exception e) {
            return new Outcome(null, e, b.readerIndex());
        }
    }

    static void assertSameOutcome(Outcome want, Outcome got, String what) {
        assertEquals(want.readerIndex(), got.readerIndex(), what + ": reader index");
        if (want.error() != null || got.error() != null) {
            assertEquals(String.valueOf(want.error()), String.valueOf(got.error()), what + ": exception");
            assertEquals(want.error() == null ? null : want.error().getClass(),
                    got.error() == null ? null : got.error().getClass(), what + ": exception class");
            if (want.error() instanceof RecoverablePduException r) {
                assertSame(r.getPartialPdu(), ((RecoverablePduException) got.error()).getPartialPdu(),
                        what + ": partial PDU");
            }
            return;
        }
        assertSame(want.pdu(), got.pdu(), what + ": " + (want.pdu() == null ? "null" : want.pdu().getName()));
    }
}
