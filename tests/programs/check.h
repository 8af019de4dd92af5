// Shared by the test programs (tests/programs/README.md): a CUDA call that fails ends the
// program with FAIL and the error's name.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

inline int finish(int bad) {
  std::printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
