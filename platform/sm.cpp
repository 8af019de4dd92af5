#include "gpurf/platform/sm.h"

#include "gpurf/platform/interrupt.h"
#include "gpurf/platform/time_series.h"

#include <iostream>
#include <sstream>

#include <tlm_utils/tlm_quantumkeeper.h>

#include "gpurf/modules/allocator/i_allocator.h"
#include "gpurf/modules/arbiter/i_arbiter.h"
#include "gpurf/modules/bank/i_bank.h"
#include "gpurf/modules/collector/i_collector.h"
#include "gpurf/modules/crossbar/i_crossbar.h"
#include "gpurf/modules/exec/i_exec.h"
#include "gpurf/modules/l1/i_l1.h"
#include "gpurf/modules/lsu/i_lsu.h"
#include "gpurf/modules/rfc/i_rfc.h"
#include "gpurf/modules/scheduler/i_scheduler.h"
#include "gpurf/modules/writeback/i_writeback.h"

namespace gpurf {
namespace {

// A sub-core as a level of the module hierarchy: units built inside `build` are its
// children, so their names (and statistics groups) read sm.sub0.bank3.
struct SubCoreModule : sc_core::sc_module {
  SubCoreModule(sc_core::sc_module_name nm, const std::function<void()>& build)
      : sc_core::sc_module(nm) {
    build();
  }
};

// A slot's parameters and the implementation it names.
struct Slot {
  Params* p = nullptr;
  std::string impl;
};
template <class I> Slot slot(Params& top, const char* key, const char* def, const char* desc) {
  Params& p = top.sub(key, desc);
  return {&p, p.get_choice("impl", def, std::string("implementation of the ") + key,
                           I::Registry::names())};
}

// "fermi.yaml:11: sm.warps" (or "sm.warps: default"), for messages about a limit it sets.
std::string key_at(const Params& p, const std::string& key) {
  const std::string w = p.where(key.substr(key.find('.') + 1));
  return w == "default" ? key + ": default" : w + ": " + key;
}

// Reads `count` as an SM total that must split evenly over the sub-cores; an uneven split is
// reported at the key the user gave last (sm.subcores over an included file's count, or the
// count over an included file's sub-cores), with the other key's value and where.
unsigned per_subcore(Params& p, Params& sm, unsigned def, unsigned subcores,
                     const std::string& what, unsigned min = 1) {
  const unsigned n =
      p.get_uint("count", def, what + " in the SM (split over sub-cores)", min, 4096);
  if (n % subcores) {
    if (sm.depth("subcores") < p.depth("count"))
      sm.fail("subcores", std::to_string(subcores) + " sub-cores do not divide " +
                              p.said("count", n) + ": each sub-core gets count / sm.subcores " +
                              what + "; give a divisor of it, or change " + p.path() + ".count");
    p.fail("count", std::to_string(n) + " does not divide over " + sm.said("subcores", subcores) +
                        "; use a multiple of sm.subcores");
  }
  return n / subcores;
}

// What the units of a sub-core need of each other (Unit::need): each need is met by one of
// its alternatives (an impl "!x": any but x, or no such section), else the unit's slot is refused
// at its `impl` key, naming what it needs and what the platform has instead.
struct Built {
  const char* slot;
  const Slot* s; // null: the platform has no such section (rfc)
  const Unit* unit;
};
void check_needs(const std::vector<Built>& built) {
  auto find = [&](const std::string& slot) -> const Built* {
    for (const Built& b : built)
      if (slot == b.slot) return &b;
    return nullptr;
  };
  for (const Built& b : built) {
    if (!b.unit) continue;
    for (const Unit::Need& n : b.unit->needs()) {
      bool met = false;
      std::string wanted, have;
      for (const auto& [slot, impl] : n.any_of) {
        const Built* o = find(slot);
        const bool is = o && o->s && o->s->impl == (impl[0] == '!' ? impl.substr(1) : impl);
        if (impl[0] == '!' ? !is : is) met = true;
        wanted += (wanted.empty() ? "" : " or ") + slot + ".impl" +
                  (impl[0] == '!' ? " other than " + impl.substr(1) : ": " + impl);
        const std::string h =
            o && o->s ? o->s->p->said("impl", o->s->impl) : slot + ": none (no section)";
        if (have.find(h) == std::string::npos) have += (have.empty() ? "" : ", ") + h;
      }
      if (!met)
        b.s->p->fail("impl", "'" + b.s->impl + "' " + n.why + "; it needs " + wanted +
                                 ", the platform has " + have);
    }
  }
}

} // namespace

void check_request_size(const Unit::Bytes& sent, const Unit::Bytes& served) {
  if (!sent.bytes || !served.bytes || sent.bytes <= served.bytes) return;
  throw ConfigError(sent.keys + ": a request of " + std::to_string(sent.bytes) +
                    " bytes spans more lines than the next level has MSHRs (" + served.keys +
                    " = " + std::to_string(served.bytes) +
                    " bytes in one access): a miss on all of them could never be served; "
                    "valid: requests of at most " +
                    std::to_string(served.bytes) + " bytes, or a larger line or more MSHRs there");
}

Unit::Bytes Sm::largest_request() const {
  Unit::Bytes l1 = l1_->largest_request(), lsu = subcores_[0].lsu->largest_request();
  return lsu.bytes > l1.bytes ? lsu : l1; // stores pass through the L1 as the LSU sent them
}

// What the steps of the constructor hand on to each other: the platform's slots as read and
// the collector layout they imply.
struct Sm::Plan {
  Params* sm = nullptr;
  Slot sch, al, col, ar, bk, mp, xb, ex, wb, ls, l1;
  std::unique_ptr<Slot> rf; // only with an `rfc:` section
  Params* sets = nullptr;   // collector.sets
  unsigned generic = 0;     // general collectors per sub-core
  unsigned total = 0;       // all collectors per sub-core
  std::vector<unsigned> set_count = std::vector<unsigned>(kNumPipes); // per pipe, per sub-core
  unsigned occ_data = 0, hw_data = 0; // the front-end's occupancy and ptxas counts
  unsigned store_rows = 0;            // bank rows with backing storage (0: bank.entries)
  RegForm stored = RegForm::Full;     // the form registers are stored in
};

Sm::Sm(sc_core::sc_module_name nm, Params& top, IFrontend& frontend, unsigned regs_per_thread,
       const std::vector<Observer*>& observers, Mode mode)
    : sc_core::sc_module(nm), frontend_(frontend), mode_(mode), stats_(name()),
      cycles_(stats_.scalar("cycles", "simulated SM cycles", "cycles",
                            energy::leakage("time base of every leakage term"))),
      retired_(
          stats_.scalar("warp_instructions", "warp instructions retired", "instructions",
                        energy::no_event("retired instructions; priced by exec.instructions"))),
      resident_warps_(stats_.scalar("resident_warps", "warps resident at most (occupancy)", "warps",
                                    energy::no_event("occupancy"),
                                    check::unwatched("occupancy at launch"))),
      resident_ctas_(stats_.scalar("resident_ctas", "CTAs resident at most (occupancy)", "CTAs",
                                   energy::no_event("occupancy"),
                                   check::unwatched("occupancy at launch"))),
      cta_limit_(stats_.vector(
          "cta_limit", Occupancy::kLimits,
          "CTAs each resource allows (0: it does not bound them); the "
          "smallest bounds resident_ctas",
          "CTAs",
          {Occupancy::name(Occupancy::Warps), Occupancy::name(Occupancy::Registers),
           Occupancy::name(Occupancy::Ctas), Occupancy::name(Occupancy::SharedMemory),
           Occupancy::name(Occupancy::Grid)},
          energy::no_event("occupancy"), check::unwatched("occupancy limits at launch"))) {
  Plan plan;
  read_platform(plan, top, regs_per_thread, observers);
  build_units(plan);
  check_compatibility(plan);
  add_sm_state(plan);
  size_occupancy(plan);
  bind_sockets(plan);
  order_ticks();
  attach_observers(observers);
  stats_.ratio("ipc", "warp instructions per cycle", "instructions/cycle", {"warp_instructions"},
               {"cycles"});
  if (mode_.decoupled) { // SC_THREAD and SC_METHOD are several statements
    SC_THREAD(run_decoupled);
  } else {
    SC_METHOD(step); // runs at time 0 (hosted: at restart()), then re-triggers itself
    sensitive << start_;
    if (mode_.hosted) dont_initialize();
  }
}

// The `sm:` keys and every slot's implementation, read in one order (the order --dump-config
// writes them in): the shape every unit is built for.
void Sm::read_platform(Plan& plan, Params& top, unsigned regs_per_thread,
                       const std::vector<Observer*>& observers) {
  Params& sm = *(plan.sm = &top.sub("sm", "SM shape and run control"));
  shape_.warps = sm.get_uint("warps", 48, "warp slots in the SM", 1, 4096);
  shape_.subcores = sm.get_uint("subcores", 1, "sub-core partitions", 1, 64);
  const double ghz = sm.get_double("clock_ghz", 1.0, "SM clock frequency in GHz", 0.001, 100);
  clock_.period = sc_core::sc_time(1.0 / ghz, sc_core::SC_NS);
  shape_.clock_ghz = ghz;
  watchdog_ = sm.get_uint("watchdog_cycles", 200000,
                          "stop when no instruction retires for this many cycles", 100, 1u << 31);
  // 5e8 cycles is about half an hour of host time: the last bound on a runaway run, after the
  // front-end's loop watch and progress bound (modules/frontend/loop_watch.h).
  max_cycles_ =
      sm.get_int("max_cycles", 500000000,
                 "stop after this many cycles (raise it for longer kernels)", 1, INT64_MAX);
  checks_ = sm.get_bool("checks", true,
                        "run the timing checker and the conservation identities (off: speed "
                        "runs only; docs/checks.md)");
  limits_.warps = shape_.warps;
  limits_.max_ctas = sm.get_uint("max_ctas", 0,
                                 "CTAs resident in the SM at most (CTA slots); 0: no limit "
                                 "besides warps, registers and shared memory",
                                 0, 4096);
  limits_.shared_bytes = sm.get_uint("shared_bytes", 48 * 1024,
                                     "shared memory per SM in bytes (the CTAs' shared memory "
                                     "must fit together)",
                                     0, 1u << 30);
  limits_.warps_where = key_at(sm, "sm.warps");
  limits_.shared_where = key_at(sm, "sm.shared_bytes");
  const unsigned sub = shape_.subcores;
  if (shape_.warps % sub)
    sm.fail("subcores", std::to_string(sub) + " sub-cores do not divide sm.warps = " +
                            std::to_string(shape_.warps) + " (" + sm.where("warps") +
                            "): each sub-core holds sm.warps / sm.subcores warps");
  shape_.regs_per_thread = data_regs_ = std::max(1u, regs_per_thread);
  shape_.preds_per_thread = std::max(frontend_.predicate_registers(), mode_.predicates);
  preds_in_banks_ =
      sm.get_choice("predicates", "file",
                    "where predicate registers live: file (a separate predicate file, no bank "
                    "ports) or banks (one 32-lane register each, read and written like data; "
                    "docs/checks.md)",
                    {"file", "banks"}) == "banks";
  if (preds_in_banks_) {
    shape_.regs_per_thread += shape_.preds_per_thread;
    shape_.preds_per_thread = 0;
  }
  observed_ = checks_ || !observers.empty();
  // With the checker the only observer (every run that does not trace) the units call it
  // directly instead of through the Probes forwarder: one virtual call per event, not two.
  // It exists from here on so that the units' contexts can name it; attach_observers gives it
  // the timing spec once the units that the spec describes are built.
  if (checks_ && observers.empty()) checker_ = std::make_unique<TimingChecker>(TimingSpec{});

  plan.sch = slot<IScheduler>(top, "scheduler", "standard", "warp schedulers");
  shape_.schedulers = per_subcore(*plan.sch.p, sm, 2, sub, "schedulers");
  plan.al = slot<IAllocator>(top, "allocator", "round_robin", "collector allocator");
  plan.col = slot<ICollector>(top, "collector", "ocu", "operand collector units");
  Params& col = *plan.col.p;
  plan.generic = per_subcore(col, sm, 4, sub, "general collectors", 0);
  Params& sets =
      *(plan.sets = &col.sub("sets", "specialised collectors serving one pipe: pipe: count"));
  plan.total = plan.generic;
  for (unsigned i = 0; i < kNumPipes; ++i) {
    const unsigned n = sets.get_uint(pipe_name(static_cast<Pipe>(i)), 0,
                                     "collectors serving only this pipe", 0, 4096);
    if (n % sub) sets.fail(pipe_name(static_cast<Pipe>(i)), "does not divide over the sub-cores");
    plan.total += plan.set_count[i] = n / sub;
  }
  if (!plan.total) col.fail("count", "the SM needs at least one collector");
  shape_.collectors = plan.total;
  plan.ar = slot<IArbiter>(top, "arbiter", "write_first", "bank arbiter");
  plan.bk = slot<IBank>(top, "bank", "sliced", "register banks");
  shape_.banks = per_subcore(*plan.bk.p, sm, 4, sub, "register banks");
  // bank.entries is read by the bank's implementation, below; where() finds it in the file.
  limits_.registers_where =
      key_at(*plan.bk.p, "bank.count") + ", " + key_at(*plan.bk.p, "bank.entries");
  plan.mp = slot<RegMapping>(top, "register_mapping", "gpgpusim", "register-to-bank mapping");
  mapping_ =
      RegMapping::Registry::create(plan.mp.impl, *plan.mp.p, shape_.banks, shape_.regs_per_thread);
  shape_.mapping = mapping_.get();
  plan.xb = slot<ICrossbar>(top, "crossbar", "full", "bank-to-collector crossbar");
  plan.ex = slot<IExec>(top, "exec", "pipes", "execution pipes (per sub-core)");
  plan.wb = slot<IWriteback>(top, "writeback", "priority", "writeback (per sub-core)");
  plan.ls = slot<ILsu>(top, "lsu", "coalescing", "load/store unit, the MEM pipe (per sub-core)");
  plan.l1 = slot<IL1>(top, "l1", "set_assoc", "L1 data cache (shared)");
  // A register file cache only when the platform has an `rfc:` section (docs/gebhart.md).
  if (top.node() && top.node()->find("rfc"))
    plan.rf = std::make_unique<Slot>(
        slot<IRfc>(top, "rfc", "cache", "register file cache (per sub-core)"));
}

// Every sub-core's units (children of sm.subN), then the shared L1: the units read their own
// keys as they are built.
void Sm::build_units(Plan& plan) {
  Params& sm = *plan.sm;
  const unsigned sub = shape_.subcores;
  // GPGPU-Sim's PTX mode (the front-end counts fewer registers for occupancy than its
  // instructions name), or an allocator that needs more registers than ptxas: storage for
  // every named register of every warp slot. The banks model `bank.entries` rows (energy,
  // leakage); the rows beyond are backing storage read and written through the same banks and
  // ports (docs/design.md, "Occupancy").
  plan.occ_data = frontend_.occupancy_registers();
  plan.hw_data = frontend_.hardware_registers();
  unsigned store_rows = 0;
  // Sized once the banks say how many rows they model (the launch bounds' cap needs it).
  auto size_storage = [&](unsigned bank_rows) {
    bound_registers(plan.mp.impl, *plan.mp.p, bank_rows, data_regs_,
                    frontend_.predicate_registers(), frontend_.bound_warps(), plan.occ_data,
                    plan.hw_data);
    const bool backing = (plan.occ_data && plan.occ_data != data_regs_) ||
                         (plan.hw_data && plan.hw_data < data_regs_);
    store_rows = backing ? mapping_->rows_needed(shape_.warps / sub) : 0;
    // A later kernel of the GPU's modules whose allocator count exceeds ptxas's gets its
    // backing rows too: the storage is allocated once, here (a hosted GPU's first kernel may
    // need none while another needs more rows than the banks have).
    for (const Mode::Kernel& k : mode_.kernels) {
      const unsigned data = std::max(1u, k.data);
      unsigned occ = k.occ, hw = k.hw;
      bound_registers(plan.mp.impl, *plan.mp.p, bank_rows, data, k.preds, k.bound, occ, hw);
      if (data > data_regs_ || !((occ && occ != data) || (hw && hw < data))) continue;
      const unsigned regs = data + (preds_in_banks_ ? k.preds : 0);
      store_rows = std::max(
          store_rows, RegMapping::Registry::create(plan.mp.impl, *plan.mp.p, shape_.banks, regs)
                          ->rows_needed(shape_.warps / sub));
    }
    plan.store_rows = store_rows;
  };
  const Slot &sch = plan.sch, &al = plan.al, &col = plan.col, &ar = plan.ar, &bk = plan.bk,
             &xb = plan.xb, &ex = plan.ex, &wb = plan.wb, &ls = plan.ls;
  subcores_.resize(sub);
  for (unsigned s = 0; s < sub; ++s) {
    SubCore& c = subcores_[s];
    auto build = [&] {
      c.exec = IExec::Registry::create(ex.impl, *ex.p, context("exec", s, 0));
      for (unsigned i = 0; i < kNumPipes; ++i) {
        const Pipe p = static_cast<Pipe>(i);
        if (p != Pipe::MEM && !c.exec->units(p)) shape_.pipe_map[i] = Pipe::SP;
      }
      for (unsigned i = 0; i < kNumOpClasses; ++i)
        shape_.class_pipe[i] = int8_t(c.exec->class_timing(static_cast<OpClass>(i)).pipe);
      for (unsigned b = 0; b < shape_.banks; ++b)
        c.banks.push_back(IBank::Registry::create(bk.impl, *bk.p, context("bank", s, b)));
      shape_.slices = c.banks[0]->slices();
      shape_.bank_rows = c.banks[0]->rows();
      if (s == 0) size_storage(shape_.bank_rows);
      // One row more than the registers need: WIR's zero register (RZ) lives there.
      shape_.storage_rows = std::max(shape_.bank_rows, store_rows) + 1;
      // Storage beyond what the banks claimed: the backing rows of every warp slot's named
      // registers (sm.warps) and a row tag per bank row; claimed before it is allocated.
      const uint64_t rows = std::max(shape_.bank_rows, store_rows);
      sm.claim_storage(uint64_t(shape_.banks) * (shape_.storage_rows - shape_.bank_rows) *
                           (kRegBytes + shape_.slices * sizeof(uint64_t)),
                       "warps", "sm.warps x the kernel's registers beyond bank.entries x 128 B");
      bk.p->claim_storage(uint64_t(shape_.banks) * rows, "entries",
                          "bank.count x rows x 1 B of row tags");
      for (auto& b : c.banks) b->reserve_rows(shape_.storage_rows);
      c.row_tags = std::make_unique<RowTags>(shape_.banks, std::max(shape_.bank_rows, store_rows));
      for (unsigned k = 0; k < shape_.schedulers; ++k)
        c.schedulers.push_back(
            IScheduler::Registry::create(sch.impl, *sch.p, context("scheduler", s, k)));
      c.allocator = IAllocator::Registry::create(al.impl, *al.p, context("allocator", s, 0));
      for (unsigned i = 0; i < plan.total; ++i)
        c.collectors.push_back(
            ICollector::Registry::create(col.impl, *col.p, context("collector", s, i)));
      if (plan.rf) c.rfc = IRfc::Registry::create(plan.rf->impl, *plan.rf->p, context("rfc", s, 0));
      c.arbiter = IArbiter::Registry::create(ar.impl, *ar.p, context("arbiter", s, 0));
      c.crossbar = ICrossbar::Registry::create(xb.impl, *xb.p, context("crossbar", s, 0));
      const ICrossbar::Decompression dec = c.crossbar->decompression();
      for (auto& cu : c.collectors) {
        cu->set_read_latency(c.banks[0]->latency() + c.crossbar->latency() +
                             (dec.at_dispatch ? 0 : dec.latency));
        // W-C's stage between the collector and the pipe: the collector asks it at dispatch.
        ICrossbar* x = c.crossbar.get();
        if (dec.at_dispatch && !cu->set_dispatch_stage([x](unsigned n, Cycle now, bool book) {
              return x->dispatch_stage(n, now, book);
            }))
          xb.p->fail("stage_at", "dispatch: the decompression stage between the collector and "
                                 "the pipe needs a collector that dispatches through it, and " +
                                     col.p->said("impl", col.impl) +
                                     " does not; use stage_at: crossbar");
      }
      for (auto& cu : c.collectors) cu->set_peers(c.collectors);
      shape_.forward_stages = c.collectors[0]->read_stages();
      c.writeback = IWriteback::Registry::create(wb.impl, *wb.p, context("writeback", s, 0));
      c.lsu = ILsu::Registry::create(ls.impl, *ls.p, context("lsu", s, 0));
    };
    new SubCoreModule(("sub" + std::to_string(s)).c_str(), build);
  }
  l1_ = IL1::Registry::create(plan.l1.impl, *plan.l1.p, context("l1", 0, 0));
}

// The rules between units that no unit can check alone (collector sets, Malekeh's caching
// collectors, W-C's register forms, WIR's paired stages, each unit's needs): a platform that
// breaks one is refused at the key to change, before anything runs.
void Sm::check_compatibility(Plan& plan) {
  const Slot &al = plan.al, &col = plan.col, &ar = plan.ar, &wb = plan.wb;
  const SubCore& c0 = subcores_[0];
  // Every pipe that runs instructions (the LSU's included) needs a collector that serves it,
  // or its first instruction waits forever.
  for (unsigned i = 0; i < kNumPipes; ++i) {
    const Pipe p = static_cast<Pipe>(i);
    if (!plan.generic && !plan.set_count[i] && (p == Pipe::MEM || c0.exec->units(p)))
      plan.sets->fail(pipe_name(p), std::string("no collector serves the ") + pipe_name(p) +
                                        " pipe (collector.count is 0): give it at least one, or "
                                        "general collectors (collector.count)");
  }
  // A fixed register-read stage takes one instruction per issue slot and cycle: one
  // collector per stage and issue slot, or issue would stall on the stage itself.
  if (const unsigned n = shape_.forward_stages,
      need = n * shape_.schedulers * c0.schedulers[0]->issue_width();
      n && plan.total * c0.collectors[0]->capacity() < need)
    col.p->fail("count",
                std::to_string(plan.total * shape_.subcores) + " collectors cannot hold a " +
                    std::to_string(n) + "-stage register read: it needs stages x " +
                    "schedulers x issue_width = " + std::to_string(need * shape_.subcores));

  // A read stage that reserves bank read ports (fixed_window's read_ports) must be given as
  // many by the banks, or a reserved read would be granted a cycle late.
  if (const unsigned need = c0.collectors[0]->bank_read_ports(), have = c0.banks[0]->read_ports();
      need && need != have)
    col.p->fail("read_ports",
                std::to_string(need) + " read ports per bank reserved, but the banks (" +
                    plan.bk.p->said("impl", plan.bk.impl) + ") have " + std::to_string(have) +
                    " per bank: set bank.ports to " + (need == 2 ? "2r1w" : "1r1w") +
                    " (1r1w: one read and one write port, 2r1w: two read ports and one write "
                    "port), or read_ports to " +
                    std::to_string(have));

  // The fixed window reserves a port cycle for every read that misses its own cache; an RFC
  // unit behind it answers reads in its own time (a tag stage, then the banks) and allocates
  // results the window's bypass does not see: it would deliver operands after the window.
  if (plan.rf && c0.collectors[0]->bank_read_ports())
    plan.rf->p->fail("impl", "a register file cache unit between " +
                                 plan.col.p->said("impl", plan.col.impl) +
                                 " and the banks answers reads after the fixed read window "
                                 "reserved them (a tag stage, then the banks); the window has "
                                 "its own operand-slot cache (collector.rfc): remove the rfc "
                                 "section, or use collector.impl: fixed_stage with it (Gebhart's "
                                 "read stage)");
  // Nor may a bank read wait for a gated slice to wake (W-C's power gating).
  if (c0.collectors[0]->bank_read_ports() && c0.banks[0]->wake_latency())
    plan.bk.p->fail("impl", plan.bk.p->said("impl", plan.bk.impl) + " wakes a gated slice in " +
                                std::to_string(c0.banks[0]->wake_latency()) +
                                " cycles (wake_latency), but " +
                                plan.col.p->said("impl", plan.col.impl) +
                                " reads in a fixed window that cannot wait for it (a register "
                                "still in flight is read from gated slices); use bank.impl: "
                                "sliced, or wake_latency: 0");
  // A read stage that reserves its reads for a fixed window dispatches at a fixed cycle: a
  // decompressor that makes a read wait past it would deliver the operand late, so there must
  // be one per read the banks can give in a cycle.
  if (const unsigned reads = c0.collectors[0]->bank_read_ports() * shape_.banks,
      units = c0.crossbar->decompression().units;
      reads && units && units < reads)
    plan.xb.p->fail("decompressors",
                    std::to_string(units) + " decompressors per sub-core, but " +
                        plan.col.p->said("impl", plan.col.impl) +
                        " reads its operands in a fixed window, up to " + std::to_string(reads) +
                        " bank reads per cycle (banks per sub-core x read_ports): a read waiting "
                        "for a decompressor would arrive after the window; give at least " +
                        std::to_string(reads));
  // Caching collectors keep copies of registers: every overwrite must reach them (the arbiter
  // offers results to port D) and must be a bank write the arbiter sees (no RFC in between).
  if (c0.collectors[0]->cache_hit_latency()) {
    if (!c0.arbiter->feeds_collector_caches())
      ar.p->fail("impl", "'" + ar.impl + "' does not offer results to the caching collectors (" +
                             "collector.impl: " + col.impl +
                             "), whose copies would outlive their overwrites; use arbiter.impl: "
                             "malekeh");
    if (plan.rf)
      plan.rf->p->fail(
          "impl",
          "a register file cache holds results the banks (and so collector.impl: " + col.impl +
              ") do not see yet; caching collectors need the results "
              "written straight to the banks: remove the rfc section");
  }
  // A register stored in a special form must be read by the unit that decodes it, and a
  // decoding reader needs registers stored in its form.
  const RegForm wb_stored = c0.writeback->stored_form();
  // A register file cache writes evicted values in full form over rows whose form the
  // writeback recorded when it sent them: the storing unit must sit behind the RFC.
  if (plan.rf && wb_stored != RegForm::Full)
    wb.p->fail("impl", "'" + wb.impl + "' stores registers in " + reg_form_text(wb_stored).name +
                           " form before the register file cache, whose evictions reach the "
                           "banks in full form; keep the writeback full-form and store the form "
                           "at the banks' write port (arbiter.impl: warped_compression_mrf), or "
                           "remove the rfc section");
  const RegForm arb_stored = c0.arbiter->stored_form();
  if (wb_stored != RegForm::Full && arb_stored != RegForm::Full)
    ar.p->fail("impl", "'" + ar.impl + "' stores registers in " + reg_form_text(arb_stored).name +
                           " form itself, and writeback.impl '" + wb.impl + "' already stores " +
                           reg_form_text(wb_stored).name + " ones; one of them must be full-form");
  const RegForm stored = plan.stored = wb_stored != RegForm::Full ? wb_stored : arb_stored;
  const RegForm col_reads = c0.collectors[0]->read_form();
  const RegForm arb_reads = c0.arbiter->read_form();
  if (stored != RegForm::Full && col_reads != stored && arb_reads != stored)
    wb.p->fail("impl", "'" + wb.impl + "' stores registers in " + reg_form_text(stored).name +
                           " form, which neither collector.impl '" + col.impl +
                           "' nor arbiter.impl '" + ar.impl + "' reads; it needs " +
                           reg_form_text(stored).reader);
  for (auto [reads, slot] : {std::pair{col_reads, &col}, {arb_reads, &ar}})
    if (reads != RegForm::Full && reads != stored)
      slot->p->fail("impl", "'" + slot->impl + "' reads registers in " + reg_form_text(reads).name +
                                " form, which writeback.impl '" + wb.impl +
                                "' does not store; it needs " + reg_form_text(reads).writer);
  // WIR: the rename stage and the register allocation stage share the tables; one without the
  // other would read registers the other never wrote.
  if (bool(wir_board_.at(0)) != c0.writeback->renames())
    wb.p->fail("impl", "'" + wb.impl + "' and allocator.impl '" + al.impl +
                           "': WIR needs both the allocator and the writeback 'wir' (rename and "
                           "reuse stages, register allocation stage)");
  check_needs({{"scheduler", &plan.sch, c0.schedulers[0].get()},
               {"allocator", &al, c0.allocator.get()},
               {"collector", &col, c0.collectors[0].get()},
               {"arbiter", &ar, c0.arbiter.get()},
               {"bank", &plan.bk, c0.banks[0].get()},
               {"crossbar", &plan.xb, c0.crossbar.get()},
               {"exec", &plan.ex, c0.exec.get()},
               {"writeback", &wb, c0.writeback.get()},
               {"lsu", &plan.ls, c0.lsu.get()},
               {"l1", &plan.l1, l1_.get()},
               {"rfc", plan.rf.get(), c0.rfc.get()}});
  // A segment the L1 could never serve (more lines than MSHRs) fails here, not at the first
  // load.
  check_request_size(c0.lsu->largest_request(), l1_->largest_served());
  // A fixed register-read stage forwards each result at its producer's ValueReady; WIR's
  // rename and reuse stages (modelled on the paper's operand collectors) complete reused
  // instructions without that path and rename their destinations, so an operand would be
  // forwarded from a producer that was never in flight (the timing checker's RAW rule).
  if (shape_.forward_stages && c0.writeback->renames())
    col.p->fail("impl", "'" + col.impl +
                            "' forwards results through a fixed read stage, which "
                            "WIR's rename and reuse stages (" +
                            wb.p->said("impl", wb.impl) +
                            ") do not feed; use collector.impl: ocu with WIR");
}

// What the SM itself does for the units it was built with: bank gating, row resets, W-C's
// dummy MOVs.
void Sm::add_sm_state(Plan& plan) {
  gating_ = subcores_[0].banks[0]->wake_latency() != 0;
  finished_warps_.assign(shape_.warps, 0);
  reset_rows_ = !subcores_[0].writeback->renames();
  // Warped-Compression: divergent instructions need their compressed destinations
  // decompressed first (platform/dummy_movs.h).
  if (plan.stored == RegForm::Bdi) {
    movs_ = std::make_unique<DummyMovs>(
        shape_,
        [this](unsigned s) { return s < subcores_.size() ? subcores_[s].row_tags.get() : nullptr; },
        [this](unsigned w, unsigned r) {
          const SubCore& c = subcores_[shape_.subcore_of(w)];
          return c.rfc && c.rfc->bank_copy_stale(w, r);
        },
        subcores_[0].exec->timing(Pipe::SP).latency);
    movs_injected_ = &stats_.scalar(
        "movs_injected", "W-C dummy MOVs issued", "instructions",
        energy::no_event(
            "W-C dummy MOVs; priced by their bank, wire, codec and functional-unit events"));
    movs_retired_ = &stats_.scalar("movs_retired", "W-C dummy MOVs retired", "instructions",
                                   energy::no_event("W-C dummy MOVs; as movs_injected"));
  }
}

// The register space the SM was built for (later kernels must fit it) and the first kernel's
// occupancy limits.
void Sm::size_occupancy(Plan& plan) {
  capacity_data_ = data_regs_;
  capacity_preds_ = std::max(frontend_.predicate_registers(), mode_.predicates);
  kernel_regs_ = shape_.regs_per_thread;
  mapping_impl_ = plan.mp.impl;
  mapping_params_ = std::make_unique<Params>(nullptr, "register_mapping");
  killed_.assign(shape_.warps, 0);
  kernel_limits(plan.occ_data, plan.hw_data);
}

// Every socket of every sub-core; an RFC, where there is one, sits between the collectors,
// the writeback and the arbiter.
void Sm::bind_sockets(Plan& plan) {
  for (SubCore& c : subcores_) {
    for (auto& k : c.schedulers) k->to_alloc.bind(c.allocator->in);
    unsigned i = 0;
    for (unsigned pipe = 0; pipe <= kNumPipes; ++pipe) {
      const unsigned n = pipe == kNumPipes ? plan.generic : plan.set_count[pipe];
      for (unsigned j = 0; j < n; ++j, ++i) {
        ICollector& o = *c.collectors[i];
        o.pipe_mask = pipe == kNumPipes ? ~0u : 1u << pipe;
        c.allocator->to_collector.bind(o.in);
        c.allocator->add_collector(o.pipe_mask);
        o.to_alloc.bind(c.allocator->release);
        if (c.rfc)
          o.to_arb.bind(c.rfc->in);
        else
          o.to_arb.bind(c.arbiter->in);
        o.to_exec.bind(c.exec->in);
        for (auto& k : c.schedulers) o.to_sched.bind(k->notify);
        o.to_fwd.bind(c.writeback->forward);
        c.arbiter->to_collector.bind(o.from_wb);
        if (c.rfc) {
          c.crossbar->to_collector.bind(c.rfc->from_xbar);
          c.rfc->to_collector.bind(o.from_xbar);
        } else {
          c.crossbar->to_collector.bind(o.from_xbar);
        }
      }
    }
    for (auto& b : c.banks) {
      c.arbiter->to_bank.bind(b->in);
      c.arbiter->add_bank(b->slices(), b->separate_write_port(), b->read_ports());
      b->out.bind(c.crossbar->in);
    }
    if (c.rfc) {
      c.arbiter->to_wb.bind(c.rfc->write_done);
      c.rfc->to_wb.bind(c.writeback->write_done);
      c.rfc->to_arb.bind(c.arbiter->in);
      for (auto& k : c.schedulers)
        if (auto* client = dynamic_cast<IRfcClient*>(k.get())) client->rfc_port().bind(c.rfc->in);
    } else {
      c.arbiter->to_wb.bind(c.writeback->write_done);
    }
    c.allocator->to_wb.bind(c.writeback->in);
    for (auto& k : c.schedulers) c.allocator->to_sched.bind(k->notify);
    c.exec->to_lsu.bind(c.lsu->in);
    c.exec->to_wb.bind(c.writeback->in);
    c.lsu->to_wb.bind(c.writeback->in);
    c.lsu->to_l1.bind(l1_->in);
    if (c.rfc)
      c.writeback->to_arb.bind(c.rfc->in);
    else
      c.writeback->to_arb.bind(c.arbiter->in);
    for (auto& k : c.schedulers) c.writeback->to_sched.bind(k->notify);
  }
}

// Tick order: downstream first, so a value produced in cycle t is consumed in t + 1. The
// LSU goes before the writeback: it hands over a result in the cycle it is ready (exec
// pipes hand theirs over at dispatch, with the latency as delay).
void Sm::order_ticks() {
  for (SubCore& c : subcores_) {
    order_.push_back(c.lsu.get());
    order_.push_back(c.writeback.get());
    order_.push_back(c.exec.get());
    for (auto& o : c.collectors) order_.push_back(o.get());
    if (c.rfc) order_.push_back(c.rfc.get());
    order_.push_back(c.arbiter.get());
    order_.push_back(c.allocator.get());
  }
  order_.push_back(l1_.get());
  for (SubCore& c : subcores_)
    for (auto& k : c.schedulers) order_.push_back(k.get());
  due_.assign(order_.size(), kNever); // never resized again: the units point into it
  for (size_t i = 0; i < order_.size(); ++i) order_[i]->keep_tick_at(&due_[i]);
}

// The timing checker (sm.checks) and the caller's observers see every instruction.
void Sm::attach_observers(const std::vector<Observer*>& observers) {
  if (checks_) {
    if (checker_)
      *checker_ = TimingChecker(timing_spec()); // same object: the units' contexts name it
    else
      checker_ = std::make_unique<TimingChecker>(timing_spec());
    probes_.add(checker_.get());
  }
  for (Observer* o : observers) probes_.add(o);
  version_.assign(shape_.warps, std::vector<uint64_t>(shape_.regs_per_thread, 0));
}

// Occupancy: the warps whose registers fit in the banks (also beyond sm.warps, so that the
// summary can say which of the two bounds the kernel).
// Under GPGPU-Sim's PTX mode the front-end names more registers than occupancy counts
// (ptxas's): the warps that fit are those of ptxas's count, and the banks get storage for the
// registers the instructions name.
void Sm::kernel_limits(unsigned occ_data, unsigned hw_data) {
  limits_ = register_limits(kernel_regs_, data_regs_, *mapping_, occ_data, hw_data);
}

SmLimits Sm::register_limits(unsigned kernel_regs, unsigned data_regs, const RegMapping& mapping,
                             unsigned occ_data, unsigned hw_data) const {
  const unsigned rows = subcores_[0].banks[0]->rows(), sub = shape_.subcores;
  auto create = [&](unsigned regs) {
    return RegMapping::Registry::create(mapping_impl_, *mapping_params_, shape_.banks, regs);
  };
  SmLimits l = limits_;
  std::unique_ptr<RegMapping> occ_map;
  l.hardware_regs_per_thread = l.hardware_register_warps = 0;
  if (occ_data && occ_data != data_regs) {
    l.regs_per_thread = occ_data + (kernel_regs - data_regs);
    occ_map = create(l.regs_per_thread);
  } else {
    l.regs_per_thread = kernel_regs;
  }
  auto fit_warps = [&](const RegMapping& m) {
    unsigned fit = 0;
    while (fit < 4096 && m.rows_needed(fit + 1) <= rows) ++fit;
    return fit * sub;
  };
  l.register_warps = fit_warps(occ_map ? *occ_map : mapping);
  if (hw_data && !occ_data && hw_data < data_regs) {
    l.hardware_regs_per_thread = hw_data + (kernel_regs - data_regs);
    l.hardware_register_warps = fit_warps(*create(l.hardware_regs_per_thread));
  }
  return l;
}

SmLimits Sm::limits_for(unsigned data_regs, unsigned preds, unsigned occ_data, unsigned hw_data,
                        unsigned bound_warps) const {
  data_regs = std::max(1u, data_regs);
  bound_registers(mapping_impl_, *mapping_params_, subcores_[0].banks[0]->rows(), data_regs, preds,
                  bound_warps, occ_data, hw_data);
  const unsigned regs = data_regs + (preds_in_banks_ ? preds : 0);
  const auto mapping =
      RegMapping::Registry::create(mapping_impl_, *mapping_params_, shape_.banks, regs);
  return register_limits(regs, data_regs, *mapping, occ_data, hw_data);
}

// __launch_bounds__ (.maxntid, .minnctapersm) promise that many warps per SM: a compiler for
// this register file caps the kernel's registers so that they fit, spilling the rest (a
// 1,024-thread bound gives 32 registers on Fermi's 32,768 where sm_75's ptxas gives 64). Lowers
// the count occupancy follows (occ_data under ptx_virtual, else ptxas's hw_data, else the
// allocator's) to the largest that fits `bound_warps`, when it does not fit and a smaller one
// would; the registers the instructions name beyond it live in backing storage.
void Sm::bound_registers(const std::string& impl, Params& params, unsigned rows, unsigned data_regs,
                         unsigned preds, unsigned bound_warps, unsigned& occ_data,
                         unsigned& hw_data) const {
  const unsigned sub = shape_.subcores;
  const unsigned need = std::min((bound_warps + sub - 1) / sub, shape_.warps / sub);
  if (!need) return;
  const unsigned extra = preds_in_banks_ ? preds : 0;
  auto fits = [&](unsigned data) {
    return RegMapping::Registry::create(impl, params, shape_.banks, data + extra)
               ->rows_needed(need) <= rows;
  };
  auto cap = [&](unsigned regs) {
    if (fits(regs) || !fits(1)) return regs; // fits already, or no count would
    unsigned lo = 1, hi = regs;              // fits(lo), !fits(hi)
    while (hi - lo > 1) {
      const unsigned mid = (lo + hi) / 2;
      (fits(mid) ? lo : hi) = mid;
    }
    return lo;
  };
  if (occ_data) {
    occ_data = cap(occ_data);
  } else {
    const unsigned have = std::max(1u, hw_data && hw_data < data_regs ? hw_data : data_regs);
    const unsigned c = cap(have);
    if (c < have) hw_data = c;
  }
}

void Sm::bound_registers(unsigned data_regs, unsigned preds, unsigned bound_warps,
                         unsigned& occ_data, unsigned& hw_data) const {
  bound_registers(mapping_impl_, *mapping_params_, subcores_[0].banks[0]->rows(),
                  std::max(1u, data_regs), preds, bound_warps, occ_data, hw_data);
}

void Sm::set_kernel_registers(unsigned data_regs) {
  data_regs = std::max(1u, data_regs);
  const unsigned preds = frontend_.predicate_registers();
  if (data_regs > capacity_data_ || preds > capacity_preds_)
    throw WorkloadError("the kernel needs " + std::to_string(data_regs) + " registers and " +
                        std::to_string(preds) + " predicates per thread; " + name() +
                        " was built for at most " + std::to_string(capacity_data_) + " and " +
                        std::to_string(capacity_preds_) +
                        " (gpu.hosted_registers, gpu.hosted_predicates)");
  unsigned occ_data = frontend_.occupancy_registers();
  unsigned hw_data = frontend_.hardware_registers();
  bound_registers(mapping_impl_, *mapping_params_, subcores_[0].banks[0]->rows(), data_regs, preds,
                  frontend_.bound_warps(), occ_data, hw_data);
  const unsigned regs = data_regs + (preds_in_banks_ ? preds : 0);
  auto mapping = RegMapping::Registry::create(mapping_impl_, *mapping_params_, shape_.banks, regs);
  // Registers beyond the banks' rows (GPGPU-Sim's PTX mode, see the constructor) live in the
  // storage rows the SM was built with.
  const bool backing = (occ_data && occ_data != data_regs) || (hw_data && hw_data < data_regs);
  const unsigned need = backing ? mapping->rows_needed(shape_.warps / shape_.subcores) : 0;
  if (need + 1 > shape_.storage_rows)
    throw WorkloadError("the kernel's " + std::to_string(data_regs) +
                        " registers per thread need " + std::to_string(need) +
                        " rows of register storage per bank (the allocator's count above " +
                        (hw_data && hw_data < data_regs ? "ptxas's " + std::to_string(hw_data)
                                                        : "the occupancy count") +
                        ": backing rows beyond bank.entries for every warp slot); " + name() +
                        " has " + std::to_string(shape_.storage_rows - 1) +
                        ", sized when the GPU was built for the kernels of the modules it had "
                        "then (a module loaded later cannot add any)");
  data_regs_ = data_regs;
  kernel_regs_ = regs;
  mapping_ = std::move(mapping);
  shape_.mapping = mapping_.get();
  banked_.clear(); // predicates in banks follow the kernel's data registers (drained: unused)
  kernel_limits(occ_data, hw_data);
}

Sm::~Sm() = default;

void Sm::set_occupancy(const Occupancy& o) {
  resident_warps_ = o.warps;
  resident_ctas_ = o.ctas;
  for (unsigned l = 0; l < Occupancy::kLimits; ++l) cta_limit_[l] = o.by[l];
}

UnitContext Sm::context(const std::string& name, unsigned subcore, unsigned index) {
  UnitContext c;
  const bool many = name == "bank" || name == "scheduler" || name == "collector";
  c.name = many ? name + std::to_string(index) : name;
  c.subcore = subcore;
  c.index = index;
  c.shape = &shape_;
  c.clock = &clock_;
  c.frontend = this;
  c.pool = &pool_;
  // The checker directly while it is the only observer there will be (built before the units,
  // Probes still empty); else every observer through Probes.
  c.probe = checker_ && probes_.empty() ? static_cast<Observer*>(checker_.get())
            : observed_                 ? &probes_
                                        : nullptr;
  if (subcore < subcores_.size()) c.row_tags = subcores_[subcore].row_tags.get();
  c.ccus = &ccu_board_;
  c.wir = &wir_board_;
  c.wake_issue = [this] {
    for (SubCore& s : subcores_)
      for (auto& k : s.schedulers) k->issue_event();
  };
  c.wake_dispatch = [this, subcore] {
    if (subcore < subcores_.size())
      for (auto& k : subcores_[subcore].collectors) k->dispatch_event();
  };
  return c;
}

tlm::tlm_initiator_socket<>& Sm::memory_port() { return l1_->mem; }

IFunctionalMemory& Sm::functional_memory() { return *l1_; }

TimingSpec Sm::timing_spec() const {
  TimingSpec t;
  const SubCore& c = subcores_[0];
  t.subcores = shape_.subcores;
  t.warps = shape_.warps;
  t.regs_per_thread = shape_.regs_per_thread;
  t.preds_per_thread = shape_.preds_per_thread;
  t.banks = shape_.banks;
  t.slices = shape_.slices;
  t.bank_split_ports = c.banks[0]->separate_write_port();
  t.bank_read_ports = c.banks[0]->read_ports();
  t.bank_latency = c.banks[0]->latency();
  t.xbar_latency = c.crossbar->latency();
  t.decompress_latency = c.crossbar->decompression().latency;
  t.decompressors = c.crossbar->decompression().units;
  t.decompress_at_dispatch = c.crossbar->decompression().at_dispatch;
  t.compress_latency = c.writeback->write_stage();
  t.wake_latency = c.banks[0]->wake_latency();
  t.bank_rows = unsigned(c.row_tags->entries() / shape_.banks);
  t.collector_ports = c.arbiter->collector_ports();
  t.collectors = shape_.collectors;
  t.forward_stages = shape_.forward_stages;
  for (unsigned i = 0; i < kNumPipes; ++i) {
    const Pipe p = static_cast<Pipe>(i);
    if (p == Pipe::MEM) continue;
    const IExec::Timing x = c.exec->timing(p);
    t.pipes[i] = {c.exec->units(p), x.latency, x.ii};
  }
  for (unsigned i = 0; i < kNumOpClasses; ++i) {
    const IExec::ClassTiming x = c.exec->class_timing(static_cast<OpClass>(i));
    t.classes[i] = {x.pipe, x.latency, x.ii};
  }
  const ILsu::Timing m = c.lsu->timing();
  t.pipes[unsigned(Pipe::MEM)] = {1, m.latency, m.ii};
  t.schedulers = shape_.schedulers;
  t.issue_width = c.schedulers[0]->issue_width();
  t.active_limit = c.schedulers[0]->active_limit();
  if (c.rfc) {
    const IRfc::Timing r = c.rfc->timing();
    t.rfc = true;
    t.rfc_read_ports = r.read_ports;
    t.rfc_write_ports = r.write_ports;
    t.rfc_tag_latency = r.tag_latency;
    t.rfc_hit_latency = r.hit_latency;
  }
  if (const ICollector::OperandCache oc = c.collectors[0]->operand_cache(); oc.read_ports) {
    t.rfc = true; // a register-file cache inside the read stage (fixed_window)
    t.rfc_read_ports = oc.read_ports;
    t.rfc_hit_latency = oc.hit_latency;
  }
  t.software_dependences = c.schedulers[0]->software_dependences();
  t.ccu_hit_latency = c.collectors[0]->cache_hit_latency();
  t.renaming = c.writeback->renames();
  t.rename_stages = c.allocator->front_stages();
  t.bank_rows_total = shape_.banks * shape_.storage_rows;
  return t;
}

const InstInfo* Sm::peek(unsigned warp) {
  if (draining_) return nullptr; // a failed kernel issues nothing more
  const InstInfo* info = frontend_.peek(warp);
  if (preds_in_banks_ && info && (info->n_psrc || info->n_pdst))
    info = with_predicates_in_banks(info);
  return movs_ && info ? movs_->before(warp, info, frontend_.next_divergent(warp)) : info;
}

const InstInfo* Sm::with_predicates_in_banks(const InstInfo* info) {
  std::unique_ptr<InstInfo>& b = banked_[info];
  if (b) return b.get();
  if (info->n_src + info->n_psrc > InstInfo::kMaxSrc ||
      info->n_dst + info->n_pdst > InstInfo::kMaxDst)
    throw WorkloadError("sm.predicates: banks: instruction at pc " + std::to_string(info->pc) +
                        " (PTX line " + std::to_string(info->ptx_line) +
                        ") has more register operands than the instruction record holds");
  b = std::make_unique<InstInfo>(*info);
  for (unsigned k = 0; k < info->n_psrc; ++k) {
    b->src_reg[b->n_src] = uint16_t(data_regs_ + info->psrc_reg[k]);
    b->src_last_read[b->n_src] = b->src_reuse_near[b->n_src] = false;
    ++b->n_src;
  }
  for (unsigned k = 0; k < info->n_pdst; ++k) {
    b->dst_reg[b->n_dst] = uint16_t(data_regs_ + info->pdst_reg[k]);
    b->dst_dead[b->n_dst] = b->dst_unread_before_suspend[b->n_dst] = false;
    b->dst_evict_first[b->n_dst] = false;
    ++b->n_dst;
  }
  b->n_psrc = b->n_pdst = 0;
  return b.get();
}

// Every instruction gets the next sequence number; each source the number of the
// instruction that last wrote its register in program order (the version a correct
// pipeline must deliver), independently of the scoreboard and the units.
void Sm::execute(unsigned warp, WarpInst& out) {
  out.injected = out.reused = out.reuse_tagged = false; // the record comes from the pool
  if (movs_ && movs_->is_mov(out.info)) { // the scheduler issues the MOV peek() offered
    movs_->fill(out, frontend_.register_value(warp, out.info->src_reg[0]));
    out.warp = warp;
    ++*movs_injected_;
    out.seq = ++seq_;
    std::vector<uint64_t>& v = version_[warp];
    out.src[0].version = v[out.src[0].reg];
    v[out.dst[0].reg] = out.seq;
    return;
  }
  try {
    frontend_.execute(warp, out);
  } catch (const std::exception& e) {
    squash(warp, out);
    stop_and_drain(e.what());
    if (on_fail_) on_fail_(*this, e.what());
  }
  if (preds_in_banks_ && (out.info->n_psrc || out.info->n_pdst)) {
    const InstInfo& pred = *out.info;
    out.info = with_predicates_in_banks(out.info);
    for (unsigned k = 0; k < pred.n_psrc; ++k) {
      RegOperand& o = out.src[out.n_src++];
      o = RegOperand{};
      o.reg = uint16_t(data_regs_ + pred.psrc_reg[k]);
      o.value = out.psrc_value[k];
    }
    for (unsigned k = 0; k < pred.n_pdst; ++k) {
      RegOperand& o = out.dst[out.n_dst++];
      o = RegOperand{};
      o.reg = uint16_t(data_regs_ + pred.pdst_reg[k]);
      o.value = out.pdst_value[k];
    }
  }
  out.seq = ++seq_;
  std::vector<uint64_t>& v = version_[warp];
  for (unsigned k = 0; k < out.n_src; ++k) out.src[k].version = v[out.src[k].reg];
  for (unsigned k = 0; k < out.n_dst; ++k) v[out.dst[k].reg] = out.seq;
}

void Sm::retire(const WarpInst& inst) {
  last_progress_ = clock_.now;
  slept_ = 0;
  if (inst.injected) return void(++*movs_retired_);
  ++retired_;
  if (draining_) return; // the failed kernel's CTAs are freed all at once when drained
  frontend_.retire(inst);
  // A CTA ends only at the retirement of one of its instructions: when it does, free the
  // slots of every warp whose CTA has finished since.
  if (warps_finished(inst.warp) != finished_warps_[inst.warp]) free_slots();
}

// The registers of a warp slot whose CTA has finished are dead (deallocated) until its next
// CTA writes them: power-gated banks clear their valid bits, the row tags (W-C range
// indicators, CMRC width masks) return to their reset value 0, the rows to zeros with version
// 0 (a CTA's registers start at 0, docs/frontend.md "Undefined reads"; not under WIR, whose
// rows are a pool of all warps and whose slot starts unmapped), and every unit of the
// sub-core drops what it keeps for the slot (Unit::slot_freed), downstream units first.
void Sm::free_slots() {
  for (unsigned w = 0; w < finished_warps_.size(); ++w) {
    const uint64_t f = warps_finished(w);
    if (f == finished_warps_[w]) continue;
    finished_warps_[w] = f;
    const unsigned sub = shape_.subcore_of(w);
    SubCore& c = subcores_[sub];
    if (reset_rows_) std::fill(version_[w].begin(), version_[w].end(), 0);
    for (unsigned r = 0; r < kernel_regs_; ++r) { // the kernel's registers: its mapping's
      const BankLoc loc = mapping_->map(shape_.local_warp(w), r);
      c.row_tags->set(loc.bank, loc.row, 0);
      if (reset_rows_) c.banks[loc.bank]->reset_row(loc.row);
      if (!gating_) continue;
      c.banks[loc.bank]->release_row(loc.row);
      if (observed_) probes_.released(sub, loc.bank, loc.row, clock_.now);
    }
    for (Unit* u : order_)
      if (u->context().subcore == sub) u->slot_freed(w);
  }
}

void Sm::start_of_simulation() { host_start_ = last_report_ = std::chrono::steady_clock::now(); }

void Sm::step() {
  if (held_) return; // until restart() (start_)
  if (memory_event_) {
    const sc_core::sc_time t = sc_core::sc_time_stamp();
    // AT. While a request is out, tick one delta after the first wake at a time: an answer
    // due then (the built-in memory's BEGIN_RESP comes from its payload event queue in the
    // time's first delta) is seen in its own cycle, as the direct port sees it, whichever
    // process SystemC runs first.
    if (t != deferred_at_ && memory_busy_()) {
      deferred_at_ = t;
      return next_trigger(sc_core::SC_ZERO_TIME);
    }
    // Woken by the memory's answer: go on from the cycle SystemC's time is in (at its start:
    // an answer may come between two clock edges), before the cycle a timed sleep was due, or
    // after the cycle the SM fell asleep in when only the answer was due (nothing was due in
    // between; left there, the SM's clock would lag SystemC's time by the sleep and the waits
    // below, relative to SystemC's time, would sleep it again: a pointer chase took 30x the
    // direct port's cycles, docs/vp.md). Never a cycle already ticked: an answer in the delta
    // after a tick waits for the next.
    const Cycle c = std::max(clock_.cycles(t), untouched_);
    if (c != clock_.now) clock_.now = cycles_ = c;
    if (clock_.time(clock_.now) > t) return next_trigger(clock_.time(clock_.now) - t);
  }
  Cycle wait = advance();
  // Run ahead: the next cycle is busy and nothing else is due up to it (no other SM, host or
  // memory event), so SystemC would only call step() again then. Not with an AT memory,
  // whose answers are SystemC events.
  if (run_ahead_ && !memory_event_) {
    while (wait == 1 && sc_core::sc_time_to_pending_activity() > clock_.time(ahead_ + 1)) {
      ++ahead_;
      wait = advance();
    }
    wait += wait ? ahead_ : 0;
    ahead_ = 0;
  }
  if (!wait) return;
  if (wait == kNever) return next_trigger(*memory_event_); // only the memory's answer is due
  if (memory_event_)
    next_trigger(clock_.time(wait), *memory_event_);
  else
    next_trigger(clock_.time(wait));
}

// Temporal decoupling: the SM runs ahead of SystemC's time by up to the global quantum
// (tlm_quantumkeeper), then yields. A memory target that waits in b_transport moves SystemC's
// time past the SM's cycle; the SM then runs on without waiting until it is ahead again.
void Sm::run_decoupled() {
  tlm_utils::tlm_quantumkeeper qk;
  // Hosted: every kernel waits for restart(); else the first runs at once and later ones (an
  // application's) wait for it.
  for (bool first = true;; first = false) {
    if (mode_.hosted || !first || held_) wait(start_);
    qk.reset();
    while (const Cycle wait = advance()) {
      const sc_core::sc_time at = clock_.time(clock_.now), t = sc_core::sc_time_stamp();
      qk.set(at > t ? at - t : sc_core::SC_ZERO_TIME);
      if (qk.need_sync()) qk.sync();
    }
  }
}

void Sm::restart() {
  stopped_ = finished_ = held_ = false;
  error_.clear();
  clock_.now = std::max(clock_.now, clock_.cycles(sc_core::sc_time_stamp()));
  cycles_ = clock_.now;
  last_progress_ = clock_.now;
  slept_ = 0;
  for (Unit* u : order_) // a tick due while the SM idled (the schedulers' first) is due now
    if (u->next_tick() < clock_.now) {
      u->clear_tick();
      u->wake(clock_.now);
    }
  for (SubCore& c : subcores_) // the new CTAs' warps wait for issue
    for (auto& k : c.schedulers) k->issue_event();
  start_.notify(sc_core::SC_ZERO_TIME);
}

Cycle Sm::advance() {
  if (stopped_) return 0; // halted from outside (another SM failed)
  if (interrupt_requested()) return stop(kInterrupted), 0;
  try {
    // The earliest unit due. A busy cycle needs only to know that one is due by now: the scan
    // stops at the first such unit unless the watchdog could fire, which needs the exact
    // earliest (units are woken for the current cycle or later, never before the last
    // progress, so no unit further on is due earlier than that).
    Cycle next = kNever;
    const Cycle at = clock_.now;
    const bool exact = at < last_progress_ || at - last_progress_ - slept_ > watchdog_;
    for (const Cycle t : due_)
      if (t < next) {
        next = t;
        if (t <= at && !exact) break;
      }
    if (draining_ && pool_.in_flight() == 0) return finish_drain(), 0;
    if (!draining_ && frontend_.done() && pool_.in_flight() == 0) return stop(""), 0;
    if (next == kNever) {
      if (memory_busy_ && memory_busy_()) return kNever; // waiting for the memory (AT)
      watchdog_report();
      return stop("deadlock: every unit is idle but the kernel has not finished"), 0;
    }
    // Cycles in which a unit was due and nothing retired: a unit waking at a later cycle it
    // set (a memory response behind a long queue: 280,000 cycles after a debug build's local
    // stores on ampere-modern) is progress to come, not a hang.
    const Cycle since = std::min(next, at) - last_progress_;
    if (since > slept_ && since - slept_ > watchdog_) {
      watchdog_report();
      return stop("watchdog: no instruction retired for " + std::to_string(watchdog_) +
                  " cycles (cycle " + std::to_string(last_progress_ + slept_ + watchdog_) + ")"),
             0;
    }
    if (next > clock_.now) {
      slept_ += next - clock_.now;
      if (vcd_) vcd_->sample(); // an idle cycle: per-cycle counts back to 0
      // Hand control back to SystemC until the next busy cycle.
      const Cycle wait = next - clock_.now;
      untouched_ = clock_.now;
      clock_.now = next;
      cycles_ = next;
      return wait;
    }
    const Cycle now = clock_.now;
    if (series_) series_->reach(now);
    if (shared_clock_) shared_clock_->now = now;
    // A tick may wake a later unit for `now`; due_ never changes size after elaboration.
    Cycle* const due = due_.data();
    Unit* const* const unit = order_.data();
    for (size_t i = 0, n = due_.size(); i < n; ++i)
      if (due[i] <= now) {
        due[i] = kNever;
        unit[i]->tick(now);
      }
    if (vcd_) vcd_->sample();
    if (now >= max_cycles_)
      return stop("max_cycles reached at cycle " + std::to_string(now) +
                  " (raise it with -p sm.max_cycles=N or --max-cycles N)"),
             0;
    if ((now & 0xffff) == 0) {
      auto t = std::chrono::steady_clock::now();
      if (t - last_report_ > std::chrono::seconds(3)) {
        last_report_ = t;
        const double s = std::chrono::duration<double>(t - host_start_).count();
        const std::string where = frontend_.progress();
        std::cerr << "[gpurf] cycle " << now << ", " << retired_ << " warp instructions, "
                  << uint64_t(now / s) << " cycles/s" << (where.empty() ? "" : ", " + where)
                  << "\n";
      }
    }
    // Advance by one cycle.
    cycles_ = now + 1;
    clock_.now = untouched_ = now + 1;
    return 1;
  } catch (const std::exception& e) {
    stop(e.what());
    return 0;
  }
}

void Sm::stop(const std::string& error) {
  // A failed kernel that could not be drained (the watchdog while draining) keeps its error.
  error_ = draining_ ? drain_error_ + "; then, while draining: " + error : error;
  draining_ = false;
  finished_ = error_.empty();
  // Settle time-integrated statistics: the ticking units, and the banks and crossbars,
  // which only react to transactions (power gating counts gated cycles up to the end).
  for (Unit* u : order_) u->finish();
  for (SubCore& c : subcores_) {
    for (auto& b : c.banks) b->finish();
    c.crossbar->finish();
  }
  stopped_ = true;
  done_.notify(ahead()); // at the SM's cycle (SC_ZERO_TIME unless it runs ahead)
  if (on_stop_) on_stop_(*this);
}

void Sm::settle(Cycle at) {
  for (Unit* u : order_) u->settle(at);
}

void Sm::halt(const std::string& why) {
  if (stopped_) return;
  stop_and_drain(why);
  if (drained()) finish_drain(); // nothing in flight: it stops now
}

// Drained: every slot's registers and the units' per-slot state are freed as when its CTA
// finishes (a killed CTA counts as one that finished in its slot).
void Sm::finish_drain() {
  draining_ = false;
  for (unsigned w = 0; w < killed_.size(); ++w) ++killed_[w];
  free_slots();
  stop(drain_error_);
}

void Sm::stop_and_drain(const std::string& error) {
  if (draining_ || stopped_) return;
  draining_ = true;
  drain_error_ = error; // a sleeping SM (halted by another's failure) drains when it wakes
}

void Sm::squash(unsigned warp, WarpInst& out) {
  // What the scheduler issues (Sm::peek's record; the front-end may have put its own there).
  if (preds_in_banks_ && (out.info->n_psrc || out.info->n_pdst))
    out.info = with_predicates_in_banks(out.info);
  const InstInfo& info = *out.info;
  out.warp = warp;
  out.cta = 0;
  out.active_mask = 0;
  out.thread_mask = 0;
  out.n_src = info.n_src;
  out.n_dst = info.n_dst;
  auto value = [&](unsigned r) {
    return r < data_regs_ ? frontend_.register_value(warp, r) : LaneValues{};
  };
  for (unsigned k = 0; k < info.n_src; ++k) {
    out.src[k] = RegOperand{};
    out.src[k].reg = info.src_reg[k];
    out.src[k].value = value(info.src_reg[k]);
  }
  for (unsigned k = 0; k < info.n_dst; ++k) {
    out.dst[k] = RegOperand{};
    out.dst[k].reg = info.dst_reg[k];
    out.dst[k].value = value(info.dst_reg[k]);
  }
  for (unsigned k = 0; k < info.n_psrc; ++k) out.psrc_value[k] = LaneValues{};
  for (unsigned k = 0; k < info.n_pdst; ++k) out.pdst_value[k] = LaneValues{};
  out.access_bytes = 0;
  out.addr.fill(0);
}

void Sm::end_of_simulation() {}

void Sm::watchdog_report() {
  std::ostringstream os;
  os << "state of " << name() << " at cycle " << clock_.now << ":\n";
  std::vector<Unit*> units = order_;
  units.insert(units.end(), shared_units_.begin(), shared_units_.end());
  for (Unit* u : units) {
    std::ostringstream us;
    u->dump_state(us);
    if (!us.str().empty()) os << u->name() << ":\n" << us.str();
  }
  std::cerr << os.str();
}

} // namespace gpurf
