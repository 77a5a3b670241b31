/* SPDX-License-Identifier: BSD-3-Clause */
/* Decode modes, in the order of enum smpp_mode (smpp/smpp.h). */
package org.heteroplane.smpp;

public enum Mode {
    /** Boundary marking and decoding on the configured number of pthreads. */
    CPU,
    /** GPU from the configured threshold when a GPU backend exists, else CPU. */
    AUTO,
    /** CPU boundary marking, GPU decoding (a later issue; refused until then). */
    GPU,
    /** Both on the GPU (a later issue; refused until then). */
    GPU_FUSED
}
