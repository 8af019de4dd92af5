// Unit tests of platform/params and platform/registry: typed parameters, error messages
// (file:line, key path, bad value, what is valid), sub-parameter sets, unknown keys/impls.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "gpurf/platform/config.h"
#include "gpurf/platform/params.h"
#include "gpurf/platform/registry.h"

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

ConfigPtr yaml(const std::string& text) { return parse_config_string(text, "t.yaml"); }

struct BadValues : testing::Test {
  ConfigPtr root = load_config(data("bad_values.yaml"));
  Params p{root->find("bank"), "bank"};
  std::string file = data("bad_values.yaml");
};

} // namespace

TEST(PlatformParams, ReadsTypedValues) {
  auto root = yaml("count: 16\nneg: -3\nhex: 0x20\nratio: 0.25\nflag: yes\noff: Off\n"
                   "policy: gto\nname: fermi\norder: [mem, alu]\n");
  Params p(root.get(), "");
  EXPECT_EQ(p.get_uint("count", 4, "banks", 1, 64), 16u);
  EXPECT_EQ(p.get_int("neg", 0, "n", -10, 10), -3);
  EXPECT_EQ(p.get_int("hex", 0, "h"), 32);
  EXPECT_DOUBLE_EQ(p.get_double("ratio", 1.0, "r", 0, 1), 0.25);
  EXPECT_TRUE(p.get_bool("flag", false, "f"));
  EXPECT_FALSE(p.get_bool("off", true, "f"));
  EXPECT_EQ(p.get_choice("policy", "lrr", "p", {"lrr", "gto"}), "gto");
  EXPECT_EQ(p.get_string("name", "", "n"), "fermi");
  EXPECT_EQ(p.get_choice_list("order", {"alu"}, "o", {"alu", "mem", "sfu"}),
            (std::vector<std::string>{"mem", "alu"}));
  EXPECT_NO_THROW(p.check_unused());
}

TEST(PlatformParams, DefaultsAndDecls) {
  auto root = yaml("count: 2\n");
  Params p(root.get(), "bank");
  EXPECT_EQ(p.get_uint("count", 4, "number of banks", 1, 64), 2u);
  EXPECT_EQ(p.get_uint("ports", 1, "read ports", 1, 8), 1u);
  EXPECT_DOUBLE_EQ(p.get_double("energy", 1.5, "pJ per access", 0), 1.5);
  EXPECT_EQ(p.get_choice("arb", "rr", "arbiter", {"rr", "fixed"}), "rr");
  EXPECT_FALSE(p.get_bool("trace", false, "trace accesses"));
  ASSERT_EQ(p.decls().size(), 5u);
  const ParamDecl& d = p.decls()[0];
  EXPECT_EQ(d.name, "count");
  EXPECT_EQ(d.type, "uint");
  EXPECT_EQ(d.description, "number of banks");
  EXPECT_EQ(d.default_text, "4");
  EXPECT_EQ(d.range_text, "[1, 64]");
  EXPECT_EQ(p.decls()[2].type, "double");
  EXPECT_EQ(p.decls()[2].range_text, ">= 0");
  EXPECT_EQ(p.decls()[3].type, "choice");
  EXPECT_EQ(p.decls()[3].range_text, "one of: rr, fixed");
  EXPECT_EQ(p.decls()[4].type, "bool");
  EXPECT_EQ(p.decls()[4].default_text, "false");
}

TEST(PlatformParams, NullNodeGivesDefaults) {
  Params p(nullptr, "bank");
  EXPECT_EQ(p.get_uint("count", 4, "n", 1, 64), 4u);
  EXPECT_EQ(p.get_choice_list("order", {"a", "b"}, "o", {"a", "b"}),
            (std::vector<std::string>{"a", "b"}));
  Params& s = p.sub("pipe", "per pipe");
  EXPECT_EQ(s.get_int("latency", 3, "l"), 3);
  EXPECT_NO_THROW(p.check_unused());
  ASSERT_EQ(p.decls().size(), 4u);
  EXPECT_EQ(p.decls()[3].name, "pipe.latency");
}

TEST_F(BadValues, OutOfRange) {
  std::string e = error_of([&] { p.get_uint("count", 4, "banks", 1, 64); });
  EXPECT_EQ(e, file + ":2: bank.count: '0' is out of range; expected an integer in [1, 64]");
}

TEST_F(BadValues, NotAnInteger) {
  std::string e = error_of([&] { p.get_int("latency", 1, "l", -5, 5); });
  EXPECT_HAS(e, file + ":4: bank.latency: ");
  EXPECT_HAS(e, "'abc' is not an integer");
  EXPECT_HAS(e, "[-5, 5]");
  e = error_of([&] { p.get_uint("ratio", 1, "r"); });
  EXPECT_HAS(e, file + ":5: bank.ratio: '1.5' is not an integer");
}

TEST_F(BadValues, DoubleAcceptsIntegersButNotWords) {
  EXPECT_DOUBLE_EQ(p.get_double("ratio", 0, "r"), 1.5);
  std::string e = error_of([&] { p.get_double("latency", 0, "l", 0, 10); });
  EXPECT_HAS(e, file + ":4: bank.latency: 'abc' is not a number; expected a number in [0, 10]");
  e = error_of([&] { p.get_double("ratio", 0, "r", 0, 1); });
  EXPECT_HAS(e, file + ":5: bank.ratio: '1.5' is out of range; expected a number in [0, 1]");
}

TEST_F(BadValues, BadBool) {
  std::string e = error_of([&] { p.get_bool("enabled", true, "e"); });
  EXPECT_HAS(e, file + ":6: bank.enabled: 'maybe' is not a boolean");
  EXPECT_HAS(e, "true or false");
}

TEST_F(BadValues, UnknownChoiceSuggests) {
  std::string e = error_of([&] {
    p.get_choice("policy", "lrr", "p", {"lrr", "gto", "two_level"});
  });
  EXPECT_HAS(e, file + ":7: bank.policy: unknown value 'gtoo'");
  EXPECT_HAS(e, "did you mean 'gto'?");
  EXPECT_HAS(e, "lrr, gto, two_level");
}

TEST_F(BadValues, NullValueIsMissingNotDefault) {
  std::string e = error_of([&] { p.get_string("name", "x", "n"); });
  EXPECT_HAS(e, file + ":8: bank.name: missing value");
  e = error_of([&] { p.get_uint("name", 3, "n", 1, 8); });
  EXPECT_HAS(e, file + ":8: bank.name: missing value; expected an integer in [1, 8]");
}

TEST_F(BadValues, MapWhereScalarExpected) {
  std::string e = error_of([&] { p.get_uint("shape", 3, "s", 1, 8); });
  EXPECT_HAS(e, file + ":9: bank.shape: got a map; expected");
  e = error_of([&] { p.get_choice("shape", "a", "s", {"a", "b"}); });
  EXPECT_HAS(e, "bank.shape: got a map; expected one of: a, b");
}

TEST_F(BadValues, UnknownKeySuggests) {
  p.get_uint("count", 4, "banks", 0, 64);
  p.get_uint("read_ports", 1, "r");
  p.get_uint("write_ports", 1, "w");
  std::string e = error_of([&] { p.check_unused(); });
  EXPECT_EQ(e, file + ":3: bank.raed_ports: unknown key; did you mean 'read_ports'? (valid keys: "
                      "count, read_ports, write_ports)");
}

TEST(PlatformParams, UnknownKeyWithoutSuggestion) {
  auto root = yaml("count: 1\nzzzzzzzz: 2\n");
  Params p(root.get(), "bank");
  p.get_uint("count", 1, "c");
  std::string e = error_of([&] { p.check_unused(); });
  EXPECT_EQ(e, "t.yaml:2: bank.zzzzzzzz: unknown key; valid keys: count");
}

TEST(PlatformParams, SubParams) {
  auto root = yaml("pipes:\n  sp:\n    latency: 4\n    lantency: 5\n  sfu:\n    latency: 2\n");
  Params p(root.get(), "core");
  Params& pipes = p.sub("pipes", "per-pipe parameters");
  Params& sp = pipes.sub("sp", "SP pipe");
  EXPECT_EQ(sp.get_uint("latency", 1, "cycles", 1, 100), 4u);
  Params& sfu = pipes.sub("sfu", "SFU pipe");
  EXPECT_EQ(sfu.get_uint("latency", 1, "cycles", 1, 100), 2u);
  EXPECT_EQ(&pipes.sub("sp", "again"), &sp);
  EXPECT_EQ(sp.path(), "core.pipes.sp");

  // Sub declarations show up in the enclosing sets under their dotted names.
  std::vector<std::string> names;
  for (auto& d : p.decls()) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pipes", "pipes.sp", "pipes.sp.latency", "pipes.sfu",
                                             "pipes.sfu.latency"}));
  ASSERT_EQ(sp.decls().size(), 1u);
  EXPECT_EQ(sp.decls()[0].name, "latency");
  EXPECT_EQ(p.decls()[0].type, "map");

  // check_unused recurses into subs.
  std::string e = error_of([&] { p.check_unused(); });
  EXPECT_EQ(e, "t.yaml:4: core.pipes.sp.lantency: unknown key; did you mean 'latency'? (valid "
               "keys: latency)");
}

TEST(PlatformParams, SubMustBeMap) {
  auto root = yaml("sp: 3\nsfu:\n");
  Params p(root.get(), "core");
  EXPECT_HAS(error_of([&] { p.sub("sp", "d"); }), "t.yaml:1: core.sp: got '3'; expected a map");
  EXPECT_HAS(error_of([&] { p.sub("sfu", "d"); }), "t.yaml:2: core.sfu: missing value");
}

TEST(PlatformParams, ChoiceList) {
  auto root = yaml("order: [mem, alu]\nsingle: sfu\nbad:\n  - alu\n  - mme\nempty: []\n");
  Params p(root.get(), "sched");
  std::vector<std::string> ch{"alu", "mem", "sfu"};
  EXPECT_EQ(p.get_choice_list("single", {}, "s", ch), (std::vector<std::string>{"sfu"}));
  EXPECT_EQ(p.get_choice_list("empty", {"alu"}, "e", ch), (std::vector<std::string>{"alu"}));
  std::string e = error_of([&] { p.get_choice_list("bad", {}, "b", ch); });
  EXPECT_HAS(e, "t.yaml:5: sched.bad[1]: unknown value 'mme'; did you mean 'mem'?");
  EXPECT_HAS(e, "alu, mem, sfu");
  EXPECT_EQ(p.decls()[0].type, "list");
}

TEST(PlatformParams, FailNamesKey) {
  auto root = yaml("a: 1\nb: 2\n");
  Params p(root.get(), "x");
  EXPECT_EQ(error_of([&] { p.fail("b", "must be odd; expected 1, 3, ..."); }),
            "t.yaml:2: x.b: must be odd; expected 1, 3, ...");
  Params q(nullptr, "y");
  EXPECT_EQ(error_of([&] { q.fail("c", "bad"); }), "y.c: bad");
}

TEST(PlatformParams, OverriddenValueSaysCommandLine) {
  auto root = yaml("bank:\n  count: 2\n");
  apply_override(*root, "bank.count=99");
  Params p(root->find("bank"), "bank");
  EXPECT_EQ(error_of([&] { p.get_uint("count", 1, "c", 1, 64); }),
            "command line: bank.count: '99' is out of range; expected an integer in [1, 64]");
}

// --- registry -------------------------------------------------------------------------------

namespace {
struct Policy {
  using Registry = gpurf::Registry<Policy, int>;
  virtual ~Policy() = default;
  virtual int id() const = 0;
};
struct LrrPolicy : Policy {
  LrrPolicy(Params& p, int base) : v(base + int(p.get_uint("weight", 1, "w", 1, 9))) {}
  int id() const override { return v; }
  int v;
};
struct GtoPolicy : Policy {
  GtoPolicy(Params&, int) {}
  int id() const override { return 100; }
};
GPURF_REGISTER(Policy, LrrPolicy, "lrr", "loose round robin");
GPURF_REGISTER(Policy, GtoPolicy, "gto", "greedy then oldest");
GPURF_SLOT(Policy, "test_policy", "a test slot",
           [](const std::string& impl, Params& p) { return Policy::Registry::create(impl, p, 0); });
} // namespace

TEST(PlatformRegistry, CreatesAndDescribes) {
  auto root = yaml("impl: lrr\nweight: 3\n");
  Params p(root.get(), "sched");
  auto obj = Policy::Registry::create(p.get_string("impl", "lrr", "impl"), p, 10);
  EXPECT_EQ(obj->id(), 13);
  const SlotInfo* slot = nullptr;
  for (auto& s : all_slots())
    if (s.slot == "test_policy") slot = &s;
  ASSERT_NE(slot, nullptr);
  auto impls = slot->impls();
  ASSERT_EQ(impls.size(), 2u);
  EXPECT_EQ(impls[0].first, "gto");
  EXPECT_EQ(impls[1].second, "loose round robin");
  auto decls = slot->describe("lrr");
  ASSERT_EQ(decls.size(), 1u);
  EXPECT_EQ(decls[0].name, "weight");
}

TEST(PlatformRegistry, UnknownImplementation) {
  auto root = yaml("x: 1\nimpl: gt0\n");
  Params p(root.get(), "sm.scheduler");
  std::string e = error_of([&] { Policy::Registry::create("gt0", p, 0); });
  EXPECT_EQ(e, "t.yaml:2: sm.scheduler.impl: unknown implementation 'gt0'; did you mean 'gto'? "
               "registered: gto, lrr");
  e = error_of([&] { unknown_impl(p, "zzzzzz", {"a", "b"}); });
  EXPECT_EQ(e, "t.yaml:2: sm.scheduler.impl: unknown implementation 'zzzzzz'; registered: a, b");
}
