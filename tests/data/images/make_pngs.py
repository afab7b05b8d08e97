#!/usr/bin/env python3
"""PNG fixtures for tests/core/test_image_io.cpp, written by a PNG encoder of their own (zlib and
struct only, no PIL), so the reader is checked against files Halfscope's writer did not make:
bit depths 1/2/4/16, a palette with tRNS, grey with tRNS, Adam7 interlacing, every row filter,
text chunks of each type (one after the image data), and two over the reader's caps.

The pixel formulas are repeated in the test, which computes what each file must decode to.
Regenerate (byte-identical with the same zlib): python3 tests/data/images/make_pngs.py
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def pack_row(samples, bit_depth):
    """Samples (ints) to bytes: sub-byte depths most significant bits first, 16-bit big-endian."""
    if bit_depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if bit_depth == 8:
        return bytes(samples)
    out, acc, n = bytearray(), 0, 0
    for s in samples:
        acc = (acc << bit_depth) | s
        n += bit_depth
        if n == 8:
            out.append(acc)
            acc, n = 0, 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def filter_row(kind, row, prev, bpp):
    out = bytearray([kind])
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((x - pred) & 0xFF)
    return bytes(out)


def image_data(width, height, samples_per_pixel, bit_depth, pixel, interlaced):
    """Filtered scanlines; row filter = row number % 5 within each pass (all five used)."""
    bpp = max(1, samples_per_pixel * bit_depth // 8)
    passes = ADAM7 if interlaced else [(0, 0, 1, 1)]
    raw = bytearray()
    for x0, y0, dx, dy in passes:
        xs, ys = range(x0, width, dx), range(y0, height, dy)
        if not xs or not ys:
            continue
        prev = None
        for n, y in enumerate(ys):
            row = pack_row([s for x in xs for s in pixel(x, y)], bit_depth)
            prev = prev or bytes(len(row))
            raw += filter_row(n % 5, row, prev, bpp)
            prev = row
    return zlib.compress(bytes(raw), 9)


def png(width, height, color_type, bit_depth, pixel, interlaced=False, before=(), after=()):
    samples = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, int(interlaced))
    data = image_data(width, height, samples, bit_depth, pixel, interlaced)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + b"".join(before) +
            chunk(b"IDAT", data) + b"".join(after) + chunk(b"IEND", b""))


def tEXt(key, text):
    return chunk(b"tEXt", key.encode("latin-1") + b"\0" + text.encode("latin-1"))


def zTXt(key, text_bytes):
    return chunk(b"zTXt", key.encode("latin-1") + b"\0\0" + zlib.compress(text_bytes, 9))


def iTXt(key, text, compressed=False, lang=b"", translated=b""):
    body = text.encode("utf-8")
    if compressed:
        body = zlib.compress(body, 9)
    return chunk(b"iTXt", key.encode("latin-1") + b"\0" + bytes([int(compressed), 0]) + lang +
                 b"\0" + translated + b"\0" + body)


# The same formulas as the test's.
def sample16(x, y, c):
    return (x * 7919 + y * 104729 + c * 31337 + 12345) & 0xFFFF


PALETTE = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (10, 20, 30)]
PALETTE_ALPHA = [0, 128, 255]  # tRNS: entries 3 and 4 stay opaque

PROMPT = '{"3": {"class_type": "KSampler", "inputs": {"seed": 42, "steps": 20}}}'
WORKFLOW = '{"nodes": [{"id": 3, "type": "KSampler"}], "links": [], "version": 0.4}'
PARAMETERS = "a cat on a mat, \u732b\nNegative prompt: blurry\nSteps: 20, Sampler: Euler a"


def main():
    files = {
        # 4-bit palette, 7 wide (rows end mid-byte), 3 of 5 entries with alpha.
        "palette_trns_4bit.png": png(
            7, 5, 3, 4, lambda x, y: [(x + 2 * y) % 5],
            before=[chunk(b"PLTE", b"".join(bytes(p) for p in PALETTE)),
                    chunk(b"tRNS", bytes(PALETTE_ALPHA))]),
        # 2-bit grey, value 2 transparent through tRNS: grey + alpha once read.
        "grey_trns_2bit.png": png(
            6, 3, 0, 2, lambda x, y: [(x + y) % 4], before=[chunk(b"tRNS", struct.pack(">H", 2))]),
        "rgb16.png": png(5, 3, 2, 16, lambda x, y: [sample16(x, y, c) for c in range(3)]),
        # Interlaced: 11 x 9 leaves no Adam7 pass empty.
        "rgba16_adam7.png": png(11, 9, 6, 16, lambda x, y: [sample16(x, y, c) for c in range(4)],
                                interlaced=True),
        "grey1_adam7.png": png(10, 9, 0, 1, lambda x, y: [int((x * 3 + y * 5) % 7 < 3)],
                               interlaced=True),
        # What ComfyUI (tEXt "prompt", "workflow") and A1111/Forge ("parameters") write, one of
        # each chunk type, a Latin-1 tEXt, and a tEXt after the image data.
        "text_chunks.png": png(
            3, 2, 2, 8, lambda x, y: [x * 80, y * 100, 7],
            before=[tEXt("prompt", PROMPT), zTXt("workflow", WORKFLOW.encode()),
                    iTXt("parameters", PARAMETERS),
                    iTXt("Comment", "compressed iTXt " * 8, compressed=True, lang=b"en",
                         translated=b"Kommentar"),
                    tEXt("Author", "Zo\u00eb")],
            after=[tEXt("after", "written after the image data")]),
        # 100 MB of "a" in a ~100 KB zTXt: refused by the 8 MB cap on one text chunk.
        "ztxt_bomb.png": png(1, 1, 0, 8, lambda x, y: [200],
                             before=[zTXt("workflow", b"a" * (100 << 20))]),
        # A compressed iTXt just over the 8 MB cap (9 MB).
        "itxt_over_cap.png": png(1, 1, 0, 8, lambda x, y: [200],
                                 before=[iTXt("parameters", "b" * (9 << 20), compressed=True)]),
    }
    for name, data in files.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
