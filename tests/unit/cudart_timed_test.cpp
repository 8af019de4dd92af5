// GPURF_TIMED's parser and matcher (cudart/timed.h, docs/programs.md "Fast-forward").
#include <gtest/gtest.h>

#include "cudart/timed.h"

using gpurf::cudart::TimedSet;

namespace {

std::string error_of(const std::string& spec) {
  try {
    TimedSet::parse(spec, "GPURF_TIMED");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(CudartTimed, UnsetOrEmptyTimesEveryLaunch) {
  for (const char* s : {"", "  "}) {
    const TimedSet t = TimedSet::parse(s, "GPURF_TIMED");
    EXPECT_TRUE(t.all());
    EXPECT_TRUE(t.timed(1, "_Z4fan1PfPKfii"));
    EXPECT_TRUE(t.timed(123456, "anything"));
  }
}

TEST(CudartTimed, LaunchNumbersAndRanges) {
  const TimedSet t = TimedSet::parse("2-4, 7,10-", "GPURF_TIMED");
  EXPECT_FALSE(t.all());
  for (uint64_t n = 1; n <= 12; ++n)
    EXPECT_EQ(t.timed(n, "k"), (n >= 2 && n <= 4) || n == 7 || n >= 10) << n;
  EXPECT_TRUE(t.timed(1000000, "k"));
}

TEST(CudartTimed, NoneTimesNothing) {
  const TimedSet t = TimedSet::parse("none", "GPURF_TIMED");
  EXPECT_FALSE(t.timed(1, "_Z4fan1PfPKfii"));
  EXPECT_FALSE(t.timed(99, "k"));
}

TEST(CudartTimed, KernelNamesMangledDemangledAndBase) {
  // fan1(float*, float const*, int, int); void ns::sgemm<float>(float*, int)
  const std::string fan1 = "_Z4fan1PfPKfii", sgemm = "_ZN2ns5sgemmIfEEvPT_i";
  EXPECT_TRUE(TimedSet::parse("fan1", "X").timed(5, fan1));
  EXPECT_TRUE(TimedSet::parse(fan1, "X").timed(5, fan1));
  EXPECT_FALSE(TimedSet::parse("fan2", "X").timed(5, fan1));
  EXPECT_FALSE(TimedSet::parse("fan", "X").timed(5, fan1)); // whole names only
  for (const char* n : {"sgemm", "ns::sgemm", "ns::sgemm<float>"})
    EXPECT_TRUE(TimedSet::parse(n, "X").timed(1, sgemm)) << n;
  EXPECT_FALSE(TimedSet::parse("float", "X").timed(1, sgemm));
  EXPECT_TRUE(TimedSet::parse("vec_add", "X").timed(1, "vec_add")); // extern "C"
  // Names and ranges together: either selects.
  const TimedSet t = TimedSet::parse("fan1,40-", "X");
  EXPECT_TRUE(t.timed(3, fan1));
  EXPECT_FALSE(t.timed(4, "_Z4fan2PKfPfS1_ii"));
  EXPECT_TRUE(t.timed(40, "_Z4fan2PKfPfS1_ii"));
  EXPECT_EQ(t.names(), std::vector<std::string>{"fan1"});
}

TEST(CudartTimed, BadItemsNameTheVariableTheItemAndTheForms) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"3-1", "bad item '3-1' (the range ends before it starts)"},
      {"0", "bad item '0' (launches are numbered from 1)"},
      {"0-3", "bad item '0-3' (launches are numbered from 1)"},
      {"1,,2", "bad item '' (empty)"},
      {"1,", "bad item '' (empty)"},
      {"2-x", "bad item '2-x' (not a range N-M of launch numbers)"},
      {"1-2-3", "bad item '1-2-3' (not a range N-M of launch numbers)"},
      {"-5", "bad item '-5' (neither a launch nor a name)"},
      {"fan-1", "bad item 'fan-1' ('-' in a kernel name)"},
      {"x y", "bad item 'x y' (' ' in a kernel name)"},
      {"3x", "bad item '3x' (not a launch number)"},
      {"99999999999999999999", "bad item '99999999999999999999' (not a launch number)"},
      {"none,3", "'none' cannot be combined with other items"},
  };
  for (const auto& [spec, want] : cases) {
    const std::string e = error_of(spec);
    EXPECT_NE(e.find("GPURF_TIMED='" + spec + "'"), std::string::npos) << e;
    EXPECT_NE(e.find(want), std::string::npos) << spec << ": " << e;
    EXPECT_NE(e.find("a launch number N (from 1"), std::string::npos) << e;
    EXPECT_NE(e.find("a range N-M, N-"), std::string::npos) << e;
    EXPECT_NE(e.find("a kernel name"), std::string::npos) << e;
  }
}
