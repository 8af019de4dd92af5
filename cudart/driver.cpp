// The CUDA driver API libgpurf-cudart exports (docs/programs.md "The driver API"): what
// programs that load PTX at run time use (cuModuleLoadData with NVRTC's output or a .ptx file,
// cuModuleGetFunction, cuLaunchKernel) and the context, memory, stream and event calls around
// them. `gpurf exec` puts libcuda.so.1 (this library) before the system's in the path. Each
// call does what its runtime API twin does (api.cpp), on the same device: one context, one
// device, one in-order queue.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "entry.h"
#include "gpurf/platform/gpu.h"

using namespace gpurf::cudart;
using gpurf::cudart::dim3;

extern "C" {
// The runtime API calls the driver's twins forward to (api.cpp).
cudaError_t cudaDeviceGetAttribute(int* v, int attr, int d);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* fun);
cudaError_t cudaFuncSetAttribute(const void* fun, int attr, int value);
cudaError_t cudaFree(void* p);
cudaError_t cudaFreeHost(void* p);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b);
const char* cudaGetErrorName(cudaError_t e);
const char* cudaGetErrorString(cudaError_t e);
}

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;
constexpr CUresult CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_OUT_OF_MEMORY = 2,
                   CUDA_ERROR_NOT_INITIALIZED = 3, CUDA_ERROR_INVALID_DEVICE = 101,
                   CUDA_ERROR_INVALID_IMAGE = 200, CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
                   CUDA_ERROR_INVALID_PTX = 218, CUDA_ERROR_FILE_NOT_FOUND = 301,
                   CUDA_ERROR_INVALID_HANDLE = 400, CUDA_ERROR_NOT_FOUND = 500,
                   CUDA_ERROR_UNKNOWN = 999;

// The driver's codes for the runtime's errors: the same number where CUDA gives both one
// (the launch and memory-check errors 700-720, 801), else the driver's own.
CUresult cu(cudaError_t e) {
  switch (int(e)) {
  case cudaSuccess:
    return CUDA_SUCCESS;
  case cudaErrorInvalidValue:
  case cudaErrorInvalidConfiguration:
  case cudaErrorInvalidPitchValue:
  case cudaErrorInvalidMemcpyDirection:
    return CUDA_ERROR_INVALID_VALUE;
  case cudaErrorMemoryAllocation:
    return CUDA_ERROR_OUT_OF_MEMORY;
  case cudaErrorInitializationError:
    return CUDA_ERROR_NOT_INITIALIZED;
  case cudaErrorInvalidDevice:
    return CUDA_ERROR_INVALID_DEVICE;
  case cudaErrorNoKernelImageForDevice:
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  case cudaErrorInvalidPtx:
    return CUDA_ERROR_INVALID_PTX;
  case cudaErrorInvalidDeviceFunction:
  case cudaErrorInvalidResourceHandle:
  case cudaErrorInvalidDevicePointer:
    return CUDA_ERROR_INVALID_HANDLE;
  case cudaErrorSymbolNotFound:
  case cudaErrorInvalidSymbol:
    return CUDA_ERROR_NOT_FOUND;
  default:
    return int(e) >= 700 && int(e) <= 999 ? CUresult(e) : CUDA_ERROR_UNKNOWN;
  }
}

CUresult said(const char* call, CUresult r, const std::string& why) {
  if (!rt().quiet) std::fprintf(stderr, "gpurf: %s: %s\n", call, why.c_str());
  return r;
}

void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

int the_context; // the one context's handle (its address)

CUresult load(void** module, const void* image, const char* call) {
  GPURF_LOCKED;
  if (!module) return CUDA_ERROR_INVALID_VALUE;
  std::string why;
  cudaError_t e = cudaSuccess;
  Module* m = rt().load_module(image, why, e);
  if (!m) return said(call, cu(e), why);
  *module = m;
  return CUDA_SUCCESS;
}

CUresult copy(void* dst, const void* src, size_t n, int kind) {
  GPURF_LOCKED;
  return cu(ret(rt().memcpy(dst, src, n, kind)));
}

// cuMemsetD16/D32: the pattern written element by element through one host buffer.
template <class T> CUresult fill(CUdeviceptr dst, T value, size_t n) {
  GPURF_LOCKED;
  std::vector<T> v(n, value);
  return cu(ret(rt().memcpy(ptr(dst), v.data(), n * sizeof(T), cudaMemcpyHostToDevice)));
}

CUresult launch(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                unsigned bz, unsigned shared, void* stream, void** params, void** extra,
                bool cooperative) {
  GPURF_LOCKED;
  std::vector<void*> args;
  if (extra && !params) { // {CU_LAUNCH_PARAM_BUFFER_POINTER, p, _SIZE, &n, CU_LAUNCH_PARAM_END}
    void* buffer = nullptr;
    for (size_t i = 0; extra[i] != nullptr; i += 2)
      if (extra[i] == reinterpret_cast<void*>(1)) buffer = extra[i + 1];
    KernelRec* k = rt().kernel(f);
    if (!buffer || !k) return CUDA_ERROR_INVALID_VALUE;
    if (!k->found) return cu(ret(rt().not_runnable(f, "cuLaunchKernel")));
    for (const auto& p : rt().gpu().kernel(k->id)->launch().entry().params)
      args.push_back(static_cast<char*>(buffer) + p.offset);
    params = args.data();
  }
  return cu(ret(rt().launch(f, dim3{gx, gy, gz}, dim3{bx, by, bz}, params, shared,
                            static_cast<cudaStream_t>(stream), cooperative)));
}

} // namespace

extern "C" {

// ------------------------------------------------------------------------------ device, context

CUresult cuInit(unsigned) {
  GPURF_LOCKED;
  rt().driver_api = true;
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* n) {
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(int* d, int ordinal) {
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, int d) {
  GPURF_LOCKED;
  rt().driver_api = true;
  cudaDeviceProp p;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (cudaError_t e = rt().properties(p)) return cu(e);
  std::snprintf(name, size_t(len), "%s", p.name);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* v, int attr, int d) {
  GPURF_LOCKED;
  rt().driver_api = true;
  return cu(cudaDeviceGetAttribute(v, attr, d)); // CUdevice_attribute numbers cudaDeviceAttr's
}
CUresult cuDeviceComputeCapability(int* major, int* minor, int d) {
  GPURF_LOCKED;
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = cuDeviceGetAttribute(major, 75, d)) return r;
  return cuDeviceGetAttribute(minor, 76, d);
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int d) {
  GPURF_LOCKED;
  rt().driver_api = true;
  cudaDeviceProp p;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (cudaError_t e = rt().properties(p)) return cu(e);
  *bytes = p.totalGlobalMem;
  return CUDA_SUCCESS;
}
CUresult cuCtxCreate_v2(void** ctx, unsigned, int d) {
  GPURF_LOCKED;
  rt().driver_api = true;
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  *ctx = &the_context;
  return CUDA_SUCCESS;
}
CUresult cuCtxCreate_v4(void** ctx, void*, unsigned flags, int d) {
  return cuCtxCreate_v2(ctx, flags, d);
}
CUresult cuCtxDestroy_v2(void*) { return CUDA_SUCCESS; }
CUresult cuCtxGetCurrent(void** ctx) {
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  *ctx = &the_context;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(void*) { return CUDA_SUCCESS; }
CUresult cuCtxPushCurrent_v2(void*) { return CUDA_SUCCESS; }
CUresult cuCtxPopCurrent_v2(void** ctx) { return ctx ? cuCtxGetCurrent(ctx) : CUDA_SUCCESS; }
CUresult cuCtxGetDevice(int* d) { return cuDeviceGet(d, 0); }
CUresult cuCtxSynchronize() {
  GPURF_LOCKED;
  return cu(cudaDeviceSynchronize());
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int d) { return cuCtxCreate_v2(ctx, 0, d); }
CUresult cuDevicePrimaryCtxRelease_v2(int) { return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxReset_v2(int) { return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxSetFlags_v2(int, unsigned) { return CUDA_SUCCESS; }

// ------------------------------------------------------------------------------ modules

CUresult cuModuleLoadData(void** module, const void* image) {
  return load(module, image, "cuModuleLoadData");
}
CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned, void*, void**) {
  return load(module, image, "cuModuleLoadDataEx"); // JIT options: gpurf compiles its own way
}
CUresult cuModuleLoadFatBinary(void** module, const void* image) {
  return load(module, image, "cuModuleLoadFatBinary");
}
CUresult cuModuleLoad(void** module, const char* path) {
  GPURF_LOCKED;
  std::ifstream f(path ? path : "", std::ios::binary);
  if (!f)
    return said("cuModuleLoad", CUDA_ERROR_FILE_NOT_FOUND,
                std::string("cannot open '") + (path ? path : "(null)") + "'");
  std::ostringstream bytes;
  bytes << f.rdbuf();
  const std::string image = bytes.str(); // NUL-terminated: PTX text ends where it should
  return load(module, image.c_str(), "cuModuleLoad");
}
CUresult cuModuleUnload(void* module) { return module ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
CUresult cuModuleGetFunction(void** f, void* module, const char* name) {
  GPURF_LOCKED;
  if (!f || !module || !name) return CUDA_ERROR_INVALID_VALUE;
  const void* h = rt().module_function(static_cast<Module*>(module), name);
  if (!h)
    return said("cuModuleGetFunction", CUDA_ERROR_NOT_FOUND,
                std::string("no .entry '") + name + "' in " + static_cast<Module*>(module)->name);
  *f = const_cast<void*>(h);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, void* module, const char* name) {
  GPURF_LOCKED;
  if (!module || !name) return CUDA_ERROR_INVALID_VALUE;
  const auto& globals = static_cast<Module*>(module)->globals;
  const auto it = globals.find(name);
  if (it == globals.end())
    return said("cuModuleGetGlobal", CUDA_ERROR_NOT_FOUND,
                std::string("no .global or .const variable '") + name + "' in " +
                    static_cast<Module*>(module)->name);
  if (dptr) *dptr = it->second.first;
  if (bytes) *bytes = it->second.second;
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------------------ functions, launch

CUresult cuFuncGetAttribute(int* v, int attr, void* f) {
  GPURF_LOCKED;
  cudaFuncAttributes a;
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaFuncGetAttributes(&a, f)) return cu(e);
  switch (attr) { // CUfunction_attribute
  case 0:
    *v = a.maxThreadsPerBlock;
    break;
  case 1:
    *v = int(a.sharedSizeBytes);
    break;
  case 2:
    *v = int(a.constSizeBytes);
    break;
  case 3:
    *v = int(a.localSizeBytes);
    break;
  case 4:
    *v = a.numRegs;
    break;
  case 5:
    *v = a.ptxVersion;
    break;
  case 6:
    *v = a.binaryVersion;
    break;
  case 8:
    *v = a.maxDynamicSharedSizeBytes;
    break;
  default:
    return said("cuFuncGetAttribute", CUDA_ERROR_INVALID_VALUE,
                "attribute " + std::to_string(attr) + " (supported: 0-6, 8)");
  }
  return CUDA_SUCCESS;
}
void* gpurf_driver_entry(const char* symbol, int* status); // api.cpp
// cuGetProcAddress (CUDA 11) and _v2 (12+, a status): this library's function of that name.
CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int, unsigned long long, int* status) {
  if (!symbol || !fn) return CUDA_ERROR_INVALID_VALUE;
  *fn = gpurf_driver_entry(symbol, status);
  return *fn || status ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
CUresult cuGetProcAddress(const char* symbol, void** fn, int version, unsigned long long flags) {
  return cuGetProcAddress_v2(symbol, fn, version, flags, nullptr);
}
CUresult cuFuncSetAttribute(void* f, int attr, int value) {
  GPURF_LOCKED;
  return cu(cudaFuncSetAttribute(f, attr, value));
}
CUresult cuFuncSetCacheConfig(void*, int) { return CUDA_SUCCESS; }
CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
  return launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra, false);
}
CUresult cuLaunchCooperativeKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, void* stream,
                                   void** params) {
  return launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, nullptr, true);
}

// ------------------------------------------------------------------------------ memory

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  GPURF_LOCKED;
  rt().driver_api = true;
  return cu(ret(rt().malloc(reinterpret_cast<void**>(p), bytes, AllocKind::Device)));
}
CUresult cuMemAllocManaged(CUdeviceptr* p, size_t bytes, unsigned) {
  GPURF_LOCKED;
  rt().driver_api = true;
  return cu(ret(rt().malloc(reinterpret_cast<void**>(p), bytes, AllocKind::Managed)));
}
CUresult cuMemAllocHost_v2(void** p, size_t bytes) {
  GPURF_LOCKED;
  rt().driver_api = true;
  return cu(ret(rt().malloc(p, bytes, AllocKind::Host)));
}
CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned) { return cuMemAllocHost_v2(p, bytes); }
CUresult cuMemFree_v2(CUdeviceptr p) {
  GPURF_LOCKED;
  return cu(cudaFree(ptr(p)));
}
CUresult cuMemFreeHost(void* p) {
  GPURF_LOCKED;
  return cu(cudaFreeHost(p));
}
CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  GPURF_LOCKED;
  rt().driver_api = true;
  return cu(cudaMemGetInfo(free_bytes, total));
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
  return copy(ptr(dst), src, n, cudaMemcpyHostToDevice);
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToHost);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice);
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDefault);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, void*) {
  return cuMemcpyHtoD_v2(dst, src, n);
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, void*) {
  return cuMemcpyDtoH_v2(dst, src, n);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void*) {
  return cuMemcpyDtoD_v2(dst, src, n);
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void*) {
  return cuMemcpy(dst, src, n);
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
  GPURF_LOCKED;
  return cu(ret(rt().memset(ptr(dst), v, n)));
}
CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short v, size_t n) { return fill(dst, v, n); }
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, size_t n) { return fill(dst, v, n); }
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void*) {
  return cuMemsetD8_v2(dst, v, n);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, void*) {
  return cuMemsetD32_v2(dst, v, n);
}

// ------------------------------------------------------------------------------ streams, events

CUresult cuStreamCreate(void** s, unsigned) {
  GPURF_LOCKED;
  return cu(cudaStreamCreate(reinterpret_cast<cudaStream_t*>(s)));
}
CUresult cuStreamDestroy_v2(void* s) {
  GPURF_LOCKED;
  return cu(cudaStreamDestroy(static_cast<cudaStream_t>(s)));
}
CUresult cuStreamSynchronize(void* s) {
  GPURF_LOCKED;
  return cu(cudaStreamSynchronize(static_cast<cudaStream_t>(s)));
}
CUresult cuEventCreate(void** e, unsigned flags) { // CU_EVENT_DISABLE_TIMING is cudart's 0x02
  GPURF_LOCKED;
  return cu(cudaEventCreateWithFlags(reinterpret_cast<cudaEvent_t*>(e), flags));
}
CUresult cuEventDestroy_v2(void* e) {
  GPURF_LOCKED;
  return cu(cudaEventDestroy(static_cast<cudaEvent_t>(e)));
}
CUresult cuEventRecord(void* e, void* s) {
  GPURF_LOCKED;
  return cu(cudaEventRecord(static_cast<cudaEvent_t>(e), static_cast<cudaStream_t>(s)));
}
CUresult cuEventSynchronize(void* e) {
  GPURF_LOCKED;
  return cu(cudaEventSynchronize(static_cast<cudaEvent_t>(e)));
}
CUresult cuEventElapsedTime_v2(float* ms, void* a, void* b) {
  GPURF_LOCKED;
  return cu(cudaEventElapsedTime(ms, static_cast<cudaEvent_t>(a), static_cast<cudaEvent_t>(b)));
}
CUresult cuEventElapsedTime(float* ms, void* a, void* b) { return cuEventElapsedTime_v2(ms, a, b); }

// CUDA's private tables (NVRTC asks for them when it finds a libcuda.so.1): none here; NVRTC
// then compiles as it does on a machine without a driver. CUDA's precompiled libraries (cuBLAS,
// cuFFT, cuRAND's host API, ...) link a static runtime of their own that cannot start without
// them, and then fail with a status of their own and no word why: the first such caller is
// named (found from the return address; NVRTC stays quiet).
CUresult cuGetExportTable(const void** table, const void*) {
  if (table) *table = nullptr;
  Dl_info info{};
  const char* lib =
      dladdr(__builtin_return_address(0), &info) && info.dli_fname ? info.dli_fname : "";
  static bool said = false;
  if (!std::strstr(lib, "nvrtc") && !said) {
    said = true;
    std::fprintf(stderr,
                 "gpurf: %s asked for CUDA's private driver interface (cuGetExportTable), which "
                 "gpurf does not have: CUDA's precompiled libraries (cuBLAS, cuFFT, cuRAND's host "
                 "API, cuSPARSE, ...) carry a runtime of their own and cannot run here, so their "
                 "calls fail; kernels of the program's own (cuRAND's device API, Thrust, CUB) run "
                 "(docs/programs.md)\n",
                 *lib ? lib : "a library");
  }
  return 801; // CUDA_ERROR_NOT_SUPPORTED
}

// ------------------------------------------------------------------------------ errors

CUresult cuGetErrorName(CUresult r, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  static const std::pair<CUresult, const char*> names[] = {
      {CUDA_SUCCESS, "CUDA_SUCCESS"},
      {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
      {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
      {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
      {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
      {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
      {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
      {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
      {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND"},
      {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
      {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
      {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
      {710, "CUDA_ERROR_ASSERT"},
      {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
      {719, "CUDA_ERROR_LAUNCH_FAILED"},
      {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
      {801, "CUDA_ERROR_NOT_SUPPORTED"},
      {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
  };
  for (const auto& [code, name] : names)
    if (code == r) return *s = name, CUDA_SUCCESS;
  *s = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
// The description, not the name (was the name): each code above has the runtime's number and
// text for the same error ("invalid argument", "named symbol not found", ...).
CUresult cuGetErrorString(CUresult r, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  const char* name = nullptr;
  if (cuGetErrorName(r, &name)) return *s = nullptr, CUDA_ERROR_INVALID_VALUE;
  *s = cudaGetErrorString(cudaError_t(r));
  return CUDA_SUCCESS;
}

} // extern "C"
