#include "gpurf/platform/params.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gpurf {

namespace {

std::string join_list(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

std::string fmt_double(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "got a map" / "'abc'" style description of a value that has the wrong shape.
std::string shape(const ConfigNode& n) {
  switch (n.kind) {
  case ConfigNode::Kind::Map:
    return "a map";
  case ConfigNode::Kind::Seq:
    return "a list";
  case ConfigNode::Kind::Null:
    return "nothing";
  default:
    return "'" + n.scalar + "'";
  }
}

// Parses a decimal (or 0x hexadecimal) integer. Returns false if `s` is not an integer;
// sets `overflow` if it is one but does not fit in int64_t.
bool parse_int(const std::string& s, int64_t& out, bool& overflow) {
  overflow = false;
  if (s.empty()) return false;
  size_t i = 0;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  int base = 10;
  if (s.size() > i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= s.size()) return false;
  uint64_t mag = 0;
  auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), mag, base);
  if (p != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    overflow = true;
    return true;
  }
  if (ec != std::errc()) return false;
  if (neg) {
    if (mag > uint64_t(INT64_MAX) + 1)
      overflow = true;
    else
      out = mag == uint64_t(INT64_MAX) + 1 ? INT64_MIN : -static_cast<int64_t>(mag);
  } else {
    if (mag > uint64_t(INT64_MAX))
      overflow = true;
    else
      out = static_cast<int64_t>(mag);
  }
  return true;
}

std::string int_range(int64_t min, int64_t max, bool is_uint) {
  bool lo_open = min == INT64_MIN || (is_uint && min == 0);
  bool hi_open = max == INT64_MAX || (is_uint && max == int64_t(UINT32_MAX));
  if (lo_open && hi_open) return "";
  if (hi_open) return ">= " + std::to_string(min);
  if (lo_open && !is_uint) return "<= " + std::to_string(max);
  return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

std::string double_range(double min, double max) {
  bool lo_open = min <= -1e300, hi_open = max >= 1e300;
  if (lo_open && hi_open) return "";
  if (hi_open) return ">= " + fmt_double(min);
  if (lo_open) return "<= " + fmt_double(max);
  return "[" + fmt_double(min) + ", " + fmt_double(max) + "]";
}

// "expected an integer in [1, 64]", "expected a number >= 0", ...
std::string expected(const std::string& noun, const std::string& range) {
  if (range.empty()) return "expected " + noun;
  return "expected " + noun + (range[0] == '[' ? " in " : " ") + range;
}

std::string int_noun(const ParamDecl& d) {
  return d.type == "uint" && d.range_text.empty() ? "a non-negative integer" : "an integer";
}

} // namespace

Params::Params(ConfigNode* node, std::string path)
    : node_(node), path_(std::move(path)), decls_(std::make_shared<std::vector<ParamDecl>>()),
      used_(std::make_shared<std::vector<std::string>>()), storage_(std::make_shared<Storage>()) {
  if (!node_) return;
  const std::string what = "expected a map of parameters";
  std::string at = node_->where() + ": " + (path_.empty() ? "" : path_ + ": ");
  switch (node_->kind) {
  case ConfigNode::Kind::Map:
    break;
  case ConfigNode::Kind::Null:
    // A Null node made programmatically (no file) means "nothing given".
    if (node_->file.empty()) {
      node_ = nullptr;
      break;
    }
    throw ConfigError(at + "missing value; " + what);
  default:
    throw ConfigError(at + "got " + shape(*node_) + "; " + what);
  }
}

void Params::fail(const std::string& name, const std::string& what) const {
  const ConfigNode* at = node_ ? node_->find(name) : nullptr;
  if (!at) at = node_;
  std::string key = path_.empty() ? name : path_ + "." + name;
  throw ConfigError((at ? at->where() + ": " : std::string()) + key + ": " + what);
}

std::string Params::where(const std::string& name) const {
  const ConfigNode* at = node_ ? node_->find(name) : nullptr;
  return at && at->kind != ConfigNode::Kind::Null ? at->where() : "default";
}

int Params::depth(const std::string& name) const {
  const ConfigNode* at = node_ ? node_->find(name) : nullptr;
  return at && at->kind != ConfigNode::Kind::Null ? at->depth : INT_MAX;
}

std::string Params::said(const std::string& name, const std::string& value) const {
  return (path_.empty() ? name : path_ + "." + name) + " = " + value + " (" + where(name) + ")";
}

namespace {
std::string bytes_text(uint64_t b) {
  char buf[64];
  if (b >= (uint64_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(uint64_t(1) << 30));
  else if (b >= (uint64_t(1) << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}
} // namespace

void Params::claim_storage(uint64_t bytes, const std::string& key, const std::string& what) {
  Storage& s = *storage_;
  const std::string part = path_.empty() ? what : path_ + ": " + what;
  auto it =
      std::find_if(s.parts.begin(), s.parts.end(), [&](const auto& p) { return p.first == part; });
  if (it == s.parts.end()) it = s.parts.emplace(s.parts.end(), part, 0);
  // Saturating: a product of several large counts must not wrap round to a small number.
  it->second = bytes > kStorageLimit ? kStorageLimit + 1 : it->second + bytes;
  s.total = bytes > kStorageLimit ? kStorageLimit + 1 : s.total + bytes;
  if (s.total <= kStorageLimit) return;
  std::sort(s.parts.begin(), s.parts.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string largest;
  for (size_t i = 0; i < s.parts.size() && i < 3; ++i)
    largest += (i ? "; " : "") + s.parts[i].first + ": " + bytes_text(s.parts[i].second);
  fail(key, "the platform's units would hold more than gpurf's limit of " +
                bytes_text(kStorageLimit) + " of modelled storage (this unit: " + what + " = " +
                (bytes > kStorageLimit ? "over " + bytes_text(kStorageLimit) : bytes_text(bytes)) +
                "; largest parts, over all units and SMs: " + largest +
                "); make them smaller (docs/design.md, \"Reliability\")");
}

bool Params::fill_defaults = false;

const ConfigNode* Params::value(const std::string& name, const ParamDecl& d) {
  auto upsert = [](std::vector<ParamDecl>& v, ParamDecl p) {
    for (auto& e : v)
      if (e.name == p.name) {
        e = std::move(p);
        return;
      }
    v.push_back(std::move(p));
  };
  upsert(*decls_, d);
  for (auto& [decls, prefix] : ancestors_) {
    ParamDecl q = d;
    q.name = prefix + d.name;
    upsert(*decls, std::move(q));
  }
  if (std::find(used_->begin(), used_->end(), name) == used_->end()) used_->push_back(name);
  if (!node_) return nullptr;
  if (fill_defaults && !node_->find(name) && d.type != "map" && d.type != "list") {
    ConfigNode& c = node_->child(name); // --dump-config shows every value in effect
    c.kind = ConfigNode::Kind::Scalar;
    c.scalar = d.default_text;
    c.file = "default";
    return nullptr;
  }
  const ConfigNode* n = node_->find(name);
  if (n && n->kind == ConfigNode::Kind::Null) {
    std::string exp;
    if (d.type == "int" || d.type == "uint")
      exp = expected(int_noun(d), d.range_text);
    else if (d.type == "double")
      exp = expected("a number", d.range_text);
    else if (d.type == "bool")
      exp = "expected true or false";
    else if (d.type == "choice")
      exp = "expected " + d.range_text;
    else if (d.type == "list")
      exp = "expected a list of values (" + d.range_text + ")";
    else if (d.type == "map")
      exp = "expected a map of parameters";
    else
      exp = "expected a " + d.type;
    fail(name,
         "missing value; " + exp + " (or remove the key for the default '" + d.default_text + "')");
  }
  return n;
}

int64_t Params::get_int(const std::string& name, int64_t def, const std::string& desc, int64_t min,
                        int64_t max) {
  bool is_uint = min >= 0;
  ParamDecl d{name, is_uint ? "uint" : "int", desc, std::to_string(def),
              int_range(min, max, is_uint)};
  const ConfigNode* n = value(name, d);
  if (!n) return def;
  std::string exp = expected(int_noun(d), d.range_text);
  if (n->kind != ConfigNode::Kind::Scalar) fail(name, "got " + shape(*n) + "; " + exp);
  int64_t v = 0;
  bool overflow = false;
  if (!parse_int(n->scalar, v, overflow))
    fail(name, "'" + n->scalar + "' is not an integer; " + exp);
  if (overflow || v < min || v > max) fail(name, "'" + n->scalar + "' is out of range; " + exp);
  return v;
}

double Params::get_double(const std::string& name, double def, const std::string& desc, double min,
                          double max) {
  ParamDecl d{name, "double", desc, fmt_double(def), double_range(min, max)};
  const ConfigNode* n = value(name, d);
  if (!n) return def;
  std::string exp = expected("a number", d.range_text);
  if (n->kind != ConfigNode::Kind::Scalar) fail(name, "got " + shape(*n) + "; " + exp);
  const std::string& s = n->scalar;
  char* end = nullptr;
  double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) ||
      std::isspace(static_cast<unsigned char>(s[0])))
    fail(name, "'" + s + "' is not a number; " + exp);
  if (v < min || v > max) fail(name, "'" + s + "' is out of range; " + exp);
  return v;
}

bool Params::get_bool(const std::string& name, bool def, const std::string& desc) {
  ParamDecl d{name, "bool", desc, def ? "true" : "false", "true or false"};
  const ConfigNode* n = value(name, d);
  if (!n) return def;
  const std::string exp = "expected true or false (also yes/no, on/off, 1/0)";
  if (n->kind != ConfigNode::Kind::Scalar) fail(name, "got " + shape(*n) + "; " + exp);
  std::string s = lower(n->scalar);
  if (s == "true" || s == "yes" || s == "on" || s == "1") return true;
  if (s == "false" || s == "no" || s == "off" || s == "0") return false;
  fail(name, "'" + n->scalar + "' is not a boolean; " + exp);
}

std::string Params::get_choice(const std::string& name, const std::string& def,
                               const std::string& desc, const std::vector<std::string>& choices) {
  ParamDecl d{name, "choice", desc, def, "one of: " + join_list(choices)};
  const ConfigNode* n = value(name, d);
  if (!n) return def;
  if (n->kind != ConfigNode::Kind::Scalar)
    fail(name, "got " + shape(*n) + "; expected " + d.range_text);
  if (std::find(choices.begin(), choices.end(), n->scalar) != choices.end()) return n->scalar;
  std::string near = closest(n->scalar, choices);
  if (!near.empty())
    fail(name, "unknown value '" + n->scalar + "'; did you mean '" + near +
                   "'? (valid values: " + join_list(choices) + ")");
  fail(name, "unknown value '" + n->scalar + "'; valid values: " + join_list(choices));
}

std::string Params::get_string(const std::string& name, const std::string& def,
                               const std::string& desc) {
  ParamDecl d{name, "string", desc, def, ""};
  const ConfigNode* n = value(name, d);
  if (!n) return def;
  if (n->kind != ConfigNode::Kind::Scalar) fail(name, "got " + shape(*n) + "; expected a string");
  return n->scalar;
}

std::vector<std::string> Params::get_choice_list(const std::string& name,
                                                 const std::vector<std::string>& def,
                                                 const std::string& desc,
                                                 const std::vector<std::string>& choices) {
  ParamDecl d{name, "list", desc, "[" + join_list(def) + "]", "any of: " + join_list(choices)};
  const ConfigNode* n = value(name, d);
  if (!n) return def;
  const std::string exp = "expected a list of values from: " + join_list(choices);
  std::vector<const ConfigNode*> elems;
  if (n->kind == ConfigNode::Kind::Scalar)
    elems.push_back(n);
  else if (n->kind == ConfigNode::Kind::Seq)
    for (auto& e : n->seq) elems.push_back(e.get());
  else
    fail(name, "got " + shape(*n) + "; " + exp);
  if (elems.empty()) return def;
  std::vector<std::string> out;
  std::string key = path_.empty() ? name : path_ + "." + name;
  for (size_t i = 0; i < elems.size(); ++i) {
    const ConfigNode* e = elems[i];
    std::string at = e->where() + ": " + key + "[" + std::to_string(i) + "]: ";
    if (e->kind != ConfigNode::Kind::Scalar)
      throw ConfigError(at + "got " + shape(*e) + "; " + exp);
    if (std::find(choices.begin(), choices.end(), e->scalar) == choices.end()) {
      std::string near = closest(e->scalar, choices);
      throw ConfigError(at + "unknown value '" + e->scalar + "'; " +
                        (near.empty() ? "" : "did you mean '" + near + "'? ") +
                        "(valid values: " + join_list(choices) + ")");
    }
    out.push_back(e->scalar);
  }
  return out;
}

Params& Params::sub(const std::string& name, const std::string& desc) {
  for (auto& [k, p] : subs_)
    if (k == name) return p;
  ParamDecl d{name, "map", desc, "", ""};
  const ConfigNode* n = value(name, d);
  if (n && n->kind != ConfigNode::Kind::Map)
    fail(name, "got " + shape(*n) + "; expected a map of parameters");
  Params child(const_cast<ConfigNode*>(n), path_.empty() ? name : path_ + "." + name);
  child.storage_ = storage_;
  for (auto& [decls, prefix] : ancestors_)
    child.ancestors_.emplace_back(decls, prefix + name + ".");
  child.ancestors_.emplace_back(decls_, name + ".");
  subs_.emplace_back(name, std::move(child));
  return subs_.back().second;
}

void Params::accept_unused() {
  if (node_ && node_->kind == ConfigNode::Kind::Map)
    for (auto& [k, v] : node_->map)
      if (std::find(used_->begin(), used_->end(), k) == used_->end()) used_->push_back(k);
}

void Params::check_unused() const {
  if (node_ && node_->kind == ConfigNode::Kind::Map) {
    for (auto& [k, v] : node_->map) {
      if (std::find(used_->begin(), used_->end(), k) != used_->end()) continue;
      std::vector<std::string> valid;
      for (auto& d : *decls_) valid.push_back(d.name);
      std::string key = path_.empty() ? k : path_ + "." + k;
      std::string msg = v->where() + ": " + key + ": unknown key; ";
      if (valid.empty()) throw ConfigError(msg + "this section takes no parameters");
      std::string near = closest(k, valid);
      if (!near.empty())
        throw ConfigError(msg + "did you mean '" + near + "'? (valid keys: " + join_list(valid) +
                          ")");
      throw ConfigError(msg + "valid keys: " + join_list(valid));
    }
  }
  for (auto& [k, p] : subs_) p.check_unused();
}

} // namespace gpurf
