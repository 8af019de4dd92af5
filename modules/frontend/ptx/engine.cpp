#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/modules/frontend/ptx/async_copy.h"
#include "gpurf/modules/frontend/ptx/device_output.h"
#include "gpurf/modules/frontend/ptx/half.h"
#include "gpurf/modules/frontend/ptx/mbarrier.h"
#include "gpurf/modules/frontend/ptx/texture.h"
#include "gpurf/modules/frontend/ptx/warp_ops.h"
#include "gpurf/platform/text.h"

#include <algorithm>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>

namespace gpurf::ptx {

// =============================================================================================
// SparseMemory
// =============================================================================================
namespace {
constexpr uint64_t kPage = 4096;
}

void SparseMemory::read(uint64_t addr, void* dst, unsigned len) {
  auto* d = static_cast<uint8_t*>(dst);
  while (len) {
    uint64_t pg = addr / kPage, off = addr % kPage;
    unsigned n = unsigned(std::min<uint64_t>(len, kPage - off));
    auto it = pages_.find(pg);
    if (it == pages_.end()) {
      std::memset(d, 0, n);
    } else {
      std::memcpy(d, it->second.get() + off, n);
    }
    d += n;
    addr += n;
    len -= n;
  }
}

void SparseMemory::write(uint64_t addr, const void* src, unsigned len) {
  auto* s = static_cast<const uint8_t*>(src);
  while (len) {
    uint64_t pg = addr / kPage, off = addr % kPage;
    unsigned n = unsigned(std::min<uint64_t>(len, kPage - off));
    auto& p = pages_[pg];
    if (!p) {
      p.reset(new uint8_t[kPage]);
      std::memset(p.get(), 0, kPage);
    }
    std::memcpy(p.get() + off, s, n);
    s += n;
    addr += n;
    len -= n;
  }
}

uint64_t SparseMemory::alloc(uint64_t bytes, uint64_t align) {
  if (align == 0) align = 1;
  next_ = (next_ + align - 1) / align * align;
  uint64_t a = next_;
  next_ += std::max<uint64_t>(bytes, 1);
  return a;
}

// =============================================================================================
// ParamPacker
// =============================================================================================
ParamPacker::ParamPacker(const Function& entry) : f_(entry), buf_(entry.param_bytes, 0) {}

ParamPacker& ParamPacker::set_bytes(unsigned i, const void* data, unsigned len) {
  if (i >= f_.params.size())
    throw RuntimeError("kernel '" + f_.name + "' has " + std::to_string(f_.params.size()) +
                       " parameters; no parameter " + std::to_string(i));
  const Param& p = f_.params[i];
  if (len != p.size)
    throw RuntimeError("kernel '" + f_.name + "' parameter " + std::to_string(i) + " ('" + p.name +
                       "') is " + std::to_string(p.size) + " bytes, got " + std::to_string(len));
  std::memcpy(buf_.data() + p.offset, data, len);
  return *this;
}

// =============================================================================================
// Value helpers
// =============================================================================================
namespace {

inline uint64_t bitmask(unsigned bits) { return bits >= 64 ? ~0ull : ((1ull << bits) - 1); }
inline int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64) return int64_t(v);
  uint64_t m = 1ull << (bits - 1);
  v &= bitmask(bits);
  return int64_t((v ^ m) - m);
}
inline float as_f32(uint64_t v) {
  uint32_t u = uint32_t(v);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline double as_f64(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline uint64_t f64_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
// One element of a load or store, little-endian, as memcpy of `esz` bytes into or from a
// uint64_t does; the usual sizes as fixed-size copies (a variable-length memcpy is a library
// call per lane and element).
inline uint64_t load_elem(const uint8_t* p, unsigned esz) {
  uint64_t v = 0;
  switch (esz) {
  case 1:
    return p[0];
  case 2:
    std::memcpy(&v, p, 2);
    return v;
  case 4:
    std::memcpy(&v, p, 4);
    return v;
  case 8:
    std::memcpy(&v, p, 8);
    return v;
  default:
    std::memcpy(&v, p, esz);
    return v;
  }
}
// A loaded element as its register holds it: sign-extended for a signed load.
inline uint64_t load_value(const uint8_t* p, unsigned esz, bool is_signed) {
  const uint64_t v = load_elem(p, esz);
  return is_signed ? uint64_t(sext(v, esz * 8)) : v;
}
inline void store_elem(uint8_t* p, uint64_t v, unsigned esz) {
  switch (esz) {
  case 1:
    p[0] = uint8_t(v);
    return;
  case 2:
    std::memcpy(p, &v, 2);
    return;
  case 4:
    std::memcpy(p, &v, 4);
    return;
  case 8:
    std::memcpy(p, &v, 8);
    return;
  default:
    std::memcpy(p, &v, esz);
  }
}
inline float ftz(float f) {
  return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f;
}
constexpr uint64_t kNaN32 = 0x7fffffffu;
constexpr uint64_t kNaN64 = 0x7fffffffffffffffull;
// Result of an f32 arithmetic operation: canonical NaN, optional flush and saturation.
inline uint64_t res32(float r, bool fz, bool sat) {
  if (std::isnan(r)) return sat ? 0 : kNaN32;
  if (fz) r = ftz(r);
  if (sat) r = r < 0.0f ? 0.0f : (r > 1.0f ? 1.0f : r);
  if (sat && r == 0.0f) r = 0.0f; // -0 → +0
  return f32_bits(r);
}
inline uint64_t res64(double r, bool sat) {
  if (std::isnan(r)) return sat ? 0 : kNaN64;
  if (sat) r = r < 0.0 ? 0.0 : (r > 1.0 ? 1.0 : r);
  if (sat && r == 0.0) r = 0.0;
  return f64_bits(r);
}

int fe_mode(Round r) {
  switch (r) {
  case Round::RZ:
  case Round::RZI:
    return FE_TOWARDZERO;
  case Round::RM:
  case Round::RMI:
    return FE_DOWNWARD;
  case Round::RP:
  case Round::RPI:
    return FE_UPWARD;
  default:
    return FE_TONEAREST;
  }
}
struct RoundScope {
  int old;
  bool changed;
  explicit RoundScope(Round r) : old(fegetround()) {
    int m = fe_mode(r);
    changed = m != old;
    if (changed) fesetround(m);
  }
  ~RoundScope() {
    if (changed) fesetround(old);
  }
};

// Calls f(std::integral_constant<unsigned, N>{}) for an element of 1, 2, 4 or 8 bytes, so that
// a lane loop compiles with its element size a constant.
template <class F> void with_elem_size(unsigned bytes, F&& f) {
  switch (bytes) {
  case 1:
    return f(std::integral_constant<unsigned, 1>{});
  case 2:
    return f(std::integral_constant<unsigned, 2>{});
  case 4:
    return f(std::integral_constant<unsigned, 4>{});
  default:
    return f(std::integral_constant<unsigned, 8>{});
  }
}

} // namespace

// =============================================================================================
// Kernel implementation state
// =============================================================================================
struct FnInfo {
  Cfg cfg;
  std::vector<uint64_t> local_off;                  // per Function::locals[i]: offset in its space
  uint64_t local_frame = 0;                         // bytes of .local variables per frame
  unsigned ret_base = 0;                            // param frame: return parameters start
  unsigned pframe = 0;                              // param frame bytes
  std::vector<std::vector<unsigned>> reads, writes; // per instruction, distinct vregs
};

struct SimtEntry {
  unsigned pc = 0;
  uint32_t mask = 0;
  unsigned rpc = 0;  // reconvergence pc (pop when pc reaches it); npos = never
  bool base = false; // bottom entry of a call frame
  uint32_t returned = 0;
};

struct Frame {
  unsigned fidx = 0;
  const Function* f = nullptr;
  FnInfo* fi = nullptr;
  std::vector<uint64_t> regs; // [vreg * 32 + lane]
  std::vector<uint8_t> param; // [lane * pframe + offset]
  uint64_t local_base = 0;    // per-thread local offset of this frame's .local variables
  uint64_t saved_local_top = 0;
  const Instr* call = nullptr; // the call instruction in the caller (for return values)
};

// One lane's cp.async: the bytes read from global memory when it executed (zero-filled past
// src-size), written into shared memory at the wait that covers its group (async_copy.h).
struct AsyncCopy {
  uint32_t shared = 0; // offset in the CTA's shared memory
  uint8_t len = 0;
  uint8_t bytes[16] = {};
};

struct WarpState {
  bool in_use = false;
  unsigned cta = 0, idx = 0; // CTA handle, warp index in the CTA
  uint32_t live = 0;         // lanes not exited
  uint32_t all = 0;          // lanes that exist
  std::vector<Frame> frames;
  std::vector<SimtEntry> stack;
  bool at_barrier = false;
  unsigned bar_id = 0;
  bool finished = false;
  uint32_t carry = 0; // CC.CF per lane
  uint64_t local_top = 0;
  std::array<std::vector<uint8_t>, kWarpLanes> local;
  uint64_t executed = 0;
  // bar.red in flight: destination and the lanes to write at release
  const Instr* red_instr = nullptr;
  uint32_t red_mask = 0;
  AsyncGroups<std::vector<AsyncCopy>> async; // cp.async groups not yet waited for
};

struct BarrierState {
  unsigned arrivals = 0; // warps
  unsigned expected = 0; // threads (0: all non-exited warps of the CTA)
  std::vector<unsigned> waiters;
  BoolOp red = BoolOp::None;
  uint64_t red_count = 0;
  bool red_and = true, red_or = false;
};

struct CtaState {
  bool in_use = false;
  unsigned linear = 0;
  Dim3 id;
  std::vector<unsigned> warps;
  std::vector<uint8_t> shared;
  std::map<unsigned, BarrierState> bars;
};

struct Kernel::Impl {
  Kernel& k;
  const Module& mod;
  std::vector<FnInfo> fns;        // per Module::functions
  std::vector<uint64_t> var_addr; // per Module::vars: global address / shared offset
  std::vector<std::unique_ptr<WarpState>> warps;
  std::vector<unsigned> free_warps;
  std::vector<std::unique_ptr<CtaState>> ctas;
  std::vector<unsigned> free_ctas;
  unsigned dyn_base = 0;
  // scratch
  std::vector<unsigned> rd_tmp, wr_tmp;

  Impl(Kernel& kk) : k(kk), mod(kk.mod_) {}

  // ------------------------------------------------------------------ layout
  // What a launch of the entry can touch, as ptxas sizes a kernel's shared memory: the
  // functions it calls (transitively, and any whose address it takes: an indirect call's
  // targets) and the module-scope .shared variables those name. nvcc puts every kernel's
  // `__shared__` arrays at module scope, so a module of many kernels (CUB's) would otherwise
  // give each kernel the sum of all of them.
  void reachable(std::vector<bool>& fn, std::vector<bool>& shared_var) const {
    fn.assign(mod.functions.size(), false);
    shared_var.assign(mod.vars.size(), false);
    std::vector<size_t> todo{size_t(k.entry_ - mod.functions.data())};
    fn[todo.back()] = true;
    auto reach = [&](int f) {
      if (f >= 0 && size_t(f) < fn.size() && !fn[size_t(f)]) {
        fn[size_t(f)] = true;
        todo.push_back(size_t(f));
      }
    };
    std::function<void(const Operand&)> names = [&](const Operand& o) {
      if (o.kind == Operand::Kind::Addr || o.kind == Operand::Kind::Symbol) {
        if (o.sym.scope == SymRef::Scope::Function) reach(int(o.sym.index));
        if (o.sym.scope == SymRef::Scope::Global && o.sym.index < shared_var.size())
          shared_var[o.sym.index] = true;
      }
      for (const Operand& e : o.elems) names(e);
    };
    while (!todo.empty()) {
      const Function& f = mod.functions[todo.back()];
      todo.pop_back();
      for (const Instr& in : f.instrs) {
        for (const int c : in.callees()) reach(c);
        for (const Operand& o : in.src) names(o);
        for (const Operand& o : in.dst) names(o);
      }
    }
    for (const VarDecl& v : mod.vars) // an initialiser's generic address of a .shared variable
      for (const auto& ai : v.addr_inits)
        if (int vi = mod.var_index(ai.name); vi >= 0) shared_var[size_t(vi)] = true;
  }

  void layout() {
    const LaunchConfig& cfg = k.cfg_;
    var_addr.assign(mod.vars.size(), 0);
    uint64_t data = 0;
    uint64_t shared = 0;
    unsigned dyn_align = 16;
    std::vector<unsigned> extern_shared;
    std::vector<bool> fn_used, shared_used;
    reachable(fn_used, shared_used);
    auto place = [](uint64_t& cur, uint64_t size, unsigned align) {
      align = std::max(1u, align);
      cur = (cur + align - 1) / align * align;
      uint64_t a = cur;
      cur += size;
      return a;
    };
    for (size_t i = 0; i < mod.vars.size(); ++i) {
      const VarDecl& v = mod.vars[i];
      if (v.space == Space::Global || v.space == Space::Const) {
        var_addr[i] = cfg.data_base + place(data, v.size, v.align);
      } else if (v.space == Space::Shared) {
        if (!shared_used[i]) continue; // not this kernel's (var_addr 0: never read)
        if (v.size == 0 && v.is_extern) {
          extern_shared.push_back(unsigned(i));
          dyn_align = std::max(dyn_align, v.align);
        } else {
          var_addr[i] = place(shared, v.size, v.align);
        }
      } else {
        throw RuntimeError("module-scope ." + std::string(space_name(v.space)) + " variable '" +
                           v.name + "' is not supported");
      }
    }
    fns.assign(mod.functions.size(), FnInfo{});
    std::vector<std::pair<unsigned, unsigned>> extern_local_shared;
    for (size_t fi = 0; fi < mod.functions.size(); ++fi) {
      const Function& f = mod.functions[fi];
      FnInfo& info = fns[fi];
      if (!f.has_body) continue;
      info.cfg = build_cfg(f);
      info.local_off.assign(f.locals.size(), 0);
      info.ret_base = (f.param_bytes + 15) / 16 * 16;
      uint64_t pcur = info.ret_base + f.ret_bytes;
      uint64_t lcur = 0;
      for (size_t li = 0; li < f.locals.size(); ++li) {
        const VarDecl& v = f.locals[li];
        if (v.space == Space::Shared) {
          if (!fn_used[fi]) continue; // a function this kernel never runs
          if (v.size == 0) {
            extern_local_shared.push_back({unsigned(fi), unsigned(li)});
            dyn_align = std::max(dyn_align, v.align);
          } else {
            info.local_off[li] = place(shared, v.size, v.align);
          }
        } else if (v.space == Space::Local) {
          info.local_off[li] = place(lcur, v.size, v.align);
        } else if (v.space == Space::Param) {
          info.local_off[li] = place(pcur, v.size, v.align);
        }
      }
      info.local_frame = (lcur + 15) / 16 * 16;
      info.pframe = unsigned((pcur + 15) / 16 * 16);
      info.reads.resize(f.instrs.size());
      info.writes.resize(f.instrs.size());
      for (size_t ii = 0; ii < f.instrs.size(); ++ii) {
        reads_writes(f, f.instrs[ii], rd_tmp, wr_tmp);
        for (unsigned r : rd_tmp)
          if (std::find(info.reads[ii].begin(), info.reads[ii].end(), r) == info.reads[ii].end())
            info.reads[ii].push_back(r);
        for (unsigned r : wr_tmp)
          if (std::find(info.writes[ii].begin(), info.writes[ii].end(), r) == info.writes[ii].end())
            info.writes[ii].push_back(r);
      }
    }
    const uint64_t static_shared = (shared + dyn_align - 1) / dyn_align * dyn_align;
    if (static_shared + cfg.dyn_shared_bytes > kMaxSharedBytes)
      throw SharedMemoryError(static_shared, cfg.dyn_shared_bytes);
    dyn_base = unsigned(static_shared);
    for (unsigned i : extern_shared) var_addr[i] = dyn_base;
    for (auto& pr : extern_local_shared) fns[pr.first].local_off[pr.second] = dyn_base;
    k.static_shared_ = dyn_base;
    k.shared_size_ = dyn_base + cfg.dyn_shared_bytes;
    if (reads_reserved_shared(fn_used)) {
      k.reserved_shared_ = (k.shared_size_ + 15) / 16 * 16;
      k.shared_size_ = k.reserved_shared_ + kReservedSharedBytes;
    }
    k.data_size_ = data;
    if (cfg.data_limit && data > cfg.data_limit)
      throw RuntimeError("module data segment needs " + std::to_string(data) + " bytes, only " +
                         std::to_string(cfg.data_limit) + " available");
  }

  // Whether a function the kernel runs reads one of the %reserved_smem_offset_* registers.
  bool reads_reserved_shared(const std::vector<bool>& fn_used) const {
    for (size_t fi = 0; fi < mod.functions.size(); ++fi) {
      if (!fn_used[fi]) continue;
      for (const Instr& in : mod.functions[fi].instrs)
        for (const Operand& o : in.src)
          if (o.kind == Operand::Kind::Special && o.sreg >= SReg::ReservedSmemBegin) return true;
    }
    return false;
  }

  uint64_t generic_of_var(size_t i) const {
    const VarDecl& v = mod.vars[i];
    return v.space == Space::Shared ? kSharedWindow + var_addr[i] : var_addr[i];
  }

  void init_data() {
    for (size_t i = 0; i < mod.vars.size(); ++i) {
      const VarDecl& v = mod.vars[i];
      if (v.space != Space::Global && v.space != Space::Const) continue;
      if (v.size == 0) continue;
      std::vector<uint8_t> bytes = v.init;
      bytes.resize(size_t(v.size), 0);
      for (const auto& ai : v.addr_inits) {
        int vi = mod.var_index(ai.name);
        const int fi = vi < 0 ? mod.function_index(ai.name) : -1; // a vtable's entry
        if (vi < 0 && fi < 0)
          throw RuntimeError("initialiser of '" + v.name + "' takes the address of '" + ai.name +
                             "', which is no module variable or function");
        uint64_t a = (vi >= 0 ? generic_of_var(size_t(vi)) : kFunctionWindow + 16 * uint64_t(fi)) +
                     uint64_t(ai.offset);
        std::memcpy(bytes.data() + ai.at, &a, ai.bytes);
      }
      for (size_t off = 0; off < bytes.size(); off += 65536) {
        unsigned n = unsigned(std::min<size_t>(65536, bytes.size() - off));
        k.mem_.write(var_addr[i] + off, bytes.data() + off, n);
      }
    }
  }

  // ------------------------------------------------------------------ errors
  std::string where(const WarpState& w, int lane) const {
    const CtaState& c = *ctas[w.cta];
    std::ostringstream s;
    s << "kernel '" << k.entry_->name << "', CTA (" << c.id.x << "," << c.id.y << "," << c.id.z
      << "), warp " << w.idx;
    if (lane >= 0) s << ", thread " << (w.idx * kWarpLanes + unsigned(lane)) << ", lane " << lane;
    if (!w.frames.empty() && !w.stack.empty()) {
      const Frame& fr = w.frames.back();
      unsigned pc = w.stack.back().pc;
      s << ", " << fr.f->name << " pc " << pc;
      if (pc < fr.f->instrs.size())
        s << " (" << mod.filename << ":" << fr.f->instrs[pc].ptx_line << " '"
          << fr.f->instrs[pc].text << "')";
    }
    return s.str();
  }
  [[noreturn]] void fail(const WarpState& w, int lane, const std::string& msg) const {
    throw RuntimeError(where(w, lane) + ": " + msg);
  }

  // ------------------------------------------------------------------ CTAs / warps
  unsigned new_warp() {
    if (!free_warps.empty()) {
      unsigned id = free_warps.back();
      free_warps.pop_back();
      warps[id] = std::make_unique<WarpState>();
      return id;
    }
    warps.push_back(std::make_unique<WarpState>());
    return unsigned(warps.size() - 1);
  }

  WarpState& warp(unsigned id) const {
    if (id >= warps.size() || !warps[id] || !warps[id]->in_use)
      throw RuntimeError("invalid warp handle " + std::to_string(id));
    return *warps[id];
  }
  CtaState& cta(unsigned id) const {
    if (id >= ctas.size() || !ctas[id] || !ctas[id]->in_use)
      throw RuntimeError("invalid CTA handle " + std::to_string(id));
    return *ctas[id];
  }

  void push_frame(WarpState& w, unsigned fidx, uint32_t lanes, const Instr* call) {
    const Function& f = mod.functions[fidx];
    FnInfo& fi = fns[fidx];
    if (w.frames.size() >= k.cfg_.max_call_depth)
      fail(w, -1, "call depth exceeds " + std::to_string(k.cfg_.max_call_depth));
    Frame fr;
    fr.fidx = fidx;
    fr.f = &f;
    fr.fi = &fi;
    fr.regs.assign(f.regs.size() * kWarpLanes, 0);
    fr.param.assign(size_t(fi.pframe) * kWarpLanes, 0);
    fr.saved_local_top = w.local_top;
    fr.local_base = (w.local_top + 15) / 16 * 16;
    fr.call = call;
    const uint64_t save = fidx < k.cfg_.save_bytes.size() ? k.cfg_.save_bytes[fidx] : 0;
    uint64_t top = fr.local_base + fi.local_frame + save;
    if (top > k.cfg_.local_bytes_per_thread) {
      // The frames on the stack, each function once with its count ("k, fib x 64").
      std::vector<std::pair<const Function*, unsigned>> on;
      auto count = [&](const Function* g) {
        for (auto& [h, c] : on)
          if (h == g) return void(++c);
        on.push_back({g, 1});
      };
      for (const Frame& x : w.frames) count(x.f);
      count(&f);
      std::string frames;
      for (const auto& [g, c] : on)
        frames += (frames.empty() ? "" : ", ") + g->name + (c > 1 ? " x " + std::to_string(c) : "");
      fail(w, -1,
           "stack overflow: the call of '" + f.name + "' at call depth " +
               std::to_string(w.frames.size()) + " (frames: " + frames + ") needs " +
               std::to_string(top) + " bytes of local memory per thread (this frame " +
               std::to_string(top - fr.local_base) + "), over the limit of " +
               std::to_string(k.cfg_.local_bytes_per_thread) + " bytes (" +
               k.cfg_.local_limit_what + ")");
    }
    w.local_top = top;
    for (unsigned l = 0; l < kWarpLanes; ++l)
      if ((w.all >> l) & 1) {
        if (w.local[l].size() < top) w.local[l].resize(size_t(top), 0);
        // fresh frames start zeroed (deterministic)
        std::fill(w.local[l].begin() + long(fr.local_base), w.local[l].begin() + long(top), 0);
      }
    w.frames.push_back(std::move(fr));
    SimtEntry e;
    e.pc = 0;
    e.mask = lanes;
    e.rpc = unsigned(f.instrs.size()) + 1; // never reached
    e.base = true;
    w.stack.push_back(e);
  }

  unsigned launch_cta(unsigned linear) {
    if (linear >= k.cfg_.grid.count())
      throw RuntimeError("CTA id " + std::to_string(linear) + " outside the grid of " +
                         std::to_string(k.cfg_.grid.count()) + " CTAs");
    unsigned id;
    if (!free_ctas.empty()) {
      id = free_ctas.back();
      free_ctas.pop_back();
      ctas[id] = std::make_unique<CtaState>();
    } else {
      ctas.push_back(std::make_unique<CtaState>());
      id = unsigned(ctas.size() - 1);
    }
    CtaState& c = *ctas[id];
    c.in_use = true;
    c.linear = linear;
    const Dim3& g = k.cfg_.grid;
    c.id = Dim3(linear % g.x, (linear / g.x) % g.y, unsigned(linear / (uint64_t(g.x) * g.y)));
    c.shared.assign(k.shared_size_, 0);
    unsigned threads = unsigned(k.cfg_.block.count());
    int entry_idx = mod.function_index(k.entry_->name);
    for (unsigned wi = 0; wi < k.warps_per_cta_; ++wi) {
      unsigned wid = new_warp();
      WarpState& w = *warps[wid];
      w.in_use = true;
      w.cta = id;
      w.idx = wi;
      unsigned n = std::min(kWarpLanes, threads - wi * kWarpLanes);
      w.all = n >= 32 ? 0xffffffffu : ((1u << n) - 1);
      w.live = w.all;
      push_frame(w, unsigned(entry_idx), w.all, nullptr);
      c.warps.push_back(wid);
    }
    return id;
  }

  void release_cta(unsigned id) {
    CtaState& c = cta(id);
    for (unsigned w : c.warps) {
      warps[w].reset();
      free_warps.push_back(w);
    }
    ctas[id].reset();
    free_ctas.push_back(id);
  }

  // ------------------------------------------------------------------ operand access
  uint64_t special(const WarpState& w, unsigned lane, const Operand& o) const {
    const CtaState& c = *ctas[w.cta];
    const Dim3& b = k.cfg_.block;
    unsigned t = w.idx * kWarpLanes + lane;
    auto comp = [&](const Dim3& d) -> uint64_t {
      return o.comp == 0 ? d.x : o.comp == 1 ? d.y : d.z;
    };
    switch (o.sreg) {
    case SReg::Tid: {
      Dim3 tid(t % b.x, (t / b.x) % b.y, t / (b.x * b.y));
      return comp(tid);
    }
    case SReg::Ntid:
      return comp(b);
    case SReg::Ctaid:
      return comp(c.id);
    case SReg::Nctaid:
      return comp(k.cfg_.grid);
    case SReg::Laneid:
      return lane;
    case SReg::Warpid:
      return w.idx;
    case SReg::Nwarpid:
      return 64;
    case SReg::Smid:
      return k.cfg_.smid;
    case SReg::Nsmid:
      return k.cfg_.nsmid;
    case SReg::Gridid:
      return 0;
    case SReg::Clock:
      return uint32_t(clock());
    case SReg::Clock64:
      return clock();
    case SReg::Globaltimer:
      return k.cfg_.globaltimer ? k.cfg_.globaltimer() : clock();
    case SReg::LanemaskEq:
      return 1u << lane;
    case SReg::LanemaskLe:
      return uint32_t((2ull << lane) - 1);
    case SReg::LanemaskLt:
      return uint32_t((1ull << lane) - 1);
    case SReg::LanemaskGe:
      return uint32_t(~((1ull << lane) - 1));
    case SReg::LanemaskGt:
      return uint32_t(~((2ull << lane) - 1));
    case SReg::DynamicSmemSize:
      return k.cfg_.dyn_shared_bytes;
    case SReg::TotalSmemSize:
      return k.shared_size_;
    case SReg::Envreg:
      return k.cfg_.envreg[o.comp % 32];
    case SReg::ReservedSmemBegin:
      return k.reserved_shared_;
    case SReg::ReservedSmemEnd:
      return k.reserved_shared_ + kReservedSharedBytes;
    case SReg::ReservedSmemCap:
      return kReservedSharedBytes;
    case SReg::ReservedSmemOffset:
      return k.reserved_shared_ + o.comp * kReservedSharedBytes / 2;
    }
    return 0;
  }
  uint64_t clock() const { return k.cfg_.clock ? k.cfg_.clock() : k.executed_; }

  // Address of a symbol in its own state space (as `mov d, sym` yields).
  uint64_t sym_addr(const WarpState& w, const Frame& fr, const SymRef& s, Space* sp) const {
    switch (s.scope) {
    case SymRef::Scope::Global: {
      const VarDecl& v = mod.vars[s.index];
      if (sp) *sp = v.space;
      return var_addr[s.index];
    }
    case SymRef::Scope::Local: {
      const VarDecl& v = fr.f->locals[s.index];
      if (sp) *sp = v.space;
      if (v.space == Space::Local) return fr.local_base + fr.fi->local_off[s.index];
      return fr.fi->local_off[s.index];
    }
    case SymRef::Scope::Param:
      if (sp) *sp = Space::Param;
      return fr.f->params[s.index].offset;
    case SymRef::Scope::RetParam:
      if (sp) *sp = Space::Param;
      return fr.fi->ret_base + fr.f->ret_params[s.index].offset;
    case SymRef::Scope::Function:
      if (sp) *sp = Space::Generic;
      return kFunctionWindow + 16 * uint64_t(s.index);
    default:
      break;
    }
    fail(w, -1, "bad symbol reference");
  }

  // Value of a source operand for one lane, as `t` (immediates converted between f32/f64).
  // A register, the common case, is read inline: rd runs once per lane and operand.
  __attribute__((always_inline)) uint64_t rd(const WarpState& w, const Frame& fr, const Operand& o,
                                             unsigned lane, Type t) const {
    if (o.kind == Operand::Kind::Reg) {
      uint64_t v = fr.regs[size_t(o.reg) * kWarpLanes + lane];
      return o.negate ? (v ^ 1) & 1 : v;
    }
    if (o.kind == Operand::Kind::Imm && o.imm_kind == Operand::ImmKind::Int && !type_is_float(t))
      return o.imm; // an integer literal as an integer
    return rd_other(w, fr, o, lane, t);
  }

  uint64_t rd_other(const WarpState& w, const Frame& fr, const Operand& o, unsigned lane,
                    Type t) const {
    switch (o.kind) {
    case Operand::Kind::Imm:
      if (o.imm_kind == Operand::ImmKind::F32 && t == Type::F64)
        return f64_bits(double(as_f32(o.imm)));
      if (o.imm_kind == Operand::ImmKind::F64 && t == Type::F32)
        return f32_bits(float(as_f64(o.imm)));
      if (o.imm_kind == Operand::ImmKind::Int && type_is_float(t)) {
        // an integer literal with a float type denotes the value
        return t == Type::F32 ? f32_bits(float(int64_t(o.imm))) : f64_bits(double(int64_t(o.imm)));
      }
      return o.imm;
    case Operand::Kind::Special:
      return special(w, lane, o);
    case Operand::Kind::Symbol: {
      return sym_addr(w, fr, o.sym, nullptr) + uint64_t(o.offset);
    }
    case Operand::Kind::Vector: {
      unsigned n = unsigned(o.elems.size());
      unsigned eb = n ? type_bits(t) / n : 0;
      uint64_t v = 0;
      for (unsigned i = 0; i < n; ++i) {
        uint64_t e =
            o.elems[i].kind == Operand::Kind::Sink ? 0 : rd(w, fr, o.elems[i], lane, Type::None);
        v |= (e & bitmask(eb)) << (i * eb);
      }
      return v;
    }
    case Operand::Kind::Sink:
      return 0;
    default:
      break;
    }
    fail(w, int(lane), "unexpected operand kind");
  }

  // The bits a register keeps of a value written to it.
  static uint64_t value_mask(const VReg& r) { return r.is_pred ? 1 : bitmask(r.width_bits); }

  void wr_reg(Frame& fr, unsigned reg, unsigned lane, uint64_t v) {
    fr.regs[size_t(reg) * kWarpLanes + lane] = v & value_mask(fr.f->regs[reg]);
  }

  __attribute__((always_inline)) void wr(WarpState& w, Frame& fr, const Operand& o, unsigned lane,
                                         uint64_t v, Type t) {
    if (o.kind == Operand::Kind::Reg)
      wr_reg(fr, o.reg, lane, v);
    else
      wr_other(w, fr, o, lane, v, t);
  }

  void wr_other(WarpState& w, Frame& fr, const Operand& o, unsigned lane, uint64_t v, Type t) {
    switch (o.kind) {
    case Operand::Kind::Sink:
      return;
    case Operand::Kind::Vector: {
      unsigned n = unsigned(o.elems.size());
      unsigned eb = n ? type_bits(t) / n : 0;
      for (unsigned i = 0; i < n; ++i)
        if (o.elems[i].kind == Operand::Kind::Reg)
          wr_reg(fr, o.elems[i].reg, lane, (v >> (i * eb)) & bitmask(eb));
      return;
    }
    default:
      fail(w, int(lane), "destination is not a register");
    }
  }

  // ------------------------------------------------------------------ printf, assert
  // A .param argument of a call (u64 or u32) in lane `l`'s frame.
  uint64_t call_arg(const WarpState& w, Frame& fr, const FnInfo& fi, const Instr& in, size_t i,
                    unsigned l, unsigned bytes) const {
    uint64_t v = 0;
    call_bytes(w, fr, fi, in, i, l, &v, bytes);
    return v;
  }
  // `bytes` of argument i (a .param of any size, e.g. a dim3) in lane `l`'s frame.
  void call_bytes(const WarpState& w, Frame& fr, const FnInfo& fi, const Instr& in, size_t i,
                  unsigned l, void* dst, unsigned bytes) const {
    Space sp;
    const uint64_t off = sym_addr(w, fr, in.src[i].sym, &sp);
    if (off + bytes <= fi.pframe)
      std::memcpy(dst, fr.param.data() + size_t(l) * fi.pframe + off, bytes);
  }
  // A builtin's return value (its first .param destination, if the call takes it).
  void set_return(WarpState& w, Frame& fr, const FnInfo& fi, const Instr& in, unsigned l,
                  uint64_t v, unsigned bytes) {
    if (in.dst.empty()) return;
    Space sp;
    const uint64_t off = sym_addr(w, fr, in.dst[0].sym, &sp);
    if (off + bytes <= fi.pframe)
      std::memcpy(fr.param.data() + size_t(l) * fi.pframe + off, &v, bytes);
  }
  std::string device_string(WarpState& w, Frame& fr, unsigned l, uint64_t a) {
    std::string s;
    for (char c = 0; s.size() < 4096; ++a) {
      Space rsp;
      uint64_t raddr;
      mem_access(w, fr, l, Space::Generic, a, &c, 1, false, rsp, raddr, 1);
      if (!c) break;
      s += c;
    }
    return s;
  }
  void device_printf(WarpState& w, Frame& fr, const FnInfo& fi, const Instr& in, uint32_t exec) {
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      const std::string format = device_string(w, fr, l, call_arg(w, fr, fi, in, 0, l, 8));
      const uint64_t args = call_arg(w, fr, fi, in, 1, l, 8);
      std::vector<unsigned char> buf(device_printf_args_bytes(format));
      for (size_t i = 0; i < buf.size() && args; ++i) {
        Space rsp;
        uint64_t raddr;
        mem_access(w, fr, l, Space::Generic, args + i, &buf[i], 1, false, rsp, raddr, 1);
      }
      device_output()(format_device_printf(format, buf.data(), buf.size(), [&](uint64_t a) {
        return a ? device_string(w, fr, l, a) : std::string("(null)");
      }));
    }
  }
  // In-kernel malloc(size) / free(ptr), each lane its own call, on the launch's device heap.
  void device_heap_call(WarpState& w, Frame& fr, const FnInfo& fi, const Instr& in, uint32_t exec,
                        bool is_malloc) {
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      if (!k.cfg_.heap)
        fail(w, int(l),
             "in-kernel malloc/free needs a device heap: CUDA programs run with gpurf "
             "exec have one (cudaLimitMallocHeapSize); a launch file has none");
      const uint64_t arg = call_arg(w, fr, fi, in, 0, l, 8);
      if (!is_malloc) {
        if (!k.cfg_.heap->release(arg))
          fail(w, int(l), "free(" + hex(arg) + "): not a block malloc returned, or freed twice");
        continue;
      }
      const uint64_t p = k.cfg_.heap->allocate(arg); // 0 (NULL) when the heap is full, as CUDA
      if (!in.dst.empty()) {
        Space sp;
        const uint64_t off = sym_addr(w, fr, in.dst[0].sym, &sp);
        std::memcpy(fr.param.data() + size_t(l) * fi.pframe + off, &p, 8);
      }
    }
  }
  // Dynamic parallelism's device runtime (device_launch.h): each active lane its own call, in
  // lane order. False: `name` is none of its calls.
  bool device_runtime_call(WarpState& w, Frame& fr, const FnInfo& fi, const Instr& in,
                           uint32_t exec, const std::string& name) {
    if (name.rfind("__cudaCDP2", 0) != 0) return false;
    const std::string call = name.substr(10);
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      DeviceLaunches* d = k.cfg_.device_launches;
      if (!d || d->empty())
        fail(w, int(l),
             "dynamic parallelism (" + name +
                 ") needs the device runtime of libgpurf-cudart: CUDA programs run with gpurf "
                 "exec have it; a launch file has none");
      const CtaState& c = *ctas[w.cta];
      const uint64_t thread = uint64_t(c.linear) * k.cfg_.block.count() + w.idx * kWarpLanes + l;
      // A launch of the kernel at argument `func` (its address, as `mov.u64 %rd, kernel` gives
      // it) with grid, block and shared bytes from the arguments `dims`, +1, +2.
      auto shape = [&](size_t func, size_t dims) {
        DeviceLaunch s;
        const uint64_t a = call_arg(w, fr, fi, in, func, l, 8);
        const uint64_t i = (a - kFunctionWindow) / 16;
        if (a < kFunctionWindow || (a - kFunctionWindow) % 16 || i >= mod.functions.size() ||
            !mod.functions[i].is_entry || !mod.functions[i].has_body)
          fail(w, int(l), name + " of " + hex(a) + ", which is no kernel of the module");
        s.function = int(i);
        call_bytes(w, fr, fi, in, dims, l, s.grid.data(), 12);
        call_bytes(w, fr, fi, in, dims + 1, l, s.block.data(), 12);
        s.shared_bytes = unsigned(call_arg(w, fr, fi, in, dims + 2, l, 4));
        return s;
      };
      auto result = [&](int e) { // the call's cudaError_t, kept as the thread's last error
        if (e) d->last_error[thread] = e;
        set_return(w, fr, fi, in, l, uint64_t(uint32_t(e)), 4);
      };
      if (call == "GetParameterBufferV2") { // (func, grid, block, shared) -> buffer
        const DeviceLaunch s = shape(0, 1);
        set_return(w, fr, fi, in, l,
                   d->parameter_buffer(s, mod.functions[size_t(s.function)].param_bytes), 8);
      } else if (call == "GetParameterBuffer") { // (alignment, size) -> buffer
        const uint64_t align = call_arg(w, fr, fi, in, 0, l, 8);
        if (align > 16)
          fail(w, int(l),
               "cudaGetParameterBuffer: alignment " + std::to_string(align) +
                   " (gpurf's buffers are 16-byte aligned)");
        set_return(w, fr, fi, in, l, d->parameter_buffer({}, call_arg(w, fr, fi, in, 1, l, 8)), 8);
      } else if (call == "LaunchDeviceV2") { // (buffer, stream)
        result(d->launch(call_arg(w, fr, fi, in, 0, l, 8), call_arg(w, fr, fi, in, 1, l, 8)));
      } else if (call == "LaunchDevice") { // (func, buffer, grid, block, shared, stream)
        const DeviceLaunch s = shape(0, 2);
        result(d->launch(call_arg(w, fr, fi, in, 1, l, 8), call_arg(w, fr, fi, in, 5, l, 8), &s));
      } else if (call == "StreamCreateWithFlags") { // (cudaStream_t*, flags)
        uint64_t h = d->create_stream();
        Space rsp;
        uint64_t raddr;
        mem_access(w, fr, l, Space::Generic, call_arg(w, fr, fi, in, 0, l, 8), &h, 8, true, rsp,
                   raddr, 8);
        result(kCudaSuccess);
      } else if (call == "StreamDestroy") {
        result(d->destroy_stream(call_arg(w, fr, fi, in, 0, l, 8))
                   ? kCudaSuccess
                   : kCudaErrorInvalidResourceHandle);
      } else if (call == "GetLastError" || call == "PeekAtLastError") {
        auto it = d->last_error.find(thread);
        const int e = it == d->last_error.end() ? 0 : it->second;
        if (call == "GetLastError" && it != d->last_error.end()) d->last_error.erase(it);
        set_return(w, fr, fi, in, l, uint64_t(uint32_t(e)), 4);
      } else {
        return false;
      }
    }
    return true;
  }
  // __assertfail(message, file, line, function, char size): the kernel stops as CUDA's does,
  // naming the file, line, function, block and thread.
  [[noreturn]] void assert_fail(WarpState& w, Frame& fr, const FnInfo& fi, const Instr& in,
                                uint32_t exec) {
    unsigned l = 0;
    while (l + 1 < kWarpLanes && !((exec >> l) & 1)) ++l;
    if (in.src.size() < 4)
      fail(w, int(l), "__assertfail with " + std::to_string(in.src.size()) + " arguments");
    const std::string msg = device_string(w, fr, l, call_arg(w, fr, fi, in, 0, l, 8));
    const std::string file = device_string(w, fr, l, call_arg(w, fr, fi, in, 1, l, 8));
    const unsigned line = unsigned(call_arg(w, fr, fi, in, 2, l, 4));
    const std::string func = device_string(w, fr, l, call_arg(w, fr, fi, in, 3, l, 8));
    const CtaState& c = *ctas[w.cta];
    const Dim3& b = k.cfg_.block;
    const unsigned t = w.idx * kWarpLanes + l;
    std::ostringstream o;
    o << file << ":" << line << ": " << func << ": block: [" << c.id.x << "," << c.id.y << ","
      << c.id.z << "], thread: [" << t % b.x << "," << t / b.x % b.y << "," << t / (b.x * b.y)
      << "] Assertion `" << msg << "` failed.";
    fail(w, int(l), o.str());
  }

  // ------------------------------------------------------------------ memory
  // Resolves (space, addr) for a lane to a concrete space; returns the space-specific address.
  Space resolve(const WarpState& w, unsigned lane, Space sp, uint64_t& addr) const {
    if (sp != Space::Generic) return sp;
    if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) {
      addr -= kSharedWindow;
      return Space::Shared;
    }
    if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) {
      addr -= kLocalWindow;
      return Space::Local;
    }
    if (addr >= kParamWindow && addr < kParamWindow + kWindowSize) {
      addr -= kParamWindow;
      if (addr + 1 > k.params_.size())
        fail(w, int(lane),
             "generic address " + hex(addr + kParamWindow) + " is outside the kernel parameters");
      return Space::Global; // marker replaced below
    }
    return Space::Global;
  }

  void mem_access(WarpState& w, Frame& fr, unsigned lane, Space sp, uint64_t addr, void* buf,
                  unsigned len, bool write, Space& rsp, uint64_t& raddr, unsigned align) {
    uint64_t a = addr;
    bool kparam_generic =
        sp == Space::Generic && addr >= kParamWindow && addr < kParamWindow + kWindowSize;
    Space s = resolve(w, lane, sp, a);
    rsp = kparam_generic ? Space::Param : s;
    raddr = a;
    if (align > 1 && (a % align) != 0) { // as compute-sanitizer's memcheck reports it
      std::string msg = std::string("misaligned ") + space_name(rsp) +
                        (write ? " store" : " load") + " of " + std::to_string(len) + " bytes at " +
                        hex(a) + " (needs " + std::to_string(align) + "-byte alignment)";
      if ((s == Space::Global || s == Space::Const) && k.cfg_.allocations)
        msg += ": " + k.cfg_.allocations->describe(a, len);
      fail(w, int(lane), msg);
    }
    auto oob = [&](uint64_t size) {
      fail(w, int(lane),
           std::string("out-of-bounds ") + space_name(rsp) + " access of " + std::to_string(len) +
               " bytes at address " + hex(a) + " (size " + std::to_string(size) + ")");
    };
    if (kparam_generic) {
      if (write) fail(w, int(lane), "store to kernel parameter space at " + hex(addr));
      if (a + len > k.params_.size()) oob(k.params_.size());
      std::memcpy(buf, k.params_.data() + a, len);
      return;
    }
    switch (s) {
    case Space::Global:
    case Space::Const:
      if (write && s == Space::Const) fail(w, int(lane), "store to const space");
      if (k.cfg_.allocations)
        if (const std::string bad = k.cfg_.allocations->check(a, len); !bad.empty())
          fail(w, int(lane),
               std::string(space_name(rsp)) + (write ? " store" : " load") + " of " +
                   std::to_string(len) + " bytes at " + hex(a) + " " + bad);
      if (write)
        k.mem_.write(a, buf, len);
      else
        k.mem_.read(a, buf, len);
      return;
    case Space::Shared: {
      CtaState& c = *ctas[w.cta];
      if (a + len > c.shared.size() || a + len < a) oob(c.shared.size());
      if (write)
        std::memcpy(c.shared.data() + a, buf, len);
      else
        std::memcpy(buf, c.shared.data() + a, len);
      return;
    }
    case Space::Local: {
      if (a + len > w.local_top || a + len < a) oob(w.local_top);
      auto& lm = w.local[lane];
      if (write)
        std::memcpy(lm.data() + a, buf, len);
      else
        std::memcpy(buf, lm.data() + a, len);
      return;
    }
    case Space::Param: {
      const bool kernel_frame = w.frames.size() == 1;
      if (kernel_frame && a < k.params_.size()) {
        if (write) fail(w, int(lane), "store to kernel parameter space at " + hex(a));
        if (a + len > k.params_.size()) oob(k.params_.size());
        std::memcpy(buf, k.params_.data() + a, len);
        return;
      }
      if (a + len > fr.fi->pframe || a + len < a) oob(fr.fi->pframe);
      uint8_t* p = fr.param.data() + size_t(lane) * fr.fi->pframe + a;
      if (write)
        std::memcpy(p, buf, len);
      else
        std::memcpy(buf, p, len);
      return;
    }
    default:
      fail(w, int(lane), "unsupported state space");
    }
  }

  // Effective address of an Addr operand for a lane (in the instruction's space).
  // A register base, the common case, inline: eff_addr runs once per lane.
  __attribute__((always_inline)) uint64_t
  eff_addr(const WarpState& w, const Frame& fr, const Operand& o, unsigned lane, Space isp) const {
    if (o.has_base_reg) {
      uint64_t a = fr.regs[size_t(o.reg) * kWarpLanes + lane] + uint64_t(o.offset);
      // 32-bit address registers: keep as unsigned 32-bit offsets
      if ((isp == Space::Shared || isp == Space::Local || isp == Space::Param) &&
          fr.f->regs[o.reg].width_bits == 32)
        a &= 0xffffffffull;
      return a;
    }
    return eff_addr_other(w, fr, o, lane, isp);
  }

  // A symbol's address (or none) plus the offset.
  uint64_t eff_addr_other(const WarpState& w, const Frame& fr, const Operand& o, unsigned lane,
                          Space isp) const {
    uint64_t base;
    if (o.sym.scope != SymRef::Scope::None) {
      Space vs;
      base = sym_addr(w, fr, o.sym, &vs);
      if (isp == Space::Generic) {
        if (vs == Space::Shared)
          base += kSharedWindow;
        else if (vs == Space::Local)
          base += kLocalWindow;
        else if (vs == Space::Param) {
          if (w.frames.size() != 1 || base >= k.params_.size())
            fail(w, int(lane), "generic access to a .func parameter is not supported");
          base += kParamWindow;
        }
      }
    } else {
      base = 0;
    }
    return base + uint64_t(o.offset);
  }

  // ------------------------------------------------------------------ step
  void step(unsigned wid, StepResult& out);
  void exec_op(WarpState& w, Frame& fr, const Instr& in, uint32_t exec, StepResult& out);
  // An instruction's first sources and its destination as rows of 32 lanes (exec_op).
  static constexpr unsigned kOpRows = 4;
  struct OpRows {
    const uint64_t* src[kOpRows] = {}; // null: read per lane (rd)
    uint64_t* dst = nullptr;           // null: not a register (wr)
    uint64_t dmask = 0;
    uint64_t own[kOpRows][kWarpLanes]; // rows computed for literals and negated predicates
  };
  template <bool kAllRows>
  void exec_rows(WarpState& w, Frame& fr, const Instr& in, uint32_t exec, StepResult& out,
                 const OpRows& r);
  void exec_half(WarpState& w, Frame& fr, const Instr& in, uint32_t exec);
  void exec_cvt_format(WarpState& w, Frame& fr, const Instr& in, uint32_t exec);
  void exec_set(WarpState& w, Frame& fr, const Instr& in, uint32_t exec);
  void exec_async(WarpState& w, Frame& fr, const Instr& in, uint32_t exec, StepResult& out);
  void exec_warp_op(WarpState& w, Frame& fr, const Instr& in, uint32_t exec);
  void exec_mem(WarpState& w, Frame& fr, const Instr& in, uint32_t exec, StepResult& out);
  // A warp's plain global load or store in one access of the functional memory (exec_mem).
  static constexpr unsigned kSpanBytes = 1024; // 32 lanes of the widest (v4.b64) element
  bool global_span(WarpState& w, Frame& fr, const Instr& in, uint32_t exec, StepResult& out);
  void exec_tensor(WarpState& w, Frame& fr, const Instr& in, uint32_t exec, StepResult& out);
  void exec_texture(WarpState& w, Frame& fr, const Instr& in, uint32_t exec, StepResult& out);
  void exec_bar(WarpState& w, unsigned wid, Frame& fr, const Instr& in, uint32_t exec);
  void normalize(WarpState& w);
  void do_return(WarpState& w, uint32_t returned);
  void exit_lanes(WarpState& w, uint32_t lanes);
  bool try_release(CtaState& c, unsigned id);
  void check_deadlock(CtaState& c, const WarpState& w);
};

// =============================================================================================
// Kernel
// =============================================================================================
const Function& Kernel::find_entry(const Module& m, const std::string& name) {
  for (const auto& f : m.functions)
    if (f.name == name && f.is_entry && f.has_body) return f;
  const std::string list = join(m.entry_names());
  throw RuntimeError(m.no_entry(name) + " in " + m.filename +
                     "; entries: " + (list.empty() ? "(none)" : list));
}

Kernel::Kernel(const Module& m, const std::string& entry, const LaunchConfig& cfg,
               std::vector<uint8_t> params, GlobalMemory& mem)
    : mod_(m), cfg_(cfg), params_(std::move(params)), mem_(mem) {
  entry_ = &find_entry(m, entry);
  if (params_.size() != entry_->param_bytes)
    throw RuntimeError("kernel '" + entry + "' takes " + std::to_string(entry_->params.size()) +
                       " parameters (" + std::to_string(entry_->param_bytes) +
                       " bytes); the parameter buffer has " + std::to_string(params_.size()) +
                       " bytes");
  if (cfg_.grid.count() == 0 || cfg_.block.count() == 0)
    throw RuntimeError("kernel '" + entry + "': empty grid or block");
  if (cfg_.block.count() > 1024)
    throw RuntimeError("kernel '" + entry + "': block of " + std::to_string(cfg_.block.count()) +
                       " threads exceeds 1024");
  if (cfg_.grid.count() > 0xffffffffull) throw RuntimeError("grid too large");
  for (unsigned d = 0; d < 3; ++d)
    if (entry_->reqntid[d] && (d == 0   ? cfg_.block.x
                               : d == 1 ? cfg_.block.y
                                        : cfg_.block.z) != entry_->reqntid[d])
      throw RuntimeError(
          "kernel '" + entry + "' requires .reqntid " + std::to_string(entry_->reqntid[0]) + "," +
          std::to_string(entry_->reqntid[1]) + "," + std::to_string(entry_->reqntid[2]));
  warps_per_cta_ = unsigned((cfg_.block.count() + kWarpLanes - 1) / kWarpLanes);
  impl_ = std::make_unique<Impl>(*this);
  impl_->layout();
  if (cfg_.init_data) impl_->init_data();
}

Kernel::~Kernel() = default;

uint64_t Kernel::symbol_address(const std::string& var) const {
  int i = mod_.var_index(var);
  if (i < 0) throw RuntimeError("no module variable '" + var + "'");
  return impl_->var_addr[size_t(i)];
}

const Cfg& Kernel::cfg_of(const Function& f) const {
  for (size_t i = 0; i < mod_.functions.size(); ++i)
    if (&mod_.functions[i] == &f) return impl_->fns[i].cfg;
  throw RuntimeError("function not in this module");
}

unsigned Kernel::launch_cta(unsigned linear_ctaid) { return impl_->launch_cta(linear_ctaid); }
const std::vector<unsigned>& Kernel::cta_warps(unsigned cta) const { return impl_->cta(cta).warps; }
bool Kernel::cta_done(unsigned cta) const {
  for (unsigned w : impl_->cta(cta).warps)
    if (!impl_->warps[w]->finished) return false;
  return true;
}
unsigned Kernel::cta_linear_id(unsigned cta) const { return impl_->cta(cta).linear; }
void Kernel::release_cta(unsigned cta) { impl_->release_cta(cta); }
unsigned Kernel::warp_cta(unsigned warp) const { return impl_->warp(warp).cta; }
SharedMemoryError::SharedMemoryError(uint64_t st, uint64_t dyn)
    : RuntimeError("a CTA's shared memory, " + std::to_string(st) + " bytes static + " +
                   std::to_string(dyn) + " dynamic, exceeds " + std::to_string(kMaxSharedBytes) +
                   " bytes"),
      static_bytes(st), dynamic_bytes(dyn) {}

unsigned Kernel::warp_index_in_cta(unsigned warp) const { return impl_->warp(warp).idx; }
LaneValues64 Kernel::reg_value(unsigned warp, unsigned vreg) const {
  const Frame& fr = impl_->warp(warp).frames.back();
  if (size_t(vreg + 1) * kWarpLanes > fr.regs.size())
    throw RuntimeError("reg_value: no vreg " + std::to_string(vreg) + " in '" + fr.f->name + "'");
  LaneValues64 v;
  v.vreg = vreg;
  std::memcpy(v.v.data(), &fr.regs[size_t(vreg) * kWarpLanes], 8 * kWarpLanes);
  return v;
}

const uint64_t* Kernel::rows(unsigned warp) const {
  return impl_->warp(warp).frames.back().regs.data();
}

unsigned Kernel::call_depth(unsigned warp) const {
  return unsigned(impl_->warp(warp).frames.size());
}

uint64_t Kernel::save_area(unsigned warp) const {
  const Frame& fr = impl_->warp(warp).frames.back();
  return fr.local_base + fr.fi->local_frame;
}

Peek Kernel::peek(unsigned warp) const {
  const WarpState& w = impl_->warp(warp);
  Peek p;
  if (w.finished) {
    p.state = Peek::State::Finished;
    return p;
  }
  const Frame& fr = w.frames.back();
  p.func = fr.f;
  p.pc = w.stack.back().pc;
  p.active_mask = w.stack.back().mask;
  if (w.at_barrier) {
    p.state = Peek::State::AtBarrier;
    return p;
  }
  p.state = Peek::State::Ready;
  p.instr = p.pc < fr.f->instrs.size() ? &fr.f->instrs[p.pc] : nullptr;
  return p;
}

void Kernel::step(unsigned warp, StepResult& out) { impl_->step(warp, out); }

std::string Kernel::describe_warp(unsigned warp) const {
  const WarpState& w = impl_->warp(warp);
  std::ostringstream s;
  s << impl_->where(w, -1);
  s << std::hex << ": live lanes 0x" << w.live;
  if (!w.stack.empty()) s << ", active 0x" << w.stack.back().mask;
  s << std::dec << ", SIMT depth " << w.stack.size() << ", call depth " << w.frames.size();
  if (w.finished) s << ", finished";
  if (w.at_barrier) s << ", waiting at barrier " << w.bar_id;
  s << ", " << w.executed << " instructions";
  return s.str();
}

// =============================================================================================
// Control flow
// =============================================================================================
void Kernel::Impl::exit_lanes(WarpState& w, uint32_t lanes) {
  w.live &= ~lanes;
  for (auto& e : w.stack) {
    e.mask &= ~lanes;
    e.returned &= ~lanes;
  }
  if (w.live == 0) w.finished = true;
}

void Kernel::Impl::do_return(WarpState& w, uint32_t returned) {
  // Copy return parameters into the caller's call-sequence .param variables.
  Frame& callee = w.frames.back();
  Frame& caller = w.frames[w.frames.size() - 2];
  const Instr* call = callee.call;
  if (call) {
    for (size_t i = 0; i < call->dst.size() && i < callee.f->ret_params.size(); ++i) {
      const Param& rp = callee.f->ret_params[i];
      Space sp;
      uint64_t dst_off = sym_addr(w, caller, call->dst[i].sym, &sp);
      unsigned n = rp.size;
      if (dst_off + n > caller.fi->pframe) n = unsigned(caller.fi->pframe - dst_off);
      for (unsigned l = 0; l < kWarpLanes; ++l)
        if ((returned >> l) & 1)
          std::memcpy(caller.param.data() + size_t(l) * caller.fi->pframe + dst_off,
                      callee.param.data() + size_t(l) * callee.fi->pframe + callee.fi->ret_base +
                          rp.offset,
                      n);
    }
  }
  w.local_top = callee.saved_local_top;
  w.frames.pop_back();
}

void Kernel::Impl::normalize(WarpState& w) {
  while (!w.stack.empty()) {
    SimtEntry& top = w.stack.back();
    if (top.mask == 0) {
      if (top.base) {
        uint32_t returned = top.returned;
        w.stack.pop_back();
        if (w.frames.size() > 1 && returned) {
          do_return(w, returned);
        } else if (w.frames.size() > 1) {
          // every lane of the call exited
          w.local_top = w.frames.back().saved_local_top;
          w.frames.pop_back();
        } else {
          w.frames.pop_back();
        }
        continue;
      }
      w.stack.pop_back();
      continue;
    }
    if (!top.base && top.pc == top.rpc) {
      w.stack.pop_back();
      continue;
    }
    break;
  }
  if (w.stack.empty()) w.finished = true;
}

bool Kernel::Impl::try_release(CtaState& c, unsigned id) {
  auto it = c.bars.find(id);
  if (it == c.bars.end()) return false;
  BarrierState& b = it->second;
  bool ok;
  if (b.expected) {
    ok = uint64_t(b.arrivals) * kWarpLanes >= b.expected;
  } else {
    unsigned live = 0;
    for (unsigned wid : c.warps)
      if (!warps[wid]->finished) ++live;
    ok = b.arrivals >= live;
  }
  if (!ok) return false;
  for (unsigned wid : b.waiters) {
    WarpState& w = *warps[wid];
    if (w.red_instr) {
      uint64_t v = b.red == BoolOp::Popc  ? b.red_count
                   : b.red == BoolOp::And ? uint64_t(b.red_and)
                                          : uint64_t(b.red_or);
      Frame& fr = w.frames.back();
      for (unsigned l = 0; l < kWarpLanes; ++l)
        if ((w.red_mask >> l) & 1) wr(w, fr, w.red_instr->dst[0], l, v, w.red_instr->type);
      w.red_instr = nullptr;
    }
    w.at_barrier = false;
  }
  c.bars.erase(it);
  return true;
}

void Kernel::Impl::check_deadlock(CtaState& c, const WarpState& w) {
  // Release whatever can be released (an exit may complete a barrier).
  std::vector<unsigned> ids;
  for (auto& kv : c.bars) ids.push_back(kv.first);
  for (unsigned id : ids) try_release(c, id);
  bool any_running = false, any_waiting = false;
  for (unsigned wid : c.warps) {
    const WarpState& x = *warps[wid];
    if (x.finished) continue;
    if (x.at_barrier)
      any_waiting = true;
    else
      any_running = true;
  }
  if (any_waiting && !any_running) {
    std::ostringstream s;
    s << "barrier deadlock: every unfinished warp of the CTA waits at a barrier that can "
         "never complete (";
    bool first = true;
    for (auto& kv : c.bars) {
      s << (first ? "" : "; ") << "barrier " << kv.first << ": " << kv.second.arrivals
        << " warp(s) arrived, expecting "
        << (kv.second.expected ? std::to_string(kv.second.expected) + " threads"
                               : std::string("all unfinished warps"));
      first = false;
    }
    s << ")";
    fail(w, -1, s.str());
  }
}

void Kernel::Impl::exec_bar(WarpState& w, unsigned wid, Frame& fr, const Instr& in, uint32_t exec) {
  CtaState& c = *ctas[w.cta];
  if (in.bar == BarMode::Warp) return; // bar.warp.sync: lanes are converged in this model
  if (exec == 0) return;
  unsigned lane0 = unsigned(__builtin_ctz(exec));
  unsigned id = in.src.empty() ? 0 : unsigned(rd(w, fr, in.src[0], lane0, Type::U32));
  if (id >= 16) fail(w, int(lane0), "barrier id " + std::to_string(id) + " out of range 0..15");
  unsigned count = 0;
  size_t cnt_idx = in.bar == BarMode::Red ? 2 : 1;
  if (in.bar == BarMode::Red && in.src.size() == 2) cnt_idx = 99;
  if (cnt_idx < in.src.size()) {
    count = unsigned(rd(w, fr, in.src[cnt_idx], lane0, Type::U32));
    if (count == 0 || count % kWarpLanes)
      fail(w, int(lane0),
           "barrier thread count " + std::to_string(count) + " must be a non-zero multiple of 32");
  }
  if (in.bar != BarMode::Arrive && exec != w.live) {
    // Lanes of the warp parked (by divergence) at an exit of the kernel would exit as soon as
    // they ran (the common `if (i >= n) return; ... __syncthreads();`): let them exit now.
    uint32_t pending = w.live & ~exec, above = 0;
    std::vector<unsigned> frame_of(w.stack.size());
    unsigned fcount = 0;
    for (size_t i = 0; i < w.stack.size(); ++i) {
      if (w.stack[i].base && i > 0) ++fcount;
      frame_of[i] = fcount;
    }
    uint32_t exiting = 0;
    for (size_t i = w.stack.size(); i-- > 0;) {
      uint32_t here = w.stack[i].mask & ~above & pending;
      above |= w.stack[i].mask;
      if (!here) continue;
      const Function& ef = *w.frames[frame_of[i]].f;
      unsigned epc = w.stack[i].pc;
      const Instr* ei = epc < ef.instrs.size() ? &ef.instrs[epc] : nullptr;
      if (ei && ei->guard < 0 && (ei->op == Op::Exit || (ei->op == Op::Ret && frame_of[i] == 0)))
        exiting |= here;
    }
    if (exiting == pending) exit_lanes(w, exiting);
  }
  if (in.bar != BarMode::Arrive && exec != w.live)
    fail(w, int(lane0),
         "divergent barrier: " + std::string(in.text) + " executed by lanes " + hex(exec) +
             " while lanes " + hex(w.live) + " of the warp are alive (bar.sync under divergence)");
  BarrierState& b = c.bars[id];
  if (b.arrivals == 0)
    b.expected = count;
  else if (b.expected != count)
    fail(w, int(lane0), "barrier " + std::to_string(id) + " used with different thread counts");
  b.arrivals++;
  if (in.bar == BarMode::Red) {
    if (b.red == BoolOp::None) b.red = in.bop;
    const Operand& pred = in.src.back();
    for (unsigned l = 0; l < kWarpLanes; ++l)
      if ((exec >> l) & 1) {
        bool v = rd(w, fr, pred, l, Type::Pred) & 1;
        b.red_count += v;
        b.red_and = b.red_and && v;
        b.red_or = b.red_or || v;
      }
    w.red_instr = &in;
    w.red_mask = exec;
  }
  if (in.bar != BarMode::Arrive) {
    w.at_barrier = true;
    w.bar_id = id;
    b.waiters.push_back(wid);
  }
  try_release(c, id);
}

// =============================================================================================
// step
// =============================================================================================
void Kernel::Impl::step(unsigned wid, StepResult& out) {
  WarpState& w = warp(wid);
  if (w.finished) throw RuntimeError("step() on finished warp " + std::to_string(wid));
  if (w.at_barrier) fail(w, -1, "step() on a warp waiting at barrier " + std::to_string(w.bar_id));
  if (k.cfg_.instr_budget && k.executed_ >= k.cfg_.instr_budget)
    fail(w, -1,
         "instruction budget of " + std::to_string(k.cfg_.instr_budget) +
             " warp instructions exceeded (infinite loop?)");
  Frame* fr = &w.frames.back();
  SimtEntry* top = &w.stack.back();
  const unsigned pc = top->pc;
  const Function& f = *fr->f;
  if (pc >= f.instrs.size()) fail(w, -1, "execution ran past the end of '" + f.name + "'");
  const Instr& in = f.instrs[pc];
  const FnInfo& fi = *fr->fi;

  out.func = &f;
  out.pc = pc;
  out.instr = &in;
  out.warp = wid;
  out.cta = w.cta;
  out.active_mask = top->mask;
  out.is_mem = false;
  out.space = Space::None;
  out.access_bytes = 0;
  out.barrier_wait = out.exited_lanes = out.warp_finished = false;
  out.seq = k.executed_;
  ++k.executed_;
  ++w.executed;

  uint32_t exec = top->mask;
  if (in.guard >= 0) {
    uint32_t g = 0;
    for (unsigned l = 0; l < kWarpLanes; ++l)
      if (fr->regs[size_t(in.guard) * kWarpLanes + l] & 1) g |= 1u << l;
    exec &= in.guard_neg ? ~g : g;
  }
  out.exec_mask = exec;

  // source values
  static const std::vector<unsigned> kNoVregs;
  out.read_vregs = &fi.reads[pc];
  out.write_vregs = &kNoVregs;
  out.reads.resize(out.values ? fi.reads[pc].size() : 0);
  for (size_t i = 0; i < out.reads.size(); ++i) {
    unsigned r = fi.reads[pc][i];
    out.reads[i].vreg = r;
    std::memcpy(out.reads[i].v.data(), &fr->regs[size_t(r) * kWarpLanes], 8 * kWarpLanes);
  }

  const std::vector<unsigned>& writes = fi.writes[pc];
  auto report_writes = [&](Frame& frm) {
    out.write_vregs = &writes;
    out.writes.resize(out.values ? writes.size() : 0);
    for (size_t i = 0; i < out.writes.size(); ++i) {
      unsigned r = writes[i];
      out.writes[i].vreg = r;
      std::memcpy(out.writes[i].v.data(), &frm.regs[size_t(r) * kWarpLanes], 8 * kWarpLanes);
    }
  };

  switch (in.op) {
  case Op::Bra: {
    const unsigned target = in.src[0].label;
    const uint32_t taken = exec, not_taken = top->mask & ~exec;
    if (not_taken == 0) {
      top->pc = target;
    } else if (taken == 0) {
      top->pc = pc + 1;
    } else {
      unsigned r = fi.cfg.reconv_pc(pc);
      SimtEntry nt{pc + 1, not_taken, r, false, 0}, tk{target, taken, r, false, 0};
      if (!top->base && top->rpc == r) {
        w.stack.pop_back();
      } else {
        top->pc = r;
      }
      w.stack.push_back(nt);
      w.stack.push_back(tk);
    }
    out.writes.clear();
    normalize(w);
    return;
  }
  case Op::Exit: {
    top->pc = pc + 1;
    if (exec) {
      exit_lanes(w, exec);
      out.exited_lanes = true;
    }
    out.writes.clear();
    normalize(w);
    out.warp_finished = w.finished;
    if (exec) check_deadlock(*ctas[w.cta], w);
    return;
  }
  case Op::Ret: {
    top->pc = pc + 1;
    out.writes.clear();
    if (exec) {
      if (w.frames.size() == 1) {
        exit_lanes(w, exec);
        out.exited_lanes = true;
      } else {
        for (size_t i = w.stack.size(); i-- > 0;) {
          w.stack[i].mask &= ~exec;
          if (w.stack[i].base) {
            w.stack[i].returned |= exec;
            break;
          }
        }
      }
    }
    normalize(w);
    out.warp_finished = w.finished;
    if (out.exited_lanes) check_deadlock(*ctas[w.cta], w);
    return;
  }
  case Op::Call: {
    out.writes.clear();
    if (!exec) {
      top->pc = pc + 1;
      return;
    }
    int callee_idx = in.callee;
    const unsigned args0 = in.indirect ? 1 : 0; // src[0]: the indirect call's address
    bool serialised = false;
    if (in.indirect) {
      // The lanes of the first active lane's target call now; lanes with other targets call
      // at this pc once these return (the hardware's loop over a warp's distinct targets), from
      // an entry of their own that reconverges with the others after the call.
      const unsigned l0 = unsigned(__builtin_ctz(exec));
      const uint64_t a = rd(w, *fr, in.src[0], l0, Type::U64);
      uint32_t same = 0;
      for (unsigned l = l0; l < kWarpLanes; ++l)
        if (((exec >> l) & 1) && rd(w, *fr, in.src[0], l, Type::U64) == a) same |= 1u << l;
      if (same != exec) {
        top->pc = pc + 1;
        SimtEntry rest;
        rest.pc = pc;
        rest.mask = exec & ~same;
        rest.rpc = pc + 1;
        w.stack.push_back(rest);
        exec = same;
        out.exec_mask = exec;
        serialised = true;
      }
      const uint64_t i = (a - kFunctionWindow) / 16;
      if (a < kFunctionWindow || (a - kFunctionWindow) % 16 || i >= mod.functions.size() ||
          std::find(in.targets.begin(), in.targets.end(), int(i)) == in.targets.end())
        fail(w, int(l0),
             "indirect call to " + hex(a) + ", which is no function of the call's prototype");
      callee_idx = int(i);
    }
    const Function& callee = mod.functions[size_t(callee_idx)];
    if (!callee.has_body) { // a builtin (serialised: the other lanes' entry stays at the call)
      if (callee.name == "__assertfail") assert_fail(w, *fr, fi, in, exec);
      if (callee.name == "malloc" || callee.name == "free") {
        device_heap_call(w, *fr, fi, in, exec, callee.name == "malloc");
        if (!serialised) top->pc = pc + 1; // (serialised: done above)
        return;
      }
      if (device_runtime_call(w, *fr, fi, in, exec, callee.name)) {
        if (!serialised) top->pc = pc + 1; // (serialised: done above)
        return;
      }
      if (callee.name == "vprintf") { // printf: formatted for the sink (device_output.h)
        if (device_output() && in.src.size() == 2) device_printf(w, *fr, fi, in, exec);
        for (const auto& d : in.dst) {
          Space sp;
          uint64_t off = sym_addr(w, *fr, d.sym, &sp);
          for (unsigned l = 0; l < kWarpLanes; ++l)
            if ((exec >> l) & 1)
              std::memset(fr->param.data() + size_t(l) * fi.pframe + off, 0,
                          std::min<uint64_t>(4, fi.pframe - off));
        }
        if (!serialised) top->pc = pc + 1; // (serialised: done above)
        return;
      }
      fail(w, -1, "call to external function '" + callee.name + "' (no body) is not supported");
    }
    if (in.src.size() - args0 != callee.params.size())
      fail(w, -1,
           "call of '" + callee.name + "' with " + std::to_string(in.src.size() - args0) +
               " arguments; it takes " + std::to_string(callee.params.size()));
    if (in.dst.size() > callee.ret_params.size())
      fail(w, -1,
           "call of '" + callee.name + "' expects " + std::to_string(in.dst.size()) +
               " return values; it has " + std::to_string(callee.ret_params.size()));
    // argument offsets in the caller's frame
    std::vector<uint64_t> arg_off(in.src.size());
    for (size_t i = args0; i < in.src.size(); ++i) {
      Space sp;
      arg_off[i] = sym_addr(w, *fr, in.src[i].sym, &sp);
    }
    unsigned caller_idx = unsigned(w.frames.size() - 1);
    push_frame(w, unsigned(callee_idx), exec, &in); // errors report the call's pc
    // The caller resumes after the call (serialised: the other lanes' entry stays at it).
    if (!serialised) w.stack[w.stack.size() - 2].pc = pc + 1;
    Frame& caller = w.frames[caller_idx];
    Frame& cf = w.frames.back();
    for (size_t i = args0; i < in.src.size(); ++i) {
      const Param& p = callee.params[i - args0];
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        if (!((exec >> l) & 1)) continue;
        uint8_t tmp[256];
        std::vector<uint8_t> big;
        uint8_t* buf = tmp;
        if (p.size > sizeof(tmp)) {
          big.resize(p.size);
          buf = big.data();
        }
        std::memset(buf, 0, p.size);
        if (w.frames.size() - 1 == 1 && caller_idx == 0 &&
            in.src[i].sym.scope == SymRef::Scope::Param) {
          // forwarding a kernel parameter directly
          std::memcpy(buf, k.params_.data() + arg_off[i],
                      std::min<uint64_t>(p.size, k.params_.size() - arg_off[i]));
        } else {
          uint64_t n = std::min<uint64_t>(p.size, caller.fi->pframe - arg_off[i]);
          std::memcpy(buf, caller.param.data() + size_t(l) * caller.fi->pframe + arg_off[i],
                      size_t(n));
        }
        std::memcpy(cf.param.data() + size_t(l) * cf.fi->pframe + p.offset, buf, p.size);
      }
    }
    return;
  }
  case Op::Bar: {
    exec_bar(w, wid, *fr, in, exec); // does not change the stack layout
    top->pc = pc + 1;
    report_writes(*fr);
    if (w.at_barrier) {
      out.barrier_wait = true;
      check_deadlock(*ctas[w.cta], w);
    }
    return;
  }
  default:
    break;
  }

  if (exec) exec_op(w, *fr, in, exec, out); // errors report this pc
  top->pc = pc + 1;
  report_writes(*fr);
  normalize(w);
}

// tex / tld4 / suld / sust (texture.h). The timing model sees a global access per lane: the
// texel nearest the sample point (tex, tld4: its upper-left texel) or the surface bytes.
void Kernel::Impl::exec_texture(WarpState& w, Frame& fr, const Instr& in, uint32_t exec,
                                StepResult& out) {
  const bool surf = in.op == Op::Suld || in.op == Op::Sust;
  out.is_mem = true;
  out.space = Space::Global;
  const Operand& co = in.src[1];
  for (unsigned l = 0; l < kWarpLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    const uint64_t h = rd(w, fr, in.src[0], l, Type::B64);
    const TextureDesc* d = k.cfg_.textures ? k.cfg_.textures->find(h) : nullptr;
    if (!d)
      fail(w, int(l),
           "'" + in.text + "': " + hex(h) + " is not a " + (surf ? "surface" : "texture") +
               " object (none was created with this "
               "handle)");
    if (d->surface != surf)
      fail(w, int(l),
           "'" + in.text + "': object " + hex(h) + " is a " + (d->surface ? "surface" : "texture") +
               " object");
    uint64_t c[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < co.elems.size(); ++i) c[i] = rd(w, fr, co.elems[i], l, Type::B32);
    uint64_t touched = 0;
    const bool layered = in.tex_dims & kTexLayered;
    unsigned dims = in.tex_dims & 3u;
    if (d->layered != layered)
      fail(w, int(l),
           "'" + in.text + "': object " + hex(h) +
               (layered ? " is not a layered array (.a1d/.a2d fetch layered ones only)"
                        : " is a layered array (fetched by .a1d/.a2d only)"));
    TextureDesc view; // a layered fetch: {layer, x[, y]} as a plain 2D/3D surface or 1D/2D slice
    if (layered) {
      view = *d;
      view.layered = false;
      const int32_t layer = int32_t(c[0]);
      if (surf) {        // the layer the last coordinate of an access of one more dimension
        if (dims == 1) { // rows of one texel row each: (x, layer)
          view.pitch = d->slice();
          view.height = d->depth;
          view.depth = 1;
        }
        c[0] = c[1], c[1] = dims == 1 ? uint64_t(layer) : c[2], c[2] = uint64_t(layer);
        ++dims;
      } else { // a texture: the layer clamped (CUDA), sampled as a 1D/2D texture
        const uint64_t at = uint64_t(std::clamp<int64_t>(layer, 0, int64_t(d->depth) - 1));
        view.base += at * d->slice();
        view.depth = 1;
        c[0] = c[1], c[1] = c[2];
      }
      d = &view;
    }
    if (surf) {
      const unsigned esz = type_bytes(in.type), len = esz * in.vec;
      out.access_bytes = len;
      uint8_t buf[32] = {0};
      if (in.op == Op::Sust)
        for (unsigned e = 0; e < in.vec; ++e) {
          const Operand& v = in.vec == 1 ? in.src[2] : in.src[2].elems[e];
          const uint64_t x = rd(w, fr, v, l, in.type);
          std::memcpy(buf + e * esz, &x, esz);
        }
      const std::string err =
          surf_access(*d, k.mem_, dims, int32_t(c[0]), int32_t(c[1]), int32_t(c[2]), buf, len,
                      in.op == Op::Sust, SurfClamp(in.tex_comp), touched);
      if (!err.empty()) fail(w, int(l), "'" + in.text + "': " + err);
      if (in.op == Op::Suld)
        for (unsigned e = 0; e < in.vec; ++e) {
          uint64_t x = 0;
          std::memcpy(&x, buf + e * esz, esz);
          const Operand& v = in.vec == 1 ? in.dst[0] : in.dst[0].elems[e];
          if (v.kind == Operand::Kind::Reg) wr_reg(fr, v.reg, l, x);
        }
      out.addr[l] = touched ? touched : d->base;
      continue;
    }
    out.access_bytes = d->texel_bytes();
    const TexResult rt = in.type == Type::F32   ? TexResult::F32
                         : in.type == Type::S32 ? TexResult::S32
                                                : TexResult::U32;
    std::array<uint32_t, 4> r;
    if (in.op == Op::Tld4) {
      r = tex_gather(*d, k.mem_, in.tex_comp, as_f32(c[0]), as_f32(c[1]), rt, &touched);
    } else if (in.type2 == Type::S32) {
      const int32_t ic[3] = {int32_t(c[0]), int32_t(c[1]), int32_t(c[2])};
      r = tex_sample(*d, k.mem_, dims, nullptr, ic, rt, &touched);
    } else {
      const float fc[3] = {as_f32(c[0]), as_f32(c[1]), as_f32(c[2])};
      r = tex_sample(*d, k.mem_, dims, fc, nullptr, rt, &touched);
    }
    for (unsigned e = 0; e < 4; ++e) {
      const Operand& v = in.dst[0].elems[e];
      if (v.kind == Operand::Kind::Reg) wr_reg(fr, v.reg, l, r[e]);
    }
    out.addr[l] = touched;
  }
}

// =============================================================================================
// Memory instructions
// =============================================================================================
// A warp's global load or store whose lanes lie in one span of at most kSpanBytes (a load: any
// lanes in it, a row, a broadcast; a store: consecutive lanes at consecutive elements, no gap
// and no overlap) takes the functional memory's path (the L1's debug transport down to the
// memory) once instead of once per lane. Its bytes are those of the per-lane accesses: a read
// of the span has no side effect and holds every lane's bytes, and a store's span is exactly
// the lanes' bytes written in lane order. Anything that would fail (a misaligned lane, a span
// not inside one live allocation, an access the memory refuses) returns false before any
// register or byte changed, or after rewriting the same bytes, and the per-lane loop runs
// and reports it as before.
bool Kernel::Impl::global_span(WarpState& w, Frame& fr, const Instr& in, uint32_t exec,
                               StepResult& out) {
  const bool store = in.op == Op::St;
  const Space sp = in.space;
  const Operand& ao = in.src[0];
  // Generic: only a register base (eff_addr cannot fail) whose lanes all resolve to global.
  if (!exec || !(sp == Space::Global || (sp == Space::Const && !store) ||
                 (sp == Space::Generic && ao.has_base_reg)))
    return false;
  const unsigned esz = type_bytes(in.type), n = in.vec, len = esz * n;
  if (len == 0 || len > 32) return false;
  const Operand& vo = store ? in.src[1] : in.dst[0];
  if (n > 1 && vo.kind != Operand::Kind::Vector) return false; // the loop reports it
  uint64_t a[kWarpLanes];
  uint64_t lo = ~0ull, hi = 0, next = 0;
  bool first = true;
  for (unsigned l = 0; l < kWarpLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    const uint64_t x = eff_addr(w, fr, ao, l, sp);
    if (sp == Space::Generic && ((x >= kSharedWindow && x < kSharedWindow + kWindowSize) ||
                                 (x >= kLocalWindow && x < kLocalWindow + kWindowSize) ||
                                 (x >= kParamWindow && x < kParamWindow + kWindowSize)))
      return false;
    if (x % len || x + len < x) return false;
    if (store && !first && x != next) return false;
    first = false;
    next = x + len;
    a[l] = x;
    lo = std::min(lo, x);
    hi = std::max(hi, x + len);
    if (hi - lo > kSpanBytes) return false;
  }
  if (k.cfg_.allocations && !k.cfg_.allocations->check(lo, unsigned(hi - lo)).empty()) return false;
  uint8_t buf[kSpanBytes];
  const unsigned span = unsigned(hi - lo);
  const bool is_signed = type_is_signed(in.type);
  if (store) {
    const Operand& s = in.src[1];
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      for (unsigned e = 0; e < n; ++e) {
        const Operand& src = n == 1 ? s : s.elems[e];
        store_elem(buf + (a[l] - lo) + e * esz, rd(w, fr, src, l, in.type), esz);
      }
    }
    try {
      k.mem_.write(lo, buf, span);
    } catch (const std::exception&) {
      return false; // the lanes rewrite the same bytes, and the failing one reports it
    }
  } else {
    try {
      k.mem_.read(lo, buf, span);
    } catch (const std::exception&) {
      return false;
    }
    const Operand& d = in.dst[0];
    if (n == 1 && d.kind == Operand::Kind::Reg && (esz == 4 || esz == 8)) {
      // A scalar load of 32 or 64 bits (most of them): the row and its mask looked up once,
      // the element size a constant, a full warp's lanes without a test.
      uint64_t* drow = &fr.regs[size_t(d.reg) * kWarpLanes];
      const uint64_t vm = value_mask(fr.f->regs[d.reg]);
      auto load = [&](auto size) {
        constexpr unsigned e = decltype(size)::value;
        for (unsigned l = 0; l < kWarpLanes; ++l) {
          if (exec != ~0u && !((exec >> l) & 1)) continue;
          drow[l] = load_value(buf + (a[l] - lo), e, is_signed) & vm;
        }
      };
      if (esz == 4)
        load(std::integral_constant<unsigned, 4>{});
      else
        load(std::integral_constant<unsigned, 8>{});
    } else {
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        if (!((exec >> l) & 1)) continue;
        for (unsigned e = 0; e < n; ++e) {
          const uint64_t v = load_value(buf + (a[l] - lo) + e * esz, esz, is_signed);
          const Operand& dst = n == 1 ? d : d.elems[e];
          if (dst.kind == Operand::Kind::Reg)
            wr_reg(fr, dst.reg, l, v);
          else if (dst.kind != Operand::Kind::Sink)
            fail(w, int(l), "load destination is not a register");
        }
      }
    }
  }
  const Space rsp = sp == Space::Const ? Space::Const : Space::Global;
  if (exec == ~0u)
    std::copy(a, a + kWarpLanes, out.addr.begin());
  else
    for (unsigned l = 0; l < kWarpLanes; ++l)
      if ((exec >> l) & 1) out.addr[l] = a[l];
  out.space = rsp;
  return true;
}

void Kernel::Impl::exec_mem(WarpState& w, Frame& fr, const Instr& in, uint32_t exec,
                            StepResult& out) {
  const Type t = in.type;
  const unsigned esz = type_bytes(t);
  const unsigned n = in.vec;
  const unsigned len = esz * n;
  out.is_mem = true;
  out.access_bytes = len;
  bool first = true;
  Space common = Space::None;
  const Operand& ao = in.src[0];
  auto note = [&](unsigned l, Space rsp, uint64_t raddr) {
    out.addr[l] = raddr;
    if (first) {
      common = rsp;
      first = false;
    } else if (common != rsp) {
      common = Space::Generic;
    }
  };
  const bool is_signed = type_is_signed(t);
  if ((in.op == Op::Ld || in.op == Op::Ldu || in.op == Op::St) && global_span(w, fr, in, exec, out))
    return;
  if (in.op == Op::Ld || in.op == Op::Ldu) {
    const Operand& d = in.dst[0];
    if (in.space == Space::Shared && n == 1 && d.kind == Operand::Kind::Reg &&
        (esz == 1 || esz == 2 || esz == 4 || esz == 8)) {
      // A scalar shared-memory load (the most frequent load of tiled kernels): the lanes read
      // the CTA's shared bytes directly; a lane that is misaligned or out of bounds goes
      // through mem_access, which reports it as the general loop below would.
      // The element size a constant of the loop, and a full warp's lanes without a test.
      const std::vector<uint8_t>& shared = ctas[w.cta]->shared;
      uint64_t* drow = &fr.regs[size_t(d.reg) * kWarpLanes];
      const uint64_t vm = value_mask(fr.f->regs[d.reg]);
      auto load = [&](auto size) {
        constexpr unsigned e = decltype(size)::value;
        for (unsigned l = 0; l < kWarpLanes; ++l) {
          if (exec != ~0u && !((exec >> l) & 1)) continue;
          const uint64_t a = eff_addr(w, fr, ao, l, in.space);
          if ((e > 1 && a % e) || a + e > shared.size() || a + e < a) {
            uint8_t buf[8];
            Space rsp;
            uint64_t raddr;
            mem_access(w, fr, l, in.space, a, buf, len, false, rsp, raddr, len); // fails
          }
          out.addr[l] = a; // note(): every lane's space is Shared
          drow[l] = load_value(shared.data() + a, e, is_signed) & vm;
        }
      };
      with_elem_size(esz, load);
      out.space = exec ? Space::Shared : common;
      return;
    }
    // A kernel parameter named by its symbol (ld.param at a kernel's start, once per warp):
    // every lane has the same address, and mem_access reads the same bytes of the launch's
    // parameters for each (no lane-dependent check or state), so the lanes after the first
    // take the first one's access. An address past the parameters is a per-lane frame: each
    // lane reads its own.
    const bool same_param = in.space == Space::Param && !ao.has_base_reg && w.frames.size() == 1;
    bool have_param = false;
    uint8_t pbuf[32];
    uint64_t pa = 0, praddr = 0;
    Space prsp = Space::None;
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      uint64_t a;
      uint8_t buf[32] = {0};
      Space rsp;
      uint64_t raddr;
      if (have_param) {
        a = pa;
        std::memcpy(buf, pbuf, len);
        rsp = prsp;
        raddr = praddr;
      } else {
        a = eff_addr(w, fr, ao, l, in.space);
        mem_access(w, fr, l, in.space, a, buf, len, false, rsp, raddr, len);
        if (same_param && rsp == Space::Param && raddr < k.params_.size()) {
          have_param = true;
          pa = a;
          std::memcpy(pbuf, buf, len);
          prsp = rsp;
          praddr = raddr;
        }
      }
      note(l, rsp, raddr);
      if (rsp == Space::Generic) out.addr[l] = a;
      for (unsigned e = 0; e < n; ++e) {
        const uint64_t v = load_value(buf + e * esz, esz, is_signed);
        const Operand& dst = n == 1 ? d : d.elems[e];
        if (n > 1 && d.kind != Operand::Kind::Vector)
          fail(w, int(l), "vector load needs a vector destination");
        if (dst.kind == Operand::Kind::Reg)
          wr_reg(fr, dst.reg, l, v);
        else if (dst.kind != Operand::Kind::Sink)
          fail(w, int(l), "load destination is not a register");
      }
    }
  } else if (in.op == Op::St) {
    const Operand& s = in.src[1];
    if (in.space == Space::Shared && n == 1 &&
        (s.kind == Operand::Kind::Reg || s.kind == Operand::Kind::Imm) &&
        (esz == 1 || esz == 2 || esz == 4 || esz == 8)) {
      // A scalar shared-memory store (tiled kernels fill their tiles with it), as the scalar
      // shared load above: the lanes write the CTA's shared bytes directly, in lane order; a
      // misaligned or out-of-bounds lane goes through mem_access, which reports it.
      std::vector<uint8_t>& shared = ctas[w.cta]->shared;
      uint8_t* const bytes = shared.data(); // the byte stores could alias the vector's fields
      const uint64_t nbytes = shared.size();
      auto store = [&](auto size) { // as the load above
        constexpr unsigned e = decltype(size)::value;
        for (unsigned l = 0; l < kWarpLanes; ++l) {
          if (exec != ~0u && !((exec >> l) & 1)) continue;
          const uint64_t a = eff_addr(w, fr, ao, l, in.space);
          const uint64_t v = rd(w, fr, s, l, t);
          if ((e > 1 && a % e) || a + e > nbytes || a + e < a) {
            uint8_t buf[8] = {0};
            store_elem(buf, v, e);
            Space rsp;
            uint64_t raddr;
            mem_access(w, fr, l, in.space, a, buf, len, true, rsp, raddr, len); // fails
          }
          out.addr[l] = a; // note(): every lane's space is Shared
          store_elem(bytes + a, v, e);
        }
      };
      with_elem_size(esz, store);
      out.space = exec ? Space::Shared : common;
      return;
    }
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      uint64_t a = eff_addr(w, fr, ao, l, in.space);
      uint8_t buf[32] = {0};
      for (unsigned e = 0; e < n; ++e) {
        if (n > 1 && s.kind != Operand::Kind::Vector)
          fail(w, int(l), "vector store needs a vector source");
        const Operand& src = n == 1 ? s : s.elems[e];
        store_elem(buf + e * esz, rd(w, fr, src, l, t), esz);
      }
      Space rsp;
      uint64_t raddr;
      mem_access(w, fr, l, in.space, a, buf, len, true, rsp, raddr, len);
      note(l, rsp, raddr);
    }
  } else { // atom / red: lanes in order; a vector (sm_90) element by element
    const bool fl = type_is_float(t);
    const unsigned bits = esz * 8;
    // f16/bf16 adds (.noftz: subnormals kept), the x2 forms per half, rounded to nearest.
    namespace H = half;
    const bool half2 = t == Type::F16X2 || t == Type::BF16X2;
    const bool half = half2 || t == Type::F16 || t == Type::BF16;
    const H::Format hf = t == Type::BF16 || t == Type::BF16X2 ? H::kBF16 : H::kF16;
    auto half_add = [&](uint64_t x, uint64_t y) {
      return uint64_t(H::arith(H::Op::Add, uint16_t(x), uint16_t(y), hf, H::Mode::RN));
    };
    if (n > 1 &&
        ((in.op == Op::Atom && in.dst[0].kind != Operand::Kind::Vector) || in.src.size() < 2 ||
         in.src[1].kind != Operand::Kind::Vector || in.src[1].elems.size() != n ||
         (in.op == Op::Atom && in.dst[0].elems.size() != n)))
      fail(w, exec ? __builtin_ctz(exec) : 0,
           "'" + in.text + "': a vector atomic needs vectors of " + std::to_string(n) +
               " elements as its value and destination");
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      const uint64_t base = eff_addr(w, fr, ao, l, in.space);
      for (unsigned e = 0; e < n; ++e) {
        const uint64_t a = base + uint64_t(e) * esz;
        uint64_t old = 0;
        Space rsp;
        uint64_t raddr;
        mem_access(w, fr, l, in.space, a, &old, esz, false, rsp, raddr, esz);
        if (rsp == Space::Param || rsp == Space::Local || rsp == Space::Const)
          fail(w, int(l), std::string("atomic on ") + space_name(rsp) + " space");
        if (e == 0) note(l, rsp, raddr);
        old &= bitmask(bits);
        // The operand (mbarrier.arrive and .inval may have none: a count of 1).
        uint64_t b = 1;
        if (in.src.size() > 1)
          b = rd(w, fr, n == 1 ? in.src[1] : in.src[1].elems[e], l, t) & bitmask(bits);
        uint64_t nv = old, res = old; // the new value, what the destination gets
        switch (in.atom) {
        case AtomOp::MbarInit:
          nv = mbarrier::init(b);
          break;
        case AtomOp::MbarInval:
          nv = 0;
          break;
        case AtomOp::MbarArrive:
        case AtomOp::MbarArriveDrop:
          if (!mbarrier::arrive(nv, b, in.atom == AtomOp::MbarArriveDrop))
            fail(w, int(l),
                 "'" + in.text + "': " + std::to_string(b) + " arrivals on an mbarrier with " +
                     std::to_string(mbarrier::pending(old)) + " pending (at " + hex(a) + ")");
          break;
        case AtomOp::MbarTestWait:
          res = mbarrier::phase_done(old, b);
          break;
        case AtomOp::MbarTestWaitParity:
          res = mbarrier::parity_done(old, b);
          break;
        case AtomOp::Add:
          if (t == Type::F32)
            nv = f32_bits(ftz(ftz(as_f32(old)) + ftz(as_f32(b))));
          else if (t == Type::F64)
            nv = f64_bits(as_f64(old) + as_f64(b));
          else if (half2)
            nv = half_add(old, b) | half_add(old >> 16, b >> 16) << 16;
          else if (half)
            nv = half_add(old, b);
          else
            nv = old + b;
          break;
        case AtomOp::Min:
          if (fl) fail(w, int(l), "floating-point atomic min is not supported");
          nv = is_signed ? (sext(old, bits) < sext(b, bits) ? old : b) : std::min(old, b);
          break;
        case AtomOp::Max:
          if (fl) fail(w, int(l), "floating-point atomic max is not supported");
          nv = is_signed ? (sext(old, bits) > sext(b, bits) ? old : b) : std::max(old, b);
          break;
        case AtomOp::Inc:
          nv = old >= b ? 0 : old + 1;
          break;
        case AtomOp::Dec:
          nv = (old == 0 || old > b) ? b : old - 1;
          break;
        case AtomOp::Exch:
          nv = b;
          break;
        case AtomOp::Cas: {
          uint64_t c = rd(w, fr, in.src[2], l, t) & bitmask(bits);
          nv = old == b ? c : old;
          break;
        }
        case AtomOp::And:
          nv = old & b;
          break;
        case AtomOp::Or:
          nv = old | b;
          break;
        case AtomOp::Xor:
          nv = old ^ b;
          break;
        default:
          fail(w, int(l), "bad atomic operation");
        }
        nv &= bitmask(bits);
        mem_access(w, fr, l, in.space, a, &nv, esz, true, rsp, raddr, esz);
        if (in.op == Op::Atom)
          wr(w, fr, n == 1 ? in.dst[0] : in.dst[0].elems[e], l,
             is_signed ? uint64_t(sext(res, bits)) : res, t);
      }
    }
  }
  out.space = common;
}

// =============================================================================================
// Warp-level matrix instructions: the fragments in and out of mma.h
// =============================================================================================
void Kernel::Impl::exec_tensor(WarpState& w, Frame& fr, const Instr& in, uint32_t exec,
                               StepResult& out) {
  // .sync.aligned: every thread of the warp executes it, together (PTX ISA); the fragments
  // are spread over all 32 lanes.
  if (exec != 0xffffffffu)
    fail(w, __builtin_ctz(exec),
         "'" + in.text + "' executed by lanes " + hex(exec) +
             ": .sync.aligned needs all 32 threads of the warp to execute it together");
  auto gather = [&](const Operand& o) {
    Fragment f(o.kind == Operand::Kind::Vector ? o.elems.size() : 1);
    for (size_t i = 0; i < f.size(); ++i) {
      const Operand& e = o.kind == Operand::Kind::Vector ? o.elems[i] : o;
      std::memcpy(f[i].data(), &fr.regs[size_t(e.reg) * kWarpLanes], 8 * kWarpLanes);
    }
    return f;
  };
  auto scatter = [&](const Operand& o, const Fragment& f) {
    for (size_t i = 0; i < f.size(); ++i) {
      const Operand& e = o.kind == Operand::Kind::Vector ? o.elems[i] : o;
      for (unsigned l = 0; l < kWarpLanes; ++l) wr_reg(fr, e.reg, l, f[i][l]);
    }
  };
  Fragment d;
  if (in.op == Op::Wmma) {
    const TensorSpec& s = in.tensor;
    if (s.wmma == 'm') {
      wmma_mma_execute(s, gather(in.src[0]), gather(in.src[1]), gather(in.src[2]), d);
      return scatter(in.dst[0], d);
    }
    // wmma.load/store: element i of lane l's fragment is matrix element wmma_coord(s, f, l,
    // i) (mma.h), at p + (row-major ? row * stride + col : col * stride + row) elements.
    const bool load = s.wmma == 'l';
    const char f = s.frag;
    const unsigned eb = wmma_elem_bits(s, f), esz = eb / 8, rb = wmma_reg_bits(s, f);
    const unsigned per = rb / eb, nreg = wmma_regs(s, f);
    const unsigned rows = f == 'b' ? s.k : s.m, cols = f == 'a' ? s.k : s.n;
    const bool row_major = s.row[0];
    const size_t si = load ? 1 : 2; // the stride operand
    const uint64_t emask = eb == 64 ? ~uint64_t(0) : (uint64_t(1) << eb) - 1;
    if (load)
      d.assign(nreg, LaneRegs{});
    else
      d = gather(in.src[1]);
    // The timing sees the matrix as 32 equal chunks of its lines (rows or columns), one per
    // lane: the bytes the warp moves, each once, as the line-wise accesses an LSU makes.
    const unsigned line = (row_major ? cols : rows) * esz;
    const unsigned chunk = rows * cols * esz / kWarpLanes, per_line = line / chunk;
    out.is_mem = true;
    out.access_bytes = chunk;
    bool first = true;
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      const uint64_t base = eff_addr(w, fr, in.src[0], l, in.space);
      const uint64_t stride =
          in.src.size() > si ? uint32_t(rd(w, fr, in.src[si], l, Type::U32)) : line / esz;
      for (unsigned i = 0; i < nreg * per; ++i) {
        const MatrixCoord p = wmma_coord(s, f, l, i);
        const uint64_t a =
            base + (row_major ? p.row * stride + p.col : p.col * stride + p.row) * esz;
        uint64_t& reg = d[i / per][l];
        const unsigned shift = (i % per) * eb;
        uint8_t buf[8] = {0};
        Space rsp;
        uint64_t raddr;
        if (!load) store_elem(buf, reg >> shift & emask, esz);
        mem_access(w, fr, l, in.space, a, buf, esz, !load, rsp, raddr, esz);
        if (load) reg |= (load_elem(buf, esz) & emask) << shift;
      }
      uint64_t a = base + (l / per_line) * stride * esz + (l % per_line) * chunk;
      const Space rsp = resolve(w, l, in.space, a);
      out.addr[l] = a;
      out.space = first || out.space == rsp ? rsp : Space::Generic;
      first = false;
    }
    if (load) scatter(in.dst[0], d);
    return;
  }
  if (in.op == Op::Mma) {
    mma_execute(in.tensor, gather(in.src[0]), gather(in.src[1]), gather(in.src[2]), d);
  } else if (in.op == Op::Movmatrix) {
    d.resize(1);
    movmatrix_execute(gather(in.src[0])[0], d[0]);
  } else { // ldmatrix: lane 8 m + r gives the address of row r of matrix m (16 B, aligned)
    const unsigned rows = 8u * in.tensor.num;
    std::vector<Matrix8x8> mats(in.tensor.num);
    out.is_mem = true;
    out.access_bytes = 16;
    out.space = Space::Shared;
    for (unsigned l = 0; l < rows; ++l) {
      const uint64_t a = eff_addr(w, fr, in.src[0], l, Space::Shared);
      Space rsp;
      uint64_t raddr;
      mem_access(w, fr, l, Space::Shared, a, mats[l / 8][l % 8].data(), 16, false, rsp, raddr, 16);
      out.addr[l] = raddr;
    }
    // The lanes that give no address: the row their position repeats (a repeated word
    // costs the shared banks nothing more), so the timing sees the rows actually read.
    for (unsigned l = rows; l < kWarpLanes; ++l) out.addr[l] = out.addr[l % rows];
    ldmatrix_distribute(in.tensor, mats, d);
  }
  scatter(in.dst[0], d);
}

// =============================================================================================
// Asynchronous copies (async_copy.h)
// =============================================================================================
void Kernel::Impl::exec_async(WarpState& w, Frame& fr, const Instr& in, uint32_t exec,
                              StepResult& out) {
  if (in.op == Op::CpAsyncCommit) return w.async.commit();
  if (in.op == Op::CpAsyncWait) {
    const uint64_t n = in.cp_all ? 0 : in.src[0].imm;
    std::vector<uint8_t>& sh = ctas[w.cta]->shared;
    w.async.retire_oldest(w.async.covered(n, in.cp_all), [&](std::vector<AsyncCopy>& g) {
      for (const AsyncCopy& c : g) std::memcpy(sh.data() + c.shared, c.bytes, c.len);
    });
    // cp.async.mbarrier.arrive.noinc: the warp's copies have landed (above, a wait_all), then
    // each lane arrives on the mbarrier at [a] (without .noinc the pending count rises and falls
    // by one: nothing to do once the copies are in).
    if (in.atom == AtomOp::MbarArrive)
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        if (!((exec >> l) & 1)) continue;
        const uint64_t a = eff_addr(w, fr, in.src[0], l, Space::Shared);
        uint64_t m = 0;
        Space rsp;
        uint64_t raddr;
        mem_access(w, fr, l, Space::Shared, a, &m, 8, false, rsp, raddr, 8);
        if (!mbarrier::arrive(m, 1, false))
          fail(w, int(l), "'" + in.text + "': an arrival on an mbarrier with none pending");
        mem_access(w, fr, l, Space::Shared, a, &m, 8, true, rsp, raddr, 8);
      }
    return;
  }
  // cp.async: each lane reads its source now and its copy waits in the open group.
  const unsigned n = unsigned(in.src[2].imm);
  std::vector<AsyncCopy>& group = w.async.open();
  int reader = -1; // first lane that reads global memory
  uint32_t zero_fill = 0;
  for (unsigned l = 0; l < kWarpLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    unsigned len = n;
    if (in.src.size() == 4) {
      if (in.cp_ignore_src)
        len = (rd(w, fr, in.src[3], l, Type::Pred) & 1) ? 0 : n;
      else
        len = unsigned(std::min<uint64_t>(rd(w, fr, in.src[3], l, Type::U32) & 0xffffffffu, 64));
      if (len > n)
        fail(w, int(l),
             "cp.async src-size " + std::to_string(len) + " is larger than cp-size " +
                 std::to_string(n) + " (undefined in the PTX ISA)");
    }
    AsyncCopy c;
    c.len = uint8_t(n);
    Space rsp;
    uint64_t raddr;
    const uint64_t d = eff_addr(w, fr, in.src[0], l, Space::Shared);
    uint8_t probe[16];
    mem_access(w, fr, l, Space::Shared, d, probe, n, false, rsp, raddr, n); // bounds, alignment
    c.shared = uint32_t(raddr);
    if (len) {
      const uint64_t a = eff_addr(w, fr, in.src[1], l, Space::Global);
      mem_access(w, fr, l, Space::Global, a, c.bytes, len, false, rsp, raddr, n);
      out.addr[l] = raddr;
      if (reader < 0) reader = int(l);
    } else {
      zero_fill |= 1u << l;
    }
    group.push_back(c);
  }
  // The LSU times the global read of the lanes that read; a zero-filling lane shares the first
  // reader's address (no extra segment). No lane reads: no memory access at all.
  out.is_mem = reader >= 0;
  out.space = Space::Global;
  out.access_bytes = n;
  for (unsigned l = 0; l < kWarpLanes; ++l)
    if ((zero_fill >> l) & 1) out.addr[l] = reader >= 0 ? out.addr[unsigned(reader)] : 0;
}

// =============================================================================================
// Warp reductions, dot products, fns, elect (warp_ops.h)
// =============================================================================================
void Kernel::Impl::exec_warp_op(WarpState& w, Frame& fr, const Instr& in, uint32_t exec) {
  auto lanes = [&](auto&& fn) {
    for (unsigned l = 0; l < kWarpLanes; ++l)
      if ((exec >> l) & 1) fn(l);
  };
  auto u32 = [&](unsigned i, unsigned l) { return uint32_t(rd(w, fr, in.src[i], l, Type::U32)); };
  switch (in.op) {
  case Op::Dp4a:
  case Op::Dp2a: {
    const bool as = type_is_signed(in.type), bs = type_is_signed(in.type2);
    lanes([&](unsigned l) {
      const uint32_t a = u32(0, l), b = u32(1, l), c = u32(2, l);
      const uint32_t d = in.op == Op::Dp4a ? warp_ops::dp4a(a, b, c, as, bs)
                                           : warp_ops::dp2a(a, b, c, as, bs, in.mul == MulMode::Hi);
      wr(w, fr, in.dst[0], l, d, Type::U32);
    });
    return;
  }
  case Op::Fns:
    lanes([&](unsigned l) {
      wr(w, fr, in.dst[0], l, warp_ops::fns(u32(0, l), u32(1, l), int32_t(u32(2, l))), Type::B32);
    });
    return;
  case Op::Vsimd: {
    const bool as = type_is_signed(in.type2), bs = type_is_signed(in.type3),
               ds = type_is_signed(in.type);
    lanes([&](unsigned l) {
      wr(w, fr, in.dst[0], l,
         warp_ops::video(in.video, in.vec, u32(0, l), u32(1, l), u32(2, l), as, bs, ds, in.sat,
                         in.video_add),
         Type::U32);
    });
    return;
  }
  case Op::Redux: {
    // Every lane reduces over the executing lanes of its membermask (a lane outside it is
    // undefined in the ISA; it gets the reduction over its mask's executing lanes).
    std::array<uint32_t, kWarpLanes> v{};
    lanes([&](unsigned l) { v[l] = u32(0, l); });
    const bool sg = type_is_signed(in.type);
    lanes([&](unsigned l) {
      const uint32_t members = u32(1, l) & exec;
      bool first = true;
      uint32_t r = 0;
      for (unsigned m = 0; m < kWarpLanes; ++m) {
        if (!((members >> m) & 1)) continue;
        r = first ? v[m] : warp_ops::redux_combine(in.atom, sg, r, v[m]);
        first = false;
      }
      wr(w, fr, in.dst[0], l, r, Type::U32);
    });
    return;
  }
  case Op::Elect: {
    // The leader is the lowest executing lane of the membermask (deterministic, as the ISA
    // requires; which lane it is the ISA leaves open).
    lanes([&](unsigned l) {
      const uint32_t members = u32(0, l) & exec;
      const unsigned leader = members ? unsigned(__builtin_ctz(members)) : l;
      wr(w, fr, in.dst[0], l, leader, Type::U32);
      if (in.dst.size() > 1) wr(w, fr, in.dst[1], l, leader == l ? 1 : 0, Type::Pred);
    });
    return;
  }
  default:
    return;
  }
}

// =============================================================================================
// ALU instructions
// =============================================================================================
namespace {

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, PrmtMode m) {
  uint64_t src = uint64_t(a) | (uint64_t(b) << 32);
  auto byte = [&](unsigned i) { return uint32_t((src >> (8 * (i & 7))) & 0xff); };
  uint32_t r = 0;
  if (m == PrmtMode::Default) {
    for (unsigned i = 0; i < 4; ++i) {
      unsigned sel = (c >> (4 * i)) & 0xf;
      uint32_t v = byte(sel & 7);
      if (sel & 8) v = (v & 0x80) ? 0xff : 0;
      r |= v << (8 * i);
    }
    return r;
  }
  static const uint8_t tab[6][4][4] = {
      // f4e
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
      // b4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
      // rc8
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
      // ecl
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
      // ecr
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
      // rc16
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
  };
  const uint8_t* sel = tab[unsigned(m) - 1][c & 3]; // sel[i] = source byte of result byte i
  for (unsigned i = 0; i < 4; ++i) r |= byte(sel[i]) << (8 * i);
  return r;
}

// A float comparison of setp (ordered, unordered, num/nan); -1 for an integer-only CmpOp.
int float_compare(CmpOp c, double a, double b) {
  const bool un = std::isnan(a) || std::isnan(b);
  switch (c) {
  case CmpOp::EQ:
    return !un && a == b;
  case CmpOp::NE:
    return !un && a != b;
  case CmpOp::LT:
    return !un && a < b;
  case CmpOp::LE:
    return !un && a <= b;
  case CmpOp::GT:
    return !un && a > b;
  case CmpOp::GE:
    return !un && a >= b;
  case CmpOp::EQU:
    return un || a == b;
  case CmpOp::NEU:
    return un || a != b;
  case CmpOp::LTU:
    return un || a < b;
  case CmpOp::LEU:
    return un || a <= b;
  case CmpOp::GTU:
    return un || a > b;
  case CmpOp::GEU:
    return un || a >= b;
  case CmpOp::NUM:
    return !un;
  case CmpOp::NaN:
    return un;
  default:
    return -1;
  }
}

// Float → integer conversion with PTX rounding and saturation (NaN → 0).
uint64_t f2i(double v, Round r, Type dt) {
  const unsigned bits = type_bits(dt);
  const bool s = type_is_signed(dt);
  if (std::isnan(v)) return 0;
  double x;
  switch (r) {
  case Round::RNI:
    x = std::nearbyint(v);
    break; // caller sets FE_TONEAREST
  case Round::RMI:
    x = std::floor(v);
    break;
  case Round::RPI:
    x = std::ceil(v);
    break;
  default:
    x = std::trunc(v);
    break;
  }
  if (s) {
    double lo = -std::ldexp(1.0, int(bits) - 1), hi = std::ldexp(1.0, int(bits) - 1);
    if (x < lo) return uint64_t(int64_t(lo)) & bitmask(bits);
    if (x >= hi) return (bitmask(bits) >> 1);
    return uint64_t(int64_t(x)) & bitmask(bits);
  }
  if (x <= 0) return 0;
  if (x >= std::ldexp(1.0, int(bits))) return bitmask(bits);
  return uint64_t(x) & bitmask(bits);
}

int clz64(uint64_t v, unsigned bits) {
  if (v == 0) return int(bits);
  return __builtin_clzll(v) - int(64 - bits);
}

} // namespace

void Kernel::Impl::exec_op(WarpState& w, Frame& fr, const Instr& in, uint32_t exec,
                           StepResult& out) {
  const Type t = in.type;
  if (in.op == Op::Set) return exec_set(w, fr, in, exec);
  if (in.op == Op::Cvt && in.fmt != CvtFormat::None) return exec_cvt_format(w, fr, in, exec);
  if ((type_is_half(t) || type_is_half(in.type2)) && half_arithmetic(in.op))
    return exec_half(w, fr, in, exec); // moves, selects, loads and stores of halves: bits
  // Sources resolved once per instruction, not per lane, as rows of 32 lanes of what rd()
  // returns as `t`: a plain register is its row; a negated predicate and a literal (rd()'s
  // value does not depend on the lane) a row computed here; any other operand (special
  // registers, symbols, vectors) is read per lane (rd).
  OpRows r;
  for (unsigned i = 0; i < kOpRows && i < in.src.size(); ++i) {
    const Operand& o = in.src[i];
    if (o.kind == Operand::Kind::Reg) {
      r.src[i] = &fr.regs[size_t(o.reg) * kWarpLanes];
      if (o.negate) {
        for (unsigned l = 0; l < kWarpLanes; ++l) r.own[i][l] = (r.src[i][l] ^ 1) & 1;
        r.src[i] = r.own[i];
      }
    } else if (o.kind == Operand::Kind::Imm) {
      std::fill_n(r.own[i], kWarpLanes, rd(w, fr, o, 0, t));
      r.src[i] = r.own[i];
    } else if (o.kind == Operand::Kind::Special &&
               (o.sreg == SReg::Tid || o.sreg == SReg::Ntid || o.sreg == SReg::Ctaid ||
                o.sreg == SReg::Nctaid || o.sreg == SReg::Laneid)) {
      // A thread's or CTA's index or size (what rd() returns for it; no clock, which may
      // change between reads): a row, computed for every lane.
      for (unsigned l = 0; l < kWarpLanes; ++l) r.own[i][l] = special(w, l, o);
      r.src[i] = r.own[i];
    }
  }
  // A register destination's row and width mask, looked up once rather than per lane.
  if (!in.dst.empty() && in.dst[0].kind == Operand::Kind::Reg) {
    r.dst = &fr.regs[size_t(in.dst[0].reg) * kWarpLanes];
    r.dmask = value_mask(fr.f->regs[in.dst[0].reg]);
  }
  // Every source a row and the destination a register (most instructions): the operations'
  // lane loops are compiled a second time reading and writing rows, without a test per lane
  // and operand.
  bool rows = r.dst && in.src.size() <= kOpRows;
  for (unsigned i = 0; rows && i < in.src.size(); ++i) rows = r.src[i] != nullptr;
  if (rows)
    exec_rows<true>(w, fr, in, exec, out, r);
  else
    exec_rows<false>(w, fr, in, exec, out, r);
}

template <bool kAllRows>
void Kernel::Impl::exec_rows(WarpState& w, Frame& fr, const Instr& in, uint32_t exec,
                             StepResult& out, const OpRows& r) {
  const Type t = in.type;
  const unsigned B = type_bits(t);
  const uint64_t M = bitmask(B);
  const bool S = type_is_signed(t);
  const uint64_t* const* srow = r.src;
  uint64_t* const drow = r.dst;
  const uint64_t dmask = r.dmask;
  constexpr bool rows = kAllRows;
  auto src = [&](unsigned i, unsigned l) -> uint64_t {
    if constexpr (kAllRows)
      return srow[i][l];
    else
      return i < kOpRows && srow[i] ? srow[i][l] : rd(w, fr, in.src[i], l, t);
  };
  auto srcT = [&](unsigned i, unsigned l, Type tt) { return rd(w, fr, in.src[i], l, tt); };
  auto dst = [&](unsigned l, uint64_t v) {
    if (kAllRows || drow)
      drow[l] = v & dmask;
    else
      wr(w, fr, in.dst[0], l, v, t);
  };
  // Every lane active (most instructions): the same lanes in the same order without a test
  // per lane, a loop the compiler can vectorise.
  auto lanes = [&](auto&& fn) {
    if (exec == ~0u) {
      for (unsigned l = 0; l < kWarpLanes; ++l) fn(l);
      return;
    }
    for (unsigned l = 0; l < kWarpLanes; ++l)
      if ((exec >> l) & 1) fn(l);
  };
  const bool f32 = t == Type::F32, f64 = t == Type::F64;
  const bool fz = in.ftz;
  auto A32 = [&](unsigned i, unsigned l) {
    float v = as_f32(src(i, l));
    return fz ? ftz(v) : v;
  };
  auto A64 = [&](unsigned i, unsigned l) { return as_f64(src(i, l)); };

  switch (in.op) {
  // ------------------------------------------------------------------ memory
  case Op::Ld:
  case Op::Ldu:
  case Op::St:
  case Op::Atom:
  case Op::Red:
    exec_mem(w, fr, in, exec, out);
    return;
  case Op::Tex:
  case Op::Tld4:
  case Op::Suld:
  case Op::Sust:
    exec_texture(w, fr, in, exec, out);
    return;
  case Op::Prefetch:
  case Op::Membar:
  case Op::Fence:
  case Op::Nanosleep:
  case Op::Griddepcontrol:
    return;
  case Op::CpAsync:
  case Op::CpAsyncCommit:
  case Op::CpAsyncWait:
    exec_async(w, fr, in, exec, out);
    return;
  case Op::Redux:
  case Op::Dp4a:
  case Op::Dp2a:
  case Op::Fns:
  case Op::Elect:
  case Op::Vsimd:
    exec_warp_op(w, fr, in, exec);
    return;
  case Op::Trap: // aborts the kernel (CUDA: cudaErrorLaunchFailure)
    if (exec) fail(w, __builtin_ctz(exec), "trap: the kernel aborted");
    return;
  case Op::Mma:
  case Op::Ldmatrix:
  case Op::Movmatrix:
  case Op::Wmma:
    exec_tensor(w, fr, in, exec, out);
    return;

  // ------------------------------------------------------------------ add / sub
  case Op::Add:
  case Op::Sub:
  case Op::Addc:
  case Op::Subc: {
    const bool sub = in.op == Op::Sub || in.op == Op::Subc;
    const bool cin = in.op == Op::Addc || in.op == Op::Subc;
    if (f32) {
      RoundScope rs(in.rnd);
      if (rows && !fz && !in.sat && !cin && !in.cc) { // a plain f32 sum on rows (no flush)
        const uint64_t *ra = srow[0], *rb = srow[1];
        if (sub)
          lanes([&](unsigned l) {
            drow[l] = res32(as_f32(ra[l]) - as_f32(rb[l]), false, false) & dmask;
          });
        else
          lanes([&](unsigned l) {
            drow[l] = res32(as_f32(ra[l]) + as_f32(rb[l]), false, false) & dmask;
          });
        return;
      }
      lanes([&](unsigned l) {
        float a = A32(0, l), b = A32(1, l);
        dst(l, res32(sub ? a - b : a + b, fz, in.sat));
      });
    } else if (f64) {
      RoundScope rs(in.rnd);
      lanes([&](unsigned l) {
        double a = A64(0, l), b = A64(1, l);
        dst(l, res64(sub ? a - b : a + b, in.sat));
      });
    } else if (rows && !cin && !in.sat && !in.cc) { // the common case: a plain wrapping sum
      const uint64_t *ra = srow[0], *rb = srow[1];
      const uint64_t m = M & dmask;
      if (sub)
        lanes([&](unsigned l) { drow[l] = ((ra[l] & M) - (rb[l] & M)) & m; });
      else
        lanes([&](unsigned l) { drow[l] = ((ra[l] & M) + (rb[l] & M)) & m; });
    } else {
      lanes([&](unsigned l) {
        uint64_t a = src(0, l) & M, b = src(1, l) & M;
        uint64_t c = cin ? ((w.carry >> l) & 1) : 0;
        uint64_t r;
        if (in.sat && S) {
          __int128 x = __int128(sext(a, B)) + (sub ? -__int128(sext(b, B)) : __int128(sext(b, B)));
          __int128 lo = -(__int128(1) << (B - 1)), hi = (__int128(1) << (B - 1)) - 1;
          x = x < lo ? lo : (x > hi ? hi : x);
          r = uint64_t(int64_t(x));
        } else if (!sub) {
          unsigned __int128 x = (unsigned __int128)a + b + c;
          r = uint64_t(x);
          if (in.cc) {
            bool co = ((x >> B) & 1) != 0;
            w.carry = (w.carry & ~(1u << l)) | (uint32_t(co) << l);
          }
        } else {
          // a + ~b + 1 (subc: + CF), as the hardware subtracts: CF is the carry out, 1 when
          // nothing was borrowed. A sub chain reads the same either way; an addc after a sub.cc
          // (nvcc's 128-bit division tests a remainder's sign so) or a subc after an add.cc
          // needs the hardware's flag, not a borrow (PTX's "a - (b + CC.CF)" reads CF as one).
          const uint64_t ci = cin ? c : 1;
          unsigned __int128 x = (unsigned __int128)a + (~b & M) + ci;
          r = uint64_t(x);
          if (in.cc) {
            bool co = ((x >> B) & 1) != 0;
            w.carry = (w.carry & ~(1u << l)) | (uint32_t(co) << l);
          }
        }
        dst(l, r & M);
      });
    }
    return;
  }
  // ------------------------------------------------------------------ mul / mad
  case Op::Mul:
  case Op::Mad:
  case Op::Madc:
  case Op::Fma: {
    const bool mad = in.op != Op::Mul;
    if (f32) {
      RoundScope rs(in.rnd);
      if (rows && !fz && !in.sat) { // f32 products and fused multiply-adds on rows (no flush)
        const uint64_t *ra = srow[0], *rb = srow[1], *rc = mad ? srow[2] : nullptr;
        if (mad)
          lanes([&](unsigned l) {
            drow[l] =
                res32(std::fma(as_f32(ra[l]), as_f32(rb[l]), as_f32(rc[l])), false, false) & dmask;
          });
        else
          lanes([&](unsigned l) {
            drow[l] = res32(as_f32(ra[l]) * as_f32(rb[l]), false, false) & dmask;
          });
        return;
      }
      lanes([&](unsigned l) {
        float a = A32(0, l), b = A32(1, l);
        float r = mad ? std::fma(a, b, A32(2, l)) : a * b;
        dst(l, res32(r, fz, in.sat));
      });
      return;
    }
    if (f64) {
      RoundScope rs(in.rnd);
      lanes([&](unsigned l) {
        double a = A64(0, l), b = A64(1, l);
        double r = mad ? std::fma(a, b, A64(2, l)) : a * b;
        dst(l, res64(r, in.sat));
      });
      return;
    }
    // The common integer cases on rows, as the general loop below computes them: the low half
    // (its B bits do not depend on the sign extension), plus a third source (mad), and a
    // wide product of at most 32-bit operands (exact in 64 bits).
    const bool lo = in.mul != MulMode::Hi && in.mul != MulMode::Wide;
    if (rows && (in.op == Op::Mul || in.op == Op::Mad) && !in.cc) {
      const uint64_t *ra = srow[0], *rb = srow[1];
      if (lo && in.op == Op::Mad) {
        const uint64_t* rc = srow[2];
        lanes(
            [&](unsigned l) { drow[l] = (((ra[l] & M) * (rb[l] & M) + (rc[l] & M)) & M) & dmask; });
        return;
      }
      if (lo) {
        lanes([&](unsigned l) { drow[l] = (((ra[l] & M) * (rb[l] & M)) & M) & dmask; });
        return;
      }
      if (in.mul == MulMode::Wide && in.op == Op::Mul && B <= 32) {
        const uint64_t m2 = bitmask(2 * B) & dmask;
        if (S && B == 32) // mul.wide.s32 (index arithmetic): sext of 32 bits is a cast
          lanes([&](unsigned l) {
            drow[l] =
                uint64_t(int64_t(int32_t(uint32_t(ra[l]))) * int64_t(int32_t(uint32_t(rb[l])))) &
                m2;
          });
        else if (S)
          lanes([&](unsigned l) {
            drow[l] = uint64_t(sext(ra[l] & M, B) * sext(rb[l] & M, B)) & m2;
          });
        else
          lanes([&](unsigned l) { drow[l] = ((ra[l] & M) * (rb[l] & M)) & m2; });
        return;
      }
    }
    const Type wt = in.mul == MulMode::Wide ? Type(unsigned(t) + 1) : t; // s32 → s64 etc.
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & M, b = src(1, l) & M;
      __int128 p;
      if (S)
        p = __int128(sext(a, B)) * __int128(sext(b, B));
      else
        p = __int128((unsigned __int128)a * b);
      uint64_t r;
      unsigned rb = B;
      if (in.mul == MulMode::Hi) {
        r = uint64_t((unsigned __int128)p >> B);
      } else if (in.mul == MulMode::Wide) {
        r = uint64_t((unsigned __int128)p);
        rb = 2 * B;
      } else {
        r = uint64_t((unsigned __int128)p);
      }
      r &= bitmask(rb);
      if (mad) {
        Type ct = in.mul == MulMode::Wide ? wt : t;
        uint64_t c = rd(w, fr, in.src[2], l, ct) & bitmask(rb);
        uint64_t cin = in.op == Op::Madc ? ((w.carry >> l) & 1) : 0;
        if (in.sat && S && in.mul == MulMode::Hi) {
          __int128 x = __int128(sext(r, rb)) + __int128(sext(c, rb));
          __int128 lo = -(__int128(1) << (rb - 1)), hi = (__int128(1) << (rb - 1)) - 1;
          x = x < lo ? lo : (x > hi ? hi : x);
          r = uint64_t(int64_t(x));
        } else {
          unsigned __int128 x = (unsigned __int128)r + c + cin;
          if (in.cc) {
            bool co = ((x >> rb) & 1) != 0;
            w.carry = (w.carry & ~(1u << l)) | (uint32_t(co) << l);
          }
          r = uint64_t(x);
        }
        r &= bitmask(rb);
      }
      wr(w, fr, in.dst[0], l, r, in.mul == MulMode::Wide ? wt : t);
    });
    return;
  }
  case Op::Mul24:
  case Op::Mad24: {
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & 0xffffff, b = src(1, l) & 0xffffff;
      int64_t p = S ? sext(a, 24) * sext(b, 24) : int64_t(a * b);
      uint64_t r = in.mul == MulMode::Hi ? (uint64_t(p) >> 16) : uint64_t(p);
      r &= 0xffffffffu;
      if (in.op == Op::Mad24) r = (r + src(2, l)) & 0xffffffffu;
      dst(l, r);
    });
    return;
  }
  // ------------------------------------------------------------------ div / rem
  case Op::Div: {
    if (f32) {
      RoundScope rs(in.rnd == Round::Approx || in.rnd == Round::Full ? Round::RN : in.rnd);
      lanes([&](unsigned l) {
        float a = A32(0, l), b = A32(1, l);
        float r = a / b;
        // div.approx is a * (1/b) with 1/b flushed: 0 for 2^126 < |b| < 2^128, NaN for an
        // infinite a (the ISA; CUDA's __fdividef documents the same). div.full scales instead.
        if (in.rnd == Round::Approx && std::fabs(b) > 0x1p126f && std::isfinite(b))
          r = std::isinf(a) ? NAN : a * 0.0f * (b < 0 ? -1.0f : 1.0f);
        dst(l, res32(r, fz, in.sat)); // subnormal results flushed by .ftz only (the ISA)
      });
    } else if (f64) {
      RoundScope rs(in.rnd);
      lanes([&](unsigned l) { dst(l, res64(A64(0, l) / A64(1, l), false)); });
    } else {
      lanes([&](unsigned l) {
        uint64_t a = src(0, l) & M, b = src(1, l) & M;
        uint64_t r;
        if (b == 0)
          r = M; // division by zero: all ones (machine-specific in PTX)
        else if (S) {
          int64_t x = sext(a, B), y = sext(b, B);
          if (y == -1)
            r = uint64_t(0) - uint64_t(x); // avoids INT_MIN/-1 overflow
          else
            r = uint64_t(x / y);
        } else {
          r = a / b;
        }
        dst(l, r & M);
      });
    }
    return;
  }
  case Op::Rem:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & M, b = src(1, l) & M;
      uint64_t r;
      if (b == 0)
        r = a; // remainder by zero: the dividend (machine-specific in PTX)
      else if (S) {
        int64_t x = sext(a, B), y = sext(b, B);
        r = y == -1 ? 0 : uint64_t(x % y);
      } else {
        r = a % b;
      }
      dst(l, r & M);
    });
    return;
  // ------------------------------------------------------------------ abs / neg / min / max
  case Op::Abs:
  case Op::Neg:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l);
      if (f32) {
        float x = as_f32(a);
        if (fz) x = ftz(x);
        uint64_t bitsv = f32_bits(x);
        dst(l, in.op == Op::Abs ? (bitsv & 0x7fffffffu) : (bitsv ^ 0x80000000u));
      } else if (f64) {
        dst(l, in.op == Op::Abs ? (a & ~(1ull << 63)) : (a ^ (1ull << 63)));
      } else {
        int64_t x = sext(a, B);
        uint64_t r = in.op == Op::Neg ? uint64_t(0) - uint64_t(x)
                                      : (x < 0 ? uint64_t(0) - uint64_t(x) : uint64_t(x));
        dst(l, r & M);
      }
    });
    return;
  case Op::Min:
  case Op::Max: {
    const bool mn = in.op == Op::Min;
    if (rows && !f32 && !f64 && S && B == 32) { // min/max.s32 on rows: sext of 32 bits a cast
      const uint64_t *ra = srow[0], *rb = srow[1];
      lanes([&](unsigned l) {
        const uint64_t a = ra[l] & M, b = rb[l] & M;
        const bool lt = int32_t(uint32_t(a)) < int32_t(uint32_t(b));
        const uint64_t d = mn ? (lt ? a : b) : (lt ? b : a);
        drow[l] = (in.relu && int32_t(uint32_t(d)) < 0 ? 0 : d) & dmask; // .relu (sm_90)
      });
      return;
    }
    lanes([&](unsigned l) {
      if (f32 || f64) {
        double a = f32 ? double(A32(0, l)) : A64(0, l), b = f32 ? double(A32(1, l)) : A64(1, l);
        double r;
        if (std::isnan(a) && std::isnan(b))
          r = NAN;
        else if (std::isnan(a))
          r = b;
        else if (std::isnan(b))
          r = a;
        else if (a == b)
          r = (std::signbit(a) == mn) ? a : b; // -0 < +0
        else
          r = mn ? std::min(a, b) : std::max(a, b);
        dst(l, f32 ? res32(float(r), fz, false) : res64(r, false));
      } else {
        uint64_t a = src(0, l) & M, b = src(1, l) & M;
        bool lt = S ? sext(a, B) < sext(b, B) : a < b;
        const uint64_t d = mn ? (lt ? a : b) : (lt ? b : a);
        dst(l, in.relu && sext(d, B) < 0 ? 0 : d); // .relu: min/max.s32 only (the parser)
      }
    });
    return;
  }
  // ------------------------------------------------------------------ bit ops
  case Op::Popc:
    lanes([&](unsigned l) {
      wr(w, fr, in.dst[0], l, uint64_t(__builtin_popcountll(src(0, l) & M)), Type::U32);
    });
    return;
  case Op::Clz:
    lanes(
        [&](unsigned l) { wr(w, fr, in.dst[0], l, uint64_t(clz64(src(0, l) & M, B)), Type::U32); });
    return;
  case Op::Brev:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & M, r = 0;
      for (unsigned i = 0; i < B; ++i)
        if ((a >> i) & 1) r |= 1ull << (B - 1 - i);
      dst(l, r);
    });
    return;
  case Op::Bfind:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & M;
      if (S && sext(a, B) < 0) a = ~a & M;
      uint64_t r;
      if (a == 0)
        r = 0xffffffffu;
      else {
        unsigned msb = 63 - unsigned(__builtin_clzll(a));
        r = in.shiftamt ? (B - 1 - msb) : msb;
      }
      wr(w, fr, in.dst[0], l, r, Type::U32);
    });
    return;
  case Op::Bfe:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & M;
      unsigned pos = unsigned(srcT(1, l, Type::U32) & 0xff),
               len = unsigned(srcT(2, l, Type::U32) & 0xff);
      unsigned msb = B - 1;
      uint64_t sbit = 0;
      if (S && len != 0) sbit = (a >> std::min(pos + len - 1, msb)) & 1;
      uint64_t r = 0;
      for (unsigned i = 0; i <= msb; ++i) {
        uint64_t bit = (i < len && pos + i <= msb) ? ((a >> (pos + i)) & 1) : sbit;
        r |= bit << i;
      }
      dst(l, r);
    });
    return;
  case Op::Bfi:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & M, r = src(1, l) & M;
      unsigned pos = unsigned(srcT(2, l, Type::U32) & 0xff),
               len = unsigned(srcT(3, l, Type::U32) & 0xff);
      for (unsigned i = 0; i < len && pos + i <= B - 1; ++i)
        r = (r & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
      dst(l, r);
    });
    return;
  case Op::Prmt:
    lanes([&](unsigned l) {
      dst(l, prmt(uint32_t(src(0, l)), uint32_t(src(1, l)), uint32_t(src(2, l)), in.prmt));
    });
    return;
  case Op::Shf:
    lanes([&](unsigned l) {
      uint64_t ab = (src(0, l) & 0xffffffffu) | ((src(1, l) & 0xffffffffu) << 32);
      uint32_t c = uint32_t(srcT(2, l, Type::U32));
      unsigned n = in.shf_clamp ? std::min(c, 32u) : (c & 31);
      uint64_t r = in.shf_right ? (ab >> n) & 0xffffffffu : ((ab << n) >> 32) & 0xffffffffu;
      dst(l, r);
    });
    return;
  case Op::Bmsk: // the PTX ISA's semantics, step by step
    lanes([&](unsigned l) {
      const uint32_t a = uint32_t(src(0, l)), b = uint32_t(src(1, l));
      const uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
      uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
      bool overflow = sum >= 32;
      if (in.shf_clamp && a >= 32) overflow = true, mask0 = 0;
      if (in.shf_clamp && b >= 32) overflow = true;
      if (overflow)
        mask1 = 0;
      else if (b1 == 0)
        mask1 = ~0u;
      dst(l, mask0 & ~mask1);
    });
    return;
  case Op::Sad:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & M, b = src(1, l) & M;
      bool lt = S ? sext(a, B) < sext(b, B) : a < b;
      dst(l, ((lt ? b - a : a - b) + src(2, l)) & M);
    });
    return;
  case Op::Lop3:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l), b = src(1, l), c = src(2, l);
      unsigned lut = unsigned(srcT(3, l, Type::U32) & 0xff);
      uint64_t r = 0;
      for (unsigned i = 0; i < 8; ++i)
        if ((lut >> i) & 1) {
          uint64_t ta = (i & 4) ? a : ~a, tb = (i & 2) ? b : ~b, tc = (i & 1) ? c : ~c;
          r |= ta & tb & tc;
        }
      dst(l, r & M);
    });
    return;
  case Op::And:
  case Op::Or:
  case Op::Xor:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l), b = src(1, l);
      uint64_t r = in.op == Op::And ? a & b : in.op == Op::Or ? a | b : a ^ b;
      dst(l, t == Type::Pred ? r & 1 : r & M);
    });
    return;
  case Op::Not:
    lanes([&](unsigned l) { dst(l, t == Type::Pred ? (~src(0, l)) & 1 : (~src(0, l)) & M); });
    return;
  case Op::Cnot:
    lanes([&](unsigned l) { dst(l, (src(0, l) & M) == 0 ? 1 : 0); });
    return;
  case Op::Shl:
  case Op::Shr:
    if (rows && in.op == Op::Shl && !type_is_float(t)) { // srcT(1, l, U32) is the row's value
      const uint64_t *ra = srow[0], *rb = srow[1];
      lanes([&](unsigned l) {
        const uint64_t a = ra[l] & M, sh = rb[l] & 0xffffffffu;
        drow[l] = ((sh >= B ? 0 : (a << sh)) & M) & dmask;
      });
      return;
    }
    lanes([&](unsigned l) {
      uint64_t a = src(0, l) & M;
      uint64_t sh = srcT(1, l, Type::U32) & 0xffffffffu;
      uint64_t r;
      if (in.op == Op::Shl) {
        r = sh >= B ? 0 : (a << sh);
      } else if (S) {
        int64_t x = sext(a, B);
        r = uint64_t(sh >= B ? (x < 0 ? -1 : 0) : (x >> sh));
      } else {
        r = sh >= B ? 0 : (a >> sh);
      }
      dst(l, r & M);
    });
    return;
  // ------------------------------------------------------------------ float special
  case Op::Rcp:
  case Op::Sqrt:
  case Op::Rsqrt:
  case Op::Ex2:
  case Op::Lg2:
  case Op::Sin:
  case Op::Cos:
  case Op::Tanh: {
    const bool approx = in.rnd == Round::Approx;
    RoundScope rs(approx ? Round::RN : in.rnd);
    lanes([&](unsigned l) {
      if (f32) {
        float a = A32(0, l); // .ftz flushes; without it subnormal inputs and results stay,
        float r;             // the approximate forms' too (the ISA, sm_20+)
        switch (in.op) {
        case Op::Rcp:
          r = 1.0f / a;
          break;
        case Op::Sqrt:
          r = std::sqrt(a);
          break;
        case Op::Rsqrt:
          r = float(1.0 / std::sqrt(double(a)));
          break;
        case Op::Ex2:
          r = float(std::exp2(double(a)));
          break;
        case Op::Lg2:
          r = float(std::log2(double(a)));
          break;
        case Op::Sin:
          r = float(std::sin(double(a)));
          break;
        case Op::Tanh: // the ISA's tanh.approx.f32 keeps subnormal results
          r = float(std::tanh(double(a)));
          break;
        default:
          r = float(std::cos(double(a)));
          break;
        }
        dst(l, res32(r, fz, false));
      } else {
        double a = A64(0, l);
        // rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64 (the seeds of CUDA's double math): the
        // ISA's gross approximation reads a's upper word only and zeroes d's lower word.
        const uint64_t keep = fz ? 0xffffffff00000000ull : ~0ull;
        if (fz) {
          a = as_f64(f64_bits(a) & keep);
          if (std::fpclassify(a) == FP_SUBNORMAL) a = std::copysign(0.0, a);
        }
        double r;
        switch (in.op) {
        case Op::Rcp:
          r = 1.0 / a;
          break;
        case Op::Sqrt:
          r = std::sqrt(a);
          break;
        case Op::Rsqrt:
          r = 1.0 / std::sqrt(a);
          break;
        case Op::Ex2:
          r = std::exp2(a);
          break;
        case Op::Lg2:
          r = std::log2(a);
          break;
        case Op::Sin:
          r = std::sin(a);
          break;
        default:
          r = std::cos(a);
          break;
        }
        dst(l, res64(r, false) & keep);
      }
    });
    return;
  }
  case Op::Copysign:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l), b = src(1, l);
      uint64_t sb = f32 ? 0x80000000ull : (1ull << 63);
      dst(l, (b & ~sb) | (a & sb)); // copysign.type d, a, b: d = b with a's sign
    });
    return;
  case Op::Testp:
    lanes([&](unsigned l) {
      double v = f32 ? double(as_f32(src(0, l))) : as_f64(src(0, l));
      int cls = f32 ? std::fpclassify(as_f32(src(0, l))) : std::fpclassify(v);
      bool r = false;
      switch (in.testp) {
      case TestpMode::Finite:
        r = std::isfinite(v);
        break;
      case TestpMode::Infinite:
        r = std::isinf(v);
        break;
      case TestpMode::Number:
        r = !std::isnan(v);
        break;
      case TestpMode::NotANumber:
        r = std::isnan(v);
        break;
      case TestpMode::Normal:
        r = cls == FP_NORMAL;
        break;
      case TestpMode::Subnormal:
        r = cls == FP_SUBNORMAL;
        break;
      default:
        break;
      }
      wr(w, fr, in.dst[0], l, r, Type::Pred);
    });
    return;
  // isspacep: the generic windows (engine.h); const space is identity-mapped onto global, so
  // .const is an address inside a module .const variable and .global any other address.
  case Op::Isspacep:
    lanes([&](unsigned l) {
      const uint64_t a = srcT(0, l, Type::U64);
      auto in_window = [&](uint64_t base) { return a >= base && a < base + kWindowSize; };
      bool in_const = false;
      for (size_t i = 0; i < mod.vars.size() && !in_const; ++i)
        in_const = mod.vars[i].space == Space::Const && a >= var_addr[i] &&
                   a < var_addr[i] + mod.vars[i].size;
      const bool shared = in_window(kSharedWindow), local = in_window(kLocalWindow),
                 param = in_window(kParamWindow);
      const bool r = in.space == Space::Shared  ? shared
                     : in.space == Space::Local ? local
                     : in.space == Space::Param ? param
                     : in.space == Space::Const ? in_const
                                                : !shared && !local && !param && !in_const;
      wr(w, fr, in.dst[0], l, r, Type::Pred);
    });
    return;
  // ------------------------------------------------------------------ compare / select
  case Op::Setp:
    if (rows && !f32 && !f64 && in.bop == BoolOp::None && in.dst.size() == 1) {
      // An integer comparison into one predicate, on rows: the comparison picked once per
      // instruction, not per lane (the general loop below computes the same).
      const uint64_t *ra = srow[0], *rb = srow[1];
      auto each = [&](auto&& cmp) {
        lanes([&](unsigned l) { drow[l] = uint64_t(cmp(ra[l] & M, rb[l] & M)) & dmask; });
      };
      auto sgn = [&](auto&& cmp) {
        if (B == 32) // the operands are masked to 32 bits: their sign extension is a cast
          each([&](uint64_t a, uint64_t b) {
            return cmp(int64_t(int32_t(uint32_t(a))), int64_t(int32_t(uint32_t(b))));
          });
        else
          each([&](uint64_t a, uint64_t b) { return cmp(sext(a, B), sext(b, B)); });
      };
      switch (in.cmp) {
      case CmpOp::EQ:
        return each([](uint64_t a, uint64_t b) { return a == b; });
      case CmpOp::NE:
        return each([](uint64_t a, uint64_t b) { return a != b; });
      case CmpOp::LT:
        if (S) return sgn([](int64_t a, int64_t b) { return a < b; });
        [[fallthrough]];
      case CmpOp::LO:
        return each([](uint64_t a, uint64_t b) { return a < b; });
      case CmpOp::LE:
        if (S) return sgn([](int64_t a, int64_t b) { return a <= b; });
        [[fallthrough]];
      case CmpOp::LS:
        return each([](uint64_t a, uint64_t b) { return a <= b; });
      case CmpOp::GT:
        if (S) return sgn([](int64_t a, int64_t b) { return a > b; });
        [[fallthrough]];
      case CmpOp::HI:
        return each([](uint64_t a, uint64_t b) { return a > b; });
      case CmpOp::GE:
        if (S) return sgn([](int64_t a, int64_t b) { return a >= b; });
        [[fallthrough]];
      case CmpOp::HS:
        return each([](uint64_t a, uint64_t b) { return a >= b; });
      default:
        break; // an invalid comparison: the general loop reports it
      }
    }
    lanes([&](unsigned l) {
      bool r;
      if (f32 || f64) {
        double a = f32 ? double(A32(0, l)) : A64(0, l), b = f32 ? double(A32(1, l)) : A64(1, l);
        const int c = float_compare(in.cmp, a, b);
        if (c < 0) fail(w, int(l), "invalid float comparison");
        r = c;
      } else {
        uint64_t a = src(0, l) & M, b = src(1, l) & M;
        int64_t sa = sext(a, B), sb = sext(b, B);
        switch (in.cmp) {
        case CmpOp::EQ:
          r = a == b;
          break;
        case CmpOp::NE:
          r = a != b;
          break;
        case CmpOp::LT:
          r = S ? sa < sb : a < b;
          break;
        case CmpOp::LE:
          r = S ? sa <= sb : a <= b;
          break;
        case CmpOp::GT:
          r = S ? sa > sb : a > b;
          break;
        case CmpOp::GE:
          r = S ? sa >= sb : a >= b;
          break;
        case CmpOp::LO:
          r = a < b;
          break;
        case CmpOp::LS:
          r = a <= b;
          break;
        case CmpOp::HI:
          r = a > b;
          break;
        case CmpOp::HS:
          r = a >= b;
          break;
        default:
          fail(w, int(l), "invalid integer comparison");
        }
      }
      bool p = r, q = !r;
      if (in.bop != BoolOp::None) {
        bool c = rd(w, fr, in.src[2], l, Type::Pred) & 1;
        switch (in.bop) {
        case BoolOp::And:
          p = p && c;
          q = q && c;
          break;
        case BoolOp::Or:
          p = p || c;
          q = q || c;
          break;
        default:
          p = p != c;
          q = q != c;
          break;
        }
      }
      wr(w, fr, in.dst[0], l, p, Type::Pred);
      if (in.dst.size() > 1) wr(w, fr, in.dst[1], l, q, Type::Pred);
    });
    return;
  case Op::Selp:
    lanes([&](unsigned l) {
      bool c = rd(w, fr, in.src[2], l, Type::Pred) & 1;
      dst(l, c ? src(0, l) : src(1, l));
    });
    return;
  case Op::Slct:
    lanes([&](unsigned l) {
      uint64_t c = srcT(2, l, in.type2);
      bool ge;
      if (in.type2 == Type::F32) {
        float x = as_f32(c);
        if (fz) x = ftz(x);
        ge = x >= 0.0f;
      } else {
        ge = sext(c, 32) >= 0;
      }
      dst(l, ge ? src(0, l) : src(1, l));
    });
    return;
  // ------------------------------------------------------------------ moves / conversions
  case Op::Mov:
    if (rows) { // a register or literal into a register: the row, masked as dst() masks it
      const uint64_t* ra = srow[0];
      const uint64_t m = (t == Type::Pred ? 1 : ~0ull) & dmask;
      lanes([&](unsigned l) { drow[l] = ra[l] & m; });
      return;
    }
    lanes([&](unsigned l) {
      const Operand& d = in.dst[0];
      const Operand& s = in.src[0];
      if (d.kind == Operand::Kind::Vector) { // unpack
        wr(w, fr, d, l, rd(w, fr, s, l, t), t);
      } else {
        uint64_t v = src(0, l); // rd(w, fr, s, l, t), from its row where it has one
        dst(l, t == Type::Pred ? v & 1 : v);
      }
    });
    return;
  case Op::Cvta:
    lanes([&](unsigned l) {
      uint64_t a = src(0, l);
      uint64_t base = in.space == Space::Shared  ? kSharedWindow
                      : in.space == Space::Local ? kLocalWindow
                      : in.space == Space::Param ? kParamWindow
                                                 : 0;
      uint64_t r = a;
      if (in.cvta_to) {
        if (base && a >= base && a < base + kWindowSize)
          r = a - base;
        else if (base && a != 0) // a generic null converts to 0
          fail(w, int(l),
               std::string("cvta.to.") + space_name(in.space) + ": generic address " + hex(a) +
                   " is not in the " + space_name(in.space) + " window");
      } else if (base) {
        r = (a & 0xffffffffu) + base;
      }
      dst(l, r & M);
    });
    return;
  case Op::Cvt: {
    const Type st = in.type2;
    const unsigned SB = type_bits(st);
    const bool sf = type_is_float(st), df = type_is_float(t);
    const Round r = in.rnd;
    RoundScope rs(df ? r : (r == Round::RNI ? Round::RN : Round::None));
    lanes([&](unsigned l) {
      uint64_t a = srcT(0, l, st);
      if (!sf && !df) { // int → int
        uint64_t v = type_is_signed(st) ? uint64_t(sext(a, SB)) : (a & bitmask(SB));
        if (in.sat) {
          if (S) {
            __int128 x = type_is_signed(st) ? __int128(int64_t(v)) : __int128(v);
            __int128 lo = -(__int128(1) << (B - 1)), hi = (__int128(1) << (B - 1)) - 1;
            x = x < lo ? lo : (x > hi ? hi : x);
            v = uint64_t(int64_t(x));
          } else {
            if (type_is_signed(st) && int64_t(v) < 0)
              v = 0;
            else if (B < 64 && v > M)
              v = M;
          }
        }
        uint64_t res = v & M;
        if (S) res = uint64_t(sext(res, B));
        dst(l, res);
        return;
      }
      if (sf && !df) { // float → int
        double x = st == Type::F32 ? double(fz ? ftz(as_f32(a)) : as_f32(a)) : as_f64(a);
        uint64_t v = f2i(x, r, t);
        if (S) v = uint64_t(sext(v, B));
        dst(l, v);
        return;
      }
      if (!sf && df) { // int → float
        bool neg = type_is_signed(st) && sext(a, SB) < 0;
        uint64_t mag = type_is_signed(st) ? uint64_t(sext(a, SB)) : (a & bitmask(SB));
        if (t == Type::F32) {
          float fv = neg ? float(int64_t(mag)) : float(mag);
          dst(l, res32(fv, fz, in.sat));
        } else {
          double dv = neg ? double(int64_t(mag)) : double(mag);
          dst(l, res64(dv, in.sat));
        }
        return;
      }
      // float → float
      if (t == Type::F32 && st == Type::F32) {
        float x = fz ? ftz(as_f32(a)) : as_f32(a);
        if (r == Round::RNI || r == Round::RZI || r == Round::RMI || r == Round::RPI) {
          x = r == Round::RNI   ? std::nearbyint(x)
              : r == Round::RZI ? std::trunc(x)
              : r == Round::RMI ? std::floor(x)
                                : std::ceil(x);
        }
        dst(l, std::isnan(x) ? (in.sat ? 0 : kNaN32) : res32(x, fz, in.sat));
      } else if (t == Type::F64 && st == Type::F64) {
        double x = as_f64(a);
        if (r == Round::RNI || r == Round::RZI || r == Round::RMI || r == Round::RPI) {
          x = r == Round::RNI   ? std::nearbyint(x)
              : r == Round::RZI ? std::trunc(x)
              : r == Round::RMI ? std::floor(x)
                                : std::ceil(x);
        }
        dst(l, res64(x, in.sat));
      } else if (t == Type::F64) { // f32 → f64 (exact)
        float x = fz ? ftz(as_f32(a)) : as_f32(a);
        dst(l, res64(double(x), in.sat));
      } else { // f64 → f32 (rounded in the current mode)
        double x = as_f64(a);
        float y = float(x);
        dst(l, res32(y, fz, in.sat));
      }
    });
    return;
  }
  // ------------------------------------------------------------------ warp-level
  case Op::Activemask:
    lanes([&](unsigned l) { dst(l, exec); });
    return;
  case Op::Vote: {
    uint32_t ballot = 0;
    lanes([&](unsigned l) {
      if (rd(w, fr, in.src[0], l, Type::Pred) & 1) ballot |= 1u << l;
    });
    lanes([&](unsigned l) {
      uint32_t members = uint32_t(srcT(1, l, Type::U32)) & exec;
      uint32_t b = ballot & members;
      uint64_t r;
      switch (in.vote) {
      case VoteMode::Ballot:
        r = b;
        break;
      case VoteMode::All:
        r = b == members;
        break;
      case VoteMode::Any:
        r = b != 0;
        break;
      default:
        r = b == 0 || b == members;
        break;
      }
      dst(l, r);
    });
    return;
  }
  case Op::Shfl: {
    // read all sources first (d may alias a)
    std::array<uint64_t, kWarpLanes> av{};
    for (unsigned l = 0; l < kWarpLanes; ++l) av[l] = rd(w, fr, in.src[0], l, t);
    lanes([&](unsigned l) {
      const warp_ops::ShflSource s = warp_ops::shfl_source(
          in.shfl, l, uint32_t(srcT(1, l, Type::U32)), uint32_t(srcT(2, l, Type::U32)));
      dst(l, av[s.lane]);
      if (in.dst.size() > 1) wr(w, fr, in.dst[1], l, s.in_range, Type::Pred);
    });
    return;
  }
  case Op::Match: {
    std::array<uint64_t, kWarpLanes> av{};
    lanes([&](unsigned l) { av[l] = src(0, l) & M; });
    lanes([&](unsigned l) {
      uint32_t members = uint32_t(srcT(1, l, Type::U32)) & exec;
      uint32_t same = 0;
      for (unsigned j = 0; j < kWarpLanes; ++j)
        if (((members >> j) & 1) && av[j] == av[l]) same |= 1u << j;
      if (in.match == MatchMode::Any) {
        wr(w, fr, in.dst[0], l, same, Type::B32);
      } else {
        bool all = same == members;
        wr(w, fr, in.dst[0], l, all ? members : 0, Type::B32);
        if (in.dst.size() > 1) wr(w, fr, in.dst[1], l, all, Type::Pred);
      }
    });
    return;
  }
  default:
    break;
  }
  fail(w, -1, std::string("instruction '") + in.text + "' is not executable");
}

// =============================================================================================
// run_functional
// =============================================================================================
FunctionalStats run_functional(const Module& m, const std::string& entry, const LaunchConfig& cfg,
                               const std::vector<uint8_t>& params, GlobalMemory& mem) {
  Kernel k(m, entry, cfg, params, mem);
  FunctionalStats st;
  StepResult r;
  for (unsigned c = 0; c < k.num_ctas(); ++c) {
    unsigned cta = k.launch_cta(c);
    const std::vector<unsigned> ws = k.cta_warps(cta);
    for (;;) {
      bool progressed = false, all_done = true;
      for (unsigned w : ws) {
        // run each warp until it blocks or has done a slice of instructions
        for (unsigned n = 0; n < 64; ++n) {
          Peek p = k.peek(w);
          if (p.state != Peek::State::Ready) break;
          k.step(w, r);
          progressed = true;
          st.thread_instructions += unsigned(__builtin_popcount(r.exec_mask));
        }
        if (k.peek(w).state != Peek::State::Finished) all_done = false;
      }
      if (all_done) break;
      if (!progressed)
        throw RuntimeError("kernel '" + entry + "': no warp of CTA " + std::to_string(c) +
                           " can make progress (barrier deadlock)");
    }
    k.release_cta(cta);
    ++st.ctas;
  }
  st.warp_instructions = k.instructions_executed();
  return st;
}

// f16/bf16 arithmetic, comparisons and conversions (half.h: each result the exact one rounded
// once). An x2 operand is two independent values, the low half first; setp.x2 writes the low
// half's comparison to p and the high half's to q (the ISA's pseudo-code).
// set (PTX ISA "set", and the half-precision "set"): the comparison of a and b as stype
// (combined with predicate c by .and/.or/.xor), written as dtype: an integer dtype all ones
// or 0, .f32 1.0 or 0.0, .f16/.bf16 their 1.0 or 0.0. An .f16x2/.bf16x2 stype compares each
// half: a half dtype gets 1.0 or 0.0 per half, .u32/.s32 0xffff or 0 per half.
void Kernel::Impl::exec_set(WarpState& w, Frame& fr, const Instr& in, uint32_t exec) {
  namespace H = half;
  const Type dt = in.type, st = in.type2;
  const bool pair = st == Type::F16X2 || st == Type::BF16X2;
  const H::Format sf = st == Type::BF16 || st == Type::BF16X2 ? H::kBF16 : H::kF16;
  const unsigned bits = type_bits(st);
  const uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  auto one = [&](bool r) -> uint64_t { // the value of a true or false element of dt
    if (!r) return 0;
    switch (dt) {
    case Type::F32:
      return 0x3f800000u;
    case Type::F16:
    case Type::F16X2:
      return 0x3c00u;
    case Type::BF16:
    case Type::BF16X2:
      return 0x3f80u;
    default: // .u16/.s16, and .u32/.s32 per half of a pair
      return pair || type_bits(dt) == 16 ? 0xffffu : 0xffffffffu;
    }
  };
  for (unsigned l = 0; l < kWarpLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    const uint64_t a = rd(w, fr, in.src[0], l, st), b = rd(w, fr, in.src[1], l, st);
    const bool c = in.bop != BoolOp::None && (rd(w, fr, in.src[2], l, Type::Pred) & 1);
    uint64_t d = 0;
    for (unsigned k = 0; k < (pair ? 2u : 1u); ++k) {
      int r;
      if (type_is_half(st)) {
        auto h = [&](uint64_t v) {
          const uint16_t x = uint16_t(v >> (16 * k));
          return H::to_double(in.ftz ? H::flush(x, sf) : x, sf);
        };
        r = float_compare(in.cmp, h(a), h(b));
      } else if (st == Type::F32) {
        auto f = [&](uint64_t v) { return double(in.ftz ? ftz(as_f32(v)) : as_f32(v)); };
        r = float_compare(in.cmp, f(a), f(b));
      } else if (st == Type::F64) {
        r = float_compare(in.cmp, as_f64(a), as_f64(b));
      } else {
        const uint64_t ua = a & mask, ub = b & mask;
        const int64_t sa = sext(ua, bits), sb = sext(ub, bits);
        const bool s = type_is_signed(st);
        switch (in.cmp) {
        case CmpOp::EQ:
          r = ua == ub;
          break;
        case CmpOp::NE:
          r = ua != ub;
          break;
        case CmpOp::LT:
          r = s ? sa < sb : ua < ub;
          break;
        case CmpOp::LE:
          r = s ? sa <= sb : ua <= ub;
          break;
        case CmpOp::GT:
          r = s ? sa > sb : ua > ub;
          break;
        case CmpOp::GE:
          r = s ? sa >= sb : ua >= ub;
          break;
        case CmpOp::LO:
          r = ua < ub;
          break;
        case CmpOp::LS:
          r = ua <= ub;
          break;
        case CmpOp::HI:
          r = ua > ub;
          break;
        case CmpOp::HS:
          r = ua >= ub;
          break;
        default:
          r = -1;
        }
      }
      if (r < 0) fail(w, int(l), "'" + in.text + "': comparison not defined for its type");
      bool x = r;
      if (in.bop != BoolOp::None)
        x = in.bop == BoolOp::And ? x && c : in.bop == BoolOp::Or ? x || c : x != c;
      d |= one(x) << (16 * k);
    }
    wr(w, fr, in.dst[0], l, d, dt);
  }
}

// cvt to tf32, to a pair of fp8 values (from two f32, the first into the high byte, or from
// an f16x2) and from one to an f16x2 (half.h: to_tf32, to_fp8, from_fp8; the parser admits the
// forms check_cvt_format names).
void Kernel::Impl::exec_cvt_format(WarpState& w, Frame& fr, const Instr& in, uint32_t exec) {
  namespace H = half;
  const H::Fp8 f8 = in.fmt == CvtFormat::E5M2x2 ? H::kE5M2 : H::kE4M3;
  for (unsigned l = 0; l < kWarpLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    uint64_t r;
    if (in.fmt == CvtFormat::Tf32) {
      r = H::to_tf32(uint32_t(rd(w, fr, in.src[0], l, Type::F32)), in.rnd == Round::RNA,
                     in.rnd == Round::RZ, in.satfinite);
    } else if (in.type == Type::B16 && in.type2 == Type::F32) {
      const uint32_t hi = uint32_t(rd(w, fr, in.src[0], l, Type::F32)),
                     lo = uint32_t(rd(w, fr, in.src[1], l, Type::F32));
      r = uint64_t(H::to_fp8(as_f32(hi), f8, in.relu)) << 8 | H::to_fp8(as_f32(lo), f8, in.relu);
    } else if (in.type == Type::B16) { // from f16x2
      const uint32_t a = uint32_t(rd(w, fr, in.src[0], l, Type::F16X2));
      r = uint64_t(H::to_fp8(H::to_double(uint16_t(a >> 16), H::kF16), f8, in.relu)) << 8 |
          H::to_fp8(H::to_double(uint16_t(a), H::kF16), f8, in.relu);
    } else { // to f16x2, each value exact in f16
      const uint32_t a = uint32_t(rd(w, fr, in.src[0], l, Type::B16));
      auto one = [&](uint8_t x) {
        const uint16_t h = H::round(H::from_fp8(x, f8), H::kF16, H::Mode::RN);
        return in.relu ? H::relu(h, H::kF16) : h;
      };
      r = uint64_t(one(uint8_t(a >> 8))) << 16 | one(uint8_t(a));
    }
    wr(w, fr, in.dst[0], l, r, in.type);
  }
}

void Kernel::Impl::exec_half(WarpState& w, Frame& fr, const Instr& in, uint32_t exec) {
  namespace H = half;
  const Type t = in.type, st = in.type2;
  auto format = [](Type x) { return x == Type::BF16 || x == Type::BF16X2 ? H::kBF16 : H::kF16; };
  const bool pair = t == Type::F16X2 || t == Type::BF16X2;
  const H::Format f = format(t);
  const H::Mode mode = in.rnd == Round::RZ   ? H::Mode::RZ
                       : in.rnd == Round::RM ? H::Mode::RM
                       : in.rnd == Round::RP ? H::Mode::RP
                                             : H::Mode::RN;
  auto result = [&](uint16_t h, H::Format ff) { // the result modifiers
    if (in.sat) h = H::saturate(h, ff);
    if (in.relu) h = H::relu(h, ff);
    if (in.satfinite) h = H::satfinite(h, ff);
    return h;
  };
  for (unsigned l = 0; l < kWarpLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    // A source as bits of `tt`; a float literal is rounded to the half format.
    auto src = [&](unsigned i, Type tt) -> uint64_t {
      const Operand& o = in.src[i];
      if (o.kind == Operand::Kind::Imm && o.imm_kind != Operand::ImmKind::Int && type_is_half(tt)) {
        const double v = o.imm_kind == Operand::ImmKind::F32 ? as_f32(o.imm) : as_f64(o.imm);
        const uint64_t h = H::round(v, format(tt), H::Mode::RN);
        return tt == Type::F16X2 || tt == Type::BF16X2 ? h | h << 16 : h;
      }
      return rd(w, fr, o, l, tt);
    };
    auto half_of = [&](uint64_t v, unsigned k) {
      const uint16_t h = uint16_t(v >> (16 * k));
      return in.ftz ? H::flush(h, f) : h;
    };
    switch (in.op) {
    case Op::Setp: {
      const uint64_t a = src(0, t), b = src(1, t);
      bool r[2] = {false, false};
      for (unsigned k = 0; k < (pair ? 2u : 1u); ++k) {
        const int c =
            float_compare(in.cmp, H::to_double(half_of(a, k), f), H::to_double(half_of(b, k), f));
        if (c < 0) fail(w, int(l), "invalid float comparison");
        r[k] = c;
      }
      bool p = r[0], q = pair ? r[1] : !r[0];
      if (in.bop != BoolOp::None) {
        const bool c = rd(w, fr, in.src[2], l, Type::Pred) & 1;
        auto comb = [&](bool x) {
          return in.bop == BoolOp::And ? x && c : in.bop == BoolOp::Or ? x || c : x != c;
        };
        p = comb(p);
        q = comb(q);
      }
      wr(w, fr, in.dst[0], l, p, Type::Pred);
      if (in.dst.size() > 1) wr(w, fr, in.dst[1], l, q, Type::Pred);
      break;
    }
    case Op::Cvt: {
      if (type_is_half(t)) { // to f16/bf16 (x2: the first source into the high half)
        uint64_t r = 0;
        const unsigned n = unsigned(in.src.size());
        for (unsigned i = 0; i < n; ++i) {
          const uint64_t a = src(i, st);
          double hi = 0, lo = 0;
          if (type_is_half(st)) {
            hi = H::to_double(half_of(a, 0), format(st));
            if (in.rnd == Round::RNI || in.rnd == Round::RZI || in.rnd == Round::RMI ||
                in.rnd == Round::RPI) // round to an integral value (exact in the format)
              hi = in.rnd == Round::RNI   ? std::nearbyint(hi)
                   : in.rnd == Round::RZI ? std::trunc(hi)
                   : in.rnd == Round::RMI ? std::floor(hi)
                                          : std::ceil(hi);
          } else if (st == Type::F32) {
            const float x = as_f32(a);
            hi = in.ftz ? ftz(x) : x;
          } else if (st == Type::F64) {
            hi = as_f64(a);
          } else { // an integer: a long double holds any 64-bit one; split into two doubles
            const unsigned sb = type_bits(st);
            const long double v =
                type_is_signed(st) ? (long double)sext(a, sb) : (long double)(a & bitmask(sb));
            hi = double(v);
            lo = double(v - (long double)hi);
          }
          const uint16_t h = result(H::round(hi, lo, f, mode), f);
          r |= uint64_t(h) << (16 * (n - 1 - i));
        }
        wr(w, fr, in.dst[0], l, r, t);
        break;
      }
      // From f16/bf16 to f32, f64 (exact) or an integer.
      const double x = H::to_double(half_of(src(0, st), 0), format(st));
      uint64_t r;
      if (t == Type::F32)
        r = res32(float(x), false, in.sat);
      else if (t == Type::F64)
        r = res64(x, in.sat);
      else {
        RoundScope rs(Round::RN); // f2i's nearbyint
        r = f2i(x, in.rnd, t);
        if (type_is_signed(t)) r = uint64_t(sext(r, type_bits(t)));
      }
      wr(w, fr, in.dst[0], l, r, t);
      break;
    }
    default: { // add, sub, mul, fma, neg, abs, min, max
      const unsigned n = unsigned(in.src.size());
      const uint64_t a = src(0, t), b = n > 1 ? src(1, t) : 0, c = n > 2 ? src(2, t) : 0;
      uint64_t r = 0;
      for (unsigned k = 0; k < (pair ? 2u : 1u); ++k) {
        const uint16_t x = half_of(a, k), y = half_of(b, k);
        uint16_t h;
        switch (in.op) {
        case Op::Add:
          h = H::arith(H::Op::Add, x, y, f, mode);
          break;
        case Op::Sub:
          h = H::arith(H::Op::Sub, x, y, f, mode);
          break;
        case Op::Mul:
          h = H::arith(H::Op::Mul, x, y, f, mode);
          break;
        case Op::Fma:
          h = H::fma(x, y, half_of(c, k), f, mode);
          break;
        case Op::Neg:
          h = uint16_t(x ^ f.sign_bit());
          break;
        case Op::Abs:
          h = uint16_t(x & ~f.sign_bit());
          break;
        case Op::Tanh: // tanh.approx / ex2.approx on halves: correctly rounded, as the f32
        case Op::Ex2:  // forms are (within the ISA's error bounds); subnormals kept unless .ftz
        {
          const double v = H::to_double(x, f);
          h = H::round(in.op == Op::Tanh ? std::tanh(v) : std::exp2(v), f, H::Mode::RN);
          break;
        }
        default:
          h = H::min_max(in.op == Op::Max, x, y, f, in.nan);
          break;
        }
        if (in.ftz) h = H::flush(h, f);
        r |= uint64_t(result(h, f)) << (16 * k);
      }
      wr(w, fr, in.dst[0], l, r, t);
      break;
    }
    }
  }
}

} // namespace gpurf::ptx
