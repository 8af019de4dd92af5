// Malekeh's reuse-distance hints (modules/frontend/reuse_profile.h): distances in a warp's
// dynamic instructions to the next read, near below RTHLD, majority per static operand.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/reuse_profile.h"

using namespace gpurf;

namespace {

InstInfo inst(uint32_t pc, std::vector<uint16_t> dst, std::vector<uint16_t> src) {
  InstInfo i;
  i.pc = pc;
  i.n_dst = uint8_t(dst.size());
  i.n_src = uint8_t(src.size());
  for (size_t k = 0; k < dst.size(); ++k) i.dst_reg[k] = dst[k];
  for (size_t k = 0; k < src.size(); ++k) i.src_reg[k] = src[k];
  return i;
}

// pc0: r1 = .; pc1: r2 = r1; pc2..pc13: r9 = r9 (12 fillers); pc14: r3 = r1 + r2;
// pc15: r5 = .; pc16: r5 = . (overwrites before a read); pc17: r6 = r5 + r5.
std::vector<InstInfo> program() {
  std::vector<InstInfo> p{inst(0, {1}, {}), inst(1, {2}, {1})};
  for (uint32_t pc = 2; pc < 14; ++pc) p.push_back(inst(pc, {9}, {9}));
  p.push_back(inst(14, {3}, {1, 2}));
  p.push_back(inst(15, {5}, {}));
  p.push_back(inst(16, {5}, {}));
  p.push_back(inst(17, {6}, {5, 5}));
  return p;
}

} // namespace

TEST(CompilerReuseProfile, DistancesToTheNextReadAgainstRthld) {
  const std::vector<InstInfo> p = program();
  ReuseProfiler prof(p.size(), 12);
  prof.start_warp();
  for (const InstInfo& i : p) prof.step(i);
  prof.end_warp();
  const auto& c = prof.counts();
  EXPECT_EQ(c[0].dst_near[0], 1u); // r1 read by the next instruction: distance 1
  EXPECT_EQ(c[1].src_far[0], 1u);  // r1 read again 13 instructions later: not below 12
  EXPECT_EQ(c[1].dst_far[0], 1u);  // r2 read 13 later
  // A filler reads r9 and overwrites it: the value it read is dead (far); the value it
  // writes is read by the next filler (near), except the last one's.
  EXPECT_EQ(c[2].src_far[0], 1u);
  EXPECT_EQ(c[2].dst_near[0], 1u);
  EXPECT_EQ(c[13].dst_far[0], 1u);
  EXPECT_EQ(c[14].src_far[0] + c[14].src_far[1], 2u);
  EXPECT_EQ(c[15].dst_far[0], 1u); // overwritten before any read
  EXPECT_EQ(c[16].dst_near[0], 1u);
  // r5 named twice by pc17 is one read: one occurrence resolved, once.
  EXPECT_EQ(c[16].dst_near[0] + c[16].dst_far[0], 1u);
  EXPECT_EQ(c[17].src_far[0] + c[17].src_far[1] + c[17].src_near[0] + c[17].src_near[1], 2u);
}

TEST(CompilerReuseProfile, MajorityOverInstancesTiesAreFar) {
  // pc0: r1 = .; then pc1 reads r1 either at once (near) or after 20 fillers (far).
  auto run = [](ReuseProfiler& prof, unsigned gap) {
    prof.start_warp();
    prof.step(inst(0, {1}, {}));
    for (unsigned k = 0; k < gap; ++k) prof.step(inst(2, {9}, {}));
    prof.step(inst(1, {2}, {1}));
    prof.end_warp();
  };
  std::vector<InstInfo> recs = {inst(0, {1}, {}), inst(1, {2}, {1}), inst(2, {9}, {})};
  ReuseProfiler near2(3, 12);
  run(near2, 0);
  run(near2, 0);
  run(near2, 20);
  near2.apply(recs);
  EXPECT_TRUE(recs[0].dst_reuse_near[0]); // 2 near, 1 far
  ReuseProfiler tie(3, 12);
  run(tie, 0);
  run(tie, 20);
  tie.apply(recs);
  EXPECT_FALSE(recs[0].dst_reuse_near[0]); // 1 : 1
  // RTHLD decides: a gap of 5 is near below 12, far below 4.
  ReuseProfiler low(3, 4);
  run(low, 5);
  low.apply(recs);
  EXPECT_FALSE(recs[0].dst_reuse_near[0]);
}

TEST(CompilerReuseProfile, OracleRecordsEachInstancesOwnDistance) {
  // pc0: r1 = .; pc1 reads r1 at once (near), then after 20 fillers again at pc1 (far): the
  // majority of pc1's source says far (1 : 1 tie), the instances say near, then far.
  ReuseProfiler prof(4, 12);
  ReuseProfiler::InstanceBits bits;
  prof.start_warp(&bits);
  prof.step(inst(0, {1}, {}));
  prof.step(inst(1, {2}, {1}));
  for (unsigned k = 0; k < 20; ++k) prof.step(inst(2, {9}, {}));
  prof.step(inst(1, {2}, {1}));
  prof.step(inst(3, {}, {2}));
  prof.end_warp();
  ASSERT_EQ(bits.size(), 24u);  // one record per dynamic instance
  EXPECT_EQ(bits[0], 1u << 8);  // the write of r1: read by the next instruction
  EXPECT_EQ(bits[1], 0u);       // r1 read next 21 instructions later; r2 overwritten: far
  EXPECT_EQ(bits[22], 1u << 8); // r2 read at once; its source r1 never again: far
  EXPECT_EQ(bits[23], 0u);
  for (unsigned k = 2; k < 21; ++k) EXPECT_EQ(bits[k], 0u) << k; // r9 never read
  EXPECT_EQ(bits[21], 0u);                                       // the last filler: r9 never read
  // A second warp starts a fresh record.
  ReuseProfiler::InstanceBits other;
  prof.start_warp(&other);
  prof.step(inst(3, {}, {2}));
  prof.end_warp();
  EXPECT_EQ(other.size(), 1u);
  EXPECT_EQ(bits.size(), 24u);
}
