#!/usr/bin/env python3
"""Writes expected_y.bin for poly_struct.yaml: y = scale * poly(x) + bias in double, stored as
little-endian float32 (the launch file's inputs, reproduced: x = float32(-1.5 + 0.001 i))."""
import os, struct

n, scale, bias = 3000, 1.75, -0.5
c = [0.5, -1.25, 2.0, 0.75, -0.5, 0.125, 1.5, -0.25]
f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
c = [f32(v) for v in c]
out = bytearray()
for i in range(n):
    x = f32(-1.5 + 0.001 * i)
    acc = 0.0
    for k in reversed(range(8)):
        acc = acc * x + c[k]
    out += struct.pack("<f", f32(scale) * acc + f32(bias))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected_y.bin"), "wb") as f:
    f.write(out)
