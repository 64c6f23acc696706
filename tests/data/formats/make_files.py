#!/usr/bin/env python3
"""Writes the WAV and PNG files the codec's format tests decode, then reads
each back with Python's own readers (the wave module; for PNG a reader
written here with struct and zlib.crc32) and writes what they report to
expected.txt, one `file key value` per line.

The WAV files come from the wave module, except info_odd.wav: the wave
module writes no pad byte after a chunk of odd length (RIFF requires one),
so that file is written here by hand, with the pad bytes, and read back with
the wave module. odd_unpadded.wav is the wave module's own output for odd
data, kept to show the codec rejects the missing pad byte.

Run from this folder: python3 make_files.py"""
import math
import struct
import wave
import zlib


def write_wav(name, channels, width, rate, frames):
    with wave.open(name, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(frames)


def tone(n, channels, width):
    out = bytearray()
    for i in range(n):
        for c in range(channels):
            v = math.sin(2 * math.pi * (i + 7 * c) / 16)
            if width == 1:
                out += struct.pack("<B", int(128 + 100 * v))
            else:
                out += struct.pack("<h", int(20000 * v))
    return bytes(out)


def riff_chunk(cid, data):
    return cid + struct.pack("<I", len(data)) + data + (b"\0" if len(data) % 2 else b"")


def write_info_odd(name):
    frames = tone(7, 1, 1)  # 7 bytes: odd, padded
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    info = b"INFO" + riff_chunk(b"INAM", b"tone\0")  # 5 bytes: odd, padded
    body = b"WAVE" + riff_chunk(b"fmt ", fmt) + riff_chunk(b"LIST", info) + riff_chunk(b"data", frames)
    with open(name, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", len(body)) + body)


def png_chunk(ctype, data):
    return struct.pack(">I", len(data)) + ctype + data + struct.pack(">I", zlib.crc32(ctype + data))


def write_png(name, width, height, depth, colour, rows, extra=(), split_idat=1):
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    raw = b"".join(b"\0" + r for r in rows)  # filter type 0 on every row
    z = zlib.compress(raw, 9)
    parts = [z[i * len(z) // split_idat:(i + 1) * len(z) // split_idat] for i in range(split_idat)]
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
    for ctype, data in extra:
        out += png_chunk(ctype, data)
    for p in parts:
        out += png_chunk(b"IDAT", p)
    out += png_chunk(b"IEND", b"")
    with open(name, "wb") as f:
        f.write(out)


def report_wav(name, lines):
    with wave.open(name, "rb") as w:
        frames = w.readframes(w.getnframes())
        lines += [f"{name} channels {w.getnchannels()}", f"{name} sample_width {w.getsampwidth()}",
                  f"{name} frame_rate {w.getframerate()}", f"{name} frames {w.getnframes()}",
                  f"{name} data_bytes {len(frames)}", f"{name} data_crc32 {zlib.crc32(frames)}"]


def report_png(name, lines):
    b = open(name, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n"
    i, types = 8, []
    while i < len(b):
        (n,) = struct.unpack(">I", b[i:i + 4])
        ctype, data = b[i + 4:i + 8], b[i + 8:i + 8 + n]
        (crc,) = struct.unpack(">I", b[i + 8 + n:i + 12 + n])
        assert crc == zlib.crc32(ctype + data)
        types.append(ctype.decode())
        lines.append(f"{name} crc{len(types) - 1} {crc}")
        if ctype == b"IHDR":
            w, h, d, c, cm, fm, im = struct.unpack(">IIBBBBB", data)
            lines += [f"{name} width {w}", f"{name} height {h}", f"{name} bit_depth {d}", f"{name} colour_type {c}",
                      f"{name} compression_method {cm}", f"{name} filter_method {fm}",
                      f"{name} interlace_method {im}"]
        i += 12 + n
    lines.append(f"{name} chunks {','.join(types)}")


write_wav("mono16.wav", 1, 2, 8000, tone(50, 1, 2))
write_wav("stereo8.wav", 2, 1, 11025, tone(33, 2, 1))
write_info_odd("info_odd.wav")
write_wav("odd_unpadded.wav", 1, 1, 8000, tone(7, 1, 1))

write_png("gray8.png", 5, 3, 8, 0, [bytes(range(10 * y, 10 * y + 5)) for y in range(3)])
palette = bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255])
write_png("palette4.png", 4, 4, 4, 3, [bytes([0x01, 0x23]) for _ in range(4)],
          extra=[(b"PLTE", palette), (b"tEXt", b"Comment\0written by make_files.py")])
write_png("rgb16.png", 2, 2, 16, 2, [struct.pack(">6H", *range(6 * y, 6 * y + 6)) for y in range(2)], split_idat=2)

lines = []
for n in ["mono16.wav", "stereo8.wav", "info_odd.wav", "odd_unpadded.wav"]:
    report_wav(n, lines)
for n in ["gray8.png", "palette4.png", "rgb16.png"]:
    report_png(n, lines)
with open("expected.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
