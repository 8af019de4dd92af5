// libcu++ as ordinary programs use it (built with sm_80 PTX, the one gpurf runs): cuda::atomic_ref
// at device and block scope with explicit memory orders (fetch_add/min/max/and/or/xor,
// compare_exchange loops, exchange, acquire loads and release stores), cuda::atomic in shared
// memory, cuda::std::atomic_flag as a spin lock, a block-scope counting semaphore and latch, a
// cuda::barrier with a completion function and arrive_and_drop, a multi-stage cuda::pipeline
// (producer/consumer over cuda::memcpy_async of 16-byte aligned chunks: cp.async.cg), atomic
// wait/notify between warps, cuda::std::bit functions (popcount, rotl/rotr, countl_zero,
// countr_one, bit_width, bit_ceil, bit_cast), __nanosleep, clock64 and %globaltimer.
// Every result against the host.
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/latch>
#include <cuda/pipeline>
#include <cuda/semaphore>
#include <cuda/std/bit>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

// 1. Histogram-like statistics of a key array through atomic_ref with memory orders.
struct Stats {
  unsigned long long sum;
  int min, max;
  unsigned and_all, or_all, xor_all;
  int cas_count; // incremented by a compare_exchange loop
  unsigned last; // exchange: any key, checked for membership
};

__global__ void key_stats(const int* keys, int n, Stats* s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = keys[i];
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> sum(s->sum);
  cuda::atomic_ref<int, cuda::thread_scope_device> mn(s->min), mx(s->max), cas(s->cas_count);
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> a(s->and_all), o(s->or_all), x(s->xor_all),
      last(s->last);
  sum.fetch_add((unsigned long long)(long long)k, cuda::std::memory_order_relaxed);
  mn.fetch_min(k, cuda::std::memory_order_acq_rel);
  mx.fetch_max(k, cuda::std::memory_order_seq_cst);
  a.fetch_and(~(1u << (k & 31)) | 0x0f0f0000u, cuda::std::memory_order_release);
  o.fetch_or(1u << ((k >> 3) & 31), cuda::std::memory_order_acquire);
  x.fetch_xor((unsigned)k * 2654435761u, cuda::std::memory_order_relaxed);
  if (k % 3 == 0) {
    int old = cas.load(cuda::std::memory_order_acquire);
    while (!cas.compare_exchange_weak(old, old + 1, cuda::std::memory_order_acq_rel,
                                      cuda::std::memory_order_acquire)) {
    }
  }
  last.exchange((unsigned)k, cuda::std::memory_order_acq_rel);
}

// 2. Message passing between CTAs: CTA b publishes its partial with a release store of a flag;
// the last CTA (by an acq_rel ticket) reads every partial after acquire loads.
__global__ void publish_sum(const int* keys, int n, long long* partial, int* flags, int* ticket,
                            long long* total) {
  __shared__ cuda::atomic<long long, cuda::thread_scope_block> block_sum;
  __shared__ bool last;
  if (threadIdx.x == 0) block_sum.store(0, cuda::std::memory_order_relaxed);
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    block_sum.fetch_add(keys[i], cuda::std::memory_order_relaxed);
  __syncthreads();
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = block_sum.load(cuda::std::memory_order_relaxed);
    cuda::atomic_ref<int, cuda::thread_scope_device> f(flags[blockIdx.x]);
    f.store(1, cuda::std::memory_order_release);
    cuda::atomic_ref<int, cuda::thread_scope_device> t(*ticket);
    last = t.fetch_add(1, cuda::std::memory_order_acq_rel) == (int)gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    long long s = 0;
    for (int b = 0; b < (int)gridDim.x; ++b) {
      cuda::atomic_ref<int, cuda::thread_scope_device> f(flags[b]);
      while (f.load(cuda::std::memory_order_acquire) != 1) __nanosleep(32);
      s += partial[b];
    }
    *total = s;
  }
}

// 3. A block-scope spin lock (atomic_flag), a counting semaphore bounding concurrent sections,
// a latch, and atomic wait/notify from warp 0 to the others.
__global__ void block_sync_prims(int* out, int rounds) {
  __shared__ cuda::std::atomic_flag lock;
  __shared__ int guarded;
  __shared__ cuda::atomic<int, cuda::thread_scope_block> inside, peak, go;
  __shared__ cuda::counting_semaphore<cuda::thread_scope_block, 4> sem;
  using Latch = cuda::latch<cuda::thread_scope_block>;
  __shared__ alignas(Latch) unsigned char done_storage[sizeof(Latch)]; // no default constructor
  Latch& done = *reinterpret_cast<Latch*>(done_storage);
  if (threadIdx.x == 0) {
    lock.clear();
    guarded = 0;
    inside.store(0);
    peak.store(0);
    go.store(0);
    new (&sem) cuda::counting_semaphore<cuda::thread_scope_block, 4>(3);
    new (&done) Latch(blockDim.x);
  }
  __syncthreads();
  // One lane per warp takes the lock `rounds` times (lanes of one warp contending for a
  // spin lock would need independent scheduling; ordinary code takes it once per warp).
  if (threadIdx.x % 32 == 0)
    for (int r = 0; r < rounds; ++r) {
      while (lock.test_and_set(cuda::std::memory_order_acquire)) __nanosleep(20);
      guarded += r + 1;
      lock.clear(cuda::std::memory_order_release);
    }
  // At most 3 warps' leaders inside at once.
  if (threadIdx.x % 32 == 0) {
    sem.acquire();
    int now = inside.fetch_add(1) + 1;
    peak.fetch_max(now);
    for (int k = 0; k < 50; ++k) __nanosleep(10);
    inside.fetch_sub(1);
    sem.release();
  }
  done.arrive_and_wait();
  // Warp 0 releases the others through wait/notify.
  if (threadIdx.x / 32 != 0) {
    go.wait(0);
  } else if (threadIdx.x == 0) {
    go.store(blockIdx.x + 1, cuda::std::memory_order_release);
    go.notify_all();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x * 3 + 0] = guarded;
    out[blockIdx.x * 3 + 1] = peak.load();
    out[blockIdx.x * 3 + 2] = go.load();
  }
}

// 4. A barrier whose completion function (run by one thread per phase) advances a phase count
// and scales the tile; the upper half of the warps leaves after phase 1 (arrive_and_drop).
struct Completion {
  int* phase;
  int* tile;
  __device__ void operator()() noexcept {
    ++*phase;
    tile[0] += 1000;
  }
};

__global__ void barrier_phases(int* out) {
  __shared__ int tile[256];
  __shared__ int phase;
  using Bar = cuda::barrier<cuda::thread_scope_block, Completion>;
  __shared__ Bar bar;
  if (threadIdx.x == 0) {
    phase = 0;
    init(&bar, blockDim.x, Completion{&phase, tile});
  }
  tile[threadIdx.x] = threadIdx.x * (blockIdx.x + 1);
  __syncthreads();
  bar.arrive_and_wait(); // phase 1: tile[0] += 1000
  int mine = tile[(threadIdx.x + 1) % blockDim.x];
  if (threadIdx.x >= blockDim.x / 2) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = mine;
    bar.arrive_and_drop(); // gone: the next phases expect half
    return;
  }
  bar.arrive_and_wait(); // phase 2
  tile[threadIdx.x] = mine * 2;
  bar.arrive_and_wait(); // phase 3: tile[0] += 1000
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x] + phase;
}

// 5. A two-stage pipeline: each CTA streams its chunks of `in` into shared memory with
// memcpy_async of 16-byte aligned int4 chunks while computing on the previous stage.
constexpr int kStages = 2, kChunk = 128; // ints per stage per CTA
__global__ void pipeline_sum(const int4* in, int chunks_per_cta, unsigned* out) {
  __shared__ alignas(16) int4 buf[kStages][kChunk / 4];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const int4* base = in + (size_t)blockIdx.x * chunks_per_cta * (kChunk / 4);
  unsigned acc = 0;
  int fetch = 0;
  for (int c = 0; c < chunks_per_cta; ++c) {
    for (; fetch < chunks_per_cta && fetch < c + kStages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buf[fetch % kStages], base + fetch * (kChunk / 4),
                         cuda::aligned_size_t<16>(sizeof(int) * kChunk), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    const int* v = reinterpret_cast<const int*>(buf[c % kStages]);
    if (threadIdx.x < kChunk)
      acc += cuda::std::rotl((unsigned)v[threadIdx.x], c & 31) ^ (unsigned)c;
    pipe.consumer_release();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 6. cuda::std::bit functions and timers.
__global__ void bits(const unsigned long long* in, int n, unsigned long long* out, long long* t) {
  long long c0 = clock64();
  unsigned long long g0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned long long v = in[i];
    unsigned lo = (unsigned)v;
    unsigned long long r = 0;
    r += cuda::std::popcount(v);
    r = r * 131 + cuda::std::countl_zero(v);
    r = r * 131 + cuda::std::countr_zero(lo | 0x80000000u);
    r = r * 131 + cuda::std::countr_one(v);
    r = r * 131 + cuda::std::countl_one(lo);
    r = r * 131 + cuda::std::bit_width(lo);
    r = r * 131 + (cuda::std::has_single_bit(lo) ? 7 : 3);
    r ^= cuda::std::rotl(v, (int)(lo % 97) - 40);
    r ^= cuda::std::rotr(lo, (int)(v >> 58));
    r += cuda::std::bit_floor(lo >> 1);
    r += (lo >> 2) ? cuda::std::bit_ceil(lo >> 2) : 1;
    r += cuda::std::bit_cast<unsigned>(float(lo >> 8) * 0.5f);
    out[i] = r;
  }
  __nanosleep(100);
  long long c1 = clock64();
  unsigned long long g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  if (i == 0) {
    t[0] = c0, t[1] = c1;
    t[2] = (long long)g0, t[3] = (long long)g1;
  }
}

// Host references.
static unsigned rotl32(unsigned v, int s) {
  s &= 31;
  return s ? (v << s) | (v >> (32 - s)) : v;
}
static unsigned long long rotl64(unsigned long long v, int s) {
  s = ((s % 64) + 64) % 64;
  return s ? (v << s) | (v >> (64 - s)) : v;
}
static unsigned rotr32(unsigned v, int s) { return rotl32(v, -s & 31); }
static int clz64(unsigned long long v) { return v ? __builtin_clzll(v) : 64; }
static unsigned long long bits_ref(unsigned long long v) {
  unsigned lo = (unsigned)v;
  unsigned long long r = 0;
  auto cto = [](unsigned long long x) { return ~x ? __builtin_ctzll(~x) : 64; };
  r += __builtin_popcountll(v);
  r = r * 131 + clz64(v);
  r = r * 131 + __builtin_ctz(lo | 0x80000000u);
  r = r * 131 + cto(v);
  r = r * 131 + (~lo ? __builtin_clz(~lo) : 32);
  r = r * 131 + (lo ? 32 - __builtin_clz(lo) : 0);
  r = r * 131 + ((lo && !(lo & (lo - 1))) ? 7 : 3);
  r ^= rotl64(v, (int)(lo % 97) - 40);
  r ^= rotr32(lo, (int)(v >> 58));
  unsigned h = lo >> 1;
  r += h ? 1u << (31 - __builtin_clz(h)) : 0;
  unsigned q = lo >> 2;
  r += q ? (q == 1 ? 1u : 1u << (32 - __builtin_clz(q - 1))) : 1;
  float f = float(lo >> 8) * 0.5f;
  unsigned fb;
  memcpy(&fb, &f, 4);
  r += fb;
  return r;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1500;
  int bad = 0;
  std::vector<int> keys(n);
  unsigned seed = 12345;
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    keys[i] = (int)(seed >> 8) % 20001 - 10000;
  }
  int* d_keys;
  CHECK(cudaMalloc(&d_keys, n * sizeof(int)));
  CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  // 1. key_stats, twice (the second on the first's results).
  Stats init{0, 1 << 30, -(1 << 30), 0xffffffffu, 0, 0, 0, 0}, got;
  Stats* d_s;
  CHECK(cudaMalloc(&d_s, sizeof(Stats)));
  CHECK(cudaMemcpy(d_s, &init, sizeof init, cudaMemcpyHostToDevice));
  for (int rep = 0; rep < 2; ++rep) key_stats<<<(n + 127) / 128, 128>>>(d_keys, n, d_s);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&got, d_s, sizeof got, cudaMemcpyDeviceToHost));
  Stats want = init;
  for (int rep = 0; rep < 2; ++rep)
    for (int k : keys) {
      want.sum += (unsigned long long)(long long)k;
      want.min = std::min(want.min, k);
      want.max = std::max(want.max, k);
      want.and_all &= ~(1u << (k & 31)) | 0x0f0f0000u;
      want.or_all |= 1u << ((k >> 3) & 31);
      want.xor_all ^= (unsigned)k * 2654435761u;
      want.cas_count += k % 3 == 0;
    }
  bool member = false;
  for (int k : keys) member |= (unsigned)k == got.last;
  if (got.sum != want.sum || got.min != want.min || got.max != want.max ||
      got.and_all != want.and_all || got.or_all != want.or_all || got.xor_all != want.xor_all ||
      got.cas_count != want.cas_count || !member) {
    std::printf("key_stats: sum %llu/%llu min %d/%d max %d/%d and %x/%x or %x/%x xor %x/%x cas "
                "%d/%d last %u\n",
                got.sum, want.sum, got.min, want.min, got.max, want.max, got.and_all, want.and_all,
                got.or_all, want.or_all, got.xor_all, want.xor_all, got.cas_count, want.cas_count,
                got.last);
    ++bad;
  }

  // 2. publish_sum, three launches with fresh flags.
  const int ctas = 12;
  long long *d_partial, *d_total, total;
  int *d_flags, *d_ticket;
  CHECK(cudaMalloc(&d_partial, ctas * sizeof(long long)));
  CHECK(cudaMalloc(&d_total, sizeof(long long)));
  CHECK(cudaMalloc(&d_flags, ctas * sizeof(int)));
  CHECK(cudaMalloc(&d_ticket, sizeof(int)));
  long long want_total = 0;
  for (int k : keys) want_total += k;
  for (int rep = 0; rep < 3; ++rep) {
    CHECK(cudaMemset(d_flags, 0, ctas * sizeof(int)));
    CHECK(cudaMemset(d_ticket, 0, sizeof(int)));
    CHECK(cudaMemset(d_total, 0xff, sizeof(long long)));
    publish_sum<<<ctas, 96>>>(d_keys, n, d_partial, d_flags, d_ticket, d_total);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    if (total != want_total) {
      std::printf("publish_sum %d: %lld, want %lld\n", rep, total, want_total);
      ++bad;
    }
  }

  // 3. block_sync_prims.
  const int pblocks = 4, pthreads = 192, rounds = 5;
  int* d_p;
  CHECK(cudaMalloc(&d_p, pblocks * 3 * sizeof(int)));
  for (int rep = 0; rep < 2; ++rep) {
    block_sync_prims<<<pblocks, pthreads>>>(d_p, rounds + rep);
    CHECK(cudaGetLastError());
    std::vector<int> p(pblocks * 3);
    CHECK(cudaMemcpy(p.data(), d_p, p.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int r = rounds + rep, want_guarded = pthreads / 32 * r * (r + 1) / 2;
    for (int b = 0; b < pblocks; ++b)
      if (p[b * 3] != want_guarded || p[b * 3 + 1] < 1 || p[b * 3 + 1] > 3 ||
          p[b * 3 + 2] != b + 1) {
        std::printf("block_sync_prims %d block %d: guarded %d (want %d), peak %d (1..3), go %d\n",
                    rep, b, p[b * 3], want_guarded, p[b * 3 + 1], p[b * 3 + 2]);
        ++bad;
      }
  }

  // 4. barrier_phases.
  const int bblocks = 3, bthreads = 256;
  int* d_b;
  CHECK(cudaMalloc(&d_b, bblocks * bthreads * sizeof(int)));
  barrier_phases<<<bblocks, bthreads>>>(d_b);
  CHECK(cudaGetLastError());
  std::vector<int> bo(bblocks * bthreads);
  CHECK(cudaMemcpy(bo.data(), d_b, bo.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < bblocks; ++b)
    for (int t = 0; t < bthreads; ++t) {
      auto tile0 = [&](int i) { return i * (b + 1) + (i == 0 ? 1000 : 0); };
      int mine = tile0((t + 1) % bthreads), want;
      if (t >= bthreads / 2)
        want = mine;
      else
        want = mine * 2 + (t == 0 ? 1000 : 0) + 3;
      if (bo[b * bthreads + t] != want) {
        if (bad < 20)
          std::printf("barrier_phases block %d thread %d: %d, want %d\n", b, t,
                      bo[b * bthreads + t], want);
        ++bad;
      }
    }

  // 5. pipeline_sum.
  const int pctas = 6, chunks = 5, pn = pctas * chunks * kChunk;
  std::vector<int> pin(pn);
  for (int i = 0; i < pn; ++i) pin[i] = i * 7919 + (i >> 3);
  int4* d_pin;
  unsigned* d_pout;
  CHECK(cudaMalloc(&d_pin, pn * sizeof(int)));
  CHECK(cudaMalloc(&d_pout, pctas * kChunk * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_pin, pin.data(), pn * sizeof(int), cudaMemcpyHostToDevice));
  pipeline_sum<<<pctas, kChunk>>>(d_pin, chunks, d_pout);
  CHECK(cudaGetLastError());
  std::vector<unsigned> pout(pctas * kChunk);
  CHECK(cudaMemcpy(pout.data(), d_pout, pout.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int b = 0; b < pctas; ++b)
    for (int t = 0; t < kChunk; ++t) {
      unsigned acc = 0;
      for (int c = 0; c < chunks; ++c)
        acc += rotl32((unsigned)pin[(b * chunks + c) * kChunk + t], c) ^ (unsigned)c;
      if (pout[b * kChunk + t] != acc) {
        if (bad < 20)
          std::printf("pipeline_sum %d.%d: %u, want %u\n", b, t, pout[b * kChunk + t], acc);
        ++bad;
      }
    }

  // 6. bits.
  const int bn = 1000;
  std::vector<unsigned long long> bin(bn), bout(bn);
  unsigned long long x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < bn; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    bin[i] = i % 10 == 0   ? (1ull << (i % 64))
             : i % 10 == 1 ? ~0ull >> (i % 64)
             : i % 10 == 2 ? 0
                           : x;
  }
  unsigned long long *d_bin, *d_bout;
  long long* d_t;
  CHECK(cudaMalloc(&d_bin, bn * 8));
  CHECK(cudaMalloc(&d_bout, bn * 8));
  CHECK(cudaMalloc(&d_t, 4 * 8));
  CHECK(cudaMemcpy(d_bin, bin.data(), bn * 8, cudaMemcpyHostToDevice));
  // %clock64 counts the SM's cycles and %globaltimer nanoseconds, both running on from launch
  // to launch (before, each read the launch's warp instructions so far: both restarted at 0).
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  long long t[4], last_clock = 0, last_timer = 0;
  for (int rep = 0; rep < 2; ++rep) {
    bits<<<(bn + 255) / 256, 256>>>(d_bin, bn, d_bout, d_t);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(bout.data(), d_bout, bn * 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(t, d_t, sizeof t, cudaMemcpyDeviceToHost));
    for (int i = 0; i < bn; ++i)
      if (bout[i] != bits_ref(bin[i])) {
        if (bad < 20)
          std::printf("bits %d (%016llx): %016llx, want %016llx\n", i, bin[i], bout[i],
                      bits_ref(bin[i]));
        ++bad;
      }
    // Both advanced across the sleep and since the last launch; the timer's nanoseconds are
    // the clock's cycles at the device's clock rate (within 20%: the reads are separate
    // instructions, each pair apart by its own stalls).
    const double want_ns = double(t[1] - t[0]) * 1e6 / khz, got_ns = double(t[3] - t[2]);
    if (t[1] <= t[0] || t[0] <= last_clock || t[2] <= last_timer || t[3] < t[2] ||
        std::abs(got_ns - want_ns) > want_ns / 5) {
      std::printf("timers: clock64 %lld..%lld (last %lld), globaltimer %lld..%lld (last %lld), "
                  "%.0f ns for %.0f ns at %d kHz\n",
                  t[0], t[1], last_clock, t[2], t[3], last_timer, got_ns, want_ns, khz);
      ++bad;
    }
    last_clock = t[1], last_timer = t[3];
  }
  CHECK(cudaDeviceSynchronize());
  return finish(bad);
}
