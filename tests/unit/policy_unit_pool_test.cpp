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

// An instruction's n items pass together: the first run of ceil(n / units) consecutive cycles
// with room (all units in each but the last), booked only when asked.
TEST(UnitPool, TakesAnInstructionsItemsTogether) {
  UnitPool p(4);
  EXPECT_EQ(p.take(10, 10), 10u);             // 3 units left in cycle 10
  EXPECT_EQ(p.take_n(3, 10, 10, false), 10u); // asking books nothing
  EXPECT_EQ(p.take_n(3, 10, 10, true), 10u);
  EXPECT_EQ(p.take_n(2, 10, 10, true), 11u); // cycle 10 is full: both wait, together
  EXPECT_EQ(p.take_n(3, 11, 10, true), 12u); // 2 left in 11: not split over 11 and 12
  // 6 items on 4 units: 4 in one cycle and 2 in the next; cycle 12 (1 left) cannot start it.
  EXPECT_EQ(p.take_n(6, 12, 10, true), 14u);
  EXPECT_EQ(p.take(13, 10), 14u); // 13 took 4, 14 took 2
  EXPECT_EQ(p.take(13, 10), 14u);
  EXPECT_EQ(p.take(13, 10), 15u);
}
