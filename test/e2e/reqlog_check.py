#!/usr/bin/env python3
"""test/e2e/reqlog_check.py — a --log file against the JSON report of the
same run (test/e2e/e2e_log.sh). Parses the log with Python's own csv and
json modules (TSV: split on tabs), then checks: the header; one line per
request (measured lines == requests.total, warm-up lines ==
warmup.requests); status and error-kind counts == the report's; the
latencies' p50/p90/p99 and max == the report's within the histogram's
precision (1/1000 relative) plus the microsecond rounding; every line
coherent (a status xor an error kind, first byte within the latency,
connection and thread within the run's); with --targets, each target's
lines == its row of the report's targets table. Prints each problem on a line
and exits 1 if there is any; --summary prints a JSON summary on success.

  reqlog_check.py FORMAT LOG REPORT [--all-error KIND] [--summary]
"""
import csv
import json
import math
import sys

COLS = ["start_us", "latency_us", "ttfb_us", "status", "error", "bytes", "conn", "stream", "target",
        "thread", "warmup"]


def read(fmt, path):
    rows = []
    with open(path, newline="") as f:
        if fmt == "jsonl":
            for i, line in enumerate(f, 1):
                o = json.loads(line)
                if list(o) != COLS:
                    raise ValueError(f"line {i}: keys {list(o)}")
                o["error"] = o["error"] or ""
                o["warmup"] = 1 if o["warmup"] else 0
                rows.append(o)
            return rows
        lines = csv.reader(f) if fmt == "csv" else (l.rstrip("\n").split("\t") for l in f)
        header = next(lines, None)
        if header != COLS:
            raise ValueError(f"header {header}")
        for i, r in enumerate(lines, 2):
            if len(r) != len(COLS):
                raise ValueError(f"line {i}: {len(r)} fields: {r}")
            o = dict(zip(COLS, r))
            for k in COLS:
                if k != "error":
                    o[k] = int(o[k])
            rows.append(o)
    return rows


def main():
    fmt, log, report = sys.argv[1:4]
    all_error = sys.argv[sys.argv.index("--all-error") + 1] if "--all-error" in sys.argv else None
    rep = json.load(open(report))
    bad = []
    try:
        rows = read(fmt, log)
    except (ValueError, json.JSONDecodeError, csv.Error) as e:
        print(f"the log does not parse as {fmt}: {e}")
        return 1
    measured = [r for r in rows if not r["warmup"]]
    warm = [r for r in rows if r["warmup"]]
    req = rep["requests"]
    if len(measured) != req["total"]:
        bad.append(f"{len(measured)} measured lines, requests.total {req['total']}")
    want_warm = rep.get("warmup", {}).get("requests", 0)
    if len(warm) != want_warm:
        bad.append(f"{len(warm)} warm-up lines, warmup.requests {want_warm}")
    status, kinds = {}, {}
    for r in measured:
        if r["error"]:
            kinds[r["error"]] = kinds.get(r["error"], 0) + 1
        else:
            status[str(r["status"])] = status.get(str(r["status"]), 0) + 1
    if status != rep["statusCodes"]:
        bad.append(f"status counts {status}, the report's {rep['statusCodes']}")
    if kinds != rep["errorKinds"]:
        bad.append(f"error kinds {kinds}, the report's {rep['errorKinds']}")
    # --targets: each target's lines are its row of the report's table.
    targets = rep.get("targets") or []
    ntargets = len(targets) or 1
    for i, t in enumerate(targets):
        mine = [r for r in measured if r["target"] == i]
        ok = sum(1 for r in mine if not r["error"])
        if (len(mine), ok, len(mine) - ok) != (t["requests"], t["ok"], t["errors"]):
            bad.append(f"target {i}: {len(mine)} lines, {ok} ok; the report's {t['requests']}, {t['ok']} ok")
    for r in rows:
        if (r["status"] == 0) == (r["error"] == ""):
            bad.append(f"neither or both a status and an error: {r}")
        elif all_error and r["error"] != all_error:
            bad.append(f"not a '{all_error}' error: {r}")
        elif r["ttfb_us"] > r["latency_us"] + 1:
            bad.append(f"first byte after the latency: {r}")
        elif r["conn"] >= rep["connections"] * rep.get("shardCount", 1) or r["thread"] >= rep["threads"]:
            bad.append(f"connection or thread out of range: {r}")
        elif r["target"] >= ntargets:
            bad.append(f"target {r['target']} of {ntargets}")
        elif not r["error"] and r["bytes"] <= 0:
            bad.append(f"a response without bytes: {r}")
        if len(bad) > 10:
            break
    lat = sorted(r["latency_us"] for r in measured if not r["error"])
    ls = rep.get("latencySeconds")
    if lat and ls:
        for p in (50, 90, 99):
            rank = min(len(lat), max(1, math.ceil(p * len(lat) / 100 - 1e-9)))
            mine, theirs = lat[rank - 1], ls["percentiles"][f"p{p}"] * 1e6
            if abs(mine - theirs) > theirs / 1000 + 1:
                bad.append(f"p{p}: the log's {mine} us, the report's {theirs:.3f} us")
        if abs(lat[-1] - ls["max"] * 1e6) > 1:
            bad.append(f"max: the log's {lat[-1]} us, the report's {ls['max'] * 1e6:.3f} us")
    elif lat or ls:
        bad.append(f"{len(lat)} latencies in the log, report latencySeconds {ls}")
    for b in bad[:10]:
        print(b)
    if bad:
        return 1
    if "--summary" in sys.argv:
        starts = sorted(r["start_us"] for r in measured)
        gaps = sorted(b - a for a, b in zip(starts, starts[1:]))
        print(json.dumps({"lines": len(rows), "measured": len(measured), "warmup": len(warm),
                          "conns": len({r["conn"] for r in rows}), "threads": len({r["thread"] for r in rows}),
                          "per_target": [sum(1 for r in measured if r["target"] == i) for i in range(ntargets)],
                          "streams_odd": all(r["stream"] % 2 == 1 for r in measured if not r["error"]),
                          "streams_bidi": all(r["stream"] % 4 == 0 for r in measured if not r["error"]),
                          "min_stream": min((r["stream"] for r in measured if not r["error"]), default=0),
                          "bytes": sum(r["bytes"] for r in measured),
                          "first_start_us": starts[0] if starts else 0, "last_start_us": starts[-1] if starts else 0,
                          "median_gap_us": gaps[len(gaps) // 2] if gaps else 0}))
    return 0


sys.exit(main())
