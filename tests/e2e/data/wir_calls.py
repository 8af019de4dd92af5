#!/usr/bin/env python3
"""Expected outputs of wir_calls.yaml (wir_calls.cu computed on the host): writes
wir_calls_out.bin (f64) and wir_calls_iout.bin (s32) beside this file."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
x, n, block, grid = [2.0, 1.5], 6, 64, 2
out, iout = [], []
for c in range(grid):
    for tid in range(block):
        s, m = 0.0, 0
        for i in range(n):
            s += x[c] ** i
            m = m * 3 + i
        out.append(s)
        iout.append(m + tid)
with open(os.path.join(here, "wir_calls_out.bin"), "wb") as f:
    f.write(struct.pack("<%dd" % len(out), *out))
with open(os.path.join(here, "wir_calls_iout.bin"), "wb") as f:
    f.write(struct.pack("<%di" % len(iout), *iout))
