#!/usr/bin/env python3
"""test/e2e/html_check.py — what test/e2e/e2e_html.sh checks of shb's HTML page.

  html_check.py series PAGE                print each chart's series: "chart-rate 2 ..."
                                           (line charts: their paths; bar charts: their rows)
  html_check.py addresses PAGE URL...      exit 1 naming any http:// or https:// reference in
                                           PAGE other than the URLs given (the reports' own)
  html_check.py png SHOT.png               exit 1 unless the screenshot is drawn: at least 5
                                           bands of 60 rows each hold 150 or more pixels of
                                           the chart colours (one band per chart at least)

PNG is read with zlib alone (no PIL): 8-bit RGB or RGBA, non-interlaced, as
Chromium writes its screenshots; each row's filter undone (PNG spec §9).
"""
import html
import re
import struct
import sys
import zlib

# The page's series colours (report/html.c), light scheme: headless
# Chromium renders prefers-color-scheme: light.
PALETTE = ["1f6fd1", "d9480f", "2b8a3e", "c2255c", "7048e8", "e67700", "0c8599", "5c5f66"]


def series(page):
    text = open(page, encoding="utf-8").read()
    out = []
    for m in re.finditer(r'<figure class="chart[^"]*" id="([^"]+)">(.*?)</figure>', text, re.S):
        fig, body = m.group(1), m.group(2)
        n = len(re.findall(r'<path class="series ', body)) + len(re.findall(r'<g class="bar ', body))
        out.append(f"{fig} {n}")
    print(" ".join(out))


def addresses(page, allowed):
    text = html.unescape(open(page, encoding="utf-8").read())
    bad = []
    for m in re.finditer(r"https?://[^\s\"'<>]*", text):
        ref = m.group(0)
        if not any(ref.startswith(a) or a.startswith(ref) for a in allowed):
            bad.append(ref)
    if bad:
        print("references to other addresses:", ", ".join(sorted(set(bad))[:5]))
        sys.exit(1)


def png_rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit(f"{path}: depth {depth} colour type {colour} interlace {interlace}: not handled")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                row[i] = (row[i] + a) & 255
            elif f == 2:
                row[i] = (row[i] + b) & 255
            elif f == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = row
        yield width, bpp, row


def png(path):
    colours = [tuple(int(h[i:i + 2], 16) for i in (0, 2, 4)) for h in PALETTE]
    bands = {}
    for y, (width, bpp, row) in enumerate(png_rows(path)):
        hits = 0
        for x in range(0, width * bpp, bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if any(abs(r - cr) + abs(g - cg) + abs(b - cb) < 60 for cr, cg, cb in colours):
                hits += 1
        bands[y // 60] = bands.get(y // 60, 0) + hits
    drawn = sorted(k for k, v in bands.items() if v >= 150)
    print(f"{len(drawn)} bands of 60 rows drawn in the chart colours")
    if len(drawn) < 5:
        sys.exit(1)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "series" and len(sys.argv) == 3:
        series(sys.argv[2])
    elif cmd == "addresses" and len(sys.argv) >= 3:
        addresses(sys.argv[2], sys.argv[3:])
    elif cmd == "png" and len(sys.argv) == 3:
        png(sys.argv[2])
    else:
        sys.exit(__doc__)
