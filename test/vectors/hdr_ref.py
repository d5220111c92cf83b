#!/usr/bin/env python3
"""test/vectors/hdr_ref.py -- an independent reading of shb's JSON histograms, for
test/e2e/e2e_merge.sh: it shares no code with hdr.c or merge.c.

    python3 test/vectors/hdr_ref.py KEY MERGED.json REPORT.json...

Decodes KEY's "histogram" (e.g. latencySeconds) of every REPORT with
Python's own base64 and zlib and HdrHistogram's V2 layout, adds the
buckets, and works out what a report of all their samples must say:
min, max (the extremes of the reports'), mean (weighted), and each
percentile by shb's rule (stats.c hist_percentile: the first bucket whose
cumulative count reaches ceil(p% of count), reported as that bucket's
highest value, clamped to [min, max]), in seconds with 9 decimals. Then
compares MERGED's KEY with it: its histogram bucket for bucket, min, max
and percentiles to the digit, the mean to the half nanosecond. Prints "ok", or each
difference (exit 1).

    python3 test/vectors/hdr_ref.py timeline MERGED.json REPORT.json...

The same for the per-second timeline: each REPORT's entries laid on one
timeline from the earliest startTime (an entry that began T ns after it
goes into entry T // width), their ok, errors and bytesReceived summed and
their histograms added; p50 and p99 read by timeline.h's layout (8 steps
per power of two over 128 ns units, a bucket read at its middle), each
entry's seconds cut by the merged window's end. MERGED's timeline must be
exactly that, entry for entry.
"""
import base64
import json
import struct
import sys
import zlib

SUB_BITS = 11
SUB_COUNT = 1 << SUB_BITS
SUB_HALF = SUB_COUNT // 2
PERCENTILES = [("p10", 10), ("p25", 25), ("p50", 50), ("p75", 75), ("p90", 90),
               ("p95", 95), ("p99", 99), ("p99.9", 99.9), ("p99.99", 99.99)]


def varints(data):
    """HdrHistogram's ZigZag LEB128: 7 bits a byte, a 9th byte of 8."""
    i = 0
    while i < len(data):
        z = 0
        for k in range(9):
            b = data[i]
            i += 1
            if k == 8:
                z |= b << 56
                break
            z |= (b & 0x7F) << (7 * k)
            if not b & 0x80:
                break
        yield (z >> 1) ^ -(z & 1)


def decode(b64):
    raw = base64.b64decode(b64, validate=True)
    cookie, length = struct.unpack(">II", raw[:8])
    assert cookie & ~0xF0 == 0x1C849304, hex(cookie)
    plain = zlib.decompress(raw[8:8 + length])
    cookie, payload, offset, digits, lowest, highest = struct.unpack(">IIIIqq", plain[:32])
    assert cookie & ~0xF0 == 0x1C849303 and offset == 0 and digits == 3 and lowest == 1
    counts = {}
    idx = 0
    for v in varints(plain[40:40 + payload]):
        if v < 0:
            idx += -v
        else:
            if v:
                counts[idx] = v
            idx += 1
    return counts


def highest(idx):
    """The largest value bucket idx holds (hist_index's inverse, rounded up)."""
    if idx < SUB_COUNT:
        return idx
    shift = idx // SUB_HALF - 1
    step = idx - shift * SUB_HALF
    return ((step + 1) << shift) - 1


def rank(count, p):
    exact = p * count / 100.0
    if not exact > 1.0:
        return 1
    if exact >= count:
        return count
    r = int(exact)
    return r + 1 if r < exact else r


def ns(seconds_text):
    whole, _, frac = seconds_text.partition(".")
    return int(whole) * 10**9 + int((frac + "000000000")[:9])


def secs(v):
    return "%d.%09d" % (v // 10**9, v % 10**9)


def load(path, key):
    with open(path) as fh:
        # Number literals as text, so seconds compare exactly.
        node = json.load(fh, parse_float=str, parse_int=str)
    for part in key.split("."):  # phases.connect
        node = node[part]
    return node


def lowest(idx):
    """The smallest value bucket idx holds."""
    if idx < SUB_COUNT:
        return idx
    shift = idx // SUB_HALF - 1
    return (idx - shift * SUB_HALF) << shift


TL_UNIT, TL_SUB, TL_TOP = 7, 8, 29


def tl_bucket(v):
    u = v >> TL_UNIT
    if u < TL_SUB:
        return u
    e = u.bit_length() - 1
    if e >= TL_TOP:
        return TL_SUB + (TL_TOP - 3) * TL_SUB
    return (e - 2) * TL_SUB + ((u >> (e - 3)) & (TL_SUB - 1))


def tl_middle(b):
    if b < TL_SUB:
        return (b << TL_UNIT) + (1 << (TL_UNIT - 1))
    if b == TL_SUB + (TL_TOP - 3) * TL_SUB:
        return 1 << (TL_TOP + TL_UNIT)
    e, sub = b // TL_SUB + 2, b % TL_SUB
    return (((TL_SUB + sub) << (e - 3)) << TL_UNIT) + ((1 << (e - 3)) << (TL_UNIT - 1))


def timeline_main(merged_path, files):
    reports = []
    for f in files:
        with open(f) as fh:
            reports.append(json.load(fh, parse_float=str, parse_int=str))
    anchor = min(ns(r["startTime"]) for r in reports)
    width = 10**9
    for r in reports:
        tl = r.get("timeline", [])
        if len(tl) > 1:
            width = max(width, ns(tl[1]["start"]))
    want = {}
    for r in reports:
        offset = ns(r["startTime"]) - anchor
        for e in r.get("timeline", []):
            at = (offset + ns(e["start"])) // width
            w = want.setdefault(at, {"ok": 0, "errors": 0, "bytesReceived": 0, "hist": {}})
            for k in ("ok", "errors", "bytesReceived"):
                w[k] += int(e[k])
            for i, c in decode(e["histogram"]).items():
                w["hist"][i] = w["hist"].get(i, 0) + c
    with open(merged_path) as fh:
        merged = json.load(fh, parse_float=str, parse_int=str)
    got = merged.get("timeline", [])
    window = ns(merged["durationSeconds"])
    diffs = []
    n = max(want) + 1 if want else 0
    if len(got) != n:
        diffs.append("%d entries, expected %d" % (len(got), n))
    for at in range(min(n, len(got))):
        g, w = got[at], want.get(at, {"ok": 0, "errors": 0, "bytesReceived": 0, "hist": {}})
        exp = {"start": secs(at * width), "seconds": secs(max(0, min(width, window - at * width)))}
        for k in ("ok", "errors", "bytesReceived"):
            exp[k] = str(w[k])
        for name, p in (("p50", 50), ("p99", 99)):
            value, seen, need = 0, 0, rank(w["ok"], p)
            for i in sorted(w["hist"]) if w["ok"] else []:
                seen += w["hist"][i]
                if seen >= need:
                    value = tl_middle(tl_bucket(lowest(i)))
                    break
            exp[name] = secs(value)
        for k, v in exp.items():
            if ns(g[k]) != ns(v):
                diffs.append("timeline[%d].%s: %s, expected %s" % (at, k, g[k], v))
        if decode(g["histogram"]) != w["hist"]:
            diffs.append("timeline[%d].histogram differs" % at)
    print("ok" if not diffs else "; ".join(diffs[:8]))
    sys.exit(1 if diffs else 0)


def main():
    key, merged_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    if key == "timeline":
        timeline_main(merged_path, files)
    total = {}
    lo, hi, weighted, n = None, 0, 0.0, 0
    for f in files:
        h = load(f, key)
        counts = decode(h["histogram"])
        c = sum(counts.values())
        for i, v in counts.items():
            total[i] = total.get(i, 0) + v
        if c:
            lo = ns(h["min"]) if lo is None else min(lo, ns(h["min"]))
            hi = max(hi, ns(h["max"]))
            weighted += float(h["mean"]) * c
            n += c
    out = {"count": n, "min": secs(lo or 0), "max": secs(hi), "mean": weighted / n if n else 0,
           "percentiles": {}}
    for name, p in PERCENTILES:
        want, seen, value = rank(n, p), 0, 0
        for i in sorted(total):
            seen += total[i]
            if seen >= want:
                value = min(max(highest(i), lo), hi)
                break
        out["percentiles"][name] = secs(value) if n else secs(0)
    merged = load(merged_path, key)
    diffs = []
    got = decode(merged["histogram"])
    if got != total:
        diffs.append("histogram: %d buckets differ" % len(set(got.items()) ^ set(total.items())))
    for k in ("min", "max"):
        if merged[k] != out[k]:
            diffs.append("%s: %s, expected %s" % (k, merged[k], out[k]))
    # Means are printed to the nanosecond: the merged one is within half of
    # one of the weighted mean of the printed ones (plus a double's error).
    if abs(float(merged["mean"]) - out["mean"]) > 0.5e-9 + 1e-9 * max(out["mean"], 1e-12):
        diffs.append("mean: %s, expected %r" % (merged["mean"], out["mean"]))
    for name, _ in PERCENTILES:
        if merged["percentiles"][name] != out["percentiles"][name]:
            diffs.append("%s: %s, expected %s" % (name, merged["percentiles"][name], out["percentiles"][name]))
    print("ok" if not diffs else "; ".join(diffs))
    sys.exit(1 if diffs else 0)


main()
