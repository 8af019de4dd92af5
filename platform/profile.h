// Characterisation of a kernel's dynamic register traffic (gpurf profile, docs/tools.md):
// the statistics the register-file papers report for their workloads (docs/workloads.md),
// computed from the warp instructions in issue order. Plain C++: it sees WarpInst records
// only, so unit tests feed it hand-made streams.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

// Every figure counts warp-level accesses: one per warp instruction and register operand.
struct ProfileStats {
  uint64_t instructions = 0, reads = 0, writes = 0;
  std::vector<uint64_t> reads_by_reg;  // source-operand reads per register number
  std::vector<uint64_t> reads_by_bank; // ... per bank of the register mapping
  // Instructions with at least two distinct source registers; those with two in one bank;
  // the sum over them of the chance of a same-bank pair under a uniformly random mapping.
  uint64_t multi_source = 0, same_bank = 0;
  double same_bank_random = 0;
  // Values (one per destination write): reads of each before it is overwritten or the warp
  // ends (0, 1, 2, >2); values read exactly once whose read is within 3 instructions.
  uint64_t values = 0, once_within3 = 0;
  std::array<uint64_t, 4> reads_per_value{};
  // Lifetimes (instructions of the warp from producer to read; 1: the next instruction),
  // of every read and of the single read of once-read values, in kLifetimeBuckets.
  static constexpr unsigned kLifetimeBuckets = 6; // 1, 2, 3, 4-7, 8-15, 16+
  std::array<uint64_t, kLifetimeBuckets> lifetime{}, lifetime_once{};
  // Bytes each access needs (index 0..3: 1..4 bytes): reads and writes.
  std::array<uint64_t, 4> width_reads{}, width_writes{};
  // Reuse distance: instructions of the warp between a read and the previous access (read or
  // write) of the same register; buckets 1-3, 4-7, 8-15, 16-31, 32+.
  static constexpr unsigned kReuseBuckets = 5;
  std::array<uint64_t, kReuseBuckets> reuse{};
  uint64_t reuse_below12 = 0, reuse_above10 = 0;
  // Repeated warp computations (WIR Sec. III, Fig. 2): in each window of kRepeatWindow issued
  // warp instructions, those whose computation (operation, active lanes, source, address and
  // result values) appeared earlier in the window, and those whose computation appears more
  // than 10 times in it. Control transfers, barriers, stores and atomics never repeat.
  // repeated_reusable: those WIR's reuse buffer may serve (a reuse tag, not divergent).
  static constexpr unsigned kRepeatWindow = 1000;
  uint64_t repeated = 0, repeated_over10 = 0, repeated_reusable = 0;
};

class Profiler {
public:
  // bank(warp, reg): the bank of register `reg` of warp slot `warp`, below `banks`.
  using BankOf = std::function<unsigned(unsigned warp, unsigned reg)>;
  Profiler(unsigned banks, BankOf bank);
  // The next issued instruction (per warp in program order).
  void add(const WarpInst& i);
  // Closes the values still live (their reads so far are final). Call once, at the end.
  void finish();
  const ProfileStats& stats() const { return s_; }
  // The report: shares and histograms derived from stats().
  nlohmann::ordered_json report() const;

  // Narrowest sign-extended width in bytes (1-4) holding every active lane (CMRC Sec. II).
  static unsigned width(const LaneValues& v, uint32_t active_mask);

private:
  struct Reg {
    uint64_t produced = 0;    // warp-instruction index of the live value's producer; 0: none
    uint64_t last_access = 0; // 0: never accessed
    uint64_t first_read = 0;  // lifetime of the live value's first read
    unsigned reads = 0;
  };
  struct Warp {
    uint64_t index = 0; // instructions issued by the warp
    uint32_t live = 0;  // lanes seen and not exited
    std::vector<Reg> regs;
  };
  void close(Reg& r);
  void close(Warp& w);
  void close_window();
  void add_computation(const WarpInst& i);
  Reg& reg(Warp& w, unsigned r);

  unsigned banks_;
  BankOf bank_;
  std::vector<Warp> warps_;
  std::unordered_map<uint64_t, unsigned> window_; // computation signature -> instances
  unsigned window_fill_ = 0;
  ProfileStats s_;
};

} // namespace gpurf
