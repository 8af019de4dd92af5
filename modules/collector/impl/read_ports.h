// The bank read ports of a sub-core's register file as the Allocate stage of current NVIDIA
// cores reserves them (Huerta et al., MICRO'25, Sec. 5.3; collector fixed_window): every
// instruction reads its sources in a fixed window of cycles after issue; each read that
// misses the register-file cache takes one port cycle of its bank in the window, the latest
// free one first. This reproduces the bubbles the paper measured between consecutive
// instructions (tests/unit/policy_read_ports_test.cpp): FMUL with both sources in one bank 1,
// FFMA with all three 2, Listing 1's FFMA pairs 0/1/2 for odd/odd, even/odd, even/even.
// Plain C++ (no SystemC).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace gpurf {

class ReadPorts {
public:
  static constexpr unsigned kMaxBanks = 8;
  using Cycle = uint64_t;
  explicit ReadPorts(unsigned ports = 1) : ports_(ports) {}

  // The cycles of [start, start + length) the reads of `banks` (one entry per read) would
  // take, in their order, reserved; false (nothing reserved) if they do not all fit.
  bool reserve(Cycle start, unsigned length, const std::vector<unsigned>& banks,
               std::vector<Cycle>& at) {
    std::map<Cycle, std::array<uint8_t, kMaxBanks>> taken;
    at.clear();
    for (unsigned b : banks) {
      bool placed = false;
      for (Cycle c = start + length; c-- > start && !placed;)
        if (use(c, b) + taken[c][b] < ports_) {
          ++taken[c][b];
          at.push_back(c);
          placed = true;
        }
      if (!placed) return false;
    }
    for (size_t k = 0; k < banks.size(); ++k) ++used_[at[k]][banks[k]];
    return true;
  }
  // Cycles a bank's reads need at least: the window grows for more reads than it has ports.
  unsigned length(unsigned window, const std::vector<unsigned>& banks) const {
    std::array<unsigned, kMaxBanks> n{};
    for (unsigned b : banks) ++n[b];
    unsigned len = window;
    for (unsigned x : n) len = std::max(len, (x + ports_ - 1) / ports_);
    return len;
  }
  // Reservations before `now` are history.
  void forget_before(Cycle now) {
    for (auto it = used_.begin(); it != used_.end() && it->first < now;) it = used_.erase(it);
  }

private:
  unsigned use(Cycle c, unsigned bank) const {
    auto it = used_.find(c);
    return it == used_.end() ? 0 : it->second[bank];
  }
  unsigned ports_;
  std::map<Cycle, std::array<uint8_t, kMaxBanks>> used_; // reserved reads per cycle and bank
};

} // namespace gpurf
