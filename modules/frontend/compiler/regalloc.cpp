#include "gpurf/modules/frontend/compiler/regalloc.h"

#include "gpurf/modules/frontend/compiler/mode_names.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gpurf::compiler {

unsigned reg_width(const ptx::VReg& r) {
  if (r.is_pred) return 0;
  return r.width_bits > 32 ? 2 : 1;
}

namespace {

struct Graph {
  std::vector<RegSet> adj;
  std::vector<bool> touched;
  std::vector<unsigned> first_def; // instruction index of the first write (or first touch)
};

Graph build_graph(const ptx::Function& f, const Liveness& lv) {
  const unsigned nr = unsigned(f.regs.size());
  Graph g;
  g.adj.assign(nr, RegSet(nr));
  g.touched.assign(nr, false);
  g.first_def.assign(nr, std::numeric_limits<unsigned>::max());
  auto same_class = [&](unsigned a, unsigned b) { return f.regs[a].is_pred == f.regs[b].is_pred; };
  auto edge = [&](unsigned a, unsigned b) {
    if (a == b || !same_class(a, b)) return;
    g.adj[a].set(b);
    g.adj[b].set(a);
  };
  for (unsigned i = 0; i < lv.ud.size(); ++i) {
    const UseDef& u = lv.ud[i];
    for (unsigned s : u.uses) {
      g.touched[s] = true;
      g.first_def[s] = std::min(g.first_def[s], i); // used before defined: order by first use
    }
    for (unsigned d : u.defs) {
      g.touched[d] = true;
      g.first_def[d] = std::min(g.first_def[d], i);
      lv.live_out[i].for_each([&](unsigned v) { edge(d, v); });
      for (unsigned d2 : u.defs) edge(d, d2);
    }
  }
  const std::vector<unsigned> entry = lv.entry_live_in.members();
  for (unsigned a : entry)
    for (unsigned b : entry) edge(a, b);
  return g;
}

// The lowest register (aligned pair for 64-bit) free of v's coloured neighbours.
unsigned pick(const ptx::Function& f, const Graph& g, unsigned v, const std::vector<int>& reg,
              std::vector<char>& busy) {
  const unsigned w = std::max(1u, reg_width(f.regs[v]));
  busy.assign(busy.size(), 0);
  g.adj[v].for_each([&](unsigned n) {
    if (reg[n] < 0) return;
    const unsigned nw = std::max(1u, reg_width(f.regs[n]));
    if (busy.size() < unsigned(reg[n]) + nw) busy.resize(unsigned(reg[n]) + nw, 0);
    for (unsigned k = 0; k < nw; ++k) busy[unsigned(reg[n]) + k] = 1;
  });
  unsigned r = 0;
  for (;; r += w) {
    bool ok = true;
    for (unsigned k = 0; k < w; ++k) ok &= r + k >= busy.size() || !busy[r + k];
    if (ok) return r;
  }
}

// Greedy colouring in `order`; returns the registers used.
unsigned colour(const ptx::Function& f, const Graph& g, const std::vector<unsigned>& order,
                std::vector<int>& reg) {
  reg.assign(f.regs.size(), -1);
  unsigned used = 0;
  std::vector<char> busy;
  for (unsigned v : order) {
    const unsigned r = pick(f, g, v, reg, busy);
    reg[v] = int(r);
    used = std::max(used, r + std::max(1u, reg_width(f.regs[v])));
  }
  return used;
}

// The first run of decimal digits in a register's name (%r12 -> 12, %rd3 -> 3), -1 if none.
int name_number(const std::string& name) {
  const size_t k = name.find_first_of("0123456789");
  if (k == std::string::npos) return -1;
  int n = 0;
  for (size_t i = k;
       i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && n < (1 << 20); ++i)
    n = n * 10 + (name[i] - '0');
  return n;
}

// GPGPU-Sim's PTX mode: nothing is ever reused, and the number its operand collector banks
// by is the first run of digits in the register's name (ptx_parser.cc add_identifier:
// symbol::set_regno(counter, name digits); shader.cc register_bank: (number + warp) % banks),
// so %r1, %rd1 and %f1 share a bank. gpurf gives every touched vreg its own storage and keeps
// that bank: a class (name prefix and width, in declaration order) starts on a multiple of 64
// and vreg NAME<d> of a 32-bit class sits at base + d, so register % banks = d % banks for any
// bank count dividing 64. A 64-bit vreg is a pair whose low half sits at base + d too; odd d
// go to a second plane P registers up (P a multiple of 64) so that the pairs never overlap
// (pairs are not even-aligned in this mode). Names without digits get numbers after the
// class's largest. A vreg no instruction touches takes no register.
RegAssignment allocate_ptx_virtual(const ptx::Function& f, const Liveness& lv) {
  const unsigned nr = unsigned(f.regs.size());
  RegAssignment a;
  a.reg.assign(nr, -1);
  a.width.assign(nr, 0);
  a.is_pred.assign(nr, false);
  a.aligned_pairs = false;
  a.order = "GPGPU-Sim PTX mode: register = class base + the number in its name";
  std::vector<bool> touched(nr, false);
  for (const UseDef& u : lv.ud) {
    for (unsigned s : u.uses) touched[s] = true;
    for (unsigned d : u.defs) touched[d] = true;
  }
  struct Class {
    std::string prefix;
    unsigned width = 1;
    std::vector<std::pair<unsigned, int>> members; // vreg, number in its name
  };
  std::vector<Class> classes;
  for (unsigned v = 0; v < nr; ++v) {
    a.is_pred[v] = f.regs[v].is_pred;
    if (!touched[v]) continue;
    a.width[v] = 1;
    if (f.regs[v].is_pred) { // predicates: their own file, declaration order
      a.reg[v] = int(a.num_preds++);
      continue;
    }
    const std::string& n = f.regs[v].name;
    const std::string prefix = n.substr(0, n.find_first_of("0123456789"));
    const unsigned w = reg_width(f.regs[v]);
    a.width[v] = uint8_t(w);
    auto c = std::find_if(classes.begin(), classes.end(),
                          [&](const Class& k) { return k.prefix == prefix && k.width == w; });
    if (c == classes.end()) c = classes.insert(classes.end(), Class{prefix, w, {}});
    c->members.push_back({v, name_number(n)});
  }
  unsigned cursor = 0;
  for (Class& c : classes) {
    int top = -1;
    for (auto& m : c.members) top = std::max(top, m.second);
    for (auto& m : c.members)
      if (m.second < 0) m.second = ++top;
    const unsigned base = ptx_virtual_start(cursor), span = unsigned(top) + 1;
    const unsigned plane = c.width == 2 ? ptx_virtual_start(span + 1) : 0;
    for (const auto& [v, d] : c.members)
      a.reg[v] = int(base + unsigned(d) + (c.width == 2 && (d & 1) ? plane : 0));
    cursor = base + plane + span + (c.width == 2 ? 1 : 0);
  }
  a.num_regs = cursor;
  return a;
}

// Registers of vreg v placed at r: bit mask of the banks its halves sit in.
unsigned bank_mask(unsigned r, unsigned w, unsigned banks) {
  unsigned m = 0;
  for (unsigned k = 0; k < w; ++k) m |= 1u << ((r + k) % banks);
  return m;
}

// Per data vreg: the other data vregs it is read together with, once per instruction.
std::vector<std::vector<unsigned>> co_sources(const ptx::Function& f, const Liveness& lv) {
  std::vector<std::vector<unsigned>> co(f.regs.size());
  for (const UseDef& u : lv.ud)
    for (unsigned x : u.uses)
      for (unsigned y : u.uses)
        if (x != y && !f.regs[x].is_pred && !f.regs[y].is_pred) co[x].push_back(y);
  return co;
}

// ptxas_like on top of a finished colouring `a` (widths and predicates): colour the data vregs
// in `order`, spreading them round-robin over `regs` registers, bank-aware (`co`:
// co_sources()). Returns false when the greedy spread does not fit in `regs`.
bool spread(const ptx::Function& f, const std::vector<std::vector<unsigned>>& co, const Graph& g,
            const std::vector<unsigned>& order, unsigned regs, unsigned banks, RegAssignment& a) {
  const unsigned nr = unsigned(f.regs.size());
  banks = std::max(1u, std::min(banks, 32u));
  std::vector<int> reg(nr, -1);
  std::vector<char> busy;
  unsigned next = 0;
  for (unsigned v : order) {
    const unsigned w = std::max(1u, reg_width(f.regs[v]));
    busy.assign(regs + 2, 0);
    g.adj[v].for_each([&](unsigned n) {
      if (reg[n] < 0 || f.regs[n].is_pred) return;
      for (unsigned k = 0; k < a.width[n]; ++k) busy[unsigned(reg[n]) + k] = 1;
    });
    unsigned best = regs, best_cost = 0, best_dist = 0;
    for (unsigned r = 0; r + w <= regs; r += w) {
      if (busy[r] || (w == 2 && busy[r + 1])) continue;
      unsigned cost = 0;
      const unsigned m = bank_mask(r, w, banks);
      for (unsigned u : co[v])
        if (reg[u] >= 0 && (m & bank_mask(unsigned(reg[u]), a.width[u], banks))) ++cost;
      const unsigned dist = (r + regs - next) % regs; // round-robin: the next one after `next`
      if (best == regs || cost < best_cost || (cost == best_cost && dist < best_dist))
        best = r, best_cost = cost, best_dist = dist;
    }
    if (best == regs) return false;
    reg[v] = int(best);
    next = (best + w) % regs;
  }
  for (unsigned v : order) a.reg[v] = reg[v];
  a.num_regs = order.empty() ? 0 : regs;
  return true;
}

} // namespace

unsigned same_bank_source_pairs(const ptx::Function& f, const Liveness& lv, const RegAssignment& a,
                                unsigned banks) {
  banks = std::max(1u, banks);
  unsigned pairs = 0;
  for (const UseDef& u : lv.ud) {
    std::vector<unsigned> regs;
    for (unsigned v : u.uses)
      if (!f.regs[v].is_pred && a.reg[v] >= 0)
        for (unsigned k = 0; k < a.width[v]; ++k) regs.push_back(unsigned(a.reg[v]) + k);
    for (size_t x = 0; x < regs.size(); ++x)
      for (size_t y = x + 1; y < regs.size(); ++y) pairs += regs[x] % banks == regs[y] % banks;
  }
  return pairs;
}

const std::vector<std::string>& regalloc_mode_names() {
  static const std::vector<std::string> names = {"linear_scan", "ptx_virtual", "ptxas_like"};
  return names;
}

RegAllocMode regalloc_mode(const std::string& name) {
  return mode_from_name<RegAllocMode>(regalloc_mode_names(), name, "register allocation mode");
}

std::vector<std::vector<unsigned>> interference(const ptx::Function& f, const Liveness& lv) {
  Graph g = build_graph(f, lv);
  std::vector<std::vector<unsigned>> out(f.regs.size());
  for (size_t v = 0; v < f.regs.size(); ++v) out[v] = g.adj[v].members();
  return out;
}

RegAssignment allocate_registers(const ptx::Function& f, const Liveness& lv,
                                 const AllocOptions& opt) {
  if (opt.mode == RegAllocMode::PtxVirtual) return allocate_ptx_virtual(f, lv);
  const unsigned nr = unsigned(f.regs.size());
  const Graph g = build_graph(f, lv);
  RegAssignment a;
  a.reg.assign(nr, -1);
  a.width.assign(nr, 0);
  a.is_pred.assign(nr, false);

  std::vector<unsigned> data, preds;
  for (unsigned v = 0; v < nr; ++v) {
    a.is_pred[v] = f.regs[v].is_pred;
    if (!g.touched[v]) continue;
    a.width[v] = uint8_t(std::max(1u, reg_width(f.regs[v])));
    (f.regs[v].is_pred ? preds : data).push_back(v);
  }
  auto by_def = [&](std::vector<unsigned> vs) {
    std::stable_sort(vs.begin(), vs.end(),
                     [&](unsigned x, unsigned y) { return g.first_def[x] < g.first_def[y]; });
    return vs;
  };

  // Candidate orders for the data registers.
  std::vector<std::pair<std::string, std::vector<unsigned>>> orders;
  orders.push_back({"definition order", by_def(data)});
  {
    std::vector<unsigned> o = by_def(data);
    std::stable_partition(o.begin(), o.end(),
                          [&](unsigned v) { return reg_width(f.regs[v]) == 2; });
    orders.push_back({"64-bit first", o});
  }
  { // Smallest-last: remove the vreg of least pair-weighted degree, colour in reverse.
    std::vector<unsigned> deg(nr, 0);
    std::vector<bool> gone(nr, true);
    for (unsigned v : data) gone[v] = false;
    for (unsigned v : data)
      g.adj[v].for_each([&](unsigned n) {
        if (!gone[n]) deg[v] += reg_width(f.regs[n]);
      });
    std::vector<unsigned> removed;
    for (size_t k = 0; k < data.size(); ++k) {
      unsigned best = nr;
      for (unsigned v : data)
        if (!gone[v] && (best == nr || deg[v] < deg[best])) best = v;
      gone[best] = true;
      removed.push_back(best);
      g.adj[best].for_each([&](unsigned n) {
        if (!gone[n]) deg[n] -= reg_width(f.regs[best]);
      });
    }
    std::reverse(removed.begin(), removed.end());
    orders.push_back({"smallest-last", removed});
  }
  { // DSATUR: most distinct neighbour registers first (ties: wider, then larger degree).
    std::vector<int> reg(nr, -1);
    std::vector<char> busy;
    std::vector<RegSet> sat(nr, RegSet(512));
    std::vector<unsigned> satn(nr, 0); // sat[v].count(), kept as bits are set (kernels of
                                       // thousands of values: no recount per candidate)
    std::vector<unsigned> deg(nr, 0);
    for (unsigned v : data) deg[v] = g.adj[v].count();
    std::vector<unsigned> o;
    std::vector<bool> done(nr, false);
    for (size_t k = 0; k < data.size(); ++k) {
      unsigned best = nr;
      for (unsigned v : data) {
        if (done[v]) continue;
        if (best == nr) {
          best = v;
          continue;
        }
        const unsigned sv = satn[v], sb = satn[best];
        if (sv != sb ? sv > sb
            : reg_width(f.regs[v]) != reg_width(f.regs[best])
                ? reg_width(f.regs[v]) > reg_width(f.regs[best])
                : deg[v] > deg[best])
          best = v;
      }
      done[best] = true;
      o.push_back(best);
      // Colour it now to update the saturation of its neighbours.
      const unsigned r = pick(f, g, best, reg, busy);
      reg[best] = int(r);
      const unsigned w = reg_width(f.regs[best]);
      g.adj[best].for_each([&](unsigned n) {
        for (unsigned x = 0; x < w; ++x)
          if (r + x < 512 && !sat[n].test(r + x)) {
            sat[n].set(r + x);
            ++satn[n];
          }
      });
    }
    orders.push_back({"DSATUR", o});
  }
  unsigned best = std::numeric_limits<unsigned>::max();
  for (auto& [name, o] : orders) {
    std::vector<int> reg;
    const unsigned used = colour(f, g, o, reg);
    if (used < best) {
      best = used;
      a.order = name;
      for (unsigned v : data) a.reg[v] = reg[v];
    }
  }
  a.num_regs = data.empty() ? 0 : best;
  std::vector<int> preg;
  a.num_preds = colour(f, g, by_def(preds), preg);
  for (unsigned v : preds) a.reg[v] = preg[v];
  if (opt.mode == RegAllocMode::PtxasLike && !data.empty()) {
    // At least ptxas's count; above it only as far as the greedy spread needs. Every colouring
    // order is tried; the spread with the fewest same-bank source pairs wins.
    const std::string packed = a.order;
    const std::vector<std::vector<unsigned>> co = co_sources(f, lv);
    for (unsigned regs = std::max(a.num_regs, opt.target_regs);; ++regs) {
      unsigned best_pairs = std::numeric_limits<unsigned>::max();
      RegAssignment trial = a, chosen;
      for (auto& [name, o] : orders) {
        if (!spread(f, co, g, o, regs, opt.banks, trial)) continue;
        const unsigned pairs = same_bank_source_pairs(f, lv, trial, opt.banks);
        if (pairs < best_pairs) {
          best_pairs = pairs;
          chosen = trial;
          chosen.order = "ptxas_like: " + name + " spread over " + std::to_string(regs) + " (" +
                         packed + " needs " + std::to_string(best) + ")";
        }
      }
      if (best_pairs != std::numeric_limits<unsigned>::max()) {
        a = chosen;
        break;
      }
    }
  }
  return a;
}

std::string verify_allocation(const ptx::Function& f, const Liveness& lv, const RegAssignment& a) {
  const unsigned nr = unsigned(f.regs.size());
  std::ostringstream err;
  auto name = [&](unsigned v) {
    std::ostringstream s;
    s << f.regs[v].name << (f.regs[v].is_pred ? " (p" : " (r") << a.reg[v]
      << (a.width[v] == 2 ? ":" + std::to_string(a.reg[v] + 1) : std::string()) << ")";
    return s.str();
  };
  for (unsigned v = 0; v < nr; ++v) {
    if (a.reg[v] < 0) continue;
    const unsigned w = a.width[v];
    if (w != std::max(1u, reg_width(f.regs[v])))
      return "'" + f.name + "': " + f.regs[v].name + " has width " + std::to_string(w);
    if (w == 2 && a.aligned_pairs && (a.reg[v] & 1))
      return "'" + f.name + "': 64-bit " + name(v) + " is not aligned";
    const unsigned limit = f.regs[v].is_pred ? a.num_preds : a.num_regs;
    if (unsigned(a.reg[v]) + w > limit)
      return "'" + f.name + "': " + name(v) + " beyond the register count " + std::to_string(limit);
  }
  // Occupancy of one live set: every register holds at most one vreg.
  std::vector<int> owner_data, owner_pred;
  auto check_set = [&](const std::vector<unsigned>& set, const std::string& where) {
    owner_data.assign(a.num_regs, -1);
    owner_pred.assign(a.num_preds, -1);
    for (unsigned v : set) {
      if (a.reg[v] < 0) {
        err << "'" << f.name << "' " << where << ": live " << f.regs[v].name << " has no register";
        return false;
      }
      std::vector<int>& own = f.regs[v].is_pred ? owner_pred : owner_data;
      for (unsigned k = 0; k < a.width[v]; ++k) {
        int& o = own[unsigned(a.reg[v]) + k];
        if (o >= 0 && unsigned(o) != v) {
          err << "'" << f.name << "' " << where << ": " << name(v) << " and " << name(unsigned(o))
              << " are live at the same time in the same register";
          return false;
        }
        o = int(v);
      }
    }
    return true;
  };
  if (!check_set(lv.entry_live_in.members(), "on entry")) return err.str();
  std::vector<unsigned> set;
  for (unsigned i = 0; i < lv.ud.size(); ++i) {
    set = lv.live_out[i].members();
    for (unsigned d : lv.ud[i].defs)
      if (!lv.live_out[i].test(d)) set.push_back(d);
    const ptx::Instr& in = f.instrs[i];
    if (!check_set(set, "after pc " + std::to_string(i) + " (line " + std::to_string(in.ptx_line) +
                            " '" + in.text + "')"))
      return err.str();
    // Everything live before the instruction must also be disjoint.
    if (!check_set(lv.live_in[i].members(), "before pc " + std::to_string(i) + " (line " +
                                                std::to_string(in.ptx_line) + ")"))
      return err.str();
  }
  return "";
}

} // namespace gpurf::compiler
