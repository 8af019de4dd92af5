// Device printf: integers, a float, a string and a long; the output appears on the program's
// stdout when the kernel ends (tests/programs/run.sh checks the lines).
#include <cuda_runtime.h>
#include "check.h"

__global__ void hello(float f, long long big) {
  if (threadIdx.x % 16 == 0)
    printf("block %d thread %d: f=%.2f big=%lld %s\n", blockIdx.x, threadIdx.x, f, big, "ok");
}

int main() {
  hello<<<2, 32>>>(1.5f, 1234567890123ll);
  CHECK(cudaDeviceSynchronize());
  std::printf("after the kernel\n");
  return finish(0);
}
