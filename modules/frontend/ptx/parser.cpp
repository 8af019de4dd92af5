#include "gpurf/modules/frontend/ptx/parser.h"

#include "gpurf/modules/frontend/ptx/lexer.h"
#include "gpurf/modules/frontend/ptx/texture.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace gpurf::ptx {

namespace {

// Virtual registers of one function: the instruction records name them in 16 bits.
constexpr uint64_t kMaxRegs = 65535;

bool type_from_name(const std::string& m, Type& t) {
  static const std::unordered_map<std::string, Type> tab = {
      {"b8", Type::B8},       {"b16", Type::B16},   {"b32", Type::B32},      {"b64", Type::B64},
      {"u8", Type::U8},       {"u16", Type::U16},   {"u32", Type::U32},      {"u64", Type::U64},
      {"s8", Type::S8},       {"s16", Type::S16},   {"s32", Type::S32},      {"s64", Type::S64},
      {"f32", Type::F32},     {"f64", Type::F64},   {"pred", Type::Pred},    {"f16", Type::F16},
      {"f16x2", Type::F16X2}, {"bf16", Type::BF16}, {"bf16x2", Type::BF16X2}};
  auto it = tab.find(m);
  if (it == tab.end()) return false;
  t = it->second;
  return true;
}

bool unsupported_type_name(const std::string& m) {
  static const char* const names[] = {"e4m3", "e5m2", "tf32", "e4m3x2", "e5m2x2",
                                      "b128", "f8x2", "s4",   "u4"};
  for (const char* n : names)
    if (m == n) return true;
  return false;
}

struct Parser {
  std::vector<Tok> toks;
  size_t p = 0;
  std::string file;
  Module mod;

  // Function-body state.
  Function* fn = nullptr;
  std::vector<std::map<std::string, unsigned>> reg_scopes, local_scopes;
  unsigned scope_counter = 0;
  struct PendingLabel {
    unsigned instr, op;
    bool in_src;
    std::string name;
    unsigned line;
  };
  std::vector<PendingLabel> pending_labels;
  struct PendingCall {
    unsigned fn, instr;
    unsigned line;
  };
  std::vector<PendingCall> pending_calls;
  std::set<std::string> prototypes; // the current function's .callprototype labels
  std::string prototype_label;
  size_t prototype_label_end = 0; // the token after the last label

  [[noreturn]] void fail(unsigned line, const std::string& msg) {
    throw ParseError(fmt_err(file, line, msg));
  }
  [[noreturn]] void fail(const std::string& msg) { fail(cur().line, msg); }

  const Tok& cur() const { return toks[p]; }
  const Tok& la(size_t k) const { return toks[std::min(p + k, toks.size() - 1)]; }
  bool is_punct(const char* s) const { return cur().k == TK::Punct && cur().s == s; }
  bool is_ident(const char* s) const { return cur().k == TK::Ident && cur().s == s; }
  static std::string describe(const Tok& t) {
    switch (t.k) {
    case TK::End:
      return "end of file";
    case TK::String:
      return "string \"" + t.s + "\"";
    default:
      return "'" + t.s + "'";
    }
  }
  void expect_punct(const char* s, const char* what) {
    if (!is_punct(s))
      fail(std::string("expected '") + s + "' " + what + ", found " + describe(cur()));
    ++p;
  }
  std::string expect_ident(const char* what) {
    if (cur().k != TK::Ident) fail(std::string("expected ") + what + ", found " + describe(cur()));
    return toks[p++].s;
  }
  uint64_t expect_uint(const char* what) {
    if (cur().k != TK::Number) fail(std::string("expected ") + what + ", found " + describe(cur()));
    Operand o;
    if (!parse_number(cur().s, o) || o.imm_kind != Operand::ImmKind::Int)
      fail(std::string("expected ") + what + ", found " + describe(cur()));
    ++p;
    return o.imm;
  }
  void skip_line() {
    unsigned l = cur().line;
    while (cur().k != TK::End && cur().line == l) ++p;
  }

  static bool parse_number(const std::string& s, Operand& o) {
    o.kind = Operand::Kind::Imm;
    if (s.size() >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
      if (s.size() != 10) return false;
      char* e = nullptr;
      o.imm = std::strtoull(s.c_str() + 2, &e, 16);
      o.imm_kind = Operand::ImmKind::F32;
      return *e == 0;
    }
    if (s.size() >= 2 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
      if (s.size() != 18) return false;
      char* e = nullptr;
      o.imm = std::strtoull(s.c_str() + 2, &e, 16);
      o.imm_kind = Operand::ImmKind::F64;
      return *e == 0;
    }
    bool is_hex = s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (!is_hex && s.find_first_of(".eE") != std::string::npos) {
      char* e = nullptr;
      double d = std::strtod(s.c_str(), &e);
      if (*e != 0) return false;
      std::memcpy(&o.imm, &d, 8);
      o.imm_kind = Operand::ImmKind::F64;
      return true;
    }
    std::string body = s;
    if (!body.empty() && (body.back() == 'U' || body.back() == 'u')) body.pop_back();
    int base = 10;
    size_t off = 0;
    if (is_hex) {
      base = 16;
      off = 2;
    } else if (body.size() >= 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B')) {
      base = 2;
      off = 2;
    } else if (body.size() >= 2 && body[0] == '0') {
      base = 8;
      off = 1;
    }
    if (off >= body.size()) return false;
    errno = 0;
    char* e = nullptr;
    o.imm = std::strtoull(body.c_str() + off, &e, base);
    o.imm_kind = Operand::ImmKind::Int;
    return *e == 0 && errno == 0;
  }

  // ------------------------------------------------------------------------------------------
  // Module level
  // ------------------------------------------------------------------------------------------
  void parse_module() {
    bool vis = false, ext = false, weak = false;
    while (cur().k != TK::End) {
      const Tok& t = cur();
      if (t.k != TK::Ident) fail("expected a directive at module scope, found " + describe(t));
      const std::string& d = t.s;
      if (d == ".version") {
        ++p;
        if (cur().k != TK::Number) fail("expected a version number after .version");
        mod.version = toks[p++].s;
      } else if (d == ".target") {
        ++p;
        mod.target = expect_ident("a target name after .target");
        while (is_punct(",")) {
          ++p;
          expect_ident("a target option after ','");
        }
      } else if (d == ".address_size") {
        ++p;
        mod.address_size = unsigned(expect_uint("an address size after .address_size"));
        if (mod.address_size != 64 && mod.address_size != 32)
          fail(t.line, "expected .address_size 32 or 64");
      } else if (d == ".file" || d == ".loc") {
        skip_line();
      } else if (d == ".section") {
        ++p;
        skip_balanced_section();
      } else if (d == ".pragma") {
        ++p;
        if (cur().k != TK::String) fail("expected a string after .pragma");
        ++p;
        expect_punct(";", "after .pragma");
      } else if (d == ".visible") {
        vis = true;
        ++p;
        continue;
      } else if (d == ".extern") {
        ext = true;
        ++p;
        continue;
      } else if (d == ".weak" || d == ".common") {
        weak = true;
        ++p;
        continue;
      } else if (d == ".entry" || d == ".func") {
        parse_function(d == ".entry", vis, ext);
      } else if (d == ".global" || d == ".const" || d == ".shared" || d == ".local") {
        Space sp = d == ".global"   ? Space::Global
                   : d == ".const"  ? Space::Const
                   : d == ".shared" ? Space::Shared
                                    : Space::Local;
        ++p;
        auto decls = parse_var_decls(sp, t.line);
        for (auto& v : decls) {
          v.is_extern = ext;
          v.is_visible = vis;
          if (const int at = mod.var_index(v.name); at >= 0) {
            // a later definition replaces an .extern declaration; a later declaration is none
            if (!ext) mod.vars[size_t(at)] = v;
          } else {
            mod.vars.push_back(v);
          }
        }
      } else {
        fail(t.line, "unexpected " + describe(t) + " at module scope (expected a directive)");
      }
      vis = ext = weak = false;
    }
    (void)weak;
    // A caller of a refused function is refused too, until none is left.
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& pc : pending_calls) {
        Function& f = mod.functions[pc.fn];
        const std::string& callee = f.instrs.empty() ? "" : f.instrs[pc.instr].callee_name;
        if (!f.has_body || !mod.refused.count(callee)) continue;
        refuse(f, fmt_err(file, pc.line,
                          "calls '" + callee + "', which is not loaded: " + mod.refused[callee]));
        changed = true;
      }
    }
    // resolve calls
    std::vector<bool> taken(mod.functions.size(), false); // functions whose address is taken
    for (const Function& f : mod.functions)
      for (const Instr& in : f.instrs)
        for (const Operand& o : in.src)
          if ((o.kind == Operand::Kind::Symbol || o.kind == Operand::Kind::Addr) &&
              o.sym.scope == SymRef::Scope::Function && o.sym.index < taken.size())
            taken[o.sym.index] = true;
    for (const VarDecl& v : mod.vars) // a vtable's entries
      for (const auto& ai : v.addr_inits)
        if (const int f = mod.function_index(ai.name); f >= 0) taken[size_t(f)] = true;
    for (const auto& pc : pending_calls) {
      if (!mod.functions[pc.fn].has_body) continue; // refused
      Instr& in = mod.functions[pc.fn].instrs[pc.instr];
      if (in.indirect) {
        const size_t args = in.src.size() - 1;
        for (size_t c = 0; c < mod.functions.size(); ++c)
          if (taken[c] && mod.functions[c].params.size() == args &&
              mod.functions[c].ret_params.size() >= in.dst.size())
            in.targets.push_back(int(c));
        continue;
      }
      int idx = mod.function_index(in.callee_name);
      if (idx < 0) fail(pc.line, "call to undeclared function '" + in.callee_name + "'");
      in.callee = idx;
    }
  }

  void skip_balanced_section() {
    while (cur().k != TK::End && !is_punct("{")) ++p;
    int depth = 0;
    while (cur().k != TK::End) {
      if (is_punct("{")) ++depth;
      if (is_punct("}")) {
        --depth;
        if (depth == 0) {
          ++p;
          return;
        }
      }
      ++p;
    }
  }

  // [.align N] [.vN] .type [.ptr ...] name ['[' N? ']']* ['<' N '>'] [= init] {, name...} ;
  struct DeclPrefix {
    unsigned align = 0, vec = 1;
    Type type = Type::None;
  };
  DeclPrefix parse_decl_prefix(const char* what) {
    DeclPrefix d;
    for (;;) {
      if (cur().k != TK::Ident || cur().s[0] != '.') break;
      std::string m = cur().s.substr(1);
      if (m == "align") {
        ++p;
        d.align = unsigned(expect_uint("an alignment after .align"));
        if (d.align == 0 || (d.align & (d.align - 1))) fail("alignment must be a power of two");
        continue;
      }
      if (m == "v2" || m == "v4" || m == "v8") {
        d.vec = unsigned(m[1] - '0');
        ++p;
        continue;
      }
      if (m == "attribute") { // .attribute(.managed)
        ++p;
        expect_punct("(", "after .attribute");
        while (!is_punct(")") && cur().k != TK::End) ++p;
        expect_punct(")", "to close .attribute");
        continue;
      }
      Type t;
      if (type_from_name(m, t)) {
        d.type = t;
        ++p;
        continue;
      }
      if (unsupported_type_name(m))
        fail("type '." + m + "' is not supported (fp8/tf32/4-bit types)");
      if (m == "ptr") { // only meaningful for params; skip .ptr .space .align N
        ++p;
        continue;
      }
      break;
    }
    if (d.type == Type::None) fail(std::string("expected a type in ") + what);
    return d;
  }

  std::vector<VarDecl> parse_var_decls(Space sp, unsigned line) {
    DeclPrefix pre = parse_decl_prefix("variable declaration");
    std::vector<VarDecl> out;
    for (;;) {
      VarDecl v;
      v.line = line;
      v.space = sp;
      v.type = pre.type;
      v.vec = pre.vec;
      unsigned esz = type_bytes(pre.type) * pre.vec;
      v.align = pre.align ? pre.align : esz;
      v.name = expect_ident("a variable name");
      uint64_t count = 1;
      bool unsized = false;
      while (is_punct("[")) {
        ++p;
        if (is_punct("]")) {
          unsized = true;
        } else {
          count *= expect_uint("an array size");
        }
        expect_punct("]", "to close the array size");
      }
      v.size = unsized ? 0 : count * esz;
      if (is_punct("=")) {
        ++p;
        parse_initializer(v, esz, unsized);
      } else if (unsized && sp != Space::Shared) {
        if (!(sp == Space::Global || sp == Space::Const))
          fail(line, "array '" + v.name + "' has no size");
      }
      out.push_back(std::move(v));
      if (is_punct(",")) {
        ++p;
        continue;
      }
      expect_punct(";", "after the declaration");
      break;
    }
    return out;
  }

  void parse_initializer(VarDecl& v, unsigned esz, bool unsized) {
    std::vector<uint8_t> bytes;
    const unsigned elem = type_bytes(v.type);
    auto put_value = [&](uint64_t bits) {
      for (unsigned b = 0; b < elem; ++b) bytes.push_back(uint8_t(bits >> (8 * b)));
    };
    std::function<void()> parse_elem;
    parse_elem = [&]() {
      if (is_punct("{")) {
        ++p;
        if (!is_punct("}")) {
          for (;;) {
            parse_elem();
            if (is_punct(",")) {
              ++p;
              continue;
            }
            break;
          }
        }
        expect_punct("}", "to close the initialiser list");
        return;
      }
      bool neg = false;
      if (is_punct("-")) {
        neg = true;
        ++p;
      }
      if (cur().k == TK::Number) {
        Operand o;
        if (!parse_number(cur().s, o)) fail("malformed number " + describe(cur()));
        ++p;
        uint64_t bits = o.imm;
        if (v.type == Type::F32) {
          float f;
          if (o.imm_kind == Operand::ImmKind::F32) {
            uint32_t u = uint32_t(bits);
            std::memcpy(&f, &u, 4);
          } else if (o.imm_kind == Operand::ImmKind::F64) {
            double d;
            std::memcpy(&d, &bits, 8);
            f = float(d);
          } else {
            f = float(int64_t(bits));
          }
          if (neg) f = -f;
          uint32_t u;
          std::memcpy(&u, &f, 4);
          bits = u;
        } else if (v.type == Type::F64) {
          double d;
          if (o.imm_kind == Operand::ImmKind::F32) {
            float f;
            uint32_t u = uint32_t(bits);
            std::memcpy(&f, &u, 4);
            d = f;
          } else if (o.imm_kind == Operand::ImmKind::F64) {
            std::memcpy(&d, &bits, 8);
          } else {
            d = double(int64_t(bits));
          }
          if (neg) d = -d;
          std::memcpy(&bits, &d, 8);
        } else {
          if (o.imm_kind != Operand::ImmKind::Int)
            fail("float initialiser for an integer variable");
          if (neg) bits = uint64_t(0) - bits;
        }
        put_value(bits);
        return;
      }
      if (neg) fail("expected a number after '-' in the initialiser");
      if (cur().k == TK::Ident) {
        std::string name = cur().s;
        ++p;
        if ((name == "generic" || name == "global") && is_punct("(")) {
          ++p;
          name = expect_ident("a symbol name in generic()");
          expect_punct(")", "to close generic(");
        }
        int64_t off = 0;
        if (is_punct("+")) {
          ++p;
          off = int64_t(expect_uint("an offset after '+'"));
        }
        if (elem != 4 && elem != 8) fail("symbol address initialiser needs a 32- or 64-bit type");
        VarDecl::AddrInit ai;
        ai.at = bytes.size();
        ai.bytes = elem;
        ai.name = name;
        ai.offset = off;
        v.addr_inits.push_back(ai);
        put_value(0);
        return;
      }
      fail("expected a constant in the initialiser, found " + describe(cur()));
    };
    parse_elem();
    if (unsized) v.size = (bytes.size() + esz - 1) / esz * esz;
    if (bytes.size() > v.size) fail("too many initialisers for '" + v.name + "'");
    bytes.resize(size_t(v.size), 0);
    v.init = std::move(bytes);
  }

  // ------------------------------------------------------------------------------------------
  // Functions
  // ------------------------------------------------------------------------------------------
  Param parse_param(unsigned& offset) {
    unsigned line = cur().line;
    if (is_ident(".reg")) fail("register (.reg) parameters are not supported");
    if (!is_ident(".param"))
      fail("expected '.param' in the parameter list, found " + describe(cur()));
    ++p;
    Param prm;
    unsigned align = 0;
    Type t = Type::None;
    for (;;) {
      if (cur().k != TK::Ident || cur().s[0] != '.') break;
      std::string m = cur().s.substr(1);
      ++p;
      if (m == "align") {
        align = unsigned(expect_uint("an alignment after .align"));
        if (align == 0 || (align & (align - 1))) fail("alignment must be a power of two");
      } else if (m == "ptr") {
        prm.is_ptr = true;
      } else if (m == "global" || m == "shared" || m == "local" || m == "const") {
        prm.ptr_space = m == "global"   ? Space::Global
                        : m == "shared" ? Space::Shared
                        : m == "local"  ? Space::Local
                                        : Space::Const;
      } else if (type_from_name(m, t)) {
        prm.type = t;
        if (t == Type::Pred) fail(line, "predicate parameters are not supported");
      } else if (unsupported_type_name(m)) {
        fail(line, "type '." + m + "' is not supported (fp8/tf32/4-bit types)");
      } else {
        fail(line, "unexpected '." + m + "' in a parameter declaration");
      }
    }
    if (t == Type::None) fail(line, "expected a type in the parameter declaration");
    prm.name = expect_ident("a parameter name");
    uint64_t count = 1;
    while (is_punct("[")) {
      ++p;
      count *= expect_uint("an array size");
      expect_punct("]", "to close the array size");
    }
    prm.size = unsigned(count * type_bytes(prm.type));
    // The pointee alignment (.ptr .align N) does not change the parameter's own alignment.
    prm.align = (align && !prm.is_ptr) ? align : type_bytes(prm.type);
    if (align && !prm.is_ptr) prm.align = align;
    offset = (offset + prm.align - 1) / prm.align * prm.align;
    prm.offset = offset;
    offset += prm.size;
    return prm;
  }

  std::vector<Param> parse_param_list(unsigned& total) {
    std::vector<Param> out;
    expect_punct("(", "to open the parameter list");
    total = 0;
    if (!is_punct(")")) {
      for (;;) {
        out.push_back(parse_param(total));
        if (is_punct(",")) {
          ++p;
          continue;
        }
        break;
      }
    }
    expect_punct(")", "to close the parameter list");
    return out;
  }

  void parse_function(bool entry, bool vis, bool ext) {
    unsigned line = cur().line;
    ++p; // .entry / .func
    Function f;
    f.is_entry = entry;
    f.is_visible = vis;
    f.is_extern = ext;
    f.decl_line = line;
    if (!entry && is_punct("(")) f.ret_params = parse_param_list(f.ret_bytes);
    f.name = expect_ident("a function name");
    if (is_punct("(")) f.params = parse_param_list(f.param_bytes);
    // performance directives and attributes
    for (;;) {
      if (cur().k != TK::Ident) break;
      const std::string d = cur().s;
      auto dims = [&](unsigned* out) {
        ++p;
        out[0] = unsigned(expect_uint("a dimension"));
        for (int i = 1; i < 3 && is_punct(","); ++i) {
          ++p;
          out[i] = unsigned(expect_uint("a dimension"));
        }
      };
      if (d == ".maxntid") {
        dims(f.maxntid);
      } else if (d == ".reqntid") {
        dims(f.reqntid);
      } else if (d == ".minnctapersm") {
        ++p;
        f.minnctapersm = unsigned(expect_uint("a number after .minnctapersm"));
      } else if (d == ".maxnreg") {
        ++p;
        f.maxnreg = unsigned(expect_uint("a number after .maxnreg"));
      } else if (d == ".maxnctapersm" || d == ".maxclusterrank") {
        ++p;
        expect_uint("a number");
      } else if (d == ".reqnctapercluster" || d == ".explicitcluster") {
        unsigned tmp[3];
        if (d == ".explicitcluster") {
          ++p;
        } else {
          dims(tmp);
        }
      } else if (d == ".noreturn" || d == ".abi_preserve" || d == ".abi_preserve_control") {
        ++p;
        if (d != ".noreturn" && cur().k == TK::Number) ++p;
      } else if (d == ".pragma") {
        ++p;
        if (cur().k != TK::String) fail("expected a string after .pragma");
        ++p;
        expect_punct(";", "after .pragma");
      } else {
        break;
      }
    }
    int existing = -1;
    for (size_t i = 0; i < mod.functions.size(); ++i)
      if (mod.functions[i].name == f.name) existing = int(i);
    if (is_punct(";")) {
      ++p;
      if (existing < 0) mod.functions.push_back(std::move(f));
      return;
    }
    if (!is_punct("{")) fail("expected '{' or ';' after the declaration of '" + f.name + "'");
    if (builtin_function(f.name)) { // the engine runs it: a library's body is not loaded
      skip_braces();
      if (existing < 0) mod.functions.push_back(std::move(f));
      return;
    }
    if (existing >= 0 && mod.functions[size_t(existing)].has_body)
      fail(line, "function '" + f.name + "' is defined twice");
    unsigned idx;
    if (existing >= 0) {
      mod.functions[size_t(existing)] = std::move(f);
      idx = unsigned(existing);
    } else {
      mod.functions.push_back(std::move(f));
      idx = unsigned(mod.functions.size() - 1);
    }
    fn = &mod.functions[idx];
    prototypes.clear();
    fn->has_body = true;
    fn->is_extern = false;
    const size_t body = p, calls = pending_calls.size();
    try {
      parse_body(idx);
    } catch (const ParseError& e) {
      // One function gpurf cannot read refuses that function (and its callers), not the file.
      refuse(*fn, e.what());
      pending_calls.resize(calls);
      p = body;
      skip_braces();
    }
    fn = nullptr;
  }

  void refuse(Function& f, const std::string& why) {
    mod.refused[f.name] = why;
    f.has_body = false;
    f.instrs.clear();
    f.regs.clear();
    f.locals.clear();
    f.labels.clear();
  }

  // From a '{' past its matching '}' (or to the end of the file).
  void skip_braces() {
    for (int depth = 0; cur().k != TK::End;) {
      if (is_punct("{")) ++depth;
      if (is_punct("}") && --depth == 0) return void(++p);
      ++p;
    }
  }

  void declare_regs(unsigned line) {
    DeclPrefix pre = parse_decl_prefix("register declaration");
    for (;;) {
      std::string name = expect_ident("a register name");
      auto add = [&](const std::string& n) {
        auto& sc = reg_scopes.back();
        if (sc.count(n)) fail(line, "register '" + n + "' declared twice");
        if (fn->regs.size() >= kMaxRegs)
          fail(line, "more than " + std::to_string(kMaxRegs) +
                         " registers declared in one function (gpurf's limit: register ids are "
                         "16-bit)");
        VReg r;
        r.name = n;
        r.type = pre.type;
        r.is_pred = pre.type == Type::Pred;
        r.width_bits = r.is_pred ? 1 : type_bits(pre.type);
        sc[n] = unsigned(fn->regs.size());
        fn->regs.push_back(r);
      };
      auto add_vec = [&](const std::string& n) {
        if (pre.vec == 1) {
          add(n);
        } else {
          static const char* comp[] = {".x", ".y", ".z", ".w"};
          if (pre.vec > 4) fail(line, "vector registers wider than .v4 are not supported");
          for (unsigned i = 0; i < pre.vec; ++i) add(n + comp[i]);
          vec_regs[n] = pre.vec;
        }
      };
      if (is_punct("<")) {
        ++p;
        uint64_t cnt = expect_uint("a register count");
        expect_punct(">", "to close the register range");
        if (cnt > kMaxRegs)
          fail(line, "register range <" + std::to_string(cnt) + "> larger than gpurf's limit of " +
                         std::to_string(kMaxRegs) + " registers per function");
        for (uint64_t i = 0; i < cnt; ++i) add_vec(name + std::to_string(i));
      } else {
        add_vec(name);
      }
      if (is_punct(",")) {
        ++p;
        continue;
      }
      expect_punct(";", "after the register declaration");
      break;
    }
  }
  std::map<std::string, unsigned> vec_regs;

  int lookup_reg(const std::string& n) const {
    for (auto it = reg_scopes.rbegin(); it != reg_scopes.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return int(f->second);
    }
    return -1;
  }
  int lookup_local(const std::string& n) const {
    for (auto it = local_scopes.rbegin(); it != local_scopes.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return int(f->second);
    }
    return -1;
  }

  void parse_body(unsigned fidx) {
    expect_punct("{", "to open the function body");
    reg_scopes.assign(1, {});
    local_scopes.assign(1, {});
    vec_regs.clear();
    pending_labels.clear();
    std::vector<unsigned> scope_ids{0};
    for (;;) {
      const Tok& t = cur();
      if (t.k == TK::End)
        fail(t.line, "unexpected end of file inside the body of '" + fn->name + "'");
      if (t.k == TK::Punct && t.s == "}") {
        ++p;
        reg_scopes.pop_back();
        local_scopes.pop_back();
        scope_ids.pop_back();
        if (reg_scopes.empty()) break;
        continue;
      }
      if (t.k == TK::Punct && t.s == "{") {
        ++p;
        reg_scopes.emplace_back();
        local_scopes.emplace_back();
        scope_ids.push_back(++scope_counter);
        continue;
      }
      if (t.k == TK::Ident && t.s[0] == '.') {
        const std::string d = t.s;
        if (d == ".reg") {
          ++p;
          declare_regs(t.line);
        } else if (d == ".local" || d == ".shared" || d == ".param" || d == ".const" ||
                   d == ".global") {
          Space sp = d == ".local"    ? Space::Local
                     : d == ".shared" ? Space::Shared
                     : d == ".param"  ? Space::Param
                     : d == ".const"  ? Space::Const
                                      : Space::Global;
          if (sp == Space::Const || sp == Space::Global)
            fail(t.line, "function-scope " + d + " variables are not supported");
          ++p;
          auto decls = parse_var_decls(sp, t.line);
          for (auto& v : decls) {
            v.scope = scope_ids.back();
            auto& sc = local_scopes.back();
            if (sc.count(v.name)) fail(t.line, "variable '" + v.name + "' declared twice");
            sc[v.name] = unsigned(fn->locals.size());
            fn->locals.push_back(std::move(v));
          }
        } else if (d == ".pragma") {
          ++p;
          if (cur().k != TK::String) fail("expected a string after .pragma");
          ++p;
          expect_punct(";", "after .pragma");
        } else if (d == ".loc" || d == ".file") {
          skip_line();
        } else if (d == ".callprototype") { // `name: .callprototype (rets) _ (params);`
          if (prototype_label_end != p) fail(t.line, ".callprototype without a label naming it");
          const std::string name = prototype_label;
          fn->labels.erase(name);                           // a prototype, not a branch target
          while (cur().k != TK::End && !is_punct(";")) ++p; // the lists: targets match the call
          expect_punct(";", "after .callprototype");
          prototypes.insert(name);
        } else {
          fail(t.line, "unexpected directive '" + d + "' in a function body");
        }
        continue;
      }
      if (t.k == TK::Ident && la(1).k == TK::Punct && la(1).s == ":" && t.s[0] != '%') {
        prototype_label = t.s; // a .callprototype's name, when that directive follows
        prototype_label_end = p + 2;
        if (fn->labels.count(t.s)) fail(t.line, "label '" + t.s + "' defined twice");
        fn->labels[t.s] = unsigned(fn->instrs.size());
        p += 2;
        continue;
      }
      parse_instr(fidx);
    }
    for (const auto& pl : pending_labels) {
      auto it = fn->labels.find(pl.name);
      if (it == fn->labels.end()) fail(pl.line, "undefined label '" + pl.name + "'");
      Operand& o = pl.in_src ? fn->instrs[pl.instr].src[pl.op] : fn->instrs[pl.instr].dst[pl.op];
      o.label = it->second;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Instructions
  // ------------------------------------------------------------------------------------------
  static bool op_from_name(const std::string& b, Op& op, BarMode& bar) {
    static const std::unordered_map<std::string, Op> tab = {
        {"add", Op::Add},
        {"sub", Op::Sub},
        {"mul", Op::Mul},
        {"mad", Op::Mad},
        {"mul24", Op::Mul24},
        {"mad24", Op::Mad24},
        {"div", Op::Div},
        {"rem", Op::Rem},
        {"abs", Op::Abs},
        {"neg", Op::Neg},
        {"min", Op::Min},
        {"max", Op::Max},
        {"addc", Op::Addc},
        {"subc", Op::Subc},
        {"madc", Op::Madc},
        {"popc", Op::Popc},
        {"clz", Op::Clz},
        {"brev", Op::Brev},
        {"bfe", Op::Bfe},
        {"bfi", Op::Bfi},
        {"bfind", Op::Bfind},
        {"prmt", Op::Prmt},
        {"and", Op::And},
        {"or", Op::Or},
        {"xor", Op::Xor},
        {"not", Op::Not},
        {"cnot", Op::Cnot},
        {"shl", Op::Shl},
        {"shr", Op::Shr},
        {"fma", Op::Fma},
        {"rcp", Op::Rcp},
        {"sqrt", Op::Sqrt},
        {"rsqrt", Op::Rsqrt},
        {"ex2", Op::Ex2},
        {"lg2", Op::Lg2},
        {"sin", Op::Sin},
        {"cos", Op::Cos},
        {"setp", Op::Setp},
        {"set", Op::Set},
        {"selp", Op::Selp},
        {"slct", Op::Slct},
        {"cvt", Op::Cvt},
        {"cvta", Op::Cvta},
        {"mov", Op::Mov},
        {"ld", Op::Ld},
        {"ldu", Op::Ldu},
        {"st", Op::St},
        {"atom", Op::Atom},
        {"red", Op::Red},
        {"prefetch", Op::Prefetch},
        {"prefetchu", Op::Prefetch},
        {"bra", Op::Bra},
        {"call", Op::Call},
        {"ret", Op::Ret},
        {"exit", Op::Exit},
        {"bar", Op::Bar},
        {"barrier", Op::Bar},
        {"membar", Op::Membar},
        {"fence", Op::Fence},
        {"shfl", Op::Shfl},
        {"vote", Op::Vote},
        {"activemask", Op::Activemask},
        {"match", Op::Match},
        {"nanosleep", Op::Nanosleep},
        {"griddepcontrol", Op::Griddepcontrol},
        {"copysign", Op::Copysign},
        {"testp", Op::Testp},
        {"lop3", Op::Lop3},
        {"shf", Op::Shf},
        {"sad", Op::Sad},
        {"trap", Op::Trap},
        {"mma", Op::Mma},
        {"ldmatrix", Op::Ldmatrix},
        {"movmatrix", Op::Movmatrix},
        {"wmma", Op::Wmma},
        {"redux", Op::Redux},
        {"dp4a", Op::Dp4a},
        {"dp2a", Op::Dp2a},
        {"fns", Op::Fns},
        {"elect", Op::Elect},
        {"tex", Op::Tex},
        {"tld4", Op::Tld4},
        {"suld", Op::Suld},
        {"sust", Op::Sust},
        {"bmsk", Op::Bmsk},
        {"tanh", Op::Tanh},
        {"isspacep", Op::Isspacep},
    };
    auto it = tab.find(b);
    if (it == tab.end()) return false;
    op = it->second;
    bar = BarMode::None;
    return true;
  }

  // vop2 / vop4 (SIMD video instructions: CUDA's __vsadu4, __vabsdiffu4, __vabsdiffu2 ...).
  // add/sub/min/max.{s16x2,u16x2} made a vadd2/vsub2/vmin2/vmax2 (apply_modifier).
  static bool packed_16x2(const Instr& in) {
    if (in.op != Op::Vsimd) return false;
    for (const char* p : {"add.", "sub.", "min.", "max."})
      if (in.text.rfind(p, 0) == 0) return true;
    return false;
  }

  // The conversions to and from tf32 and fp8 pairs gpurf runs (engine.cpp cvt_format).
  void check_cvt_format(const Instr& in, unsigned line) {
    const bool fp8 = in.fmt != CvtFormat::Tf32;
    bool ok;
    if (!fp8) // cvt.rna{.satfinite}.tf32.f32 (sm_80); cvt.{rn,rz}{.satfinite}.tf32.f32 (sm_90)
      ok = in.type == Type::B32 && in.type2 == Type::F32 && !in.relu && !in.ftz &&
           (in.rnd == Round::RNA || in.rnd == Round::RN || in.rnd == Round::RZ);
    else if (in.type == Type::B16) // to fp8: cvt.rn.satfinite{.relu}.f8x2.{f32,f16x2}
      ok = (in.type2 == Type::F32 || in.type2 == Type::F16X2) && in.rnd == Round::RN &&
           in.satfinite && !in.ftz;
    else // from fp8: cvt.rn{.relu}.f16x2.f8x2
      ok = in.type == Type::F16X2 && in.type2 == Type::B16 && in.rnd == Round::RN &&
           !in.satfinite && !in.ftz;
    if (!ok)
      fail(line, "unsupported form '" + in.text +
                     "' (cvt.{rna,rn,rz}{.satfinite}.tf32.f32, "
                     "cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2} and "
                     "cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} are)");
  }

  static bool video_from_name(const std::string& b, Instr& in) {
    static const std::unordered_map<std::string, VideoOp> tab = {
        {"vadd", VideoOp::Add},         {"vsub", VideoOp::Sub}, {"vavrg", VideoOp::Avrg},
        {"vabsdiff", VideoOp::Absdiff}, {"vmin", VideoOp::Min}, {"vmax", VideoOp::Max}};
    if (b.size() < 2 || (b.back() != '2' && b.back() != '4')) return false;
    auto it = tab.find(b.substr(0, b.size() - 1));
    if (it == tab.end()) return false;
    in.op = Op::Vsimd;
    in.video = it->second;
    in.vec = unsigned(b.back() - '0');
    return true;
  }

  void apply_modifier(Instr& in, const std::string& m, unsigned line) {
    auto bad = [&]() { fail(line, "unsupported modifier '." + m + "' in '" + in.text + "'"); };
    if (TensorKind tk; tensor_kind(in.op, tk)) { // their types and shapes: mma.h
      if (in.op == Op::Ldmatrix && (m == "shared" || m == "shared::cta"))
        in.space = Space::Shared;
      else if (in.op == Op::Wmma && in.tensor.wmma != 'm' &&
               (m == "shared" || m == "shared::cta" || m == "global" || m == "generic"))
        in.space = m == "global" ? Space::Global : m == "generic" ? Space::Generic : Space::Shared;
      else if (!tensor_modifier(tk, in.tensor, m))
        tk == TensorKind::Wmma
            ? fail(line, "unsupported modifier '." + m + "' in '" + in.text + "': " + wmma_forms())
            : bad();
      return;
    }
    Type t;
    if (type_from_name(m, t)) {
      if (in.type == Type::None) {
        in.type = t;
      } else if (in.type2 == Type::None) {
        in.type2 = t;
      } else if (in.op == Op::Vsimd && in.type3 == Type::None) {
        in.type3 = t;
      } else {
        fail(line, "too many types in '" + in.text + "'");
      }
      return;
    }
    if (in.op == Op::Cvt && (m == "tf32" || m == "e4m3x2" || m == "e5m2x2")) {
      // Formats without a register type of their own: the bits in a .b32 (tf32) or .b16 (two
      // fp8 values); written first it is the destination's, second the source's.
      in.fmt = m == "tf32"     ? CvtFormat::Tf32
               : m == "e4m3x2" ? CvtFormat::E4M3x2
                               : CvtFormat::E5M2x2;
      (in.type == Type::None ? in.type : in.type2) = m == "tf32" ? Type::B32 : Type::B16;
      return;
    }
    if ((in.op == Op::Min || in.op == Op::Max || in.op == Op::Add || in.op == Op::Sub) &&
        (m == "s16x2" || m == "u16x2")) {
      // add/sub/min/max of packed halfwords (sm_90, PTX 8.0) are vadd2/vsub2/vmin2/vmax2 with
      // the full mask (add/sub wrap in each half); .relu (min/max.s16x2 only) is the unsigned
      // destination's saturation: vmax2.u32.s32.s32.sat
      const bool sg = m == "s16x2";
      in.video = in.op == Op::Min   ? VideoOp::Min
                 : in.op == Op::Max ? VideoOp::Max
                 : in.op == Op::Add ? VideoOp::Add
                                    : VideoOp::Sub;
      in.op = Op::Vsimd;
      in.vec = 2;
      in.type = in.type2 = in.type3 = sg ? Type::S32 : Type::U32;
      return;
    }
    if (unsupported_type_name(m))
      fail(line, "type '." + m + "' is not supported (fp8/tf32/4-bit types) in '" + in.text + "'");
    const Op op = in.op;
    if (op == Op::Tex || op == Op::Tld4 || op == Op::Suld || op == Op::Sust) {
      texture_modifier(in, m, line);
      return;
    }
    // rounding / precision
    static const std::unordered_map<std::string, Round> rnd = {
        {"rn", Round::RN},         {"rz", Round::RZ},     {"rm", Round::RM},   {"rp", Round::RP},
        {"rni", Round::RNI},       {"rzi", Round::RZI},   {"rmi", Round::RMI}, {"rpi", Round::RPI},
        {"approx", Round::Approx}, {"full", Round::Full}, {"rna", Round::RNA}};
    if (auto it = rnd.find(m); it != rnd.end()) {
      in.rnd = it->second;
      return;
    }
    if (m == "ftz") {
      in.ftz = true;
      return;
    }
    if (m == "sat") {
      in.sat = true;
      return;
    }
    if (m == "relu" || m == "satfinite" || m == "NaN") {
      (m == "relu" ? in.relu : m == "satfinite" ? in.satfinite : in.nan) = true;
      return;
    }
    if (m == "cc") {
      in.cc = true;
      return;
    }
    if (m == "uni") {
      in.uni = true;
      return;
    }
    if (m == "nc") {
      in.nc = true;
      return;
    }
    // A strong load (.volatile, .relaxed or .acquire: the PTX memory model; .volatile is
    // .relaxed.sys) must see other threads' stores, as a spin on a flag does: never reused.
    // So must a load that bypasses L1 to see other SMs' stores: .cv (fetch again) and .cg
    // (L2 only: a poll through __ldcg).
    if (m == "volatile" || m == "relaxed" || m == "acquire" || m == "cv" || m == "cg") {
      in.is_volatile = true;
      return;
    }
    if (m == "aligned" || m == "release" || m == "acq_rel" || m == "sc" || m == "weak" ||
        m == "cta" || m == "gpu" || m == "sys" || m == "cluster" || m == "gl" || m == "ca" ||
        m == "cs" || m == "lu" || m == "wb" || m == "wt" || m == "mmio" || m == "sync_restrict" ||
        m.rfind("L1::", 0) == 0 || (m.rfind("L2::", 0) == 0 && m != "L2::cache_hint") ||
        m.rfind("level::", 0) == 0) {
      if (m == "sync_restrict") bad();
      return;
    }
    if (op == Op::Prefetch && (m == "L1" || m == "L2")) return; // a hint: no effect on values
    if (op == Op::Fence && (m.rfind("proxy", 0) == 0 || m == "alias" || m == "async" ||
                            m.find("::") != std::string::npos))
      return;
    // spaces
    static const std::unordered_map<std::string, Space> sp = {
        {"global", Space::Global},  {"shared", Space::Shared}, {"shared::cta", Space::Shared},
        {"local", Space::Local},    {"param", Space::Param},   {"const", Space::Const},
        {"generic", Space::Generic}};
    if (auto it = sp.find(m); it != sp.end()) {
      if (op == Op::Ld || op == Op::Ldu || op == Op::St || op == Op::Atom || op == Op::Red ||
          op == Op::Cvta || op == Op::Prefetch || op == Op::CpAsync || op == Op::Isspacep) {
        in.space = it->second;
        return;
      }
      bad();
    }
    if (m == "to" && op == Op::Cvta) {
      in.cvta_to = true;
      return;
    }
    if (m == "v2" || m == "v4" || m == "v8") {
      // atom/red.add on vectors of f32 (.v2, .v4) and of f16/bf16 (up to .v8): sm_90
      const bool atomic = op == Op::Atom || op == Op::Red;
      if ((op != Op::Ld && op != Op::Ldu && op != Op::St && !atomic) || (m == "v8" && !atomic))
        bad();
      in.vec = unsigned(m[1] - '0');
      return;
    }
    if (m == "noftz" && (op == Op::Atom || op == Op::Red)) return; // f16 adds keep subnormals
    switch (op) {
    case Op::Mul:
    case Op::Mad:
    case Op::Mul24:
    case Op::Mad24:
    case Op::Madc:
      if (m == "lo") {
        in.mul = MulMode::Lo;
        return;
      }
      if (m == "hi") {
        in.mul = MulMode::Hi;
        return;
      }
      if (m == "wide" && op != Op::Mul24 && op != Op::Mad24) {
        in.mul = MulMode::Wide;
        return;
      }
      break;
    case Op::Setp:
    case Op::Set: {
      static const std::unordered_map<std::string, CmpOp> cmp = {
          {"eq", CmpOp::EQ},   {"ne", CmpOp::NE},   {"lt", CmpOp::LT},   {"le", CmpOp::LE},
          {"gt", CmpOp::GT},   {"ge", CmpOp::GE},   {"lo", CmpOp::LO},   {"ls", CmpOp::LS},
          {"hi", CmpOp::HI},   {"hs", CmpOp::HS},   {"equ", CmpOp::EQU}, {"neu", CmpOp::NEU},
          {"ltu", CmpOp::LTU}, {"leu", CmpOp::LEU}, {"gtu", CmpOp::GTU}, {"geu", CmpOp::GEU},
          {"num", CmpOp::NUM}, {"nan", CmpOp::NaN}};
      if (auto it = cmp.find(m); it != cmp.end() && in.cmp == CmpOp::None) {
        in.cmp = it->second;
        return;
      }
      if (m == "and") {
        in.bop = BoolOp::And;
        return;
      }
      if (m == "or") {
        in.bop = BoolOp::Or;
        return;
      }
      if (m == "xor") {
        in.bop = BoolOp::Xor;
        return;
      }
      break;
    }
    case Op::Atom:
    case Op::Red: {
      static const std::unordered_map<std::string, AtomOp> at = {
          {"add", AtomOp::Add}, {"min", AtomOp::Min},   {"max", AtomOp::Max}, {"inc", AtomOp::Inc},
          {"dec", AtomOp::Dec}, {"exch", AtomOp::Exch}, {"cas", AtomOp::Cas}, {"and", AtomOp::And},
          {"or", AtomOp::Or},   {"xor", AtomOp::Xor}};
      if (auto it = at.find(m); it != at.end() && in.atom == AtomOp::None) {
        in.atom = it->second;
        return;
      }
      break;
    }
    case Op::Shfl:
      if (m == "sync") return;
      if (m == "up") {
        in.shfl = ShflMode::Up;
        return;
      }
      if (m == "down") {
        in.shfl = ShflMode::Down;
        return;
      }
      if (m == "bfly") {
        in.shfl = ShflMode::Bfly;
        return;
      }
      if (m == "idx") {
        in.shfl = ShflMode::Idx;
        return;
      }
      break;
    case Op::Vote:
      if (m == "sync") return;
      if (m == "all") {
        in.vote = VoteMode::All;
        return;
      }
      if (m == "any") {
        in.vote = VoteMode::Any;
        return;
      }
      if (m == "uni") {
        in.vote = VoteMode::Uni;
        return;
      }
      if (m == "ballot") {
        in.vote = VoteMode::Ballot;
        return;
      }
      break;
    case Op::Match:
      if (m == "sync") return;
      if (m == "any") {
        in.match = MatchMode::Any;
        return;
      }
      if (m == "all") {
        in.match = MatchMode::All;
        return;
      }
      break;
    case Op::Bar:
      if (m == "sync") {
        if (in.bar == BarMode::None) in.bar = BarMode::Sync;
        return;
      }
      if (m == "arrive") {
        in.bar = BarMode::Arrive;
        return;
      }
      if (m == "red") {
        in.bar = BarMode::Red;
        return;
      }
      if (m == "warp") {
        in.bar = BarMode::Warp;
        return;
      }
      if (in.bar == BarMode::Red) {
        if (m == "popc") {
          in.bop = BoolOp::Popc;
          return;
        }
        if (m == "and") {
          in.bop = BoolOp::And;
          return;
        }
        if (m == "or") {
          in.bop = BoolOp::Or;
          return;
        }
      }
      break;
    case Op::Prmt: {
      static const std::unordered_map<std::string, PrmtMode> pm = {
          {"f4e", PrmtMode::F4E}, {"b4e", PrmtMode::B4E}, {"rc8", PrmtMode::RC8},
          {"ecl", PrmtMode::ECL}, {"ecr", PrmtMode::ECR}, {"rc16", PrmtMode::RC16}};
      if (auto it = pm.find(m); it != pm.end()) {
        in.prmt = it->second;
        return;
      }
      break;
    }
    case Op::Redux: {
      if (m == "sync" || m == "abs") return; // .abs: the .f32 forms, refused below
      static const std::unordered_map<std::string, AtomOp> ro = {
          {"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max},
          {"and", AtomOp::And}, {"or", AtomOp::Or},   {"xor", AtomOp::Xor}};
      if (auto it = ro.find(m); it != ro.end() && in.atom == AtomOp::None) {
        in.atom = it->second;
        return;
      }
      break;
    }
    case Op::Elect:
      if (m == "sync") return;
      break;
    case Op::Griddepcontrol:
      if (m == "wait" || m == "launch_dependents") return;
      break;
    case Op::Vsimd:
      if (m == "add") {
        in.video_add = true;
        return;
      }
      break;
    case Op::Dp2a:
      if (m == "lo" || m == "hi") {
        in.mul = m == "lo" ? MulMode::Lo : MulMode::Hi;
        return;
      }
      break;
    case Op::Bfind:
      if (m == "shiftamt") {
        in.shiftamt = true;
        return;
      }
      break;
    case Op::Bmsk:
    case Op::Shf:
      if (m == "l" && op == Op::Shf) {
        in.shf_right = false;
        return;
      }
      if (m == "r" && op == Op::Shf) {
        in.shf_right = true;
        return;
      }
      if (m == "wrap") {
        in.shf_clamp = false;
        return;
      }
      if (m == "clamp") {
        in.shf_clamp = true;
        return;
      }
      break;
    case Op::Testp: {
      static const std::unordered_map<std::string, TestpMode> tm = {
          {"finite", TestpMode::Finite}, {"infinite", TestpMode::Infinite},
          {"number", TestpMode::Number}, {"notanumber", TestpMode::NotANumber},
          {"normal", TestpMode::Normal}, {"subnormal", TestpMode::Subnormal}};
      if (auto it = tm.find(m); it != tm.end()) {
        in.testp = it->second;
        return;
      }
      break;
    }
    case Op::Ld:
      if (m == "unified") return;
      break;
    case Op::Membar:
      return; // membar.gl/.cta/.sys handled above; anything else is a scope too
    default:
      break;
    }
    bad();
  }

  Operand parse_symbol_operand(const std::string& name, unsigned line) {
    Operand o;
    o.kind = Operand::Kind::Symbol;
    o.name = name;
    int l = lookup_local(name);
    if (l >= 0) {
      o.sym.scope = SymRef::Scope::Local;
      o.sym.index = unsigned(l);
      return o;
    }
    for (size_t i = 0; i < fn->params.size(); ++i)
      if (fn->params[i].name == name) {
        o.sym.scope = SymRef::Scope::Param;
        o.sym.index = unsigned(i);
        return o;
      }
    for (size_t i = 0; i < fn->ret_params.size(); ++i)
      if (fn->ret_params[i].name == name) {
        o.sym.scope = SymRef::Scope::RetParam;
        o.sym.index = unsigned(i);
        return o;
      }
    int g = mod.var_index(name);
    if (g >= 0) {
      o.sym.scope = SymRef::Scope::Global;
      o.sym.index = unsigned(g);
      return o;
    }
    int f = mod.function_index(name);
    if (f >= 0) {
      o.sym.scope = SymRef::Scope::Function;
      o.sym.index = unsigned(f);
      return o;
    }
    fail(line, "undeclared identifier '" + name + "'");
  }

  static const std::unordered_map<std::string, std::pair<SReg, bool>>& sreg_table() {
    static const std::unordered_map<std::string, std::pair<SReg, bool>> tab = {
        {"%tid", {SReg::Tid, true}},
        {"%ntid", {SReg::Ntid, true}},
        {"%ctaid", {SReg::Ctaid, true}},
        {"%nctaid", {SReg::Nctaid, true}},
        {"%laneid", {SReg::Laneid, false}},
        {"%warpid", {SReg::Warpid, false}},
        {"%nwarpid", {SReg::Nwarpid, false}},
        {"%smid", {SReg::Smid, false}},
        {"%nsmid", {SReg::Nsmid, false}},
        {"%gridid", {SReg::Gridid, false}},
        {"%clock", {SReg::Clock, false}},
        {"%clock64", {SReg::Clock64, false}},
        {"%globaltimer", {SReg::Globaltimer, false}},
        {"%lanemask_eq", {SReg::LanemaskEq, false}},
        {"%lanemask_le", {SReg::LanemaskLe, false}},
        {"%lanemask_lt", {SReg::LanemaskLt, false}},
        {"%lanemask_ge", {SReg::LanemaskGe, false}},
        {"%lanemask_gt", {SReg::LanemaskGt, false}},
        {"%dynamic_smem_size", {SReg::DynamicSmemSize, false}},
        {"%total_smem_size", {SReg::TotalSmemSize, false}},
        {"%reserved_smem_offset_begin", {SReg::ReservedSmemBegin, false}},
        {"%reserved_smem_offset_end", {SReg::ReservedSmemEnd, false}},
        {"%reserved_smem_offset_cap", {SReg::ReservedSmemCap, false}}};
    return tab;
  }

  // The PTX name of special register operand `o` ("%tid.y"), for messages.
  static std::string sreg_text(const Operand& o) {
    if (o.sreg == SReg::Envreg) return "%envreg" + std::to_string(o.comp);
    if (o.sreg == SReg::ReservedSmemOffset)
      return "%reserved_smem_offset_" + std::to_string(o.comp);
    for (const auto& [name, e] : sreg_table())
      if (e.first == o.sreg) return e.second ? name + "." + "xyz"[o.comp % 3] : name;
    return "a special register";
  }

  bool special_reg(const std::string& n, Operand& o) {
    std::string base = n;
    int comp = -1;
    size_t dot = n.find('.');
    if (dot != std::string::npos) {
      base = n.substr(0, dot);
      std::string c = n.substr(dot + 1);
      if (c == "x")
        comp = 0;
      else if (c == "y")
        comp = 1;
      else if (c == "z")
        comp = 2;
      else
        return false;
    }
    // %envreg0..31: read-only registers the driver sets at the launch (the cooperative grid's
    // workspace address is in %envreg1:%envreg2).
    if (comp < 0 && base.rfind("%envreg", 0) == 0 && base.size() > 7 && base.size() <= 9 &&
        base.find_first_not_of("0123456789", 7) == std::string::npos &&
        std::stoi(base.substr(7)) < 32) {
      o.kind = Operand::Kind::Special;
      o.sreg = SReg::Envreg;
      o.comp = uint8_t(std::stoi(base.substr(7)));
      return true;
    }
    // %reserved_smem_offset_0 and _1: offsets into the CTA's reserved shared memory.
    if (n == "%reserved_smem_offset_0" || n == "%reserved_smem_offset_1") {
      o.kind = Operand::Kind::Special;
      o.sreg = SReg::ReservedSmemOffset;
      o.comp = uint8_t(n.back() - '0');
      return true;
    }
    const auto& tab = sreg_table();
    auto it = tab.find(base);
    if (it == tab.end()) return false;
    if (it->second.second != (comp >= 0)) {
      if (!it->second.second) return false;
      comp = 0; // %tid without component: treat as .x
    }
    o.kind = Operand::Kind::Special;
    o.sreg = it->second.first;
    o.comp = uint8_t(comp < 0 ? 0 : comp);
    return true;
  }

  // One operand (no '|' handling). `label_ctx`: identifiers are branch labels.
  Operand parse_operand(bool label_ctx, unsigned line) {
    Operand o;
    const Tok& t = cur();
    if (t.k == TK::Punct && t.s == "[") {
      ++p;
      o.kind = Operand::Kind::Addr;
      if (cur().k == TK::Ident) {
        std::string n = toks[p++].s;
        int r = lookup_reg(n);
        if (r >= 0) {
          if (fn->regs[size_t(r)].is_pred) fail(line, "predicate '" + n + "' used as an address");
          o.reg = unsigned(r);
          o.has_base_reg = true;
          o.name = n;
        } else {
          Operand s = parse_symbol_operand(n, line);
          if (s.sym.scope == SymRef::Scope::Function)
            fail(line, "function '" + n + "' used as a memory address");
          o.sym = s.sym;
          o.name = n;
        }
        if (is_punct("+") || is_punct("-")) {
          bool neg = is_punct("-");
          ++p;
          if (is_punct("-")) {
            neg = !neg;
            ++p;
          }
          uint64_t v = expect_uint("an address offset");
          o.offset = neg ? -int64_t(v) : int64_t(v);
        }
      } else if (cur().k == TK::Number) {
        o.offset = int64_t(expect_uint("an address"));
      } else {
        fail(line,
             "expected a register, symbol or number in the address, found " + describe(cur()));
      }
      expect_punct("]", "to close the address");
      return o;
    }
    if (t.k == TK::Punct && t.s == "{") {
      ++p;
      o.kind = Operand::Kind::Vector;
      for (;;) {
        Operand e = parse_operand(false, line);
        if (e.kind != Operand::Kind::Reg && e.kind != Operand::Kind::Imm &&
            e.kind != Operand::Kind::Sink)
          fail(line, "vector elements must be registers, constants or '_'");
        o.elems.push_back(e);
        if (is_punct(",")) {
          ++p;
          continue;
        }
        break;
      }
      expect_punct("}", "to close the vector operand");
      return o;
    }
    if (t.k == TK::Punct && t.s == "!") {
      ++p;
      Operand r = parse_operand(false, line);
      if (r.kind != Operand::Kind::Reg || !fn->regs[r.reg].is_pred)
        fail(line, "'!' must be followed by a predicate register");
      r.negate = true;
      return r;
    }
    if (t.k == TK::Punct && t.s == "-") {
      ++p;
      if (cur().k != TK::Number) fail(line, "expected a number after '-'");
      if (!parse_number(cur().s, o)) fail(line, "malformed number " + describe(cur()));
      ++p;
      if (o.imm_kind == Operand::ImmKind::Int) {
        o.imm = uint64_t(0) - o.imm;
      } else if (o.imm_kind == Operand::ImmKind::F32) {
        o.imm ^= 0x80000000u;
      } else {
        o.imm ^= 0x8000000000000000ull;
      }
      return o;
    }
    if (t.k == TK::Number) {
      if (!parse_number(t.s, o)) fail(line, "malformed number " + describe(t));
      ++p;
      return o;
    }
    if (t.k == TK::Ident) {
      std::string n = t.s;
      ++p;
      if (n == "_") {
        o.kind = Operand::Kind::Sink;
        return o;
      }
      int r = lookup_reg(n);
      if (r >= 0) {
        o.kind = Operand::Kind::Reg;
        o.reg = unsigned(r);
        o.name = n;
        return o;
      }
      if (auto it = vec_regs.find(n); it != vec_regs.end()) {
        o.kind = Operand::Kind::Vector;
        static const char* comp[] = {".x", ".y", ".z", ".w"};
        for (unsigned i = 0; i < it->second; ++i) {
          Operand e;
          e.kind = Operand::Kind::Reg;
          e.reg = unsigned(lookup_reg(n + comp[i]));
          e.name = n + comp[i];
          o.elems.push_back(e);
        }
        return o;
      }
      if (n[0] == '%') {
        if (special_reg(n, o)) return o;
        fail(line, "undeclared register '" + n + "'");
      }
      if (label_ctx) {
        o.kind = Operand::Kind::Label;
        o.name = n;
        return o;
      }
      if (n == "WARP_SZ" && mod.var_index(n) < 0 && lookup_local(n) < 0) {
        // PTX's predefined constant, the warp size (CUDA's half-precision shuffles read it).
        o.kind = Operand::Kind::Imm;
        o.imm = 32;
        o.imm_kind = Operand::ImmKind::Int;
        return o;
      }
      o = parse_symbol_operand(n, line);
      if (is_punct("+")) {
        ++p;
        o.offset = int64_t(expect_uint("an offset after '+'"));
      }
      return o;
    }
    fail(line, "expected an operand, found " + describe(t));
  }

  void parse_call(Instr& in, unsigned line) {
    // call{.uni} [(ret, ...),] func [, (arg, ...)] ;
    auto plist = [&](std::vector<Operand>& out) {
      expect_punct("(", "to open the call parameter list");
      if (!is_punct(")")) {
        for (;;) {
          std::string n = expect_ident("a call parameter name");
          Operand o = parse_symbol_operand(n, line);
          if (o.sym.scope != SymRef::Scope::Local && o.sym.scope != SymRef::Scope::Param &&
              o.sym.scope != SymRef::Scope::RetParam)
            fail(line, "call parameter '" + n + "' must be a .param variable");
          out.push_back(o);
          if (is_punct(",")) {
            ++p;
            continue;
          }
          break;
        }
      }
      expect_punct(")", "to close the call parameter list");
    };
    if (is_punct("(")) {
      plist(in.dst);
      expect_punct(",", "after the call's return parameter list");
    }
    std::string callee = expect_ident("the called function's name");
    if (const int r = lookup_reg(callee); r >= 0) { // call %rd, (args), prototype
      if (fn->regs[size_t(r)].is_pred || fn->regs[size_t(r)].width_bits != 64)
        fail(line, "indirect call through '" + callee + "': a 64-bit register holds the address");
      in.indirect = true;
      Operand o;
      o.kind = Operand::Kind::Reg;
      o.reg = unsigned(r);
      o.name = callee;
      in.src.push_back(o);
    }
    in.callee_name = callee;
    if (is_punct(",")) {
      ++p;
      if (is_punct("(")) {
        plist(in.src);
        if (is_punct(",")) ++p;
      }
      if (in.indirect) {
        const std::string proto = expect_ident("the call's .callprototype (or target list)");
        if (!prototypes.count(proto))
          fail(line, "indirect call through '" + callee + "' names '" + proto +
                         "', which is no .callprototype of this function (.calltargets lists "
                         "are not supported)");
        in.callee_name = proto;
      }
    }
    if (in.indirect && in.callee_name == callee)
      fail(line, "indirect call through '" + callee + "' without a .callprototype");
    if (is_punct(",")) fail(line, "unexpected operand after the call's parameter list");
    expect_punct(";", "after the call");
  }

  // ------------------------------------------------------------------------------------------
  // Textures and surfaces (texture.h): the forms nvcc -arch=sm_75 emits for texture and
  // surface objects (tex1Dfetch, tex1D/2D/3D, tex2Dgather, surf1D/2D/3Dread/write).
  // ------------------------------------------------------------------------------------------
  static constexpr const char* kTexForms =
      "supported: tex.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{f32,s32} (also tex.level, tex.grad), "
      "tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}"
      ".f32, suld.b.{1d,2d,3d,a1d,a2d}[.v2|.v4].{b8,b16,b32,b64}.{trap,clamp,zero} and the same "
      "sust.b, "
      "on texture/surface objects";

  void texture_modifier(Instr& in, const std::string& m, unsigned line) {
    const bool surf = in.op == Op::Suld || in.op == Op::Sust;
    if (m == "1d" || m == "2d" || m == "3d") {
      in.tex_dims = uint8_t(m[0] - '0');
      return;
    }
    if ((m == "a1d" || m == "a2d") && in.op != Op::Tld4) { // layered: {layer, x[, y, _]}
      in.tex_dims = uint8_t(kTexLayered | (m[1] - '0'));
      return;
    }
    if (m == "v2" || m == "v4") {
      in.vec = unsigned(m[1] - '0');
      return;
    }
    if (in.op == Op::Tld4 && m.size() == 1 && std::string("rgba").find(m) != std::string::npos) {
      in.tex_comp = uint8_t(std::string("rgba").find(m));
      return;
    }
    // tex.level / tex.grad (tex1DLod, tex2DLod, tex2DGrad...): an explicit level of detail or
    // gradients; gpurf's textures have one level (no mipmapped arrays), which every LOD
    // selects, so they sample as tex does (the extra operands are read: parse_texture_instr).
    if (in.op == Op::Tex && (m == "level" || m == "grad")) return;
    if (surf && m == "b") return;
    if (surf && (m == "trap" || m == "clamp" || m == "zero")) {
      in.tex_comp = m == "trap" ? 0 : m == "clamp" ? 1 : 2;
      return;
    }
    fail(line, "unsupported modifier '." + m + "' in '" + in.text + "' (" + kTexForms + ")");
  }

  // [handle, {coords}]: src gets the handle register and the coordinate vector.
  void parse_texture_address(Instr& in, unsigned line) {
    expect_punct("[", "to open the texture/surface address");
    const std::string h = expect_ident("a texture or surface object register");
    const int r = lookup_reg(h);
    if (r < 0 || fn->regs[size_t(r)].is_pred || fn->regs[size_t(r)].width_bits != 64)
      fail(line, "'" + in.text + "': '" + h +
                     "' is not a 64-bit register holding a texture/surface object (texture "
                     "references and samplers are not supported; " +
                     kTexForms + ")");
    Operand ho;
    ho.kind = Operand::Kind::Reg;
    ho.reg = unsigned(r);
    ho.name = h;
    in.src.push_back(ho);
    expect_punct(",", "after the texture/surface object");
    const Operand c = braced(parse_operand(false, line)); // a 1d coordinate: braces optional
    if (c.kind != Operand::Kind::Vector) fail(line, "'" + in.text + "': expected {coordinates}");
    in.src.push_back(c);
    expect_punct("]", "to close the texture/surface address");
  }

  // A register written where a {vector} is expected (a 1d texture coordinate or gradient), as
  // the vector of that one register; any other operand as it is.
  static Operand braced(const Operand& o) {
    if (o.kind != Operand::Kind::Reg) return o;
    Operand v;
    v.kind = Operand::Kind::Vector;
    v.elems.push_back(o);
    return v;
  }

  void parse_texture_instr(Instr& in, unsigned line) {
    in.space = Space::Global; // the texels live in global memory
    const bool surf = in.op == Op::Suld || in.op == Op::Sust;
    auto bad = [&](const std::string& why) {
      fail(line, "'" + in.text + "': " + why + " (" + kTexForms + ")");
    };
    if (in.tex_dims == 0) bad("no .1d/.2d/.3d/.a1d/.a2d geometry");
    if (in.op == Op::Tld4 && in.tex_dims != 2) bad("tld4 needs .2d");
    if (surf) {
      if (in.type != Type::B8 && in.type != Type::B16 && in.type != Type::B32 &&
          in.type != Type::B64)
        bad("the element type must be .b8, .b16, .b32 or .b64");
    } else {
      if (in.vec != 4) bad("the result must be .v4");
      if (in.type != Type::F32 && in.type != Type::S32 && in.type != Type::U32)
        bad("the result type must be .f32, .s32 or .u32");
      if (in.type2 != Type::F32 && !(in.type2 == Type::S32 && in.op == Op::Tex))
        bad("the coordinate type must be .f32 (tex: or .s32)");
    }
    Operand value;
    if (in.op == Op::Sust) {
      parse_texture_address(in, line);
      expect_punct(",", "after the surface address");
      value = parse_operand(false, line);
    } else {
      value = parse_operand(false, line);
      expect_punct(",", "after the destination");
      parse_texture_address(in, line);
    }
    const unsigned dims = in.tex_dims & 3u; // the coordinates (.a1d: 1 + the layer; .a2d: 4)
    const size_t need = in.tex_dims & kTexLayered ? (dims == 1 ? 2 : 4) : dims == 3 ? 4 : dims;
    if (in.op == Op::Tex && in.text.find(".level.") != std::string::npos) { // , lod
      expect_punct(",", "before the level of detail");
      const Operand lod = parse_operand(false, line);
      if (lod.kind != Operand::Kind::Reg && lod.kind != Operand::Kind::Imm)
        bad("the level of detail must be a register or a constant");
      in.src.push_back(lod);
    } else if (in.op == Op::Tex && in.text.find(".grad.") != std::string::npos) { // , dPdx, dPdy
      for (int g = 0; g < 2; ++g) {
        expect_punct(",", "before a gradient");
        const Operand v = braced(parse_operand(false, line)); // a 1d gradient: braces optional
        if (v.kind != Operand::Kind::Vector || v.elems.size() != (dims == 3 ? 4u : dims))
          bad("a gradient of " + std::to_string(dims == 3 ? 4u : dims) + " register(s) expected");
        in.src.push_back(v);
      }
    }
    if (!is_punct(";")) bad("unexpected operands after the address");
    ++p;
    if (in.src[1].elems.size() != need)
      bad(std::to_string(need) + " coordinates expected, got " +
          std::to_string(in.src[1].elems.size()));
    for (const Operand& e : in.src[1].elems)
      if (e.kind != Operand::Kind::Reg) bad("coordinates must be registers");
    const unsigned n = in.vec;
    const bool vec_ok = n == 1 ? (value.kind == Operand::Kind::Reg ||
                                  (value.kind == Operand::Kind::Vector && value.elems.size() == 1))
                               : value.kind == Operand::Kind::Vector && value.elems.size() == n;
    if (!vec_ok) bad(std::to_string(n) + " value register(s) expected");
    if (value.kind == Operand::Kind::Vector && n == 1) value = value.elems[0];
    if (in.op == Op::Sust)
      in.src.push_back(value);
    else
      in.dst.push_back(value);
  }

  void parse_instr(unsigned fidx) {
    Instr in;
    const unsigned line = cur().line;
    in.ptx_line = line;
    if (is_punct("@")) {
      ++p;
      bool neg = false;
      if (is_punct("!")) {
        neg = true;
        ++p;
      }
      std::string g = expect_ident("a guard predicate after '@'");
      int r = lookup_reg(g);
      if (r < 0) fail(line, "undeclared predicate '" + g + "'");
      if (!fn->regs[size_t(r)].is_pred) fail(line, "guard '" + g + "' is not a predicate");
      in.guard = r;
      in.guard_neg = neg;
    }
    if (cur().k != TK::Ident) fail(line, "expected an instruction, found " + describe(cur()));
    in.text = toks[p++].s;
    std::vector<std::string> parts;
    {
      std::string s;
      for (size_t i = 0; i < in.text.size(); ++i) {
        char c = in.text[i];
        if (c == '.' && !(i > 0 && in.text[i - 1] == ':')) {
          parts.push_back(s);
          s.clear();
        } else {
          s += c;
        }
      }
      parts.push_back(s);
    }
    BarMode bm;
    size_t first_mod = 1;
    // .L2::cache_hint (ld, st, atom, red, cp.async, prefetch): a last operand, the 64-bit cache
    // policy createpolicy made; a hint for L2's eviction that changes no value: dropped.
    bool cache_hint = false;
    for (size_t i = 1; i < parts.size(); ++i)
      if (parts[i] == "L2::cache_hint") {
        cache_hint = true;
        parts.erase(parts.begin() + long(i));
        break;
      }
    // createpolicy (sm_80: cuda::access_property, cuda::annotated_ptr): an opaque 64-bit policy
    // that only .L2::cache_hint operands read; a mov of 0, its operands (fraction, range) read
    // for their registers but not kept.
    const bool createpolicy = parts[0] == "createpolicy";
    // discard.global.L2 [a], 128 and applypriority.global.L2::evict_normal [a], 128 (sm_80):
    // L2 line hints. discard leaves the line's bytes undefined; gpurf keeps them (one of the
    // values the ISA allows). A prefetch of the address, its size operand dropped.
    const bool line_hint = parts[0] == "discard" || parts[0] == "applypriority";
    if (line_hint) {
      in.op = Op::Prefetch;
      first_mod = parts.size();
      for (size_t i = 1; i < parts.size(); ++i)
        if (parts[i] == "global")
          in.space = Space::Global;
        else if (parts[i] != "L2" && parts[i].rfind("L2::", 0) != 0)
          fail(line, "unsupported modifier '." + parts[i] + "' in '" + in.text + "'");
    } else if (createpolicy) {
      in.op = Op::Mov;
      in.type = Type::B64;
      first_mod = parts.size();
      for (size_t i = 1; i < parts.size(); ++i)
        if (parts[i] != "fractional" && parts[i] != "range" && parts[i] != "global" &&
            parts[i] != "b64" && parts[i].rfind("L2::", 0) != 0)
          fail(line, "unsupported modifier '." + parts[i] + "' in '" + in.text + "'");
    } else if (parts[0] == "cp" && parts.size() > 2 && parts[1] == "async") {
      // cp.async.{ca,cg}, .commit_group, .wait_group, .wait_all (async_copy.h); the bulk and
      // mbarrier forms (sm_90) are not supported.
      first_mod = 3;
      if (parts[2] == "ca" || parts[2] == "cg") {
        in.op = Op::CpAsync;
        in.space = Space::Global;
      } else if (parts[2] == "commit_group" && parts.size() == 3) {
        in.op = Op::CpAsyncCommit;
      } else if ((parts[2] == "wait_group" || parts[2] == "wait_all") && parts.size() == 3) {
        in.op = Op::CpAsyncWait;
        in.cp_all = parts[2] == "wait_all";
      } else if (parts[2] == "mbarrier" && parts.size() > 3 && parts[3] == "arrive") {
        // cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar]: a wait_all whose lanes then
        // arrive (.noinc) or do nothing (without it the pending count rises and falls by one)
        in.op = Op::CpAsyncWait;
        in.cp_all = true;
        in.space = Space::Shared;
        first_mod = 4;
        for (size_t i = 4; i < parts.size(); ++i)
          if (parts[i] == "noinc")
            in.atom = AtomOp::MbarArrive;
          else if (parts[i] != "shared" && parts[i] != "shared::cta" && parts[i] != "b64")
            fail(line, "unsupported modifier '." + parts[i] + "' in '" + in.text + "'");
        first_mod = parts.size();
      } else {
        fail(line, "unsupported PTX instruction '" + in.text +
                       "' (cp.async.ca/.cg, .commit_group, .wait_group and .wait_all are)");
      }
    } else if (parts[0] == "mbarrier" && parts.size() > 1) {
      // mbarrier.{init, inval, arrive, arrive_drop, test_wait, try_wait}{.parity} (sm_80):
      // atomics on the barrier object (mbarrier.h); the transaction-count forms are sm_90's
      static const std::unordered_map<std::string, std::pair<Op, AtomOp>> mb = {
          {"init", {Op::Red, AtomOp::MbarInit}},
          {"inval", {Op::Red, AtomOp::MbarInval}},
          {"arrive", {Op::Atom, AtomOp::MbarArrive}},
          {"arrive_drop", {Op::Atom, AtomOp::MbarArriveDrop}},
          {"test_wait", {Op::Atom, AtomOp::MbarTestWait}},
          {"try_wait", {Op::Atom, AtomOp::MbarTestWait}}};
      const auto it = mb.find(parts[1]);
      if (it == mb.end())
        fail(line, "unsupported PTX instruction '" + in.text +
                       "' (mbarrier.init, .inval, .arrive, .arrive_drop, .test_wait and "
                       ".try_wait are; the transaction-count forms are not)");
      in.op = it->second.first;
      in.atom = it->second.second;
      first_mod = 2;
      if (parts.size() > 2 && parts[2] == "parity" && in.atom == AtomOp::MbarTestWait) {
        in.atom = AtomOp::MbarTestWaitParity;
        first_mod = 3;
      }
      // .noComplete (an arrive of `count` that must not complete the phase: CUDA's
      // barrier::arrive(n > 1), kept in debug builds): a conforming program's arrive never
      // completes it, so it is the plain arrive (one that does is undefined in PTX).
      for (size_t i = first_mod; i < parts.size(); ++i)
        if (parts[i] == "noComplete" &&
            (in.atom == AtomOp::MbarArrive || in.atom == AtomOp::MbarArriveDrop)) {
          parts.erase(parts.begin() + long(i));
          --i;
        } else if (parts[i] == "noComplete" || parts[i] == "expect_tx") {
          fail(line, "unsupported modifier '." + parts[i] + "' in '" + in.text + "'");
        }
    } else if (video_from_name(parts[0], in)) {
      // vadd2 ... vmax4: the operation and the element count from the name
    } else if (!op_from_name(parts[0], in.op, bm)) {
      fail(line, "unsupported PTX instruction '" + in.text + "'");
    }
    for (size_t i = first_mod; i < parts.size(); ++i) {
      if (parts[i].empty()) fail(line, "malformed instruction '" + in.text + "'");
      apply_modifier(in, parts[i], line);
    }
    if (in.op == Op::Bar && in.bar == BarMode::None) {
      if (parts[0] == "barrier" || parts.size() == 1)
        in.bar = BarMode::Sync;
      else
        fail(line, "unsupported PTX instruction '" + in.text + "'");
    }
    if ((in.op == Op::Ld || in.op == Op::Ldu || in.op == Op::St || in.op == Op::Atom ||
         in.op == Op::Red || in.op == Op::Prefetch ||
         (in.op == Op::Wmma && in.tensor.wmma != 'm')) &&
        in.space == Space::None)
      in.space = Space::Generic;
    if (in.op == Op::Cvta && in.space == Space::None)
      fail(line, "cvta needs a state space in '" + in.text + "'");
    if (in.op == Op::Isspacep && (in.space == Space::None || in.space == Space::Generic))
      fail(line, "unsupported form '" + in.text +
                     "' (isspacep.global, .shared, .local, .param and .const are)");
    if (in.op == Op::Call) {
      parse_call(in, line);
      finish_instr(std::move(in), fidx, line);
      return;
    }
    if (in.op == Op::Tex || in.op == Op::Tld4 || in.op == Op::Suld || in.op == Op::Sust) {
      parse_texture_instr(in, line);
      finish_instr(std::move(in), fidx, line);
      return;
    }
    // operand groups (a|b pairs)
    std::vector<std::vector<Operand>> groups;
    const bool label_ctx = in.op == Op::Bra;
    if (!is_punct(";")) {
      for (;;) {
        std::vector<Operand> g;
        g.push_back(parse_operand(label_ctx, line));
        while (is_punct("|")) {
          ++p;
          g.push_back(parse_operand(label_ctx, line));
        }
        groups.push_back(std::move(g));
        if (is_punct(",")) {
          ++p;
          continue;
        }
        break;
      }
    }
    if (!is_punct(";"))
      fail(line,
           "expected ';' or ',' after the operands of '" + in.text + "', found " + describe(cur()));
    ++p;
    if (cache_hint) {
      if (groups.size() < 2 || groups.back().size() != 1 ||
          (groups.back()[0].kind != Operand::Kind::Reg &&
           groups.back()[0].kind != Operand::Kind::Imm))
        fail(line, "'" + in.text + "' needs a cache-policy operand last");
      groups.pop_back();
    }
    if (line_hint) {
      if (groups.size() != 2 || groups[1].size() != 1 || groups[1][0].kind != Operand::Kind::Imm ||
          groups[1][0].imm != 128)
        fail(line, "'" + in.text + "' expects an address and the size 128");
      groups.pop_back();
    }
    if (createpolicy) {
      if (groups.size() < 2 || groups[0].size() != 1 || groups[0][0].kind != Operand::Kind::Reg)
        fail(line, "'" + in.text + "' expects a destination register and its policy operands");
      groups.resize(2);
      groups[1] = {Operand{}};
      groups[1][0].kind = Operand::Kind::Imm;
    }
    classify_operands(in, groups, line);
    finish_instr(std::move(in), fidx, line);
  }

  void classify_operands(Instr& in, std::vector<std::vector<Operand>>& groups, unsigned line) {
    int ndst = 1;
    switch (in.op) {
    case Op::St:
    case Op::Red:
    case Op::Bra:
    case Op::Membar:
    case Op::Fence:
    case Op::Prefetch:
    case Op::Ret:
    case Op::Exit:
    case Op::Nanosleep:
    case Op::Griddepcontrol:
    case Op::Trap:
    case Op::CpAsync:
    case Op::CpAsyncCommit:
    case Op::CpAsyncWait:
      ndst = 0;
      break;
    case Op::Bar:
      ndst = in.bar == BarMode::Red ? 1 : 0;
      break;
    case Op::Wmma:
      ndst = in.tensor.wmma == 's' ? 0 : 1;
      break;
    default:
      break;
    }
    size_t gi = 0;
    if (ndst == 1) {
      if (groups.empty()) fail(line, "'" + in.text + "' expects a destination operand");
      in.dst = groups[0];
      gi = 1;
      size_t maxd =
          (in.op == Op::Setp || in.op == Op::Shfl || in.op == Op::Match || in.op == Op::Elect) ? 2
                                                                                               : 1;
      if (in.dst.size() > maxd) fail(line, "too many destinations ('|') in '" + in.text + "'");
      for (const auto& d : in.dst) {
        if (d.kind == Operand::Kind::Special)
          fail(line, "destination of '" + in.text + "': " + sreg_text(d) +
                         " is a read-only special register; write a register declared with .reg");
        if (d.kind != Operand::Kind::Reg && d.kind != Operand::Kind::Vector &&
            d.kind != Operand::Kind::Sink)
          fail(line, "destination of '" + in.text + "' must be a register");
      }
    }
    for (; gi < groups.size(); ++gi) {
      if (groups[gi].size() != 1) fail(line, "unexpected '|' in a source operand");
      in.src.push_back(groups[gi][0]);
    }
    // operand-count checks
    size_t lo = 0, hi = 0;
    switch (in.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Rem:
    case Op::Min:
    case Op::Max:
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Shl:
    case Op::Shr:
    case Op::Addc:
    case Op::Subc:
    case Op::Mul24:
    case Op::Copysign:
    case Op::Bmsk:
      lo = hi = 2;
      break;
    case Op::Mad:
    case Op::Fma:
    case Op::Madc:
    case Op::Mad24:
    case Op::Selp:
    case Op::Slct:
    case Op::Bfe:
    case Op::Prmt:
    case Op::Shf:
    case Op::Sad:
    case Op::Dp4a:
    case Op::Dp2a:
    case Op::Fns:
    case Op::Vsimd:
      lo = hi = 3;
      if (packed_16x2(in)) {
        if (in.src.size() != 2) fail(line, "'" + in.text + "' takes a destination and two sources");
        Operand zero;
        zero.kind = Operand::Kind::Imm;
        zero.imm = 0;
        in.src.push_back(zero);
      }
      break;
    case Op::Redux:
      lo = hi = 2;
      break;
    case Op::Elect:
      lo = hi = 1;
      break;
    case Op::CpAsync: // [dst], [src], cp-size {, src-size | ignore-src}
      lo = 3;
      hi = 4;
      break;
    case Op::CpAsyncWait: // wait_group N, wait_all, cp.async.mbarrier.arrive [mbar]
      lo = hi = in.space == Space::Shared ? 1 : in.cp_all ? 0 : 1;
      break;
    case Op::Bfi:
    case Op::Lop3:
    case Op::Shfl:
      lo = hi = 4;
      break;
    case Op::Mma:
      lo = hi = 3;
      break;
    case Op::Wmma: // load: [p][, stride]; store: [p], d[, stride]; mma: a, b, c
      lo = in.tensor.wmma == 'm' ? 3 : in.tensor.wmma == 's' ? 2 : 1;
      hi = in.tensor.wmma == 'm' ? 3 : lo + 1;
      break;
    case Op::Ldmatrix:
    case Op::Movmatrix:
      lo = hi = 1;
      break;
    case Op::Abs:
    case Op::Neg:
    case Op::Not:
    case Op::Cnot:
    case Op::Popc:
    case Op::Clz:
    case Op::Brev:
    case Op::Bfind:
    case Op::Rcp:
    case Op::Sqrt:
    case Op::Rsqrt:
    case Op::Ex2:
    case Op::Lg2:
    case Op::Sin:
    case Op::Cos:
    case Op::Tanh:
    case Op::Mov:
    case Op::Cvt: // cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b: two sources
      lo = hi =
          in.fmt != CvtFormat::None && in.fmt != CvtFormat::Tf32 && in.type2 == Type::F32 ? 2 : 1;
      break;
    case Op::Cvta:
    case Op::Testp:
    case Op::Isspacep:
    case Op::Ld:
    case Op::Ldu:
    case Op::Prefetch:
    case Op::Bra:
    case Op::Nanosleep:
      lo = hi = 1;
      break;
    case Op::Setp:
    case Op::Set:
      lo = hi = in.bop == BoolOp::None ? 2 : 3;
      break;
    case Op::St:
    case Op::Red:
    case Op::Vote:
    case Op::Match:
      lo = hi = in.atom == AtomOp::MbarInval ? 1 : 2;
      break;
    case Op::Atom:
      lo = hi = in.atom == AtomOp::Cas ? 3 : 2;
      if (in.atom == AtomOp::MbarArrive || in.atom == AtomOp::MbarArriveDrop) lo = 1; // [count]
      if (in.atom == AtomOp::MbarTestWait || in.atom == AtomOp::MbarTestWaitParity)
        hi = 3; // [a suspend-time hint]
      break;
    case Op::Bar:
      if (in.bar == BarMode::Red) {
        lo = 2;
        hi = 3;
      } else if (in.bar == BarMode::Warp) {
        lo = hi = 1;
      } else {
        lo = 0;
        hi = 2;
      }
      break;
    default:
      lo = hi = 0;
      break;
    }
    if (in.op == Op::Cvt && in.fmt == CvtFormat::None &&
        (in.type == Type::F16X2 || in.type == Type::BF16X2))
      lo = hi = 2; // cvt.rn.f16x2.f32 d, a, b: a into the high half
    if (in.src.size() < lo || in.src.size() > hi) {
      std::string want =
          lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
      fail(line, "'" + in.text + "' expects " + want + " source operand" + (hi == 1 ? "" : "s") +
                     ", got " + std::to_string(in.src.size()));
    }
    // operand-kind checks
    auto need_addr = [&](size_t i) {
      if (in.src[i].kind != Operand::Kind::Addr)
        fail(line, "expected an address [..] operand in '" + in.text + "'");
    };
    switch (in.op) {
    case Op::Ld:
    case Op::Ldu:
    case Op::St:
    case Op::Atom:
    case Op::Red:
    case Op::Prefetch:
    case Op::Ldmatrix:
      need_addr(0);
      break;
    case Op::Wmma:
      if (in.tensor.wmma != 'm') need_addr(0);
      for (size_t i = in.tensor.wmma != 'm'; i < in.src.size(); ++i)
        if (in.src[i].kind == Operand::Kind::Addr)
          fail(line, "unexpected address operand in '" + in.text + "'");
      break;
    case Op::CpAsync:
      need_addr(0);
      need_addr(1);
      for (size_t i = 2; i < in.src.size(); ++i)
        if (in.src[i].kind == Operand::Kind::Addr)
          fail(line, "unexpected address operand in '" + in.text + "'");
      break;
    case Op::Bra:
      if (in.src[0].kind != Operand::Kind::Label) fail(line, "bra expects a label");
      break;
    case Op::CpAsyncWait:
      if (in.space == Space::Shared) need_addr(0); // cp.async.mbarrier.arrive [mbar]
      break;
    default:
      for (const auto& s : in.src)
        if (s.kind == Operand::Kind::Addr)
          fail(line, "unexpected address operand in '" + in.text + "'");
      break;
    }
    if (TensorKind tk; tensor_kind(in.op, tk)) check_tensor(in, tk, line);
    // types: instructions that need one
    switch (in.op) {
    case Op::Bra:
    case Op::Call:
    case Op::Ret:
    case Op::Exit:
    case Op::Trap:
    case Op::Bar:
    case Op::Membar:
    case Op::Fence:
    case Op::Prefetch:
    case Op::Nanosleep:
    case Op::Griddepcontrol:
    case Op::Cvta:
    case Op::Elect:
    case Op::CpAsync:
    case Op::CpAsyncCommit:
    case Op::CpAsyncWait:
    case Op::Isspacep: // isspacep.space p, a: no type (a is an address register)
      if (in.op == Op::Cvta && in.type == Type::None) fail(line, "cvta needs a type");
      break;
    default:
      if (in.type == Type::None) fail(line, "'" + in.text + "' has no type");
    }
    if (in.op == Op::Cvt && in.type2 == Type::None) fail(line, "cvt needs two types");
    if (in.op == Op::Slct && in.type2 == Type::None) fail(line, "slct needs two types");
    if (in.op == Op::Setp && in.cmp == CmpOp::None) fail(line, "setp needs a comparison");
    if (in.op == Op::Set && !set_form(in))
      fail(line, "unsupported form '" + in.text +
                     "': set.CmpOp[.BoolOp][.ftz].dtype.stype with dtype .u32/.s32/.f32/.f16/.bf16 "
                     "for an integer or .f32/.f64 stype, .u16/.s16/.u32/.s32 or itself for .f16/"
                     ".bf16, .u32/.s32 or itself for .f16x2/.bf16x2; lo/ls/hi/hs on integers only");
    if ((in.op == Op::Atom || in.op == Op::Red) && in.atom == AtomOp::None)
      fail(line, "'" + in.text + "' needs an atomic operation");
    if (in.op == Op::Shfl && in.shfl == ShflMode::None) fail(line, "shfl needs a mode");
    check_warp_op(in, line);
    if (in.op == Op::Vote && in.vote == VoteMode::None) fail(line, "vote needs a mode");
    if (in.op == Op::Match && in.match == MatchMode::None) fail(line, "match needs a mode");
    if (in.op == Op::Testp && in.testp == TestpMode::None) fail(line, "testp needs a mode");
    if (in.op == Op::Bar && in.bar == BarMode::Red && in.bop == BoolOp::None)
      fail(line, "bar.red needs .popc, .and or .or");
    if (in.op == Op::Shfl && in.src[3].kind == Operand::Kind::None)
      fail(line, "shfl needs a member mask");
    // Predicates are held to the rules registers are: where the ISA wants a .pred register a
    // data register is refused (else the predicate read is one nothing wrote).
    auto need_pred = [&](const Operand& o, const char* what) {
      if (o.kind != Operand::Kind::Reg || fn->regs[o.reg].is_pred) return;
      const VReg& r = fn->regs[o.reg];
      fail(line, std::string(what) + " of '" + in.text + "' must be a .pred register; '" + r.name +
                     "' is ." + type_name(r.type));
    };
    if (in.op == Op::Setp) {
      for (const Operand& d : in.dst) need_pred(d, "the destination");
      if (in.bop != BoolOp::None && in.src.size() > 2)
        need_pred(in.src[2], "the predicate operand c");
    }
    if (in.op == Op::Selp && in.src.size() > 2) need_pred(in.src[2], "the selector c");
    if (in.op == Op::Isspacep)
      for (const Operand& d : in.dst) need_pred(d, "the destination");
    if (in.op == Op::Set && in.bop != BoolOp::None && in.src.size() > 2)
      need_pred(in.src[2], "the predicate operand c");
  }

  // The dtype/stype pairs of the PTX ISA's set and half-precision set.
  static bool set_form(const Instr& in) {
    const Type d = in.type, st = in.type2;
    if (in.cmp == CmpOp::None || st == Type::None || st == Type::Pred) return false;
    const bool int_d = d == Type::U32 || d == Type::S32;
    const bool unsigned_cmp =
        in.cmp == CmpOp::LO || in.cmp == CmpOp::LS || in.cmp == CmpOp::HI || in.cmp == CmpOp::HS;
    if (unsigned_cmp && (type_is_float(st) || type_is_half(st))) return false;
    if (st == Type::F16X2 || st == Type::BF16X2) return int_d || d == st;
    if (st == Type::F16 || st == Type::BF16)
      return int_d || d == Type::U16 || d == Type::S16 || d == st;
    return int_d || d == Type::F32 || d == Type::F16 || d == Type::BF16;
  }

  static bool tensor_kind(Op op, TensorKind& k) {
    k = op == Op::Mma        ? TensorKind::Mma
        : op == Op::Ldmatrix ? TensorKind::Ldmatrix
        : op == Op::Wmma     ? TensorKind::Wmma
                             : TensorKind::Movmatrix;
    return op == Op::Mma || op == Op::Ldmatrix || op == Op::Movmatrix || op == Op::Wmma;
  }

  // A tensor instruction's form (mma.h) and its operands: vectors of as many registers of the
  // fragment's width as the form holds per lane.
  void check_tensor(Instr& in, TensorKind tk, unsigned line) {
    tensor_normalize(tk, in.tensor);
    const TensorSpec& ts = in.tensor;
    if (std::string why = tensor_check(tk, ts); !why.empty())
      fail(line, "unsupported form '" + in.text + "': " + why);
    if (tk == TensorKind::Ldmatrix && in.space != Space::Shared)
      fail(line, "'" + in.text + "' needs .shared (ldmatrix reads shared memory)");
    in.type = tk == TensorKind::Ldmatrix ? Type::B16 : Type::B32;
    auto regs = [&](const Operand& o, unsigned n, unsigned bits, const char* what) {
      const bool vec = o.kind == Operand::Kind::Vector;
      bool ok = vec ? o.elems.size() == n : (n == 1 && o.kind == Operand::Kind::Reg);
      for (const Operand& e : vec ? o.elems : std::vector<Operand>{o})
        ok = ok && e.kind == Operand::Kind::Reg && !fn->regs[e.reg].is_pred &&
             fn->regs[e.reg].width_bits == bits;
      if (!ok)
        fail(line, std::string(what) + " of '" + in.text + "' must be " + std::to_string(n) + " " +
                       std::to_string(bits) + "-bit register" + (n == 1 ? "" : "s") +
                       (n == 1 ? "" : " in { }"));
    };
    if (tk == TensorKind::Wmma) {
      auto frag = [&](const Operand& o, char f, const char* what) {
        regs(o, wmma_regs(ts, f), wmma_reg_bits(ts, f), what);
      };
      if (ts.wmma == 'm') {
        frag(in.dst[0], 'd', "d");
        frag(in.src[0], 'a', "a");
        frag(in.src[1], 'b', "b");
        frag(in.src[2], 'c', "c");
        return;
      }
      if (ts.wmma == 'l' && in.dst.size() != 1) fail(line, "'" + in.text + "' writes one fragment");
      if (ts.wmma == 's' && !in.dst.empty())
        fail(line, "'" + in.text + "' has no destination: wmma.store [p], d[, stride]");
      frag(ts.wmma == 'l' ? in.dst[0] : in.src[1], ts.frag, "the fragment");
      const size_t stride = ts.wmma == 'l' ? 1 : 2;
      if (in.src.size() > stride &&
          !(in.src[stride].kind == Operand::Kind::Imm ||
            (in.src[stride].kind == Operand::Kind::Reg && !fn->regs[in.src[stride].reg].is_pred &&
             fn->regs[in.src[stride].reg].width_bits == 32)))
        fail(line, "the stride of '" + in.text + "' must be a 32-bit register or an immediate");
      return;
    }
    if (tk == TensorKind::Mma) {
      regs(in.dst[0], mma_regs(ts, 'd'), mma_reg_bits(ts, 'd'), "d");
      regs(in.src[0], mma_regs(ts, 'a'), mma_reg_bits(ts, 'a'), "a");
      regs(in.src[1], mma_regs(ts, 'b'), mma_reg_bits(ts, 'b'), "b");
      regs(in.src[2], mma_regs(ts, 'c'), mma_reg_bits(ts, 'c'), "c");
    } else if (tk == TensorKind::Ldmatrix) {
      regs(in.dst[0], ts.num, 32, "the destination");
    } else {
      regs(in.dst[0], 1, 32, "the destination");
      regs(in.src[0], 1, 32, "the source");
    }
  }

  // The forms of redux, dp4a/dp2a, fns, elect and cp.async gpurf runs (warp_ops.h,
  // async_copy.h); anything else is refused naming what is supported.
  void check_warp_op(Instr& in, unsigned line) {
    auto is_int32 = [](Type t) { return t == Type::U32 || t == Type::S32; };
    switch (in.op) {
    case Op::Redux: {
      const bool bitwise =
          in.atom == AtomOp::And || in.atom == AtomOp::Or || in.atom == AtomOp::Xor;
      const bool arith = in.atom == AtomOp::Add || in.atom == AtomOp::Min || in.atom == AtomOp::Max;
      if (!(bitwise && in.type == Type::B32) && !(arith && is_int32(in.type)))
        fail(line, "unsupported PTX instruction '" + in.text +
                       "' (redux.sync .add/.min/.max .u32/.s32 and .and/.or/.xor .b32 are; the "
                       ".f32 forms are sm_100a's)");
      break;
    }
    case Op::Dp4a:
    case Op::Dp2a:
      if (!is_int32(in.type) || !is_int32(in.type2) ||
          (in.op == Op::Dp2a && in.mul == MulMode::None))
        fail(line, "'" + in.text +
                       "': dp4a.atype.btype / dp2a.{lo,hi}.atype.btype with types "
                       ".u32 or .s32");
      break;
    case Op::Fns:
      if (in.type != Type::B32) fail(line, "'" + in.text + "': fns is fns.b32");
      break;
    case Op::Vsimd:
      if (!is_int32(in.type) || !is_int32(in.type2) || !is_int32(in.type3) || in.ftz ||
          in.rnd != Round::None || (in.sat && in.video_add))
        fail(line, "'" + in.text +
                       "': vop2/vop4.dtype.atype.btype{.sat|.add} with types .u32 or .s32 "
                       "(vop = vadd, vsub, vavrg, vabsdiff, vmin, vmax)");
      break;
    case Op::Tanh:
      if (in.rnd != Round::Approx || in.ftz || (in.type != Type::F32 && !type_is_half(in.type)))
        fail(line,
             "unsupported form '" + in.text + "' (tanh.approx.{f32,f16,f16x2,bf16,bf16x2} are)");
      break;
    case Op::Ex2: // the half forms: ex2.approx.{f16,f16x2} and ex2.approx.ftz.{bf16,bf16x2}
      if (type_is_half(in.type) &&
          (in.rnd != Round::Approx || in.ftz != (in.type == Type::BF16 || in.type == Type::BF16X2)))
        fail(line, "unsupported form '" + in.text +
                       "' (ex2.approx.f16, ex2.approx.f16x2, ex2.approx.ftz.bf16 and "
                       "ex2.approx.ftz.bf16x2 are)");
      break;
    case Op::CpAsync: {
      const Operand& n = in.src[2];
      if (n.kind != Operand::Kind::Imm || (n.imm != 4 && n.imm != 8 && n.imm != 16))
        fail(line, "'" + in.text + "': cp-size must be the constant 4, 8 or 16");
      if (in.text.find(".cg") != std::string::npos && n.imm != 16)
        fail(line, "'" + in.text + "': cp.async.cg copies 16 bytes");
      if (in.src.size() == 4) {
        const Operand& o = in.src[3];
        in.cp_ignore_src = o.kind == Operand::Kind::Reg && fn->regs[o.reg].is_pred;
        if (o.kind != Operand::Kind::Imm && o.kind != Operand::Kind::Reg)
          fail(line, "'" + in.text + "': src-size is a register or a constant");
      }
      in.type = Type::B8;
      break;
    }
    case Op::CpAsyncWait:
      if (!in.cp_all && in.src[0].kind != Operand::Kind::Imm)
        fail(line, "'" + in.text + "': the group count is a constant");
      break;
    default:
      break;
    }
  }

  void finish_instr(Instr in, unsigned fidx, unsigned line) {
    const bool half = type_is_half(in.type) || type_is_half(in.type2);
    const bool bits = in.op == Op::Mov || in.op == Op::Ld || in.op == Op::Ldu || in.op == Op::St ||
                      in.op == Op::Selp;
    const bool atomic_add = (in.op == Op::Atom || in.op == Op::Red) && in.atom == AtomOp::Add;
    if (half && !half_arithmetic(in.op) && !bits && !atomic_add)
      fail(line, "unsupported PTX instruction '" + in.text +
                     "' (f16/bf16 run in add, sub, mul, fma, neg, abs, min, max, setp, set, cvt, "
                     "tanh.approx, ex2.approx, atom.add, red.add, "
                     "mov, ld, st and selp)");
    if (in.op == Op::Vsimd && packed_16x2(in) && (in.sat || in.video_add))
      fail(line, "'" + in.text + "': add/sub/min/max.{u16x2,s16x2} take no .sat (it is for .s32)");
    if (in.op == Op::Vsimd && packed_16x2(in) && in.relu) {
      if (in.video != VideoOp::Min && in.video != VideoOp::Max)
        fail(line, "'" + in.text + "': .relu is for min/max.s16x2 only");
      if (!type_is_signed(in.type2)) fail(line, "'" + in.text + "': .relu is for .s16x2 only");
      in.type = Type::U32; // negative halves saturate to 0
      in.sat = true;
      in.relu = false;
    }
    if (in.op == Op::Cvt && in.fmt != CvtFormat::None) check_cvt_format(in, line);
    const bool int_relu = (in.op == Op::Min || in.op == Op::Max) && in.type == Type::S32 &&
                          !in.satfinite && !in.nan; // min/max.s32.relu (sm_90)
    if ((in.relu || in.satfinite || in.nan) && !half && !int_relu && in.fmt == CvtFormat::None)
      fail(line, "'" + in.text + "': .relu, .satfinite and .NaN are supported on f16/bf16 only");
    unsigned idx = unsigned(fn->instrs.size());
    for (unsigned i = 0; i < in.src.size(); ++i)
      if (in.src[i].kind == Operand::Kind::Label)
        pending_labels.push_back({idx, i, true, in.src[i].name, line});
    if (in.op == Op::Call) pending_calls.push_back({fidx, idx, line});
    fn->instrs.push_back(std::move(in));
  }
};

} // namespace

Module parse_ptx(const std::string& text, const std::string& filename) {
  Parser ps;
  ps.file = filename;
  ps.toks = lex(text, filename);
  ps.mod.filename = filename;
  ps.parse_module();
  // The PTX ISA: every module begins with .version (and .target); text without it is not PTX.
  if (ps.mod.version.empty())
    throw ParseError(fmt_err(filename, 1,
                             "no .version directive: a PTX module begins with '.version X.Y' "
                             "(nvcc -ptx writes it)"));
  return std::move(ps.mod);
}

Module parse_ptx_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ParseError(path + ": cannot open the PTX file");
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_ptx(ss.str(), path);
}

} // namespace gpurf::ptx
