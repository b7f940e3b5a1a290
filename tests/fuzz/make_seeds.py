#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""make_seeds.py - write the seed corpus for the libFuzzer targets.

Usage: make_seeds.py CORPUS_DIR

Writes CORPUS_DIR/<target>/<name> for the targets in this directory, in
the input layout each fuzz_<target>.c documents at its top. The frames
are built here, independently of the wire core, from the RFC layouts
(RFC 5044 framing with CRC32c and Markers, RFC 5041 headers, RFC 5040
messages, RFC 6581 IRD/ORD words). The output is committed as data.
Standard library only.
"""
import os
import struct
import sys

REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def mpa_rr(key, flags, rev, pd=b""):
    return key + struct.pack(">BBH", flags, rev, len(pd)) + pd


def untagged(op, qn, msn, mo, rsvd32=0, last=True, payload=b""):
    return struct.pack(">BBIIII", (0x40 if last else 0) | 1, 0x40 | op,
                       rsvd32, qn, msn, mo) + payload


def tagged(op, stag, to, last=True, payload=b""):
    return struct.pack(">BBIQ", 0x80 | (0x40 if last else 0) | 1, 0x40 | op,
                       stag, to) + payload


def fpdu(ulpdu, pos=0, crc=True, markers=False):
    """One FPDU at stream position pos (octets since the first FPDU)."""
    content = struct.pack(">H", len(ulpdu)) + ulpdu
    content += b"\0" * (-len(content) % 4)
    out = b""
    i = 0
    while i < len(content):
        if markers and (pos + len(out)) % 512 == 0:
            out += struct.pack(">HH", 0, len(out))
        out += content[i:i + 1]
        i += 1
    if markers and (pos + len(out)) % 512 == 0:
        out += struct.pack(">HH", 0, len(out))
    return out + struct.pack("<I", crc32c(out) if crc else 0)


def stream(ulpdus, pos=0, crc=True, markers=False):
    out = b""
    for u in ulpdus:
        out += fpdu(u, pos + len(out), crc, markers)
    return out


def read_req(sink_stag, sink_to, size, src_stag, src_to):
    return struct.pack(">IQIIQ", sink_stag, sink_to, size, src_stag, src_to)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "corpus"
    seeds = {}

    send = untagged(3, 0, 1, 0, payload=b"ABCD")
    write = tagged(0, 0x12345678, 0x1000, payload=bytes(range(1, 9)))
    hello = untagged(3, 0, 2, 0, payload=b"Hello")
    rreq = untagged(1, 1, 1, 0, payload=read_req(0xAB01, 0x2000, 64, 0xCD02, 0x3000))
    term = untagged(7, 2, 1, 0, payload=bytes.fromhex("20020000"))
    send_inv = untagged(4, 0, 3, 0, rsvd32=0x00C0FFEE, payload=b"inv!")
    rresp = tagged(2, 0xAB01, 0x2000, payload=bytes(64))
    big = untagged(5, 0, 4, 0, payload=bytes(i & 0xff for i in range(1200)))
    first = tagged(0, 0x12345678, 0x1000, last=False, payload=bytes(100))
    rtr = tagged(0, 0, 0)
    # Terminate for a DDP error on the Send: M, D, the 18-octet header.
    term_ddp = untagged(7, 2, 1, 0, payload=bytes.fromhex("12034000") +
                        struct.pack(">H", len(send)) + send[:18])
    # Terminate for a Read Request protection error: M, D, R and 28 octets.
    term_rr = untagged(7, 2, 1, 0, payload=bytes.fromhex("0101e000") +
                       struct.pack(">H", len(rreq)) + rreq[:18] + rreq[18:46])
    msgs = [send, write, hello, rreq, term]

    s = seeds["mpa_stream"] = {}
    s["v1_crc"] = b"\x01\x00\x00" + stream(msgs)
    s["v1_nocrc"] = b"\x00\x00\x00" + stream(msgs, crc=False)
    s["markers_crc"] = b"\x03\x00\x00" + stream([send, big, rresp, term], markers=True)
    s["markers_pos500"] = b"\x03\x01\xf4" + stream([big, hello, big], pos=500, markers=True)
    s["rtr_then_split"] = b"\x01\x00\x00" + stream([rtr, send_inv]) + fpdu(big)[:700]
    s["bad_crc"] = b"\x01\x00\x00" + stream([send])[:-1] + b"\x00"

    d = seeds["ddp"] = {}
    cfg = struct.pack(">BIBBQIIB", 3, 0x12345678, 0, 3, 0x1000, 0x10000, 1, 4)
    assert len(cfg) == 24

    def recs(us):
        return b"".join(struct.pack(">H", len(u)) + u for u in us)
    d["mixed"] = cfg + recs([send, write, hello, rreq, term])
    d["two_segment_write"] = cfg + recs([first, tagged(0, 0x12345678, 0x1064, payload=bytes(50))])
    d["zero_length_rtr"] = cfg + recs([rtr, untagged(3, 0, 1, 0)])
    d["anyqp_wrap"] = struct.pack(">BIBBQIIB", 1, 7, 4, 1, 0xFFFFFFFFFFFFF000,
                                  0x1000, 0xFFFFFFFE, 5) + \
        recs([tagged(0, 7, 0xFFFFFFFFFFFFFFF0, payload=bytes(32)),
              untagged(3, 0, 0xFFFFFFFF, 0, payload=b"x")])

    r = seeds["rdmap"] = {}
    for name, u in (("send", send), ("write", write), ("read_req", rreq),
                    ("term_llp", term), ("term_ddp", term_ddp),
                    ("term_read", term_rr), ("send_inv", send_inv),
                    ("read_resp", rresp)):
        r[name] = struct.pack(">I", 0x01012203) + u
    r["err_crc"] = struct.pack(">I", 0x01002002) + send
    r["err_opcode"] = struct.pack(">I", 0x01000206) + rreq

    m = seeds["mpa_rr"] = {}
    v2 = struct.pack(">HH", 0x8010, 0xC010)
    m["v1_req"] = b"\x00\x10\x10" + mpa_rr(REQ_KEY, 0x40, 1)
    m["v1_rep"] = b"\x01\x10\x10" + mpa_rr(REP_KEY, 0x40, 1)
    m["v1_req_pd"] = b"\x00\x10\x10" + mpa_rr(REQ_KEY, 0x00, 1, b"hello, responder")
    m["v2_req"] = b"\x00\x08\x08" + mpa_rr(REQ_KEY, 0x50, 2, v2)
    m["v2_rep"] = b"\x01\x10\x10" + mpa_rr(REP_KEY, 0x50, 2, struct.pack(">HH", 0x8010, 0x8010))
    m["v2_req_pd"] = b"\x00\x3f\x01" + mpa_rr(REQ_KEY, 0x10, 2, struct.pack(">HH", 0x8004, 0x4002) + b"ulp")
    m["v2_reject"] = b"\x01\x00\x00" + mpa_rr(REP_KEY, 0x30, 2, bytes(4))
    m["v1_req_trailing"] = b"\x00\x10\x10" + mpa_rr(REQ_KEY, 0x40, 1) + stream([rtr])
    m["pd_512"] = b"\x00\x10\x10" + mpa_rr(REQ_KEY, 0x40, 1, bytes(512))

    for target, files in seeds.items():
        d = os.path.join(top, target)
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
