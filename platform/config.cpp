#include "gpurf/platform/config.h"

#include "gpurf/platform/text.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace gpurf {

namespace fs = std::filesystem;

static const char* kCommandLine = "command line";

std::string ConfigNode::where() const {
  if (line <= 0) return file.empty() ? kCommandLine : file;
  return file + ":" + std::to_string(line);
}

const ConfigNode* ConfigNode::find(const std::string& key) const {
  for (auto& [k, v] : map)
    if (k == key) return v.get();
  return nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
  for (auto& [k, v] : map)
    if (k == key) return v.get();
  return nullptr;
}

const ConfigNode* ConfigNode::find_path(const std::string& path) const {
  const ConfigNode* n = this;
  for (size_t b = 0; n;) {
    const size_t e = path.find('.', b);
    n = n->find(path.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return n;
}

ConfigNode& ConfigNode::child(const std::string& key) {
  if (ConfigNode* c = find(key)) return *c;
  if (kind == Kind::Null) kind = Kind::Map;
  auto n = std::make_shared<ConfigNode>();
  n->file = file;
  map.emplace_back(key, n);
  return *n;
}

std::vector<std::string> ConfigNode::keys() const {
  std::vector<std::string> k;
  for (auto& [name, v] : map) k.push_back(name);
  return k;
}

namespace {

std::string display(const fs::path& p) { return p.lexically_normal().generic_string(); }

std::string identity(const fs::path& p) {
  std::error_code ec;
  auto c = fs::weakly_canonical(p, ec);
  return ec ? display(p) : c.generic_string();
}

// Deep merge: maps merge key by key (recursively), everything else replaces; a key set to
// ~ (null) over one the included files set removes it (a platform that swaps a unit's impl
// drops the keys only the old impl takes).
void merge_into(ConfigNode& dst, const ConfigNode& src) {
  for (auto& [k, v] : src.map) {
    ConfigNode* d = dst.find(k);
    if (d && v->kind == ConfigNode::Kind::Null) {
      dst.map.erase(std::find_if(dst.map.begin(), dst.map.end(),
                                 [&, &key = k](const auto& e) { return e.first == key; }));
    } else if (d && d->kind == ConfigNode::Kind::Map && v->kind == ConfigNode::Kind::Map) {
      merge_into(*d, *v);
    } else if (d) {
      for (auto& e : dst.map)
        if (e.first == k) e.second = v;
    } else {
      dst.map.emplace_back(k, v);
    }
  }
}

class Loader {
public:
  // Loads `path` (as given, for messages); `from` is the node that included it, if any.
  ConfigPtr load_file(const fs::path& path, const ConfigNode* from, const std::string& what) {
    std::string name = display(path);
    std::string id = identity(path);
    auto cyc = std::find(stack_.begin(), stack_.end(), id);
    if (cyc != stack_.end()) {
      std::string chain;
      for (size_t i = 0; i < stack_.size(); ++i) chain += names_[i] + " -> ";
      throw ConfigError(prefix(from, what) + "include cycle: " + chain + name);
    }
    std::error_code ec;
    if (fs::is_directory(path, ec))
      throw ConfigError(prefix(from, what) + "'" + name + "' is a folder, not a platform file");
    std::ifstream in(path);
    if (!in) throw ConfigError(prefix(from, what) + "cannot open platform file '" + name + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return load_text(ss.str(), name, id);
  }

  ConfigPtr load_text(const std::string& text, const std::string& name, const std::string& id) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw ConfigError(name + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
    stack_.push_back(id);
    names_.push_back(name);
    fs::path dir = fs::path(name).parent_path();
    ConfigPtr n = convert(root, name, dir, "");
    stack_.pop_back();
    names_.pop_back();
    if (n->kind == ConfigNode::Kind::Null) {
      n->kind = ConfigNode::Kind::Map;
      n->line = 1;
    }
    return n;
  }

  // Converts a parsed override value (no file of its own).
  ConfigPtr convert_value(const YAML::Node& y, const std::string& key) {
    return convert(y, kCommandLine, fs::path(), key);
  }

private:
  static std::string prefix(const ConfigNode* from, const std::string& what) {
    if (!from) return "";
    return from->where() + ": " + (what.empty() ? "" : what + ": ");
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  ConfigPtr convert(const YAML::Node& y, const std::string& file, const fs::path& dir,
                    const std::string& keypath) {
    auto n = std::make_shared<ConfigNode>();
    n->file = file;
    n->line = file == kCommandLine ? 0 : y.Mark().line + 1;
    n->depth = file == kCommandLine ? -1 : int(stack_.size()) - 1;
    // YAML aliases share nodes that this tree copies: bounded, so ~1 KB of nested aliases
    // cannot expand to 10^9 nodes.
    if (++nodes_ > kMaxNodes)
      throw ConfigError(n->where() + ": " + keypath + (keypath.empty() ? "" : ": ") + "more than " +
                        std::to_string(kMaxNodes) +
                        " YAML nodes in the platform (nested aliases?)");
    if (y.Tag() == "!include") {
      if (!y.IsScalar() || y.Scalar().empty())
        throw ConfigError(n->where() + ": " + keypath + (keypath.empty() ? "" : ": ") +
                          "!include needs a file name; expected e.g. '!include fragment.yaml'");
      return load_file(dir / y.Scalar(), n.get(), keypath.empty() ? "!include" : keypath);
    }
    switch (y.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      n->kind = ConfigNode::Kind::Null;
      break;
    case YAML::NodeType::Scalar:
      n->kind = ConfigNode::Kind::Scalar;
      n->scalar = y.Scalar();
      break;
    case YAML::NodeType::Sequence: {
      n->kind = ConfigNode::Kind::Seq;
      size_t i = 0;
      for (const auto& e : y)
        n->seq.push_back(convert(e, file, dir, keypath + "[" + std::to_string(i++) + "]"));
      break;
    }
    case YAML::NodeType::Map: {
      n->kind = ConfigNode::Kind::Map;
      ConfigNode own;
      const YAML::Node* include = nullptr;
      YAML::Node include_node;
      for (const auto& kv : y) {
        if (!kv.first.IsScalar()) {
          ConfigNode at;
          at.file = file;
          at.line = n->line ? kv.first.Mark().line + 1 : 0;
          throw ConfigError(at.where() + ": " + (keypath.empty() ? "" : keypath + ": ") +
                            "map keys must be plain names");
        }
        std::string key = kv.first.Scalar();
        if (own.find(key) || (key == "include" && include)) {
          ConfigNode at;
          at.file = file;
          at.line = n->line ? kv.first.Mark().line + 1 : 0;
          throw ConfigError(at.where() + ": " + join(keypath, key) +
                            ": duplicate key; each key may appear once per map");
        }
        if (key == "include" && kv.second.Tag() != "!include") {
          include_node = kv.second;
          include = &include_node;
          continue;
        }
        ConfigPtr v = convert(kv.second, file, dir, join(keypath, key));
        // Block maps and lists start on the line after their key; report the key's line.
        if (v->file == file && v->line) v->line = kv.first.Mark().line + 1;
        own.map.emplace_back(key, v);
      }
      if (include) {
        std::vector<std::string> files;
        ConfigNode at;
        at.file = file;
        at.line = n->line ? include->Mark().line + 1 : 0;
        std::string what = join(keypath, "include");
        if (include->IsScalar()) {
          files.push_back(include->Scalar());
        } else if (include->IsSequence()) {
          for (const auto& e : *include) {
            if (!e.IsScalar())
              throw ConfigError(at.where() + ": " + what +
                                ": expected a file name or a list of file names");
            files.push_back(e.Scalar());
          }
        } else {
          throw ConfigError(at.where() + ": " + what +
                            ": expected a file name or a list of file names");
        }
        for (const auto& f : files) {
          if (f.empty())
            throw ConfigError(at.where() + ": " + what + ": empty file name; expected a path");
          ConfigPtr inc = load_file(dir / f, &at, what);
          if (inc->kind != ConfigNode::Kind::Map)
            throw ConfigError(at.where() + ": " + what + ": '" + f +
                              "' does not contain a map; included files must be maps of keys");
          merge_into(*n, *inc);
        }
      }
      merge_into(*n, own);
      break;
    }
    }
    return n;
  }

  std::vector<std::string> stack_, names_;
  static constexpr size_t kMaxNodes = 1000000;
  size_t nodes_ = 0;
};

void emit(YAML::Emitter& out, const ConfigNode& n) {
  switch (n.kind) {
  case ConfigNode::Kind::Null:
    out << YAML::Null;
    break;
  case ConfigNode::Kind::Scalar:
    out << n.scalar;
    break;
  case ConfigNode::Kind::Seq: {
    bool flat = std::all_of(n.seq.begin(), n.seq.end(),
                            [](auto& e) { return e->kind == ConfigNode::Kind::Scalar; });
    out << (flat ? YAML::Flow : YAML::Block) << YAML::BeginSeq;
    for (auto& e : n.seq) emit(out, *e);
    out << YAML::EndSeq;
    break;
  }
  case ConfigNode::Kind::Map:
    if (n.map.empty()) {
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      break;
    }
    out << YAML::Block << YAML::BeginMap;
    for (auto& [k, v] : n.map) {
      out << YAML::Key << k << YAML::Value;
      emit(out, *v);
    }
    out << YAML::EndMap;
    break;
  }
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

ConfigPtr load_config(const std::string& path) {
  Loader l;
  return l.load_file(path, nullptr, "");
}

ConfigPtr load_platform_file(const std::string& path) {
  ConfigPtr root = load_config(path);
  bool sets = root->find("name") != nullptr;
  for (const std::string& k : root->keys())
    sets = sets || root->find(k)->kind == ConfigNode::Kind::Map;
  if (!sets)
    throw ConfigError(display(path) +
                      ": the platform file sets nothing (no `name:` and no unit section); a "
                      "platform names itself and its units, or includes one that does, e.g. "
                      "`include: fermi.yaml` (the platforms: gpurf --list platforms)");
  return root;
}

ConfigPtr parse_config_string(const std::string& text, const std::string& name) {
  Loader l;
  return l.load_text(text, name, identity(name));
}

void apply_override(ConfigNode& root, const std::string& assignment) {
  auto bad = [&](const std::string& why) {
    throw ConfigError(std::string(kCommandLine) + ": override '" + assignment + "': " + why);
  };
  const std::string form = "expected key.path=value (e.g. bank.count=4)";
  size_t eq = assignment.find('=');
  if (eq == std::string::npos) bad("missing '='; " + form);
  auto trim = [](std::string s) {
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  std::string key = trim(assignment.substr(0, eq));
  std::string text = assignment.substr(eq + 1);
  if (key.empty()) bad("empty key; " + form);
  std::vector<std::string> parts;
  {
    size_t start = 0;
    while (true) {
      size_t dot = key.find('.', start);
      std::string p = key.substr(start, dot == std::string::npos ? dot : dot - start);
      if (p.empty()) bad("empty component in key '" + key + "'; " + form);
      parts.push_back(p);
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
  if (trim(text).empty()) bad("missing value after '='; " + form);
  YAML::Node y;
  try {
    y = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    bad("cannot parse value '" + text + "': " + e.msg);
  }
  Loader l;
  ConfigPtr value = l.convert_value(y, key);

  ConfigNode* cur = &root;
  std::string sofar;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (cur->kind == ConfigNode::Kind::Null) {
      cur->kind = ConfigNode::Kind::Map;
    } else if (cur->kind != ConfigNode::Kind::Map) {
      bad("'" + sofar + "' (" + cur->where() + ") is not a map, so it has no key '" + parts[i] +
          "'");
    }
    ConfigNode* next = cur->find(parts[i]);
    if (!next) {
      auto n = std::make_shared<ConfigNode>();
      n->file = kCommandLine;
      n->line = 0;
      n->depth = -1;
      cur->map.emplace_back(parts[i], n);
      next = n.get();
    }
    sofar += (sofar.empty() ? "" : ".") + parts[i];
    if (i + 1 == parts.size()) {
      if (next->kind == ConfigNode::Kind::Map && value->kind == ConfigNode::Kind::Map) {
        merge_into(*next, *value);
      } else {
        for (auto& e : cur->map)
          if (e.first == parts[i]) e.second = value;
      }
      return;
    }
    cur = next;
  }
}

std::string to_yaml(const ConfigNode& node) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, node);
  std::string s = out.c_str();
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

std::string closest(const std::string& word, const std::vector<std::string>& choices) {
  if (word.empty()) return "";
  std::string w = lower(word);
  size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string best;
  size_t best_d = limit + 1;
  for (const auto& c : choices) {
    size_t d = edit_distance(w, lower(c));
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best_d <= limit ? best : "";
}

} // namespace gpurf
