// SystemC owns main(); the tests run from sc_main. ctest runs each test case in its own
// process, since SystemC allows one elaboration per process.
#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
