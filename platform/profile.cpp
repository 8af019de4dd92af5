#include "gpurf/platform/profile.h"

#include <algorithm>
#include <numeric>

#include "gpurf/modules/common/hash.h"

namespace gpurf {

namespace {

unsigned lifetime_bucket(uint64_t d) {
  if (d <= 3) return unsigned(d ? d - 1 : 0);
  if (d < 8) return 3;
  return d < 16 ? 4 : 5;
}

unsigned reuse_bucket(uint64_t d) {
  unsigned b = 0;
  for (uint64_t top = 4; d >= top && b + 1 < ProfileStats::kReuseBuckets; top *= 2) ++b;
  return b;
}

template <size_t N> nlohmann::ordered_json shares(const std::array<uint64_t, N>& a) {
  const uint64_t total = std::accumulate(a.begin(), a.end(), uint64_t(0));
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (uint64_t n : a) j.push_back(total ? double(n) / total : 0.0);
  return j;
}

double ratio(double a, double b) { return b ? a / b : 0.0; }

} // namespace

Profiler::Profiler(unsigned banks, BankOf bank) : banks_(banks), bank_(std::move(bank)) {
  s_.reads_by_bank.assign(banks_, 0);
}

unsigned Profiler::width(const LaneValues& v, uint32_t active_mask) {
  unsigned bytes = 1;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(active_mask >> l & 1)) continue;
    const int32_t x = int32_t(v[l]);
    while (bytes < 4) {
      const unsigned shift = 32 - 8 * bytes;
      if (int32_t(uint32_t(x) << shift) >> shift == x) break;
      ++bytes;
    }
  }
  return bytes;
}

Profiler::Reg& Profiler::reg(Warp& w, unsigned r) {
  if (r >= w.regs.size()) w.regs.resize(r + 1);
  if (r >= s_.reads_by_reg.size()) s_.reads_by_reg.resize(r + 1, 0);
  return w.regs[r];
}

void Profiler::close(Reg& r) {
  if (!r.produced) return;
  ++s_.values;
  ++s_.reads_per_value[std::min(r.reads, 3u)];
  if (r.reads == 1) {
    ++s_.lifetime_once[lifetime_bucket(r.first_read)];
    s_.once_within3 += r.first_read <= 3;
  }
  r.produced = 0;
}

void Profiler::close(Warp& w) {
  for (Reg& r : w.regs) close(r);
  w = Warp{};
}

void Profiler::add(const WarpInst& i) {
  if (i.warp >= warps_.size()) warps_.resize(i.warp + 1);
  Warp& w = warps_[i.warp];
  const uint64_t at = ++w.index;
  w.live |= i.active_mask;
  ++s_.instructions;
  add_computation(i);

  // Distinct source registers: a register named twice is one read of its value, one reuse.
  std::array<unsigned, InstInfo::kMaxSrc> distinct{};
  unsigned n = 0;
  for (unsigned k = 0; k < i.n_src; ++k) {
    const unsigned r = i.src[k].reg;
    reg(w, r);
    ++s_.reads;
    ++s_.reads_by_reg[r];
    ++s_.reads_by_bank[bank_(i.warp, r)];
    ++s_.width_reads[width(i.src[k].value, i.active_mask) - 1];
    if (std::find(distinct.begin(), distinct.begin() + n, r) == distinct.begin() + n)
      distinct[n++] = r;
  }
  for (unsigned k = 0; k < n; ++k) {
    Reg& r = w.regs[distinct[k]];
    if (r.produced) {
      const uint64_t life = at - r.produced;
      ++s_.lifetime[lifetime_bucket(life)];
      if (!r.reads++) r.first_read = life;
    }
    if (r.last_access) {
      const uint64_t d = at - r.last_access;
      ++s_.reuse[reuse_bucket(d)];
      s_.reuse_below12 += d < 12;
      s_.reuse_above10 += d > 10;
    }
    r.last_access = at;
  }
  if (n >= 2) {
    ++s_.multi_source;
    bool same = false;
    for (unsigned a = 0; a < n && !same; ++a)
      for (unsigned b = a + 1; b < n && !same; ++b)
        same = bank_(i.warp, distinct[a]) == bank_(i.warp, distinct[b]);
    s_.same_bank += same;
    // Random mapping: n registers fall in n different banks with chance prod (B-j)/B.
    double distinct_banks = 1;
    for (unsigned j = 0; j < n; ++j) distinct_banks *= double(banks_ > j ? banks_ - j : 0) / banks_;
    s_.same_bank_random += 1 - distinct_banks;
  }

  for (unsigned k = 0; k < i.n_dst; ++k) {
    Reg& r = reg(w, i.dst[k].reg);
    ++s_.writes;
    ++s_.width_writes[width(i.dst[k].value, i.active_mask) - 1];
    close(r);
    r.produced = r.last_access = at;
    r.reads = 0;
  }

  // The warp slot is free once every lane it ran has exited; a later CTA starts afresh.
  if (i.info && i.info->exit) {
    w.live &= ~i.active_mask;
    if (!w.live) close(w);
  }
}

void Profiler::close_window() {
  for (const auto& [sig, n] : window_)
    if (n > 10) s_.repeated_over10 += n;
  window_.clear();
  window_fill_ = 0;
}

void Profiler::add_computation(const WarpInst& i) {
  if (++window_fill_ > ProfileStats::kRepeatWindow) {
    close_window();
    window_fill_ = 1;
  }
  const InstInfo* in = i.info;
  if (!in || i.injected || in->op_class == OpClass::Control || in->barrier || in->exit ||
      in->mem == MemKind::Store || in->mem == MemKind::Atomic)
    return;
  Hash64 h;
  const uint32_t m = i.active_mask;
  h.add(uint64_t(in->computation_op) << 32 | m);
  for (unsigned k = 0; k < i.n_src; ++k) h.add_lanes(i.src[k].value, m);
  for (unsigned k = 0; k < in->n_psrc; ++k) h.add_lanes(i.psrc_value[k], m);
  if (in->mem == MemKind::Load) h.add_lanes(i.addr, m);
  for (unsigned k = 0; k < i.n_dst; ++k) h.add_lanes(i.dst[k].value, m);
  for (unsigned k = 0; k < in->n_pdst; ++k) h.add_lanes(i.pdst_value[k], m);
  if (window_[h.h]++ == 0) return;
  ++s_.repeated;
  s_.repeated_reusable += in->reuse_op && !i.divergent();
}

void Profiler::finish() {
  for (Warp& w : warps_) close(w);
  close_window();
}

nlohmann::ordered_json Profiler::report() const {
  nlohmann::ordered_json j;
  j["warp_instructions"] = s_.instructions;
  j["reads"] = s_.reads;
  j["writes"] = s_.writes;

  std::vector<uint64_t> hot = s_.reads_by_reg;
  std::sort(hot.rbegin(), hot.rend());
  const uint64_t top6 =
      std::accumulate(hot.begin(), hot.begin() + std::min<size_t>(6, hot.size()), uint64_t(0));
  nlohmann::ordered_json regs;
  regs["registers_read"] = std::count_if(hot.begin(), hot.end(), [](uint64_t n) { return n; });
  regs["hottest6_share"] = ratio(double(top6), double(s_.reads));
  regs["reads_by_register"] = s_.reads_by_reg;
  j["register_reads"] = regs;

  nlohmann::ordered_json banks;
  banks["count"] = banks_;
  nlohmann::ordered_json by = nlohmann::ordered_json::array();
  for (uint64_t n : s_.reads_by_bank) by.push_back(ratio(double(n), double(s_.reads)));
  banks["read_share"] = by;
  banks["multi_source_instructions"] = s_.multi_source;
  banks["same_bank_share"] = ratio(double(s_.same_bank), double(s_.multi_source));
  banks["same_bank_share_random"] = ratio(s_.same_bank_random, double(s_.multi_source));
  j["banks"] = banks;

  nlohmann::ordered_json life;
  life["values"] = s_.values;
  life["reads_per_value"] = {{"labels", {"0", "1", "2", ">2"}},
                             {"share", shares(s_.reads_per_value)}};
  life["read_once_share"] = ratio(double(s_.reads_per_value[1]), double(s_.values));
  life["read_once_within3_share"] = ratio(double(s_.once_within3), double(s_.values));
  const nlohmann::ordered_json labels = {"1", "2", "3", "4-7", "8-15", "16+"};
  life["lifetime_of_reads"] = {{"labels", labels}, {"share", shares(s_.lifetime)}};
  life["lifetime_of_once_read"] = {{"labels", labels}, {"share", shares(s_.lifetime_once)}};
  j["value_lifetime"] = life;

  std::array<uint64_t, 4> all{};
  double used = 0;
  uint64_t accesses = 0;
  for (unsigned b = 0; b < 4; ++b) {
    all[b] = s_.width_reads[b] + s_.width_writes[b];
    used += double(b + 1) * all[b];
    accesses += all[b];
  }
  nlohmann::ordered_json width;
  width["labels"] = {"1", "2", "3", "4"};
  width["reads"] = shares(s_.width_reads);
  width["writes"] = shares(s_.width_writes);
  width["accesses"] = shares(all);
  width["full_width_share"] = ratio(double(all[3]), double(accesses));
  width["wasted_bandwidth"] = accesses ? 1 - used / (4.0 * accesses) : 0.0;
  j["operand_width"] = width;

  const uint64_t reuses = std::accumulate(s_.reuse.begin(), s_.reuse.end(), uint64_t(0));
  nlohmann::ordered_json reuse;
  reuse["reuses"] = reuses;
  reuse["labels"] = {"1-3", "4-7", "8-15", "16-31", "32+"};
  reuse["share"] = shares(s_.reuse);
  reuse["below12_share"] = ratio(double(s_.reuse_below12), double(reuses));
  reuse["above10_share"] = ratio(double(s_.reuse_above10), double(reuses));
  j["reuse_distance"] = reuse;

  nlohmann::ordered_json rep;
  rep["window"] = ProfileStats::kRepeatWindow;
  rep["share"] = ratio(double(s_.repeated), double(s_.instructions));
  rep["over10_share"] = ratio(double(s_.repeated_over10), double(s_.instructions));
  rep["reusable_share"] = ratio(double(s_.repeated_reusable), double(s_.instructions));
  j["repeated_computations"] = rep;
  return j;
}

} // namespace gpurf
