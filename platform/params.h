// Parameters of one unit, declared once in its constructor with type, default, description
// and range. The same declarations validate the YAML, fill --describe and --dump-config.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpurf/platform/config.h"

namespace gpurf {

struct ParamDecl {
  std::string name, type, description, default_text, range_text;
};

class Params {
public:
  // `node` may be null (all defaults). `path` is the key path of the node, e.g. "bank".
  Params(ConfigNode* node, std::string path);

  // Declares and reads a parameter. Errors name the file:line, key path, value, valid range.
  int64_t get_int(const std::string& name, int64_t def, const std::string& desc,
                  int64_t min = INT64_MIN, int64_t max = INT64_MAX);
  // Every integer parameter has an upper bound: one not declared with its own is at most
  // kMaxCount, so that no count or size a platform gives can make a unit allocate without
  // limit (docs/platforms.md, "Limits").
  static constexpr unsigned kMaxCount = 1u << 20;
  unsigned get_uint(const std::string& name, unsigned def, const std::string& desc,
                    unsigned min = 0, unsigned max = kMaxCount) {
    return static_cast<unsigned>(get_int(name, def, desc, min, max));
  }
  double get_double(const std::string& name, double def, const std::string& desc,
                    double min = -1e300, double max = 1e300);
  bool get_bool(const std::string& name, bool def, const std::string& desc);
  // One of `choices`.
  std::string get_choice(const std::string& name, const std::string& def, const std::string& desc,
                         const std::vector<std::string>& choices);
  std::string get_string(const std::string& name, const std::string& def, const std::string& desc);
  // A list of choices (e.g. pipe priority order); empty node -> def.
  std::vector<std::string> get_choice_list(const std::string& name,
                                           const std::vector<std::string>& def,
                                           const std::string& desc,
                                           const std::vector<std::string>& choices);
  // A nested map of parameters (e.g. one per pipe), checked by this object's check_unused.
  Params& sub(const std::string& name, const std::string& desc);

  // Throws ConfigError for a key that no get_*() declared (with did-you-mean).
  void check_unused() const;
  // Accepts every key of this set unread: a slot switched off (`impl: none`) ignores the
  // parameters a platform file gave its implementation.
  void accept_unused();
  // Throws ConfigError naming this parameter set's key `name` with message `what`.
  [[noreturn]] void fail(const std::string& name, const std::string& what) const;
  // Where key `name` of this set was given ("file:line", "command line") or "default": for
  // messages about a rule between two keys.
  std::string where(const std::string& name) const;
  // Include depth of where key `name` was given (ConfigNode::depth: -1 the command line, 0 the
  // platform file, ...; INT_MAX: not given): of two keys in a rule, the one with the smaller
  // depth is the one the user changed last, and messages name it.
  int depth(const std::string& name) const;
  // "l1.line_bytes = 128 (fermi.yaml:27)", "(default)" when not given: a key and its value
  // for a message about a rule between keys.
  std::string said(const std::string& name, const std::string& value) const;
  std::string said(const std::string& name, uint64_t value) const {
    return said(name, std::to_string(value));
  }

  // Storage a unit is about to allocate (register rows, cache tags, queues), declared before
  // it allocates: counted over every unit the parameter tree builds (all SMs) and refused
  // above kStorageLimit, naming this set's key `key` and `what` makes up the bytes
  // ("bank.entries x 128 B"), so that a platform asking for more fails at load in
  // milliseconds rather than out of memory.
  static constexpr uint64_t kStorageLimit = uint64_t(1) << 30;
  void claim_storage(uint64_t bytes, const std::string& key, const std::string& what);

  // When set, every parameter read at its default is written into the tree (--dump-config).
  static bool fill_defaults;

  const std::vector<ParamDecl>& decls() const { return *decls_; }
  const std::string& path() const { return path_; }
  ConfigNode* node() const { return node_; }

private:
  const ConfigNode* value(const std::string& name, const ParamDecl& d);
  ConfigNode* node_;
  std::string path_;
  std::shared_ptr<std::vector<ParamDecl>> decls_;
  std::shared_ptr<std::vector<std::string>> used_;
  std::deque<std::pair<std::string, Params>> subs_;
  // The storage claimed so far by the units of this tree (shared with every sub()).
  struct Storage {
    uint64_t total = 0;
    std::vector<std::pair<std::string, uint64_t>> parts; // what, bytes (summed per what)
  };
  std::shared_ptr<Storage> storage_;
  // Decl lists of enclosing parameter sets with the key prefix ("pipe.") under which this
  // set's declarations are also registered there, so --describe lists e.g. "sp.latency".
  std::vector<std::pair<std::shared_ptr<std::vector<ParamDecl>>, std::string>> ancestors_;
};

} // namespace gpurf
