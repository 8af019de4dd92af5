// UnitPool: N pipelined units, one item each per cycle; later items wait for a free cycle.
#include <gtest/gtest.h>

#include "gpurf/policies/unit_pool.h"

using namespace gpurf;

TEST(UnitPool, BooksTheFirstCycleWithAFreeUnit) {
  UnitPool p(2);
  EXPECT_EQ(p.take(10, 10), 10u);
  EXPECT_EQ(p.take(10, 10), 10u);
  EXPECT_EQ(p.take(10, 10), 11u); // both units taken in cycle 10
  EXPECT_EQ(p.take(11, 10), 11u);
  EXPECT_EQ(p.take(11, 10), 12u);
  EXPECT_EQ(p.take(15, 10), 15u); // a later item does not wait for earlier bookings
  EXPECT_EQ(p.units(), 2u);
}

TEST(UnitPool, ForgetsCyclesBeforeNow) {
  UnitPool p(1);
  EXPECT_EQ(p.take(5, 5), 5u);
  EXPECT_EQ(p.take(5, 5), 6u);
  // At cycle 20 the old bookings are gone; cycle 20 is free.
  EXPECT_EQ(p.take(20, 20), 20u);
  EXPECT_EQ(p.take(20, 20), 21u);
}
