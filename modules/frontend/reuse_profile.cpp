#include "gpurf/modules/frontend/reuse_profile.h"

namespace gpurf {

void ReuseProfiler::start_warp(InstanceBits* record) {
  now_ = 0;
  pending_.clear();
  record_ = record;
  if (record_) record_->clear();
}

void ReuseProfiler::resolve(std::vector<Pending>& p, bool near) {
  for (const Pending& o : p) {
    ReuseCounts& c = counts_[o.pc];
    if (o.dst)
      ++(near ? c.dst_near : c.dst_far)[o.slot];
    else
      ++(near ? c.src_near : c.src_far)[o.slot];
    if (record_ && near) (*record_)[o.at - 1] |= uint16_t(1u << (o.slot + (o.dst ? 8 : 0)));
  }
  p.clear();
}

void ReuseProfiler::step(const InstInfo& info) {
  ++now_;
  if (record_) record_->push_back(0);
  auto at = [&](unsigned r) -> std::vector<Pending>& {
    if (r >= pending_.size()) pending_.resize(r + 1);
    return pending_[r];
  };
  // A read reuses every pending occurrence of its register; each then waits for the next.
  for (unsigned k = 0; k < info.n_src; ++k) {
    std::vector<Pending>& p = at(info.src_reg[k]);
    bool first = true;
    for (unsigned j = 0; j < k; ++j) first &= info.src_reg[j] != info.src_reg[k];
    if (!first) continue; // a register named twice is one read
    std::vector<Pending> near, far;
    for (const Pending& o : p) (now_ - o.at < rthld_ ? near : far).push_back(o);
    resolve(near, true);
    resolve(far, false);
    p.clear();
  }
  for (unsigned k = 0; k < info.n_src; ++k)
    at(info.src_reg[k]).push_back({info.pc, uint8_t(k), false, now_});
  // A write ends the old value: its pending occurrences were not reused.
  for (unsigned k = 0; k < info.n_dst; ++k) {
    std::vector<Pending>& p = at(info.dst_reg[k]);
    resolve(p, false);
    p.push_back({info.pc, uint8_t(k), true, now_});
  }
}

void ReuseProfiler::end_warp() {
  for (std::vector<Pending>& p : pending_) resolve(p, false);
}

void ReuseProfiler::apply(std::vector<InstInfo>& info) const {
  for (size_t pc = 0; pc < info.size() && pc < counts_.size(); ++pc) {
    const ReuseCounts& c = counts_[pc];
    for (unsigned k = 0; k < InstInfo::kMaxSrc; ++k)
      info[pc].src_reuse_near[k] = c.src_near[k] > c.src_far[k];
    for (unsigned k = 0; k < InstInfo::kMaxDst; ++k)
      info[pc].dst_reuse_near[k] = c.dst_near[k] > c.dst_far[k];
  }
}

} // namespace gpurf
