#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A plain TCP peer that completes MPA (RFC 5044, RFC 6581) and then never
moves, to hold a softiw endpoint in a state (dp_cmstates.sh).

  mpa_peer.py respond PORT        listen on PORT (IPv4), answer one Rev 1
                                  MPA Request with a Reply (CRC), print
                                  "replied", then "eof" once the
                                  initiator has closed its side; the
                                  socket stays open
  mpa_peer.py initiate ADDR PORT  send a Rev 2 Request asking for
                                  peer-to-peer mode with a zero-length
                                  Write RTR, print "reply" once the Reply
                                  is in, and never send the RTR

Both then sleep until killed.
"""
import socket
import struct
import sys
import time

REQ = b"MPA ID Req Frame"
REP = b"MPA ID Rep Frame"
CRC = 0x40
ENHANCED = 0x10
P2P = 0x8000
WRITE_RTR = 0x8000


def say(what):
    print(what, flush=True)


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            sys.exit("mpa_peer: the peer closed during MPA")
        buf += chunk
    return buf


def frame(sock, key):
    hdr = recv_exact(sock, 20)
    if hdr[:16] != key:
        sys.exit("mpa_peer: bad key %r" % hdr[:16])
    pd_len = struct.unpack(">H", hdr[18:20])[0]
    return hdr[16], hdr[17], recv_exact(sock, pd_len)


def respond(port):
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("0.0.0.0", port))
    lsock.listen(1)
    sock, _ = lsock.accept()
    _, rev, _ = frame(sock, REQ)
    if rev != 1:
        sys.exit("mpa_peer: a Rev %d Request; respond wants Rev 1" % rev)
    sock.sendall(REP + bytes([CRC, 1]) + struct.pack(">H", 0))
    say("replied")
    while sock.recv(4096):
        pass
    say("eof")
    return sock


def initiate(addr, port):
    sock = socket.create_connection((addr, port))
    pd = struct.pack(">HH", P2P | 1, WRITE_RTR | 1)
    sock.sendall(REQ + bytes([CRC | ENHANCED, 2]) +
                 struct.pack(">H", len(pd)) + pd)
    flags, rev, _ = frame(sock, REP)
    say("reply rev %d flags %#x" % (rev, flags))
    return sock


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "respond":
        held = respond(int(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "initiate":
        held = initiate(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
    time.sleep(1000)
    held.close()


main()
