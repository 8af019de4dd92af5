#!/usr/bin/env python3
"""Inputs and expected outputs of debug_loop, debug_call, sync_red, undef and half_ops (tests/cli/frontend_kernels.sh),
computed on the host from the kernels' C semantics, independently of gpurf.
Run from this folder: python3 gen_expected.py (writes *_in.bin and *_expected.bin)."""
import struct

def s8(x):
    x &= 0xFF
    return x - 0x100 if x & 0x80 else x

def s16(x):
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x

def s32(x):
    x &= 0xFFFFFFFF
    return x - 0x100000000 if x & 0x80000000 else x

def inputs(count, seed, lo, hi):
    # a 64-bit LCG (Knuth's MMIX constants), the high 32 bits mapped onto [lo, hi]
    x, out = seed, []
    for _ in range(count):
        x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        out.append(lo + (x >> 32) % (hi - lo + 1))
    return out

def write(name, values):
    with open(name, "wb") as f:
        f.write(struct.pack("<%di" % len(values), *values))

# debug_loop: n = 4000 threads of 4096 (grid 32 x 128) do work; the rest keep out's 0.
DL_N, DL_THREADS = 4000, 4096
dl_in = inputs(DL_THREADS, 7, -1000, 1000)
dl_out = []
for i, v in enumerate(dl_in):
    if i >= DL_N:
        dl_out.append(0)
        continue
    acc, last = 0, None
    for k in range((v & 15) + 1):
        step = s8(v + k * 3)
        if k == 0:
            last = step
        elif k & 1:
            acc = s16(acc + last)
        else:
            acc = s16(acc - s16(step ^ last))
        last = s8(last * 3 + 1)
    r = acc
    if v & 16:
        r = s32(r * 2 + last)
    dl_out.append(r)
write("debug_loop_in.bin", dl_in)
write("debug_loop_expected.bin", dl_out)

# sync_red: 60 CTAs of 100 threads, 11 rounds of count / and / or over each CTA.
SR_CTAS, SR_BLOCK, SR_ROUNDS = 60, 100, 11
sr_in = inputs(SR_CTAS * SR_BLOCK, 11, -400, 1200)
sr_out = []
for c in range(SR_CTAS):
    vs = sr_in[c * SR_BLOCK:(c + 1) * SR_BLOCK]
    acc = 0
    for r in range(SR_ROUNDS):
        cnt = sum(1 for v in vs if (v >> r) & 1)
        a = int(all((v & 127) != r + 3 for v in vs))
        o = int(any((v & 255) == r * 7 for v in vs))
        acc = s32(acc * 3 + cnt + (a << 12) + (o << 13))
    sr_out += [acc] * SR_BLOCK
write("sync_red_in.bin", sr_in)
write("sync_red_expected.bin", sr_out)

# undef: out[tid] = (%r3 never written: 0) + 1 + (tid + 7) for the 32 threads.
write("undef_expected.bin", [tid + 8 for tid in range(32)])

# debug_call: 3072 threads (grid 24 x 128), three calls of mix() each.
def mix(v, n):
    acc, last = 0, None
    for k in range(n):
        step = s8(v + k * 3)
        if k == 0:
            last = step
        else:
            acc = s16(acc + last)
        last = s8(last * 3 + 1)
    return s32(acc + last)

dc_in = inputs(3072, 13, -1000, 1000)
write("debug_call_in.bin", dc_in)
write("debug_call_expected.bin",
      [s32(sum(mix(v + j, (v & 7) + 1) for j in range(3))) for v in dc_in])

# half_ops: the f16 kernel of tests/unit/ptx_data/ptx_half.cu, with Python's own binary16
# packing (struct 'e': round to nearest even from a double). Each result's exact value is a
# double here (sums and products of f16 values of these ranges need at most 40 bits).
HALF_N = 512

def val(bits):
    return struct.unpack("<e", struct.pack("<H", bits))[0]

def f16(x):  # round to nearest even
    return struct.unpack("<H", struct.pack("<e", x))[0]

def f16_rz(x):
    h = f16(x)
    return h - 1 if abs(val(h)) > abs(x) else h

def write_as(name, fmt, values):
    with open(name, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))

a = inputs(HALF_N, 1, 0x3000, 0x5000)   # 0.125 .. 32
b = inputs(HALF_N, 2, 0xB000, 0xD000)   # -0.125 .. -32
c = inputs(HALF_N, 3, 0x0000, 0x3C00)   # 0 .. 1, subnormals included
out, fout = [], []
for i in range(HALF_N):
    x, y, z = val(a[i]), val(b[i]), val(c[i])
    out += [f16(x + y), f16(x * y), f16(x * y + z), a[i] ^ 0x8000,
            a[i] if x > y else b[i], f16_rz(x * 3.0)]
    fout.append(x + (1000.0 if x < y else 0.0))
write_as("half_ops_a.bin", "H", a)
write_as("half_ops_b.bin", "H", b)
write_as("half_ops_c.bin", "H", c)
write_as("half_ops_expected_out.bin", "H", out)
write_as("half_ops_expected_fout.bin", "f", fout)
