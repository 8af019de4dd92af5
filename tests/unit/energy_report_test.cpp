// Unit tests of platform/energy: a hand-built statistics JSON gives exactly the expected
// picojoules per component; bad tables give errors naming file:line, key and range; an
// unpriced energy event is an error naming unit, event and table; the energy identity holds
// and catches a breakdown that does not follow the table.
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "gpurf/platform/config.h"
#include "gpurf/platform/energy.h"
#include "gpurf/platform/params.h"

using namespace gpurf;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

const char* kTable = R"(name: t
bank_read_pj_per_16B: 2
bank_write_pj_per_16B: 3
bank_leakage_mw: 4
bank_bytes: 4096
wire_pj_per_mm_per_128b: 16
wire_mm: 0.5
collector_write_pj_per_operand: 5
fu_sp_pj_per_lane_op: 1
fu_int_pj_per_lane_op: 2
fu_dp_pj_per_lane_op: 3
fu_sfu_pj_per_lane_op: 4
fu_mem_pj_per_lane_op: 0.5
fu_tensor_pj_per_lane_op: 6
l1_access_pj_per_request: 10
l1_fill_pj_per_byte: 0.25
l2_access_pj_per_request: 20
l2_fill_pj_per_byte: 0.5
shared_access_pj_per_warp_access: 7
memory_pj_per_byte: 2
structures:
  rfc: {part_of_rf: true, leakage_mw: 1, events: {reads: 1.5, writes: 2.5, writebacks: 0.5}}
  hash: {part_of_rf: false, leakage_mw: 0, events: {hashes: 4}}
  compressor: {part_of_rf: true, leakage_mw: 9, events: {compressions: 23}}
)";

// A counter as a unit dumps it, with the energy role it declares ("" = none).
Json scalar(uint64_t v, const char* role) {
  Json j{{"value", v}};
  if (*role) j["energy"] = role;
  j["unit"] = "x";
  j["desc"] = "x";
  return j;
}

// `role`: a role name, {label: role}, or null (none declared).
Json vec(std::vector<uint64_t> v, std::vector<std::string> labels, Json role) {
  uint64_t total = 0;
  for (auto x : v) total += x;
  Json j{{"values", v}};
  if (!labels.empty()) j["labels"] = labels;
  j["total"] = total;
  if (!role.is_null()) j["energy"] = role;
  return j;
}

const std::vector<std::string> kSpaces = {"none", "global", "shared", "local", "param", "const"};
// The LSU's per-space roles (modules/lsu/impl/coalescing.cpp).
Json lsu_roles() {
  return Json{{"none", "not_event"},  {"global", "not_event"}, {"shared", "priced"},
              {"local", "not_event"}, {"param", "scope"},      {"const", "scope"}};
}

// A run in the dump_stats_json() shape, each counter with the role its unit declares.
Json stats() {
  Json s = Json::object();
  s["sm"] = {{"cycles", scalar(1000, "leakage")}, {"warp_instructions", scalar(25, "not_event")}};
  s["sm.sub0.exec"] = {
      {"instructions",
       vec({10, 1, 2, 3, 4, 5}, {"sp", "int", "dp", "sfu", "mem", "tensor"}, "priced")}};
  s["sm.sub0.bank0"] = {{"reads", scalar(10, "not_event")},
                        {"writes", scalar(5, "not_event")},
                        {"slice_reads", scalar(80, "priced")},
                        {"slice_writes", scalar(40, "priced")},
                        {"gated_cycles", scalar(3000, "leakage")}};
  s["sm.sub0.bank1"] = {{"reads", scalar(2, "not_event")},
                        {"writes", scalar(1, "not_event")},
                        {"slice_reads", scalar(16, "priced")},
                        {"slice_writes", scalar(8, "priced")}};
  s["sm.sub0.collector0"] = {{"oc_writes", scalar(10, "priced")}};
  s["sm.sub0.collector1"] = {{"oc_writes", scalar(2, "priced")}};
  s["sm.sub0.crossbar"] = {{"transfers", scalar(12, "not_event")},
                           {"bytes", scalar(1536, "priced")}};
  s["sm.sub0.lsu"] = {{"instructions", vec({1, 2, 6, 0, 0, 0}, kSpaces, lsu_roles())}};
  s["sm.sub0.rfc"] = {{"reads", scalar(10, "structure")},
                      {"writes", scalar(4, "structure")},
                      {"writebacks", scalar(3, "structure")}};
  s["sm.sub1.rfc"] = {{"reads", scalar(2, "structure")},
                      {"writes", scalar(0, "structure")},
                      {"writebacks", scalar(0, "structure")}};
  // A structure that declares no roles: each counter is one of its events.
  s["sm.sub0.hash"] = {{"hashes", vec({2, 3}, {}, nullptr)}};
  s["sm.l1"] = {{"reads", scalar(20, "priced")},
                {"writes", scalar(5, "priced")},
                {"atomics", scalar(1, "priced")},
                {"hits", scalar(3, "not_event")},
                {"bytes_from_memory", scalar(400, "priced")},
                {"hit_rate", Json{{"value", 0.1}}}};
  s["l2"] = {{"reads", scalar(8, "priced")},
             {"writes", scalar(5, "priced")},
             {"atomics", scalar(1, "priced")},
             {"writebacks", scalar(2, "priced")},
             {"hits", scalar(6, "not_event")},
             {"bytes_from_memory", scalar(300, "priced")},
             {"bytes_to_memory", scalar(90, "not_event")}};
  s["memory"] = {{"reads", scalar(4, "not_event")},
                 {"bytes_read", scalar(100, "priced")},
                 {"bytes_written", scalar(50, "priced")}};
  // Units with no energy events of their own in the register-file scope.
  s["sm.sub0.scheduler0"] = {
      {"issued", scalar(25, "scope")},
      {"active_cycles", scalar(25, "not_event")},
      {"stall_cycles",
       vec({5, 1, 2, 3}, {"scoreboard", "war", "collector_full", "no_instruction"}, "not_event")}};
  s["sm.sub0.allocator"] = {{"allocations", scalar(25, "scope")}, {"full", scalar(2, "not_event")}};
  s["sm.sub0.arbiter"] = {
      {"conflicts", vec({3, 1, 0, 2}, {"read_read", "read_write", "write_write", "collector_port"},
                        "not_event")},
      {"reads_granted", scalar(12, "not_event")},
      {"writes_granted", scalar(6, "not_event")},
      {"bank_accesses", scalar(18, "not_event")}};
  s["sm.sub0.writeback"] = {{"retired", scalar(25, "not_event")},
                            {"register_writes", scalar(6, "scope")},
                            {"port_stall_cycles", scalar(4, "not_event")}};
  s["host"] = {{"seconds", 1.5}};
  return s;
}

// stats() without the added structures (RFC, hash): a baseline run.
Json baseline_stats() {
  Json s = stats();
  for (const char* g : {"sm.sub0.rfc", "sm.sub1.rfc", "sm.sub0.hash"}) s.erase(g);
  return s;
}

const EnergyPlatform kPlatform{0.5, 8, 256}; // 16 B slices of 256 rows = 4 KB each

EnergyTable table(const std::string& text, const std::string& name = "t.yaml") {
  ConfigPtr root = parse_config_string(text, name);
  return parse_energy_table(*root, name);
}

std::string error_of(const std::string& text) {
  try {
    table(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// kTable with line `key: ...` replaced by `line` ("" deletes it).
std::string with(const std::string& key, const std::string& line) {
  std::string t = kTable;
  size_t at = t.find("\n" + key + ":");
  EXPECT_NE(at, std::string::npos) << key;
  size_t end = t.find('\n', at + 1);
  t.replace(at + 1, end - at, line.empty() ? "" : line + "\n");
  return t;
}

std::string source_dir() { return GPURF_SOURCE_DIR; }

} // namespace

TEST(Energy, EachComponentExactly) {
  Json r = energy_report(table(kTable), stats(), kPlatform);
  const Json& b = r["breakdown"];
  // Banks: slice activations x (16 B / 16 B) x pJ per 16 B.
  EXPECT_DOUBLE_EQ(b["rf_bank_read"].get<double>(), 96 * 2);
  EXPECT_DOUBLE_EQ(b["rf_bank_write"].get<double>(), 48 * 3);
  // Leakage: (8 slices x 1000 cycles - gated) / 0.5 GHz x 4 mW (a 4 KB slice = bank_bytes).
  EXPECT_DOUBLE_EQ(b["rf_bank_leakage"].get<double>(), (5000 + 8000) / 0.5 * 4);
  // Wire: 1536 B x 16 pJ/mm/16 B x 0.5 mm.
  EXPECT_DOUBLE_EQ(b["rf_wire"].get<double>(), 768);
  EXPECT_DOUBLE_EQ(b["collector"].get<double>(), 12 * 5);
  EXPECT_DOUBLE_EQ(b["fu_sp"].get<double>(), 10 * 32 * 1);
  EXPECT_DOUBLE_EQ(b["fu_int"].get<double>(), 1 * 32 * 2);
  EXPECT_DOUBLE_EQ(b["fu_dp"].get<double>(), 2 * 32 * 3);
  EXPECT_DOUBLE_EQ(b["fu_sfu"].get<double>(), 3 * 32 * 4);
  EXPECT_DOUBLE_EQ(b["fu_mem"].get<double>(), 4 * 32 * 0.5);
  EXPECT_DOUBLE_EQ(b["fu_tensor"].get<double>(), 5 * 32 * 6);
  EXPECT_DOUBLE_EQ(b["l1"].get<double>(), (20 + 5 + 1) * 10 + 400 * 0.25);
  // L2: requests and write-backs x pJ per access + bytes filled.
  EXPECT_DOUBLE_EQ(b["l2"].get<double>(), (8 + 5 + 1 + 2) * 20 + 300 * 0.5);
  EXPECT_DOUBLE_EQ(b["shared_memory"].get<double>(), 6 * 7);
  EXPECT_DOUBLE_EQ(b["memory"].get<double>(), 150 * 2);
  EXPECT_DOUBLE_EQ(b["rfc"].get<double>(), 12 * 1.5 + 4 * 2.5 + 3 * 0.5);
  EXPECT_DOUBLE_EQ(b["rfc_leakage"].get<double>(), 2 * 1 * 2000); // 2 groups x 1 mW x 2000 ns
  EXPECT_DOUBLE_EQ(b["hash"].get<double>(), 5 * 4);               // a vector counts its total
  EXPECT_DOUBLE_EQ(b["hash_leakage"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(b["compressor"].get<double>(), 0); // no such group in this run
  EXPECT_DOUBLE_EQ(b["compressor_leakage"].get<double>(), 0);

  EXPECT_EQ(r["table"], "t");
  EXPECT_DOUBLE_EQ(r["rf_dynamic_energy_pj"].get<double>(), 192 + 144 + 768 + 60 + 29.5);
  EXPECT_DOUBLE_EQ(r["rf_leakage_energy_pj"].get<double>(), 104000 + 4000);
  const double total = 111899.5 + 470; // 470: the L2
  EXPECT_DOUBLE_EQ(r["total_energy_pj"].get<double>(), total);
  EXPECT_DOUBLE_EQ(r["memory_energy_pj"].get<double>(), 300);
  EXPECT_DOUBLE_EQ(r["sm_energy_pj"].get<double>(), total - 300);
}

TEST(Energy, SliceWidthScalesAccessEnergy) {
  // The same full-register traffic on 128 B monolithic banks: 1 slice = 8 x 16 B accesses.
  Json s = stats();
  s["sm.sub0.bank0"]["slice_reads"]["value"] = 10;
  s["sm.sub0.bank0"]["slice_writes"]["value"] = 5;
  s["sm.sub0.bank0"].erase("gated_cycles");
  s["sm.sub0.bank1"]["slice_reads"]["value"] = 2;
  s["sm.sub0.bank1"]["slice_writes"]["value"] = 1;
  Json r = energy_report(table(kTable), s, EnergyPlatform{0.5, 1, 256});
  EXPECT_DOUBLE_EQ(r["breakdown"]["rf_bank_read"].get<double>(), 12 * 8 * 2);
  EXPECT_DOUBLE_EQ(r["breakdown"]["rf_bank_write"].get<double>(), 6 * 8 * 3);
  // Leakage by capacity: one 32 KB slice = 8 x 4 KB, 1000 cycles / 0.5 GHz, 2 banks.
  EXPECT_DOUBLE_EQ(r["breakdown"]["rf_bank_leakage"].get<double>(), 2 * 2000 * 8 * 4);
}

TEST(Energy, GroupKindMayEndInADigit) {
  // "sm.l1" is of kind "l1" (not "l" with index 1); "sm.sub1.rfc2" is of kind "rfc".
  Json s = stats();
  s["sm.sub1.rfc2"] = s["sm.sub1.rfc"];
  s.erase("sm.sub1.rfc");
  Json r = energy_report(table(kTable), s, kPlatform);
  EXPECT_DOUBLE_EQ(r["breakdown"]["l1"].get<double>(), 360);
  EXPECT_DOUBLE_EQ(r["breakdown"]["rfc"].get<double>(), 29.5);
}

TEST(Energy, WirePer32BitsIsTheSameWire) {
  Json r = energy_report(table(with("wire_pj_per_mm_per_128b", "wire_pj_per_mm_per_32b: 4")),
                         stats(), kPlatform);
  EXPECT_DOUBLE_EQ(r["breakdown"]["rf_wire"].get<double>(), 768);
}

TEST(Energy, MissingEntryNamesFileKeyAndRange) {
  std::string e = error_of(with("bank_read_pj_per_16B", ""));
  EXPECT_NE(e.find("t.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("bank_read_pj_per_16B: missing required entry"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a number in [0, 1e+06]"), std::string::npos) << e;
  // No silent default for any required physical constant.
  for (const char* key :
       {"bank_write_pj_per_16B", "bank_leakage_mw", "bank_bytes", "wire_mm", "fu_sp_pj_per_lane_op",
        "fu_tensor_pj_per_lane_op", "l1_access_pj_per_request", "l1_fill_pj_per_byte",
        "l2_access_pj_per_request", "l2_fill_pj_per_byte", "shared_access_pj_per_warp_access",
        "memory_pj_per_byte", "collector_write_pj_per_operand"}) {
    e = error_of(with(key, ""));
    EXPECT_NE(e.find(std::string(key) + ": missing required entry"), std::string::npos) << e;
  }
  e = error_of(with("wire_pj_per_mm_per_128b", ""));
  EXPECT_NE(e.find("wire_pj_per_mm_per_128b: missing required entry"), std::string::npos) << e;
  EXPECT_NE(e.find("wire_pj_per_mm_per_32b"), std::string::npos) << e;
}

TEST(Energy, NegativeEntryNamesFileLineKeyAndRange) {
  std::string e = error_of(with("bank_leakage_mw", "bank_leakage_mw: -5.8"));
  EXPECT_NE(e.find("t.yaml:4: bank_leakage_mw: '-5.8' is out of range; expected a number in [0, "
                   "1e+06]"),
            std::string::npos)
      << e;
  e = error_of(with("wire_mm", "wire_mm: -1"));
  EXPECT_NE(e.find("t.yaml:7: wire_mm: '-1' is out of range; expected a number in [0, 100]"),
            std::string::npos)
      << e;
  e = error_of(with("bank_read_pj_per_16B", "bank_read_pj_per_16B: seven"));
  EXPECT_NE(e.find("t.yaml:2: bank_read_pj_per_16B: 'seven' is not a number"), std::string::npos)
      << e;
  e = error_of(with("bank_bytes", "bank_bytes: 0"));
  EXPECT_NE(e.find("t.yaml:5: bank_bytes: must be > 0"), std::string::npos) << e;
  std::string t = kTable;
  t.replace(t.find("hashes: 4"), 9, "hashes: -4");
  e = error_of(t);
  EXPECT_NE(e.find("t.yaml:23: structures.hash.events.hashes: '-4' is out of range"),
            std::string::npos)
      << e;
}

TEST(Energy, UnknownAndConflictingKeys) {
  std::string e = error_of(with("bank_bytes", "bank_bytes: 4096\nbank_leakge_mw: 3"));
  EXPECT_NE(e.find("t.yaml:6: bank_leakge_mw: unknown key; did you mean 'bank_leakage_mw'?"),
            std::string::npos)
      << e;
  e = error_of(with("wire_mm", "wire_mm: 1\nwire_pj_per_mm_per_32b: 1.9"));
  EXPECT_NE(e.find("not both"), std::string::npos) << e;
}

TEST(Energy, StructureEntriesAreRequired) {
  std::string t = kTable;
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = t;
    s.replace(s.find(from), from.size(), to);
    return error_of(s);
  };
  std::string e = replace("part_of_rf: true, leakage_mw: 1,", "leakage_mw: 1,");
  EXPECT_NE(e.find("t.yaml:22: structures.rfc.part_of_rf: missing required entry"),
            std::string::npos)
      << e;
  e = replace("leakage_mw: 1, ", "");
  EXPECT_NE(e.find("structures.rfc.leakage_mw: missing required entry"), std::string::npos) << e;
  e = replace(", events: {hashes: 4}", "");
  EXPECT_NE(e.find("structures.hash.events: missing required entry"), std::string::npos) << e;
  e = replace("  hash:", "  bank:");
  EXPECT_NE(e.find("structures.bank: 'bank' is a unit the fixed entries already model"),
            std::string::npos)
      << e;
}

TEST(Energy, StructureStatisticTheRunLacksIsAnError) {
  std::string t = kTable;
  t.replace(t.find("hashes: 4"), 9, "hashs: 4");
  try {
    energy_report(table(t), stats(), kPlatform);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("t.yaml:23: structures.hash.events.hashs: no statistic 'hashs'"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("has: hashes"), std::string::npos) << m;
  }
}

TEST(Energy, BadStatisticsOrPlatform) {
  Json s = stats();
  s.erase("sm");
  EXPECT_THROW(energy_report(table(kTable), s, kPlatform), std::runtime_error);
  s = stats();
  s["sm.sub0.bank0"]["gated_cycles"]["value"] = 8001; // more than 8 slices x 1000 cycles
  EXPECT_THROW(energy_report(table(kTable), s, kPlatform), std::runtime_error);
  s = stats();
  s["sm.sub0.bank1"].erase("slice_reads");
  EXPECT_THROW(energy_report(table(kTable), s, kPlatform), std::runtime_error);
  EXPECT_THROW(energy_report(table(kTable), stats(), EnergyPlatform{0, 8, 256}),
               std::runtime_error);
}

TEST(Energy, ShippedTablesLoad) {
  for (const char* name : {"warped-compression", "gebhart", "wir"}) {
    const std::string p = source_dir() + "/configs/energy/" + name + ".yaml";
    EnergyTable t = load_energy_table(p);
    EXPECT_EQ(t.name, name);
    Json r = energy_report(t, baseline_stats(), kPlatform);
    EXPECT_GT(r["sm_energy_pj"].get<double>(), 0) << name;
  }
  // Gebhart's table prices every event of its RFC.
  Json s = baseline_stats();
  s["sm.sub0.rfc"] = stats()["sm.sub0.rfc"];
  EXPECT_GT(energy_report(load_energy_table(source_dir() + "/configs/energy/gebhart.yaml"), s,
                          kPlatform)["breakdown"]["rfc"]
                .get<double>(),
            0);
  // Warped-Compression Table 3: a full 128 B register read = 8 x 7 pJ on either bank shape.
  EnergyTable wc = load_energy_table(source_dir() + "/configs/energy/warped-compression.yaml");
  EXPECT_DOUBLE_EQ(wc.bank_read_pj_per_16B * 8, 56);
  EXPECT_DOUBLE_EQ(wc.wire_pj_per_mm_per_byte, 9.6 / 16);
  EnergyTable g = load_energy_table(source_dir() + "/configs/energy/gebhart.yaml");
  EXPECT_DOUBLE_EQ(g.wire_pj_per_mm_per_byte, 1.9 / 4);
  EXPECT_THROW(load_energy_table(source_dir() + "/configs/energy/none.yaml"), ConfigError);
}

TEST(Energy, PlatformKeyResolvesRelativeToItsFile) {
  const fs::path dir =
      fs::temp_directory_path() / ("gpurf_energy_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "energy");
  std::ofstream(dir / "energy" / "t.yaml") << kTable;
  std::ofstream(dir / "p.yaml") << "name: p\nenergy:\n  table: energy/t.yaml\n";
  std::ofstream(dir / "bad.yaml") << "name: p\nenergy:\n  table: energy/tt.yaml\n";
  std::ofstream(dir / "none.yaml") << "name: p\n";
  {
    ConfigPtr root = load_config((dir / "p.yaml").string());
    Params top(root.get(), "");
    top.get_string("name", "", "");
    auto t = platform_energy_table(top);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->name, "t");
    top.check_unused();
  }
  {
    ConfigPtr root = load_config((dir / "none.yaml").string());
    Params top(root.get(), "");
    top.get_string("name", "", "");
    EXPECT_FALSE(platform_energy_table(top));
  }
  {
    ConfigPtr root = load_config((dir / "bad.yaml").string());
    Params top(root.get(), "");
    try {
      platform_energy_table(top);
      FAIL() << "expected a ConfigError";
    } catch (const ConfigError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("bad.yaml:3: energy.table: cannot open energy table"), std::string::npos)
          << m;
      EXPECT_NE(m.find("tables there: t.yaml"), std::string::npos) << m;
    }
  }
  fs::remove_all(dir);
}

namespace {

// A stats.json that gpurf wrote (descriptions and host times removed): tests/unit/energy_data;
// the counts of an earlier gpurf, with the energy roles and "_unit" this one declares.
Json recorded(const std::string& name) {
  std::ifstream f(fs::path(GPURF_SOURCE_DIR) / "tests/unit/energy_data" / name);
  EXPECT_TRUE(f) << name;
  return Json::parse(f);
}

// `s` as right after elaboration: every counter 0 (formulas keep their values).
Json declared_only(Json s) {
  for (auto& [g, group] : s.items())
    for (auto& [n, st] : group.items()) {
      if (st.contains("value") && st["value"].is_number_unsigned()) st["value"] = 0;
      if (st.contains("values"))
        for (auto& v : st["values"]) v = 0;
      if (st.contains("total")) st["total"] = 0;
    }
  return s;
}

} // namespace

// --- Unpriced events -----------------------------------------------------------------------

namespace {

// What energy_report throws (ConfigError), or "".
std::string report_error(const EnergyTable& t, const Json& s) {
  try {
    energy_report(t, s, kPlatform);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// kTable without its line `text` (which must exist).
std::string without(const std::string& text) {
  std::string t = kTable;
  size_t at = t.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  t.erase(at, text.size());
  return t;
}

} // namespace

TEST(Energy, UnpricedEventNamesUnitEventAndTable) {
  // The RFC's write-backs are counted (3 in sm.sub0.rfc, 0 in sm.sub1.rfc) but not priced.
  const std::string e = report_error(table(without(", writebacks: 0.5")), stats());
  EXPECT_NE(e.find("t.yaml: energy events counted but not priced"), std::string::npos) << e;
  EXPECT_NE(e.find("event 'writebacks' of unit sm.sub0.rfc (3 counted)"), std::string::npos) << e;
  EXPECT_EQ(e.find("sm.sub1.rfc"), std::string::npos) << e; // counted 0 there
  EXPECT_NE(e.find("add {writebacks: <pJ>} to structures.rfc.events (t.yaml:22)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("energy::no_event(...) where the unit declares it"), std::string::npos) << e;

  // A vector element without a price: a pipe the table format does not know.
  Json s = stats();
  s["sm.sub0.exec"]["instructions"] =
      vec({10, 1, 2, 3, 4, 5, 2}, {"sp", "int", "dp", "sfu", "mem", "tensor", "rt"}, "priced");
  const std::string v = report_error(table(kTable), s);
  EXPECT_NE(v.find("event 'instructions[rt]' of unit sm.sub0.exec (2 counted)"), std::string::npos)
      << v;
}

TEST(Energy, AddedStructureWithoutTableEntryIsAnError) {
  // fermi + -p rfc.entries=4: an RFC in a run whose table has no `rfc` structure. Before,
  // its hits cost 0 pJ without a word.
  std::string t = without("  rfc: {part_of_rf: true, leakage_mw: 1, events: {reads: 1.5, writes: "
                          "2.5, writebacks: 0.5}}\n");
  std::string e = report_error(table(t), stats());
  EXPECT_NE(e.find("event 'reads' of unit sm.sub0.rfc (and 1 more) (12 counted)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("event 'writes' of unit sm.sub0.rfc (4 counted)"), std::string::npos) << e;
  EXPECT_NE(e.find("event 'writebacks' of unit sm.sub0.rfc (3 counted)"), std::string::npos) << e;
  EXPECT_NE(e.find("add structures: {rfc: {part_of_rf: <true|false>, leakage_mw: <mW>, events: "
                   "{reads: <pJ>, writes: <pJ>, writebacks: <pJ>}}} to t.yaml"),
            std::string::npos)
      << e;
  // The RFC's bookkeeping (misses, results, stalls...) is no energy event.
  Json s = stats();
  s["sm.sub0.rfc"]["misses"] = scalar(7, "not_event");
  s["sm.sub0.rfc"]["write_port_stall_cycles"] = scalar(9, "not_event");
  s["sm.sub0.rfc"]["hit_rate"] = Json{{"value", 0.5}};
  e = report_error(table(t), s);
  EXPECT_EQ(e.find("misses"), std::string::npos) << e;
  EXPECT_EQ(e.find("stall"), std::string::npos) << e;
  EXPECT_EQ(e.find("hit_rate"), std::string::npos) << e;

  // A structure gpurf does not know: each of its counters is an event unless it declares
  // otherwise; a formula (floating-point value) never is; a zero count is no error at
  // the end of a run.
  s = baseline_stats();
  s["sm.sub0.reuse_buffer"] = {
      {"lookups", scalar(5, "")}, {"inserts", scalar(0, "")}, {"hit_rate", Json{{"value", 0.25}}}};
  e = report_error(table(kTable), s);
  EXPECT_NE(e.find("event 'lookups' of unit sm.sub0.reuse_buffer (5 counted)"), std::string::npos)
      << e;
  EXPECT_EQ(e.find("inserts"), std::string::npos) << e;
  EXPECT_EQ(e.find("hit_rate"), std::string::npos) << e;
  EXPECT_NE(e.find("add structures: {reuse_buffer: {part_of_rf: <true|false>, leakage_mw: <mW>, "
                   "events: {lookups: <pJ>}}}"),
            std::string::npos)
      << e;
  s["sm.sub0.reuse_buffer"]["lookups"]["value"] = 0;
  EXPECT_EQ(report_error(table(kTable), s), "");
}

TEST(Energy, ShippedBaselineTableRejectsAnRfc) {
  // The same with the table fermi uses.
  const std::string p = source_dir() + "/configs/energy/warped-compression.yaml";
  Json s = baseline_stats();
  s["sm.sub0.rfc"] = stats()["sm.sub0.rfc"];
  const std::string e = report_error(load_energy_table(p), s);
  EXPECT_NE(e.find(p + ": energy events counted but not priced"), std::string::npos) << e;
  EXPECT_NE(e.find("event 'reads' of unit sm.sub0.rfc (10 counted)"), std::string::npos) << e;
}

TEST(Energy, UnclassifiedStatisticOfAFixedKindIsAnError) {
  // A new bank counter must declare its energy role where it is declared: priced, or no event.
  Json s = stats();
  s["sm.sub0.bank1"]["tag_checks"] = scalar(5, "");
  try {
    energy_report(table(kTable), s, kPlatform);
    FAIL() << "expected a std::logic_error";
  } catch (const std::logic_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("energy events that declare no energy role"), std::string::npos) << m;
    EXPECT_NE(m.find("energy argument of StatGroup::scalar/vector"), std::string::npos) << m;
    EXPECT_NE(m.find("statistic 'tag_checks' of unit sm.sub0.bank1 (kind 'bank')"),
              std::string::npos)
        << m;
  }
  // A fixed kind cannot be priced as an added structure instead.
  std::string t = kTable;
  t += "  bank: {part_of_rf: true, leakage_mw: 0, events: {tag_checks: 1}}\n";
  EXPECT_NE(error_of(t).find("'bank' is a unit the fixed entries already model"),
            std::string::npos);
}

TEST(Energy, GroupKinds) {
  // Every registered implementation's declared roles are checked in
  // tests/unit/platform_statistics_test.cpp (priced only in fixed kinds, each with a why).
  EXPECT_EQ(energy_group_kind("sm.sub0.bank3"), "bank");
  EXPECT_EQ(energy_group_kind("sm.l1"), "l1");
  EXPECT_EQ(energy_group_kind("sm.sub1.rfc2"), "rfc");
  EXPECT_EQ(energy_group_kind("sm.sub0.vsb"), "vsb");
  EXPECT_EQ(energy_group_kind("memory"), "memory");
}

TEST(Energy, LoadTimeCheckNamesPlatformKeyTableAndWhatToAdd) {
  // Right after elaboration every count is 0, and every declared event needs a price.
  const Json declared = declared_only(stats());
  std::string t = without("  rfc: {part_of_rf: true, leakage_mw: 1, events: {reads: 1.5, writes: "
                          "2.5, writebacks: 0.5}}\n");
  ConfigPtr platform =
      parse_config_string("rfc: {entries: 4}\nenergy: {table: t.yaml}\n", "p.yaml");
  try {
    check_energy_declared(table(t), declared, platform.get());
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("p.yaml:1: rfc: the platform's unit sm.sub0.rfc (and 1 more) counts energy "
                     "events 'reads', 'writes', 'writebacks' that its energy table t.yaml "
                     "(energy.table, p.yaml:2) does not price; add structures: {rfc: {"),
              std::string::npos)
        << m;
  }
  // -p rfc.entries=4 on a platform without an RFC: the command line is the key's place.
  platform = parse_config_string("energy: {table: t.yaml}\n", "p.yaml");
  apply_override(*platform, "rfc.entries=4");
  try {
    check_energy_declared(table(t), declared, platform.get());
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("command line: rfc: the platform's unit sm.sub0.rfc"),
              std::string::npos)
        << e.what();
  }
  // Priced by the table: fine, with or without a platform.
  EXPECT_NO_THROW(check_energy_declared(table(kTable), declared, nullptr));
  // A table event the groups do not declare is caught at load time too.
  std::string typo = kTable;
  typo.replace(typo.find("writebacks: 0.5"), 15, "writeback: 0.5");
  EXPECT_THROW(check_energy_declared(table(typo), declared, nullptr), ConfigError);
}

// --- The energy identity -------------------------------------------------------------------

TEST(Energy, IdentityHoldsAndIsIndependentOfTheBreakdown) {
  const EnergyTable t = table(kTable);
  const Json r = energy_report(t, stats(), kPlatform);
  EXPECT_NEAR(energy_identity_total(t, stats(), kPlatform), 111899.5 + 470, 1e-9);
  EXPECT_NO_THROW(check_energy_identity(t, stats(), kPlatform, r));

  // A price perturbed in the breakdown path only: the report built with bank reads at 2.5 pJ
  // instead of the table's 2 is internally consistent, but not the table's sum.
  const Json wrong = energy_report(table(with("bank_read_pj_per_16B", "bank_read_pj_per_16B: 2.5")),
                                   stats(), kPlatform);
  try {
    check_energy_identity(t, stats(), kPlatform, wrong);
    FAIL() << "expected the identity to fail";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("energy identity broken (t.yaml): total_energy_pj vs the sum over events of "
                     "count x price plus leakage"),
              std::string::npos)
        << m;
  }
  // A doctored report: one component moved, or the total not the sum of its parts.
  Json d = r;
  d["breakdown"]["rf_bank_read"] = d["breakdown"]["rf_bank_read"].get<double>() + 1e-3;
  EXPECT_THROW(check_energy_identity(t, stats(), kPlatform, d), std::runtime_error);
  d = r;
  d["total_energy_pj"] = d["total_energy_pj"].get<double>() * (1 + 1e-8);
  EXPECT_THROW(check_energy_identity(t, stats(), kPlatform, d), std::runtime_error);
  d = r;
  d["sm_energy_pj"] = d["sm_energy_pj"].get<double>() + 1;
  EXPECT_THROW(check_energy_identity(t, stats(), kPlatform, d), std::runtime_error);
  // Rounding is not a mismatch.
  d = r;
  d["total_energy_pj"] = d["total_energy_pj"].get<double>() * (1 + 1e-12);
  EXPECT_NO_THROW(check_energy_identity(t, stats(), kPlatform, d));
}

TEST(Energy, IdentityAndPricesOnRecordedRuns) {
  // `gpurf run --workload scan` on gebhart-rfc-twolevel (RFC, two-level scheduler) and on
  // cmrc-wid (CMRC collector, writeback, split crossbar, coalescing arbiter): every
  // statistic is classified, every event priced, and the identity holds.
  struct Case {
    const char *stats, *table;
    EnergyPlatform pf;
    double total; // total_energy_pj of that run's result.json
  };
  for (const Case& c :
       {Case{"gebhart-rfc-twolevel-scan.stats.json", "gebhart", {1.0, 8, 256}, 16739443.52},
        Case{
            "cmrc-wid-scan.stats.json", "warped-compression", {0.7, 4, 256}, 19709102.342857145}}) {
    const EnergyTable t = load_energy_table(source_dir() + "/configs/energy/" + c.table + ".yaml");
    const Json s = recorded(c.stats);
    const Json r = energy_report(t, s, c.pf);
    EXPECT_NEAR(r["total_energy_pj"].get<double>(), c.total, c.total * 1e-12) << c.stats;
    EXPECT_NEAR(energy_identity_total(t, s, c.pf), c.total, c.total * 1e-9) << c.stats;
    EXPECT_NO_THROW(check_energy_declared(t, declared_only(s), nullptr)) << c.stats;
    // Any price the breakdown takes wrongly breaks the identity.
    Json d = r;
    d["breakdown"]["rf_bank_write"] = d["breakdown"]["rf_bank_write"].get<double>() * 1.001;
    d["total_energy_pj"] = d["total_energy_pj"].get<double>() +
                           d["breakdown"]["rf_bank_write"].get<double>() -
                           r["breakdown"]["rf_bank_write"].get<double>();
    d["sm_energy_pj"] = d["total_energy_pj"].get<double>() - d["memory_energy_pj"].get<double>();
    EXPECT_THROW(check_energy_identity(t, s, c.pf, d), std::runtime_error) << c.stats;
  }
  // The RFC run under the table fermi uses: its RFC is unpriced.
  const Json s = recorded("gebhart-rfc-twolevel-scan.stats.json");
  const std::string e =
      report_error(load_energy_table(source_dir() + "/configs/energy/warped-compression.yaml"), s);
  EXPECT_NE(e.find("event 'reads' of unit sm.sub0.rfc"), std::string::npos) << e;
  EXPECT_NE(e.find("warped-compression.yaml"), std::string::npos) << e;
}

// --- Scopes (docs/energy.md, "Scopes") -----------------------------------------------------

namespace {

// kTable as a table of the SM scope: static power and every Scope event of stats() priced.
const char* kScope = R"(scope: sm
sm_static_mw: 2
uncore_static_mw: 0.5
pipeline:
  fetch: {scheduler: {issued: 3}}
  decode: {scheduler: {issued: 1}}
  issue: {scheduler: {issued: 2, activations: 7, deactivations: 7}}
  operand_collection:
    allocator: {allocations: 0.5}
    collector: {dispatched: 0.25}
  writeback: {writeback: {register_writes: 4}}
  memory_pipeline:
    lsu: {completed: 6, instructions: {const: 8, param: 9}, shared_bank_conflict_cycles: 10}
  interconnect: {interconnect: {bytes: 0.125, requests: 2}}
)";

std::string scope_table(const std::string& extra = kScope) { return std::string(kTable) + extra; }

// stats() with the Scope events a Fermi run counts beside the fixed ones.
Json scope_stats() {
  Json s = stats();
  s["sm.sub0.collector0"]["dispatched"] = scalar(9, "scope");
  s["sm.sub0.collector1"]["dispatched"] = scalar(3, "scope");
  s["sm.sub0.lsu"]["instructions"] = vec({1, 2, 6, 0, 4, 5}, kSpaces, lsu_roles());
  s["sm.sub0.lsu"]["completed"] = scalar(17, "scope");
  s["sm.sub0.lsu"]["shared_bank_conflict_cycles"] = scalar(3, "scope");
  s["interconnect"] = {{"requests", vec({4}, {}, "scope")}, {"bytes", vec({512}, {}, "scope")}};
  return s;
}

} // namespace

TEST(Energy, SmScopePricesEveryComponentExactly) {
  const EnergyTable t = table(scope_table());
  EXPECT_EQ(t.scope, EnergyScope::Sm);
  const Json s = scope_stats();
  const Json r = energy_report(t, s, kPlatform);
  const Json& b = r["breakdown"];
  EXPECT_EQ(r["scope"], "sm");
  EXPECT_DOUBLE_EQ(b["fetch"].get<double>(), 25 * 3);
  EXPECT_DOUBLE_EQ(b["decode"].get<double>(), 25 * 1);
  EXPECT_DOUBLE_EQ(b["issue"].get<double>(), 25 * 2);
  EXPECT_DOUBLE_EQ(b["operand_collection"].get<double>(), 25 * 0.5 + 12 * 0.25);
  EXPECT_DOUBLE_EQ(b["writeback"].get<double>(), 6 * 4);
  EXPECT_DOUBLE_EQ(b["memory_pipeline"].get<double>(), 17 * 6 + 5 * 8 + 4 * 9 + 3 * 10);
  EXPECT_DOUBLE_EQ(b["interconnect"].get<double>(), 512 * 0.125 + 4 * 2);
  // Static power per SM for the whole run: 1000 cycles / 0.5 GHz = 2000 ns.
  EXPECT_DOUBLE_EQ(b["sm_static"].get<double>(), 2 * 2000);
  EXPECT_DOUBLE_EQ(b["uncore_static"].get<double>(), 0.5 * 2000);
  // The fixed components are those of the register-file scope.
  const Json rf = energy_report(table(kTable), s, kPlatform);
  EXPECT_EQ(rf["scope"], "register-file");
  EXPECT_FALSE(rf["breakdown"].contains("fetch"));
  for (auto& [k, v] : rf["breakdown"].items())
    EXPECT_DOUBLE_EQ(b[k].get<double>(), v.get<double>()) << k;
  // Totals: the L2, the interconnect and its static power are uncore; static = every leakage
  // and static term; sm + uncore + memory = dynamic + static = total.
  const double l2 = b["l2"].get<double>(), mem = b["memory"].get<double>();
  const double uncore = l2 + b["interconnect"].get<double>() + 1000;
  const double stat =
      b["rf_bank_leakage"].get<double>() + b["rfc_leakage"].get<double>() + 4000 + 1000;
  EXPECT_DOUBLE_EQ(r["uncore_energy_pj"].get<double>(), uncore);
  EXPECT_DOUBLE_EQ(r["static_energy_pj"].get<double>(), stat);
  EXPECT_NEAR(r["sm_energy_pj"].get<double>(), r["total_energy_pj"].get<double>() - uncore - mem,
              1e-6);
  EXPECT_NEAR(r["dynamic_energy_pj"].get<double>(), r["total_energy_pj"].get<double>() - stat,
              1e-6);
  EXPECT_NEAR(energy_identity_total(t, s, kPlatform), r["total_energy_pj"].get<double>(), 1e-6);
  EXPECT_NEAR(energy_identity_static(t, s, kPlatform), stat, 1e-6);
  // In the register-file scope the L2 stays in sm_energy_pj (as before scopes) and nothing is
  // uncore.
  EXPECT_DOUBLE_EQ(rf["uncore_energy_pj"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(rf["sm_energy_pj"].get<double>(), rf["total_energy_pj"].get<double>() - mem);
  // The identity catches a static term the breakdown does not follow.
  Json d = r;
  d["static_energy_pj"] = d["static_energy_pj"].get<double>() + 1;
  d["dynamic_energy_pj"] = d["dynamic_energy_pj"].get<double>() - 1;
  EXPECT_THROW(check_energy_identity(t, s, kPlatform, d), std::runtime_error);
}

TEST(Energy, UnpricedScopeEventFailsInAnSmScopeTable) {
  // The same run under a register-file-scope table: the Scope events are outside its scope.
  EXPECT_NO_THROW(energy_report(table(kTable), scope_stats(), kPlatform));
  // An SM-scope table that leaves the memory pipeline's completed instructions unpriced.
  std::string partial = kScope;
  partial.replace(partial.find("completed: 6, "), 14, "");
  const std::string e = report_error(table(scope_table(partial)), scope_stats());
  EXPECT_NE(e.find("t.yaml: energy events counted but not priced by this table"), std::string::npos)
      << e;
  EXPECT_NE(e.find("event 'completed' of unit sm.sub0.lsu (17 counted)"), std::string::npos) << e;
  EXPECT_NE(e.find("pipeline.<component>.lsu ({completed: <pJ>}"), std::string::npos) << e;
  // At load time too, whatever the count.
  EXPECT_THROW(
      check_energy_declared(table(scope_table(partial)), declared_only(scope_stats()), nullptr),
      ConfigError);
  EXPECT_NO_THROW(
      check_energy_declared(table(scope_table()), declared_only(scope_stats()), nullptr));
}

TEST(Energy, SmScopeEntriesAreChecked) {
  // Only Scope events: a fixed entry prices bank reads.
  std::string e = error_of(scope_table(std::string(kScope) + "  writeback2: {}\n"));
  EXPECT_NE(e.find("unknown component 'writeback2'; expected one of fetch, decode, issue"),
            std::string::npos)
      << e;
  std::string t = kScope;
  t.replace(t.find("fetch: {scheduler: {issued: 3}}"), 31, "fetch: {bank: {slice_reads: 3}}");
  // Which events are Scope events the units declare: checked against the run's statistics,
  // naming the entry's file:line.
  e = report_error(table(scope_table(t)), scope_stats());
  EXPECT_NE(e.find("t.yaml:29: pipeline.fetch: 'bank.slice_reads' is not an event of the SM "
                   "scope (sm.sub0.bank0 declares it priced"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("scheduler.issued"), std::string::npos) << e;
  EXPECT_NE(e.find("lsu.instructions[const]"), std::string::npos) << e;
  // A vector element that is no Scope event.
  t = kScope;
  t.replace(t.find("const: 8"), 8, "global: 8");
  EXPECT_NE(report_error(table(scope_table(t)), scope_stats())
                .find("'lsu.instructions[global]' is not an event of the SM scope"),
            std::string::npos);
  // Scope entries need scope: sm; scope sm needs its static power and pipeline.
  EXPECT_NE(error_of(std::string(kTable) + "sm_static_mw: 1\n")
                .find("sm_static_mw: belongs to a table of scope sm"),
            std::string::npos);
  t = kScope;
  t.replace(t.find("sm_static_mw: 2\n"), 16, "");
  EXPECT_NE(error_of(scope_table(t)).find("sm_static_mw: missing required entry"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kTable) + "scope: gpu\n").find("scope"), std::string::npos);
}

TEST(Energy, GpuwattchFermiTableHoldsTheIdentityOnRecordedRuns) {
  // The SM-scope table prices every event of a recorded CMRC run (Scope events included), the
  // identity holds, and its register file is priced as the platform's own table prices it.
  const std::string dir = source_dir() + "/configs/energy/";
  const EnergyTable g = load_energy_table(dir + "gpuwattch-fermi.yaml");
  EXPECT_EQ(g.scope, EnergyScope::Sm);
  const Json s = recorded("cmrc-wid-scan.stats.json");
  const EnergyPlatform pf{0.7, 4, 256};
  EXPECT_NO_THROW(check_energy_declared(g, declared_only(s), nullptr));
  const Json r = energy_report(g, s, pf);
  const Json own = energy_report(load_energy_table(dir + "warped-compression.yaml"), s, pf);
  for (const char* k : {"rf_bank_read", "rf_bank_write", "rf_bank_leakage", "rf_wire", "fu_sp",
                        "l1", "l2", "memory"})
    EXPECT_DOUBLE_EQ(r["breakdown"][k].get<double>(), own["breakdown"][k].get<double>()) << k;
  for (const char* k : {"fetch", "decode", "issue", "operand_collection", "writeback",
                        "memory_pipeline", "sm_static"})
    EXPECT_GT(r["breakdown"][k].get<double>(), 0) << k;
  EXPECT_GT(r["sm_energy_pj"].get<double>(),
            own["sm_energy_pj"].get<double>() - own["breakdown"]["l2"].get<double>());
  // Every shipped table loads and keeps the identity on both recorded runs' stats it prices.
  for (const char* name :
       {"warped-compression", "gebhart", "wir", "gpuwattch-fermi", "accelwattch-rf"})
    EXPECT_NO_THROW(energy_report(load_energy_table(dir + name + ".yaml"), s, pf)) << name;
}
