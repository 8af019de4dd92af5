#include "gpurf/modules/common/unit.h"

namespace gpurf {

Unit::Unit(const sc_core::sc_module_name& nm, const UnitContext& ctx)
    : sc_core::sc_module(nm), ctx_(ctx), clock_(ctx.clock), stats_(name()) {}

bool pipe_from_name(const std::string& s, Pipe& out) {
  for (unsigned i = 0; i < kNumPipes; ++i)
    if (s == pipe_name(static_cast<Pipe>(i))) {
      out = static_cast<Pipe>(i);
      return true;
    }
  return false;
}

} // namespace gpurf

#include "gpurf/policies/reg_mapping.h"
#include "gpurf/policies/wir_state.h"

namespace gpurf {

UnitContext default_context(const std::string& name) {
  static SmShape shape;
  static SimClock clock;
  static Params none(nullptr, "register_mapping");
  static auto mapping =
      RegMapping::Registry::create("gpgpusim", none, shape.banks, shape.regs_per_thread);
  shape.mapping = mapping.get();
  UnitContext c;
  c.name = name;
  c.shape = &shape;
  c.clock = &clock;
  // --describe builds a WIR unit alone: it gets WIR tables of its own (in an SM the allocator
  // `wir` creates them for the writeback `wir`), so that both describe their statistics.
  if (name.rfind("describe_", 0) == 0) {
    static std::vector<std::unique_ptr<WirBoard>> boards;
    boards.push_back(std::make_unique<WirBoard>());
    WirOptions o;
    o.warps = shape.warps;
    o.regs = shape.regs_per_thread;
    boards.back()->create(0, o, "");
    c.wir = boards.back().get();
  }
  return c;
}

} // namespace gpurf
