#include "gpurf/modules/frontend/ptx/link.h"

#include <map>
#include <set>

#include "gpurf/modules/frontend/ptx/lexer.h"
#include "gpurf/modules/frontend/ptx/parser.h"

namespace gpurf::ptx {

namespace {

enum class Linkage { Internal, Visible, Extern, Weak };

// One module-scope directive: [first, last) tokens, qualifiers included.
struct Item {
  size_t first = 0, last = 0;
  size_t decl = 0; // the first token after the qualifiers
  size_t open = 0; // a function's '{' (0: a declaration)
  bool function = false, entry = false;
  bool init_refs = false; // a variable whose initialiser names symbols
  Linkage link = Linkage::Internal;
  std::vector<std::string> names;
  bool defines() const { return function ? open != 0 : !names.empty() && link != Linkage::Extern; }
};

struct Unit {
  const PtxUnit* src = nullptr;
  std::vector<Tok> toks;
  std::vector<Item> items;
  std::string version, target;
  unsigned address_size = 64;
  std::map<std::string, std::string> rename;
};

bool is_punct(const Tok& t, char c) { return t.k == TK::Punct && t.s.size() == 1 && t.s[0] == c; }

// Past the bracket that opens at `i` and its match.
size_t skip_balanced(const std::vector<Tok>& t, size_t i, char open, char close) {
  for (int depth = 0; t[i].k != TK::End; ++i) {
    if (is_punct(t[i], open)) ++depth;
    if (is_punct(t[i], close) && --depth == 0) return i + 1;
  }
  return i;
}

size_t skip_line(const std::vector<Tok>& t, size_t i) {
  const unsigned line = t[i].line;
  while (t[i].k != TK::End && t[i].line == line) ++i;
  return i;
}

double version_number(const std::string& v) { return v.empty() ? 0 : std::stod(v); }
unsigned target_number(const std::string& t) {
  const size_t d = t.find_first_of("0123456789");
  return d == std::string::npos ? 0 : unsigned(std::stoul(t.substr(d)));
}

void scan(Unit& u) {
  const std::vector<Tok>& t = u.toks;
  const std::string& file = u.src->name;
  for (size_t i = 0; t[i].k != TK::End;) {
    Item it;
    it.first = i;
    for (; t[i].k == TK::Ident; ++i) {
      if (t[i].s == ".visible")
        it.link = Linkage::Visible;
      else if (t[i].s == ".extern")
        it.link = Linkage::Extern;
      else if (t[i].s == ".weak" || t[i].s == ".common")
        it.link = Linkage::Weak;
      else
        break;
    }
    it.decl = i;
    const Tok& d = t[i];
    if (d.k != TK::Ident)
      throw ParseError(fmt_err(file, d.line,
                               "expected a directive at module scope, found '" + d.s +
                                   "' (linking the program's units)"));
    if (d.s == ".version") {
      u.version = t[i + 1].s;
      i += 2;
      continue;
    }
    if (d.s == ".target") {
      u.target = t[++i].s;
      for (++i; is_punct(t[i], ',') && t[i + 1].k == TK::Ident; i += 2) {
      }
      continue;
    }
    if (d.s == ".address_size") {
      u.address_size = unsigned(std::stoul(t[i + 1].s));
      i += 2;
      continue;
    }
    if (d.s == ".file" || d.s == ".loc") {
      i = skip_line(t, i);
      continue;
    }
    if (d.s == ".section") {
      i += 2; // the section's name
      if (is_punct(t[i], '{')) i = skip_balanced(t, i, '{', '}');
      continue;
    }
    if (d.s == ".entry" || d.s == ".func") {
      it.function = true;
      it.entry = d.s == ".entry";
      ++i;
      if (is_punct(t[i], '(')) i = skip_balanced(t, i, '(', ')'); // return parameters
      if (t[i].k != TK::Ident)
        throw ParseError(fmt_err(file, t[i].line, "expected the name after " + d.s));
      it.names.push_back(t[i].s);
      while (t[i].k != TK::End && !is_punct(t[i], '{') && !is_punct(t[i], ';')) {
        if (is_punct(t[i], '('))
          i = skip_balanced(t, i, '(', ')');
        else
          ++i;
      }
      if (is_punct(t[i], '{')) {
        it.open = i;
        i = skip_balanced(t, i, '{', '}');
      } else {
        ++i;
      }
    } else if (d.s == ".global" || d.s == ".const" || d.s == ".shared" || d.s == ".local") {
      bool init = false;
      for (int depth = 0; t[i].k != TK::End && !(depth == 0 && is_punct(t[i], ';')); ++i) {
        if (is_punct(t[i], '{') || is_punct(t[i], '[') || is_punct(t[i], '(')) ++depth;
        if (is_punct(t[i], '}') || is_punct(t[i], ']') || is_punct(t[i], ')')) --depth;
        if (is_punct(t[i], '=')) init = true;
        if (t[i].k == TK::Ident && t[i].s[0] != '.') {
          if (init)
            it.init_refs = true;
          else if (depth == 0)
            it.names.push_back(t[i].s);
        }
        if (depth == 0 && is_punct(t[i], ',')) init = false;
      }
      if (t[i].k != TK::End) ++i;
    } else {
      // .pragma and anything else: kept as written, up to its ';'
      while (t[i].k != TK::End && !is_punct(t[i], ';')) ++i;
      if (t[i].k != TK::End) ++i;
    }
    it.last = i;
    u.items.push_back(std::move(it));
  }
}

// Where each item goes.
enum class Fate { Keep, Drop, Prototype, Hoisted };

struct Placement {
  Fate fate = Fate::Keep;
  Linkage as = Linkage::Visible; // a prototype's linkage
  size_t unit = 0, item = 0;     // Hoisted: the definition emitted here
};

std::string linkage_word(Linkage l) { return l == Linkage::Weak ? ".weak" : ".visible"; }

// Tokens [first, last) of `u` as written (comments and spacing kept), its renames applied,
// without .loc/.file lines, and a newline.
void emit(const Unit& u, size_t first, size_t last, std::string& out) {
  const std::vector<Tok>& t = u.toks;
  const std::string& text = u.src->text;
  size_t prev = SIZE_MAX;
  for (size_t k = first; k < last;) {
    if (t[k].k == TK::Ident && (t[k].s == ".loc" || t[k].s == ".file")) {
      k = skip_line(t, k);
      continue;
    }
    if (prev != SIZE_MAX)
      out += prev + 1 == k ? text.substr(t[prev].end, t[k].pos - t[prev].end)
                           : (t[prev].line == t[k].line ? " " : "\n");
    const auto r = t[k].k == TK::Ident ? u.rename.find(t[k].s) : u.rename.end();
    out += r != u.rename.end() ? r->second : text.substr(t[k].pos, t[k].end - t[k].pos);
    prev = k++;
  }
  out += "\n";
}

} // namespace

std::string link_ptx(const std::vector<PtxUnit>& units) {
  if (units.size() == 1) return units[0].text;
  std::vector<Unit> us(units.size());
  for (size_t i = 0; i < units.size(); ++i) {
    us[i].src = &units[i];
    us[i].toks = lex(units[i].text, units[i].name);
    scan(us[i]);
  }
  // Every unit's module-scope names, for the renaming of internal ones that collide.
  std::map<std::string, std::set<size_t>> named_in;
  for (size_t u = 0; u < us.size(); ++u)
    for (const Item& it : us[u].items)
      for (const std::string& n : it.names) named_in[n].insert(u);
  for (size_t u = 0; u < us.size(); ++u)
    for (const Item& it : us[u].items)
      if (it.link == Linkage::Internal && !it.entry)
        for (const std::string& n : it.names)
          if (named_in[n].size() > 1) us[u].rename[n] = n + "$u" + std::to_string(u);

  // The shared symbols: every item naming one, in text order.
  struct Ref {
    size_t unit, item;
  };
  std::map<std::string, std::vector<Ref>> refs;
  for (size_t u = 0; u < us.size(); ++u)
    for (size_t i = 0; i < us[u].items.size(); ++i) {
      const Item& it = us[u].items[i];
      if (it.link == Linkage::Internal && !it.entry) continue;
      for (const std::string& n : it.names) refs[n].push_back({u, i});
    }
  std::vector<std::vector<Placement>> place(us.size());
  for (size_t u = 0; u < us.size(); ++u) place[u].resize(us[u].items.size());
  for (const auto& [name, rs] : refs) {
    const Ref* strong = nullptr;
    const Ref* weak = nullptr;
    for (const Ref& r : rs) {
      const Item& it = us[r.unit].items[r.item];
      if (!it.defines()) continue;
      if (it.link == Linkage::Weak) {
        if (!weak) weak = &r;
        continue;
      }
      if (strong) {
        const Item& s = us[strong->unit].items[strong->item];
        throw ParseError(fmt_err(units[r.unit].name, us[r.unit].toks[it.decl].line,
                                 "'" + name + "' is defined here and in " +
                                     units[strong->unit].name + " line " +
                                     std::to_string(us[strong->unit].toks[s.decl].line) +
                                     ": a program defines each non-weak symbol once"));
      }
      strong = &r;
    }
    const Ref* def = strong ? strong : weak;
    const Ref& chosen = def ? *def : rs.front(); // no definition: the first declaration
    const Item& c = us[chosen.unit].items[chosen.item];
    const auto before = [&](const Ref& r) {
      return r.unit < chosen.unit || (r.unit == chosen.unit && r.item < chosen.item);
    };
    bool placed = false;
    for (const Ref& r : rs) {
      if (r.unit == chosen.unit && r.item == chosen.item) continue;
      Placement& p = place[r.unit][r.item];
      if (!def || !before(r)) {
        p.fate = Fate::Drop;
      } else if (c.function) {
        p.fate = Fate::Prototype;
        p.as = c.link == Linkage::Weak ? Linkage::Weak : Linkage::Visible;
      } else if (!c.init_refs && !placed) {
        // A variable's definition where it is first named (PTX declares before use).
        p.fate = Fate::Hoisted;
        p.unit = chosen.unit;
        p.item = chosen.item;
        placed = true;
      } else if (placed) {
        p.fate = Fate::Drop;
      } // else: the .extern declaration stays (its initialiser names symbols declared later)
    }
    if (placed) place[chosen.unit][chosen.item].fate = Fate::Drop;
  }

  // The header: the highest version and target; one address size.
  const Unit* top = &us[0];
  unsigned target = 0;
  std::string target_name = us[0].target;
  for (const Unit& u : us) {
    if (version_number(u.version) > version_number(top->version)) top = &u;
    if (target_number(u.target) > target) {
      target = target_number(u.target);
      target_name = u.target;
    }
    if (u.address_size != us[0].address_size)
      throw ParseError(units[&u - us.data()].name + ": .address_size " +
                       std::to_string(u.address_size) + " where " + units[0].name + " has " +
                       std::to_string(us[0].address_size) + ": units of one program must agree");
  }
  std::string out = "// linked by gpurf from " + std::to_string(us.size()) + " units\n.version " +
                    top->version + "\n.target " + target_name + "\n.address_size " +
                    std::to_string(us[0].address_size) + "\n\n";
  for (size_t u = 0; u < us.size(); ++u) {
    out += "// unit " + std::to_string(u) + ": " + units[u].name + "\n";
    for (size_t i = 0; i < us[u].items.size(); ++i) {
      const Item& it = us[u].items[i];
      const Placement& p = place[u][i];
      switch (p.fate) {
      case Fate::Keep:
        emit(us[u], it.first, it.last, out);
        break;
      case Fate::Drop:
        break;
      case Fate::Prototype: // the definition's header up to its body
        out += linkage_word(p.as) + " ";
        emit(us[u], it.decl, it.open ? it.open : it.last - 1, out);
        out.back() = ';';
        out += "\n";
        break;
      case Fate::Hoisted: {
        const Item& d = us[p.unit].items[p.item];
        emit(us[p.unit], d.first, d.last, out);
        break;
      }
      }
    }
  }
  return out;
}

} // namespace gpurf::ptx
