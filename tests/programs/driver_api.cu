// The CUDA driver API with run-time compilation, as JIT-compiling programs use it: NVRTC
// compiles a kernel from source to PTX, cuModuleLoadDataEx loads it, cuModuleGetFunction and
// cuModuleGetGlobal find its kernel and variables, cuLaunchKernel runs it (its arguments as
// kernelParams, and as one packed buffer through `extra`); also a PTX module given as text, a
// pattern fill (cuMemsetD32), events, and the error each bad call must get.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstring>
#include <vector>

static int bad = 0;
#define CU(call)                                                                                   \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      const char* n_ = nullptr;                                                                    \
      cuGetErrorName(r_, &n_);                                                                     \
      std::printf("FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, n_ ? n_ : "?");             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::printf("mismatch: " __VA_ARGS__);                                                       \
      std::printf("\n");                                                                           \
      ++bad;                                                                                       \
    }                                                                                              \
  } while (0)

static const char* kSource = R"(
__constant__ float scale[4];
__device__ unsigned calls;
extern "C" __global__ void saxpy(const float* x, float* y, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] * scale[i % 4] + y[i];
  if (i == 0) atomicAdd(&calls, 1u);
}
)";

// A hand-written module: out[i] = in[i] * in[i] + k.
static const char* kPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry square_plus(.param .u64 in, .param .u64 out, .param .u32 k)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [k];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r3, [%rd4];
  mad.lo.s32 %r4, %r3, %r3, %r1;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r4;
  ret;
}
)";

int main() {
  CU(cuInit(0));
  int count = 0, major = 0, minor = 0;
  CUdevice dev;
  CU(cuDeviceGetCount(&count));
  CU(cuDeviceGet(&dev, 0));
  char name[128];
  CU(cuDeviceGetName(name, sizeof name, dev));
  CU(cuDeviceComputeCapability(&major, &minor, dev));
  std::printf("device %s, compute %d.%d, %d device(s)\n", name, major, minor, count);
  CUcontext ctx;
  CU(cuCtxCreate(&ctx, nullptr, 0, dev));

  // NVRTC: source to PTX.
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, kSource, "saxpy.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    std::printf("FAIL: nvrtcCreateProgram\n");
    return 1;
  }
  const char* opts[] = {"--gpu-architecture=compute_75"};
  if (nvrtcCompileProgram(prog, 1, opts) != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::vector<char> log(n + 1);
    nvrtcGetProgramLog(prog, log.data());
    std::printf("FAIL: nvrtcCompileProgram: %s\n", log.data());
    return 1;
  }
  size_t ptx_bytes = 0;
  nvrtcGetPTXSize(prog, &ptx_bytes);
  std::vector<char> ptx(ptx_bytes);
  nvrtcGetPTX(prog, ptx.data());
  nvrtcDestroyProgram(&prog);

  CUmodule mod;
  CU(cuModuleLoadDataEx(&mod, ptx.data(), 0, nullptr, nullptr));
  CUfunction saxpy;
  CU(cuModuleGetFunction(&saxpy, mod, "saxpy"));
  CUdeviceptr scale, calls;
  size_t scale_bytes = 0, calls_bytes = 0;
  CU(cuModuleGetGlobal(&scale, &scale_bytes, mod, "scale"));
  CU(cuModuleGetGlobal(&calls, &calls_bytes, mod, "calls"));
  EXPECT(scale_bytes == 16 && calls_bytes == 4, "global sizes %zu %zu", scale_bytes, calls_bytes);
  const float s[4] = {1.f, 2.f, 0.5f, -1.f};
  CU(cuMemcpyHtoD(scale, s, sizeof s));

  const int n = 1000;
  std::vector<float> hx(n), hy(n), got(n);
  for (int i = 0; i < n; ++i) hx[i] = 0.25f * (i % 13), hy[i] = float(i % 7);
  CUdeviceptr x, y;
  CU(cuMemAlloc(&x, n * sizeof(float)));
  CU(cuMemAlloc(&y, n * sizeof(float)));
  CU(cuMemcpyHtoD(x, hx.data(), n * sizeof(float)));
  CU(cuMemcpyHtoD(y, hy.data(), n * sizeof(float)));
  CUevent start, stop;
  CU(cuEventCreate(&start, 0));
  CU(cuEventCreate(&stop, 0));
  CU(cuEventRecord(start, nullptr));
  int nn = n;
  float a = 3.f;
  void* params[] = {&x, &y, &nn, &a};
  CU(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  // Again, the arguments packed in the kernel's parameter layout (8, 8, 4, 4 bytes).
  struct {
    CUdeviceptr x, y;
    int n;
    float a;
  } packed = {x, y, n, a};
  size_t packed_bytes = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &packed_bytes, CU_LAUNCH_PARAM_END};
  CU(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  CU(cuEventRecord(stop, nullptr));
  CU(cuEventSynchronize(stop));
  float ms = 0;
  CU(cuEventElapsedTime(&ms, start, stop));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(got.data(), y, n * sizeof(float)));
  unsigned hcalls = 0;
  CU(cuMemcpyDtoH(&hcalls, calls, sizeof hcalls));
  for (int i = 0; i < n; ++i) {
    const float want = hy[i] + 2 * (a * hx[i] * s[i % 4]);
    EXPECT(got[i] == want, "y[%d] = %f, want %f", i, got[i], want);
  }
  EXPECT(hcalls == 2, "calls %u, want 2", hcalls);
  EXPECT(ms > 0, "elapsed %f ms", ms);

  // A module from PTX text; cuMemsetD32's pattern.
  CUmodule mod2;
  CU(cuModuleLoadData(&mod2, kPtx));
  CUfunction sq;
  CU(cuModuleGetFunction(&sq, mod2, "square_plus"));
  CUdeviceptr in, out;
  CU(cuMemAlloc(&in, 64 * 4));
  CU(cuMemAlloc(&out, 64 * 4));
  CU(cuMemsetD32(in, 7u, 64));
  unsigned k = 5;
  void* p2[] = {&in, &out, &k};
  CU(cuLaunchKernel(sq, 1, 1, 1, 64, 1, 1, 0, nullptr, p2, nullptr));
  unsigned hout[64];
  CU(cuMemcpyDtoH(hout, out, sizeof hout));
  for (int i = 0; i < 64; ++i) EXPECT(hout[i] == 54u, "out[%d] = %u, want 54", i, hout[i]);

  // Errors: a missing kernel, a missing variable, an image that is no PTX.
  CUfunction none;
  EXPECT(cuModuleGetFunction(&none, mod2, "no_such_kernel") == CUDA_ERROR_NOT_FOUND,
         "a missing kernel was found");
  CUdeviceptr nv;
  EXPECT(cuModuleGetGlobal(&nv, nullptr, mod2, "no_such_var") == CUDA_ERROR_NOT_FOUND,
         "a missing variable was found");
  CUmodule broken;
  EXPECT(cuModuleLoadData(&broken, ".version 7.0\n.target sm_75\n.address_size 64\n"
                                   ".visible .entry k() { frobnicate.u32 %r1; }") ==
             CUDA_ERROR_INVALID_PTX,
         "a module of an unknown instruction loaded");

  CU(cuMemFree(x));
  CU(cuMemFree(y));
  CU(cuMemFree(in));
  CU(cuMemFree(out));
  CU(cuModuleUnload(mod));
  CU(cuModuleUnload(mod2));
  CU(cuCtxDestroy(ctx));
  // An error's description, not its name (gpurf gave the name).
  const char* text = nullptr;
  CU(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text));
  EXPECT(text && !std::strcmp(text, "invalid argument"),
         "cuGetErrorString(CUDA_ERROR_INVALID_VALUE): %s", text ? text : "null");
  std::printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
