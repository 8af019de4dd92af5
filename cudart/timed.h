// GPURF_TIMED (gpurf exec --timed SPEC): which launches of a CUDA program run on the timing
// model; the others are fast-forwarded on the functional engine (docs/programs.md
// "Fast-forward"). SPEC is a comma-separated list of
//   N, N-M, N-    launch numbers (from 1, as the per-launch lines and launches.jsonl number
//                 them), a range, or N and every later launch;
//   NAME          a kernel: its .entry (mangled) name, or its demangled name without the
//                 parameter list (`ns::sgemm<float>`), without template arguments
//                 (`ns::sgemm`) or without namespaces (`sgemm`);
//   none          no launch is timed (every launch fast-forwarded; alone).
// A launch is timed when any item selects it. Unset or empty: every launch is timed.
// Header-only: libgpurf-cudart, `gpurf exec` (checks it before the program runs) and the unit
// tests use it.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cxxabi.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurf::cudart {

class TimedSet {
public:
  TimedSet() = default; // every launch timed

  // `what` names the input in errors ("GPURF_TIMED", "--timed"); std::invalid_argument with
  // the bad item and the valid forms.
  static TimedSet parse(const std::string& spec, const std::string& what) {
    TimedSet t;
    if (trim(spec).empty()) return t;
    t.all_ = false;
    size_t b = 0;
    for (;;) {
      const size_t e = spec.find(',', b);
      const std::string item = trim(spec.substr(b, e == std::string::npos ? e : e - b));
      t.add(item, spec, what);
      if (e == std::string::npos) break;
      b = e + 1;
    }
    if (t.none_ && (t.ranges_.size() || t.names_.size()))
      throw std::invalid_argument(what + "='" + spec + "': 'none' cannot be combined with " +
                                  "other items" + forms());
    return t;
  }

  bool all() const { return all_; }
  const std::vector<std::string>& names() const { return names_; }

  // Launch number `launch` (from 1) of the kernel whose .entry is `mangled`.
  bool timed(uint64_t launch, const std::string& mangled) const {
    if (all_) return true;
    for (const Range& r : ranges_)
      if (launch >= r.first && launch <= r.last) return true;
    for (const std::string& n : names_)
      if (matches(n, mangled)) return true;
    return false;
  }

  // Whether `name` (an item) names the kernel whose .entry is `mangled`.
  static bool matches(const std::string& name, const std::string& mangled) {
    for (const std::string& a : aliases(mangled))
      if (a == name) return true;
    return false;
  }

  // The names that select kernel `mangled`: the .entry's, and the demangled one without its
  // parameter list, its template arguments and its namespaces ("_Z5sgemmPfi": "sgemm").
  static std::vector<std::string> aliases(const std::string& mangled) {
    std::vector<std::string> v{mangled};
    int status = 0;
    char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    std::string s = status == 0 && d ? d : "";
    std::free(d);
    if (s.empty()) return v;
    // Up to the parameter list, then without a return type ("void ns::k<int>").
    int depth = 0;
    size_t cut = s.size(), space = std::string::npos;
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '<') ++depth;
      if (c == '>') --depth;
      if (depth == 0 && c == ' ') space = i;
      if (depth == 0 && c == '(') {
        cut = i;
        break;
      }
    }
    std::string q = s.substr(0, cut);
    if (space != std::string::npos && space < cut) q = q.substr(space + 1);
    add_alias(v, q);
    if (!q.empty() && q.back() == '>') { // without the template arguments
      depth = 0;
      for (size_t i = q.size(); i-- > 0;) {
        if (q[i] == '>') ++depth;
        if (q[i] == '<' && --depth == 0) {
          q = q.substr(0, i);
          break;
        }
      }
      add_alias(v, q);
    }
    const size_t colon = q.rfind("::");
    if (colon != std::string::npos) add_alias(v, q.substr(colon + 2));
    return v;
  }

private:
  struct Range {
    uint64_t first, last;
  };
  bool all_ = true, none_ = false;
  std::vector<Range> ranges_;
  std::vector<std::string> names_;

  static std::string forms() {
    return "; the items, comma separated: a launch number N (from 1, as gpurf's per-launch "
           "lines number them), a range N-M, N- (N and every later launch), a kernel name (its "
           ".entry name or its demangled name without parameters, e.g. sgemm), or none";
  }
  static std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
  }
  static void add_alias(std::vector<std::string>& v, const std::string& a) {
    if (!a.empty() && (v.empty() || v.back() != a)) v.push_back(a);
  }
  // A launch number: digits, at least 1, below 2^63.
  static bool number(const std::string& s, uint64_t& n) {
    if (s.empty() || s.size() > 18) return false;
    n = 0;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      n = n * 10 + uint64_t(c - '0');
    }
    return n >= 1;
  }
  void add(const std::string& item, const std::string& spec, const std::string& what) {
    auto bad = [&](const std::string& why) {
      return std::invalid_argument(what + "='" + spec + "': bad item '" + item + "' (" + why + ")" +
                                   forms());
    };
    if (item.empty()) throw bad("empty");
    if (item == "none") {
      none_ = true;
      return;
    }
    const unsigned char c0 = static_cast<unsigned char>(item[0]);
    if (std::isdigit(c0)) {
      const size_t dash = item.find('-');
      Range r{};
      const std::string a = item.substr(0, dash);
      if (!number(a, r.first))
        throw bad(a.find_first_not_of("0123456789") == std::string::npos && !a.empty() &&
                          a.size() <= 18
                      ? "launches are numbered from 1"
                      : "not a launch number");
      if (dash == std::string::npos) {
        r.last = r.first;
      } else if (dash + 1 == item.size()) {
        r.last = UINT64_MAX;
      } else {
        if (!number(item.substr(dash + 1), r.last)) throw bad("not a range N-M of launch numbers");
        if (r.last < r.first) throw bad("the range ends before it starts");
      }
      ranges_.push_back(r);
      return;
    }
    if (!(std::isalpha(c0) || c0 == '_' || c0 == '$')) throw bad("neither a launch nor a name");
    for (char c : item)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == ':' ||
            c == '<' || c == '>' || c == '.'))
        throw bad(std::string("'") + c + "' in a kernel name");
    names_.push_back(item);
  }
};

} // namespace gpurf::cudart
