#!/usr/bin/env python3
"""Generates the committed input files of workloads/bfs.yaml (deterministic; no dependencies).

A directed random graph of N vertices in CSR form with skewed out-degrees (1..32, mean ~8.75:
degree = 1 + floor(31 * u^3)) and uniformly random targets, plus a BFS state from vertex 0 that
has been expanded up to level CUR: level[v] = its BFS level if <= CUR, else -1. One launch of the
bfs kernel then expands level CUR (the largest frontier whose next level is still mostly
unvisited). Writes, next to this script:
  bfs_row_ptr.bin  u32[N + 1]   bfs_cols.bin  u32[M]   bfs_level.bin  s32[N]
and prints N, M and CUR for bfs.yaml.
"""
import os
import struct

N = 4096
CUR = 4
MASK = (1 << 64) - 1


def splitmix64(seed):
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def main():
    rng = splitmix64(2024)
    row_ptr, cols = [0], []
    for _ in range(N):
        u = (next(rng) >> 11) * 2.0**-53
        deg = 1 + int(31 * u**3)
        cols.extend(next(rng) % N for _ in range(deg))
        row_ptr.append(len(cols))
    level = [-1] * N
    level[0] = 0
    frontier = [0]
    for lv in range(CUR):
        nxt = []
        for v in frontier:
            for u in cols[row_ptr[v]:row_ptr[v + 1]]:
                if level[u] == -1:
                    level[u] = lv + 1
                    nxt.append(u)
        frontier = nxt
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "bfs_row_ptr.bin"), "wb") as f:
        f.write(struct.pack("<%dI" % len(row_ptr), *row_ptr))
    with open(os.path.join(here, "bfs_cols.bin"), "wb") as f:
        f.write(struct.pack("<%dI" % len(cols), *cols))
    with open(os.path.join(here, "bfs_level.bin"), "wb") as f:
        f.write(struct.pack("<%di" % N, *level))
    sizes = [sum(1 for x in level if x == k) for k in range(CUR + 1)]
    print("n=%d m=%d cur=%d level sizes=%s unvisited=%d" % (N, len(cols), CUR, sizes,
                                                            level.count(-1)))


if __name__ == "__main__":
    main()
