#!/usr/bin/env python3
"""Inputs and expected outputs of half_ops (tests/cli/frontend_kernels.sh): the f16 kernel of
tests/unit/ptx_data/ptx_half.cu, computed on the host with Python's own binary16 packing
(struct 'e': round to nearest even from a double), independently of gpurf. Each result's exact
value is a double here (sums and products of f16 values of these ranges need at most 40 bits).
Run from this folder: python3 gen_half.py (writes half_ops_*.bin)."""
import struct

N = 512

def inputs(count, seed, lo, hi):
    # a 64-bit LCG (Knuth's MMIX constants), the high 32 bits mapped onto [lo, hi]
    x, out = seed, []
    for _ in range(count):
        x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        out.append(lo + (x >> 32) % (hi - lo + 1))
    return out

def val(bits):
    return struct.unpack("<e", struct.pack("<H", bits))[0]

def f16(x):  # round to nearest even
    return struct.unpack("<H", struct.pack("<e", x))[0]

def f16_rz(x):
    h = f16(x)
    return h - 1 if abs(val(h)) > abs(x) else h

def write(name, fmt, values):
    with open(name, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))

a = inputs(N, 1, 0x3000, 0x5000)   # 0.125 .. 32
b = inputs(N, 2, 0xB000, 0xD000)   # -0.125 .. -32
c = inputs(N, 3, 0x0000, 0x3C00)   # 0 .. 1, subnormals included
out, fout = [], []
for i in range(N):
    x, y, z = val(a[i]), val(b[i]), val(c[i])
    out += [f16(x + y), f16(x * y), f16(x * y + z), a[i] ^ 0x8000,
            a[i] if x > y else b[i], f16_rz(x * 3.0)]
    fout.append(x + (1000.0 if x < y else 0.0))
write("half_ops_a.bin", "H", a)
write("half_ops_b.bin", "H", b)
write("half_ops_c.bin", "H", c)
write("half_ops_expected_out.bin", "H", out)
write("half_ops_expected_fout.bin", "f", fout)
