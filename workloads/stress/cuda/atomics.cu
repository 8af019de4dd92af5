// atomics: many CTAs race on global words that share their cache lines with plain stores of
// other CTAs, so that a write-back carrying a line's older bytes, stored late by a memory,
// would undo an atomic's result (docs/vp.md "Timed writes"). For thread i < n, h = i * 2654435761:
//   atomicAdd(&lines[32 * ((h >> 8) % nlines) + (h & 15)], (i & 7) + 1)      contention
//   lines[32 * (i / 16) + 16 + i % 16] = 3 * i + 1       for i < 16 * nlines (plain stores)
//   slots[atomicAdd(ticket, 1)] = i + 1                  a ticket per thread: a permutation
//   atomicMax(vmax, h >> 1), atomicMin(vmin, h >> 1), atomicOr(&bits[i % 64], 1 << (i / 64 % 32))
//   a compare-and-swap loop adding 2 to lines[32 * ((h >> 4) % nlines) + 15]
// Every result is independent of the order the atomics land in. Launch: any 1D grid and block.
extern "C" __global__ void atomics(int* lines, unsigned* ticket, int* slots, int* vmax, int* vmin,
                        unsigned* bits, int n, int nlines) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned h = unsigned(i) * 2654435761u;
  atomicAdd(&lines[32 * ((h >> 8) % nlines) + (h & 15)], (i & 7) + 1);
  if (i < 16 * nlines) lines[32 * (i / 16) + 16 + i % 16] = 3 * i + 1;
  slots[atomicAdd(ticket, 1u)] = i + 1;
  atomicMax(vmax, int(h >> 1));
  atomicMin(vmin, int(h >> 1));
  atomicOr(&bits[i % 64], 1u << (i / 64 % 32));
  int* c = &lines[32 * ((h >> 4) % nlines) + 15];
  int old = *c, assumed;
  do {
    assumed = old;
    old = atomicCAS(c, assumed, assumed + 2);
  } while (old != assumed);
}
