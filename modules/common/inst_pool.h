// Storage of in-flight warp instructions: records are recycled, never freed mid-run.
#pragma once

#include <deque>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

class InstPool {
public:
  WarpInst* get() {
    if (free_.empty()) {
      store_.emplace_back();
      return &store_.back();
    }
    WarpInst* w = free_.back();
    free_.pop_back();
    return w;
  }
  void put(WarpInst* w) { free_.push_back(w); }
  size_t in_flight() const { return store_.size() - free_.size(); }

private:
  std::deque<WarpInst> store_;
  std::vector<WarpInst*> free_;
};

} // namespace gpurf
