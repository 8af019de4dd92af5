// Dynamic parallelism (ptx_device_launch_test.cpp): nvcc -rdc=true -ptx -arch=compute_75.
// ptx_device_launch.ptx ends with a body of __cudaCDP2GetParameterBufferV2 as libcudadevrt
// gives it (calling a syscall that has no body): the engine's builtin takes precedence.
__global__ void child(int* o, int base) { o[base + threadIdx.x] = base + threadIdx.x; }
__global__ void parent(int* o) {
  if (threadIdx.x == 0) child<<<1, 32>>>(o, blockIdx.x * 32);
}
__global__ void three(int* o, int* err) {
  for (int i = 0; i < 3; ++i) {
    child<<<1, 32, 0, cudaStreamTailLaunch>>>(o, i * 32);
    err[i] = cudaGetLastError();
  }
}
