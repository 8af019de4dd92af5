// ptx::Allocations: what a global access must hit (frontend.memory_check).
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/ptx/allocations.h"

using gpurf::ptx::Allocations;

TEST(Allocations, InsideOneAllocationIsFine) {
  Allocations a;
  a.add(0x1000, 256, "buffer 'x'");
  a.add(0x1100, 256, "buffer 'y'");
  EXPECT_EQ(a.check(0x1000, 4), "");
  EXPECT_EQ(a.check(0x10fc, 4), "");
  EXPECT_EQ(a.check(0x1100, 8), "");
  EXPECT_EQ(a.check(0x10fc, 4), ""); // again, from the last-hit cache
}

TEST(Allocations, StraddlingOrOutsideNamesTheNearestWithItsBounds) {
  Allocations a;
  a.add(0x1000, 256, "buffer 'x'");
  a.add(0x2000, 256, "buffer 'y'");
  const std::string past = a.check(0x10fe, 4);
  EXPECT_NE(past.find("runs 2 bytes past the end of buffer 'x' [0x1000, 0x1100)"),
            std::string::npos)
      << past;
  const std::string after = a.check(0x1100, 4);
  EXPECT_NE(after.find("0 bytes past the end of buffer 'x'"), std::string::npos) << after;
  const std::string before = a.check(0x1ffc, 4);
  EXPECT_NE(before.find("4 bytes before buffer 'y' [0x2000, 0x2100)"), std::string::npos) << before;
  const std::string far = a.check(0x40000000, 4); // a load 1 GiB past
  EXPECT_NE(far.find("past the end of buffer 'y'"), std::string::npos) << far;
  EXPECT_NE(a.check(0xff0, 4).find("before buffer 'x'"), std::string::npos);
  EXPECT_NE(Allocations().check(0x1000, 4).find("none is live"), std::string::npos);
}

TEST(Allocations, FreedIsReportedUntilReused) {
  Allocations a;
  a.add(0x1000, 256, "allocation 1");
  EXPECT_EQ(a.check(0x1000, 4), ""); // cached as the last hit
  EXPECT_TRUE(a.free(0x1000));
  EXPECT_FALSE(a.free(0x1000)); // twice
  EXPECT_NE(a.check(0x1000, 4).find("freed"), std::string::npos);
  a.add(0x1000, 64, "allocation 2");
  EXPECT_EQ(a.check(0x1000, 4), "");
  EXPECT_NE(a.check(0x1040, 4).find("past the end of allocation 2"), std::string::npos);
}

TEST(Allocations, AWrappingAccessIsNeverInside) {
  Allocations a;
  a.add(0xffffffffffffff00ull, 0xff, "top");
  EXPECT_NE(a.check(0xfffffffffffffffcull, 8), "");
}

TEST(Allocations, DescribeNamesTheHolderOrWhatIsWrong) {
  Allocations a;
  a.add(0x1000, 192, "cudaMalloc allocation of 192 bytes");
  EXPECT_EQ(a.describe(0x1006, 4),
            "in cudaMalloc allocation of 192 bytes [0x1000, 0x10c0) (192 bytes)");
  EXPECT_EQ(a.describe(0x1006, 4), a.describe(0x1006, 4)); // from the last-hit cache too
  EXPECT_NE(a.describe(0x10c2, 4).find("outside every allocation"), std::string::npos);
}
