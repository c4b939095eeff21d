#!/usr/bin/env python3
"""Writes the binary seed inputs of two fuzz targets and the deeply nested seeds of
fuzz_tuning_file; the other text seeds are kept as they are in corpus/. Run it again after changing an input layout: python3 tests/fuzz/make_seeds.py

corpus/fuzz_c_api/: in the byte layout fuzz_c_api.cpp's LLVMFuzzerTestOneInput reads, where
every field is a mode byte and here always the mode that takes the value as it is (raw, little
endian), so each seed reads as the call it makes.
corpus/fuzz_cache_entry/: program cache entries as BinaryCache::format_entry writes them
(src/binary_cache.cpp), valid and damaged, under fuzz_cache_entry.cpp's fixed key or under a
key of their own (the first byte gives its length), and one whose key and binary are 85,000
brackets.
corpus/fuzz_tuning_file/deep_*: tuning files nested at, one past and far past the 64 levels
the JSON check accepts (src/support/json_text.hpp); 85,000 levels crashed every reader."""
import os
import struct

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

ROW, COL = 101, 102
N, T, C = 111, 112, 113
SMALL_BLOCKED = "TILE_M=8,TILE_N=8,TILE_K=4,ITEM_M=4,ITEM_N=4,VEC=4"
KERNELS = [None, "", "auto", "base", "row", "private", "tile", "coarsened",
           "vectorized:TILE_M=8,TILE_N=8,TILE_K=4,ITEM_M=2,ITEM_N=2,VEC=2",
           "blocked:" + SMALL_BLOCKED, "tile:TILE=4", "coarsened:TILE=8,ITEM=2",
           "base:WG_X=4,WG_Y=2", "nope", "tile:NOPE=1", "tile:TILE=0", "tile:TILE", "tensorcore",
           " blocked : TILE_M = 8 , TILE_N=8,TILE_K=4,ITEM_M=4,ITEM_N=4,VEC=1 ", "blocked:VEC=3"]


def i32(v):
    return bytes([255]) + struct.pack("<i", v)


def i64(v):
    return bytes([255]) + struct.pack("<q", v)


def u64(v):
    return bytes([255]) + struct.pack("<Q", v % (1 << 64))


def f32(v):
    return bytes([255]) + struct.pack("<f", v)


def sub(elements):
    """A sub-buffer of that many floats (mode 208+: 1 + u16 % 4096)."""
    return bytes([0, 255]) + struct.pack("<H", elements - 1)


NULL_BUFFER = bytes([240, 0])
FOREIGN_BUFFER = bytes([250, 0])


def seed(m, n, k, lda, ldb, ldc, layout=ROW, ta=N, tb=N, offsets=(0, 0, 0), alpha=1.0,
         beta=0.0, precision=0, kernel=None, buffers=None, queue=0, event=True, host=True,
         buffers_path=True, host_nulls=0):
    out = bytes([0])  # a real context
    out += bytes([{0: 0, 1: 224, 2: 236}[precision]])
    out += i32(layout) + i32(ta) + i32(tb)
    out += i64(m) + i64(n) + i64(k) + i64(lda) + i64(ldb) + i64(ldc)
    out += b"".join(u64(o) for o in offsets)
    out += f32(alpha) + f32(beta)
    out += bytes([(0 if buffers_path else 1) | (2 if host else 0)])
    if kernel in KERNELS:
        out += bytes([KERNELS.index(kernel)])
    else:
        out += bytes([255, len(kernel)]) + kernel.encode()
    if buffers_path:
        out += b"".join(buffers)
        out += bytes([queue, 1 if event else 0])
    if host:
        out += bytes([232 | host_nulls if host_nulls else 0])
    return out


def packed(m, n, k, **kw):
    """Row-major, no transposes, buffers exactly as large as the problem needs."""
    off = kw.get("offsets", (0, 0, 0))
    sizes = (off[0] + m * k, off[1] + k * n, off[2] + m * n)
    if "buffers" not in kw:
        kw["buffers"] = [sub(s) for s in sizes]
    return seed(m, n, k, k, n, n, **kw)


# The seeds use few kernels (auto in fp32, tf32 and 3xtf32, tile:TILE=4, a small vectorized,
# coarsened:TILE=8,ITEM=2): each kernel variant is a program build, a few seconds in the
# fuzzing process on a cold PoCL cache.
SEEDS = {
    "packed_4x4x4_auto": packed(4, 4, 4),
    "packed_5x3x7_tile4_beta": packed(5, 3, 7, kernel="tile:TILE=4", alpha=0.5, beta=-1.0),
    "packed_3x9x2_vectorized": packed(3, 9, 2, kernel=KERNELS[8], beta=2.0),
    "colmajor_transposed_padded_offsets": seed(
        6, 5, 4, lda=6, ldb=9, ldc=8, layout=COL, ta=T, tb=C, offsets=(3, 5, 7),
        alpha=-2.5, beta=0.25,
        buffers=[sub(3 + 3 * 6 + 4 + 1), sub(5 + 4 * 9 + 5), sub(7 + 4 * 8 + 6)]),
    "rowmajor_transb_coarsened_overrides": seed(
        7, 6, 5, lda=5, ldb=5, ldc=6, tb=T, kernel="coarsened:TILE=8,ITEM=2",
        buffers=[sub(35), sub(30), sub(42)]),
    "tf32_blocked": packed(4, 8, 16, kernel="blocked:" + SMALL_BLOCKED, precision=1),
    "3xtf32_auto": packed(8, 4, 4, precision=2, beta=1.0),
    "kernel_text_from_input": packed(2, 2, 2, kernel=" tile : TILE = +4 "),
    "kernel_text_malformed": packed(2, 2, 2, kernel="tile:TILE=x,,"),
    "kernel_unknown": packed(2, 2, 2, kernel="nope"),
    "c_too_small_by_one": packed(4, 4, 4, buffers=[sub(16), sub(16), sub(15)]),
    "lda_below_k": seed(4, 4, 4, lda=3, ldb=4, ldc=4, buffers=[sub(16)] * 3),
    "m_above_int_max": seed(2**31, 1, 1, lda=1, ldb=1, ldc=1, buffers=[sub(16)] * 3),
    "a_offset_size_max": packed(4, 4, 4, offsets=(2**64 - 1, 0, 0), buffers=[sub(16)] * 3),
    "null_buffers_foreign_queue": packed(
        4, 4, 4, buffers=[NULL_BUFFER, FOREIGN_BUFFER, sub(16)], queue=250),
    "invalid_layout": seed(4, 4, 4, 4, 4, 4, layout=0, buffers=[sub(16)] * 3),
    "host_null_c": packed(4, 4, 4, buffers_path=False, host_nulls=4),
    # The byte count of C wraps 2^64: (2^62 - 16 + 16) * 4 = 2^64. A library that computes
    # the size check in 64 bits sees 0 bytes and writes 64 bytes before C.
    "c_offset_wraps_2_64": packed(4, 4, 4, offsets=(0, 0, 2**62 - 16),
                                  buffers=[sub(16)] * 3, host=False),
    "b_offset_wraps_2_64": packed(4, 4, 4, offsets=(0, 2**63 - 8, 0),
                                  buffers=[sub(16)] * 3, host=False),
}

# fuzz_cache_entry

KEY = ("Portable Computing Language | OpenCL 3.0 PoCL 3.1 | pthread-skylake-avx512 | 3.1 | "
       "-D TILE=16 -D ITEM=4 -cl-mad-enable | source 0123456789abcdef")  # its kKey


def fnv1a(data):
    h = 1469598103934665603
    for c in data:
        h = ((h ^ c) * 1099511628211) % (1 << 64)
    return h


def entry(key, binary, size=None, checksum=None, tag=b"clgemm-binary-cache 2"):
    key = key.encode() if isinstance(key, str) else key
    size = str(len(binary)).encode() if size is None else size
    checksum = b"%016x" % fnv1a(key + b"\n" + binary) if checksum is None else checksum
    return tag + b"\n" + key + b"\n" + size + b"\n" + checksum + b"\n" + binary


def own_key(key, file):
    key = key.encode() if isinstance(key, str) else key
    return bytes([len(key)]) + key + file


BINARY = b"\x7fELF\x02\x01\x01\x00 a program binary \x00\xff\n\r\n end"
SHORT_KEY = "dev | 1.2 | -D TILE=8 | source 00ff"
CACHE_SEEDS = {
    "valid_fixed_key": entry(KEY, BINARY),
    "valid_own_key": own_key(SHORT_KEY, entry(SHORT_KEY, BINARY)),
    "valid_one_byte": own_key("k", entry("k", b"\0")),
    "size_with_leading_zeros": own_key(SHORT_KEY, entry(SHORT_KEY, BINARY, size=b"00%d" % len(BINARY))),
    "size_too_large": own_key(SHORT_KEY, entry(SHORT_KEY, BINARY, size=b"99999999999")),
    "size_zero": own_key(SHORT_KEY, entry(SHORT_KEY, b"", size=b"0")),
    "wrong_checksum": entry(KEY, BINARY, checksum=b"0123456789abcdef"),
    "old_format_tag": entry(KEY, BINARY, tag=b"clgemm-binary-cache 1"),
    "truncated": entry(KEY, BINARY)[:-3],
    "key_with_carriage_return": own_key("a\rb", entry("a\rb", BINARY)),
    "header_only": b"clgemm-binary-cache 2\n",
    "deeply_nested_brackets": own_key(
        "[" * 200, entry("[" * 200, b"[" * 85000 + b"]" * 85000)),
}

# fuzz_tuning_file: nesting in an entry's options; the file and its entries array are two levels.


def nested_tuning_file(options_depth):
    return (b'{"format": 1, "entries": [{"device": "D", "shape_class": "small", "kernel": "tile", '
            b'"options": ' + b"[" * options_depth + b"]" * options_depth + b"}]}")


TUNING_SEEDS = {
    "deep_at_the_limit.json": nested_tuning_file(61),
    "deep_one_past_the_limit.json": nested_tuning_file(62),
    "deep_85000_levels.json": nested_tuning_file(85000),
}

if __name__ == "__main__":
    for target, seeds in (("fuzz_c_api", SEEDS), ("fuzz_cache_entry", CACHE_SEEDS),
                          ("fuzz_tuning_file", TUNING_SEEDS)):
        out = os.path.join(CORPUS, target)
        os.makedirs(out, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
        print(f"wrote {len(seeds)} seeds to {out}")
