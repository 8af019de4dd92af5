// The one hex, join and edit_distance every message uses (platform/text.h).
#include <filesystem>

#include <gtest/gtest.h>

#include "gpurf/platform/config.h"
#include "gpurf/platform/data_path.h"
#include "gpurf/platform/text.h"

using namespace gpurf;

TEST(Text, Hex) {
  EXPECT_EQ(hex(0), "0x0");
  EXPECT_EQ(hex(0xdeadbeef), "0xdeadbeef");
  EXPECT_EQ(hex(~uint64_t(0)), "0xffffffffffffffff");
}

TEST(Text, Join) {
  EXPECT_EQ(join({}), "");
  EXPECT_EQ(join({"a"}), "a");
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({"a", "b"}, "; "), "a; b");
}

TEST(Text, EditDistanceCountsATranspositionAsOneEdit) {
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("sliced", "sliced"), 0u);
  EXPECT_EQ(edit_distance("slicd", "sliced"), 1u);
  EXPECT_EQ(edit_distance("write_frist", "write_first"), 1u); // Levenshtein says 2
  EXPECT_EQ(closest("write_frist", {"write_first", "malekeh"}), "write_first");
}

TEST(Baselines, TheListGpurfSuiteAndTheScriptsRead) {
  const std::vector<std::string> b = baseline_platforms(GPURF_SOURCE_DIR);
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b.front(), "fermi");
  for (const std::string& p : b) EXPECT_FALSE(data_path("configs/" + p + ".yaml").empty()) << p;
  EXPECT_THROW(baseline_platforms("/nonexistent"), ConfigError);
}
