// Runs one of the committed PTX kernels of this folder (in, out[, int]) on a real GPU through
// the driver API (JIT from the same PTX gpurf runs) and compares `out` with the expected file
// gen_expected.py wrote, element by element: evidence that the host reference (and so gpurf,
// which cli.frontend_kernels holds to it) agrees with the hardware.
//   nvcc -o hw_check hw_check.cu -lcuda
//   ./hw_check PTX KERNEL GRID BLOCK COUNT IN.bin EXPECTED.bin [INT_PARAM]
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

static void ck(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  std::fprintf(stderr, "%s: %s\n", what, s ? s : "?");
  std::exit(1);
}

static std::vector<char> slurp(const char* path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) std::fprintf(stderr, "cannot read %s\n", path), std::exit(1);
  return {std::istreambuf_iterator<char>(f), {}};
}

int main(int argc, char** argv) {
  if (argc < 8) return std::fprintf(stderr, "usage: see the header\n"), 2;
  const unsigned grid = unsigned(std::atoi(argv[3])), block = unsigned(std::atoi(argv[4]));
  const size_t n = size_t(std::atol(argv[5]));
  std::vector<char> ptx = slurp(argv[1]);
  ptx.push_back(0);
  const std::vector<char> in = slurp(argv[6]), want = slurp(argv[7]);
  if (in.size() != n * 4 || want.size() != n * 4) return std::fprintf(stderr, "sizes\n"), 1;
  ck(cuInit(0), "cuInit");
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  ck(cuDeviceGet(&dev, 0), "cuDeviceGet");
  ck(cuCtxCreate(&ctx, nullptr, 0, dev), "cuCtxCreate");
  ck(cuModuleLoadData(&mod, ptx.data()), "cuModuleLoadData");
  ck(cuModuleGetFunction(&fn, mod, argv[2]), "cuModuleGetFunction");
  CUdeviceptr din, dout;
  ck(cuMemAlloc(&din, n * 4), "cuMemAlloc");
  ck(cuMemAlloc(&dout, n * 4), "cuMemAlloc");
  ck(cuMemcpyHtoD(din, in.data(), n * 4), "cuMemcpyHtoD");
  ck(cuMemsetD32(dout, 0, n), "cuMemsetD32");
  int extra = argc > 8 ? std::atoi(argv[8]) : 0;
  void* args[] = {&din, &dout, &extra};
  ck(cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
  ck(cuCtxSynchronize(), "cuCtxSynchronize");
  std::vector<int> got(n);
  ck(cuMemcpyDtoH(got.data(), dout, n * 4), "cuMemcpyDtoH");
  const int* exp = reinterpret_cast<const int*>(want.data());
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != exp[i] && bad++ < 5)
      std::printf("%s out[%zu]: GPU %d, expected %d\n", argv[2], i, got[i], exp[i]);
  std::printf("%s: %zu of %zu elements equal the expected file\n", argv[2], n - bad, n);
  return bad ? 1 : 0;
}
