// The result files' layout in one place (platform/results_schema.json): what gpurf embeds is
// the file the scripts read, and a key the file does not list is refused.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gpurf/platform/results.h"

using namespace gpurf;

TEST(ResultsSchema, EmbeddedIsTheFileTheScriptsRead) {
  std::ifstream f(GPURF_SOURCE_DIR "/platform/results_schema.json");
  ASSERT_TRUE(f);
  EXPECT_EQ(nlohmann::json::parse(f), results_schema());
  EXPECT_EQ(results_schema()["version"].get<int>(), kResultSchema);
  for (const char* k : {"schema", "kernel", "cycles", "ipc", "l1_hit_ratio", "launches"})
    EXPECT_TRUE(results_schema()["result_keys"].contains(k)) << k;
}

TEST(ResultsSchema, UnlistedKeyIsRefusedByName) {
  nlohmann::ordered_json r = {{"schema", kResultSchema}, {"cycles", 10}, {"ipc", 1.0}};
  EXPECT_NO_THROW(check_result_keys(r));
  r["cycels"] = 10; // a renamed or misspelt field
  try {
    check_result_keys(r);
    FAIL() << "an unlisted key was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'cycels'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("results_schema.json"), std::string::npos);
  }
}
