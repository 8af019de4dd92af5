// Test support: hand-built warp programs run through a whole platform (one simulation per
// test process).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/scripted.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/params.h"
#include "gpurf/platform/simulation.h"

namespace gpurf::test {

// A small Fermi-like platform: 4 x 128 B banks, (reg + warp) mod 4 mapping, one scheduler.
inline const char* const kSmallPlatform = R"(
sm: {warps: 8, subcores: 1}
scheduler: {count: 1, policy: gto}
collector: {count: 4, src_slots: 3}
bank: {count: 4, entries: 64, slices: 1, ports: 1rw, latency: 1}
exec: {sp: {count: 1, latency: 4, ii: 1}}
writeback: {ports: 2}
l1: {hit_latency: 20}
memory: {latency: 100, bytes_per_cycle: 32}
)";

inline ScriptOp op(ScriptOp::Kind k, std::vector<uint16_t> dst, std::vector<uint16_t> src,
                   uint32_t imm = 0) {
  ScriptOp o;
  o.kind = k;
  o.dst = std::move(dst);
  o.src = std::move(src);
  o.imm = imm;
  return o;
}

inline ScriptOp load(uint16_t dst, uint64_t base) {
  ScriptOp o = op(ScriptOp::Load, {dst}, {});
  o.base = base;
  return o;
}

inline bool has_param(const ConfigNode& root, const std::string& path) {
  return root.find_path(path) != nullptr;
}
inline uint64_t param(const ConfigNode& root, const std::string& path) {
  const ConfigNode* n = root.find_path(path);
  if (!n) throw std::runtime_error("no parameter " + path);
  return std::stoull(n->scalar);
}

// Runs `prog` on `warps` warps of the platform `cfg` (with `overrides`). The platform tree
// afterwards holds every parameter in effect, defaults included (`value()`).
struct Sim {
  ConfigPtr cfg;
  ScriptedFrontend fe;
  RunResult r;
  Sim(ConfigPtr platform, std::vector<ScriptOp> prog, unsigned warps,
      const std::vector<std::string>& overrides = {}, unsigned regs = 16)
      : cfg(std::move(platform)), fe(std::move(prog), warps, regs) {
    for (auto& o : overrides) apply_override(*cfg, o);
    Params::fill_defaults = true;
    Simulation sim(*cfg, fe, fe.regs());
    r = sim.run();
  }
  const ScriptedFrontend::Retired& at(unsigned warp, unsigned pc) const {
    for (auto& x : fe.log())
      if (x.warp == warp && x.pc == pc) return x;
    throw std::runtime_error("instruction not retired");
  }
  // A scalar statistic, a vector's total, or element `i` of a vector.
  uint64_t stat(const std::string& group, const std::string& name, int i = -1) const {
    auto& s = r.stats.at(group).at(name);
    return i < 0 ? s.value("value", s.value("total", uint64_t(0)))
                 : s.at("values").at(i).get<uint64_t>();
  }
  // A parameter in effect, by key path ("l1.hit_latency").
  uint64_t param(const std::string& path) const { return test::param(*cfg, path); }
  bool has_param(const std::string& path) const { return test::has_param(*cfg, path); }
};

} // namespace gpurf::test
