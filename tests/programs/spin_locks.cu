// CTAs that wait for each other through global memory, every CTA resident (the grid sized by
// the occupancy API, as such programs size it): a spin lock (atomicCAS, __threadfence, a
// volatile read-modify-write) and a ticket lock around critical sections, a producer/consumer
// handoff whose consumer comes first in grid order (it spins on a volatile flag the next CTA
// raises), and a work queue drained by warps with atomicAdd. Also run fast-forwarded
// (programs.sh): the CTAs the device holds run together there too.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

#include "check.h"

__device__ int spin;
__device__ unsigned ticket_next, ticket_serving;
__device__ unsigned long long shared_sum;
__device__ unsigned order_log[4096];
__device__ unsigned order_pos;

// One thread a CTA takes the spin lock and does a non-atomic read-modify-write.
__global__ void spin_lock_k(const int* vals, int n, int rounds) {
  if (threadIdx.x != 0) return;
  for (int r = 0; r < rounds; ++r) {
    while (atomicCAS(&spin, 0, 1) != 0) {
    }
    __threadfence();
    volatile unsigned long long* s = &shared_sum;
    *s = *s + vals[(blockIdx.x * rounds + r) % n];
    order_log[order_pos] = blockIdx.x;
    order_pos = order_pos + 1;
    __threadfence();
    atomicExch(&spin, 0);
  }
}
// Ticket lock: CTAs are served in ticket order; warp 0 lane 0 of each CTA.
__global__ void ticket_lock_k(unsigned* served_as, int rounds) {
  if (threadIdx.x != 0) return;
  for (int r = 0; r < rounds; ++r) {
    unsigned my = atomicAdd(&ticket_next, 1u);
    while (*(volatile unsigned*)&ticket_serving != my) {
    }
    __threadfence();
    volatile unsigned long long* s = &shared_sum;
    *s = *s * 3 + my;
    served_as[my] = blockIdx.x;
    __threadfence();
    atomicAdd(&ticket_serving, 1u);
  }
}
// Producer/consumer: CTA b (odd) produces a block of data for CTA b-1, which waits for its
// flag: the consumer comes first in grid order (every CTA resident, as on the device).
__global__ void handoff_k(int* buf, volatile int* flags, int* out, int per) {
  int b = blockIdx.x;
  if (b % 2 == 1) {
    for (int i = threadIdx.x; i < per; i += blockDim.x) buf[b * per + i] = b * 1000 + i * i;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) flags[b] = 1;
  } else {
    if (threadIdx.x == 0)
      while (flags[b + 1] == 0) {
      }
    __syncthreads();
    __threadfence();
    for (int i = threadIdx.x; i < per; i += blockDim.x)
      out[(b / 2) * per + i] = ((volatile int*)buf)[(b + 1) * per + i] + 1;
  }
}
// A work queue: each warp takes items with one atomicAdd by lane 0 and shuffles the index.
__global__ void queue_k(unsigned* head, const int* items, int n, unsigned long long* out,
                        unsigned* who) {
  int lane = threadIdx.x & 31;
  for (;;) {
    unsigned base = 0;
    if (lane == 0) base = atomicAdd(head, 32u);
    base = __shfl_sync(0xffffffffu, base, 0);
    if (base >= (unsigned)n) break;
    unsigned i = base + lane;
    if (i < (unsigned)n) {
      unsigned long long v = items[i];
      for (int k = 0; k < (items[i] & 15); ++k)
        v = v * 6364136223846793005ull + 1442695040888963407ull;
      out[i] = v;
      atomicAdd(&who[i], 1u);
    }
  }
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, spin_lock_k, 64, 0));
  int per_sm_handoff = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_handoff, handoff_k, 64, 0));
  if (per_sm_handoff < per_sm) per_sm = per_sm_handoff;
  // Every CTA resident at once (the handoff's consumer waits for a CTA after it), at most 64;
  // an even count (the handoff pairs them).
  int ctas = prop.multiProcessorCount * per_sm;
  if (ctas > 64) ctas = 64;
  ctas &= ~1;
  printf("%d SMs, %d CTAs resident each, %d CTAs\n", prop.multiProcessorCount, per_sm, ctas);
  int bad = 0;
  const int n = 97, rounds = 3;
  std::vector<int> vals(n);
  for (int i = 0; i < n; ++i) vals[i] = i * i - 50;
  int* dvals;
  CHECK(cudaMalloc(&dvals, n * sizeof(int)));
  CHECK(cudaMemcpy(dvals, vals.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  spin_lock_k<<<ctas, 64>>>(dvals, n, rounds);
  CHECK(cudaDeviceSynchronize());
  unsigned long long sum;
  unsigned pos;
  CHECK(cudaMemcpyFromSymbol(&sum, shared_sum, sizeof sum));
  CHECK(cudaMemcpyFromSymbol(&pos, order_pos, sizeof pos));
  unsigned long long want = 0;
  for (int b = 0; b < ctas; ++b)
    for (int r = 0; r < rounds; ++r)
      want += (unsigned long long)(long long)vals[(b * rounds + r) % n];
  if (sum != want || pos != unsigned(ctas * rounds)) {
    bad++;
    printf("spin lock: sum %llu want %llu, %u entries\n", sum, want, pos);
  }
  std::vector<unsigned> log(pos);
  CHECK(cudaMemcpyFromSymbol(log.data(), order_log, pos * sizeof(unsigned)));
  std::vector<int> count(ctas);
  for (unsigned k = 0; k < pos; ++k)
    if (log[k] < unsigned(ctas)) count[log[k]]++;
  for (int b = 0; b < ctas; ++b)
    if (count[b] != rounds && bad++ < 5)
      printf("spin lock: CTA %d entered %d times\n", b, count[b]);

  unsigned long long zero = 0;
  CHECK(cudaMemcpyToSymbol(shared_sum, &zero, sizeof zero));
  unsigned* dserved;
  CHECK(cudaMalloc(&dserved, ctas * rounds * sizeof(unsigned)));
  ticket_lock_k<<<ctas, 32>>>(dserved, rounds);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpyFromSymbol(&sum, shared_sum, sizeof sum));
  want = 0;
  for (unsigned t = 0; t < unsigned(ctas * rounds); ++t) want = want * 3 + t;
  if (sum != want) {
    bad++;
    printf("ticket lock: %llu want %llu\n", sum, want);
  }
  std::vector<unsigned> served(ctas * rounds);
  CHECK(
      cudaMemcpy(served.data(), dserved, served.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<int> cnt2(ctas);
  for (unsigned v : served)
    if (v < unsigned(ctas)) cnt2[v]++;
  for (int b = 0; b < ctas; ++b)
    if (cnt2[b] != rounds && bad++ < 5) printf("ticket: CTA %d served %d\n", b, cnt2[b]);

  const int per = 300;
  int *dbuf, *dflags, *dout;
  CHECK(cudaMalloc(&dbuf, ctas * per * sizeof(int)));
  CHECK(cudaMalloc(&dflags, ctas * sizeof(int)));
  CHECK(cudaMalloc(&dout, ctas / 2 * per * sizeof(int)));
  for (int rep = 0; rep < 2; ++rep) {
    CHECK(cudaMemset(dflags, 0, ctas * sizeof(int)));
    handoff_k<<<ctas, 64>>>(dbuf, dflags, dout, per);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> out(ctas / 2 * per);
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int c = 0; c < ctas / 2; ++c)
      for (int i = 0; i < per; ++i)
        if (out[c * per + i] != (2 * c + 1) * 1000 + i * i + 1 && bad++ < 5)
          printf("handoff %d %d: %d\n", c, i, out[c * per + i]);
  }

  const int items = 20000;
  std::vector<int> hitems(items);
  for (int i = 0; i < items; ++i) hitems[i] = (i * 2654435761u) >> 7;
  int* ditems;
  unsigned *dhead, *dwho;
  unsigned long long* dq;
  CHECK(cudaMalloc(&ditems, items * sizeof(int)));
  CHECK(cudaMalloc(&dhead, sizeof(unsigned)));
  CHECK(cudaMalloc(&dwho, items * sizeof(unsigned)));
  CHECK(cudaMalloc(&dq, items * sizeof(unsigned long long)));
  CHECK(cudaMemcpy(ditems, hitems.data(), items * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dhead, 0, sizeof(unsigned)));
  CHECK(cudaMemset(dwho, 0, items * sizeof(unsigned)));
  queue_k<<<40, 128>>>(dhead, ditems, items, dq, dwho);
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned long long> q(items);
  std::vector<unsigned> who(items);
  CHECK(cudaMemcpy(q.data(), dq, items * 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(who.data(), dwho, items * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < items; ++i) {
    unsigned long long v = hitems[i];
    for (int k = 0; k < (hitems[i] & 15); ++k)
      v = v * 6364136223846793005ull + 1442695040888963407ull;
    if ((q[i] != v || who[i] != 1) && bad++ < 5)
      printf("queue %d: %llu (%u times)\n", i, q[i], who[i]);
  }
  return finish(bad);
}
