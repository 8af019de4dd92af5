// The platform description: YAML files read into a tree that remembers, for every node,
// the file and line it came from, so that every error can name them.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurf {

// A bad platform, launch file or command line. The CLI prints what() and exits with 2.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ConfigNode {
  enum class Kind { Null, Scalar, Map, Seq } kind = Kind::Null;
  std::string scalar;
  std::vector<std::pair<std::string, std::shared_ptr<ConfigNode>>> map; // keeps file order
  std::vector<std::shared_ptr<ConfigNode>> seq;
  std::string file;
  int line = 0; // 1-based; 0 for values given on the command line
  // Include depth of the file it came from: 0 the platform file, 1 a file it includes, ...;
  // -1 the command line. A smaller depth overrides a larger one (messages about a rule
  // between two keys name the one the user gave last).
  int depth = 0;

  std::string where() const; // "file:line" or "command line"
  const ConfigNode* find(const std::string& key) const;
  ConfigNode* find(const std::string& key);
  // The node at a dotted key path ("l1.hit_latency"), or null.
  const ConfigNode* find_path(const std::string& path) const;
  // Returns the child, creating a Null child if missing.
  ConfigNode& child(const std::string& key);
  std::vector<std::string> keys() const;
};
using ConfigPtr = std::shared_ptr<ConfigNode>;

// Loads a platform file. `include: a.yaml` (or a list) at the top of a map merges the
// included files first, then this map's keys over them (deep merge of maps). A value tagged
// `!include f.yaml` is replaced by the contents of f.yaml. Paths are relative to the file.
ConfigPtr load_config(const std::string& path);
// A platform file (includes resolved): one that names no platform (`name:`) and sets no unit
// section would run an all-default SM without a word, so it is refused (ConfigError).
ConfigPtr load_platform_file(const std::string& path);
ConfigPtr parse_config_string(const std::string& text, const std::string& name);

// Applies one `key.path=value` override; the value is parsed as YAML (scalar, [list], {map}).
void apply_override(ConfigNode& root, const std::string& assignment);

// Serialises the tree back to YAML (for --dump-config).
std::string to_yaml(const ConfigNode& node);

// The closest of `choices` to `word`, or "" if none is close (for did-you-mean).
std::string closest(const std::string& word, const std::vector<std::string>& choices);

} // namespace gpurf
