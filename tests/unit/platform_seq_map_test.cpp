// SeqMap (platform/check/seq_map.h), the checkers' per-instruction table: direct slots and the
// overflow map for keys whose slot is taken, which ordinary runs rarely reach.
#include <map>

#include <gtest/gtest.h>

#include "gpurf/platform/check/seq_map.h"

using namespace gpurf;

TEST(PlatformSeqMap, MatchesAMapThroughSlotCollisions) {
  SeqMap<int> m(2); // 4 slots: keys 1, 5, 9 share one
  std::map<uint64_t, int> ref;
  auto check = [&] {
    EXPECT_EQ(m.size(), ref.size());
    for (uint64_t k = 0; k < 40; ++k) {
      const int* v = m.find(k);
      const auto it = ref.find(k);
      ASSERT_EQ(v != nullptr, it != ref.end()) << "key " << k;
      if (v) {
        EXPECT_EQ(*v, it->second) << "key " << k;
      }
    }
  };
  for (uint64_t k : {1, 5, 9, 2, 13, 6}) m[k] = ref[k] = int(k * 10);
  check();
  m.erase(1); // the slot's owner leaves; 5, 9, 13 stay reachable in the overflow
  ref.erase(1);
  check();
  m[17] = ref[17] = 170; // takes the freed slot
  m[5] = ref[5] = 55;    // an overflow key is updated in place, not added twice
  check();
  for (uint64_t k : {5, 9, 13, 17, 2, 6, 7}) { // 7 was never there
    m.erase(k);
    ref.erase(k);
  }
  check();
  EXPECT_EQ(m[3], 0); // a new key starts default-constructed
}
