// cp.async's groups (PTX ISA, "cp.async", "cp.async.commit_group", "cp.async.wait_group"):
// the copies a thread issued since its last cp.async.commit_group form its open group;
// commit_group closes it (an empty group too); wait_group N waits until at most the N newest
// committed groups are pending; wait_all waits for every copy, committed or not.
//
// gpurf keeps the groups per warp (the lanes of a warp issue these instructions together)
// twice, with the same code: the functional engine holds each group's copies (bytes read from
// global memory when the cp.async executed) and writes them into shared memory when a wait
// that covers the group executes; the PTX front-end holds each group's copies the timing
// model has not completed and offers the wait to the scheduler only once every copy it covers
// has completed. So a read before the wait never sees the bytes (functional), and a wait
// never issues before its copies landed (timing; the timing checker verifies it on its own).
// docs/ptx.md, "Asynchronous copies".
#pragma once

#include <cstdint>
#include <deque>

namespace gpurf::ptx {

template <class G> class AsyncGroups {
public:
  // The open group (the copies issued since the last commit).
  G& open() { return groups_.back(); }
  // The open group's number (numbers count from 0 at the warp's start and never repeat).
  uint64_t open_id() const { return base_ + groups_.size() - 1; }
  G& group(uint64_t id) { return groups_[size_t(id - base_)]; }
  bool holds(uint64_t id) const { return id >= base_ && id - base_ < groups_.size(); }
  void commit() { groups_.emplace_back(); }
  // How many of the oldest groups a wait covers: all but the `n` newest committed groups
  // (the open group is never covered); every group, the open one included, for wait_all.
  size_t covered(uint64_t n, bool all) const {
    const size_t committed = groups_.size() - 1;
    if (all) return groups_.size();
    return committed > n ? size_t(committed - n) : 0;
  }
  // Visits the `k` oldest groups, oldest first, then drops them.
  template <class F> void retire_oldest(size_t k, F&& visit) {
    for (size_t i = 0; i < k; ++i) {
      visit(groups_.front());
      groups_.pop_front();
      ++base_;
    }
    if (groups_.empty()) groups_.emplace_back(); // wait_all closed the open group too
  }
  // The `k` oldest groups, for a test of their state.
  template <class P> bool all_of_oldest(size_t k, P&& pred) const {
    for (size_t i = 0; i < k && i < groups_.size(); ++i)
      if (!pred(groups_[i])) return false;
    return true;
  }

private:
  std::deque<G> groups_ = std::deque<G>(1); // oldest first; back(): the open group
  uint64_t base_ = 0;                       // number of groups_.front()
};

} // namespace gpurf::ptx
