// Runs the committed stress PTX (workloads/stress/ptx/*.ptx) on a real GPU through the driver API
// (JIT from the same PTX gpurf runs), with the inputs gpurf's loader builds from the launch files
// (splitmix64 `uniform` inits, mirrored here), and writes every output buffer's final bytes to
// OUTDIR/<kernel>.<buffer>.bin (raw little-endian elements, as `gpurf run --dump-outputs` writes
// DIR/<buffer>.bin), for workloads/stress/hw/compare to set beside gpurf's.
//   nvcc -o run_ptx run_ptx.cu -lcuda && ./run_ptx PTXDIR OUTDIR
// The launch shapes, vars and parameters below repeat workloads/stress/*.yaml at scale 1.
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    CUresult r_ = (x);                                                                             \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      const char* s_ = nullptr;                                                                    \
      cuGetErrorString(r_, &s_);                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");              \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static std::vector<float> uniform_f32(size_t n, double mn, double mx, uint64_t seed) {
  std::vector<float> v(n);
  for (auto& e : v) e = float(mn + (mx - mn) * (double(splitmix64(seed) >> 11) * 0x1.0p-53));
  return v;
}
template <class T> std::vector<T> uniform_int(size_t n, int64_t mn, int64_t mx, uint64_t seed) {
  std::vector<T> v(n);
  const uint64_t span = uint64_t(mx) - uint64_t(mn) + 1;
  for (auto& e : v) e = T(uint64_t(mn) + splitmix64(seed) % span);
  return v;
}

struct Dev {
  CUdeviceptr p = 0;
  size_t bytes = 0;
};
template <class T> Dev upload(const std::vector<T>& h) {
  Dev d;
  d.bytes = h.size() * sizeof(T);
  CK(cuMemAlloc(&d.p, d.bytes));
  CK(cuMemcpyHtoD(d.p, h.data(), d.bytes));
  return d;
}
static Dev zeros(size_t bytes) {
  Dev d;
  d.bytes = bytes;
  CK(cuMemAlloc(&d.p, bytes));
  CK(cuMemsetD8(d.p, 0, bytes));
  return d;
}
static std::string g_out;
static void save(const char* kernel, const char* buffer, const Dev& d) {
  std::vector<uint8_t> h(d.bytes);
  CK(cuMemcpyDtoH(h.data(), d.p, d.bytes));
  const std::string path = g_out + "/" + kernel + "." + buffer + ".bin";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(h.data(), 1, h.size(), f) != h.size()) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::fclose(f);
  std::printf("wrote %s (%zu bytes)\n", path.c_str(), h.size());
}
static CUfunction load(const std::string& ptxdir, const char* name) {
  CUmodule m;
  CK(cuModuleLoad(&m, (ptxdir + "/" + name + ".ptx").c_str()));
  CUfunction f;
  CK(cuModuleGetFunction(&f, m, name));
  return f;
}
static void launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   void** args) {
  CK(cuLaunchKernel(f, gx, gy, gz, bx, by, 1, 0, nullptr, args, nullptr));
  CK(cuCtxSynchronize());
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: run_ptx PTXDIR OUTDIR\n");
    return 2;
  }
  const std::string ptx = argv[1];
  g_out = argv[2];
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuCtxCreate(&ctx, nullptr, 0, dev));
  char name[256];
  CK(cuDeviceGetName(name, sizeof name, dev));
  std::printf("device: %s\n", name);

  { // stencil3d.yaml
    int nx = 64, ny = 32, nz = 64;
    Dev in = upload(uniform_f32(size_t(nx + 8) * (ny + 8) * (nz + 8), -1, 1, 31));
    Dev out = zeros(size_t(nx) * ny * nz * 4);
    void* a[] = {&in.p, &out.p, &nx, &ny, &nz};
    launch(load(ptx, "stencil3d"), (nx + 31) / 32, (ny + 3) / 4, nz / 32, 32, 4, a);
    save("stencil3d", "out", out);
  }
  { // stencil2d_unrolled.yaml
    int nx = 512, ny = 512;
    Dev in = upload(uniform_f32(size_t(nx + 4) * (ny + 4), -1, 1, 32));
    Dev out = zeros(size_t(nx) * ny * 4);
    void* a[] = {&in.p, &out.p, &nx, &ny};
    launch(load(ptx, "stencil2d_unrolled"), (nx + 63) / 64, (ny + 63) / 64, 1, 32, 8, a);
    save("stencil2d_unrolled", "out", out);
  }
  { // calls.yaml
    int n = 4096;
    Dev x = upload(uniform_f32(n, 0, 1, 33));
    Dev key = upload(uniform_int<int32_t>(n, 0, 1048575, 34));
    Dev out = zeros(size_t(n) * 8), count = zeros(size_t(n) * 4);
    void* a[] = {&x.p, &key.p, &out.p, &count.p, &n};
    launch(load(ptx, "calls"), (n + 127) / 128, 1, 1, 128, 1, a);
    save("calls", "out", out);
    save("calls", "count", count);
  }
  { // gemm_rt.yaml
    int m = 256, n = 256, k = 128;
    float alpha = 1.5f, beta = 0.5f;
    Dev A = upload(uniform_f32(size_t(m) * k, -1, 1, 35));
    Dev B = upload(uniform_f32(size_t(k) * n, -1, 1, 36));
    Dev C = upload(uniform_f32(size_t(m) * n, -1, 1, 37));
    void* a[] = {&A.p, &B.p, &C.p, &m, &n, &k, &alpha, &beta};
    launch(load(ptx, "gemm_rt"), n / 128, m / 128, 1, 16, 16, a);
    save("gemm_rt", "C", C);
  }
  { // apps/multi_launch.yaml: gens launches, a and b swapped after each
    int n = 16384, gens = 6;
    Dev a = upload(uniform_int<uint32_t>(n, 0, 4294967295ll, 38)), b = zeros(size_t(n) * 4);
    Dev counts = zeros(size_t(3 * gens) * 4);
    CUfunction f = load(ptx, "multi_launch");
    for (int gen = 0; gen < gens; ++gen) {
      void* args[] = {&a.p, &b.p, &counts.p, &n, &gen};
      launch(f, (n + 63) / 64, 1, 1, 64, 1, args);
      std::swap(a, b);
    }
    save("multi_launch_app", "a", a);
    save("multi_launch_app", "counts", counts);
  }
  return 0;
}
