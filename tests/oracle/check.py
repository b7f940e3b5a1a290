#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check.py - decode the oracle's captures with tshark and compare.

Usage: check.py DIR STREAM...

For each STREAM, reads DIR/STREAM.pcap and DIR/STREAM.expect (written by
oracle_gen), runs tshark's own iWARP dissectors (iwarp_mpa, iwarp_ddp_rdmap)
over the capture and prints one TAP line per check group, plus one per
capture for its integrity: every IP and TCP checksum good, no malformed
packet, no expert item of warning level or above. Exits non-zero if any
line is "not ok". Without tshark it prints a single SKIP line and exits 0.
The environment variable TSHARK names the tshark binary (default "tshark").

Standard library only.
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

# tshark's RPC-over-RDMA and SMB Direct heuristics try to parse the test
# payloads of Sends ("ABCD", counters) as their own protocols and then call
# them malformed.  That is about our payload, not the iWARP framing, so
# those two dissectors are switched off; everything else is tshark's default.
TSHARK_ARGS = [
    "-o", "tcp.check_checksum:TRUE",
    "-o", "ip.check_checksum:TRUE",
    "--disable-protocol", "rpcordma",
    "--disable-protocol", "smb_direct",
    "-T", "pdml",
]

SEVERITY_WARN = 0x600000
TSHARK = os.environ.get("TSHARK", "tshark")


def norm(value, raw=False):
    """Compare numbers as numbers (tshark prints some in hex, some in
    decimal) and byte strings (tshark shows them colon-separated) as
    lower-case hex without separators."""
    v = value.strip()
    if raw or ":" in v:
        return v.replace(":", "").lower()
    try:
        return int(v, 0)
    except ValueError:
        pass
    if v in ("True", "False"):
        return int(v == "True")
    return v.replace(":", "").lower()


def walk(elem, fields):
    for child in elem:
        if child.tag in ("field", "proto"):
            name = child.get("name", "")
            fields.setdefault(name, []).append(child)
            walk(child, fields)


def decode(pcap):
    """Returns {frame number: {field name: [elements]}}."""
    out = subprocess.run([TSHARK, "-r", pcap] + TSHARK_ARGS,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         check=False)
    if out.returncode != 0:
        raise RuntimeError("tshark failed: " + out.stderr.decode(errors="replace"))
    root = ET.fromstring(out.stdout)
    frames = {}
    for pkt in root.iter("packet"):
        fields = {}
        walk(pkt, fields)
        num = int(fields["frame.number"][0].get("show"))
        frames[num] = fields
    return frames


def integrity(frames):
    """Problems with the capture itself or anything tshark flags."""
    problems = []
    for num, fields in sorted(frames.items()):
        for name in ("ip.checksum.status", "tcp.checksum.status"):
            got = [e.get("show") for e in fields.get(name, [])]
            if got != ["1"]:
                problems.append("frame %d: %s %s, want good" % (num, name, got))
        if "_ws.malformed" in fields:
            problems.append("frame %d: malformed" % num)
        for exp in fields.get("_ws.expert", []):
            sev = [int(e.get("show")) for e in exp.iter("field")
                   if e.get("name") == "_ws.expert.severity"]
            if sev and sev[0] >= SEVERITY_WARN:
                problems.append("frame %d: expert: %s" % (num, exp.get("showname")))
    return problems


def check_line(frames, num, field, want):
    fields = frames.get(num)
    if fields is None:
        return "frame %d missing from the capture" % num
    elems = fields.get(field, [])
    if want == "-":
        return None if not elems else "frame %d: %s present, want absent" % (num, field)
    if field == "crc_good":
        crcs = [e.get("showname", "") for e in fields.get("iwarp_mpa.crc_check", [])]
        good = [s for s in crcs if "(Good CRC32)" in s]
        if len(crcs) != int(want) or len(good) != len(crcs):
            return "frame %d: CRC checks %s, want %s good" % (num, crcs, want)
        return None
    shows = [e.get("show", "") for e in elems]
    raw = any(":" in s for s in shows)
    got = [norm(s, raw) for s in shows]
    exp = [norm(w, raw) for w in want.split(",")]
    if got != exp:
        return "frame %d: %s = %s, want %s" % (
            num, field, [e.get("show") for e in elems], want.split(","))
    return None


def main():
    if len(sys.argv) < 3:
        print("usage: check.py DIR STREAM...", file=sys.stderr)
        return 2
    if not shutil.which(TSHARK):
        print("ok 1 - oracle # SKIP tshark not installed")
        return 0
    directory, streams = sys.argv[1], sys.argv[2:]
    results = []        # (name, [problems])
    for stream in streams:
        pcap = os.path.join(directory, stream + ".pcap")
        try:
            frames = decode(pcap)
        except (RuntimeError, ET.ParseError, OSError) as err:
            results.append(("%s: tshark decode" % stream, [str(err)]))
            continue
        groups = {}
        order = []
        with open(os.path.join(directory, stream + ".expect")) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 4:
                    results.append(("%s: expectation file" % stream,
                                    ["bad line: %r" % line]))
                    continue
                group, num, field, want = parts
                if not group.startswith(stream):
                    group = "%s: %s" % (stream, group)
                if group not in groups:
                    groups[group] = []
                    order.append(group)
                problem = check_line(frames, int(num), field, want)
                if problem:
                    groups[group].append(problem)
        if not order:
            results.append(("%s: expectations" % stream, ["no expectations"]))
        for group in order:
            results.append((group, groups[group]))
        results.append(("%s: %d frames, checksums good, nothing malformed, no expert warnings"
                        % (stream, len(frames)), integrity(frames)))

    print("1..%d" % len(results))
    failed = 0
    for i, (name, problems) in enumerate(results, 1):
        if problems:
            failed += 1
            print("not ok %d - %s" % (i, name))
            for p in problems[:20]:
                print("# " + p)
        else:
            print("ok %d - %s" % (i, name))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
