// The device heap of in-kernel malloc/free (ptx/device_heap.h): first fit, 16-byte blocks,
// NULL when no gap is large enough, a freed gap reused, free of anything else refused.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/ptx/device_heap.h"

using gpurf::ptx::DeviceHeap;

TEST(PtxDeviceHeap, FirstFitAlignedBlocksAndNullWhenFull) {
  DeviceHeap h(0x1000, 64);
  EXPECT_EQ(h.allocate(0), 0u);
  const uint64_t a = h.allocate(1), b = h.allocate(17), c = h.allocate(16);
  EXPECT_EQ(a, 0x1000u);
  EXPECT_EQ(b, 0x1010u);        // 1 byte takes 16
  EXPECT_EQ(c, 0x1030u);        // 17 bytes take 32
  EXPECT_EQ(h.allocate(1), 0u); // full
  EXPECT_TRUE(h.release(b));
  EXPECT_EQ(h.allocate(32), 0x1010u); // the freed gap, first fit
  EXPECT_FALSE(h.release(b + 16));    // no block starts there
  EXPECT_TRUE(h.release(a));
  EXPECT_FALSE(h.release(a)); // freed twice
  EXPECT_TRUE(h.release(0));  // free(NULL)
  EXPECT_EQ(h.allocate(100), 0u);
  EXPECT_TRUE(DeviceHeap().empty());
}
