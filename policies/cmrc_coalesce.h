// CMRC's coalescing kinds (shared/papers/000, Table I) and their legality, plain C++. Two
// register requests are served by one physical access (one bank port cycle, or one
// collector write) when their slice masks do not overlap and their kind is enabled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpurf::cmrc {

// Table I rows, in order.
enum class Kind : uint8_t {
  ReadReadSameInst, // 2 reads, same bank, same warp instruction (also CORF's kind)
  ReadReadDiffInst, // 2 reads, same bank, different instructions
  WriteWrite,       // 2 writes, same bank, different instructions
  ReadWrite,        // 1 read + 1 write, same bank (one shared read/write port)
  ReadReadDiffBank, // 2 reads from different banks into one collector (its 32 B ports)
};
constexpr unsigned kKinds = 5;
// Statistic labels / YAML names: read_read_same_inst, read_read_diff_inst, write_write,
// read_write, read_read_diff_bank.
const std::vector<std::string>& kind_names();

// One register request as the arbiter sees it.
struct Request {
  bool write = false;
  const void* inst = nullptr; // the warp instruction (identity only)
  unsigned bank = 0;
  uint8_t slices = 0;     // physical slice mask
  unsigned collector = 0; // destination collector of a read
};

// A set of enabled kinds.
class KindSet {
public:
  KindSet() = default;
  static KindSet all() { return KindSet((1u << kKinds) - 1); }
  // From kind names (throws std::invalid_argument on an unknown name).
  static KindSet parse(const std::vector<std::string>& names);
  bool has(Kind k) const { return bits_ >> unsigned(k) & 1; }
  KindSet& add(Kind k) { return bits_ |= 1u << unsigned(k), *this; }

private:
  explicit KindSet(unsigned b) : bits_(b) {}
  unsigned bits_ = 0;
};

// The Table I kind of serving `a` and `b` in one access, or false if no kind applies: two
// requests to different banks that are not two reads into one collector (independent
// accesses, nothing to coalesce), or two writes of one instruction (Table I lists 2 writes
// of different instructions only).
bool classify(const Request& a, const Request& b, Kind& out);
// `a` and `b` may share one physical access: a kind applies, it is enabled, and their
// slice masks are disjoint.
bool can_coalesce(const Request& a, const Request& b, KindSet enabled);

} // namespace gpurf::cmrc
