#include "gpurf/modules/frontend/launch.h"
#include "gpurf/platform/text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "gpurf/modules/frontend/ptx/half.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "gpurf/platform/config.h"

namespace gpurf {

namespace fs = std::filesystem;

// =============================================================================================
// Expressions
// =============================================================================================
namespace {

// A value as error messages quote it: long ones (a generated expression) clipped.
std::string shown(const std::string& s) {
  return s.size() <= 80 ? s : s.substr(0, 60) + "... (" + std::to_string(s.size()) + " characters)";
}

class ExprParser {
public:
  ExprParser(const std::string& t, const std::map<std::string, int64_t>& v,
             const ElementReader& element)
      : s_(t), vars_(v), element_(element) {}

  int64_t run() {
    skip();
    if (p_ == s_.size()) throw ExprError("empty expression");
    int64_t v = comparison();
    skip();
    if (p_ != s_.size()) error("unexpected '" + std::string(1, s_[p_]) + "'");
    return v;
  }

private:
  [[noreturn]] void error(const std::string& what) const {
    throw ExprError(what + " at column " + std::to_string(p_ + 1) + " of '" + shown(s_) + "'");
  }
  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  [[noreturn]] void overflow() const { throw ExprError("integer overflow in '" + shown(s_) + "'"); }
  // Parentheses and signs nest by recursion: bounded, so that no input overflows the stack.
  static constexpr unsigned kMaxDepth = 256;
  struct Nest {
    ExprParser& p;
    explicit Nest(ExprParser& q) : p(q) {
      if (++p.depth_ > kMaxDepth)
        p.error("nesting deeper than " + std::to_string(kMaxDepth) + " parentheses or signs");
    }
    ~Nest() { --p.depth_; }
  };
  // expr [op expr]: one comparison at most (a < b < c is an error: it reads ambiguously).
  int64_t comparison() {
    const int64_t v = expr();
    skip();
    auto op = [&](const char* o) {
      const size_t n = std::strlen(o);
      if (s_.compare(p_, n, o) != 0) return false;
      p_ += n;
      return true;
    };
    if (op("==")) return v == expr();
    if (op("!=")) return v != expr();
    if (op("<=")) return v <= expr();
    if (op(">=")) return v >= expr();
    if (op("<")) return v < expr();
    if (op(">")) return v > expr();
    return v;
  }
  int64_t expr() {
    int64_t v = term();
    for (;;) {
      int64_t r = 0;
      if (eat('+')) {
        const int64_t t = term();
        if (__builtin_add_overflow(v, t, &r)) overflow();
        v = r;
      } else if (eat('-')) {
        const int64_t t = term();
        if (__builtin_sub_overflow(v, t, &r)) overflow();
        v = r;
      } else {
        return v;
      }
    }
  }
  int64_t term() {
    int64_t v = unary();
    for (;;) {
      skip();
      if (p_ >= s_.size()) return v;
      const char c = s_[p_];
      if (c != '*' && c != '/' && c != '%') return v;
      const size_t at = p_++;
      const int64_t u = unary();
      int64_t r = 0;
      if (c == '*') {
        if (__builtin_mul_overflow(v, u, &r)) overflow();
        v = r;
      } else {
        if (u == 0) {
          p_ = at;
          error(c == '/' ? "division by zero" : "remainder by zero");
        }
        if (v == std::numeric_limits<int64_t>::min() && u == -1) overflow();
        v = c == '/' ? v / u : v % u;
      }
    }
  }
  int64_t unary() {
    const Nest nest(*this);
    if (eat('-')) {
      const int64_t v = unary();
      int64_t r = 0;
      if (__builtin_sub_overflow(int64_t(0), v, &r)) overflow();
      return r;
    }
    if (eat('+')) return unary();
    return primary();
  }
  int64_t primary() {
    skip();
    if (p_ >= s_.size()) error("expected a number, a variable or '('");
    const char c = s_[p_];
    if (c == '(') {
      ++p_;
      const Nest nest(*this);
      int64_t v = expr();
      if (!eat(')')) error("expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = p_;
      int base = 10;
      if (c == '0' && p_ + 1 < s_.size() && (s_[p_ + 1] == 'x' || s_[p_ + 1] == 'X')) {
        base = 16;
        p_ += 2;
      }
      uint64_t v = 0;
      size_t digits = 0;
      while (p_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[p_]))) {
        const char d = s_[p_];
        unsigned dv = std::isdigit(static_cast<unsigned char>(d))
                          ? unsigned(d - '0')
                          : unsigned(std::tolower(static_cast<unsigned char>(d)) - 'a' + 10);
        if (dv >= unsigned(base)) break;
        if (v > (uint64_t(std::numeric_limits<int64_t>::max()) - dv) / unsigned(base))
          throw ExprError("number too large in '" + shown(s_) + "'");
        v = v * unsigned(base) + dv;
        ++p_;
        ++digits;
      }
      if (!digits) {
        p_ = start;
        error("bad number");
      }
      if (p_ < s_.size() &&
          (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_' || s_[p_] == '.'))
        error("bad number (only integers are allowed)");
      return int64_t(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = p_;
      while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_'))
        ++p_;
      const std::string name = s_.substr(start, p_ - start);
      if (eat('[')) {
        const size_t at = start;
        const int64_t index = expr();
        if (!eat(']')) error("expected ']'");
        if (!element_) {
          p_ = at;
          error("'" + name + "[...]' reads a buffer element; only the conditions of `steps` may");
        }
        return element_(name, index);
      }
      auto it = vars_.find(name);
      if (it == vars_.end()) {
        std::vector<std::string> names;
        for (auto& [k, v] : vars_) names.push_back(k);
        std::string near = closest(name, names);
        const std::string list = join(names);
        throw ExprError("unknown variable '" + name + "' in '" + shown(s_) + "'" +
                        (near.empty() ? "" : "; did you mean '" + near + "'?") +
                        (list.empty() ? " (no vars are defined)" : " (vars: " + list + ")"));
      }
      return it->second;
    }
    error("unexpected '" + std::string(1, c) + "'");
  }

  const std::string& s_;
  const std::map<std::string, int64_t>& vars_;
  const ElementReader& element_;
  size_t p_ = 0;
  unsigned depth_ = 0;
};

} // namespace

int64_t eval_expr(const std::string& text, const std::map<std::string, int64_t>& vars,
                  const ElementReader& element) {
  return ExprParser(text, vars, element).run();
}

// =============================================================================================
// Launch files
// =============================================================================================
namespace {
// Parameter kinds: name and bytes (Struct: its own size).
const struct {
  LaunchParam::Kind kind;
  const char* name;
  unsigned bytes;
} kParamKinds[] = {
    {LaunchParam::Kind::Buffer, "buffer", 8},   {LaunchParam::Kind::U8, "u8", 1},
    {LaunchParam::Kind::S8, "s8", 1},           {LaunchParam::Kind::U16, "u16", 2},
    {LaunchParam::Kind::S16, "s16", 2},         {LaunchParam::Kind::U32, "u32", 4},
    {LaunchParam::Kind::S32, "s32", 4},         {LaunchParam::Kind::U64, "u64", 8},
    {LaunchParam::Kind::S64, "s64", 8},         {LaunchParam::Kind::F32, "f32", 4},
    {LaunchParam::Kind::F64, "f64", 8},         {LaunchParam::Kind::Struct, "struct", 0},
    {LaunchParam::Kind::Texture, "texture", 8}, {LaunchParam::Kind::Surface, "surface", 8}};
} // namespace

unsigned LaunchParam::bytes() const {
  if (kind == Kind::Struct) return size;
  for (const auto& k : kParamKinds)
    if (k.kind == kind) return k.bytes;
  return 0;
}

const char* param_kind_name(LaunchParam::Kind k) {
  for (const auto& x : kParamKinds)
    if (x.kind == k) return x.name;
  return "?";
}

const ptx::Function& LaunchSpec::entry() const {
  const ptx::Function* f = module ? module->find_function(kernel) : nullptr;
  if (!f) throw ConfigError(file + ": kernel '" + kernel + "' is not loaded");
  return *f;
}

const LaunchBuffer* LaunchSpec::find_buffer(const std::string& n) const {
  for (const auto& b : buffers)
    if (b.name == n) return &b;
  return nullptr;
}

namespace {

using Node = ConfigNode;

[[noreturn]] void fail(const Node& n, const std::string& key, const std::string& what) {
  throw ConfigError(n.where() + ": " + key + ": " + what);
}

const char* shape(const Node& n) {
  switch (n.kind) {
  case Node::Kind::Null:
    return "nothing";
  case Node::Kind::Scalar:
    return "a value";
  case Node::Kind::Map:
    return "a map";
  case Node::Kind::Seq:
    return "a list";
  }
  return "?";
}

// Rejects keys of `n` (a map) that are not in `valid`, with did-you-mean.
void check_keys(const Node& n, const std::string& path, const std::vector<std::string>& valid) {
  for (const auto& [k, v] : n.map) {
    if (std::find(valid.begin(), valid.end(), k) != valid.end()) continue;
    const std::string near = closest(k, valid);
    fail(*v, path.empty() ? k : path + "." + k,
         "unknown key" + (near.empty() ? std::string("; ") : "; did you mean '" + near + "'? (") +
             "valid keys: " + join(valid) + (near.empty() ? "" : ")"));
  }
}

const Node& need_map(const Node& n, const std::string& key, const std::string& expected) {
  if (n.kind != Node::Kind::Map) fail(n, key, std::string("got ") + shape(n) + "; " + expected);
  return n;
}

const std::string& need_scalar(const Node& n, const std::string& key, const std::string& expected) {
  if (n.kind != Node::Kind::Scalar || n.scalar.empty())
    fail(n, key, std::string("got ") + shape(n) + "; " + expected);
  return n.scalar;
}

int64_t integer(const Node& n, const std::string& key, const std::map<std::string, int64_t>& vars,
                const std::string& expected = "expected an integer or an expression") {
  const std::string& s = need_scalar(n, key, expected);
  try {
    return eval_expr(s, vars);
  } catch (const ExprError& e) {
    fail(n, key, "bad value '" + shown(s) + "': " + e.what());
  }
}

int64_t integer_in(const Node& n, const std::string& key,
                   const std::map<std::string, int64_t>& vars, int64_t lo, int64_t hi,
                   const std::string& what) {
  const int64_t v = integer(n, key, vars);
  if (v < lo || v > hi)
    fail(n, key,
         "value " + std::to_string(v) +
             (n.scalar != std::to_string(v) ? " ('" + n.scalar + "')" : "") + " out of range; " +
             what + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

// A finite number, as a value of `bytes` bytes (4: f32, whose range it must fit). inf and nan
// are refused: kernels and their reference checkers are run on finite inputs.
// A number for an element of float type `type` (f64, f32, f16, bf16): finite in that type.
double number(const Node& n, const std::string& key, const std::map<std::string, int64_t>& vars,
              const std::string& type = "f64") {
  const std::string& s = need_scalar(n, key, "expected a number");
  const char* b = s.c_str();
  char* e = nullptr;
  const double d = std::strtod(b, &e);
  if (e != b && *e == '\0') {
    if (!std::isfinite(d))
      fail(n, key, "bad value '" + shown(s) + "': expected a finite number (not inf or nan)");
    const char* max = type == "f32" ? "3.4028235e38" : type == "f16" ? "65504" : "";
    if (type == "bf16" &&
        ptx::half::round(d, ptx::half::kBF16, ptx::half::Mode::RN) == (d < 0 ? 0xff80 : 0x7f80))
      max = "3.3895314e38";
    if ((type == "f32" && !std::isfinite(float(d))) || (type == "f16" && std::fabs(d) > 65504) ||
        (type == "bf16" && *max))
      fail(n, key,
           "bad value '" + shown(s) + "': outside the " + type + " range (magnitude at most " +
               max + ")");
    return d;
  }
  try {
    return double(eval_expr(s, vars));
  } catch (const ExprError& x) {
    fail(n, key,
         "bad value '" + shown(s) + "': expected a number or an integer expression (" + x.what() +
             ")");
  }
}

bool boolean(const Node& n, const std::string& key) {
  const std::string& s = need_scalar(n, key, "expected true or false");
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(n, key, "bad value '" + shown(s) + "'; valid values: true, false");
}

struct TypeInfo {
  const char* name;
  unsigned bytes;
  bool is_float, is_signed;
};
const TypeInfo kTypes[] = {
    {"u8", 1, false, false},  {"s8", 1, false, true},   {"u16", 2, false, false},
    {"s16", 2, false, true},  {"u32", 4, false, false}, {"s32", 4, false, true},
    {"u64", 8, false, false}, {"s64", 8, false, true},  {"f32", 4, true, false},
    {"f64", 8, true, false},  {"f16", 2, true, false},  {"bf16", 2, true, false}};

const TypeInfo& type_of(const std::string& name) {
  for (const auto& t : kTypes)
    if (name == t.name) return t;
  throw std::logic_error("type");
}

std::vector<std::string> type_names() {
  std::vector<std::string> v;
  for (const auto& t : kTypes) v.push_back(t.name);
  return v;
}

std::string choice(const Node& n, const std::string& key, const std::vector<std::string>& valid) {
  const std::string& s = need_scalar(n, key, "expected one of: " + join(valid));
  if (std::find(valid.begin(), valid.end(), s) != valid.end()) return s;
  const std::string near = closest(s, valid);
  fail(n, key,
       "unknown value '" + s + "'; " + (near.empty() ? "" : "did you mean '" + near + "'? ") +
           "(valid values: " + join(valid) + ")");
}

// Range of an integer element type.
void int_range(const TypeInfo& t, int64_t& lo, int64_t& hi) {
  if (t.bytes == 8) {
    lo = t.is_signed ? std::numeric_limits<int64_t>::min() : 0;
    hi = std::numeric_limits<int64_t>::max();
    return;
  }
  const unsigned bits = t.bytes * 8;
  lo = t.is_signed ? -(int64_t(1) << (bits - 1)) : 0;
  hi = t.is_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void fill_init(LaunchBuffer& b, const TypeInfo& t, const Node* init, const std::string& path,
               const fs::path& dir, const std::map<std::string, int64_t>& vars) {
  b.initial.assign(size_t(b.bytes()), 0);
  if (!init || init->kind == Node::Kind::Null) return; // zero-filled
  const std::vector<std::string> kinds = {"constant", "iota", "uniform", "file", "values"};
  need_map(*init, path,
           "expected one of {constant: v}, {iota: {start, step}}, "
           "{uniform: {min, max, seed}}, {file: path}, {values: [v, ...]}");
  check_keys(*init, path, kinds);
  if (init->map.size() != 1)
    fail(*init, path,
         "give exactly one of: " + join(kinds) + " (got " + std::to_string(init->map.size()) + ")");
  const std::string kind = init->map[0].first;
  const Node& v = *init->map[0].second;
  const std::string key = path + "." + kind;
  int64_t lo = 0, hi = 0;
  if (!t.is_float) int_range(t, lo, hi);
  auto int_value = [&](const Node& n, const std::string& k) {
    return integer_in(n, k, vars, lo, hi, std::string("a ") + t.name + " value");
  };
  if (kind == "constant") {
    const double fv = t.is_float ? number(v, key, vars, t.name) : 0;
    const int64_t iv = t.is_float ? 0 : int_value(v, key);
    for (uint64_t i = 0; i < b.count; ++i) b.encode(fv, iv, b.initial.data() + i * t.bytes);
  } else if (kind == "iota") {
    need_map(v, key, "expected {start: a, step: b}");
    check_keys(v, key, {"start", "step"});
    const Node* s = v.find("start");
    const Node* st = v.find("step");
    if (t.is_float) {
      const double start = s ? number(*s, key + ".start", vars, t.name) : 0.0;
      const double step = st ? number(*st, key + ".step", vars, t.name) : 1.0;
      for (uint64_t i = 0; i < b.count; ++i)
        b.encode(start + step * double(i), 0, b.initial.data() + i * t.bytes);
    } else {
      const int64_t start = s ? integer(*s, key + ".start", vars) : 0;
      const int64_t step = st ? integer(*st, key + ".step", vars) : 1;
      for (uint64_t i = 0; i < b.count; ++i)
        b.encode(0, int64_t(uint64_t(start) + uint64_t(step) * i), b.initial.data() + i * t.bytes);
    }
  } else if (kind == "uniform") {
    need_map(v, key, "expected {min: a, max: b, seed: s}");
    check_keys(v, key, {"min", "max", "seed"});
    for (const char* k : {"min", "max", "seed"})
      if (!v.find(k)) fail(v, key, std::string("missing key '") + k + "' (need min, max, seed)");
    uint64_t state = uint64_t(integer_in(*v.find("seed"), key + ".seed", vars, 0,
                                         std::numeric_limits<int64_t>::max(), "the seed"));
    if (t.is_float) {
      const double mn = number(*v.find("min"), key + ".min", vars, t.name);
      const double mx = number(*v.find("max"), key + ".max", vars, t.name);
      if (!(mn <= mx)) fail(v, key, "min must not exceed max");
      for (uint64_t i = 0; i < b.count; ++i) {
        const uint64_t d = splitmix64(state);
        b.encode(mn + (mx - mn) * (double(d >> 11) * 0x1.0p-53), 0, b.initial.data() + i * t.bytes);
      }
    } else {
      const int64_t mn = int_value(*v.find("min"), key + ".min");
      const int64_t mx = int_value(*v.find("max"), key + ".max");
      if (mn > mx)
        fail(v, key, "min (" + std::to_string(mn) + ") exceeds max (" + std::to_string(mx) + ")");
      const uint64_t span = uint64_t(mx) - uint64_t(mn) + 1; // 0: the full 64-bit range
      for (uint64_t i = 0; i < b.count; ++i) {
        const uint64_t d = splitmix64(state);
        b.encode(0, int64_t(uint64_t(mn) + (span ? d % span : d)), b.initial.data() + i * t.bytes);
      }
    }
  } else if (kind == "values") { // the first elements, the rest zero
    if (v.kind != Node::Kind::Seq)
      fail(v, key, std::string("got ") + shape(v) + "; expected a list of numbers");
    if (v.seq.size() > b.count)
      fail(v, key,
           std::to_string(v.seq.size()) + " values for " + std::to_string(b.count) + " elements");
    for (size_t i = 0; i < v.seq.size(); ++i) {
      const std::string k = key + "[" + std::to_string(i) + "]";
      b.encode(t.is_float ? number(*v.seq[i], k, vars, t.name) : 0,
               t.is_float ? 0 : int_value(*v.seq[i], k), b.initial.data() + i * t.bytes);
    }
  } else { // file
    const std::string& name = need_scalar(v, key, "expected a file name");
    const fs::path p = dir / name;
    std::ifstream in(p, std::ios::binary);
    if (fs::is_directory(p) || !in)
      fail(v, key,
           "cannot open data file '" + p.lexically_normal().string() + "'" +
               (fs::is_directory(p) ? ": it is a folder" : ""));
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (bytes.size() != b.initial.size())
      fail(v, key,
           "'" + p.lexically_normal().string() + "' has " + std::to_string(bytes.size()) +
               " bytes; buffer '" + b.name + "' needs " + std::to_string(b.count) + " x " +
               std::to_string(t.bytes) + " = " + std::to_string(b.initial.size()));
    b.initial = std::move(bytes);
  }
}

bool ptx_type_is_float(ptx::Type t) { return t == ptx::Type::F32 || t == ptx::Type::F64; }
bool ptx_type_is_int(ptx::Type t) {
  return t != ptx::Type::None && !ptx_type_is_float(t) && t != ptx::Type::Pred &&
         t != ptx::Type::B8 && t != ptx::Type::B16 && t != ptx::Type::B32 && t != ptx::Type::B64;
}

// "unknown buffer 'x'; did you mean 'y'? (buffers: ...)" for a name `s` has no buffer of.
std::string unknown_buffer(const std::string& name, const LaunchSpec& s) {
  std::vector<std::string> names;
  for (const auto& x : s.buffers) names.push_back(x.name);
  const std::string near = closest(name, names);
  return "unknown buffer '" + name + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
         " (buffers: " + (names.empty() ? std::string("none") : join(names)) + ")";
}

const LaunchBuffer& known_buffer(const Node& n, const std::string& key, const LaunchSpec& s,
                                 std::string& name);

// `textures:` name: {buffer, dims, type, channels, pitch, filter, address, normalized, read,
// border, surface} (workloads/README.md, "Textures").
void parse_textures(const Node& tn, LaunchSpec& s) {
  need_map(tn, "textures", "expected a map of name: {buffer: B, dims: [w, h], type: f32, ...}");
  const std::vector<std::string> types = {"u8", "s8", "u16", "s16", "u32", "s32", "f16", "f32"};
  for (const auto& [name, vp] : tn.map) {
    const Node& v = *vp;
    const std::string key = "textures." + name;
    need_map(v, key, "expected {buffer: B, dims: [w, h], type: f32, ...}");
    check_keys(v, key,
               {"buffer", "dims", "type", "channels", "pitch", "filter", "address", "normalized",
                "read", "border", "surface"});
    LaunchTexture t;
    t.name = name;
    t.where = v.where();
    ptx::TextureDesc& d = t.desc;
    const Node* bn = v.find("buffer");
    if (!bn) fail(v, key, "missing key 'buffer' (the buffer holding the texels)");
    const LaunchBuffer& buf = known_buffer(*bn, key + ".buffer", s, t.buffer);
    if (const Node* n = v.find("surface")) d.surface = boolean(*n, key + ".surface");
    const std::string type =
        v.find("type") ? choice(*v.find("type"), key + ".type", types) : std::string("f32");
    d.bits = type_of(type == "f16" ? "u16" : type).bytes * 8;
    d.kind = type[0] == 'f'   ? ptx::TexChannel::Float
             : type[0] == 's' ? ptx::TexChannel::Signed
                              : ptx::TexChannel::Unsigned;
    if (const Node* n = v.find("channels")) {
      d.channels = unsigned(integer_in(*n, key + ".channels", s.vars, 1, 4, "1, 2 or 4 channels"));
      if (d.channels == 3) fail(*n, key + ".channels", "bad value '3'; valid values: 1, 2, 4");
    }
    const Node* dn = v.find("dims");
    if (!dn) fail(v, key, "missing key 'dims' ([width], [width, height] or [w, h, depth])");
    if (dn->kind != Node::Kind::Seq || dn->seq.empty() || dn->seq.size() > 3)
      fail(*dn, key + ".dims",
           std::string("got ") + shape(*dn) + "; expected a list of 1 to 3 sizes in texels");
    uint64_t dim[3] = {1, 1, 1};
    for (size_t i = 0; i < dn->seq.size(); ++i)
      dim[i] = uint64_t(integer_in(*dn->seq[i], key + ".dims[" + std::to_string(i) + "]", s.vars, 1,
                                   int64_t(1) << 28, "a size in texels"));
    d.width = dim[0];
    d.height = dim[1];
    d.depth = dim[2];
    d.resource = dn->seq.size() == 1   ? ptx::TexResource::Linear
                 : dn->seq.size() == 2 ? ptx::TexResource::Pitch2D
                                       : ptx::TexResource::Array;
    if (const Node* n = v.find("pitch")) {
      d.pitch = uint64_t(
          integer_in(*n, key + ".pitch", s.vars, 1, int64_t(1) << 32, "a row pitch in bytes"));
      if (d.pitch < d.width * d.texel_bytes())
        fail(*n, key + ".pitch",
             "bad value " + std::to_string(d.pitch) + ": a row of " + std::to_string(d.width) +
                 " texels takes " + std::to_string(d.width * d.texel_bytes()) + " bytes");
    }
    if (const Node* n = v.find("filter"))
      d.filter = choice(*n, key + ".filter", {"point", "linear"}) == "linear"
                     ? ptx::TexFilter::Linear
                     : ptx::TexFilter::Point;
    if (const Node* n = v.find("address")) {
      const std::vector<std::string> modes = {"wrap", "clamp", "mirror", "border"};
      auto mode = [&](const Node& m, const std::string& k) {
        return ptx::TexAddress(std::find(modes.begin(), modes.end(), choice(m, k, modes)) -
                               modes.begin());
      };
      if (n->kind == Node::Kind::Seq) {
        if (n->seq.size() != dn->seq.size())
          fail(*n, key + ".address",
               "got " + std::to_string(n->seq.size()) + " modes for " +
                   std::to_string(dn->seq.size()) + " dimensions; give one per dimension or one");
        for (size_t i = 0; i < n->seq.size(); ++i)
          d.address[i] = mode(*n->seq[i], key + ".address[" + std::to_string(i) + "]");
      } else {
        d.address.fill(mode(*n, key + ".address"));
      }
    }
    if (const Node* n = v.find("normalized")) d.normalized = boolean(*n, key + ".normalized");
    if (const Node* n = v.find("read"))
      d.read = choice(*n, key + ".read", {"element", "normalized"}) == "normalized"
                   ? ptx::TexRead::NormalizedFloat
                   : ptx::TexRead::ElementType;
    if (const Node* n = v.find("border")) {
      if (n->kind != Node::Kind::Seq || n->seq.size() != 4)
        fail(*n, key + ".border", std::string("got ") + shape(*n) + "; expected [r, g, b, a]");
      for (size_t i = 0; i < 4; ++i)
        d.border[i] = float(number(*n->seq[i], key + ".border[" + std::to_string(i) + "]", s.vars));
    }
    if (const std::string bad = d.check(); !bad.empty()) fail(v, key, "invalid texture: " + bad);
    if (d.bytes() > buf.bytes())
      fail(*dn, key + ".dims",
           "the texels need " + std::to_string(d.bytes()) + " bytes, buffer '" + buf.name +
               "' has " + std::to_string(buf.bytes()));
    s.textures.push_back(std::move(t));
  }
}

// One parameter (or, in a struct, one field: `field`): {buffer: name}, {<type>: value} or
// {struct: {bytes: "hex", fields: [{offset: o, <type>: value}, ...]}}.
LaunchParam parse_param(const Node& e, const std::string& key, const LaunchSpec& s, bool field) {
  const std::vector<std::string> kinds =
      field ? std::vector<std::string>{"buffer", "u8",  "s8",  "u16", "s16", "u32",
                                       "s32",    "u64", "s64", "f32", "f64"}
            : std::vector<std::string>{"buffer", "u32", "s32",    "u64",     "s64",
                                       "f32",    "f64", "struct", "texture", "surface"};
  need_map(e, key,
           field ? "expected {offset: o, <" + join(kinds) + ">: value}"
                 : "expected {buffer: name}, {<u32|s32|u64|s64|f32|f64>: value} or {struct: ...}");
  std::vector<std::string> keys = kinds;
  if (field) keys.push_back("offset");
  check_keys(e, key, keys);
  LaunchParam p;
  const size_t given = e.map.size() - (field && e.find("offset") ? 1 : 0);
  if (given != 1)
    fail(e, key,
         "give exactly one of: " + join(kinds) + " (got " + std::to_string(given) + " keys)");
  if (field) {
    const Node* o = e.find("offset");
    if (!o) fail(e, key, "missing key 'offset' (the field's byte offset in the struct)");
    p.offset = unsigned(integer_in(*o, key + ".offset", s.vars, 0, 1 << 16, "a byte offset"));
  }
  std::string kind;
  const Node* vp = nullptr;
  for (const auto& [k, v] : e.map)
    if (k != "offset" || !field) kind = k, vp = v.get();
  const Node& v = *vp;
  const std::string vkey = key + "." + kind;
  for (const auto& k : kParamKinds)
    if (kind == k.name) p.kind = k.kind;
  if (kind == "buffer") {
    known_buffer(v, vkey, s, p.buffer);
  } else if (kind == "texture" || kind == "surface") {
    const std::string& name = need_scalar(v, vkey, "expected the name of a `textures:` entry");
    std::vector<std::string> names;
    for (const LaunchTexture& t : s.textures)
      if (t.desc.surface == (kind == "surface")) names.push_back(t.name);
    if (std::find(names.begin(), names.end(), name) == names.end())
      fail(v, vkey,
           "unknown " + kind + " '" + shown(name) + "' (" + kind + "s in `textures:`" +
               (kind == "surface" ? " with surface: true" : "") + ": " +
               (names.empty() ? std::string("none") : join(names)) + ")");
    p.buffer = name;
  } else if (kind == "f32" || kind == "f64") {
    const double d = number(v, vkey, s.vars, kind);
    if (kind == "f32") {
      const float f = float(d);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      p.bits = bits;
    } else {
      std::memcpy(&p.bits, &d, 8);
    }
  } else if (kind == "struct") {
    need_map(v, vkey, "expected {bytes: \"hex bytes\", fields: [{offset: o, <type>: value}]}");
    check_keys(v, vkey, {"bytes", "fields"});
    if (const Node* raw = v.find("bytes")) {
      const std::string& hex =
          need_scalar(*raw, vkey + ".bytes", "expected hex bytes, e.g. \"00 ff\"");
      std::string digits;
      for (char c : hex)
        if (!std::isspace(static_cast<unsigned char>(c))) digits += c;
      if (digits.size() % 2 ||
          digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        fail(*raw, vkey + ".bytes",
             "'" + shown(hex) + "' is not hex bytes (pairs of 0-9a-f, spaces allowed)");
      for (size_t i = 0; i < digits.size(); i += 2)
        p.raw.push_back(uint8_t(std::stoul(digits.substr(i, 2), nullptr, 16)));
    }
    if (const Node* fs = v.find("fields"); fs && fs->kind != Node::Kind::Null) {
      if (fs->kind != Node::Kind::Seq)
        fail(*fs, vkey + ".fields", std::string("got ") + shape(*fs) + "; expected a list");
      for (size_t i = 0; i < fs->seq.size(); ++i)
        p.fields.push_back(
            parse_param(*fs->seq[i], vkey + ".fields[" + std::to_string(i) + "]", s, true));
    }
  } else {
    const TypeInfo& t = type_of(kind);
    int64_t lo, hi;
    int_range(t, lo, hi);
    const int64_t x = integer_in(v, vkey, s.vars, lo, hi, "a " + kind + " value");
    p.bits = t.bytes == 8 ? uint64_t(x) : uint64_t(x) & ((uint64_t(1) << (t.bytes * 8)) - 1);
    p.expr = v.scalar;
  }
  return p;
}

// Checks `text` (an expression of step `key`) with the vars' initial values; buffer elements
// read as 0 once the buffer's name is known (their index is checked when the step runs).
void check_expr(const Node& n, const std::string& key, const std::string& text,
                const LaunchSpec& s) {
  const ElementReader element = [&](const std::string& b, int64_t) -> int64_t {
    if (s.find_buffer(b)) return 0;
    throw ExprError(unknown_buffer(b, s));
  };
  try {
    eval_expr(text, s.vars, element);
  } catch (const ExprError& e) {
    fail(n, key, "bad value '" + shown(text) + "': " + e.what());
  }
}

std::string step_expr(const Node& m, const std::string& key, const std::string& k,
                      const LaunchSpec& s, const char* def = nullptr) {
  const Node* n = m.find(k);
  if (!n) {
    if (def) return def;
    fail(m, key, "missing key '" + k + "'");
  }
  const std::string& text = need_scalar(*n, key + "." + k, "expected an integer expression");
  check_expr(*n, key + "." + k, text, s);
  return text;
}

// `v` (a var name, given at `n`) must be declared.
const std::string& known_var(const Node& n, const std::string& key, const std::string& v,
                             const LaunchSpec& s) {
  if (s.vars.count(v)) return v;
  std::vector<std::string> names;
  for (const auto& [k, x] : s.vars) names.push_back(k);
  const std::string near = closest(v, names);
  fail(n, key,
       "unknown var '" + v + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
           " (a var a step assigns must be declared in `vars`; vars: " +
           (names.empty() ? std::string("none") : join(names)) + ")");
}

const LaunchBuffer& known_buffer(const Node& n, const std::string& key, const LaunchSpec& s,
                                 std::string& name) {
  name = need_scalar(n, key, "expected a buffer name");
  if (const LaunchBuffer* b = s.find_buffer(name)) return *b;
  fail(n, key, unknown_buffer(name, s));
}

// Why `params` (each's kind and bytes) cannot be .entry `f`'s, or ""; `bad`: the index of the
// parameter at fault, or SIZE_MAX when the count differs. Struct parameters take the size
// their .param declares.
std::string params_error(std::vector<LaunchParam>& params, const ptx::Function& f,
                         const std::string& ptx_path, size_t& bad) {
  bad = SIZE_MAX;
  if (params.size() != f.params.size()) {
    std::string sig;
    for (const auto& p : f.params)
      sig += (sig.empty() ? "" : ", ") + std::string(".") + ptx::type_name(p.type) + " " + p.name;
    return std::to_string(params.size()) + " parameters given; .entry " + f.name + " (" + ptx_path +
           ":" + std::to_string(f.decl_line) + ") takes " + std::to_string(f.params.size()) +
           ": (" + sig + ")";
  }
  for (size_t i = 0; i < params.size(); ++i) {
    LaunchParam& p = params[i];
    const ptx::Param& q = f.params[i];
    std::string why;
    if (p.kind == LaunchParam::Kind::Struct) { // as many bytes as the .param declares
      p.size = q.size;
      if (p.raw.size() > q.size)
        why = std::to_string(p.raw.size()) + " raw bytes, the parameter has " +
              std::to_string(q.size);
      for (size_t k = 0; k < p.fields.size() && why.empty(); ++k)
        if (p.fields[k].offset + p.fields[k].bytes() > q.size)
          why = "field " + std::to_string(k) + " (" + param_kind_name(p.fields[k].kind) +
                " at offset " + std::to_string(p.fields[k].offset) + ") ends past its " +
                std::to_string(q.size) + " bytes";
    } else if (p.bytes() != q.size)
      why = std::to_string(p.bytes()) + " bytes, the parameter has " + std::to_string(q.size);
    else if (p.kind == LaunchParam::Kind::Buffer && ptx_type_is_float(q.type))
      why = "a buffer address for a floating-point parameter";
    else if ((p.kind == LaunchParam::Kind::F32 || p.kind == LaunchParam::Kind::F64) &&
             ptx_type_is_int(q.type))
      why = "a floating-point value for an integer parameter";
    else if (p.kind != LaunchParam::Kind::Buffer && p.kind != LaunchParam::Kind::F32 &&
             p.kind != LaunchParam::Kind::F64 && ptx_type_is_float(q.type))
      why = "an integer value for a floating-point parameter";
    if (!why.empty()) {
      bad = i;
      return std::string(param_kind_name(p.kind)) + " does not match .param ." +
             ptx::type_name(q.type) + " " + q.name + " of .entry " + f.name + ": " + why;
    }
  }
  return "";
}

// Every .entry name of the file's modules, in order (a name in two modules once).
std::vector<std::string> all_entries(const LaunchSpec& s) {
  std::vector<std::string> names;
  for (const auto& m : s.modules)
    for (const std::string& e : m->entry_names())
      if (std::find(names.begin(), names.end(), e) == names.end()) names.push_back(e);
  return names;
}

// Whether a launch step in `steps` runs a kernel other than `kernel`.
bool launches_other(const std::vector<AppStep>& steps, const std::string& kernel) {
  for (const AppStep& st : steps)
    if ((st.kind == AppStep::Kind::Launch && !st.kernel.empty() && st.kernel != kernel) ||
        launches_other(st.body, kernel))
      return true;
  return false;
}

// A launch step: `launch:` (the file's kernel), `launch: LABEL`, or `launch: {kernel, grid,
// block, params, shared, label, cooperative}` (each but kernel defaulting to the file's).
void parse_launch(const Node& v, const std::string& vk, const LaunchSpec& s, AppStep& st) {
  st.kind = AppStep::Kind::Launch;
  if (v.kind == Node::Kind::Null) {
    st.label = s.kernel;
    return;
  }
  if (v.kind != Node::Kind::Map) {
    st.label = need_scalar(v, vk,
                           "expected a label or {kernel: NAME, grid, block, params, "
                           "shared, label, cooperative}");
    const std::vector<std::string> entries = all_entries(s);
    if (st.label != s.kernel &&
        std::find(entries.begin(), entries.end(), st.label) != entries.end())
      fail(v, vk,
           "'" + st.label + "' is the name of another kernel of the PTX; `launch: " + st.label +
               "` would run the file's kernel '" + s.kernel + "' under that label: " + "to run '" +
               st.label + "' write `launch: {kernel: " + st.label + "}`");
    return;
  }
  check_keys(v, vk, {"kernel", "grid", "block", "params", "shared", "label", "cooperative"});
  const Node* kn = v.find("kernel");
  if (!kn) fail(v, vk, "missing key 'kernel' (the .entry to launch)");
  st.kernel = need_scalar(*kn, vk + ".kernel", "expected a .entry name");
  const ptx::Function* f = find_entry(s, st.kernel);
  if (!f) {
    const std::vector<std::string> entries = all_entries(s);
    const std::string near = closest(st.kernel, entries);
    fail(*kn, vk + ".kernel",
         no_entry(s, st.kernel) + (near.empty() ? "" : "; did you mean '" + near + "'?") +
             " (kernels of " + join(s.ptx_paths) + ": " + join(entries) + ")");
  }
  for (size_t i = 0; i < s.modules.size(); ++i) // a name two modules define is ambiguous
    for (size_t j = i + 1; j < s.modules.size(); ++j)
      if (const ptx::Function* a = s.modules[i]->find_function(st.kernel),
          *b = s.modules[j]->find_function(st.kernel);
          a && a->is_entry && b && b->is_entry)
        fail(*kn, vk + ".kernel",
             "kernel '" + st.kernel + "' is an .entry of both " + s.ptx_paths[i] + " and " +
                 s.ptx_paths[j] + "; a launch could run either: rename one");
  st.label = st.kernel;
  if (const Node* ln = v.find("label")) st.label = need_scalar(*ln, vk + ".label", "a label");
  // grid and block: expressions, checked here over the initial vars, evaluated at the launch.
  std::array<unsigned, 3> block = s.block;
  for (const char* key : {"grid", "block"}) {
    const Node* n = v.find(key);
    if (!n) continue;
    const std::string k = vk + "." + key;
    std::vector<const Node*> items;
    if (n->kind == Node::Kind::Scalar)
      items.push_back(n);
    else if (n->kind == Node::Kind::Seq && !n->seq.empty() && n->seq.size() <= 3)
      for (auto& e : n->seq) items.push_back(e.get());
    else
      fail(*n, k, std::string("got ") + shape(*n) + "; expected 1 to 3 integers (x, y, z)");
    std::vector<std::string>& out = std::string(key) == "grid" ? st.grid : st.block;
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string ki = k + "." + "xyz"[i];
      const int64_t x = integer(*items[i], ki, s.vars); // no buffer reads: not a condition
      out.push_back(items[i]->scalar);
      const int64_t most = std::string(key) == "grid" ? (i ? 65535 : INT32_MAX)
                                                      : std::array<int64_t, 3>{1024, 1024, 64}[i];
      if (x < 1 || x > most)
        fail(*items[i], ki,
             "value " + std::to_string(x) + " out of range; a " + key +
                 " dimension must be in [1, " + std::to_string(most) + "]");
      if (std::string(key) == "block") block[i] = unsigned(x);
    }
    if (std::string(key) == "block")
      for (size_t i = items.size(); i < 3; ++i) block[i] = 1, out.push_back("1");
    else
      for (size_t i = items.size(); i < 3; ++i) out.push_back("1");
  }
  if (uint64_t(block[0]) * block[1] * block[2] > 1024)
    fail(*v.find("block"), vk + ".block",
         std::to_string(uint64_t(block[0]) * block[1] * block[2]) +
             " threads per CTA; at most 1024");
  if (const std::string why = block_error(*f, block); !why.empty())
    fail(v.find("block") ? *v.find("block") : v, vk + ".block", why);
  if (const Node* n = v.find("shared")) {
    integer_in(*n, vk + ".shared", s.vars, 0, 1 << 30, "dynamic shared memory in bytes");
    st.shared = n->scalar;
  }
  if (const Node* n = v.find("cooperative")) st.cooperative = boolean(*n, vk + ".cooperative");
  // Parameters: the step's own, else the file's, checked against this kernel's .param list.
  std::vector<const Node*> nodes;
  const Node* pn = v.find("params");
  if (pn && pn->kind != Node::Kind::Null) {
    if (pn->kind != Node::Kind::Seq)
      fail(*pn, vk + ".params",
           std::string("got ") + shape(*pn) + "; expected a list like [{buffer: A}, {s32: \"n\"}]");
    for (size_t i = 0; i < pn->seq.size(); ++i) {
      st.params.push_back(
          parse_param(*pn->seq[i], vk + ".params[" + std::to_string(i) + "]", s, false));
      nodes.push_back(pn->seq[i].get());
    }
    st.own_params = true;
  } else if (st.kernel != s.kernel) {
    st.params = s.params; // the file's, which must fit this kernel too
    st.own_params = true;
  }
  if (!st.own_params) return;
  size_t bad = 0;
  std::string path;
  for (size_t i = 0; i < s.modules.size(); ++i)
    if (s.modules[i]->find_function(st.kernel) == f) path = s.ptx_paths[i];
  if (const std::string why = params_error(st.params, *f, path, bad); !why.empty()) {
    if (nodes.empty())
      fail(v, vk,
           "no `params:`, and the file's `params` do not fit kernel '" + st.kernel + "': " + why +
               "; give the step its own `params:`");
    fail(bad < nodes.size() ? *nodes[bad] : *pn,
         bad < nodes.size() ? vk + ".params[" + std::to_string(bad) + "]" : vk + ".params", why);
  }
}

// Steps nest (loops) by recursion: bounded like expressions.
constexpr unsigned kMaxStepDepth = 32;

std::vector<AppStep> parse_steps(const Node& list, const std::string& key, const LaunchSpec& s,
                                 unsigned& launches, unsigned depth = 0) {
  if (depth > kMaxStepDepth)
    fail(list, key, "loops nested deeper than " + std::to_string(kMaxStepDepth));
  if (list.kind != Node::Kind::Seq)
    fail(list, key, std::string("got ") + shape(list) + "; expected a list of steps");
  const std::vector<std::string> kinds = {"launch", "for", "repeat", "set", "swap", "fill", "copy"};
  std::vector<AppStep> out;
  for (size_t i = 0; i < list.seq.size(); ++i) {
    const Node& e = *list.seq[i];
    const std::string k = key + "[" + std::to_string(i) + "]";
    need_map(e, k, "expected a step: {" + join(kinds) + ": ...}");
    if (e.map.empty() || std::find(kinds.begin(), kinds.end(), e.map[0].first) == kinds.end()) {
      const std::string first = e.map.empty() ? "" : e.map[0].first;
      const std::string near = closest(first, kinds);
      fail(e, k,
           "unknown step '" + first + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
               " (steps: " + join(kinds) + ")");
    }
    AppStep st;
    st.where = e.where();
    const std::string kind = e.map[0].first;
    const Node& v = *e.map[0].second;
    const std::string vk = k + "." + kind;
    if (kind == "launch") {
      check_keys(e, k, {"launch"});
      parse_launch(v, vk, s, st);
      ++launches;
    } else if (kind == "for" || kind == "repeat") {
      st.kind = kind == "for" ? AppStep::Kind::For : AppStep::Kind::Repeat;
      if (kind == "for") {
        check_keys(e, k, {"for", "do"});
        need_map(v, vk, "expected {var: name, from: a, to: b, step: s}");
        check_keys(v, vk, {"var", "from", "to", "step"});
        const Node* vn = v.find("var");
        if (!vn) fail(v, vk, "missing key 'var'");
        st.var =
            known_var(*vn, vk + ".var", need_scalar(*vn, vk + ".var", "expected a var name"), s);
        st.from = step_expr(v, vk, "from", s);
        st.to = step_expr(v, vk, "to", s);
        st.step = step_expr(v, vk, "step", s, "1");
      } else {
        check_keys(e, k, {"repeat", "while", "max"});
        const Node* w = e.find("while");
        if (!w) fail(e, k, "missing key 'while' (the condition to run the steps again)");
        st.cond = step_expr(e, k, "while", s);
        const Node* mx = e.find("max");
        st.max = mx ? uint64_t(integer_in(*mx, k + ".max", s.vars, 1, int64_t(1) << 40,
                                          "the passes at most"))
                    : 1000000;
      }
      const Node* body = kind == "for" ? e.find("do") : &v;
      if (!body) fail(e, k, "missing key 'do' (the steps of the loop)");
      st.body = parse_steps(*body, kind == "for" ? k + ".do" : vk, s, launches, depth + 1);
    } else if (kind == "set") {
      check_keys(e, k, {"set"});
      need_map(v, vk, "expected {var: expression, ...}");
      for (const auto& [name, x] : v.map) {
        known_var(*x, vk + "." + name, name, s);
        const std::string& text =
            need_scalar(*x, vk + "." + name, "expected an integer expression");
        check_expr(*x, vk + "." + name, text, s);
        st.assign.emplace_back(name, text);
      }
      st.kind = AppStep::Kind::Set;
    } else if (kind == "swap" || kind == "copy") {
      check_keys(e, k, {kind});
      st.kind = kind == "swap" ? AppStep::Kind::Swap : AppStep::Kind::Copy;
      const bool swap = kind == "swap";
      const Node* na =
          swap ? (v.kind == Node::Kind::Seq && v.seq.size() == 2 ? v.seq[0].get() : nullptr)
               : (v.kind == Node::Kind::Map ? v.find("from") : nullptr);
      const Node* nb = swap ? (na ? v.seq[1].get() : nullptr)
                            : (v.kind == Node::Kind::Map ? v.find("to") : nullptr);
      if (!swap && v.kind == Node::Kind::Map) check_keys(v, vk, {"from", "to"});
      if (!na || !nb)
        fail(v, vk, swap ? "expected two buffer names: [a, b]" : "expected {from: a, to: b}");
      const LaunchBuffer& ba = known_buffer(*na, vk, s, st.a);
      const LaunchBuffer& bb = known_buffer(*nb, vk, s, st.b);
      if (ba.type != bb.type || ba.count != bb.count)
        fail(v, vk,
             "'" + st.a + "' (" + std::to_string(ba.count) + " x " + ba.type + ") and '" + st.b +
                 "' (" + std::to_string(bb.count) + " x " + bb.type + ") differ; " + kind +
                 " needs buffers of the same type and count");
      if (st.a == st.b) fail(v, vk, "the same buffer twice");
    } else { // fill
      check_keys(e, k, {"fill"});
      need_map(v, vk, "expected {buffer: b, value: v, first: i, count: n, stride: s}");
      check_keys(v, vk, {"buffer", "value", "first", "count", "stride"});
      const Node* bn = v.find("buffer");
      if (!bn) fail(v, vk, "missing key 'buffer'");
      const LaunchBuffer& b = known_buffer(*bn, vk + ".buffer", s, st.a);
      const Node* val = v.find("value");
      if (!val) fail(v, vk, "missing key 'value'");
      st.value = need_scalar(*val, vk + ".value", "expected a number");
      if (b.is_float())
        number(*val, vk + ".value", s.vars, b.type);
      else
        check_expr(*val, vk + ".value", st.value, s);
      st.first = step_expr(v, vk, "first", s, "0");
      st.count = step_expr(v, vk, "count", s, "-1"); // -1: to the end
      st.stride = step_expr(v, vk, "stride", s, "1");
      st.kind = AppStep::Kind::Fill;
    }
    out.push_back(std::move(st));
  }
  return out;
}

} // namespace

namespace {
ptx::half::Format half_format(const std::string& type) {
  return type == "bf16" ? ptx::half::kBF16 : ptx::half::kF16;
}
} // namespace

void LaunchBuffer::encode(double f, int64_t i, uint8_t* out) const {
  if (is_float() && elem_bytes == 2) { // rounded to nearest even, as cvt.rn does
    const uint16_t h = ptx::half::round(f, half_format(type), ptx::half::Mode::RN);
    std::memcpy(out, &h, 2);
  } else if (is_float() && elem_bytes == 4) {
    const float x = float(f);
    std::memcpy(out, &x, 4);
  } else if (is_float()) {
    std::memcpy(out, &f, 8);
  } else {
    std::memcpy(out, &i, elem_bytes); // little endian: the low bytes
  }
}

double LaunchBuffer::value(const uint8_t* in) const {
  if (is_float() && elem_bytes == 2) {
    uint16_t h;
    std::memcpy(&h, in, 2);
    return ptx::half::to_double(h, half_format(type));
  }
  if (is_float() && elem_bytes == 4) {
    float x;
    std::memcpy(&x, in, 4);
    return x;
  }
  if (is_float()) {
    double d;
    std::memcpy(&d, in, 8);
    return d;
  }
  if (type == "u64") {
    uint64_t u;
    std::memcpy(&u, in, 8);
    return double(u);
  }
  return double(decode(in));
}

int64_t LaunchBuffer::decode(const uint8_t* in) const {
  const TypeInfo& t = type_of(type);
  if (t.is_float) {
    const double d = value(in);
    if (!(d == d)) return 0; // NaN
    return d >= 9.2e18    ? std::numeric_limits<int64_t>::max()
           : d <= -9.2e18 ? std::numeric_limits<int64_t>::min()
                          : int64_t(d);
  }
  uint64_t u = 0;
  std::memcpy(&u, in, t.bytes);
  if (t.is_signed && t.bytes < 8 && (u >> (t.bytes * 8 - 1) & 1))
    u |= ~uint64_t(0) << (t.bytes * 8);
  return int64_t(u);
}

const ptx::Function* find_entry(const LaunchSpec& spec, const std::string& kernel) {
  for (const auto& m : spec.modules)
    if (const ptx::Function* f = m->find_function(kernel); f && f->is_entry && f->has_body)
      return f;
  return nullptr;
}

std::string no_entry(const LaunchSpec& spec, const std::string& kernel) {
  for (const auto& m : spec.modules)
    if (m->refused.count(kernel)) return m->no_entry(kernel);
  return "unknown kernel '" + kernel + "'";
}

std::string block_error(const ptx::Function& f, const std::array<unsigned, 3>& block) {
  // .reqntid: the exact block; .maxntid: at most that many threads; a dimension the directive
  // leaves out is 1.
  auto dim3 = [](const unsigned* d) {
    std::string s;
    for (unsigned i = 0; i < 3; ++i) s += (i ? "," : "") + std::to_string(std::max(d[i], 1u));
    return s;
  };
  for (unsigned d = 0; d < 3 && f.reqntid[0]; ++d)
    if (block[d] != std::max(f.reqntid[d], 1u))
      return "[" + dim3(block.data()) + "], but .entry " + f.name + " requires .reqntid " +
             dim3(f.reqntid);
  const uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (const uint64_t most = uint64_t(std::max(f.maxntid[0], 1u)) * std::max(f.maxntid[1], 1u) *
                            std::max(f.maxntid[2], 1u);
      f.maxntid[0] && threads > most)
    return std::to_string(threads) + " threads per CTA, but .entry " + f.name + " allows at most " +
           std::to_string(most) + " (.maxntid " + dim3(f.maxntid) + ")";
  return "";
}

LaunchSpec load_launch(const std::string& path, unsigned scale,
                       const std::vector<std::string>& var_overrides) {
  if (scale < 1) throw ConfigError("--scale " + std::to_string(scale) + ": must be at least 1");
  ConfigPtr rootp = load_config(path);
  for (const std::string& a : var_overrides) {
    const std::string name = a.substr(0, a.find('='));
    const Node* vn = rootp->find("vars");
    std::vector<std::string> names = vn ? vn->keys() : std::vector<std::string>{};
    if (a.find('=') == std::string::npos || !vn || !vn->find(name)) {
      const std::string near = closest(name, names);
      throw ConfigError("--var '" + a + "': " +
                        (a.find('=') == std::string::npos
                             ? std::string("expected name=value (e.g. warps=4)")
                             : path + " declares no var '" + name + "'" +
                                   (near.empty() ? "" : "; did you mean '" + near + "'?") +
                                   " (vars: " + (names.empty() ? "none" : join(names)) + ")"));
    }
    apply_override(*rootp, "vars." + a);
  }
  const Node& root = *rootp;
  LaunchSpec s;
  s.file = path;
  s.scale = scale;
  const fs::path dir = fs::path(path).parent_path();
  need_map(root, "launch", "a launch file is a map of keys");
  const std::vector<std::string> top = {"name",  "ptx",    "kernel",       "vars",    "scaled",
                                        "grid",  "block",  "shared_bytes", "buffers", "params",
                                        "steps", "verify", "cooperative",  "textures"};
  check_keys(root, "", top);
  auto required = [&](const std::string& k, const std::string& what) -> const Node& {
    const Node* n = root.find(k);
    if (!n || n->kind == Node::Kind::Null)
      throw ConfigError((n ? n->where() : root.where()) + ": " + k + ": missing; " + what);
    return *n;
  };
  s.name = need_scalar(required("name", "the workload (reference checker) name"), "name",
                       "expected the workload name");
  const Node& ptxn = required("ptx", "the PTX file, relative to the launch file");
  // `ptx: file` or `ptx: [file, ...]`: several modules (an application's kernels).
  std::vector<std::pair<std::string, const Node*>> ptx_files;
  if (ptxn.kind == Node::Kind::Seq) {
    if (ptxn.seq.empty()) fail(ptxn, "ptx", "an empty list; expected one or more PTX files");
    for (size_t i = 0; i < ptxn.seq.size(); ++i)
      ptx_files.emplace_back(
          need_scalar(*ptxn.seq[i], "ptx[" + std::to_string(i) + "]", "expected a file name"),
          ptxn.seq[i].get());
  } else {
    ptx_files.emplace_back(need_scalar(ptxn, "ptx", "expected a file name or a list of them"),
                           &ptxn);
  }
  const Node& kn = required("kernel", "the .entry name");
  s.kernel = need_scalar(kn, "kernel", "expected the .entry name");

  // vars and scaled
  std::set<std::string> scaled;
  const Node* sc = root.find("scaled");
  const Node* vn = root.find("vars");
  std::vector<std::string> var_names;
  if (vn && vn->kind != Node::Kind::Null) {
    need_map(*vn, "vars", "expected a map of name: integer");
    for (const auto& [k, v] : vn->map) var_names.push_back(k);
  }
  if (sc && sc->kind != Node::Kind::Null) {
    if (sc->kind != Node::Kind::Seq)
      fail(*sc, "scaled", std::string("got ") + shape(*sc) + "; expected a list of var names");
    for (size_t i = 0; i < sc->seq.size(); ++i) {
      const Node& e = *sc->seq[i];
      const std::string key = "scaled[" + std::to_string(i) + "]";
      const std::string& n = need_scalar(e, key, "expected a var name");
      if (std::find(var_names.begin(), var_names.end(), n) == var_names.end()) {
        const std::string near = closest(n, var_names);
        fail(e, key,
             "unknown var '" + n + "'; " + (near.empty() ? "" : "did you mean '" + near + "'? ") +
                 "(vars: " + (var_names.empty() ? std::string("none") : join(var_names)) + ")");
      }
      scaled.insert(n);
    }
  }
  if (vn && vn->kind == Node::Kind::Map) {
    for (const auto& [k, v] : vn->map) {
      bool ident = !k.empty() && (std::isalpha(static_cast<unsigned char>(k[0])) || k[0] == '_');
      for (char c : k) ident &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      if (!ident) fail(*v, "vars." + k, "var names must be identifiers");
      int64_t x = integer(*v, "vars." + k, s.vars);
      if (scaled.count(k)) {
        int64_t r;
        if (__builtin_mul_overflow(x, int64_t(scale), &r))
          fail(*v, "vars." + k, "overflow at --scale " + std::to_string(scale));
        x = r;
      }
      s.vars[k] = x;
    }
  }

  // grid, block, shared memory
  auto dims = [&](const std::string& key, std::array<unsigned, 3>& out,
                  const std::array<int64_t, 3>& max) {
    const Node& n = required(key, "1 to 3 integers (x, y, z), e.g. [64, 1, 1]");
    std::vector<const Node*> items;
    if (n.kind == Node::Kind::Scalar) {
      items.push_back(&n);
    } else if (n.kind == Node::Kind::Seq && !n.seq.empty() && n.seq.size() <= 3) {
      for (auto& e : n.seq) items.push_back(e.get());
    } else {
      fail(n, key,
           std::string("got ") + shape(n) +
               (n.kind == Node::Kind::Seq ? " of " + std::to_string(n.seq.size()) : "") +
               "; expected 1 to 3 integers (x, y, z)");
    }
    static const char* axis = "xyz";
    for (size_t i = 0; i < items.size(); ++i)
      out[i] = unsigned(
          integer_in(*items[i], key + "." + axis[i], s.vars, 1, max[i], "a " + key + " dimension"));
  };
  dims("grid", s.grid, {int64_t(INT32_MAX), 65535, 65535});
  dims("block", s.block, {1024, 1024, 64});
  if (s.threads_per_cta() > 1024)
    fail(*root.find("block"), "block",
         std::to_string(s.threads_per_cta()) + " threads per CTA; at most 1024");
  if (const uint64_t ctas = uint64_t(s.grid[0]) * s.grid[1] * s.grid[2]; ctas > UINT32_MAX)
    fail(*root.find("grid"), "grid",
         std::to_string(s.grid[0]) + " x " + std::to_string(s.grid[1]) + " x " +
             std::to_string(s.grid[2]) + " = " + std::to_string(ctas) +
             " CTAs; at most 4294967295 (CTA ids are 32-bit)");
  if (const Node* n = root.find("shared_bytes"); n && n->kind != Node::Kind::Null)
    s.shared_bytes_where = n->where(),
    s.shared_bytes = unsigned(
        integer_in(*n, "shared_bytes", s.vars, 0, 1 << 30, "dynamic shared memory in bytes"));
  if (const Node* n = root.find("cooperative"); n && n->kind != Node::Kind::Null)
    s.cooperative = boolean(*n, "cooperative");

  // buffers
  std::vector<const Node*> buffer_nodes;
  if (const Node* bn = root.find("buffers"); bn && bn->kind != Node::Kind::Null) {
    need_map(*bn, "buffers", "expected a map of name: {type, count, init, output}");
    uint64_t total = 0;
    for (const auto& [name, v] : bn->map) {
      const std::string key = "buffers." + name;
      need_map(*v, key, "expected {type: t, count: n, init: {...}, output: bool}");
      check_keys(*v, key, {"type", "count", "init", "output", "symbol"});
      LaunchBuffer b;
      b.name = name;
      const Node* tn = v->find("type");
      if (!tn) fail(*v, key, "missing key 'type' (one of " + join(type_names()) + ")");
      b.type = choice(*tn, key + ".type", type_names());
      const TypeInfo& t = type_of(b.type);
      b.elem_bytes = t.bytes;
      const Node* cn = v->find("count");
      if (!cn) fail(*v, key, "missing key 'count' (elements)");
      b.count = uint64_t(
          integer_in(*cn, key + ".count", s.vars, 1, int64_t(1) << 32, "an element count"));
      total += b.bytes();
      // gpurf holds a buffer several times over (its initial values, the memory's copy, the
      // bytes read back to verify): a bound that fails at load, not out of memory later.
      if (total > kMaxBufferBytes)
        fail(*cn, key + ".count",
             std::to_string(b.count) + " x " + std::to_string(t.bytes) +
                 " bytes: the buffers need " + std::to_string(total) +
                 " bytes in all, over gpurf's limit of " + std::to_string(kMaxBufferBytes) +
                 " bytes (512 MiB) of launch buffers; give a smaller count (docs/workloads.md)");
      if (const Node* on = v->find("output")) b.output = boolean(*on, key + ".output");
      if (const Node* sn = v->find("symbol"))
        b.symbol = need_scalar(*sn, key + ".symbol", "expected a .const or .global variable");
      buffer_nodes.push_back(v.get());
      fill_init(b, t, v->find("init"), key + ".init", dir, s.vars);
      s.buffers.push_back(std::move(b));
    }
  }

  if (const Node* tn = root.find("textures"); tn && tn->kind != Node::Kind::Null)
    parse_textures(*tn, s);

  // params (checked against the .entry below)
  const Node* pn = root.find("params");
  std::vector<const Node*> param_nodes;
  if (pn && pn->kind != Node::Kind::Null) {
    if (pn->kind != Node::Kind::Seq)
      fail(*pn, "params",
           std::string("got ") + shape(*pn) + "; expected a list like [{buffer: A}, {s32: \"n\"}]");
    for (size_t i = 0; i < pn->seq.size(); ++i) {
      s.params.push_back(parse_param(*pn->seq[i], "params[" + std::to_string(i) + "]", s, false));
      param_nodes.push_back(pn->seq[i].get());
    }
  }

  // The PTX modules and the file's .entry
  for (size_t i = 0; i < ptx_files.size(); ++i) {
    const Node& n = *ptx_files[i].second;
    const std::string key = ptx_files.size() > 1 ? "ptx[" + std::to_string(i) + "]" : "ptx";
    const fs::path ptxp = dir / ptx_files[i].first;
    const std::string path = ptxp.lexically_normal().string();
    {
      std::ifstream probe(ptxp);
      if (!probe || fs::is_directory(ptxp)) fail(n, key, "cannot open PTX file '" + path + "'");
    }
    try {
      s.modules.push_back(std::make_shared<const ptx::Module>(ptx::parse_ptx_file(path)));
    } catch (const ptx::ParseError& e) {
      throw ConfigError(std::string(e.what()) + " (" + key + " of " + n.where() + ")");
    }
    for (size_t j = 0; j < i; ++j)
      if (s.ptx_paths[j] == path) fail(n, key, "'" + path + "' is listed twice");
    s.ptx_paths.push_back(path);
  }
  s.module = s.modules[0];
  s.ptx_path = s.ptx_paths[0];
  const ptx::Function* entry = s.module->find_function(s.kernel);
  if (!entry || !entry->is_entry || !entry->has_body) {
    const std::vector<std::string> entries = s.module->entry_names();
    const std::string near = closest(s.kernel, entries);
    fail(kn, "kernel",
         s.module->no_entry(s.kernel) + " in " + s.ptx_path + "; " +
             (near.empty() ? "" : "did you mean '" + near + "'? ") +
             "(entries: " + (entries.empty() ? std::string("none") : join(entries)) + ")");
  }

  // steps (an application) or one launch
  if (const Node* st = root.find("steps"); st && st->kind != Node::Kind::Null) {
    s.application = true;
    unsigned launches = 0;
    s.steps = parse_steps(*st, "steps", s, launches);
    if (!launches) fail(*st, "steps", "no step launches the kernel (add {launch: NAME})");
  } else {
    if (s.modules.size() > 1)
      fail(ptxn, "ptx",
           "several PTX files, but no `steps:` launches their kernels (one launch runs the "
           "file's kernel; add steps with {launch: {kernel: NAME}})");
    AppStep one;
    one.where = root.where();
    s.steps.push_back(one);
  }
  s.several_kernels = s.modules.size() > 1 || launches_other(s.steps, s.kernel);

  if (const std::string why = block_error(*entry, s.block); !why.empty())
    fail(*root.find("block"), "block", why);
  size_t bad = 0;
  if (const std::string why = params_error(s.params, *entry, s.ptx_path, bad); !why.empty())
    fail(bad < param_nodes.size() ? *param_nodes[bad]
         : pn                     ? *pn
                                  : root,
         bad < param_nodes.size() ? "params[" + std::to_string(bad) + "]" : "params", why);

  // Buffers placed at module variables (cudaMemcpyToSymbol), and variables the kernel names
  // that nothing initialises.
  std::vector<std::string> vars_named;
  for (const auto& v : s.module->vars)
    if (v.space == ptx::Space::Const || v.space == ptx::Space::Global) vars_named.push_back(v.name);
  std::set<std::string> placed;
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const LaunchBuffer& b = s.buffers[i];
    if (b.symbol.empty()) continue;
    const std::string key = "buffers." + b.name + ".symbol";
    const Node& n = *buffer_nodes[i]->find("symbol");
    const int vi = s.module->var_index(b.symbol);
    const ptx::VarDecl* v = vi >= 0 ? &s.module->vars[size_t(vi)] : nullptr;
    if (!v || (v->space != ptx::Space::Const && v->space != ptx::Space::Global)) {
      const std::string near = closest(b.symbol, vars_named);
      fail(n, key,
           "no .const or .global variable '" + b.symbol + "' in " + s.ptx_path + "; " +
               (near.empty() ? "" : "did you mean '" + near + "'? ") + "(variables: " +
               (vars_named.empty() ? std::string("none") : join(vars_named)) + ")");
    }
    if (b.bytes() > v->size)
      fail(n, key,
           "buffer '" + b.name + "' has " + std::to_string(b.bytes()) + " bytes; '" + b.symbol +
               "' holds " + std::to_string(v->size));
    if (!placed.insert(b.symbol).second) fail(n, key, "two buffers at '" + b.symbol + "'");
  }
  std::set<std::string> named; // symbols the kernel's code names
  for (const auto& f : s.module->functions)
    for (const auto& in : f.instrs)
      for (const auto* ops : {&in.src, &in.dst})
        for (const auto& o : *ops)
          if (o.kind == ptx::Operand::Kind::Addr || o.kind == ptx::Operand::Kind::Symbol)
            named.insert(o.name);
  for (const auto& v : s.module->vars)
    if ((v.space == ptx::Space::Const || v.space == ptx::Space::Global) && v.size &&
        v.init.empty() && v.addr_inits.empty() && !placed.count(v.name) && named.count(v.name))
      s.warnings.push_back(s.file + ": the kernel uses " +
                           (v.space == ptx::Space::Const ? ".const '" : ".global '") + v.name +
                           "' (" + std::to_string(v.size) + " bytes), which neither the PTX " +
                           "nor the launch file initialises: it holds zeros (give it a buffer " +
                           "with `symbol: " + v.name + "`)");

  // verify: outputs against files
  if (const Node* vn = root.find("verify"); vn && vn->kind != Node::Kind::Null) {
    if (vn->kind != Node::Kind::Seq)
      fail(*vn, "verify",
           std::string("got ") + shape(*vn) + "; expected a list of " +
               "{buffer: b, file: f, rtol: r, atol: a}");
    for (size_t i = 0; i < vn->seq.size(); ++i) {
      const Node& e = *vn->seq[i];
      const std::string key = "verify[" + std::to_string(i) + "]";
      need_map(e, key, "expected {buffer: b, file: f, rtol: r, atol: a}");
      check_keys(e, key, {"buffer", "file", "rtol", "atol"});
      VerifyFile vf;
      vf.where = e.where();
      const Node* bn = e.find("buffer");
      const Node* fn = e.find("file");
      if (!bn || !fn) fail(e, key, "needs both 'buffer' and 'file'");
      const LaunchBuffer& b = known_buffer(*bn, key + ".buffer", s, vf.buffer);
      const fs::path fp = dir / need_scalar(*fn, key + ".file", "expected a file name");
      vf.file = fp.lexically_normal().string();
      std::error_code ec;
      if (fs::is_directory(fp) || !fs::exists(fp))
        fail(*fn, key + ".file",
             "cannot open '" + vf.file + "'" + (fs::is_directory(fp) ? ": it is a folder" : ""));
      if (fs::file_size(fp, ec) != b.bytes())
        fail(*fn, key + ".file",
             "'" + vf.file + "' has " + std::to_string(fs::file_size(fp, ec)) + " bytes; buffer '" +
                 b.name + "' has " + std::to_string(b.count) + " x " + b.type + " = " +
                 std::to_string(b.bytes()));
      for (auto [k, out] : {std::pair{"rtol", &vf.rtol}, {"atol", &vf.atol}})
        if (const Node* t = e.find(k)) {
          *out = number(*t, key + "." + k, s.vars);
          if (!(*out >= 0) || !std::isfinite(*out))
            fail(*t, key + "." + k, "must be a finite number >= 0");
        }
      s.verify.push_back(vf);
    }
  }
  return s;
}

namespace {
// A scalar's or buffer address's bytes at launch time (integers evaluated over the vars).
uint64_t param_value(const LaunchSpec& spec, const LaunchParam& p,
                     const std::vector<uint64_t>& buffer_addr, const std::string& what) {
  if (p.kind == LaunchParam::Kind::Buffer) {
    for (size_t b = 0; b < spec.buffers.size(); ++b)
      if (spec.buffers[b].name == p.buffer && b < buffer_addr.size()) return buffer_addr[b];
    return 0;
  }
  if (p.kind == LaunchParam::Kind::Texture || p.kind == LaunchParam::Kind::Surface) {
    for (size_t t = 0; t < spec.textures.size(); ++t)
      if (spec.textures[t].name == p.buffer) return t + 1; // texture_table's handle
    return 0;
  }
  if (p.expr.empty()) return p.bits;
  // An integer: the vars may have changed since the file was loaded.
  const TypeInfo& t = type_of(param_kind_name(p.kind));
  int64_t lo, hi;
  int_range(t, lo, hi);
  const int64_t x = eval_expr(p.expr, spec.vars);
  if (x < lo || x > hi)
    throw ExprError(what + ": '" + shown(p.expr) + "' is " + std::to_string(x) +
                    ", outside the range of " + t.name + " [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
  return uint64_t(x);
}
} // namespace

ptx::TextureTable texture_table(const LaunchSpec& spec, const std::vector<uint64_t>& buffer_addr) {
  ptx::TextureTable table;
  for (const LaunchTexture& t : spec.textures) {
    ptx::TextureDesc d = t.desc;
    for (size_t b = 0; b < spec.buffers.size() && b < buffer_addr.size(); ++b)
      if (spec.buffers[b].name == t.buffer) d.base = buffer_addr[b];
    table.add(d); // handle = index + 1, as param_value passes it
  }
  return table;
}

std::vector<uint8_t> pack_params(const LaunchSpec& spec, const std::vector<uint64_t>& buffer_addr) {
  return pack_params(spec, buffer_addr, spec.entry(), spec.params);
}

std::vector<uint8_t> pack_params(const LaunchSpec& spec, const std::vector<uint64_t>& buffer_addr,
                                 const ptx::Function& f, const std::vector<LaunchParam>& params) {
  std::vector<uint8_t> buf(f.param_bytes, 0);
  for (size_t i = 0; i < params.size() && i < f.params.size(); ++i) {
    const LaunchParam& p = params[i];
    const ptx::Param& q = f.params[i];
    const std::string what = "params[" + std::to_string(i) + "]";
    if (q.offset + p.bytes() > buf.size())
      throw ConfigError(spec.file + ": parameter " + std::to_string(i) + " outside the entry's " +
                        std::to_string(buf.size()) + "-byte parameter buffer");
    if (p.kind != LaunchParam::Kind::Struct) {
      const uint64_t v = param_value(spec, p, buffer_addr, what);
      std::memcpy(buf.data() + q.offset, &v, p.bytes()); // little endian: the low bytes
      continue;
    }
    if (!p.raw.empty()) // no raw bytes: data() may be null, which memcpy must not get
      std::memcpy(buf.data() + q.offset, p.raw.data(), std::min<size_t>(p.raw.size(), p.size));
    for (size_t k = 0; k < p.fields.size(); ++k) {
      const LaunchParam& fl = p.fields[k];
      const uint64_t v =
          param_value(spec, fl, buffer_addr, what + ".struct.fields[" + std::to_string(k) + "]");
      if (fl.offset + fl.bytes() <= p.size)
        std::memcpy(buf.data() + q.offset + fl.offset, &v, fl.bytes());
    }
  }
  return buf;
}

} // namespace gpurf
