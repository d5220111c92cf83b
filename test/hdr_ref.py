#!/usr/bin/env python3
"""test/hdr_ref.py -- an independent reading of shb's JSON histograms, for
test/e2e_merge.sh: it shares no code with hdr.c or merge.c.

    python3 test/hdr_ref.py KEY MERGED.json REPORT.json...

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


def main():
    key, merged_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
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
