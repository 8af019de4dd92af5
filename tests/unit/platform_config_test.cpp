// Unit tests of platform/config: YAML loading with file:line, includes, overrides, dumping.
#include <cctype>
#include <filesystem>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "gpurf/platform/config.h"

using namespace gpurf;

#define EXPECT_HAS(text, part)                                                                     \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

namespace {

std::string data(const std::string& f) {
  return (std::filesystem::path(GPURF_SOURCE_DIR) / "tests/unit/platform_data" / f).string();
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError thrown";
  return "";
}

const ConfigNode& at(const ConfigNode& root, const std::string& dotted) {
  const ConfigNode* n = &root;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    std::string k = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
    n = n->find(k);
    if (!n) throw std::runtime_error("no key " + dotted);
    if (dot == std::string::npos) return *n;
    start = dot + 1;
  }
}

} // namespace

TEST(PlatformConfig, RecordsFileAndLine) {
  auto root = load_config(data("base.yaml"));
  ASSERT_EQ(root->kind, ConfigNode::Kind::Map);
  EXPECT_EQ(root->keys(), (std::vector<std::string>{"bank", "scheduler"}));
  const ConfigNode& count = at(*root, "bank.count");
  EXPECT_EQ(count.kind, ConfigNode::Kind::Scalar);
  EXPECT_EQ(count.scalar, "8");
  EXPECT_EQ(count.line, 3);
  EXPECT_EQ(count.where(), data("base.yaml") + ":3");
  // A block map reports the line of its key.
  EXPECT_EQ(at(*root, "bank").line, 2);
  const ConfigNode& order = at(*root, "scheduler.order");
  ASSERT_EQ(order.kind, ConfigNode::Kind::Seq);
  ASSERT_EQ(order.seq.size(), 2u);
  EXPECT_EQ(order.seq[1]->scalar, "mem");
  EXPECT_EQ(order.seq[1]->line, 8);
}

TEST(PlatformConfig, IncludeMergesWithOwnKeysWinning) {
  auto root = load_config(data("derived.yaml"));
  // Included keys first, then this file's own keys.
  EXPECT_EQ(root->keys(), (std::vector<std::string>{"bank", "scheduler", "name"}));
  EXPECT_EQ(root->find("include"), nullptr);
  // Overridden scalar comes from derived.yaml, the rest of the map from base.yaml.
  EXPECT_EQ(at(*root, "bank.count").scalar, "16");
  EXPECT_EQ(at(*root, "bank.count").where(), data("derived.yaml") + ":3");
  EXPECT_EQ(at(*root, "bank.read_ports").scalar, "1");
  EXPECT_EQ(at(*root, "bank.read_ports").where(), data("base.yaml") + ":4");
  EXPECT_EQ(at(*root, "name").scalar, "derived");
}

// A platform that swaps a unit's impl drops the keys only the old impl takes: `~` over an
// included key removes it (before, it stayed as a null value the unit then refused).
TEST(PlatformConfig, NullOverAnIncludedKeyRemovesIt) {
  auto root = load_config(data("removes_key.yaml"));
  EXPECT_EQ(at(*root, "bank").find("read_ports"), nullptr);
  EXPECT_EQ(at(*root, "bank.count").scalar, "8");
  EXPECT_EQ(at(*root, "scheduler.order").seq.size(), 2u);
}

TEST(PlatformConfig, IncludeTagInsertsFragment) {
  auto root = load_config(data("derived.yaml"));
  // scheduler: !include sched_fragment.yaml, which itself includes sched_common.yaml;
  // the fragment's own policy wins over sched_common's, and the map merges over base.yaml's.
  EXPECT_EQ(at(*root, "scheduler.policy").scalar, "gto");
  EXPECT_EQ(at(*root, "scheduler.policy").where(), data("sched_fragment.yaml") + ":2");
  EXPECT_EQ(at(*root, "scheduler.age_bits").scalar, "4");
  EXPECT_EQ(at(*root, "scheduler.age_bits").where(), data("sched_common.yaml") + ":2");
  EXPECT_EQ(at(*root, "scheduler.order").seq.size(), 2u);
}

TEST(PlatformConfig, IncludeListLaterFilesWin) {
  auto root = load_config(data("multi_include.yaml"));
  EXPECT_EQ(at(*root, "bank.count").scalar, "32");
  EXPECT_EQ(at(*root, "bank.latency").scalar, "2");
  EXPECT_EQ(at(*root, "bank.read_ports").scalar, "1");
  // Sequences replace rather than append.
  const ConfigNode& order = at(*root, "scheduler.order");
  ASSERT_EQ(order.seq.size(), 1u);
  EXPECT_EQ(order.seq[0]->scalar, "mem");
  EXPECT_EQ(at(*root, "scheduler.policy").scalar, "lrr");
}

TEST(PlatformConfig, IncludeCycleIsAnError) {
  std::string e = error_of([] { load_config(data("cycle_a.yaml")); });
  EXPECT_HAS(e, "include cycle");
  EXPECT_HAS(e, "cycle_a.yaml -> ");
  EXPECT_HAS(e, "cycle_b.yaml -> ");
  EXPECT_HAS(e, "cycle_b.yaml:1");
}

TEST(PlatformConfig, MissingFiles) {
  EXPECT_EQ(error_of([] { load_config("no/such/platform.yaml"); }),
            "cannot open platform file 'no/such/platform.yaml'");
  std::string e = error_of([] { load_config(data("missing_include.yaml")); });
  EXPECT_HAS(e, data("missing_include.yaml") + ":2: include: ");
  EXPECT_HAS(e, "cannot open platform file '");
  EXPECT_HAS(e, "does_not_exist.yaml'");
}

TEST(PlatformConfig, SyntaxErrorHasFileLineColumn) {
  std::string e = error_of([] { load_config(data("bad_syntax.yaml")); });
  EXPECT_HAS(e, data("bad_syntax.yaml") + ":");
  // file:line:col: message
  std::string rest = e.substr(data("bad_syntax.yaml").size() + 1);
  ASSERT_FALSE(rest.empty());
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(rest[0]))) << e;
  EXPECT_NE(rest.find(':'), std::string::npos);
  EXPECT_EQ(
      error_of([] { parse_config_string("a: [1,\n", "inline.yaml"); }).rfind("inline.yaml:", 0),
      0u);
}

TEST(PlatformConfig, DuplicateKeyIsAnError) {
  std::string e = error_of([] { parse_config_string("a: 1\nb: 2\na: 3\n", "dup.yaml"); });
  EXPECT_HAS(e, "dup.yaml:3: a: duplicate key");
}

TEST(PlatformConfig, EmptyDocumentIsEmptyMap) {
  auto root = parse_config_string("", "empty.yaml");
  EXPECT_EQ(root->kind, ConfigNode::Kind::Map);
  EXPECT_TRUE(root->map.empty());
}

TEST(PlatformConfig, OverrideReplacesAndCreates) {
  auto root = load_config(data("base.yaml"));
  apply_override(*root, "bank.count=4");
  EXPECT_EQ(at(*root, "bank.count").scalar, "4");
  EXPECT_EQ(at(*root, "bank.count").line, 0);
  EXPECT_EQ(at(*root, "bank.count").where(), "command line");
  // Untouched siblings keep their origin.
  EXPECT_EQ(at(*root, "bank.read_ports").where(), data("base.yaml") + ":4");

  apply_override(*root, "collector.units.count=2");
  EXPECT_EQ(at(*root, "collector.units.count").scalar, "2");
  EXPECT_EQ(at(*root, "collector").where(), "command line");
  EXPECT_EQ(at(*root, "collector.units").kind, ConfigNode::Kind::Map);

  apply_override(*root, "scheduler.order=[mem, alu, sfu]");
  const ConfigNode& order = at(*root, "scheduler.order");
  ASSERT_EQ(order.kind, ConfigNode::Kind::Seq);
  ASSERT_EQ(order.seq.size(), 3u);
  EXPECT_EQ(order.seq[2]->scalar, "sfu");
  EXPECT_EQ(order.seq[2]->where(), "command line");

  apply_override(*root, "scheduler.policy=gto");
  EXPECT_EQ(at(*root, "scheduler.policy").scalar, "gto");

  // A map value merges into an existing map.
  apply_override(*root, "bank={latency: 3, count: 6}");
  EXPECT_EQ(at(*root, "bank.latency").scalar, "3");
  EXPECT_EQ(at(*root, "bank.count").scalar, "6");
  EXPECT_EQ(at(*root, "bank.read_ports").scalar, "1");
}

TEST(PlatformConfig, BadOverrides) {
  auto root = parse_config_string("bank:\n  count: 2\n", "p.yaml");
  std::string e = error_of([&] { apply_override(*root, "bank.count"); });
  EXPECT_HAS(e, "'bank.count'");
  EXPECT_HAS(e, "key.path=value");
  e = error_of([&] { apply_override(*root, "=3"); });
  EXPECT_HAS(e, "empty key");
  EXPECT_HAS(e, "key.path=value");
  e = error_of([&] { apply_override(*root, "bank..count=3"); });
  EXPECT_HAS(e, "key.path=value");
  e = error_of([&] { apply_override(*root, "bank.count.x=3"); });
  EXPECT_HAS(e, "'bank.count'");
  EXPECT_HAS(e, "p.yaml:2");
  EXPECT_HAS(e, "not a map");
  e = error_of([&] { apply_override(*root, "bank.count=[1,"); });
  EXPECT_HAS(e, "cannot parse value");
  // Nothing was changed by the failed overrides.
  EXPECT_EQ(at(*root, "bank.count").scalar, "2");
}

TEST(PlatformConfig, ToYamlRoundTrips) {
  auto root = load_config(data("derived.yaml"));
  apply_override(*root, "extra.list=[1, 2]");
  std::string y = to_yaml(*root);
  EXPECT_LT(y.find("bank:"), y.find("scheduler:"));
  EXPECT_LT(y.find("scheduler:"), y.find("name:"));
  EXPECT_HAS(y, "  count: 16\n");
  auto again = parse_config_string(y, "dump.yaml");
  EXPECT_EQ(to_yaml(*again), y);
  EXPECT_EQ(at(*again, "scheduler.policy").scalar, "gto");
  EXPECT_EQ(at(*again, "extra.list").seq.size(), 2u);
}

TEST(PlatformConfig, Closest) {
  std::vector<std::string> keys{"count", "read_ports", "write_ports", "latency"};
  EXPECT_EQ(closest("raed_ports", keys), "read_ports"); // transposition
  EXPECT_EQ(closest("cont", keys), "count");
  EXPECT_EQ(closest("latnecy", keys), "latency");
  EXPECT_EQ(closest("frobnicate", keys), "");
  EXPECT_EQ(closest("", keys), "");
  EXPECT_EQ(closest("count", {}), "");
}

TEST(PlatformConfig, FindPathFollowsDottedKeys) {
  ConfigPtr c = parse_config_string("l1: {hit_latency: 20, mshr: {count: 4}}\nsm: 1\n", "t.yaml");
  ASSERT_NE(c->find_path("l1.hit_latency"), nullptr);
  EXPECT_EQ(c->find_path("l1.hit_latency")->scalar, "20");
  EXPECT_EQ(c->find_path("l1.mshr.count")->scalar, "4");
  EXPECT_EQ(c->find_path("sm")->scalar, "1");
  EXPECT_EQ(c->find_path("l1.ways"), nullptr);
  EXPECT_EQ(c->find_path("sm.warps"), nullptr);
  EXPECT_EQ(c->find_path("l2.sets"), nullptr);
}
