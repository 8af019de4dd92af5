// multi_launch: one generation of a 1D integer automaton, run by an application host loop over
// several launches with the two state arrays swapped (workloads/stress/apps/multi_launch.yaml).
// Cell i reads itself and its two neighbours (periodic: i-1 and i+1 mod n) and takes one of three
// data-dependent paths:
//   v odd:             t = v, then (l & 7) + 1 Collatz steps (t = t odd ? 3t + 1 : t / 2)
//   v even and l > r:  t = v ^ (l >> 3) ^ (r << 5)
//   else:              t = v + r * 2654435761 + gen
// then out[i] = t ^ (t >> 15) (u32 arithmetic, wrapping), and the path's counter
// counts[gen * 3 + path] is incremented with an atomicAdd aggregated per warp (one atomic by the
// first active lane of each path group, __activemask / __popc).
// Exercises: many CTAs, divergence within warps (three paths, data-dependent loop trip counts),
// global atomics, integer multiply/shift/xor, state that flows from launch to launch.
// Launch: 1D grid covering n cells, any 1D block.
extern "C" __global__ void multi_launch(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                        unsigned* __restrict__ counts, int n, int gen) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned v = in[i];
  const unsigned l = in[i == 0 ? n - 1 : i - 1];
  const unsigned r = in[i == n - 1 ? 0 : i + 1];
  unsigned t;
  int path;
  if (v & 1u) {
    t = v;
    const int steps = (int)(l & 7u) + 1;
    for (int s = 0; s < steps; ++s) t = (t & 1u) ? 3u * t + 1u : t >> 1;
    path = 0;
  } else if (l > r) {
    t = v ^ (l >> 3) ^ (r << 5);
    path = 1;
  } else {
    t = v + r * 2654435761u + (unsigned)gen;
    path = 2;
  }
  out[i] = t ^ (t >> 15);
  // Warp-aggregated count: the lanes on the same path elect their lowest lane.
  const unsigned active = __activemask();
  const unsigned same = __match_any_sync(active, path);
  if ((threadIdx.x & 31) == __ffs(same) - 1) atomicAdd(&counts[gen * 3 + path], __popc(same));
}
