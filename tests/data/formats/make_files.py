#!/usr/bin/env python3
"""Writes the WAV, PNG, ZIP and ELF files the codec's format tests decode,
then reads each back with readers the codec has no part in (the wave and
zipfile modules; for PNG a reader written here with struct and zlib.crc32;
for ELF the readelf program of binutils) and writes what they report to
expected.txt, one `file key value` per line.

The WAV files come from the wave module, except info_odd.wav: the wave
module writes no pad byte after a chunk of odd length (RIFF requires one),
so that file is written here by hand, with the pad bytes, and read back with
the wave module. odd_unpadded.wav is the wave module's own output for odd
data, kept to show the codec rejects the missing pad byte.

The ZIP files come from the zipfile module, with fixed dates so that they
do not change from run to run; the ELF files are written here with struct,
one in each byte order (readelf reads either on any host).

Run from this folder: python3 make_files.py"""
import math
import re
import struct
import subprocess
import wave
import zipfile
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

def write_zip(name, members, comment=b"", compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(name, "w", compression=compression) as z:
        z.comment = comment
        for (fname, when, data, member_comment) in members:
            info = zipfile.ZipInfo(fname, date_time=when)
            info.compress_type = compression
            info.comment = member_comment
            z.writestr(info, data)


def report_zip(name, lines):
    with zipfile.ZipFile(name) as z:
        infos = z.infolist()
        lines += [f"{name} entries {len(infos)}", f"{name} comment_bytes {len(z.comment)}"]
        for i, info in enumerate(infos):
            data = z.read(info)  # checks the CRC
            y, mo, d, h, mi, sec = info.date_time
            lines += [f"{name} name{i} {info.filename}", f"{name} date{i} {y:04}-{mo:02}-{d:02}",
                      f"{name} time{i} {h:02}:{mi:02}:{sec:02}", f"{name} crc{i} {info.CRC}",
                      f"{name} method{i} {info.compress_type}", f"{name} compressed{i} {info.compress_size}",
                      f"{name} size{i} {info.file_size}", f"{name} offset{i} {info.header_offset}",
                      f"{name} data_crc{i} {zlib.crc32(data)}"]
    b = open(name, "rb").read()
    end = b.rfind(b"PK\5\6")
    (cd_size, cd_offset) = struct.unpack("<II", b[end + 12:end + 20])
    lines += [f"{name} cd_offset {cd_offset}", f"{name} cd_size {cd_size}"]


# ELF64: a header, three sections' contents, then the section header table.
def write_elf(name, order, machine):
    e = "<" if order == "lsb" else ">"
    text = bytes(range(0x90, 0x90 + 13))                  # 13 bytes
    data = struct.pack(e + "QI", 0x1122334455667788, 7)   # 12 bytes
    shstrtab = b"\0.text\0.data\0.shstrtab\0"
    names = {".text": 1, ".data": 7, ".shstrtab": 13}
    off_text = 64
    off_data = off_text + 16                             # .text aligned to 16
    off_str = off_data + len(data)
    shoff = (off_str + len(shstrtab) + 7) // 8 * 8
    body = text + bytes(off_data - off_text - len(text)) + data + shstrtab
    body += bytes(shoff - 64 - len(body))
    ident = b"\x7fELF" + bytes([2, 1 if order == "lsb" else 2, 1, 0, 0]) + bytes(7)
    header = ident + struct.pack(e + "HHIQQQIHHHHHH", 1, machine, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 4, 3)

    def sh(nm, typ, flags, off, size, align):
        return struct.pack(e + "IIQQQQIIQQ", nm, typ, flags, 0, off, size, 0, 0, align, 0)
    table = (sh(0, 0, 0, 0, 0, 0) + sh(names[".text"], 1, 6, off_text, len(text), 16) +
             sh(names[".data"], 1, 3, off_data, len(data), 4) + sh(names[".shstrtab"], 3, 0, off_str, len(shstrtab), 1))
    with open(name, "wb") as f:
        f.write(header + body + table)


def report_elf(name, lines):
    out = subprocess.run(["readelf", "-h", "-S", "-W", name], capture_output=True, text=True, check=True).stdout
    field = lambda label: re.search(r"^\s*" + re.escape(label) + r":\s*(.*)$", out, re.M).group(1).strip()
    lines += [f"{name} data {'little' if 'little' in field('Data') else 'big'}",
              f"{name} machine_name {field('Machine').replace(' ', '_')}",
              f"{name} type {field('Type').split()[0]}",
              f"{name} shoff {field('Start of section headers').split()[0]}",
              f"{name} shnum {field('Number of section headers')}",
              f"{name} shstrndx {field('Section header string table index')}"]
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", out, re.M):
        i, nm, typ, _, off, size = m.groups()
        if nm == "NULL":
            continue
        lines += [f"{name} section{i} {nm}", f"{name} section{i}_type {typ}",
                  f"{name} section{i}_offset {int(off, 16)}", f"{name} section{i}_size {int(size, 16)}"]


lines = []
for n in ["mono16.wav", "stereo8.wav", "info_odd.wav", "odd_unpadded.wav"]:
    report_wav(n, lines)
for n in ["gray8.png", "palette4.png", "rgb16.png"]:
    report_png(n, lines)
write_zip("stored.zip", [("hello.txt", (2024, 5, 17, 13, 45, 30), b"hello, zip\n", b""),
                         ("dir/", (1980, 1, 1, 0, 0, 0), b"", b""),
                         ("dir/odd.bin", (2107, 12, 31, 23, 59, 58), bytes(range(7)), b"seven bytes")],
          comment=b"written by make_files.py")
write_zip("deflated.zip", [("text.txt", (2001, 2, 3, 4, 5, 6), b"to be or not to be, " * 20, b""),
                           ("empty", (2020, 10, 20, 10, 20, 30), b"", b"")], compression=zipfile.ZIP_DEFLATED)
write_elf("lsb.elf", "lsb", 62)   # EM_X86_64
write_elf("msb.elf", "msb", 22)   # EM_S390
for n in ["stored.zip", "deflated.zip"]:
    report_zip(n, lines)
for n in ["lsb.elf", "msb.elf"]:
    report_elf(n, lines)
with open("expected.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
