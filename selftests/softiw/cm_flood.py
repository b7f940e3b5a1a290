#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# cm_flood.py ADDR PORT SECONDS: a remote peer that opens TCP connections
# to an iWARP listener and never sends its MPA Request (sec_cm.sh).  It
# keeps opening one every 5 ms for SECONDS, holding every connection the
# listener does not reset, then prints how many it opened and how many
# the listener reset, and closes them all.
import socket
import sys
import time

addr, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
held, opened, reset = [], 0, 0
end = time.monotonic() + secs
while time.monotonic() < end:
    try:
        s = socket.create_connection((addr, port), timeout=2)
        s.setblocking(False)
        held.append(s)
        opened += 1
    except OSError:
        pass
    # a connection the listener dropped reads as reset (or closed)
    for s in held[:]:
        try:
            if s.recv(1) == b"":
                raise ConnectionResetError
        except BlockingIOError:
            continue
        except OSError:
            pass
        reset += 1
        held.remove(s)
        s.close()
    time.sleep(0.005)
print(f"opened {opened} reset {reset} held {len(held)}", flush=True)
for s in held:
    s.close()
