#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/modules/frontend/compiler/control_bits.h"
#include "gpurf/modules/frontend/compiler/tensor_split.h"
#include "gpurf/platform/text.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "gpurf/modules/common/hash.h"
#include "gpurf/modules/frontend/compiler/ptxas_table.h"
#include "gpurf/modules/frontend/compiler/reuse_key.h"
#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/modules/frontend/ptx/warp_ops.h"
#include "gpurf/modules/frontend/reuse_profile.h"
#include "gpurf/platform/interrupt.h"
#include "gpurf/platform/params.h"
#include "gpurf/workloads/reference/reference.h"

namespace gpurf {

namespace {

// The engine's view of global memory: the SM's functional memory.
struct MemAdaptor : ptx::GlobalMemory {
  explicit MemAdaptor(IFunctionalMemory& m) : mem(m) {}
  void read(uint64_t addr, void* dst, unsigned len) override { mem.read(addr, dst, len); }
  void write(uint64_t addr, const void* src, unsigned len) override { mem.write(addr, src, len); }
  IFunctionalMemory& mem;
};

const char* pipe_label(Pipe p) {
  static const char* const names[] = {"SP", "INT", "DP", "SFU", "MEM", "TENSOR"};
  const unsigned i = unsigned(p);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

// Where the buffer after `b` goes when `b` is placed at `at` (256-B aligned; a buffer at a
// module variable takes no room).
uint64_t after_buffer(uint64_t at, const LaunchBuffer& b) {
  return b.symbol.empty() ? (at + std::max<uint64_t>(b.bytes(), 1) + 255) / 256 * 256 : at;
}

std::string where(const ptx::Module& m, const ptx::Instr& in) {
  return m.filename + ":" + std::to_string(in.ptx_line) + " '" + in.text + "'";
}

// "42 s", "7 min 3 s", "2 h 3 min": an ETA a user reads at a glance.
std::string duration_text(double seconds) {
  const uint64_t s = uint64_t(seconds);
  if (s < 60) return std::to_string(s) + " s";
  if (s < 3600) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
}

} // namespace

// =============================================================================================
// Construction: compile, static instruction records
// =============================================================================================
std::string FrontendOptions::describe() const {
  return "regalloc=" + compiler::regalloc_mode_names()[size_t(regalloc)] +
         " schedule=" + compiler::schedule_names()[size_t(schedule)] +
         " constants=" + (constant_operands ? "operands" : "registers") +
         " alloc_banks=" + std::to_string(alloc_banks) +
         " reuse_profile_warps=" + std::to_string(reuse_profile_warps) +
         " reuse_rthld=" + std::to_string(reuse_rthld) +
         " reuse_oracle=" + (reuse_oracle ? "true" : "false") +
         " progress_bound=" + std::to_string(progress_bound) +
         " data_base=" + std::to_string(data_base) + " window_base=" + std::to_string(window_base) +
         " memory_check=" + (memory_check ? "true" : "false") +
         (control_bits ? " control_bits=true fixed_latency=" + std::to_string(fixed_latency) : "") +
         (hmma_k != 8 ? " hmma=m16n8k" + std::to_string(hmma_k) : "") +
         (reg64_one_operand ? " reg64=one_operand" : "");
}

FrontendOptions frontend_options(Params& top) {
  // --dump-config shows the modes in effect even where the platform has no `frontend:` section.
  if (Params::fill_defaults && top.node() && !top.node()->find("frontend")) {
    ConfigNode& n = top.node()->child("frontend");
    n.kind = ConfigNode::Kind::Map;
    n.file = "default";
  }
  Params& fe = top.sub("frontend", "how the PTX front-end compiles kernels (docs/frontend.md)");
  FrontendOptions o;
  o.regalloc = compiler::regalloc_mode(fe.get_choice(
      "regalloc", "linear_scan",
      "register allocation: linear_scan (gpurf's colouring, registers reused), ptx_virtual "
      "(GPGPU-Sim PTX mode: every PTX virtual register its own register) or ptxas_like "
      "(ptxas's register count, values spread over it, bank-aware)",
      compiler::regalloc_mode_names()));
  o.schedule = compiler::schedule_mode(
      fe.get_choice("schedule", "none",
                    "instruction order: none (nvcc's PTX order) or list (ptxas-like list "
                    "scheduling within basic blocks: long-latency loads hoisted)",
                    compiler::schedule_names()));
  o.constant_operands =
      fe.get_choice("constants", "registers",
                    "kernel parameters and immediates: registers (ld.param / mov issued, as in "
                    "PTX) or operands (constant bank and immediates, as in SASS)",
                    {"registers", "operands"}) == "operands";
  o.reuse_profile_warps =
      fe.get_uint("reuse_profile_warps", 0,
                  "Malekeh reuse hints: profile at least this many warps (whole CTAs from the "
                  "first) functionally before the run and mark each register operand near or "
                  "far (0: no hints)",
                  0, 1u << 20);
  o.reuse_rthld = fe.get_uint(
      "reuse_rthld", 12, "Malekeh RTHLD: a reuse within fewer instructions is near", 1, 1u << 20);
  o.reuse_oracle = fe.get_bool(
      "reuse_oracle", false,
      "Malekeh oracle hints: run every warp functionally first and give each dynamic instance "
      "its own exact near/far bits (what the profile's majority bit loses)");
  o.progress_bound = uint64_t(fe.get_int(
      "progress_bound", int64_t(1) << 24,
      "stop a kernel as one that cannot end after this many warp instructions per SM in which no "
      "warp stored to global memory, ran a global atomic, passed a barrier or exited (0: no bound)",
      0, int64_t(1) << 62));
  const int64_t kTop = int64_t(1) << 48;
  o.data_base = uint64_t(fe.get_int(
      "data_base", 0x01000000,
      "address of the module's .global/.const variables (240 MiB from here; docs/vp.md)", 0, kTop));
  o.window_base = uint64_t(fe.get_int(
      "window_base", 0xA0000000,
      "timing-only windows of generic accesses to param, shared (+256 MiB) and local (+512 "
      "MiB) memory, 1 GiB from here, which the memory must answer (docs/vp.md)",
      0, kTop));
  if (o.data_base < o.window_base + PtxFrontend::kWindowBytes &&
      o.window_base < o.data_base + PtxFrontend::kDataBytes)
    fe.fail("window_base", "the windows [window_base, +1 GiB) overlap the module's variables "
                           "[data_base, +240 MiB)");
  o.memory_check = fe.get_bool(
      "memory_check", true,
      "check every lane's global access against the live allocations (the launch file's buffers, "
      "the module's variables, a host's allocations): out of bounds or freed stops the kernel");
  o.control_bits = fe.get_bool(
      "control_bits", false,
      "set the control bits of current NVIDIA cores: reuse bits, stall counts and dependence "
      "counters (compiler/control_bits.h, docs/modern-core.md)");
  o.fixed_latency =
      fe.get_uint("fixed_latency", 4,
                  "control_bits: latency (issue to dependent issue) the stall counts assume for "
                  "instructions of the SP and INT pipes; the others use dependence counters",
                  1, 15);
  o.hmma_k = fe.get_choice("hmma", "m16n8k8",
                           "the shape one tensor-pipe instruction computes: m16n8k8 (Turing's "
                           "HMMA.1688: an m16n8k16 mma issues as two) or m16n8k16 (Ampere's "
                           "HMMA.16816); a wmma.mma issues as its pieces "
                           "(compiler/tensor_split.h)",
                           {"m16n8k8", "m16n8k16"}) == "m16n8k8"
                 ? 8
                 : 16;
  o.alloc_banks = fe.get_uint("alloc_banks", 2,
                              "ptxas_like: banks whose same-bank sources the allocator avoids "
                              "(bank = register % alloc_banks; sm_75 ptxas: 2)",
                              1, 32);
  o.reg64_one_operand =
      fe.get_choice("reg64", "two_registers",
                    "a 64-bit PTX register (%rd, %fd): two_registers (two 32-bit registers, an "
                    "access each) or one_operand (GPGPU-Sim's PTX mode: one register-file "
                    "operand, one bank access and one collector write for both halves; "
                    "docs/cmrc.md)",
                    {"two_registers", "one_operand"}) == "one_operand";
  // The units that carry a high half with its low half: the baseline's and CMRC's.
  if (o.reg64_one_operand && top.node()) {
    const ConfigNode& n = *top.node();
    auto impl = [&](const char* slot, const char* def) {
      const ConfigNode* s = n.find(slot);
      const ConfigNode* i = s ? s->find("impl") : nullptr;
      return i ? i->scalar : std::string(def);
    };
    const std::string col = impl("collector", "ocu"), arb = impl("arbiter", "write_first"),
                      wb = impl("writeback", "priority");
    if ((col != "ocu" && col != "cmrc") || (arb != "write_first" && arb != "coalescing") ||
        (wb != "priority" && wb != "cmrc") || n.find("rfc"))
      fe.fail("reg64", "one_operand needs units that carry a 64-bit operand's high half with its "
                       "low half: collector ocu or cmrc, arbiter write_first or coalescing, "
                       "writeback priority or cmrc, no rfc; this platform has collector '" +
                           col + "', arbiter '" + arb + "', writeback '" + wb + "'" +
                           (n.find("rfc") ? ", an rfc" : "") + " (valid here: two_registers)");
  }
  return o;
}

FrontendOptions frontend_options(ConfigNode& platform) {
  Params top(&platform, "");
  return frontend_options(top);
}

PtxFrontend::PtxFrontend(const LaunchSpec& launch, const FrontendOptions& options,
                         const compiler::PtxasLookup& ptxas)
    : launch_(launch), initial_vars_(launch.vars), options_(options),
      step_(std::make_unique<ptx::StepResult>()), loops_(options.progress_bound) {
  step_->values = false; // execute() reads the engine's rows in place
  file_grid_ = launch_.grid;
  file_block_ = launch_.block;
  file_shared_ = launch_.shared_bytes;
  file_shared_where_ = launch_.shared_bytes_where;
  file_cooperative_ = launch_.cooperative;
  if (!launch_.module) throw WorkloadError(launch_.file + ": launch has no PTX module");
  try {
    std::string why;
    if (auto px = compiler::ptxas_registers(launch_.ptx_path, launch_.kernel,
                                            launch_.module->target, ptxas, why)) {
      ptxas_regs_ = px->registers;
      ptxas_source_ = px->table;
    } else {
      ptxas_source_ = why;
    }
    compiler::CompileOptions co;
    co.alloc.mode = options_.regalloc;
    co.alloc.banks = options_.alloc_banks;
    if (options_.regalloc == compiler::RegAllocMode::PtxasLike) co.alloc.target_regs = ptxas_regs_;
    co.constant_operands = options_.constant_operands;
    co.local_bytes_per_thread = kMaxLocalBytesPerThread;
    const compiler::TensorIssue issue{options_.hmma_k};
    if (compiler::has_tensor_split(*launch_.module, issue))
      split_ = std::make_unique<ptx::Module>(compiler::split_tensor(*launch_.module, issue));
    if (options_.schedule == compiler::Schedule::List) {
      compiler::ScheduleOptions so;
      so.entry_budget = co.alloc.target_regs;
      so.constant_operands = co.constant_operands;
      scheduled_ = std::make_unique<ptx::Module>(
          compiler::schedule_module(split_ ? *split_ : *launch_.module, launch_.kernel, so));
    }
    plan_ = compiler::compile_kernel(module(), launch_.kernel, co);
    size_local_stride();
    // GPGPU-Sim's PTX mode takes occupancy from ptxas; without it, from a real allocator's
    // count (gpurf's linear scan), never from how many values the PTX names.
    if (options_.regalloc == compiler::RegAllocMode::PtxVirtual && !ptxas_regs_) {
      compiler::CompileOptions scan;
      scan.alloc.mode = compiler::RegAllocMode::LinearScan;
      scan_regs_ = compiler::compile_kernel(module(), launch_.kernel, scan).regs_per_thread;
    }
    if (!ptxas_regs_ && options_.regalloc != compiler::RegAllocMode::LinearScan)
      warnings_.push_back(
          "kernel '" + launch_.kernel + "': ptxas's register count is unknown (" + ptxas_source_ +
          "); occupancy uses gpurf's allocator's " +
          std::to_string(scan_regs_ ? scan_regs_ : plan_.regs_per_thread) +
          " registers per thread. For ptxas's count put the CUDA toolkit's ptxas on the PATH "
          "(or set GPURF_PTXAS), or write a ptxas-registers.txt beside the PTX "
          "(docs/frontend.md, \"ptxas's count for any kernel\")");
  } catch (const compiler::CompileError& e) {
    throw ConfigError(e.what()); // the PTX's fault, found before anything runs: bad input
  }
  const ptx::Module& m = module();
  // pc layout: the entry first, then the called functions in module order.
  layout_.push_back(plan_.entry);
  for (const compiler::FunctionPlan& p : plan_.funcs)
    if (p.func && p.func != plan_.entry) layout_.push_back(p.func);
  unsigned total = 0;
  for (const ptx::Function* f : layout_) {
    layout_base_.push_back(total);
    total += unsigned(f->instrs.size());
  }
  info_.resize(total);
  maps_.resize(total);
  hidden_.assign(total, false);

  for (size_t fi = 0; fi < layout_.size(); ++fi) {
    const ptx::Function& f = *layout_[fi];
    const compiler::FunctionPlan& fp = *plan_.plan(f);
    // Registers that may be read before written on entry (their contents come from the
    // slot's previous warp or call): no value in them is ever marked dead (RFC hints).
    std::vector<bool> entry_read(plan_.regs_per_thread, false);
    fp.rfc.entry_live.for_each([&](unsigned u) {
      if (f.regs[u].is_pred || fp.regs.reg[u] < 0) return;
      for (unsigned h = 0; h < compiler::reg_width(f.regs[u]); ++h)
        entry_read[fp.arch(u, h)] = true;
    });
    auto may_die = [&](unsigned v) {
      for (unsigned h = 0; h < compiler::reg_width(f.regs[v]); ++h)
        if (entry_read[fp.arch(v, h)]) return false;
      return true;
    };
    for (unsigned i = 0; i < f.instrs.size(); ++i) {
      const ptx::Instr& in = f.instrs[i];
      const unsigned pc = layout_base_[fi] + i;
      InstInfo& info = info_[pc];
      OperandMap& map = maps_[pc];
      const ptx::OpTraits t = ptx::op_traits(in);
      hidden_[pc] = fp.constants.hidden[i];
      info.pc = pc;
      info.ptx_line = in.ptx_line;
      info.opname = in.text.c_str();
      info.pipe = t.pipe;
      info.op_class = t.op_class;
      info.space = ptx::mem_space(in);
      info.mem = t.is_load     ? MemKind::Load
                 : t.is_store  ? MemKind::Store
                 : t.is_atomic ? MemKind::Atomic
                               : MemKind::None;
      if (info.mem == MemKind::None) info.space = MemSpace::None;
      info.generic = info.space == MemSpace::Global && in.space != ptx::Space::Global;
      info.barrier = t.barrier;
      info.acquire =
          in.op == ptx::Op::Membar || in.op == ptx::Op::Fence ||
          ((t.is_load || t.is_atomic) && (in.text.find(".acquire") != std::string::npos ||
                                          in.text.find(".acq_rel") != std::string::npos));
      if (in.op == ptx::Op::CpAsync) info.async = InstInfo::Async::Copy;
      if (in.op == ptx::Op::CpAsyncCommit) info.async = InstInfo::Async::Commit;
      if (in.op == ptx::Op::CpAsyncWait) {
        info.async = in.cp_all ? InstInfo::Async::WaitAll : InstInfo::Async::Wait;
        info.async_n = uint8_t(std::min<uint64_t>(in.cp_all ? 0 : in.src[0].imm, 255));
      }
      info.exit = t.exit || (in.op == ptx::Op::Ret && f.is_entry);
      info.produces_long_latency = fp.long_latency.produces[i];
      info.consumes_long_latency = fp.long_latency.consumes[i];

      const compiler::UseDef& ud = fp.liveness.ud[i];
      auto count = [&](const std::vector<unsigned>& vs) {
        unsigned n = 0;
        for (unsigned v : vs)
          if (!f.regs[v].is_pred) n += compiler::reg_width(f.regs[v]);
        return n;
      };
      const unsigned ns = count(ud.uses), nd = count(ud.defs);
      if (ns > InstInfo::kMaxSrc || nd > InstInfo::kMaxDst)
        throw WorkloadError(where(m, in) + ": reads " + std::to_string(ns) + " and writes " +
                            std::to_string(nd) +
                            " 32-bit registers; the instruction record holds at most " +
                            std::to_string(InstInfo::kMaxSrc) + " sources and " +
                            std::to_string(InstInfo::kMaxDst) + " destinations");
      // Predicates: the predicate file, scoreboarded (index pred_base + register).
      auto pred = [&](unsigned v, uint8_t& n, std::array<uint16_t, InstInfo::kMaxPred>& regs,
                      std::array<uint16_t, InstInfo::kMaxPred>& vregs) {
        if (n == InstInfo::kMaxPred)
          throw WorkloadError(where(m, in) + ": uses more than " +
                              std::to_string(InstInfo::kMaxPred) +
                              " predicate registers; the instruction record holds that many");
        vregs[n] = uint16_t(v);
        regs[n++] = uint16_t(fp.pred_base + unsigned(fp.regs.reg[v]));
      };
      for (unsigned v : ud.uses)
        if (f.regs[v].is_pred && fp.regs.reg[v] >= 0)
          pred(v, info.n_psrc, info.psrc_reg, map.psrc_vreg);
      for (unsigned v : ud.defs)
        if (f.regs[v].is_pred && fp.regs.reg[v] >= 0)
          pred(v, info.n_pdst, info.pdst_reg, map.pdst_vreg);
      for (unsigned v : ud.uses) {
        if (f.regs[v].is_pred) continue;
        const bool last = fp.liveness.last_read(i, v) && may_die(v);
        for (unsigned h = 0; h < compiler::reg_width(f.regs[v]); ++h) {
          const unsigned k = info.n_src++;
          if (h && options_.reg64_one_operand) info.src_hi |= uint16_t(1u << k);
          info.src_reg[k] = uint16_t(fp.arch(v, h));
          info.src_last_read[k] = last;
          map.src_vreg[k] = uint16_t(v);
          map.src_half[k] = uint8_t(h);
        }
      }
      for (size_t di = 0; di < ud.defs.size(); ++di) {
        const unsigned v = ud.defs[di];
        if (f.regs[v].is_pred) continue;
        for (unsigned h = 0; h < compiler::reg_width(f.regs[v]); ++h) {
          const unsigned k = info.n_dst++;
          if (h && options_.reg64_one_operand) info.dst_hi |= uint16_t(1u << k);
          info.dst_dead[k] = fp.rfc.dead[i][di] && may_die(v);
          info.dst_unread_before_suspend[k] = fp.rfc.unread_before_suspend[i][di];
          info.dst_evict_first[k] = fp.rfc.evict_first[i][di];
          info.dst_reg[k] = uint16_t(fp.arch(v, h));
          map.dst_vreg[k] = uint16_t(v);
          map.dst_half[k] = uint8_t(h);
        }
      }
      const compiler::ReuseKey rk = compiler::reuse_key(f, in, fp.constants);
      info.reuse_why = rk.why;
      info.computation_op = compiler::computation_op(f, in, fp.constants);
      if (rk.op) {
        info.reuse_op = rk.op;
        info.reuse_load = rk.load;
        for (auto [v, half] : rk.regs) {
          unsigned k = 0;
          while (k < info.n_src && !(map.src_vreg[k] == v && map.src_half[k] == half)) ++k;
          if (k == info.n_src) { // not a register source after all (cannot happen): no reuse
            info.reuse_op = 0;
            break;
          }
          info.reuse_src[info.reuse_n++] = uint8_t(k);
        }
      }
    }
  }
  split_bar_red();
  zero_callee_frames();
  build_spills();
  if (options_.control_bits) set_control_bits();
}

uint64_t PtxFrontend::stack_limit() const {
  if (!plan_.recursive) return plan_.local_bytes;
  return std::min<uint64_t>(kMaxLocalBytesPerThread, std::max(stack_bytes_, plan_.local_bytes));
}

void PtxFrontend::size_local_stride() {
  local_stride_ = std::max<uint64_t>(kLocalBytesPerThread, (stack_limit() + 4095) / 4096 * 4096);
}

void PtxFrontend::build_spills() {
  spill_of_.assign(b2r_of_.size(), SpillSite{});
  for (size_t fi = 0; fi < layout_.size(); ++fi) {
    const ptx::Function& f = *layout_[fi];
    const compiler::FunctionPlan& fp = *plan_.plan(f);
    if (fp.scc < 0) continue;
    for (unsigned i = 0; i < f.instrs.size(); ++i) {
      const std::vector<unsigned>& saves = fp.saves[i];
      if (saves.empty()) continue;
      const ptx::Instr& in = f.instrs[i];
      const unsigned site = layout_base_[fi] + i;
      // The words: each data register half, then the predicates kMaxPred at a time.
      struct Word {
        std::vector<std::pair<unsigned, unsigned>> data; // (vreg, half): one
        std::vector<unsigned> preds;                     // or up to kMaxPred predicates
      };
      std::vector<Word> words;
      for (unsigned v : saves) {
        if (f.regs[v].is_pred) {
          if (words.empty() || words.back().preds.empty() ||
              words.back().preds.size() == InstInfo::kMaxPred)
            words.push_back({});
          words.back().preds.push_back(v);
          continue;
        }
        for (unsigned h = 0; h < compiler::reg_width(f.regs[v]); ++h)
          words.push_back({{{v, h}}, {}});
      }
      spill_of_[site] = {unsigned(info_.size()), unsigned(words.size()), &f, &in};
      for (const bool restore : {false, true}) {
        unsigned value = 0;
        for (unsigned k = 0; k < words.size(); ++k) {
          const Word& wd = words[k];
          InstInfo r;
          OperandMap map;
          r.pc = uint32_t(info_.size());
          r.ptx_line = in.ptx_line;
          std::string regs;
          for (auto [v, h] : wd.data) {
            const uint16_t a = uint16_t(fp.arch(v, h));
            regs += "r" + std::to_string(a);
            if (restore) {
              map.dst_vreg[r.n_dst] = uint16_t(v), map.dst_half[r.n_dst] = uint8_t(h);
              r.dst_reg[r.n_dst++] = a;
            } else {
              map.src_vreg[r.n_src] = uint16_t(v), map.src_half[r.n_src] = uint8_t(h);
              r.src_reg[r.n_src++] = a;
            }
          }
          for (unsigned v : wd.preds) {
            const uint16_t a = uint16_t(fp.pred_base + unsigned(fp.regs.reg[v]));
            regs += (regs.empty() ? "p" : ",p") + std::to_string(a);
            if (restore) {
              map.pdst_vreg[r.n_pdst] = uint16_t(v);
              r.pdst_reg[r.n_pdst++] = a;
            } else {
              map.psrc_vreg[r.n_psrc] = uint16_t(v);
              r.psrc_reg[r.n_psrc++] = a;
            }
          }
          spill_names_.push_back(std::make_unique<std::string>(
              (restore ? "ld.local.b32 (restore " : "st.local.b32 (save ") + regs +
              " around the recursive call at line " + std::to_string(in.ptx_line) + ")"));
          r.opname = spill_names_.back()->c_str();
          r.op_class = OpClass::Mem;
          r.pipe = ptx::class_pipe(OpClass::Mem);
          r.space = MemSpace::Local;
          r.mem = restore ? MemKind::Load : MemKind::Store;
          r.produces_long_latency = restore; // a local load, as ptxas's LDL
          r.reuse_why = compiler::ReuseKey::Memory;
          info_.push_back(r);
          maps_.push_back(map);
          hidden_.push_back(false);
          spill_rec_.resize(info_.size());
          spill_rec_.back() = {site, k, value, restore};
          value += unsigned(wd.data.size() + wd.preds.size());
        }
      }
    }
  }
  spill_rec_.resize(info_.size());
}

// The compiler's control bits (compiler/control_bits.h) per function in layout order, over
// the instructions that issue. SP and INT instructions have the fixed latency; memory and
// the SFU, DP and tensor pipes variable ones (Huerta et al. Sec. 4: dependence counters).
void PtxFrontend::set_control_bits() {
  for (size_t fi = 0; fi < layout_.size(); ++fi) {
    const ptx::Function& f = *layout_[fi];
    const compiler::FunctionPlan& fp = *plan_.plan(f);
    std::vector<compiler::CtrlInst> code;
    // Each entry's instruction, and where it sits in the function (a recursive call's saves
    // and restores: at the call, though their records live after the kernel's code).
    std::vector<unsigned> pcs, homes;
    bool after_call = false, leader_pending = true;
    for (unsigned i = 0; i < f.instrs.size(); ++i) {
      const unsigned pc = layout_base_[fi] + i;
      const ptx::Instr& in = f.instrs[i];
      const bool leader = leader_pending ||
                          (i > 0 && fp.liveness.cfg.block_of[i] != fp.liveness.cfg.block_of[i - 1]);
      if (hidden_[pc]) { // the next issued instruction starts the block
        leader_pending = leader;
        continue;
      }
      const bool follows_call = after_call;
      after_call = leader_pending = in.op == ptx::Op::Call;
      auto add = [&](unsigned at, bool lead, bool after) {
        const InstInfo& info = info_[at];
        compiler::CtrlInst c;
        c.src.assign(info.src_reg.begin(), info.src_reg.begin() + info.n_src);
        c.dst.assign(info.dst_reg.begin(), info.dst_reg.begin() + info.n_dst);
        c.psrc.assign(info.psrc_reg.begin(), info.psrc_reg.begin() + info.n_psrc);
        c.pdst.assign(info.pdst_reg.begin(), info.pdst_reg.begin() + info.n_pdst);
        c.variable = info.mem != MemKind::None || (at < b2r_of_.size() && b2r_of_[at] >= 0) ||
                     (info.pipe != Pipe::SP && info.pipe != Pipe::INT);
        c.latency = options_.fixed_latency;
        c.long_latency = info.produces_long_latency || info.mem == MemKind::Atomic;
        c.leader = lead;
        c.after_call = after;
        code.push_back(std::move(c));
        pcs.push_back(at);
        homes.push_back(pc);
      };
      // A recursive call's saves go before it, its restores after it (the code ptxas emits).
      // An indirect call issues again once its first target's lanes return (the engine
      // serialises a warp's targets): its first instruction (first save, or the call) may
      // follow the callee's return and its restores, as the instruction after a call does.
      const SpillSite& sp = spill_of_[pc];
      const bool again = in.op == ptx::Op::Call && in.indirect;
      for (unsigned k = 0; k < sp.words; ++k)
        add(sp.first + k, leader && k == 0, follows_call || (again && k == 0));
      add(pc, leader && !sp.words, (follows_call || again) && !sp.words);
      for (unsigned k = 0; k < sp.words; ++k) add(sp.first + sp.words + k, k == 0, k == 0);
      if (sp.words) after_call = leader_pending = false; // the restores start the next block
    }
    set_control_flow(fp.liveness.cfg, homes, layout_base_[fi], code);
    compiler::CtrlParams cp;
    cp.banks = options_.alloc_banks;
    const std::vector<compiler::CtrlBits> bits = compiler::control_bits(code, cp);
    for (size_t k = 0; k < pcs.size(); ++k) {
      InstInfo& info = info_[pcs[k]];
      info.reuse_mask = bits[k].reuse_mask;
      info.stall = bits[k].stall;
      info.yield = bits[k].yield;
      info.wr_sb = bits[k].wr_sb;
      info.rd_sb = bits[k].rd_sb;
      info.wait_mask = bits[k].wait_mask;
    }
  }
  // B2R (split_bar_red) issues after its barrier, outside the layout: its result waits the
  // fixed latency, and it waits for every counter as a block's first instruction does.
  for (size_t pc = b2r_of_.size(); pc < info_.size(); ++pc) {
    if (spill_rec_[pc].site != ~0u) continue; // with their call, above
    info_[pc].stall = uint8_t(options_.fixed_latency);
    info_[pc].wait_mask = 0x3f;
  }
}

// The successors of each block's last issued instruction, as indices into `code` (the issued
// instructions of a function, at `pcs`): the CFG's successors and, since a warp that
// diverges runs one side of a branch and then the other (reconverging at the branch's
// immediate post-dominator), the sides of every divergent branch after each end of the
// other side: the blocks that lead to its reconvergence point, or that exit.
void PtxFrontend::set_control_flow(const ptx::Cfg& g, const std::vector<unsigned>& homes,
                                   unsigned base, std::vector<compiler::CtrlInst>& code) {
  auto entry = [&](unsigned b) { // the first issued instruction at or after block b's start
    return unsigned(std::lower_bound(homes.begin(), homes.end(), base + g.blocks[b].begin) -
                    homes.begin());
  };
  std::vector<std::vector<unsigned>> succ(g.blocks.size());
  for (unsigned b = 0; b < g.blocks.size(); ++b) succ[b] = g.blocks[b].succs;
  for (unsigned b = 0; b < g.blocks.size(); ++b) {
    const ptx::BasicBlock& bb = g.blocks[b];
    if (bb.succs.size() < 2) continue;
    std::vector<unsigned> ends;
    if (bb.ipdom >= 0) ends = g.blocks[unsigned(bb.ipdom)].preds;
    for (unsigned e = 0; e < g.blocks.size(); ++e)
      if (g.blocks[e].exits) ends.push_back(e);
    for (unsigned e : ends) succ[e].insert(succ[e].end(), bb.succs.begin(), bb.succs.end());
  }
  for (unsigned k = 0; k < code.size(); ++k) {
    const unsigned b = g.block_of[homes[k] - base];
    if (k + 1 < code.size() && g.block_of[homes[k + 1] - base] == b) continue;
    code[k].has_succ = true;
    for (unsigned s : succ[b])
      if (const unsigned e = entry(s); e < code.size()) code[k].succ.push_back(e);
  }
}

void PtxFrontend::zero_callee_frames() {
  // A call starts a fresh frame whose registers read 0 (the engine's, GPGPU-Sim's choice), but
  // the callee's register range holds what its previous call left. The call therefore writes
  // 0 into every register the callee may read before writing it (entry-live-in; none in
  // code that reads only what it wrote), through the pipeline like any result: the
  // scoreboard orders it after the previous call's writes, every variant stores it.
  for (size_t fi = 0; fi < layout_.size(); ++fi) {
    const ptx::Function& f = *layout_[fi];
    for (unsigned i = 0; i < f.instrs.size(); ++i) {
      const ptx::Instr& in = f.instrs[i];
      if (in.op != ptx::Op::Call) continue;
      for (const int ci : in.callees()) { // each function it can reach
        if (ci < 0) continue;
        const ptx::Function& callee = module().functions[size_t(ci)];
        const compiler::FunctionPlan* cp = plan_.plan(callee);
        if (!cp || !callee.has_body) continue;
        const unsigned pc = layout_base_[fi] + i;
        InstInfo& info = info_[pc];
        OperandMap& map = maps_[pc];
        cp->liveness.entry_live_in.for_each([&](unsigned v) {
          if (callee.regs[v].is_pred || cp->regs.reg[v] < 0) return; // predicates: not compared
          for (unsigned h = 0; h < compiler::reg_width(callee.regs[v]); ++h) {
            if (info.n_dst == InstInfo::kMaxDst)
              throw WorkloadError(where(module(), in) + ": " + callee.name + " reads more than " +
                                  std::to_string(InstInfo::kMaxDst) +
                                  " 32-bit registers before writing them (" + callee.regs[v].name +
                                  " ...); a call zeroes at most that many (the record's "
                                  "destinations): initialise them in " +
                                  callee.name);
            const unsigned k = info.n_dst++;
            info.dst_reg[k] = uint16_t(cp->arch(v, h));
            info.dst_dead[k] = info.dst_unread_before_suspend[k] = info.dst_evict_first[k] = false;
            map.dst_vreg[k] = kZeroVreg;
          }
        });
      }
    }
  }
}

void PtxFrontend::split_bar_red() {
  // bar.red's result exists only once every thread of the CTA arrived, after this warp's
  // barrier instruction has issued and perhaps retired. As SASS does (BAR.RED, then
  // B2R.RESULT reads the reduction into a register or predicate), the barrier is issued
  // without its destination, and a B2R record (its own pc after the layout's) writes the
  // destination when the warp goes on after the release.
  const unsigned total = unsigned(info_.size());
  b2r_of_.assign(total, -1);
  for (size_t fi = 0; fi < layout_.size(); ++fi) {
    const ptx::Function& f = *layout_[fi];
    for (unsigned i = 0; i < f.instrs.size(); ++i) {
      const ptx::Instr& in = f.instrs[i];
      if (in.op != ptx::Op::Bar || in.bar != ptx::BarMode::Red) continue;
      const unsigned pc = layout_base_[fi] + i;
      b2r_of_[pc] = int(info_.size());
      b2r_names_.push_back(std::make_unique<std::string>("b2r.result (" + in.text + ")"));
      InstInfo bar = info_[pc], b2r = bar;
      OperandMap bmap = maps_[pc];
      bar.n_dst = bar.n_pdst = 0; // the barrier reads its predicate, writes nothing
      b2r.pc = uint32_t(info_.size());
      b2r.opname = b2r_names_.back()->c_str();
      b2r.op_class = OpClass::Move;
      b2r.pipe = ptx::class_pipe(OpClass::Move);
      b2r.n_src = b2r.n_psrc = 0;
      b2r.barrier = b2r.exit = false;
      b2r.reuse_op = b2r.computation_op = 0;
      b2r.reuse_n = 0;
      b2r.reuse_why = 0;
      b2r.consumes_long_latency = b2r.produces_long_latency = false;
      info_[pc] = bar;
      info_.push_back(b2r);
      maps_.push_back(bmap);
      hidden_.push_back(false);
    }
  }
}

PtxFrontend::~PtxFrontend() = default;

unsigned PtxFrontend::func_base(const ptx::Function* f) const {
  for (size_t i = 0; i < layout_.size(); ++i)
    if (layout_[i] == f) return layout_base_[i];
  throw WorkloadError("function '" + (f ? f->name : std::string("?")) +
                      "' is not part of the compiled kernel");
}

// =============================================================================================
// Launch
// =============================================================================================
Occupancy PtxFrontend::start(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem) {
  if (launch_.several_kernels)
    throw WorkloadError(launch_.file + ": the application launches several kernels; a Gpu "
                                       "runs it (begin(), next_app())");
  begin(mem);
  AppLaunch a;
  if (!next_app_launch(mem, a)) throw WorkloadError(launch_.file + ": the steps launch nothing");
  take(a);
  return launch(limits, sms);
}

void PtxFrontend::begin(IFunctionalMemory& mem) {
  mem_ = &mem;
  adaptor_ = std::make_unique<MemAdaptor>(mem);

  // Buffers.
  buffer_addr_.clear();
  uint64_t next = buffer_base_;
  for (const LaunchBuffer& b : launch_.buffers) { // those at module variables: below
    buffer_addr_.push_back(b.symbol.empty() ? next : 0);
    next = after_buffer(next, b);
  }
  for (auto [base, bytes, what] :
       {std::tuple{options_.window_base, kWindowBytes, "the timing-only windows"},
        {options_.data_base, kDataBytes, "the module's variables"}})
    if (buffer_base_ < base + bytes && base < next)
      throw WorkloadError(launch_.file + ": buffers need [" + hex(buffer_base_) + ", " + hex(next) +
                          "), which overlaps " + what + " at " + hex(base) +
                          " (frontend.window_base, frontend.data_base)");
  load_module();
  for (size_t i = 0; i < launch_.buffers.size(); ++i) {
    const LaunchBuffer& b = launch_.buffers[i];
    for (uint64_t off = 0; off < b.initial.size(); off += 65536) {
      const unsigned n = unsigned(std::min<uint64_t>(65536, b.initial.size() - off));
      mem.write(buffer_addr_[i] + off, b.initial.data() + off, n);
    }
  }
  app_ = std::make_unique<AppRunner>(launch_, buffer_addr_);
  app_over_ = false;
}

bool PtxFrontend::next_app(IFunctionalMemory& mem, AppLaunch& a) {
  if (!app_) throw WorkloadError(launch_.file + ": next_app() before begin()");
  if (next_app_launch(mem, a)) return true;
  app_over_ = true;
  return false;
}

Occupancy PtxFrontend::start_app_launch(const SmLimits& limits, unsigned sms,
                                        IFunctionalMemory& mem, const AppLaunch& a) {
  if (a.kernel != launch_.kernel)
    throw WorkloadError(a.where + ": launch of '" + a.kernel + "' handed to kernel '" +
                        launch_.kernel + "'");
  if (mem_ != &mem) {
    mem_ = &mem;
    adaptor_ = std::make_unique<MemAdaptor>(mem);
  }
  load_module(); // once per module: its variables keep their values from kernel to kernel
  take(a);
  return launch(limits, sms);
}

void PtxFrontend::take(const AppLaunch& a) {
  launch_.grid = a.shape.grid;
  launch_.block = a.shape.block;
  launch_.shared_bytes = a.shape.shared_bytes;
  launch_.shared_bytes_where = a.where;
  params_ = a.params;
  launch_.cooperative = a.shape.cooperative;
  use_allocations(a.shape.allocations);
}

void PtxFrontend::relocate(uint64_t offset) {
  options_.data_base += offset;
  options_.window_base += offset;
  buffer_base_ = kBufferBase + offset;
}

std::vector<PtxFrontend::Region> PtxFrontend::regions(bool buffers) const {
  std::vector<Region> r = {{options_.data_base, kDataBytes, "the module's variables"},
                           {options_.window_base, kWindowBytes, "the timing-only windows"}};
  uint64_t end = buffer_base_; // as start() places them
  for (const LaunchBuffer& b : launch_.buffers) end = after_buffer(end, b);
  if (buffers && end > buffer_base_)
    r.push_back({buffer_base_, end - buffer_base_, "the launch file's buffers"});
  return r;
}

bool PtxFrontend::next_app_launch(IFunctionalMemory& mem, AppLaunch& a) {
  current_ = app_->next(mem);
  if (!current_) return false;
  // The buffers where the steps left them (a swap moves them), for every kernel launched.
  buffer_allocations_.clear();
  for (size_t i = 0; i < launch_.buffers.size(); ++i)
    if (launch_.buffers[i].symbol.empty()) // one at a variable is inside it
      buffer_allocations_.add(buffer_addr_[i], std::max<uint64_t>(launch_.buffers[i].bytes(), 1),
                              "buffer '" + launch_.buffers[i].name + "'");
  a.shape.allocations = &buffer_allocations_;
  textures_ = texture_table(launch_, buffer_addr_); // over the buffers where the steps left them
  const AppStep& st = *current_;
  const std::string what = st.where + ": launch " + std::to_string(app_->launches());
  a.kernel = st.kernel.empty() ? launch_.kernel : st.kernel;
  a.shape.cooperative = st.cooperative < 0 ? file_cooperative_ : st.cooperative == 1;
  a.where = st.kernel.empty() && st.shared.empty() ? file_shared_where_ : st.where;
  const ptx::Function* f = find_entry(launch_, a.kernel);
  if (!f) throw WorkloadError(what + ": no kernel '" + a.kernel + "'"); // the loader checked
  try {
    // The step's grid, block and shared memory, over the vars as the steps left them.
    auto dims = [&](const std::vector<std::string>& e, const std::array<unsigned, 3>& file,
                    const char* key, const std::array<int64_t, 3>& most) {
      if (e.empty()) return file;
      std::array<unsigned, 3> d{1, 1, 1};
      for (size_t i = 0; i < 3 && i < e.size(); ++i) {
        const int64_t x = eval_expr(e[i], launch_.vars);
        if (x < 1 || x > most[i])
          throw ExprError(std::string(key) + "." + "xyz"[i] + ": '" + e[i] + "' is " +
                          std::to_string(x) + ", outside [1, " + std::to_string(most[i]) + "]");
        d[i] = unsigned(x);
      }
      return d;
    };
    a.shape.grid = dims(st.grid, file_grid_, "grid", {INT32_MAX, 65535, 65535});
    a.shape.block = dims(st.block, file_block_, "block", {1024, 1024, 64});
    const uint64_t threads = uint64_t(a.shape.block[0]) * a.shape.block[1] * a.shape.block[2];
    if (threads > 1024)
      throw ExprError("block: " + std::to_string(threads) + " threads per CTA; at most 1024");
    if (const std::string why = block_error(*f, a.shape.block); !why.empty())
      throw ExprError("block: " + why);
    a.shape.shared_bytes = file_shared_;
    if (!st.shared.empty()) {
      const int64_t x = eval_expr(st.shared, launch_.vars);
      if (x < 0 || x > (int64_t(1) << 30))
        throw ExprError("shared: '" + st.shared + "' is " + std::to_string(x) +
                        ", outside [0, 2^30] bytes");
      a.shape.shared_bytes = unsigned(x);
    }
    a.params = st.own_params ? pack_params(launch_, buffer_addr_, *f, st.params)
                             : pack_params(launch_, buffer_addr_);
  } catch (const ExprError& e) {
    throw WorkloadError(what + ": " + e.what());
  }
  return true;
}

bool PtxFrontend::next_launch(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem,
                              Occupancy& occ) {
  AppLaunch a;
  if (!app_ || !next_app_launch(mem, a)) return false;
  take(a);
  occ = launch(limits, sms);
  return true;
}

Occupancy PtxFrontend::start_hosted(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem,
                                    const HostLaunch& h) {
  mem_ = &mem;
  adaptor_ = std::make_unique<MemAdaptor>(mem);
  host_shape(mem, h);
  load_module();      // once: the module's variables keep their values from kernel to kernel
  retired_ = issued_; // a failed launch's instructions were drained, not retired here
  copies_.clear();
  return launch(limits, sms);
}

unsigned PtxFrontend::bound_warps() const {
  const ptx::Function& f = launch_.entry();
  const unsigned* d = f.reqntid[0] ? f.reqntid : f.maxntid;
  if (!d[0]) return 0;
  const uint64_t threads = uint64_t(d[0]) * std::max(d[1], 1u) * std::max(d[2], 1u);
  return unsigned((threads + 31) / 32 * std::max(f.minnctapersm, 1u));
}

void PtxFrontend::host_shape(IFunctionalMemory& mem, const HostLaunch& h) {
  uint64_t threads = 1, ctas = 1;
  for (unsigned d = 0; d < 3; ++d) {
    if (!h.grid[d] || !h.block[d])
      throw WorkloadError("host launch: grid and block dimensions must be at least 1");
    threads *= h.block[d];
    ctas *= h.grid[d];
  }
  if (threads > 1024)
    throw WorkloadError("host launch: " + std::to_string(threads) +
                        " threads per CTA (at most 1024)");
  // Each dimension has its own limit too (maxThreadsDim, maxGridSize: CUDA refuses a block
  // (1,1,128) and a grid (1,70000) with cudaErrorInvalidConfiguration).
  const unsigned block_most[3] = {1024, 1024, 64}, grid_most[3] = {(1u << 31) - 1, 65535, 65535};
  for (unsigned d = 0; d < 3; ++d) {
    const std::string axis(1, char('x' + d));
    if (h.block[d] > block_most[d])
      throw WorkloadError("host launch: blockDim." + axis + " is " + std::to_string(h.block[d]) +
                          " (at most " + std::to_string(block_most[d]) + ")");
    if (h.grid[d] > grid_most[d])
      throw WorkloadError("host launch: gridDim." + axis + " is " + std::to_string(h.grid[d]) +
                          " (at most " + std::to_string(grid_most[d]) + ")");
  }
  if (ctas > (1u << 31) - 1)
    throw WorkloadError("host launch: " + std::to_string(ctas) + " CTAs (at most 2^31 - 1)");
  // __launch_bounds__ (.maxntid) and __block_size__ (.reqntid): ptxas sized the kernel's
  // registers for them, and CUDA refuses a larger block.
  if (const std::string why = block_error(launch_.entry(), h.block); !why.empty())
    throw WorkloadError("host launch: block " + why);
  launch_.grid = h.grid;
  launch_.block = h.block;
  launch_.shared_bytes = h.shared_bytes;
  launch_.shared_bytes_where = "host launch"; // its dynamic shared memory, not the file's
  launch_.buffers.clear();                    // the host's, wherever it put them
  launch_.cooperative = h.cooperative;
  buffer_addr_.clear();
  use_allocations(h.allocations);
  textures_ = h.textures ? *h.textures : ptx::TextureTable{};
  heap_ = h.heap;
  stack_bytes_ = h.stack_bytes;
  size_local_stride();
  device_launches_ = h.device_launches;
  params_.assign(launch_.entry().param_bytes, 0);
  if (!params_.empty()) mem.read(h.param_address, params_.data(), unsigned(params_.size()));
}

PtxFrontend::FastForward PtxFrontend::fast_forward(const SmLimits& limits, unsigned sms,
                                                   IFunctionalMemory& mem, const HostLaunch& h) {
  FastForward r;
  MemAdaptor adaptor(mem);
  std::unique_ptr<ptx::Kernel> k;
  unsigned resident = 1; // CTAs the device holds at once
  // What start_hosted() and launch() check before the first CTA: the same refusals.
  try {
    host_shape(mem, h);
    const bool init = !*module_loaded_; // the module's variables get their values once
    try {
      k = std::make_unique<ptx::Kernel>(module(), launch_.kernel, config(init), params_, adaptor);
    } catch (const ptx::SharedMemoryError& e) {
      throw ConfigError(
          shared_memory_error(e.static_bytes, ptx::kMaxSharedBytes, "gpurf's limit per CTA"));
    } catch (const ptx::RuntimeError& e) {
      throw WorkloadError(e.what());
    }
    *module_loaded_ = true;
    add_variable_allocations(*k, allocations_);
    if (k->shared_bytes() > limits.shared_bytes)
      throw ConfigError(shared_memory_error(k->static_shared_bytes(), limits.shared_bytes,
                                            "the platform's sm.shared_bytes"));
    const Occupancy occ =
        occupancy(limits, launch_.kernel, k->warps_per_cta(), k->shared_bytes(), k->num_ctas());
    if (launch_.cooperative) start_cooperative(k->num_ctas(), occ.ctas, std::max(1u, sms), adaptor);
    resident = std::max(1u, occ.ctas * std::max(1u, sms));
  } catch (const std::exception& e) {
    r.refused = e.what();
    return r;
  }
  // As many CTAs at once as the device holds (a cooperative grid: all of them), the next
  // starting when one ends, in grid order, as the device dispatches them; each warp runs in
  // turn until it waits at a barrier, ends, or has run a slice, so CTAs that wait for each
  // other through memory go on as on the device. The progress bound stops a kernel that cannot
  // end, as the timed run's does.
  constexpr unsigned kSlice = 256;
  LoopWatch watch(options_.progress_bound);
  ptx::StepResult s;
  s.values = false;
  const unsigned ctas = k->num_ctas();
  if (launch_.cooperative) resident = ctas;
  try {
    std::vector<std::pair<unsigned, unsigned>> live; // (handle, CTA index)
    std::vector<unsigned> ws;
    unsigned next = 0;
    while (next < ctas || !live.empty()) {
      while (live.size() < resident && next < ctas) {
        live.emplace_back(k->launch_cta(next), next);
        ++next;
      }
      bool stepped = false;
      for (const auto& [h, c] : live) {
        ws = k->cta_warps(h);
        for (unsigned w : ws)
          for (unsigned n = 0; n < kSlice; ++n) {
            const ptx::Peek p = k->peek(w);
            if (p.state != ptx::Peek::State::Ready) break;
            const InstInfo& info = info_[pc_of(p)];
            k->step(w, s);
            stepped = true;
            watch.executed(LoopWatch::progress_of(info));
            if (watch.over_bound()) {
              std::map<unsigned, unsigned> at;
              for (const auto& l : live)
                for (unsigned v : k->cta_warps(l.first))
                  if (const ptx::Peek q = k->peek(v); q.state == ptx::Peek::State::Ready)
                    ++at[info_[pc_of(q)].ptx_line];
              throw WorkloadError(runaway_message(
                  at, watch.since_global(),
                  live.size() == 1 ? "CTA " + std::to_string(c) + ": "
                                   : "CTAs " + std::to_string(live.front().second) + "-" +
                                         std::to_string(live.back().second) + ": "));
            }
          }
      }
      if (interrupt_requested()) throw WorkloadError("interrupted");
      const size_t before = live.size();
      live.erase(std::remove_if(live.begin(), live.end(),
                                [&](const std::pair<unsigned, unsigned>& l) {
                                  if (!k->cta_done(l.first)) return false;
                                  k->release_cta(l.first);
                                  return true;
                                }),
                 live.end());
      if (!stepped && live.size() == before) // no warp ready: a deadlock the engine names
        throw WorkloadError("CTA " + std::to_string(live.front().second) + ": no warp can go on");
    }
  } catch (const ptx::RuntimeError& e) {
    r.error = e.what();
  } catch (const WorkloadError& e) {
    r.error = e.what();
  }
  r.warp_instructions = k->instructions_executed();
  return r;
}

ptx::LaunchConfig PtxFrontend::config(bool init_data) const {
  ptx::LaunchConfig cfg;
  cfg.grid = ptx::Dim3(launch_.grid[0], launch_.grid[1], launch_.grid[2]);
  cfg.block = ptx::Dim3(launch_.block[0], launch_.block[1], launch_.block[2]);
  cfg.dyn_shared_bytes = launch_.shared_bytes;
  cfg.data_base = options_.data_base;
  cfg.data_limit = kDataBytes;
  cfg.local_bytes_per_thread = unsigned(local_stride_);
  if (plan_.recursive) { // the stack bounds the recursion (docs/frontend.md, "Recursion")
    cfg.local_bytes_per_thread = unsigned(stack_limit());
    cfg.local_limit_what = "the stack per thread: cudaLimitStackSize, which "
                           "cudaDeviceSetLimit raises; a launch file's is CUDA's default";
    cfg.max_call_depth = unsigned(256 + stack_limit() / 16); // a recursive frame: >= 16 bytes
    cfg.save_bytes.assign(plan_.funcs.size(), 0);
    for (size_t i = 0; i < plan_.funcs.size(); ++i) cfg.save_bytes[i] = plan_.funcs[i].save_bytes;
  }
  cfg.instr_budget = 0; // the timing model's watchdog and max_cycles bound the run
  cfg.clock = cycle_;   // read as the instruction issues (execution-driven)
  cfg.globaltimer = ns_;
  cfg.init_data = init_data;
  cfg.allocations = options_.memory_check && !unchecked_ ? &allocations_ : nullptr;
  cfg.textures = &textures_;
  cfg.heap = heap_;
  cfg.device_launches = device_launches_;
  if (launch_.cooperative) {
    const uint64_t ws = options_.window_base + kGridWorkspace;
    cfg.envreg[1] = uint32_t(ws >> 32);
    cfg.envreg[2] = uint32_t(ws);
  }
  return cfg;
}

void PtxFrontend::use_allocations(const ptx::Allocations* given) {
  unchecked_ = !given;
  allocations_ = given ? *given : ptx::Allocations{};
}

void PtxFrontend::add_variable_allocations(const ptx::Kernel& k, ptx::Allocations& a) const {
  for (const ptx::VarDecl& v : module().vars)
    if ((v.space == ptx::Space::Global || v.space == ptx::Space::Const) && v.size)
      a.add(k.symbol_address(v.name), v.size, "variable '" + v.name + "'");
  if (launch_.cooperative)
    a.add(options_.window_base + kGridWorkspace, kGridWorkspaceBytes,
          "the cooperative launch's grid workspace");
}

void PtxFrontend::load_module() {
  if (*module_loaded_) return;
  *module_loaded_ = true;
  try { // writes the variables' initial values
    const std::vector<uint8_t> zeros(launch_.entry().param_bytes, 0);
    ptx::LaunchConfig c = config(true);
    c.dyn_shared_bytes = 0; // the launch's, checked at the launch
    const ptx::Kernel k(module(), launch_.kernel, c, zeros, *adaptor_);
    for (size_t i = 0; i < launch_.buffers.size(); ++i)
      if (!launch_.buffers[i].symbol.empty())
        buffer_addr_[i] = k.symbol_address(launch_.buffers[i].symbol);
  } catch (const ptx::RuntimeError& e) {
    throw WorkloadError(e.what());
  }
}

std::string PtxFrontend::progress() const {
  if (!total_ctas_) return "";
  const unsigned done = next_cta_ - live_ctas_;
  const double f = double(done) / total_ctas_;
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - launched_).count();
  std::ostringstream o;
  if (app_ && launch_.application)
    o << "launch " << app_->launches() << " (" << launch_label() << "): ";
  // The count, not only the percent: a grid of millions of short CTAs moves by less than 1%
  // between progress lines and must not look hung.
  o << done << " of " << total_ctas_ << " CTAs done (" << std::fixed
    << std::setprecision(f < 0.01 ? 4 : 1) << f * 100 << "%)";
  if (done) o << ", ETA " << duration_text(s * (1 - f) / f);
  return o.str();
}

Occupancy PtxFrontend::launch(const SmLimits& limits, unsigned sms) {
  launched_ = std::chrono::steady_clock::now();
  const uint64_t threads = launch_.threads_per_cta();
  warps_per_cta_ = unsigned((threads + kWarpSize - 1) / kWarpSize);
  total_ctas_ = unsigned(launch_.num_ctas());
  const ptx::LaunchConfig cfg = config(false);
  try {
    kernel_ = std::make_unique<ptx::Kernel>(module(), launch_.kernel, cfg, params_, *adaptor_);
  } catch (const ptx::SharedMemoryError& e) {
    throw ConfigError(
        shared_memory_error(e.static_bytes, ptx::kMaxSharedBytes, "gpurf's limit per CTA"));
  } catch (const ptx::RuntimeError& e) {
    throw WorkloadError(e.what());
  }
  add_variable_allocations(*kernel_, allocations_);  // before any access: the profile runs it
  if (kernel_->shared_bytes() > limits.shared_bytes) // before occupancy(), which names no file
    throw ConfigError(shared_memory_error(kernel_->static_shared_bytes(), limits.shared_bytes,
                                          "the platform's sm.shared_bytes"));

  // Residency.
  const Occupancy occ =
      occupancy(limits, launch_.kernel, warps_per_cta_, kernel_->shared_bytes(), total_ctas_);
  sms = std::max(1u, sms);
  if (launch_.cooperative) start_cooperative(total_ctas_, occ.ctas, sms, *adaptor_);

  if (options_.reuse_profile_warps || options_.reuse_oracle) profile_reuse(cfg, occ.ctas * sms);

  max_ctas_ = occ.ctas;
  sm_warps_ = limits.warp_slots();
  // Every warp slot's threads have their slice of the local window (timing addresses).
  if (plan_.local_bytes &&
      uint64_t(sm_warps_) * sms * kWarpSize * local_stride_ > kWindowBytes - kLocalWindow)
    throw ConfigError(launch_.file + ": kernel '" + launch_.kernel + "' needs " +
                      std::to_string(plan_.local_bytes) + " bytes of local memory per thread; " +
                      std::to_string(sm_warps_) + " warp slots x " + std::to_string(sms) +
                      " SMs x 32 threads x " + std::to_string(local_stride_) +
                      " bytes do not fit the " +
                      std::to_string((kWindowBytes - kLocalWindow) >> 20) +
                      " MiB local window: fewer SMs (gpu.sm_count) or warps (sm.warps)");
  loops_.set_sms(sms);

  ctas_.assign(size_t(max_ctas_) * sms, CtaSlot{});
  // A slot's finished warps keep counting over launches (a new count tells the SM that the
  // registers hold nothing live).
  std::vector<uint64_t> finished(size_t(sm_warps_) * sms, 0);
  for (size_t w = 0; w < finished.size() && w < warps_.size(); ++w)
    finished[w] = warps_[w].finished;
  warps_.assign(size_t(sm_warps_) * sms, WarpSlot{});
  for (size_t w = 0; w < warps_.size(); ++w) warps_[w].finished = finished[w];
  next_cta_ = live_ctas_ = 0;
  // The first CTAs go round-robin over the SMs (GPGPU-Sim's distributor); later, a CTA slot
  // freed in an SM takes the next CTA, so a faster SM runs more of the grid.
  for (unsigned k = 0; k < max_ctas_; ++k)
    for (unsigned s = 0; s < sms && next_cta_ < total_ctas_; ++s) launch_into(s * max_ctas_ + k);
  return occ;
}

void PtxFrontend::start_cooperative(uint64_t ctas, unsigned ctas_per_sm, unsigned sms,
                                    ptx::GlobalMemory& mem) {
  // CUDA refuses a cooperative grid larger than the occupancy (cudaOccupancyMaxActiveBlocks-
  // PerMultiprocessor) times the SMs: a CTA waiting at grid.sync() for one that cannot start
  // would wait for ever.
  if (ctas > uint64_t(ctas_per_sm) * sms)
    throw ConfigError(
        (launch_.shared_bytes_where.empty() ? launch_.file : launch_.shared_bytes_where) +
        ": kernel '" + launch_.kernel + "': cooperative launch of " + std::to_string(ctas) +
        " CTAs: at most " + std::to_string(uint64_t(ctas_per_sm) * sms) + " can be resident (" +
        std::to_string(ctas_per_sm) + " per SM x " + std::to_string(sms) +
        " SMs; CUDA: cudaErrorCooperativeLaunchTooLarge)");
  // The workspace as the driver leaves it: its size, and the barrier's count at 0 (the grid
  // barrier flips bit 31 of it once every CTA arrived; the low bits must start clear).
  const uint32_t ws[2] = {uint32_t(kGridWorkspaceBytes), 0};
  mem.write(options_.window_base + kGridWorkspace, ws, sizeof ws);
}

std::string PtxFrontend::shared_memory_error(uint64_t static_bytes, uint64_t limit,
                                             const std::string& what) const {
  const uint64_t dyn = launch_.shared_bytes;
  const std::string where = current_ && launch_.application ? current_->where : launch_.file;
  // A program's launch (the runtime's): its dynamic bytes are <<<>>>'s third argument, not a
  // launch file's key.
  const bool host = launch_.shared_bytes_where == "host launch";
  std::ostringstream m;
  m << (launch_.shared_bytes_where.empty() ? where : launch_.shared_bytes_where) << ": kernel '"
    << launch_.kernel << "': a CTA needs " << static_bytes + dyn << " bytes of shared memory ("
    << static_bytes << " static, the kernel's .shared variables in " << launch_.module->filename
    << ", + " << dyn << " dynamic, " << (host ? "the launch's" : "`shared_bytes`");
  m << "); " << what << " is " << limit << " bytes";
  if (static_bytes < limit)
    m << (host ? ": the launch may ask for at most " : ": give shared_bytes at most ")
      << limit - static_bytes << (host ? " dynamic bytes" : "");
  else
    m << ": the static part alone does not fit";
  if (what.find("sm.shared_bytes") != std::string::npos) m << ", or raise sm.shared_bytes";
  return m.str();
}

unsigned PtxFrontend::warp_of(unsigned cta_slot, unsigned i) const {
  return cta_slot / max_ctas_ * sm_warps_ + cta_slot % max_ctas_ * warps_per_cta_ + i;
}

bool PtxFrontend::done_in(unsigned first, unsigned count) const {
  if (!kernel_ || next_cta_ != total_ctas_) return false;
  for (unsigned w = first; w < first + count && w < warps_.size(); ++w)
    if (warps_[w].cta_slot >= 0) return false;
  return true;
}

void PtxFrontend::launch_into(unsigned k) {
  CtaSlot& c = ctas_[k];
  c = CtaSlot{};
  c.busy = true;
  c.linear = next_cta_++;
  try {
    c.engine_cta = kernel_->launch_cta(c.linear);
  } catch (const ptx::RuntimeError& e) {
    throw WorkloadError(e.what());
  }
  c.threads = unsigned(launch_.threads_per_cta());
  const std::vector<unsigned>& ws = kernel_->cta_warps(c.engine_cta);
  for (unsigned i = 0; i < ws.size(); ++i) {
    WarpSlot& w = warps_[warp_of(k, i)];
    w.cta_slot = int(k);
    w.engine_warp = ws[i];
    w.next = nullptr;
    w.executed = 0;
    const size_t key = size_t(c.linear) * warps_per_cta_ + i;
    w.oracle = key < oracle_.size() ? &oracle_[key] : nullptr;
    w.lanes = std::min(kWarpSize, c.threads - i * kWarpSize);
    // A CTA's registers start at 0, as the engine's and the banks' (Sm resets the rows of a
    // slot whose CTA finished): a read of a register the CTA never wrote reads 0.
    w.shadow.assign(regs_per_thread(), LaneValues{});
    w.writer.assign(regs_per_thread(), -1);
    w.written.assign(regs_per_thread(), 0);
    w.pshadow.assign(preds_per_thread(), LaneValues{});
    w.async = ptx::AsyncGroups<unsigned>();
    w.spills.clear();
  }
  ++live_ctas_;
  ++offer_epoch_; // the CTA's warps have instructions to offer
}

// =============================================================================================
// Execution
// =============================================================================================
const InstInfo* PtxFrontend::peek(unsigned warp) {
  if (warp >= warps_.size() || warps_[warp].cta_slot < 0) return nullptr;
  WarpSlot& ws = warps_[warp];
  if (ws.next) return ws.next; // most calls: the scheduler asks again
  // The engine is asked out of line, so that the answer above needs no frame for it.
  return [ this, &ws ]() __attribute__((noinline))->const InstInfo* {
    const unsigned ew = ws.engine_warp;
    for (;;) {
      const ptx::Peek p = kernel_->peek(ew);
      if (p.state != ptx::Peek::State::Ready || !p.instr) return nullptr;
      if (ws.b2r >= 0) return ws.next = &info_[unsigned(ws.b2r)]; // the barrier released
      const unsigned pc = pc_of(p);
      // next_spill() answers only for a warp in a spill sequence or at a call site with saves
      if (!ws.spills.empty() || (pc < spill_of_.size() && spill_of_[pc].words))
        if (const InstInfo* s = next_spill(ws, p)) return ws.next = s;
      if (!hidden_[pc]) {
        if (p.instr->op == ptx::Op::CpAsyncWait && !copies_landed(ws, *p.instr)) return nullptr;
        return ws.next = &info_[pc];
      }
      // A constant-operand definition: the value lives in the encoding; run it, issue nothing.
      step_engine(ew);
      ++hidden_steps_;
    }
  }
  ();
}

void PtxFrontend::step_engine(unsigned engine_warp) {
  try {
    kernel_->step(engine_warp, *step_);
  } catch (const ptx::RuntimeError& e) {
    throw WorkloadError(e.what());
  }
  // Only a barrier or an exit (which may complete a barrier) lets waiting warps go on.
  if (step_->instr->op == ptx::Op::Bar || step_->exited_lanes) ++offer_epoch_;
}

namespace {

// Reads the SM's memory, keeps its own writes: the profile run leaves the real memory alone.
struct OverlayMemory : ptx::GlobalMemory {
  explicit OverlayMemory(IFunctionalMemory& m) : mem(m) {}
  static constexpr uint64_t kPage = 4096;
  std::array<uint8_t, kPage>& page(uint64_t p) {
    auto it = pages.find(p);
    if (it != pages.end()) return it->second;
    std::array<uint8_t, kPage>& b = pages[p];
    mem.read(p * kPage, b.data(), kPage);
    return b;
  }
  void read(uint64_t a, void* dst, unsigned len) override {
    auto* d = static_cast<uint8_t*>(dst);
    for (unsigned i = 0; i < len;) {
      const uint64_t p = (a + i) / kPage, o = (a + i) % kPage;
      const unsigned n = unsigned(std::min<uint64_t>(len - i, kPage - o));
      auto it = pages.find(p);
      if (it != pages.end())
        std::memcpy(d + i, it->second.data() + o, n);
      else
        mem.read(a + i, d + i, n);
      i += n;
    }
  }
  void write(uint64_t a, const void* src, unsigned len) override {
    const auto* s = static_cast<const uint8_t*>(src);
    for (unsigned i = 0; i < len;) {
      const uint64_t p = (a + i) / kPage, o = (a + i) % kPage;
      const unsigned n = unsigned(std::min<uint64_t>(len - i, kPage - o));
      std::memcpy(page(p).data() + o, s + i, n);
      i += n;
    }
  }
  IFunctionalMemory& mem;
  std::unordered_map<uint64_t, std::array<uint8_t, kPage>> pages;
};

} // namespace

// CTAs one at a time (a cooperative grid's all at once: a CTA at grid.sync() waits for every
// other). A CTA that waits for a later one through memory cannot end alone: when one CTA runs
// an eighth of the progress bound without progress, the run starts again with the CTAs the
// device holds together (more warps profiled, as the timed run would see them end).
void PtxFrontend::profile_reuse(const ptx::LaunchConfig& cfg, unsigned resident) {
  std::string runaway;
  if (launch_.cooperative) {
    if (!profile_run(cfg, total_ctas_, options_.progress_bound, runaway))
      throw WorkloadError(runaway);
    return;
  }
  const uint64_t quick =
      options_.progress_bound ? std::max<uint64_t>(options_.progress_bound / 8, 1) : 0;
  if (profile_run(cfg, 1, quick, runaway)) return;
  const unsigned group = std::min(std::max(resident, 1u), total_ctas_);
  if (group <= 1 || !profile_run(cfg, group, options_.progress_bound, runaway))
    throw WorkloadError(runaway);
}

bool PtxFrontend::profile_run(const ptx::LaunchConfig& cfg, unsigned group, uint64_t bound,
                              std::string& runaway) {
  OverlayMemory mem(*mem_);
  ptx::LaunchConfig c = cfg; // the module's variables are in memory already (load_module)
  ptx::DeviceHeap heap;      // in-kernel malloc on a copy, as the stores go to the overlay
  if (c.heap) c.heap = &(heap = *c.heap);
  ptx::DeviceLaunches launches; // device launches likewise: the timed run makes the real ones
  if (c.device_launches) c.device_launches = &(launches = *c.device_launches);
  ReuseProfiler prof(info_.size(), options_.reuse_rthld);
  const bool all = options_.reuse_oracle;
  try {
    ptx::Kernel k(module(), launch_.kernel, c, params_, mem);
    unsigned profiled = 0;
    if (all) oracle_.assign(size_t(total_ctas_) * warps_per_cta_, {});
    // The timed run's stops apply here too: a kernel that cannot end is named, not profiled
    // for ever, and an interrupt leaves at once (the run stops at its first cycle).
    LoopWatch watch(bound);
    for (unsigned first = 0;
         first < total_ctas_ && (all || profiled < options_.reuse_profile_warps); first += group) {
      std::vector<unsigned> ctas, ws; // engine handles; the warps in CTA order
      for (unsigned cta = first; cta < first + group && cta < total_ctas_; ++cta) {
        ctas.push_back(k.launch_cta(cta));
        for (unsigned w : k.cta_warps(ctas.back())) ws.push_back(w);
      }
      auto done = [&] {
        for (unsigned h : ctas)
          if (!k.cta_done(h)) return false;
        return true;
      };
      // Warps round-robin, one instruction at a time, until the CTAs are done; each warp's
      // stream goes to the profiler in its own order (distances count its own instructions).
      std::vector<std::vector<uint32_t>> streams(ws.size());
      ptx::StepResult r; // reused; the profile needs no values
      r.values = false;
      std::vector<std::vector<std::pair<unsigned, unsigned>>> pending(ws.size()); // site, depth
      while (!done()) {
        bool stepped = false;
        for (size_t i = 0; i < ws.size(); ++i) {
          const ptx::Peek p = k.peek(ws[i]);
          if (p.state != ptx::Peek::State::Ready) continue;
          const unsigned pc = pc_of(p);
          // A recursive call's saves, then the call; its restores once it returned (as
          // next_spill() and returned() order them in the timed run).
          if (pc < spill_of_.size() && spill_of_[pc].words) {
            for (unsigned s = 0; s < spill_of_[pc].words; ++s)
              streams[i].push_back(spill_of_[pc].first + s);
            pending[i].push_back({pc, k.call_depth(ws[i])});
          }
          k.step(ws[i], r);
          watch.executed(LoopWatch::progress_of(info_[pc]));
          if (watch.over_bound()) {
            std::map<unsigned, unsigned> at;
            for (unsigned w : ws)
              if (const ptx::Peek q = k.peek(w); q.state != ptx::Peek::State::Finished)
                ++at[info_[pc_of(q)].ptx_line];
            runaway = runaway_message(
                at, watch.since_global(),
                "frontend.reuse_profile_warps: the profile run of CTA " + std::to_string(first) +
                    (ctas.size() > 1 ? " to " + std::to_string(first + ctas.size() - 1) : "") +
                    ": ");
            return false;
          }
          if (interrupt_requested()) return true;
          if (!hidden_[pc]) streams[i].push_back(pc);
          if (b2r_of_[pc] >= 0) streams[i].push_back(uint32_t(b2r_of_[pc])); // see execute()
          for (const unsigned depth = k.call_depth(ws[i]);
               !pending[i].empty() && depth <= pending[i].back().second; pending[i].pop_back())
            if (depth == pending[i].back().second) {
              const SpillSite& sp = spill_of_[pending[i].back().first];
              for (unsigned s = 0; s < sp.words; ++s) streams[i].push_back(sp.first + sp.words + s);
            }
          stepped = true;
        }
        if (!stepped) break; // every warp at a barrier or done: the engine resolves barriers
      }
      for (size_t i = 0; i < streams.size(); ++i) {
        OracleStream* o = all ? &oracle_[size_t(first) * warps_per_cta_ + i] : nullptr;
        prof.start_warp(o ? &o->bits : nullptr);
        for (uint32_t pc : streams[i]) prof.step(info_[pc]);
        prof.end_warp();
        if (o) o->pc = std::move(streams[i]);
        ++profiled;
      }
      for (unsigned h : ctas) k.release_cta(h);
    }
  } catch (const ptx::RuntimeError& e) {
    throw WorkloadError(std::string("frontend.reuse_profile_warps: the profile run failed: ") +
                        e.what());
  }
  // The majority bits of the profiled warps (all of them for the oracle, whose per-instance
  // bits replace these wherever the stream matches).
  prof.apply(info_);
  return true;
}

unsigned PtxFrontend::pc_of(const ptx::Peek& p) const {
  return (p.func == layout_[0] ? 0 : func_base(p.func)) + p.pc;
}

bool PtxFrontend::next_divergent(unsigned warp) {
  if (!peek(warp)) return false;
  const WarpSlot& w = warps_[warp];
  return kernel_->peek(w.engine_warp).active_mask != thread_mask(w);
}

namespace {

// The lanes whose value of shfl's source `a` an active lane takes (b and c per lane). A lane's
// `a` no lane takes is no undefined value in the result: the warp-aggregated atomic (one lane's
// atomicAdd, then __shfl_sync from it) leaves it unset.
uint32_t shfl_taken(const ptx::Instr& in, uint32_t exec, const LaneValues& bv,
                    const LaneValues& cv) {
  uint32_t taken = 0;
  for (unsigned l = 0; l < kWarpSize; ++l)
    if (exec >> l & 1) taken |= 1u << ptx::warp_ops::shfl_source(in.shfl, l, bv[l], cv[l]).lane;
  return taken;
}

} // namespace

void PtxFrontend::execute(unsigned warp, WarpInst& out) {
  const InstInfo* info = peek(warp);
  if (!info)
    throw WorkloadError("execute() on warp slot " + std::to_string(warp) +
                        ", which has no instruction ready (" + describe_warp(warp) + ")");
  WarpSlot& w = warps_[unsigned(warp)];
  if (w.b2r >= 0) return execute_b2r(warp, out);
  if (spill_rec_[info->pc].site != ~0u) return execute_spill(warp, *info, out);
  CtaSlot& c = ctas_[unsigned(w.cta_slot)];
  w.next = nullptr;
  const OperandMap& map = maps_[info->pc];
  const uint32_t exists = thread_mask(w);
  // 32 lanes of a 64-bit engine row, one half, into an operand's 32-bit lanes (lanes without
  // a thread read 0). A plain loop: it vectorises.
  // The low half (most operands) without a shift: the loop packs the rows' low words.
  auto convert = [&](const uint64_t* row, unsigned half, LaneValues& dst) {
    if (half == 0)
      for (unsigned l = 0; l < kWarpSize; ++l) dst[l] = uint32_t(row[l]);
    else
      for (unsigned l = 0; l < kWarpSize; ++l) dst[l] = uint32_t(row[l] >> 32);
    if (exists != ~0u)
      for (unsigned l = 0; l < kWarpSize; ++l)
        if (!(exists >> l & 1)) dst[l] = 0;
  };
  // The engine's rows are read in place (no copy of the step record): the sources before the
  // instruction runs, the destinations after (the same call frame: an instruction that
  // writes registers neither calls nor returns). A source's lanes are compared with the
  // register's shadow as they are converted (the step changes neither); check_source runs
  // after the step, in operand order as before, where they differ.
  const uint64_t* rows = kernel_->rows(w.engine_warp);
  uint32_t differs[InstInfo::kMaxSrc];
  for (unsigned k = 0; k < info->n_src; ++k) {
    LaneValues& v = out.src[k].value;
    convert(rows + size_t(map.src_vreg[k]) * kWarpSize, map.src_half[k], v);
    const LaneValues& sh = w.shadow[info->src_reg[k]];
    uint32_t d = 0;
    for (unsigned l = 0; l < kWarpSize; ++l) d |= v[l] ^ sh[l];
    differs[k] = d;
  }
  for (unsigned k = 0; k < info->n_psrc; ++k)
    convert(rows + size_t(map.psrc_vreg[k]) * kWarpSize, 0, out.psrc_value[k]);
  step_engine(w.engine_warp);
  const ptx::StepResult& r = *step_;
  if (!w.spills.empty()) {
    if (w.spills.back().site == info->pc && !w.spills.back().called) w.spills.back().called = true;
    returned(w);
  }
  if (b2r_of_[info->pc] >= 0) {
    w.b2r = b2r_of_[info->pc];
    w.b2r_mask = r.exec_mask;
  }
  out.info = info;
  out.warp = warp;
  out.cta = unsigned(w.cta_slot);
  out.active_mask = r.exec_mask;
  out.thread_mask = exists;
  out.n_src = info->n_src;
  out.n_dst = info->n_dst;
  uint32_t oracle = 0;
  const bool use_oracle = oracle_bits(w, *info, oracle);
  // Whether the engine reports `vreg` among the instruction's reads or writes (a list of one
  // to a few: a plain loop, which costs less than std::find's unrolled one).
  auto listed = [](const std::vector<unsigned>& vregs, unsigned vreg) {
    for (const unsigned v : vregs)
      if (v == vreg) return true;
    return false;
  };
  for (unsigned k = 0; k < info->n_src; ++k) {
    RegOperand& o = out.src[k];
    o.reg = info->src_reg[k];
    o.last_read = info->src_last_read[k];
    o.reuse_near = use_oracle ? (oracle >> k & 1) != 0 : info->src_reuse_near[k];
    o.long_latency = false;
    if (!listed(*r.read_vregs, map.src_vreg[k]))
      throw WorkloadError("internal: engine did not report source vreg " +
                          std::to_string(map.src_vreg[k]) + " of " + where(module(), *r.instr));
    uint32_t undef = r.exec_mask & exists & ~w.written[o.reg];
    if (undef && r.instr->op == ptx::Op::Shfl && r.instr->src.size() > 2 &&
        r.instr->src[0].is_reg() && map.src_vreg[k] == r.instr->src[0].reg) {
      // b and c: immediates, or registers the shuffle did not write (a hidden constant
      // definition is no issued source: its engine row holds it)
      const uint64_t* now_rows = kernel_->rows(w.engine_warp);
      LaneValues bc[2];
      bool known = true;
      for (unsigned i = 0; i < 2 && known; ++i) {
        const ptx::Operand& op = r.instr->src[i + 1];
        known =
            op.kind == ptx::Operand::Kind::Imm || (op.is_reg() && !listed(*r.write_vregs, op.reg));
        for (unsigned l = 0; l < kWarpSize && known; ++l)
          bc[i][l] =
              op.is_reg() ? uint32_t(now_rows[size_t(op.reg) * kWarpSize + l]) : uint32_t(op.imm);
      }
      if (known) undef &= shfl_taken(*r.instr, r.exec_mask, bc[0], bc[1]);
    }
    if (undef) {
      // Legal PTX may read a register no instruction wrote (undefined in PTX): it reads 0, as
      // in GPGPU-Sim, and the CTA's storage holds 0 there too.
      if (!undefined_reads_++)
        std::cerr << "warning: kernel '" << launch_.kernel << "': " << where(module(), *r.instr)
                  << " reads " << r.func->regs[map.src_vreg[k]].name << " (r" << o.reg
                  << ") in lanes " << hex(undef)
                  << " where no instruction of its CTA wrote it: an undefined value in PTX, "
                     "read as 0 (as GPGPU-Sim does); later such reads are counted, not shown\n";
    }
    if (differs[k]) check_source(warp, *r.func, *r.instr, k, map.src_vreg[k], o);
    ++checked_;
  }
  if (info->consumes_long_latency) // the function's plan looked up only where it is read
    if (const compiler::FunctionPlan* fp = plan_.plan(*r.func))
      for (unsigned k = 0; k < info->n_src; ++k)
        out.src[k].long_latency = fp->long_latency.reads_pending(r.pc, map.src_vreg[k]);
  for (unsigned k = 0; k < info->n_dst; ++k) {
    RegOperand& o = out.dst[k];
    o.reg = info->dst_reg[k];
    o.last_read = false;
    o.reuse_near = use_oracle ? (oracle >> (8 + k) & 1) != 0 : info->dst_reuse_near[k];
    o.long_latency = info->produces_long_latency;
    if (map.dst_vreg[k] == kZeroVreg) { // a call's zeroing of its callee's frame
      o.value = LaneValues{};
      w.shadow[o.reg] = o.value;
      w.writer[o.reg] = int32_t(info->pc);
      continue; // not `written`: a read before the callee writes it is still undefined
    }
    if (listed(*r.write_vregs, map.dst_vreg[k])) {
      convert(rows + size_t(map.dst_vreg[k]) * kWarpSize, map.dst_half[k], o.value);
      w.shadow[o.reg] = o.value;
    } else { // bar/ret-like instructions report no writes: the register keeps its contents.
      o.value = w.shadow[o.reg];
    }
    w.writer[o.reg] = int32_t(info->pc);
    w.written[o.reg] |= r.exec_mask;
  }
  pred_sources_ += info->n_psrc;
  for (unsigned k = 0; k < info->n_psrc; ++k)
    if (!listed(*r.read_vregs, map.psrc_vreg[k]))
      throw WorkloadError("internal: engine did not report predicate vreg " +
                          std::to_string(map.psrc_vreg[k]) + " of " + where(module(), *r.instr));
  for (unsigned k = 0; k < info->n_pdst; ++k) {
    LaneValues& v = out.pdst_value[k];
    if (listed(*r.write_vregs, map.pdst_vreg[k])) {
      convert(rows + size_t(map.pdst_vreg[k]) * kWarpSize, 0, v);
      w.pshadow[info->pdst_reg[k]] = v;
    } else {
      v = w.pshadow[info->pdst_reg[k]];
    }
  }
  out.access_bytes = 0;
  if (r.is_mem) {
    out.access_bytes = uint8_t(std::min(255u, r.access_bytes));
    const ptx::Space sp = r.space;
    // map_address keeps these (a shared or parameter access of its own space too)
    if (sp == ptx::Space::Global || sp == ptx::Space::Const ||
        (sp == ptx::Space::Shared && info->space == MemSpace::Shared) ||
        (sp == ptx::Space::Param && info->space == MemSpace::Param))
      if (r.exec_mask == ~0u) // every lane active: the engine's addresses as they are
        std::copy(r.addr.begin(), r.addr.end(), out.addr.begin());
      else
        for (unsigned l = 0; l < kWarpSize; ++l)
          out.addr[l] = (r.exec_mask >> l & 1) ? r.addr[l] : 0;
    else
      for (unsigned l = 0; l < kWarpSize; ++l)
        out.addr[l] =
            ((r.exec_mask >> l) & 1) ? map_address(warp, l, *info, int(sp), r.addr[l]) : 0;
  } else {
    out.addr.fill(0);
  }
  if (r.instr->op == ptx::Op::CpAsync || r.instr->op == ptx::Op::CpAsyncCommit ||
      r.instr->op == ptx::Op::CpAsyncWait)
    track_async(warp, r, out);
  ++c.issued;
  ++issued_;
  watch_loops(warp, *info, out);
}

// The timing side of cp.async's groups (async_copy.h): a copy is complete when its record
// retires (the LSU's global read answered); a wait is offered once its groups are complete.
bool PtxFrontend::copies_landed(WarpSlot& w, const ptx::Instr& in) {
  const uint64_t n = in.cp_all ? 0 : in.src[0].imm;
  return w.async.all_of_oldest(w.async.covered(n, in.cp_all), [](unsigned c) { return c == 0; });
}

void PtxFrontend::track_async(unsigned warp, const ptx::StepResult& r, WarpInst& out) {
  WarpSlot& w = warps_[warp];
  switch (r.instr->op) {
  case ptx::Op::CpAsync:
    copies_[&out] = {warp, w.async.open_id()};
    ++w.async.open();
    if (!r.is_mem) out.active_mask = 0; // every lane zero-fills: no global read to time
    break;
  case ptx::Op::CpAsyncCommit:
    w.async.commit();
    break;
  default: { // the wait: peek() offered it only once its groups were complete
    const uint64_t n = r.instr->cp_all ? 0 : r.instr->src[0].imm;
    w.async.retire_oldest(w.async.covered(n, r.instr->cp_all), [](unsigned) {});
  }
  }
}

bool PtxFrontend::oracle_bits(WarpSlot& w, const InstInfo& info, uint32_t& bits) {
  if (!w.oracle) return false;
  const uint64_t n = w.executed++;
  if (n < w.oracle->pc.size() && w.oracle->pc[n] == info.pc) {
    bits = w.oracle->bits[n];
    return true;
  }
  ++oracle_mismatches_;
  return false;
}

void PtxFrontend::check_source(unsigned warp, const ptx::Function& f, const ptx::Instr& in,
                               unsigned k, unsigned vreg, const RegOperand& o) const {
  const WarpSlot& w = warps_[warp];
  const LaneValues& sh = w.shadow[o.reg];
  if (sh == o.value) return;
  unsigned l = 0;
  while (sh[l] == o.value[l]) ++l;
  const int wr = w.writer[o.reg];
  std::ostringstream m;
  m << "register allocation error: warp slot " << warp << " (" << describe_warp(warp) << ") at "
    << where(module(), in) << ": source " << k << " " << f.regs[vreg].name << " in r" << o.reg
    << " lane " << l << " is " << hex(o.value[l]) << ", but the register holds " << hex(sh[l]);
  if (wr >= 0)
    m << " written by pc " << wr << " (line " << info_[unsigned(wr)].ptx_line << " '"
      << info_[unsigned(wr)].opname << "')";
  throw WorkloadError(m.str());
}

const InstInfo* PtxFrontend::next_spill(WarpSlot& w, const ptx::Peek& p) {
  if (!w.spills.empty()) {
    const WarpSlot::Spill& s = w.spills.back();
    const SpillSite& site = spill_of_[s.site];
    if (s.restoring) return &info_[site.first + site.words + s.next];
    if (!s.called) return s.next < site.words ? &info_[site.first + s.next] : nullptr; // the call
  }
  const unsigned pc = pc_of(p);
  if (pc >= spill_of_.size() || !spill_of_[pc].words) return nullptr;
  // A call that may re-enter its window: its caller's live registers are saved first.
  WarpSlot::Spill s;
  s.site = pc;
  try {
    s.depth = kernel_->call_depth(w.engine_warp);
    s.area = kernel_->save_area(w.engine_warp);
  } catch (const ptx::RuntimeError& e) {
    throw WorkloadError(e.what());
  }
  w.spills.push_back(std::move(s));
  return &info_[spill_of_[pc].first];
}

void PtxFrontend::returned(WarpSlot& w) {
  // The engine pops a returning call's frame; a caller whose lanes all exited in the callee
  // is gone too (nothing of it to restore).
  const unsigned depth = kernel_->call_depth(w.engine_warp);
  while (!w.spills.empty() && w.spills.back().called && !w.spills.back().restoring) {
    WarpSlot::Spill& s = w.spills.back();
    if (depth > s.depth) return;
    if (depth == s.depth) {
      s.restoring = true;
      s.next = 0;
      return;
    }
    w.spills.pop_back();
  }
}

void PtxFrontend::execute_spill(unsigned warp, const InstInfo& info, WarpInst& out) {
  WarpSlot& w = warps_[warp];
  const SpillRec& sr = spill_rec_[info.pc];
  const SpillSite& site = spill_of_[sr.site];
  WarpSlot::Spill& s = w.spills.back();
  const OperandMap& map = maps_[info.pc];
  w.next = nullptr;
  const uint32_t exists = thread_mask(w);
  out.info = &info;
  out.warp = warp;
  out.cta = unsigned(w.cta_slot);
  // The lanes at the call, or those that returned from it (a lane that exited in the callee
  // restores nothing).
  out.active_mask = kernel_->peek(w.engine_warp).active_mask & exists;
  out.thread_mask = exists;
  out.n_src = info.n_src;
  out.n_dst = info.n_dst;
  uint32_t oracle = 0;
  const bool use_oracle = oracle_bits(w, info, oracle); // the profile's streams hold them too
  auto value = [&](unsigned vreg, unsigned half, LaneValues& dst) {
    ptx::LaneValues64 v;
    try { // the caller's frame: the engine is at the call, or back after it
      v = kernel_->reg_value(w.engine_warp, vreg);
    } catch (const ptx::RuntimeError& e) {
      throw WorkloadError(e.what());
    }
    for (unsigned l = 0; l < kWarpSize; ++l)
      dst[l] = exists >> l & 1 ? uint32_t(v.v[l] >> (32 * half)) : 0;
  };
  if (!sr.restore) { // all 32 lanes: the callee's frame may overwrite any of them
    for (unsigned k = 0; k < info.n_src; ++k) {
      RegOperand& o = out.src[k];
      o.reg = info.src_reg[k];
      o.last_read = o.long_latency = false;
      o.reuse_near = use_oracle ? (oracle >> k & 1) != 0 : info.src_reuse_near[k];
      value(map.src_vreg[k], map.src_half[k], o.value);
      check_source(warp, *site.func, *site.call, k, map.src_vreg[k], o);
      ++checked_;
      s.values.push_back(o.value);
      s.written.push_back(w.written[o.reg]);
    }
    pred_sources_ += info.n_psrc;
    for (unsigned k = 0; k < info.n_psrc; ++k) {
      value(map.psrc_vreg[k], 0, out.psrc_value[k]);
      s.values.push_back(out.psrc_value[k]);
      s.written.push_back(0);
    }
  } else { // the values saved, which later reads check against the engine's caller frame
    for (unsigned k = 0; k < info.n_dst; ++k) {
      RegOperand& o = out.dst[k];
      o.reg = info.dst_reg[k];
      o.last_read = false;
      o.long_latency = true;
      o.reuse_near = use_oracle ? (oracle >> (8 + k) & 1) != 0 : info.dst_reuse_near[k];
      o.value = s.values[sr.value + k];
      w.shadow[o.reg] = o.value;
      w.writer[o.reg] = int32_t(info.pc);
      w.written[o.reg] = s.written[sr.value + k];
    }
    for (unsigned k = 0; k < info.n_pdst; ++k) {
      out.pdst_value[k] = s.values[sr.value + info.n_dst + k];
      w.pshadow[info.pdst_reg[k]] = out.pdst_value[k];
    }
  }
  out.access_bytes = 4;
  for (unsigned l = 0; l < kWarpSize; ++l)
    out.addr[l] = out.active_mask >> l & 1 ? map_address(warp, l, info, int(ptx::Space::Local),
                                                         s.area + 8 + 4 * uint64_t(sr.word))
                                           : 0;
  if (++s.next == site.words && s.restoring) w.spills.pop_back();
  ++ctas_[unsigned(w.cta_slot)].issued;
  ++issued_;
  watch_loops(warp, info, out);
}

void PtxFrontend::execute_b2r(unsigned warp, WarpInst& out) {
  WarpSlot& w = warps_[warp];
  const InstInfo& info = info_[unsigned(w.b2r)];
  const OperandMap& map = maps_[info.pc];
  w.next = nullptr;
  w.b2r = -1;
  const uint32_t exists = thread_mask(w);
  out.info = &info;
  out.warp = warp;
  out.cta = unsigned(w.cta_slot);
  out.active_mask = w.b2r_mask;
  out.thread_mask = exists;
  out.n_src = 0;
  out.n_dst = info.n_dst;
  uint32_t oracle = 0;
  const bool use_oracle = oracle_bits(w, info, oracle); // the profile's streams hold B2Rs too
  auto value = [&](unsigned vreg, unsigned half, LaneValues& dst) {
    ptx::LaneValues64 v;
    try {
      v = kernel_->reg_value(w.engine_warp, vreg);
    } catch (const ptx::RuntimeError& e) {
      throw WorkloadError(e.what());
    }
    for (unsigned l = 0; l < kWarpSize; ++l)
      dst[l] = exists >> l & 1 ? uint32_t(v.v[l] >> (32 * half)) : 0;
  };
  for (unsigned k = 0; k < info.n_dst; ++k) {
    RegOperand& o = out.dst[k];
    o.reg = info.dst_reg[k];
    o.last_read = o.long_latency = false;
    o.reuse_near = use_oracle ? (oracle >> (8 + k) & 1) != 0 : info.dst_reuse_near[k];
    value(map.dst_vreg[k], map.dst_half[k], o.value);
    w.shadow[o.reg] = o.value;
    w.writer[o.reg] = int32_t(info.pc);
    w.written[o.reg] |= w.b2r_mask;
  }
  for (unsigned k = 0; k < info.n_pdst; ++k) {
    value(map.pdst_vreg[k], 0, out.pdst_value[k]);
    w.pshadow[info.pdst_reg[k]] = out.pdst_value[k];
  }
  out.access_bytes = 0;
  out.addr.fill(0);
  ++ctas_[unsigned(w.cta_slot)].issued;
  ++issued_;
}

void PtxFrontend::watch_loops(unsigned warp, const InstInfo& info, const WarpInst& out) {
  const LoopWatch::Progress p = LoopWatch::progress_of(info);
  loops_.executed(p);
  if (loops_.over_bound()) throw WorkloadError(runaway_message(warp, info));
  if (p != LoopWatch::Progress::None || info.op_class != OpClass::Control || !loops_.sample(warp))
    return;
  if (control_.empty()) control_ = control_registers(info_, regs_per_thread(), preds_per_thread());
  const WarpSlot& w = warps_[warp];
  Hash64 h;
  h.add(uint64_t(info.pc) << 32 | out.active_mask);
  for (size_t r = 0; r < w.shadow.size(); ++r)
    if (control_[r]) h.add_lanes(w.shadow[r]);
  for (size_t r = 0; r < w.pshadow.size(); ++r)
    if (control_[w.shadow.size() + r]) h.add_lanes(w.pshadow[r]);
  if (loops_.stuck(warp, h.h))
    throw WorkloadError("the kernel can never end: for " + std::to_string(loops_.quiet()) +
                        " warp instructions no warp stored, ran an atomic, passed a barrier or "
                        "exited, and every warp keeps returning to a state it had (warp " +
                        std::to_string(warp) + " at " + module().filename + ":" +
                        std::to_string(info.ptx_line) +
                        ": the same pc, active lanes and the registers its branches depend on); "
                        "a spin loop, or a loop whose counter never changes?");
}

std::string PtxFrontend::runaway_message(unsigned warp, const InstInfo& info) const {
  // Where the live warps are (the one that just ran: its instruction).
  std::map<unsigned, unsigned> at;
  ++at[info.ptx_line];
  for (unsigned i = 0; i < warps_.size(); ++i)
    if (i != warp && warps_[i].cta_slot >= 0 && warps_[i].next) ++at[warps_[i].next->ptx_line];
  return runaway_message(at, loops_.since_global(), "");
}

std::string PtxFrontend::runaway_message(const std::map<unsigned, unsigned>& at, uint64_t since,
                                         const std::string& what) const {
  // Most warps first.
  std::vector<std::pair<unsigned, unsigned>> lines(at.begin(), at.end());
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::ostringstream o;
  o << what << "the kernel looks unable to end: for " << since
    << " warp instructions no warp stored to global memory, ran a global atomic, passed a "
       "barrier or exited (frontend.progress_bound = "
    << loops_.bound() << " per SM); the warps wait at " << module().filename;
  for (size_t i = 0; i < lines.size() && i < 4; ++i)
    o << (i ? ", " : " ") << "line " << lines[i].first << " (" << lines[i].second
      << (lines[i].second == 1 ? " warp)" : " warps)");
  if (lines.size() > 4) o << " and " << lines.size() - 4 << " more lines";
  o << ". A loop whose exit condition never becomes true? If the kernel really computes this "
       "long without storing, raise the bound: -p frontend.progress_bound=N (0: none)";
  return o.str();
}

uint64_t PtxFrontend::map_address(unsigned warp, unsigned lane, const InstInfo& info, int space,
                                  uint64_t a) const {
  auto local = [&](uint64_t off) {
    return options_.window_base + kLocalWindow + uint64_t(warp) * local_stride_ * kWarpSize +
           (off / 4) * 128 + lane * 4 + off % 4;
  };
  auto shared_shadow = [&](uint64_t off) {
    return options_.window_base + kSharedWindow + uint64_t(warps_[warp].cta_slot) * (1u << 20) +
           off;
  };
  switch (static_cast<ptx::Space>(space)) {
  case ptx::Space::Local:
    return local(a);
  case ptx::Space::Shared:
    return info.space == MemSpace::Shared ? a : shared_shadow(a);
  case ptx::Space::Param:
    return info.space == MemSpace::Param ? a : options_.window_base + a;
  case ptx::Space::Generic: // lanes in different spaces: classify each generic address
    if (a >= ptx::kSharedWindow && a - ptx::kSharedWindow < ptx::kWindowSize)
      return shared_shadow(a - ptx::kSharedWindow);
    if (a >= ptx::kLocalWindow && a - ptx::kLocalWindow < ptx::kWindowSize)
      return local(a - ptx::kLocalWindow);
    if (a >= ptx::kParamWindow && a - ptx::kParamWindow < ptx::kWindowSize)
      return options_.window_base + (a - ptx::kParamWindow);
    return a;
  default:
    return a;
  }
}

void PtxFrontend::retire(const WarpInst& inst) {
  if (inst.cta >= ctas_.size() || !ctas_[inst.cta].busy)
    throw WorkloadError("retire() of an instruction of CTA slot " + std::to_string(inst.cta) +
                        ", which holds no CTA");
  CtaSlot& c = ctas_[inst.cta];
  ++c.retired;
  ++retired_;
  if (!copies_.empty())
    if (auto it = copies_.find(&inst); it != copies_.end()) {
      WarpSlot& w = warps_[it->second.first];
      if (w.async.holds(it->second.second)) --w.async.group(it->second.second);
      copies_.erase(it);
      ++offer_epoch_; // a wait of its warp may be offered now
    }
  if (c.retired != c.issued || !kernel_->cta_done(c.engine_cta)) return;
  // The CTA has finished: free its slots and launch the next CTA there.
  kernel_->release_cta(c.engine_cta);
  c.busy = false;
  --live_ctas_;
  for (unsigned i = 0; i < warps_per_cta_; ++i) {
    WarpSlot& w = warps_[warp_of(inst.cta, i)];
    w.cta_slot = -1;
    ++w.finished;
  }
  if (next_cta_ < total_ctas_) launch_into(inst.cta);
}

bool PtxFrontend::done() const {
  return kernel_ && next_cta_ == total_ctas_ && live_ctas_ == 0 && retired_ == issued_;
}

std::string PtxFrontend::describe_warp(unsigned warp) const {
  if (warp >= warps_.size()) return "no such warp slot";
  const WarpSlot& w = warps_[warp];
  if (w.cta_slot < 0) return "no CTA";
  const CtaSlot& c = ctas_[unsigned(w.cta_slot)];
  std::ostringstream o;
  o << "CTA slot " << w.cta_slot << " (CTA " << c.linear << ", " << c.issued << " issued, "
    << c.retired << " retired): " << kernel_->describe_warp(w.engine_warp);
  return o.str();
}

uint64_t PtxFrontend::buffer_address(const std::string& name) const {
  for (size_t i = 0; i < launch_.buffers.size() && i < buffer_addr_.size(); ++i)
    if (launch_.buffers[i].name == name) return buffer_addr_[i];
  throw WorkloadError("no buffer '" + name + "' (or start() not called)");
}

// =============================================================================================
// Output check and documentation
// =============================================================================================
std::vector<uint8_t> PtxFrontend::buffer_contents(size_t i) const {
  const LaunchBuffer& b = launch_.buffers.at(i);
  std::vector<uint8_t> bytes(b.initial.size());
  for (uint64_t off = 0; off < bytes.size(); off += 65536) {
    const unsigned n = unsigned(std::min<uint64_t>(65536, bytes.size() - off));
    mem_->read(buffer_addr_[i] + off, bytes.data() + off, n);
  }
  return bytes;
}

bool PtxFrontend::checks_outputs() const {
  workload::link_all_checkers();
  return workload::find_checker(launch_.name) || !launch_.verify.empty();
}

namespace {
// An element as text: floats with the digits that tell them apart, integers exactly.
std::string element_text(const LaunchBuffer& b, const uint8_t* p) {
  std::ostringstream o;
  if (b.is_float()) {
    o << std::setprecision(b.elem_bytes == 2 ? 5 : b.elem_bytes == 4 ? 9 : 17) << b.value(p);
  } else if (b.type == "u64") {
    uint64_t u;
    std::memcpy(&u, p, 8);
    o << u;
  } else {
    o << b.decode(p);
  }
  return o.str();
}
} // namespace

std::string PtxFrontend::verify_files() const {
  for (const VerifyFile& v : launch_.verify) {
    size_t bi = 0;
    while (launch_.buffers[bi].name != v.buffer) ++bi;
    const LaunchBuffer& b = launch_.buffers[bi];
    std::ifstream f(v.file, std::ios::binary);
    const std::vector<uint8_t> want((std::istreambuf_iterator<char>(f)),
                                    std::istreambuf_iterator<char>());
    const std::vector<uint8_t> got = buffer_contents(bi);
    if (want.size() != got.size())
      return v.where + ": verify: '" + v.file + "' has " + std::to_string(want.size()) +
             " bytes, buffer '" + b.name + "' " + std::to_string(got.size());
    const bool exact = v.rtol == 0 && v.atol == 0;
    for (uint64_t i = 0; i < b.count; ++i) {
      const uint8_t* w = want.data() + i * b.elem_bytes;
      const uint8_t* g = got.data() + i * b.elem_bytes;
      if (std::memcmp(w, g, b.elem_bytes) == 0) continue;
      const double e = b.value(w), x = b.value(g);
      const double tol = v.atol + v.rtol * std::fabs(e);
      if (!exact && std::fabs(x - e) <= tol) continue;
      return b.name + "[" + std::to_string(i) + "]: expected " + element_text(b, w) + ", got " +
             element_text(b, g) + " (" + (exact ? "exact" : "tolerance " + std::to_string(tol)) +
             "; verify of " + v.where + " against " + v.file + ")";
    }
  }
  return "";
}

std::string PtxFrontend::verify_outputs() {
  if (!mem_ || (!kernel_ && !launch_.several_kernels)) return "the kernel was not started";
  if (launch_.several_kernels && !app_over_) return "the application has not finished";
  if (!launch_.several_kernels && !done())
    return "the kernel has not finished (" + std::to_string(next_cta_ - live_ctas_) + " of " +
           std::to_string(total_ctas_) + " CTAs done, " + std::to_string(retired_) + " of " +
           std::to_string(issued_) + " instructions retired)";
  workload::link_all_checkers();
  const workload::Checker* check = workload::find_checker(launch_.name);
  if (!check && launch_.verify.empty()) {
    return "no reference checker for workload '" + launch_.name +
           "' (checkers: " + join(workload::checker_names()) +
           ") and no `verify:` in the launch file";
  }
  if (const std::string e = verify_files(); !e.empty()) return e;
  if (!check) return "";
  workload::LaunchData d =
      checker_input(launch_, initial_vars_, [&](size_t i) { return buffer_contents(i); });
  d.grid = file_grid_; // the file's shape, whatever the last launch's was
  d.block = file_block_;
  try {
    return (*check)(d);
  } catch (const std::exception& e) {
    return std::string("reference checker '") + launch_.name + "' failed: " + e.what();
  }
}

workload::LaunchData checker_input(const LaunchSpec& spec,
                                   const std::map<std::string, int64_t>& vars,
                                   const std::function<std::vector<uint8_t>(size_t)>& final_bytes) {
  workload::LaunchData d;
  for (size_t i = 0; i < spec.buffers.size(); ++i) {
    const LaunchBuffer& b = spec.buffers[i];
    workload::Buffer wb;
    wb.name = b.name;
    wb.type = b.type;
    wb.count = b.count;
    wb.output = b.output;
    wb.initial = b.initial;
    wb.final = final_bytes(i);
    d.buffers.emplace(b.name, std::move(wb));
  }
  d.vars = vars;
  d.grid = spec.grid;
  d.block = spec.block;
  return d;
}

std::string PtxFrontend::info_table() const {
  std::ostringstream o;
  o << "kernel " << launch_.kernel << " (" << launch_.ptx_path << "): " << regs_per_thread()
    << " registers, " << preds_per_thread() << " predicates per thread, " << info_.size()
    << " instructions\n";
  o << "  pc  line  opcode                        pipe  dst              src               "
       "flags\n";
  size_t fi = 0;
  for (const InstInfo& i : info_) {
    while (fi + 1 < layout_base_.size() && i.pc == layout_base_[fi + 1]) ++fi;
    if (i.pc == layout_base_[fi])
      o << (layout_[fi]->is_entry ? ".entry " : ".func ") << layout_[fi]->name << ":\n";
    std::ostringstream dst, src, flags;
    for (unsigned k = 0; k < i.n_dst; ++k) dst << (k ? "," : "") << "r" << i.dst_reg[k];
    for (unsigned k = 0; k < i.n_pdst; ++k)
      dst << (k || i.n_dst ? "," : "") << "p" << i.pdst_reg[k];
    for (unsigned k = 0; k < i.n_src; ++k)
      src << (k ? "," : "") << "r" << i.src_reg[k] << (i.src_last_read[k] ? "*" : "");
    for (unsigned k = 0; k < i.n_psrc; ++k)
      src << (k || i.n_src ? "," : "") << "p" << i.psrc_reg[k];
    if (i.produces_long_latency) flags << " LL-produce";
    if (i.consumes_long_latency) flags << " LL-consume";
    if (hidden_[i.pc]) flags << " constant (not issued)";
    if (i.barrier) flags << " barrier";
    if (i.exit) flags << " exit";
    if (options_.control_bits && !hidden_[i.pc]) { // SASS-like: reuse, stall, counters
      if (i.reuse_mask) flags << " reuse=" << unsigned(i.reuse_mask);
      flags << " stall=" << unsigned(i.stall);
      if (i.wr_sb != InstInfo::kNoSb) flags << " wr=SB" << unsigned(i.wr_sb);
      if (i.rd_sb != InstInfo::kNoSb) flags << " rd=SB" << unsigned(i.rd_sb);
      if (i.wait_mask) flags << " wait=0x" << std::hex << unsigned(i.wait_mask) << std::dec;
    }
    o << std::setw(4) << i.pc << std::setw(6) << i.ptx_line << "  " << std::left << std::setw(30)
      << i.opname << std::setw(6) << pipe_label(i.pipe) << std::setw(17) << dst.str()
      << std::setw(18) << src.str() << std::right << flags.str() << "\n";
  }
  o << "(* = last read of the value)\n";
  return o.str();
}

} // namespace gpurf
