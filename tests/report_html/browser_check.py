#!/usr/bin/env python3
"""Renders the report of a directory in headless chromium and checks the screenshot is a real
page: a PNG of the requested size with many colours, among them the red of the highlighted cells.

usage: browser_check.py LAYOUTPROOF CHECK_DIR OUT_DIR   (exit 77 when chromium is absent)"""
import os
import shutil
import struct
import subprocess
import sys
import zlib


def decode_png(data):
    """(width, height, rows of RGB tuples) for 8-bit RGB/RGBA non-interlaced PNGs."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, f"unsupported PNG {depth} {ctype} {interlace}"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, prev, rows = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def main():
    layoutproof, check_dir, out = sys.argv[1:4]
    chromium = shutil.which("chromium")
    if chromium is None:
        print("chromium is not installed (scripts/install-deps.sh)")
        return 77
    os.makedirs(out, exist_ok=True)
    report_dir, png = os.path.join(out, "report"), os.path.join(out, "report.png")
    if os.path.exists(png):
        os.remove(png)
    # check exits 1 on findings; the report is what matters here.
    r = subprocess.run([layoutproof, "check", check_dir, "--no-cache", "--no-progress", "--report", report_dir],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    page = os.path.abspath(os.path.join(report_dir, "index.html"))
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={png}", "--window-size=1400,3000", "file://" + page],
                   capture_output=True, timeout=90, check=False)
    assert os.path.exists(png), "chromium wrote no screenshot"
    width, height, rows = decode_png(open(png, "rb").read())
    assert (width, height) == (1400, 3000), (width, height)
    colours = {px for row in rows[::4] for px in row[::4]}
    # The lane x bank grid's red cells (#e0413a) must be on the first screen.
    red = sum(1 for row in rows for px in row if abs(px[0] - 0xE0) < 8 and abs(px[1] - 0x41) < 8 and abs(px[2] - 0x3A) < 8)
    print(f"{png}: {width}x{height}, {len(colours)} colours, {red} red pixels")
    assert len(colours) >= 16, "the screenshot is (nearly) blank"
    assert red >= 400, "no highlighted cells visible"
    return 0


if __name__ == "__main__":
    sys.exit(main())
