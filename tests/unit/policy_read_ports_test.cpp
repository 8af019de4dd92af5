// The Allocate stage's bank-port reservation (modules/collector/impl/read_ports.h) against the
// register-file conflicts Huerta et al. (MICRO'25) measured on Ampere: one read port per
// bank, a three-cycle read window after issue, one instruction issued per cycle at most and
// held while its reads do not fit. Bubbles between two consecutive independent instructions:
// FMUL with both sources in one bank 1, in two banks 0 (Sec. 5.3); FFMA with all three in one
// bank 2 (Sec. 5.3); Listing 1's FFMA R11, R10, R12, R14 then FFMA R13, R16, R_X, R_Y: 0 for
// R_X, R_Y odd, 1 for one even, 2 for both even (Sec. 3).
#include <gtest/gtest.h>

#include "gpurf/modules/collector/impl/read_ports.h"

using gpurf::ReadPorts;

namespace {
// Issues the instructions (their source registers) one after the other, each as early as its
// reads fit; returns the bubbles before each after the first. Bank = register parity.
std::vector<unsigned> bubbles(const std::vector<std::vector<unsigned>>& code, unsigned ports = 1) {
  ReadPorts rp(ports);
  std::vector<unsigned> out;
  ReadPorts::Cycle t = 0, last = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    std::vector<unsigned> banks;
    for (unsigned r : code[i]) banks.push_back(r % 2);
    std::vector<ReadPorts::Cycle> at;
    while (!rp.reserve(t + 2, rp.length(3, banks), banks, at)) ++t; // held: bubbles
    if (i) out.push_back(unsigned(t - last - 1));
    last = t++;
  }
  return out;
}
} // namespace

TEST(ReadPorts, FmulBothSourcesInOneBankOneBubble) {
  EXPECT_EQ(bubbles({{2, 4}, {6, 8}}), std::vector<unsigned>{1});
  EXPECT_EQ(bubbles({{2, 3}, {6, 7}}), std::vector<unsigned>{0});
}

TEST(ReadPorts, FfmaThreeSourcesInOneBankTwoBubbles) {
  EXPECT_EQ(bubbles({{2, 4, 6}, {8, 10, 12}}), std::vector<unsigned>{2});
}

TEST(ReadPorts, Listing1Pairs) {
  EXPECT_EQ(bubbles({{10, 12, 14}, {16, 19, 21}}), std::vector<unsigned>{0});
  EXPECT_EQ(bubbles({{10, 12, 14}, {16, 18, 21}}), std::vector<unsigned>{1});
  EXPECT_EQ(bubbles({{10, 12, 14}, {16, 18, 20}}), std::vector<unsigned>{2});
}

// Two ports per bank (Table 6 "2R"): the bubbles only where one bank's reads exceed its two
// per cycle (three per instruction: one bubble every other instruction).
TEST(ReadPorts, TwoPortsRemoveTheFfmaBubbles) {
  EXPECT_EQ(bubbles({{2, 4, 6}, {8, 10, 12}, {14, 16, 18}}, 2), (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(bubbles({{2, 4, 3}, {8, 10, 5}, {14, 16, 7}}, 2), (std::vector<unsigned>{0, 0}));
}

TEST(ReadPorts, MoreReadsThanTheWindowHasPortCyclesWidenIt) {
  ReadPorts rp;
  EXPECT_EQ(rp.length(3, {0, 0, 0, 0, 1}), 4u);
  std::vector<ReadPorts::Cycle> at;
  EXPECT_TRUE(rp.reserve(2, 4, {0, 0, 0, 0, 1}, at));
  EXPECT_EQ(at, (std::vector<ReadPorts::Cycle>{5, 4, 3, 2, 5}));
  EXPECT_FALSE(rp.reserve(3, 3, {0}, at)); // bank 0 taken for 2..5
  EXPECT_TRUE(rp.reserve(3, 3, {1}, at));
}
