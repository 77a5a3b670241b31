#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the seed corpus of the SMPP decoder fuzz target (smpp/fuzz/corpus)
and expected.txt, the ESME_R* status the first PDU of each seed must get.
Built by hand from SMPP v3.4 chapter 4 layouts, independent of the C code.
Also the corpus of hp-smppd's other parsers (smpp/fuzz/corpus_smppd, for
fuzz_smppd.c: first octet even = users file, odd = a v3.4 7.1.1 time).
Rerun after changing a seed: python3 smpp/fuzz/make_corpus.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")


def pdu(cmd, body, seq=1, status=0, length=None):
    n = 16 + len(body) if length is None else length
    return struct.pack(">IIII", n, cmd, status, seq) + body


def cs(s):
    return s.encode() + b"\0"


def tlv(tag, val):
    return struct.pack(">HH", tag, len(val)) + val


def submit_body(src="12345", dst="67890", msg=b"hello world 20 chars", sm_len=None,
                sched=b"", tlvs=b"", svc="", ton=1, valid=b""):
    sl = len(msg) if sm_len is None else sm_len
    return (cs(svc) + bytes([ton, 1]) + cs(src) + bytes([1, 1]) + cs(dst) +
            bytes([0, 0, 0]) + sched + b"\0" + valid + b"\0" + bytes([1, 0, 0, 0]) +
            bytes([sl]) + msg + tlvs)


FIVE_TLVS = (tlv(0x020C, b"\x00\x07") + tlv(0x020E, b"\x03") + tlv(0x020F, b"\x01") +
             tlv(0x0204, b"\x00\x2a") + tlv(0x1401, b"vendor"))

SEEDS = {
    # good PDUs, one of each kind
    "ok_submit_sm": (pdu(4, submit_body(tlvs=FIVE_TLVS)), 0x00),
    "ok_deliver_sm_receipt": (pdu(5, submit_body(
        msg=b"id:123 sub:001 dlvrd:001 submit date:2401011200 done date:2401011201 "
            b"stat:DELIVRD err:000 text:hi", tlvs=tlv(0x001E, b"123\0") + tlv(0x0427, b"\x02"))),
        0x00),
    "ok_enquire_link": (pdu(0x15, b""), 0x00),
    # time fields (v3.4 7.1.1): the decoder checks their length only, the
    # fuzz target hands them to smpp_time_parse
    "ok_submit_sm_times": (pdu(4, submit_body(sched=b"261126120000004+",
                                              valid=b"000001000000000R")), 0x00),
    "ok_submit_sm_bad_time": (pdu(4, submit_body(sched=b"261301000000000+",
                                                 valid=b"garbage_garbage1")), 0x00),
    "ok_generic_nack": (pdu(0x80000000, b"", status=3), 0x00),
    "ok_bind_transmitter": (pdu(2, cs("sys") + cs("pw") + cs("") + bytes([0x34, 0, 0]) + cs("")), 0x00),
    "ok_bind_resp_nobody": (pdu(0x80000002, b"", status=0x0E), 0x00),
    "ok_submit_multi": (pdu(0x21, cs("") + bytes([1, 1]) + cs("1") + bytes([2]) +
                            bytes([1, 1, 1]) + cs("111") + bytes([2]) + cs("list") +
                            bytes([0, 0, 0]) + b"\0\0" + bytes([0, 0, 0, 0, 3]) + b"abc"), 0x00),
    "ok_submit_multi_resp": (pdu(0x80000021, cs("mid") + bytes([1, 1, 1]) + cs("222") +
                                 struct.pack(">I", 0x0B)), 0x00),
    "ok_data_sm": (pdu(0x103, cs("") + bytes([1, 1]) + cs("1") + bytes([1, 1]) + cs("2") +
                       bytes([0, 0, 8]) + tlv(0x0424, "hé".encode("utf-16-be"))), 0x00),
    "ok_alert": (pdu(0x102, bytes([1, 1]) + cs("1") + bytes([1, 1]) + cs("2") + tlv(0x0422, b"\x00")), 0x00),
    "ok_query_sm_resp": (pdu(0x80000003, cs("m1") + b"\0" + bytes([2, 0])), 0x00),
    "ok_replace_sm": (pdu(7, cs("m1") + bytes([1, 1]) + cs("1") + b"\0" + b"\0" + bytes([0, 0, 2]) + b"hi"), 0x00),
    "ok_cancel_sm": (pdu(8, cs("") + cs("m1") + bytes([1, 1]) + cs("1") + bytes([1, 1]) + cs("2")), 0x00),
    "ok_outbind": (pdu(0x0B, cs("smsc") + cs("pw")), 0x00),
    # malformed: framing
    "bad_cmdlen_lt16": (pdu(0x15, b"", length=12), 0x02),
    "bad_cmdlen_gt_max": (pdu(4, submit_body(), length=100000), 0x02),
    "bad_cmdlen_gt_buffer": (pdu(4, submit_body(), length=200), 0x02),
    "bad_header_truncated": (b"\x00\x00\x00\x20\x00\x00", 0x02),
    "bad_unknown_cmd": (pdu(0x99, b"abcd"), 0x03),
    "bad_unknown_resp_cmd": (pdu(0x80000102, b""), 0x03),
    # malformed: mandatory parameters
    "bad_sm_length_gt254": (pdu(4, submit_body(msg=b"x" * 255, sm_len=255)), 0x01),
    "bad_sm_length_gt_remaining": (pdu(4, submit_body(msg=b"short", sm_len=100)), 0x01),
    "bad_srcaddr_no_nul": (pdu(4, cs("") + bytes([1, 1]) + b"1" * 30), 0x0A),
    "bad_dstaddr_no_nul": (pdu(4, cs("") + bytes([1, 1]) + cs("1") + bytes([1, 1]) + b"2" * 25), 0x0B),
    "bad_cstr_truncated": (pdu(4, b"CMT"), 0x02),
    "bad_service_type_long": (pdu(4, b"TOOLONG\0" + b"\0" * 30), 0x15),
    "bad_sched_len": (pdu(4, submit_body(sched=b"12345")), 0x61),
    "bad_system_id_long": (pdu(2, b"s" * 20 + b"\0" + cs("pw") + cs("") + bytes([0x34, 0, 0]) + cs("")), 0x0F),
    "bad_password_long": (pdu(2, cs("sys") + b"p" * 12 + b"\0" + cs("") + bytes([0x34, 0, 0]) + cs("")), 0x0E),
    "bad_body_missing": (pdu(4, b""), 0x02),
    "bad_multi_zero_dests": (pdu(0x21, cs("") + bytes([1, 1]) + cs("1") + bytes([0]) +
                                 bytes([0, 0, 0]) + b"\0\0" + bytes([0, 0, 0, 0, 0])), 0x33),
    "bad_multi_dest_flag": (pdu(0x21, cs("") + bytes([1, 1]) + cs("1") + bytes([1]) +
                                bytes([7, 1, 1]) + cs("x")), 0x40),
    "bad_multi_dl_no_nul": (pdu(0x21, cs("") + bytes([1, 1]) + cs("1") + bytes([1]) +
                                bytes([2]) + b"d" * 30), 0x34),
    # malformed: TLVs
    "bad_tlv_truncated_header": (pdu(4, submit_body(tlvs=b"\x02\x0c\x00")), 0xC0),
    "bad_tlv_len_past_end": (pdu(4, submit_body(tlvs=b"\x02\x0c\x00\x09\x00\x07")), 0xC0),
    "bad_tlv_known_wrong_len": (pdu(4, submit_body(tlvs=tlv(0x020C, b"\x00\x07\x01"))), 0xC2),
    "bad_tlv_after_good": (pdu(4, submit_body(tlvs=FIVE_TLVS + b"\x04\x24")), 0xC0),
    # a batch mixing good and bad PDUs: the first is good, the rest go on
    "batch_mixed": (pdu(0x15, b"") + pdu(0x99, b"") + pdu(4, submit_body(sm_len=200)) +
                    pdu(4, submit_body(tlvs=FIVE_TLVS)) + pdu(0x15, b"", length=3), 0x00),
}


HASH = ("$pbkdf2-sha256$1000$00112233445566778899aabbccddeeff$" +
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")

# fuzz_smppd.c: b"\0" + a users file, b"\1" + a time field
SMPPD_SEEDS = {
    "users_ok": b"\0# users\nuser esme1 secret1\r\nuser esme2 " + HASH.encode() + b" binds=4\n",
    "users_bad_keyword": b"\0usr a b\n",
    "users_bad_long_id": b"\0user abcdefghijklmnop x\n",
    "users_bad_long_pw": b"\0user a 123456789\n",
    "users_bad_twice": b"\0user a b\nuser a c\n",
    "users_bad_binds": b"\0user a b binds=0\n",
    "users_bad_hash_iter": b"\0user a $pbkdf2-sha256$99$0011223344556677$00\n",
    "users_bad_hash_salt": b"\0user a $pbkdf2-sha256$1000$zz$00\n",
    "users_bad_nul": b"\0user a b\0\n",
    "time_abs": b"\1261126120000004+",
    "time_abs_behind": b"\1280229235959948-",
    "time_rel": b"\1990212235959000R",
    "time_empty": b"\1",
    "time_bad_month": b"\1261301000000000+",
    "time_bad_garbage": b"\1garbage_garbage1",
    "time_bad_rel_tnn": b"\1000001000000100R",
    "time_bad_len": b"\126112612000000+",
}


def main():
    os.makedirs(os.path.join(HERE, "corpus_smppd"), exist_ok=True)
    for name, data in sorted(SMPPD_SEEDS.items()):
        with open(os.path.join(HERE, "corpus_smppd", name), "wb") as g:
            g.write(data)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("# seed  status of its first PDU (hex), written by make_corpus.py\n")
        for name, (data, st) in sorted(SEEDS.items()):
            with open(os.path.join(OUT, name), "wb") as g:
                g.write(data)
            f.write("%s %x\n" % (name, st))


if __name__ == "__main__":
    main()
