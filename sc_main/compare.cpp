// gpurf compare DIR_A DIR_B ... [--stats S,S...] [--format text|markdown|csv]
//                                [--normalize[=on|off]]
//
// Each DIR is a summary directory (holds summary.json, as DIR/<platform>/ of gpurf suite),
// a suite output directory with exactly one platform subdirectory, a `gpurf run --out`
// directory (result.json), or a summary.json file itself. For each statistic it prints one
// table: a row per kernel, a column per DIR. Normalised (the default), the first column
// holds the first DIR's absolute values and every other column the ratio DIR / first DIR;
// the closing rows hold the arithmetic and geometric means over the kernels that every
// DIR has and verified. --normalize=off prints absolute values in every column.
#include "sc_main/compare.h"
#include "gpurf/platform/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace gpurf {
namespace {

constexpr int kExitOk = 0, kExitBadInput = 2;

const char* kCompareUsage =
    R"(usage: gpurf compare DIR_A DIR_B ... [--stats S,S...] [--kernels K,K...]
                     [--format text|markdown|csv] [--normalize[=on|off]]
  DIR        DIR/summary.json (gpurf suite's DIR/<platform>), a suite --out directory with
             one platform, a gpurf run --out directory (result.json), or a summary.json
  --stats    statistics to show (default: ipc,cycles,rf_bank_accesses and sm_energy_pj
             where present); nested ones by dot path: bank_conflicts.read_read,
             energy.breakdown.rf_bank_read (or breakdown.rf_bank_read)
  --kernels  only these kernels (default: every kernel of any DIR)
  --format   text (default), markdown or csv
  --normalize=on (default): first column absolute, the others as ratios to it;
  --normalize=off: absolute values in every column
  --strict   refuse (exit 2) energy statistics priced by different energy tables
             (default: a warning); reprice with gpurf energy --table FILE (docs/energy.md)
  Means (arithmetic, geometric) cover the kernels that every DIR has and verified.
  A ratio 0/0 is no ratio: it prints n/a and stays out of the means.
)";

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct HelpRequested {};

struct Source {
  std::string arg, label, file;     // as given, column label, the file read
  json prov;                        // the provenance.json of the run or suite; null if none
  std::vector<std::string> kernels; // in file order
  std::map<std::string, json> by_kernel;
};

std::string strip_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// The summary file that `arg` names (see the usage).
std::string summary_file(const std::string& arg) {
  const fs::path p(arg);
  if (!fs::exists(p)) throw BadInput(arg + ": no such file or directory");
  if (fs::is_regular_file(p)) return p.string();
  if (fs::exists(p / "summary.json")) return (p / "summary.json").string();
  std::vector<std::string> subs;
  for (auto& e : fs::directory_iterator(p))
    if (e.is_directory() && fs::exists(e.path() / "summary.json"))
      subs.push_back(e.path().filename());
  std::sort(subs.begin(), subs.end());
  if (subs.size() == 1) return (p / subs.front() / "summary.json").string();
  if (subs.empty() && fs::exists(p / "result.json")) return (p / "result.json").string();
  if (subs.empty())
    throw BadInput(arg + ": no summary.json (expected " + (p / "summary.json").string() + " or " +
                   (p / "<platform>" / "summary.json").string() +
                   ", as gpurf suite --out writes; did the suite run finish?)");
  std::string list;
  for (auto& s : subs) list += (list.empty() ? "" : ", ") + (p / s).string();
  throw BadInput(arg + ": holds summaries of " + std::to_string(subs.size()) +
                 " platforms; name one of: " + list);
}

Source load(const std::string& arg) {
  Source s;
  s.arg = strip_slash(arg);
  s.file = summary_file(s.arg);
  std::ifstream f(s.file);
  if (!f) throw BadInput(s.file + ": cannot open");
  json doc;
  try {
    doc = json::parse(f);
  } catch (const json::exception& e) {
    throw BadInput(s.file + ": not valid JSON (" + e.what() + ")");
  }
  // The run's provenance beside its result.json, or the suite's above its platform folder.
  for (const fs::path& d :
       {fs::path(s.file).parent_path(), fs::path(s.file).parent_path().parent_path()})
    if (std::ifstream pf(d / "provenance.json"); pf) {
      s.prov = json::parse(pf, nullptr, false);
      if (s.prov.is_discarded()) s.prov = nullptr;
      break;
    }
  if (doc.is_object()) doc = json::array({doc}); // a `gpurf run` result.json
  if (!doc.is_array()) throw BadInput(s.file + ": expected a list of kernel summaries");
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& o = doc[i];
    const std::string where = s.file + ": entry " + std::to_string(i);
    if (!o.is_object() || !o.contains("kernel") || !o["kernel"].is_string())
      throw BadInput(where + ": not a kernel summary (no \"kernel\" name)");
    const std::string k = o["kernel"].get<std::string>();
    const std::string who = s.file + ": kernel '" + k + "'";
    if (!o.contains("schema"))
      throw BadInput(who +
                     " has no \"schema\" field (schema 0, written by an older gpurf); "
                     "this gpurf reads schema " +
                     std::to_string(kCompareSchema) + ": rerun gpurf suite to regenerate it");
    if (!o["schema"].is_number_integer() || o["schema"].get<long long>() != kCompareSchema)
      throw BadInput(who + " has \"schema\": " + o["schema"].dump() + "; this gpurf reads schema " +
                     std::to_string(kCompareSchema) + ": use a matching gpurf or rerun the suite");
    // The fields read with a type beside the numeric statistics (checked where they are used).
    auto shown = [](const json& v) { return v.dump().substr(0, 80); };
    if (o.contains("verified") && !o["verified"].is_boolean())
      throw BadInput(who + " has \"verified\": " + shown(o["verified"]) +
                     "; expected true or false");
    if (o.contains("error") && !o["error"].is_string())
      throw BadInput(who + " has \"error\": " + shown(o["error"]) + "; expected a string");
    if (s.by_kernel.count(k)) throw BadInput(who + " appears twice");
    s.kernels.push_back(k);
    s.by_kernel[k] = o;
  }
  return s;
}

// Column labels: each directory's name; where names collide (run1/fermi, run2/fermi), its
// last two path parts; where those collide too, the path as given.
void label(std::vector<Source>& srcs) {
  auto name = [](const Source& s, int parts) {
    fs::path p(s.arg);
    if (fs::is_regular_file(p)) p = p.parent_path();
    std::string n = p.filename().string();
    if (parts == 2 && !p.parent_path().filename().empty() && p.parent_path().filename() != ".")
      n = p.parent_path().filename().string() + "/" + n;
    return n.empty() || n == "." || n == ".." ? s.arg : n;
  };
  std::map<std::string, int> count1, count2, count3;
  for (auto& s : srcs) ++count1[name(s, 1)], ++count2[name(s, 2)], ++count3[s.arg];
  for (auto& s : srcs)
    s.label = count1[name(s, 1)] == 1   ? name(s, 1)
              : count2[name(s, 2)] == 1 ? name(s, 2)
              : count3[s.arg] == 1      ? s.arg
                                        : name(s, 1);
  // Still colliding (the same directory given twice): number them.
  std::map<std::string, int> count, seen;
  for (auto& s : srcs) ++count[s.label];
  for (auto& s : srcs)
    if (count[s.label] > 1) s.label += "#" + std::to_string(++seen[s.label]);
}

// Dot paths of every numeric leaf of `o` (into `numeric`) and of every inner object.
void leaves(const json& o, const std::string& prefix, std::set<std::string>& numeric,
            std::set<std::string>& objects) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) {
      objects.insert(path);
      leaves(*it, path, numeric, objects);
    } else if (it->is_number() || it->is_null()) { // null: a ratio of nothing (n/a)
      numeric.insert(path);
    }
  }
}

const json* lookup(const json& o, const std::string& path) {
  const json* cur = &o;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) {
    if (!cur->is_object() || !cur->contains(part)) return nullptr;
    cur = &(*cur)[part];
  }
  return cur;
}

// The statistics closest to `word`: by edit distance, then by a shared last path part.
std::vector<std::string> suggestions(const std::string& word, const std::set<std::string>& keys) {
  std::vector<std::pair<size_t, std::string>> scored;
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  const std::string last =
      word.substr(word.rfind('.') == std::string::npos ? 0 : word.rfind('.') + 1);
  for (auto& k : keys) {
    const size_t d = edit_distance(word, k);
    const std::string klast = k.substr(k.rfind('.') == std::string::npos ? 0 : k.rfind('.') + 1);
    if (d <= limit)
      scored.push_back({d, k});
    else if (edit_distance(last, klast) <= std::max<size_t>(1, last.size() / 4))
      scored.push_back({limit + 1, k});
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (auto& p : scored)
    if (out.size() < 3) out.push_back(p.second);
  return out;
}

std::string fmt_abs(const json& v) {
  if (v.is_number_integer()) return v.dump();
  const double d = v.get<double>();
  char buf[64];
  if (d == 0 || std::fabs(d) >= 1e3)
    std::snprintf(buf, sizeof buf, "%.0f", d);
  else
    std::snprintf(buf, sizeof buf, "%#.4g", d);
  return buf;
}

std::string fmt_double(double d, bool ratio) {
  char buf[64];
  if (std::isnan(d)) return "n/a";
  if (std::isinf(d)) return "inf";
  if (ratio)
    std::snprintf(buf, sizeof buf, "%.3f", d);
  else if (d == 0 || std::fabs(d) >= 1e3)
    std::snprintf(buf, sizeof buf, "%.0f", d);
  else
    std::snprintf(buf, sizeof buf, "%#.4g", d);
  return buf;
}

std::string fmt_csv(double d) {
  if (std::isnan(d)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", d);
  return buf;
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

struct Options {
  std::vector<std::string> dirs, stats, kernels;
  std::string format = "text";
  bool normalize = true;
  bool strict = false; // refuse energy statistics priced by different energy tables
};

Options parse_args(const std::vector<std::string>& args) {
  Options o;
  auto value = [&](size_t& i) -> std::string {
    if (i + 1 >= args.size())
      throw BadInput("option " + args[i] + " needs a value\n" + kCompareUsage);
    return args[++i];
  };
  auto on_off = [](const std::string& opt, const std::string& v) {
    if (v == "on" || v == "true" || v == "yes" || v == "1") return true;
    if (v == "off" || v == "false" || v == "no" || v == "0") return false;
    throw BadInput("option " + opt + ": '" + v + "' is not on or off");
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--stats" || a == "--stat") {
      std::stringstream ss(value(i));
      for (std::string s; std::getline(ss, s, ',');)
        if (!s.empty()) o.stats.push_back(s);
    } else if (a.rfind("--stats=", 0) == 0) {
      std::stringstream ss(a.substr(8));
      for (std::string s; std::getline(ss, s, ',');)
        if (!s.empty()) o.stats.push_back(s);
    } else if (a == "--kernels" || a.rfind("--kernels=", 0) == 0) {
      std::stringstream ss(a == "--kernels" ? value(i) : a.substr(10));
      for (std::string s; std::getline(ss, s, ',');)
        if (!s.empty()) o.kernels.push_back(s);
    } else if (a == "--format" || a.rfind("--format=", 0) == 0) {
      o.format = a == "--format" ? value(i) : a.substr(9);
      if (o.format == "md") o.format = "markdown";
      if (o.format != "text" && o.format != "markdown" && o.format != "csv")
        throw BadInput("option --format: '" + o.format + "' is not text, markdown or csv");
    } else if (a == "--strict") {
      o.strict = true;
    } else if (a == "--normalize") {
      o.normalize = true;
    } else if (a.rfind("--normalize=", 0) == 0) {
      o.normalize = on_off("--normalize", a.substr(12));
    } else if (a == "--no-normalize" || a == "--absolute") {
      o.normalize = false;
    } else if (a == "-h" || a == "--help") {
      throw HelpRequested{};
    } else if (a.size() > 1 && a[0] == '-') {
      throw BadInput("compare: unknown option '" + a + "'\n" + kCompareUsage);
    } else {
      o.dirs.push_back(a);
    }
  }
  if (o.dirs.empty())
    throw BadInput(std::string("compare: no result directory given\n") + kCompareUsage);
  return o;
}

struct Table {
  std::string title;
  std::vector<std::string> header;            // "kernel", then one per column
  std::vector<std::vector<std::string>> rows; // display cells
  std::vector<std::vector<double>> values;    // numeric cells (NaN where none), for csv
  std::vector<std::string> row_names, row_notes;
};

void print_text(const Table& t, std::ostream& os) {
  std::vector<size_t> w(t.header.size());
  for (size_t c = 0; c < w.size(); ++c) {
    w[c] = t.header[c].size();
    for (auto& r : t.rows) w[c] = std::max(w[c], r[c].size());
  }
  os << t.title << "\n";
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string& s = cells[c];
      if (c == 0)
        os << s << std::string(w[c] - s.size(), ' ');
      else
        os << "  " << std::string(w[c] - s.size(), ' ') << s;
    }
    os << "\n";
  };
  line(t.header);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (t.row_names[r] == "arith-mean") {
      size_t total = 0;
      for (size_t c = 0; c < w.size(); ++c) total += w[c] + (c ? 2 : 0);
      os << std::string(total, '-') << "\n";
    }
    line(t.rows[r]);
  }
}

void print_markdown(const Table& t, std::ostream& os) {
  os << "### " << t.title << "\n\n";
  auto line = [&](const std::vector<std::string>& cells) {
    os << "|";
    for (auto& c : cells) os << " " << c << " |";
    os << "\n";
  };
  line(t.header);
  os << "|---|";
  for (size_t c = 1; c < t.header.size(); ++c) os << "---:|";
  os << "\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<std::string> cells = t.rows[r];
    if (t.row_names[r] == "arith-mean" || t.row_names[r] == "geomean")
      for (auto& c : cells) c = "**" + c + "**";
    line(cells);
  }
  os << "\n";
}

} // namespace

// Energy statistics are only comparable when one table priced them (the tables differ in
// scope and in what they count: gebhart's has no leakage, an SM-scope table adds the front end
// and static power). Which tables priced the kernels of each column (energy.table), and a
// loud warning, or with --strict an error, when the shown energy statistics mix tables.
bool energy_stat(const std::string& st) {
  return st.rfind("energy.", 0) == 0 ||
         (st.size() > 10 && st.compare(st.size() - 10, 10, "_energy_pj") == 0);
}

// Returns the tables and their columns ("gebhart: g; gpuwattch-fermi: f") when they differ,
// else "": the titles of the energy tables carry it too (a warning on stderr is easily lost).
std::string check_energy_tables(const std::vector<Source>& srcs,
                                const std::vector<std::string>& stats, bool strict) {
  if (std::none_of(stats.begin(), stats.end(), energy_stat)) return "";
  std::map<std::string, std::vector<std::string>> by_table; // table -> "label (kernels)"
  for (const Source& s : srcs) {
    std::map<std::string, std::vector<std::string>> mine;
    for (const auto& [k, o] : s.by_kernel)
      if (o.contains("energy") && o["energy"].is_object() && o["energy"].contains("table") &&
          o["energy"]["table"].is_string())
        mine[o["energy"]["table"].get<std::string>()].push_back(k);
    for (const auto& [t, ks] : mine)
      by_table[t].push_back(s.label + (mine.size() > 1
                                           ? " (" + std::to_string(ks.size()) + " kernels)"
                                           : std::string()));
  }
  if (by_table.size() < 2) return "";
  std::string list;
  for (const auto& [t, who] : by_table) {
    list += (list.empty() ? "" : "; ") + t + ": " + join(who);
  }
  const std::string msg =
      "the energy statistics were priced by different energy tables (" + list +
      "); their ratios mix what each table counts (scope, leakage, prices), not the designs. "
      "Reprice the runs with one table: gpurf energy --table configs/energy/<table>.yaml DIR "
      "(docs/energy.md)";
  if (strict) throw BadInput("--strict: " + msg);
  std::cerr << "WARNING: " << msg << "\n";
  return list;
}

// Notes on stderr where a column was made differently from the first in more than its
// platform: gpurf's version, --scale, -p overrides, --var, the kernels' inputs.
void provenance_notes(const std::vector<Source>& srcs) {
  auto facts = [](const json& p) {
    std::map<std::string, std::string> f;
    if (p.is_null()) return f;
    f["gpurf"] = p.value("gpurf", "");
    const json& w = p.contains("suite") ? p["suite"] : p.value("platform", json::object());
    f["overrides"] = w.value("overrides", json::array()).dump();
    if (p.contains("suite")) f["scale"] = p["suite"].value("scale", json()).dump();
    if (p.contains("workload")) {
      const json& wl = p["workload"];
      f["scale"] = wl.value("scale", json()).dump();
      f["--var"] = wl.value("var_overrides", json::array()).dump();
      f["inputs"] = wl.value("buffers", json::object()).dump() + wl.value("ptx_hash", "");
    }
    return f;
  };
  const auto first = facts(srcs[0].prov);
  for (size_t i = 0; i < srcs.size(); ++i) {
    if (srcs[i].prov.is_null()) {
      std::cerr << "note: " << srcs[i].label << " has no provenance.json (an older gpurf?): "
                << "cannot tell what else differs\n";
      continue;
    }
    if (!i || srcs[0].prov.is_null()) continue;
    std::string diff;
    for (const auto& [k, v] : facts(srcs[i].prov))
      if (first.count(k) && first.at(k) != v)
        diff += (diff.empty() ? "" : "; ") + k + " " +
                (k == "inputs" ? std::string("(other contents)") : first.at(k) + " vs " + v);
    if (!diff.empty())
      std::cerr << "note: " << srcs[i].label << " differs from " << srcs[0].label
                << " beyond the platform: " << diff << "\n";
  }
}

int compare_main(const std::vector<std::string>& args) {
  try {
    Options opt = parse_args(args);
    std::vector<Source> srcs;
    for (auto& d : opt.dirs) srcs.push_back(load(d));
    label(srcs);
    provenance_notes(srcs);

    // Statistics present (numeric leaves, by dot path) in any summary.
    std::set<std::string> numeric, objects;
    for (auto& s : srcs)
      for (auto& [k, o] : s.by_kernel) leaves(o, "", numeric, objects);
    numeric.erase("schema");
    if (opt.stats.empty()) {
      opt.stats = {"ipc", "cycles", "rf_bank_accesses"};
      if (numeric.count("sm_energy_pj")) opt.stats.push_back("sm_energy_pj");
    }
    for (auto& st : opt.stats) {
      if (numeric.count(st)) continue;
      // The energy report sits under "energy": breakdown.rf_bank_read names
      // energy.breakdown.rf_bank_read.
      if (numeric.count("energy." + st)) {
        st = "energy." + st;
        continue;
      }
      if (objects.count(st) || objects.count("energy." + st)) {
        if (!objects.count(st)) st = "energy." + st;
        std::string parts;
        for (auto& n : numeric)
          if (n.rfind(st + ".", 0) == 0) parts += (parts.empty() ? "" : ", ") + n;
        std::string where;
        for (auto& s : srcs)
          for (auto& [k, o] : s.by_kernel)
            if (where.empty() && lookup(o, st)) where = s.file + ": kernel '" + k + "': ";
        throw BadInput(where + "statistic '" + st +
                       "' is a group; name one of its members: " + parts);
      }
      std::string msg = "unknown statistic '" + st + "' (not a numeric field of any summary in ";
      std::set<std::string> files;
      for (auto& s : srcs)
        if (files.insert(s.file).second) msg += (files.size() > 1 ? ", " : "") + s.file;
      msg += ")";
      auto hints = suggestions(st, numeric);
      if (!hints.empty()) {
        msg += "; did you mean ";
        for (size_t i = 0; i < hints.size(); ++i)
          msg += (i ? (i + 1 == hints.size() ? " or " : ", ") : "") + ("'" + hints[i] + "'");
        msg += "?";
      }
      if (st.find("energy") != std::string::npos || st.rfind("breakdown", 0) == 0)
        msg += "\n  (energy statistics exist only where the platform names an energy table: "
               "docs/energy.md)";
      std::string all;
      for (auto& n : numeric) all += (all.empty() ? "" : ", ") + n;
      throw BadInput(msg + "\n  statistics: " + all);
    }

    const std::string mixed_tables = check_energy_tables(srcs, opt.stats, opt.strict);

    // Kernels: in the first DIR's order, then those only later DIRs have.
    std::vector<std::string> kernels;
    std::set<std::string> seen;
    for (auto& s : srcs)
      for (auto& k : s.kernels)
        if (seen.insert(k).second) kernels.push_back(k);

    if (!opt.kernels.empty()) {
      for (auto& k : opt.kernels)
        if (!seen.count(k)) {
          auto hints = suggestions(k, std::set<std::string>(seen.begin(), seen.end()));
          throw BadInput("--kernels: no summary has kernel '" + k + "'" +
                         (hints.empty() ? "" : "; did you mean '" + hints.front() + "'?"));
        }
      kernels = opt.kernels;
    }

    // Which kernels the means cover, and notes on the others.
    std::vector<std::string> notes;
    std::set<std::string> in_means;
    bool any_unverified = false;
    for (auto& k : kernels) {
      std::vector<std::string> missing, unverified;
      for (auto& s : srcs) {
        auto it = s.by_kernel.find(k);
        if (it == s.by_kernel.end())
          missing.push_back(s.label);
        else if (!it->second.value("verified", false))
          unverified.push_back(s.label);
      }
      if (!missing.empty())
        notes.push_back("kernel " + k + " is missing in " + join(missing) +
                        " ('-'); not in the means");
      if (!unverified.empty()) {
        any_unverified = true;
        for (auto& s : srcs) {
          auto it = s.by_kernel.find(k);
          if (it != s.by_kernel.end() && !it->second.value("verified", false))
            std::cerr << "warning: " << s.file << ": kernel '" << k << "' is not verified"
                      << (it->second.value("error", std::string()).empty()
                              ? std::string()
                              : ": " + it->second.value("error", std::string()).substr(0, 200))
                      << "\n";
        }
        notes.push_back("kernel " + k + " is not verified in " + join(unverified) +
                        " ('*'); not in the means");
      }
      if (missing.empty() && unverified.empty()) in_means.insert(k);
    }

    std::ostream& os = std::cout;
    const bool ratios = opt.normalize && srcs.size() > 1;
    if (opt.format == "text" || opt.format == "markdown") {
      const bool md = opt.format == "markdown";
      for (size_t i = 0; i < srcs.size(); ++i)
        os << (md ? "- " : "") << srcs[i].label << ": " << srcs[i].file << "\n";
      os << "\n";
    }
    if (opt.format == "csv") {
      os << "stat,kernel";
      for (size_t i = 0; i < srcs.size(); ++i)
        os << "," << csv_quote(ratios && i ? srcs[i].label + "/" + srcs[0].label : srcs[i].label);
      os << ",note\n";
    }

    for (const std::string& st : opt.stats) {
      Table t;
      t.title = st + (ratios ? " (" + srcs[0].label + ": absolute; others: ratio to " +
                                   srcs[0].label + ")"
                             : " (absolute)");
      if (!mixed_tables.empty() && energy_stat(st))
        t.title += " -- NOT COMPARABLE, priced by different energy tables: " + mixed_tables;
      t.header.push_back("kernel");
      for (auto& s : srcs) t.header.push_back(s.label);
      std::vector<std::vector<double>> mean_vals(srcs.size());
      bool stat_missing_somewhere = false;
      for (auto& k : kernels) {
        std::vector<std::string> cells = {k};
        std::vector<double> vals;
        std::string note;
        bool has_base = false;
        double base = 0;
        for (size_t i = 0; i < srcs.size(); ++i) {
          auto it = srcs[i].by_kernel.find(k);
          const json* v = it == srcs[i].by_kernel.end() ? nullptr : lookup(it->second, st);
          if (v && v->is_null()) { // a ratio of nothing (a hit ratio without accesses)
            cells.push_back("n/a");
            vals.push_back(NAN);
            continue;
          }
          if (!v || !v->is_number()) {
            if (it != srcs[i].by_kernel.end()) stat_missing_somewhere = true;
            cells.push_back("-");
            vals.push_back(NAN);
            continue;
          }
          const double d = v->get<double>();
          double shown = d;
          std::string cell;
          if (ratios && i == 0) {
            base = d;
            has_base = true;
            cell = fmt_abs(*v);
          } else if (ratios) {
            if (!has_base)
              shown = NAN;
            else if (base == 0) // 0/0 is no ratio: n/a, not "no change"
              shown = d == 0 ? NAN : INFINITY;
            if (has_base && base == 0 && d == 0)
              note += std::string(note.empty() ? "" : "; ") + "0/0 in " + srcs[i].label;
            else
              shown = d / base;
            cell = has_base ? fmt_double(shown, true) : "-";
          } else {
            cell = fmt_abs(*v);
          }
          const bool ok = it->second.value("verified", false);
          if (!ok) {
            cell += "*";
            note += std::string(note.empty() ? "" : "; ") + "unverified in " + srcs[i].label;
          }
          cells.push_back(cell);
          vals.push_back(shown);
        }
        bool usable = in_means.count(k) > 0;
        for (double d : vals) usable = usable && std::isfinite(d);
        if (usable)
          for (size_t i = 0; i < srcs.size(); ++i) mean_vals[i].push_back(vals[i]);
        else if (in_means.count(k))
          note += std::string(note.empty() ? "" : "; ") + "not in the means";
        for (size_t i = 0; i < srcs.size(); ++i)
          if (srcs[i].by_kernel.find(k) == srcs[i].by_kernel.end())
            note += std::string(note.empty() ? "" : "; ") + "missing in " + srcs[i].label;
        t.rows.push_back(cells);
        t.values.push_back(vals);
        t.row_names.push_back(k);
        t.row_notes.push_back(note);
      }
      if (stat_missing_somewhere)
        notes.push_back("statistic " + st + " is absent from some summaries ('-')");
      for (int m = 0; m < 2; ++m) {
        const std::string name = m == 0 ? "arith-mean" : "geomean";
        std::vector<std::string> cells = {name};
        std::vector<double> vals;
        for (size_t i = 0; i < srcs.size(); ++i) {
          const auto& v = mean_vals[i];
          double r = NAN;
          if (!v.empty()) {
            if (m == 0) {
              r = 0;
              for (double d : v) r += d;
              r /= v.size();
            } else {
              bool negative = false, zero = false;
              double logs = 0;
              for (double d : v) {
                negative |= d < 0;
                zero |= d == 0;
                logs += d > 0 ? std::log(d) : 0;
              }
              r = negative ? NAN : zero ? 0.0 : std::exp(logs / v.size());
            }
          }
          vals.push_back(r);
          cells.push_back(v.empty() ? "-" : fmt_double(r, ratios && i > 0));
        }
        t.rows.push_back(cells);
        t.values.push_back(vals);
        t.row_names.push_back(name);
        t.row_notes.push_back(mean_vals[0].size() == kernels.size()
                                  ? ""
                                  : "over " + std::to_string(mean_vals[0].size()) + " of " +
                                        std::to_string(kernels.size()) + " kernels");
      }
      if (opt.format == "text") {
        print_text(t, os);
        os << "\n";
      } else if (opt.format == "markdown") {
        print_markdown(t, os);
      } else {
        for (size_t r = 0; r < t.rows.size(); ++r) {
          os << csv_quote(st) << "," << csv_quote(t.row_names[r]);
          for (double d : t.values[r]) os << "," << fmt_csv(d);
          os << "," << csv_quote(t.row_notes[r]) << "\n";
        }
      }
    }
    if (opt.format != "csv") {
      std::set<std::string> printed;
      for (auto& n : notes)
        if (printed.insert(n).second)
          os << (opt.format == "markdown" ? "- " : "") << "note: " << n << "\n";
      if (in_means.size() < kernels.size())
        os << (opt.format == "markdown" ? "- " : "") << "note: means over " << in_means.size()
           << " of " << kernels.size() << " kernels"
           << (any_unverified ? " (unverified ones excluded)" : "") << "\n";
    }
    return kExitOk;
  } catch (const BadInput& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const HelpRequested&) {
    std::cout << kCompareUsage;
    return kExitOk;
  }
}

} // namespace gpurf
