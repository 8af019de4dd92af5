// What a per-cycle barrier between two simulation threads costs on this machine (issue 17,
// deliverable 4): two threads each do `work` ns of arithmetic per "cycle", then meet at a
// sense-reversing spin barrier. Prints the wall time per cycle against one thread doing both
// halves. Build: g++ -O2 -pthread bench/barrier.cpp -o /tmp/barrier && /tmp/barrier
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <thread>

namespace {

std::atomic<unsigned> arrived{0};
std::atomic<bool> sense{false};

void barrier(bool& local) {
  local = !local;
  if (arrived.fetch_add(1) == 1) {
    arrived.store(0);
    sense.store(local);
  } else {
    while (sense.load() != local) {
    }
  }
}

// About `ns` nanoseconds of dependent integer work.
uint64_t spin(uint64_t x, unsigned iters) {
  for (unsigned i = 0; i < iters; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

} // namespace

int main() {
  using clk = std::chrono::steady_clock;
  constexpr unsigned kCycles = 200000;
  // Calibrate: iterations per ns.
  auto t0 = clk::now();
  volatile uint64_t sink = spin(1, 100000000);
  const double ns_per_iter =
      std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 100000000;
  for (double work_ns : {250.0, 500.0, 1000.0, 2000.0}) {
    const unsigned iters = unsigned(work_ns / ns_per_iter);
    t0 = clk::now();
    for (unsigned c = 0; c < kCycles; ++c) sink = spin(sink, 2 * iters); // one thread, both SMs
    const double one = std::chrono::duration<double, std::nano>(clk::now() - t0).count() / kCycles;
    auto body = [&] {
      bool local = false;
      uint64_t x = 1;
      for (unsigned c = 0; c < kCycles; ++c) {
        x = spin(x, iters);
        barrier(local);
      }
      sink = x;
    };
    t0 = clk::now();
    std::thread a(body), b(body);
    a.join();
    b.join();
    const double two = std::chrono::duration<double, std::nano>(clk::now() - t0).count() / kCycles;
    std::printf("work per SM-cycle %6.0f ns: one thread %7.0f ns/cycle, two threads + barrier "
                "%7.0f ns/cycle (wall speedup %.2f, CPU time x%.2f)\n",
                work_ns, one, two, one / two, 2 * two / one);
  }
}
