// The CUDA runtime API libgpurf-cudart exports (docs/programs.md, "The API"): the functions
// nvcc's generated code calls to register and launch kernels, and the ones programs call.
// Every other function of CUDA 13's libcudart is a stub (stubs.cpp) that says so and returns
// cudaErrorNotSupported.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <iterator>
#include <map>
#include <set>
#include <strings.h>

#include "entry.h"
#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/sm.h"
#include "graphs.h"

using namespace gpurf::cudart;
using gpurf::cudart::dim3;

namespace {

struct ErrorName {
  int code;
  const char *name, *text;
};
// Every code of CUDA 13's cudaError enum with the name and text its libcudart gives
// (cudaGetErrorName/String; a code outside it is "unrecognized error code" for both).
const ErrorName kErrors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {4, "cudaErrorCudartUnloading", "driver shutting down"},
    {5, "cudaErrorProfilerDisabled", "profiler disabled while using external profiling tool"},
    {6, "cudaErrorProfilerNotInitialized",
     "profiler not initialized: call cudaProfilerInitialize()"},
    {7, "cudaErrorProfilerAlreadyStarted", "profiler already started"},
    {8, "cudaErrorProfilerAlreadyStopped", "profiler already stopped"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {16, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {18, "cudaErrorInvalidTexture", "invalid texture reference"},
    {19, "cudaErrorInvalidTextureBinding", "texture is not bound to a pointer"},
    {20, "cudaErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {22, "cudaErrorAddressOfConstant", "invalid address of constant"},
    {23, "cudaErrorTextureFetchFailed", "fetch from texture failed"},
    {24, "cudaErrorTextureNotBound", "cannot fetch from a texture that is not bound"},
    {25, "cudaErrorSynchronizationError", "incorrect use of __syncthreads()"},
    {26, "cudaErrorInvalidFilterSetting", "linear filtering not supported for non-float type"},
    {27, "cudaErrorInvalidNormSetting", "read as normalized float not supported for data type"},
    {28, "cudaErrorMixedDeviceExecution",
     "device emulation mode and device execution mode cannot be mixed"},
    {31, "cudaErrorNotYetImplemented", "feature not yet implemented"},
    {32, "cudaErrorMemoryValueTooLarge", "memory size or pointer value too large to fit in 32 bit"},
    {34, "cudaErrorStubLibrary", "CUDA driver is a stub library"},
    {35, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {36, "cudaErrorCallRequiresNewerDriver",
     "API call is not supported in the installed CUDA driver"},
    {37, "cudaErrorInvalidSurface", "invalid surface reference"},
    {43, "cudaErrorDuplicateVariableName", "duplicate global variable looked up by string name"},
    {44, "cudaErrorDuplicateTextureName", "duplicate texture looked up by string name"},
    {45, "cudaErrorDuplicateSurfaceName", "duplicate surface looked up by string name"},
    {46, "cudaErrorDevicesUnavailable", "CUDA-capable device(s) is/are busy or unavailable"},
    {49, "cudaErrorIncompatibleDriverContext", "incompatible driver context"},
    {52, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {53, "cudaErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {65, "cudaErrorLaunchMaxDepthExceeded", "launch would exceed maximum depth of nested launches"},
    {66, "cudaErrorLaunchFileScopedTex",
     "launch failed because kernel uses unsupported, file-scoped textures (texture objects are "
     "supported)"},
    {67, "cudaErrorLaunchFileScopedSurf",
     "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects are "
     "supported)"},
    {68, "cudaErrorSyncDepthExceeded",
     "cudaDeviceSynchronize failed because caller's grid depth exceeds "
     "cudaLimitDevRuntimeSyncDepth"},
    {69, "cudaErrorLaunchPendingCountExceeded",
     "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {102, "cudaErrorDeviceNotLicensed", "device doesn't have valid Grid license"},
    {103, "cudaErrorSoftwareValidityNotEstablished", "integrity checks failed"},
    {127, "cudaErrorStartupFailure", "startup failure in cuda runtime"},
    {200, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {201, "cudaErrorDeviceUninitialized", "invalid device context"},
    {205, "cudaErrorMapBufferObjectFailed", "mapping of buffer object failed"},
    {206, "cudaErrorUnmapBufferObjectFailed", "unmapping of buffer object failed"},
    {207, "cudaErrorArrayIsMapped", "array is mapped"},
    {208, "cudaErrorAlreadyMapped", "resource already mapped"},
    {209, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device"},
    {210, "cudaErrorAlreadyAcquired", "resource already acquired"},
    {211, "cudaErrorNotMapped", "resource not mapped"},
    {212, "cudaErrorNotMappedAsArray", "resource not mapped as array"},
    {213, "cudaErrorNotMappedAsPointer", "resource not mapped as pointer"},
    {214, "cudaErrorECCUncorrectable", "uncorrectable ECC error encountered"},
    {215, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {216, "cudaErrorDeviceAlreadyInUse",
     "exclusive-thread device already in use by a different thread"},
    {217, "cudaErrorPeerAccessUnsupported",
     "peer access is not supported between these two devices"},
    {218, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {219, "cudaErrorInvalidGraphicsContext", "invalid OpenGL or DirectX context"},
    {220, "cudaErrorNvlinkUncorrectable",
     "uncorrectable NVLink error detected during the execution"},
    {221, "cudaErrorJitCompilerNotFound", "PTX JIT compiler library not found"},
    {222, "cudaErrorUnsupportedPtxVersion",
     "the provided PTX was compiled with an unsupported toolchain."},
    {223, "cudaErrorJitCompilationDisabled", "PTX JIT compilation was disabled"},
    {224, "cudaErrorUnsupportedExecAffinity", "the provided execution affinity is not supported"},
    {225, "cudaErrorUnsupportedDevSideSync",
     "the provided PTX contains unsupported call to cudaDeviceSynchronize"},
    {226, "cudaErrorContained",
     "Invalid access of peer GPU memory over nvlink or a hardware error"},
    {300, "cudaErrorInvalidSource", "device kernel image is invalid"},
    {301, "cudaErrorFileNotFound", "file not found"},
    {302, "cudaErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {303, "cudaErrorSharedObjectInitFailed", "shared object initialization failed"},
    {304, "cudaErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {401, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {402, "cudaErrorLossyQuery", "attempted introspection would be semantically lossy"},
    {500, "cudaErrorSymbolNotFound", "named symbol not found"},
    {600, "cudaErrorNotReady", "device not ready"},
    {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {702, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {703, "cudaErrorLaunchIncompatibleTexturing", "launch uses incompatible texturing mode"},
    {704, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {705, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {708, "cudaErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {709, "cudaErrorContextIsDestroyed", "context is destroyed"},
    {710, "cudaErrorAssert", "device-side assert triggered"},
    {711, "cudaErrorTooManyPeers", "peer mapping resources exhausted"},
    {712, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {713, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {714, "cudaErrorHardwareStackError", "hardware stack error"},
    {715, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {716, "cudaErrorMisalignedAddress", "misaligned address"},
    {717, "cudaErrorInvalidAddressSpace", "operation not supported on global/shared address space"},
    {718, "cudaErrorInvalidPc", "invalid program counter"},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {721, "cudaErrorTensorMemoryLeak", "tensor memory not completely freed"},
    {800, "cudaErrorNotPermitted", "operation not permitted"},
    {801, "cudaErrorNotSupported", "operation not supported"},
    {802, "cudaErrorSystemNotReady", "system not yet initialized"},
    {803, "cudaErrorSystemDriverMismatch",
     "system has unsupported display driver / cuda driver combination"},
    {804, "cudaErrorCompatNotSupportedOnDevice",
     "forward compatibility was attempted on non supported HW"},
    {805, "cudaErrorMpsConnectionFailed",
     "MPS client failed to connect to the MPS control daemon or the MPS server"},
    {806, "cudaErrorMpsRpcFailure",
     "the remote procedural call between the MPS server and the MPS client failed"},
    {807, "cudaErrorMpsServerNotReady",
     "MPS server is not ready to accept new MPS client requests"},
    {808, "cudaErrorMpsMaxClientsReached",
     "the hardware resources required to create MPS client have been exhausted"},
    {809, "cudaErrorMpsMaxConnectionsReached",
     "the hardware resources required to support device connections have been exhausted"},
    {810, "cudaErrorMpsClientTerminated", "the MPS client has been terminated by the server"},
    {811, "cudaErrorCdpNotSupported",
     "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support "
     "it"},
    {812, "cudaErrorCdpVersionMismatch",
     "unsupported interaction between different versions of CUDA Dynamic Parallelism"},
    {900, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {901, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {902, "cudaErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences"},
    {903, "cudaErrorStreamCaptureUnmatched",
     "capture was not ended in the same stream as it began"},
    {904, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {905, "cudaErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream"},
    {906, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {907, "cudaErrorCapturedEvent",
     "operation not permitted on an event last recorded in a capturing stream"},
    {908, "cudaErrorStreamCaptureWrongThread",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {909, "cudaErrorTimeout", "wait operation timed out"},
    {910, "cudaErrorGraphExecUpdateFailure",
     "the graph update was not performed because it included changes which violated constraints "
     "specific to instantiated graph update"},
    {911, "cudaErrorExternalDevice",
     "an async error has occured in external entity outside of CUDA"},
    {912, "cudaErrorInvalidClusterSize",
     "a kernel launch error has occurred due to cluster misconfiguration"},
    {913, "cudaErrorFunctionNotLoaded",
     "the function handle is not loaded when calling an API that requires a loaded function"},
    {914, "cudaErrorInvalidResourceType",
     "one or more resources passed in are not valid resource types for the operation"},
    {915, "cudaErrorInvalidResourceConfiguration",
     "one or more resources are insufficient or non-applicable for the operation"},
    {999, "cudaErrorUnknown", "unknown error"},
    {10000, "cudaErrorApiFailureBase", "api failure base"},
};

const ErrorName* find_error(int e) {
  for (const ErrorName& n : kErrors)
    if (n.code == e) return &n;
  return nullptr;
}

// A 2-D copy, row by row.
cudaError_t copy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                   size_t height, int kind) {
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  for (size_t r = 0; r < height; ++r)
    if (cudaError_t e = rt().memcpy(static_cast<char*>(dst) + r * dpitch,
                                    static_cast<const char*>(src) + r * spitch, width, kind))
      return e;
  return cudaSuccess;
}

cudaError_t symbol_copy(const void* symbol, size_t count, size_t offset, void* host, bool to,
                        int kind) {
  if (cudaError_t e = rt().status()) return e;
  // To a symbol: from the host, the device or either (cudaMemcpyDefault); from one: to them. The
  // copy goes by the addresses (Runtime::memcpy); a kind the other way round is refused, as CUDA
  // refuses it.
  if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault &&
      kind != (to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost))
    return cudaErrorInvalidMemcpyDirection;
  const VarRec* v = rt().var(symbol);
  if (!v || !v->address) return cudaErrorInvalidSymbol;
  if (offset + count > v->bytes) return cudaErrorInvalidValue;
  void* dev = reinterpret_cast<void*>(v->address + offset);
  return to ? rt().memcpy(dev, host, count, cudaMemcpyHostToDevice)
            : rt().memcpy(host, dev, count, cudaMemcpyDeviceToHost);
}

// Resident CTAs of `block` threads and `shared` dynamic bytes per SM for kernel `k`.
int resident_ctas(const KernelRec& k, int block, size_t shared) {
  gpurf::Gpu& g = rt().gpu();
  gpurf::PtxFrontend* f = g.kernel(k.id);
  // The registers occupancy counts, as the SM sets them at the kernel's launch (the
  // allocator's count through the platform's register mapping, or ptxas's).
  const gpurf::SmLimits l =
      g.sm(0).limits_for(f->regs_per_thread(), f->predicate_registers(), f->occupancy_registers(),
                         f->hardware_registers(), f->bound_warps());
  try {
    return int(gpurf::occupancy(l, k.name, unsigned((block + 31) / 32),
                                cta_shared(k, unsigned(block), shared), 1u << 30)
                   .ctas);
  } catch (const std::exception&) {
    return 0;
  }
}

// A texture/surface/array call's error: printed with its reason (CUDA's own runtime prints
// nothing; a program's author wants to know which argument), recorded, returned.
cudaError_t said(const char* call, cudaError_t e, const std::string& why) {
  if (e != cudaSuccess) {
    const ErrorName* n = find_error(e);
    std::fprintf(stderr, "gpurf: %s: %s (%s)\n", call, why.c_str(),
                 n ? n->name : "cudaErrorUnknown");
  }
  return ret(e);
}

// A launch into a capturing stream: recorded as a kernel node (its arguments copied now).
bool captured_launch(const char* call, const void* fun, dim3 grid, dim3 block, void** args,
                     size_t shared, cudaStream_t s, bool cooperative, cudaError_t& e) {
  return captured(s, call, e, [&](Node& n) -> cudaError_t {
    n.type = kNodeKernel;
    const cudaKernelNodeParams p{const_cast<void*>(fun), grid, block,
                                 unsigned(shared),       args, nullptr};
    return set_kernel(n, call, &p, cooperative);
  });
}
// An operation gpurf does not capture: refused, the capture invalidated.
bool not_captured(const char* call, cudaStream_t s, const char* what, cudaError_t& e) {
  return captured(s, call, e, [&](Node&) {
    return said(call, cudaErrorStreamCaptureUnsupported,
                std::string(what) + " cannot be captured by gpurf: the capture is invalidated");
  });
}
#define GPURF_CAPTURE_FORBIDS(call, legacy)                                                        \
  if (cudaError_t capture_e_ = capture_forbids(call, legacy)) return ret(capture_e_)

// The live array `h` (else the error, said).
cudaError_t find_array(const char* call, const void* h, ArrayRec*& a) {
  if (!h) return said(call, cudaErrorInvalidValue, "array handle null");
  a = rt().textures.find_array(h);
  return a ? cudaSuccess : said(call, cudaErrorInvalidResourceHandle, "not a live CUDA array");
}

// cudaMallocArray (`three_d` false) / cudaMalloc3DArray: the array's texels in a device
// allocation of their own.
cudaError_t make_array(const char* call, cudaArray_t* array, const cudaChannelFormatDesc* desc,
                       cudaExtent extent, unsigned flags, bool three_d) {
  if (!array) return said(call, cudaErrorInvalidValue, "no place for the array (null)");
  if (cudaError_t e = rt().status()) return ret(e);
  ArrayRec a;
  std::string why;
  if (cudaError_t e = TextureObjects::array_shape(desc, extent, flags, three_d, a, why))
    return said(call, e, why);
  void* p = nullptr;
  if (cudaError_t e = rt().malloc(&p, a.bytes(), AllocKind::Device, "CUDA array")) return ret(e);
  a.base = reinterpret_cast<uint64_t>(p);
  *array = rt().textures.add_array(a);
  return cudaSuccess;
}

// The live array of a copy into (`to`) or out of it, with a direction CUDA accepts for that.
cudaError_t copy_array(const char* call, const void* h, int kind, bool to, ArrayRec*& a) {
  if (cudaError_t e = rt().status()) return ret(e);
  if (cudaError_t e = find_array(call, h, a)) return e;
  if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault &&
      kind != (to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost))
    return said(call, cudaErrorInvalidMemcpyDirection,
                "kind " + std::to_string(kind) + (to ? " into" : " out of") + " an array");
  return cudaSuccess;
}

// A 2-D copy between the rectangle (wOffset bytes, hOffset rows, width bytes, height rows) of a
// 1D/2D array and pitched memory `mem`; `to`: into the array. `kind` as CUDA checks it.
cudaError_t array_copy2d(const char* call, const void* h, size_t w_off, size_t h_off, void* mem,
                         size_t pitch, size_t width, size_t height, int kind, bool to) {
  ArrayRec* a = nullptr;
  if (cudaError_t e = copy_array(call, h, kind, to, a)) return e;
  if (a->depth > 1)
    return said(call, cudaErrorInvalidValue, "a 3D array (its copies: cudaMemcpy3D)");
  if (w_off + width > a->row_bytes() || h_off + height > a->height)
    return said(call, cudaErrorInvalidValue,
                "the rectangle at (" + std::to_string(w_off) + " bytes, row " +
                    std::to_string(h_off) + ") of " + std::to_string(width) + " bytes x " +
                    std::to_string(height) + " rows is outside the array's " +
                    std::to_string(a->row_bytes()) + " bytes x " + std::to_string(a->height) +
                    " rows");
  if (width > pitch)
    return said(call, cudaErrorInvalidPitchValue,
                "width " + std::to_string(width) + " bytes above the pitch " +
                    std::to_string(pitch));
  void* at = reinterpret_cast<void*>(a->base + h_off * a->row_bytes() + w_off);
  return ret(to ? copy2d(at, a->row_bytes(), mem, pitch, width, height, cudaMemcpyDefault)
                : copy2d(mem, pitch, at, a->row_bytes(), width, height, cudaMemcpyDefault));
}

// cudaMemcpyToArray / FromArray: `count` bytes from (wOffset, hOffset) on, row after row.
cudaError_t array_copy(const char* call, const void* h, size_t w_off, size_t h_off, void* mem,
                       size_t count, int kind, bool to) {
  ArrayRec* a = nullptr;
  if (cudaError_t e = copy_array(call, h, kind, to, a)) return e;
  const uint64_t off = h_off * a->row_bytes() + w_off;
  if (w_off >= a->row_bytes() || off + count > a->bytes())
    return said(call, cudaErrorInvalidValue,
                std::to_string(count) + " bytes from (" + std::to_string(w_off) + " bytes, row " +
                    std::to_string(h_off) + ") run past the array's " + std::to_string(a->bytes()) +
                    " bytes");
  void* at = reinterpret_cast<void*>(a->base + off);
  return ret(to ? rt().memcpy(at, mem, count, cudaMemcpyDefault)
                : rt().memcpy(mem, at, count, cudaMemcpyDefault));
}

cudaError_t make_object(const char* call, uint64_t* out, const cudaResourceDesc* res,
                        const cudaTextureDesc* tex, const cudaResourceViewDesc* view,
                        bool surface) {
  if (cudaError_t e = rt().status()) return ret(e);
  std::string why;
  const cudaError_t e = rt().textures.create(
      out, res, tex, view, surface, [](uint64_t a, uint64_t n) { return rt().allocated(a, n); },
      why);
  return said(call, e, why);
}

cudaError_t object_resource(const char* call, cudaResourceDesc* res, uint64_t h, bool surface) {
  const TextureObjects::Object* o = rt().textures.find(h, surface);
  if (!res || !o)
    return said(call, cudaErrorInvalidValue,
                res ? "not a live " + std::string(surface ? "surface" : "texture") + " object"
                    : "no place for the descriptor (null)");
  *res = o->res;
  return cudaSuccess;
}

} // namespace

namespace gpurf::cudart {
cudaError_t graph_said(const char* call, cudaError_t e, const std::string& why) {
  return said(call, e, why);
}
} // namespace gpurf::cudart

extern "C" {

// ------------------------------------------------------------------------------ registration

void** __cudaRegisterFatBinary(void* fat) {
  GPURF_LOCKED;
  return reinterpret_cast<void**>(rt().add_module(fat));
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {} // at exit, after the outputs (Runtime::build)
// Before the host first touches a __managed__ variable: its pointer is set once built.
char __cudaInitModule(void**) {
  GPURF_LOCKED;
  return rt().ensure() == cudaSuccess;
}
void __cudaRegisterFunction(void** handle, const char* host_fun, char*, const char* name, int,
                            void*, void*, void*, void*, int*) {
  GPURF_LOCKED;
  rt().add_kernel(reinterpret_cast<Module*>(handle), host_fun, name);
}
void __cudaRegisterVar(void** handle, char* host_var, char*, const char* name, int, size_t size,
                       int constant, int) {
  GPURF_LOCKED;
  rt().add_var(reinterpret_cast<Module*>(handle), host_var, name, size, constant != 0, nullptr);
}
void __cudaRegisterManagedVar(void** handle, void** host_ptr, char*, const char* name, int,
                              size_t size, int constant, int) {
  GPURF_LOCKED;
  rt().add_var(reinterpret_cast<Module*>(handle), host_ptr, name, size, constant != 0, host_ptr);
}

// ------------------------------------------------------------------------------ launch

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void* stream) {
  GPURF_LOCKED;
  Runtime::CallStack& c = rt().configs;
  if (c.size == std::size(c.at)) {
    std::fprintf(stderr, "gpurf: <<<>>> nested %u deep in its arguments: not launched\n", c.size);
    return 1; // the launch's stub is not called
  }
  c.at[c.size++] = {grid, block, shared, static_cast<cudaStream_t>(stream)};
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  GPURF_LOCKED;
  if (!rt().configs.size) return cudaErrorMissingConfiguration;
  const Runtime::CallConfig c = rt().configs.at[--rt().configs.size];
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(void** kernel, const void* fun) {
  GPURF_LOCKED;
  *kernel = const_cast<void*>(fun); // the host function identifies the kernel
  return cudaSuccess;
}
cudaError_t cudaLaunchKernel(const void* fun, dim3 grid, dim3 block, void** args, size_t shared,
                             cudaStream_t stream) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured_launch("cudaLaunchKernel", fun, grid, block, args, shared, stream, false, e))
    return ret(e);
  return ret(rt().launch(fun, grid, block, args, shared, stream));
}
cudaError_t cudaLaunchKernel_ptsz(const void* fun, dim3 grid, dim3 block, void** args,
                                  size_t shared, cudaStream_t stream) {
  GPURF_LOCKED;
  return cudaLaunchKernel(fun, grid, block, args, shared, per_thread(stream));
}
cudaError_t __cudaLaunchKernel(void* kernel, dim3 grid, dim3 block, void** args, size_t shared,
                               cudaStream_t stream) {
  GPURF_LOCKED;
  return cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}
cudaError_t __cudaLaunchKernel_ptsz(void* kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                    cudaStream_t stream) {
  GPURF_LOCKED;
  return cudaLaunchKernel(kernel, grid, block, args, shared, per_thread(stream));
}
cudaError_t cudaLaunchCooperativeKernel(const void* fun, dim3 grid, dim3 block, void** args,
                                        size_t shared, cudaStream_t stream) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured_launch("cudaLaunchCooperativeKernel", fun, grid, block, args, shared, stream, true,
                      e))
    return ret(e);
  return ret(rt().launch(fun, grid, block, args, shared, stream, true));
}
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* fun, dim3 grid, dim3 block, void** args,
                                             size_t shared, cudaStream_t stream) {
  GPURF_LOCKED;
  return cudaLaunchCooperativeKernel(fun, grid, block, args, shared, per_thread(stream));
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
// cudaLaunchKernelEx (a C++ template over this): the cooperative attribute is honoured;
// programmatic stream serialization (a dependent grid may start before its primary ends) holds
// as it is, grids running one after another; the programmatic and launch-completion events are
// recorded after the launch (the kernel has ended by then, which both promise at the latest);
// the others (priorities, access policies, cluster shapes, ...) do not change what a launch
// computes here.
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* c, const void* fun, void** args) {
  GPURF_LOCKED;
  if (!c || (c->numAttrs && !c->attrs)) return ret(cudaErrorInvalidValue);
  static const char* const names[] = {"Ignore",
                                      "AccessPolicyWindow",
                                      "Cooperative",
                                      "SynchronizationPolicy",
                                      "ClusterDimension",
                                      "ClusterSchedulingPolicyPreference",
                                      "ProgrammaticStreamSerialization",
                                      "ProgrammaticEvent",
                                      "Priority",
                                      "MemSyncDomainMap",
                                      "MemSyncDomain",
                                      "PreferredClusterDimension",
                                      "LaunchCompletionEvent",
                                      "DeviceUpdatableKernelNode",
                                      "PreferredSharedMemoryCarveout"};
  bool cooperative = false;
  std::vector<cudaEvent_t> events;
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    const cudaLaunchAttribute& a = c->attrs[i];
    if (a.id == cudaLaunchAttributeCooperative)
      cooperative = a.val.cooperative != 0;
    else if (a.id == cudaLaunchAttributeProgrammaticEvent ||
             a.id == cudaLaunchAttributeLaunchCompletionEvent)
      events.push_back(a.val.event);
    else if (a.id != cudaLaunchAttributeIgnore &&
             a.id != cudaLaunchAttributeProgrammaticStreamSerialization) {
      static std::set<unsigned> said;
      if (said.insert(a.id).second)
        std::fprintf(stderr,
                     "gpurf: cudaLaunchKernelExC: launch attribute %u (cudaLaunchAttribute%s) "
                     "does not change what a launch computes here (ignored)\n",
                     a.id, a.id < std::size(names) ? names[a.id] : "?");
    }
  }
  cudaError_t e = cudaSuccess;
  if (!captured_launch("cudaLaunchKernelExC", fun, c->gridDim, c->blockDim, args,
                       c->dynamicSmemBytes, c->stream, cooperative, e))
    e = rt().launch(fun, c->gridDim, c->blockDim, args, c->dynamicSmemBytes, c->stream,
                    cooperative);
  for (cudaEvent_t ev : events)
    if (e == cudaSuccess) e = cudaEventRecord(ev, c->stream);
  return ret(e);
}
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* c, const void* fun, void** args) {
  GPURF_LOCKED;
  if (!c) return cudaLaunchKernelExC(c, fun, args);
  cudaLaunchConfig_t own = *c;
  own.stream = per_thread(c->stream);
  return cudaLaunchKernelExC(&own, fun, args);
}

// A module's PTX architecture: its fat binary entry's, else (loaded at run time) its .target.
static unsigned module_arch(const Module& m) {
  if (m.arch) return m.arch;
  const size_t t = m.ptx.find(".target sm_");
  return t == std::string::npos ? 75 : unsigned(std::strtoul(m.ptx.c_str() + t + 11, nullptr, 10));
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* fun) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  KernelRec* k = rt().kernel(fun);
  if (!a) return ret(cudaErrorInvalidValue);
  if (!k || !k->found) return ret(rt().not_runnable(fun, "cudaFuncGetAttributes"));
  std::memset(a, 0, sizeof *a);
  gpurf::PtxFrontend* f = rt().gpu().kernel(k->id);
  // ptxas's count, as CUDA reports it, where known (under ptx_virtual the allocator's count is
  // the PTX's virtual registers, thousands); else the count occupancy uses. Both capped by the
  // kernel's __launch_bounds__ where the platform's banks are smaller than sm_75's (Fermi: 32
  // registers for 1,024 threads), as that GPU's compiler would report.
  unsigned occ = f->occupancy_registers(), hw = f->hardware_registers();
  rt().gpu().sm(0).bound_registers(f->regs_per_thread(), f->predicate_registers(), f->bound_warps(),
                                   occ, hw);
  unsigned regs = hw && occ ? std::min(hw, occ) : hw ? hw : occ;
  a->numRegs = int(regs ? regs : f->regs_per_thread());
  // The largest block a launch of this kernel can have (CUDA's: the device's limit, less
  // where the kernel's registers do not fit that many warps).
  const gpurf::SmLimits l = rt().gpu().sm(0).limits_for(
      f->regs_per_thread(), f->predicate_registers(), f->occupancy_registers(),
      f->hardware_registers(), f->bound_warps());
  const unsigned reg_warps = std::max(l.register_warps, l.hardware_register_warps);
  unsigned most = std::min({1024u, l.warps * 32, reg_warps * 32});
  // __launch_bounds__ (.maxntid) and .reqntid bound it too, as ptxas records them.
  const gpurf::ptx::Function& entry = f->launch().entry();
  for (const unsigned* d : {entry.maxntid, entry.reqntid})
    if (d[0]) most = std::min(most, d[0] * std::max(d[1], 1u) * std::max(d[2], 1u));
  a->maxThreadsPerBlock = int(most);
  // The PTX's architecture, as CUDA reports a kernel JIT-compiled from it (CUB and Thrust pick
  // their tuning policy by it and refuse to launch a kernel compiled for another: 75 for every
  // kernel failed every DeviceTransform of a program built for sm_80 or later), and the
  // device's compute capability.
  a->ptxVersion = int(module_arch(*k->module));
  cudaDeviceProp p;
  if (rt().properties(p) == cudaSuccess) a->binaryVersion = p.major * 10 + p.minor;
  a->maxDynamicSharedSizeBytes = int(rt().dynamic_shared_limit(*k));
  try { // the kernel's .shared variables (occupancy calculators add them to the dynamic bytes)
    a->sharedSizeBytes = cta_shared(*k, 1, 0);
  } catch (const std::exception&) { // refused at its launch
  }
  // The entry's .local frame (its local arrays and spill depot).
  for (const gpurf::ptx::VarDecl& v : entry.locals)
    if (v.space == gpurf::ptx::Space::Local) a->localSizeBytes += v.size;
  return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void* fun, int attr, int value) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  KernelRec* k = rt().kernel(fun);
  if (!k) return ret(cudaErrorInvalidDeviceFunction);
  if (attr == 8) { // cudaFuncAttributeMaxDynamicSharedMemorySize: what the opt-in limit leaves
    cudaDeviceProp p;
    if (cudaError_t e = rt().properties(p)) return ret(e);
    size_t fixed = 0; // the kernel's own .shared bytes
    try {
      if (k->found) fixed = cta_shared(*k, 1, 0);
    } catch (const std::exception&) { // refused at its launch, as without the attribute
    }
    if (value < 0 || fixed + size_t(value) > p.sharedMemPerBlockOptin)
      return ret(cudaErrorInvalidValue);
    k->max_dynamic_shared = value;
  }
  return cudaSuccess;
}
// A kernel's handle for the driver API (cuLaunchKernel, cuFuncGetAttribute): here a CUfunction
// is the kernel's host symbol, as cuModuleGetFunction gives it.
cudaError_t cudaGetFuncBySymbol(void** f, const void* fun) {
  GPURF_LOCKED;
  if (!f) return ret(cudaErrorInvalidValue);
  if (!rt().kernel(fun)) return ret(cudaErrorInvalidDeviceFunction);
  *f = const_cast<void*>(fun);
  return cudaSuccess;
}
// The .entry's (mangled) name, as CUDA gives it.
cudaError_t cudaFuncGetName(const char** name, const void* fun) {
  GPURF_LOCKED;
  if (!name) return ret(cudaErrorInvalidValue);
  KernelRec* k = rt().kernel(fun);
  if (!k) return ret(cudaErrorInvalidDeviceFunction);
  *name = k->name.c_str();
  return cudaSuccess;
}
// Parameter `i`'s offset and size in the .entry's parameter buffer.
cudaError_t cudaFuncGetParamInfo(const void* fun, size_t i, size_t* offset, size_t* size) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  KernelRec* k = rt().kernel(fun);
  if (!k) return ret(cudaErrorInvalidDeviceFunction);
  if (!k->found) return ret(rt().not_runnable(fun, "cudaFuncGetParamInfo"));
  const auto& params = rt().gpu().kernel(k->id)->launch().entry().params;
  if (i >= params.size()) return ret(cudaErrorInvalidValue);
  if (offset) *offset = params[i].offset;
  if (size) *size = params[i].size;
  return cudaSuccess;
}
// cudaGetDriverEntryPoint(+ByVersion) and cuGetProcAddress: the driver function of that name
// this library exports (it is libcuda.so.1 too), its _v2 form first (what CUDA 12 and 13
// resolve cuMemAlloc, cuMemcpyHtoD, cuCtxCreate, ... to); status 0 found, 1 not found.
void* gpurf_driver_entry(const char* symbol, int* status) {
  void* fn = nullptr;
  Dl_info self{};
  if (symbol && dladdr(reinterpret_cast<void*>(&gpurf_driver_entry), &self) && self.dli_fname)
    if (void* h = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) {
      fn = dlsym(h, (std::string(symbol) + "_v2").c_str());
      if (!fn) fn = dlsym(h, symbol);
      dlclose(h);
    }
  if (status) *status = fn ? 0 : 1; // cudaDriverEntryPointSuccess / SymbolNotFound
  return fn;
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned,
                                             unsigned long long, int* status) {
  GPURF_LOCKED;
  if (!symbol || !fn) return ret(cudaErrorInvalidValue);
  *fn = gpurf_driver_entry(symbol, status);
  // With a status to read, a missing symbol is no error (CUDA's contract).
  return *fn || status ? cudaSuccess : ret(cudaErrorSymbolNotFound);
}
cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long flags,
                                    int* status) {
  return cudaGetDriverEntryPointByVersion(symbol, fn, 13000, flags, status);
}
cudaError_t cudaFuncSetCacheConfig(const void* fun, int) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  return rt().kernel(fun) ? cudaSuccess : ret(cudaErrorInvalidDeviceFunction);
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, const void* fun,
                                                                   int block, size_t shared,
                                                                   unsigned) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  KernelRec* k = rt().kernel(fun);
  if (!n) return ret(cudaErrorInvalidValue);
  if (!k || !k->found)
    return ret(rt().not_runnable(fun, "cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
  *n = resident_ctas(*k, block, shared);
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void* fun, int block,
                                                          size_t shared) {
  GPURF_LOCKED;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, fun, block, shared, 0);
}
// The most dynamic shared memory a block of `block` threads may ask for with `blocks` of them
// resident on an SM (0 where that many cannot be, whatever they ask), within what a launch of
// the kernel may ask for (cudaFuncAttributeMaxDynamicSharedMemorySize).
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, const void* fun, int blocks,
                                                      int block) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  KernelRec* k = rt().kernel(fun);
  if (!bytes || blocks < 1 || block < 1) return ret(cudaErrorInvalidValue);
  if (!k || !k->found)
    return ret(rt().not_runnable(fun, "cudaOccupancyAvailableDynamicSMemPerBlock"));
  // Residency falls as the bytes grow: the largest that keeps `blocks`, by bisection.
  size_t lo = 0, hi = rt().dynamic_shared_limit(*k);
  if (resident_ctas(*k, block, 0) < blocks)
    hi = 0;
  else
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (resident_ctas(*k, block, mid) >= blocks)
        lo = mid;
      else
        hi = mid - 1;
    }
  *bytes = lo;
  return cudaSuccess;
}

// ------------------------------------------------------------------------------ memory

cudaError_t cudaMalloc(void** p, size_t bytes) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMalloc", false);
  if (p && !bytes) { // CUDA's runtime: success and a null pointer (cudaFree takes it)
    if (cudaError_t e = rt().status()) return ret(e);
    *p = nullptr;
    return cudaSuccess;
  }
  return ret(rt().malloc(p, bytes, AllocKind::Device));
}
cudaError_t cudaMallocManaged(void** p, size_t bytes, unsigned) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMallocManaged", false);
  return ret(rt().malloc(p, bytes, AllocKind::Managed));
}
cudaError_t cudaMallocHost(void** p, size_t bytes) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMallocHost", false);
  return ret(rt().malloc(p, bytes, AllocKind::Host));
}
cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned flags) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaHostAlloc", false);
  if (cudaError_t e = rt().malloc(p, bytes, AllocKind::Host)) return ret(e);
  const_cast<Allocation*>(rt().allocation_of(reinterpret_cast<uint64_t>(*p)))->flags = flags;
  return cudaSuccess;
}
// Host allocations are at their device addresses (one address space); a registered range's
// device address is its window mirror; other host memory the device cannot reach.
cudaError_t cudaHostGetDevicePointer(void** dev, void* host, unsigned flags) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  if (!dev || !host || flags) return ret(cudaErrorInvalidValue);
  const uint64_t a = rt().device_view(host);
  if (!a) return ret(cudaErrorInvalidValue);
  *dev = reinterpret_cast<void*>(a);
  return cudaSuccess;
}
cudaError_t cudaHostGetFlags(unsigned* flags, void* host) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  const uint64_t a = rt().device_view(host);
  const Allocation* al = a ? rt().allocation_of(a) : nullptr;
  if (!flags || !al || al->kind == AllocKind::Managed) return ret(cudaErrorInvalidValue);
  *flags = al->flags;
  return cudaSuccess;
}
cudaError_t cudaHostRegister(void* p, size_t bytes, unsigned flags) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaHostRegister", false);
  return ret(rt().host_register(p, bytes, flags));
}
cudaError_t cudaHostUnregister(void* p) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaHostUnregister", false);
  return ret(rt().host_unregister(p));
}
// Memory CUDA does not know is cudaMemoryTypeUnregistered, not an error.
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* p) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  if (!attr) return ret(cudaErrorInvalidValue);
  *attr = cudaPointerAttributes{};
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  uint64_t base = 0;
  if (const Allocation* al = rt().allocation_of(a, &base)) {
    attr->type = al->kind == AllocKind::Device ? 2 : al->kind == AllocKind::Managed ? 3 : 1;
    attr->devicePointer = const_cast<void*>(p);
    if (al->kind == AllocKind::Registered)
      attr->hostPointer = static_cast<char*>(al->host) + (a - base);
    else if (al->kind != AllocKind::Device)
      attr->hostPointer = const_cast<void*>(p);
  } else if (const uint64_t d = rt().device_view(p)) { // inside a registered range
    attr->type = 1;
    attr->devicePointer = reinterpret_cast<void*>(d);
    attr->hostPointer = const_cast<void*>(p);
  } else if (p && rt().device_range(a, 1)) { // the modules' variables
    attr->type = 2;
    attr->devicePointer = const_cast<void*>(p);
  } else {
    attr->device = -2; // CUDA's cudaInvalidDeviceId for unregistered memory
  }
  return cudaSuccess;
}
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMallocPitch", false);
  if (!pitch) return ret(cudaErrorInvalidValue);
  *pitch = (width + 255) / 256 * 256;
  return ret(rt().malloc(p, *pitch * height, AllocKind::Device));
}
// Rows of extent.width bytes at a pitch of it rounded up to 256 (cudaMallocPitch's), height
// rows a slice, depth slices.
cudaError_t cudaMalloc3D(cudaPitchedPtr* p, cudaExtent e) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMalloc3D", false);
  if (!p) return ret(cudaErrorInvalidValue);
  const size_t pitch = (e.width + 255) / 256 * 256;
  void* d = nullptr;
  if (cudaError_t r = rt().malloc(&d, pitch * e.height * e.depth, AllocKind::Device)) return ret(r);
  *p = {d, pitch, e.width, e.height};
  return cudaSuccess;
}
// Stream-ordered allocation: a stream's earlier work is done at the call (every launch and copy
// finishes inside its own), so the memory is usable, and freed, at once. Every pool allocates
// from the one device memory; each keeps its attributes and counts its allocations' bytes (it
// caches nothing: reserved is what is in use).
namespace {
struct Pool {
  int reuse[3] = {1, 1, 1}; // cudaMemPoolReuse*: 1-3
  uint64_t release_threshold = 0, used = 0, used_high = 0;
};
Pool default_pool;
Pool* current_pool = &default_pool;                 // cudaDeviceSetMemPool's
std::set<Pool*> created_pools;                      // cudaMemPoolCreate's, until destroyed
std::map<void*, std::pair<Pool*, uint64_t>> pooled; // each live allocation's pool and bytes
Pool* pool_of(void* handle) {
  Pool* p = static_cast<Pool*>(handle);
  return p == &default_pool || created_pools.count(p) ? p : nullptr;
}
cudaError_t pool_malloc(void** p, size_t bytes, Pool* pool) {
  const cudaError_t e = rt().malloc(p, bytes, AllocKind::Device);
  if (e == cudaSuccess) {
    pooled[*p] = {pool, bytes};
    pool->used += bytes;
    pool->used_high = std::max(pool->used_high, pool->used);
  }
  return e;
}
void pool_release(void* p) {
  auto it = pooled.find(p);
  if (it == pooled.end()) return;
  if (Pool* pool = it->second.first) pool->used -= it->second.second;
  pooled.erase(it);
}
} // namespace
cudaError_t cudaFree(void* p) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaFree", false);
  const cudaError_t e = rt().free(p, false);
  if (e == cudaSuccess) pool_release(p); // cudaFree may free a stream-ordered allocation
  return ret(e);
}
cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (not_captured("cudaMallocAsync", s, "stream-ordered allocation (a memory node)", e))
    return ret(e);
  return ret(pool_malloc(p, bytes, current_pool));
}
cudaError_t cudaMallocAsync_ptsz(void** p, size_t bytes, cudaStream_t s) {
  return cudaMallocAsync(p, bytes, per_thread(s));
}
cudaError_t cudaMallocFromPoolAsync(void** p, size_t bytes, void* pool, cudaStream_t s) {
  GPURF_LOCKED;
  Pool* from = pool_of(pool);
  if (!from) return ret(cudaErrorInvalidValue);
  cudaError_t e = cudaSuccess;
  if (not_captured("cudaMallocFromPoolAsync", s, "stream-ordered allocation (a memory node)", e))
    return ret(e);
  return ret(pool_malloc(p, bytes, from));
}
cudaError_t cudaMallocFromPoolAsync_ptsz(void** p, size_t bytes, void* pool, cudaStream_t s) {
  return cudaMallocFromPoolAsync(p, bytes, pool, per_thread(s));
}
cudaError_t cudaFreeAsync(void* p, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (not_captured("cudaFreeAsync", s, "stream-ordered allocation (a memory node)", e))
    return ret(e);
  e = rt().free(p, false);
  if (e == cudaSuccess) pool_release(p);
  return ret(e);
}
cudaError_t cudaFreeAsync_ptsz(void* p, cudaStream_t s) { return cudaFreeAsync(p, per_thread(s)); }
cudaError_t cudaDeviceGetDefaultMemPool(void** pool, int device) {
  GPURF_LOCKED;
  if (!pool || device != 0) return ret(cudaErrorInvalidValue);
  *pool = &default_pool;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(void** pool, int device) {
  GPURF_LOCKED;
  if (!pool || device != 0) return ret(cudaErrorInvalidValue);
  *pool = current_pool;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetMemPool(int device, void* pool) {
  GPURF_LOCKED;
  if (device != 0) return ret(cudaErrorInvalidDevice);
  Pool* p = pool_of(pool);
  if (!p) return ret(cudaErrorInvalidValue);
  current_pool = p;
  return cudaSuccess;
}
// cudaMemPoolAttr: 1-3 the reuse flags (int), 4 the release threshold, 5-8 reserved and used
// memory, current and high (uint64_t; a high mark may only be reset, to 0).
cudaError_t cudaMemPoolSetAttribute(void* pool, int attr, void* value) {
  GPURF_LOCKED;
  Pool* p = pool_of(pool);
  if (!p || !value) return ret(cudaErrorInvalidValue);
  if (attr >= 1 && attr <= 3)
    p->reuse[attr - 1] = *static_cast<int*>(value);
  else if (attr == 4)
    p->release_threshold = *static_cast<uint64_t*>(value);
  else if ((attr == 6 || attr == 8) && *static_cast<uint64_t*>(value) == 0)
    p->used_high = p->used;
  else
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}
cudaError_t cudaMemPoolGetAttribute(void* pool, int attr, void* value) {
  GPURF_LOCKED;
  Pool* p = pool_of(pool);
  if (!p || !value) return ret(cudaErrorInvalidValue);
  if (attr >= 1 && attr <= 3)
    *static_cast<int*>(value) = p->reuse[attr - 1];
  else if (attr == 4)
    *static_cast<uint64_t*>(value) = p->release_threshold;
  else if (attr >= 5 && attr <= 8)
    *static_cast<uint64_t*>(value) = attr % 2 ? p->used : p->used_high;
  else
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}
cudaError_t cudaMemPoolCreate(void** pool, const void* props) {
  GPURF_LOCKED;
  if (!pool || !props) return ret(cudaErrorInvalidValue);
  Pool* p = new Pool;
  created_pools.insert(p);
  *pool = p;
  return cudaSuccess;
}
cudaError_t cudaMemPoolDestroy(void* pool) {
  GPURF_LOCKED;
  Pool* p = pool_of(pool);
  if (!p) return ret(cudaErrorInvalidValue);
  if (p == &default_pool) return cudaSuccess; // the default pool stays
  if (current_pool == p) current_pool = &default_pool;
  created_pools.erase(p);
  for (auto& [ptr, a] : pooled)
    if (a.first == p) a.first = nullptr; // its allocations stay live, counted nowhere
  delete p;
  return cudaSuccess;
}
cudaError_t cudaMemPoolTrimTo(void* pool, size_t) {
  GPURF_LOCKED;
  return pool_of(pool) ? cudaSuccess : ret(cudaErrorInvalidValue);
}
// Unified-memory hints (CUDA 13: pointer, bytes, cudaMemLocation, ...; the rest unread): gpurf
// copies managed memory whole around every launch, so a prefetch or an advice changes nothing.
cudaError_t cudaMemPrefetchAsync(const void* p, size_t bytes) {
  GPURF_LOCKED;
  return p || !bytes ? cudaSuccess : ret(cudaErrorInvalidValue);
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void* p, size_t bytes) {
  return cudaMemPrefetchAsync(p, bytes);
}
cudaError_t cudaMemAdvise(const void* p, size_t bytes) {
  GPURF_LOCKED;
  return p || !bytes ? cudaSuccess : ret(cudaErrorInvalidValue);
}
cudaError_t cudaFreeHost(void* p) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaFreeHost", false);
  return ret(rt().free(p, true));
}
cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, int kind) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMemcpy", true);
  return ret(rt().memcpy(dst, src, n, kind));
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, int kind, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured(s, "cudaMemcpyAsync", e, [&](Node& x) -> cudaError_t {
        x.type = kNodeMemcpy;
        return set_copy1d(x, "cudaMemcpyAsync", dst, src, n, kind);
      }))
    return ret(e);
  return ret(rt().memcpy(dst, src, n, kind));
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, int kind) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMemcpy2D", true);
  return ret(copy2d(dst, dpitch, src, spitch, width, height, kind));
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, int kind, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured(s, "cudaMemcpy2DAsync", e, [&](Node& x) -> cudaError_t {
        x.type = kNodeMemcpy;
        cudaMemcpy3DParms p{};
        p.srcPtr = {const_cast<void*>(src), spitch, width, height};
        p.dstPtr = {dst, dpitch, width, height};
        p.extent = {width, height, 1};
        p.kind = kind;
        if (width > dpitch || width > spitch)
          return said("cudaMemcpy2DAsync", cudaErrorInvalidPitchValue, "width above a pitch");
        return set_copy(x, "cudaMemcpy2DAsync", &p);
      }))
    return ret(e);
  return ret(copy2d(dst, dpitch, src, spitch, width, height, kind));
}
cudaError_t cudaMemset(void* p, int v, size_t n) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMemset", true);
  return ret(rt().memset(p, v, n));
}
// Row by row: `width` bytes of each of `height` rows `pitch` apart.
static cudaError_t memset2d(void* p, size_t pitch, int v, size_t width, size_t height) {
  if (height > 1 && pitch < width) return cudaErrorInvalidValue;
  for (size_t y = 0; y < height; ++y)
    if (cudaError_t e = rt().memset(static_cast<char*>(p) + y * pitch, v, width)) return e;
  return cudaSuccess;
}
cudaError_t cudaMemset2D(void* p, size_t pitch, int v, size_t width, size_t height) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMemset2D", true);
  return ret(memset2d(p, pitch, v, width, height));
}
cudaError_t cudaMemset2DAsync(void* p, size_t pitch, int v, size_t width, size_t height,
                              cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured(s, "cudaMemset2DAsync", e, [&](Node& x) -> cudaError_t {
        x.type = kNodeMemset;
        const cudaMemsetParams m{p, pitch, unsigned(v & 0xff), 1, width, height};
        return set_memset(x, "cudaMemset2DAsync", &m);
      }))
    return ret(e);
  return ret(memset2d(p, pitch, v, width, height));
}
cudaError_t cudaMemset2DAsync_ptsz(void* p, size_t pitch, int v, size_t width, size_t height,
                                   cudaStream_t s) {
  return cudaMemset2DAsync(p, pitch, v, width, height, per_thread(s));
}
// Between devices: there is one, so a copy from device 0 to device 0.
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t n) {
  GPURF_LOCKED;
  if (dst_device != 0 || src_device != 0) return ret(cudaErrorInvalidDevice);
  return cudaMemcpy(dst, src, n, 3); // cudaMemcpyDeviceToDevice
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t n, cudaStream_t s) {
  GPURF_LOCKED;
  if (dst_device != 0 || src_device != 0) return ret(cudaErrorInvalidDevice);
  return cudaMemcpyAsync(dst, src, n, 3, s);
}
// 3D: `depth` slices of `height` rows, a slice p.pitch * p.ysize bytes (cudaMalloc3D's).
static cudaError_t memset3d(cudaPitchedPtr p, int v, cudaExtent e) {
  if (e.depth > 1 && p.ysize < e.height) return cudaErrorInvalidValue;
  for (size_t z = 0; z < e.depth; ++z)
    if (cudaError_t r = memset2d(static_cast<char*>(p.ptr) + z * p.pitch * p.ysize, p.pitch, v,
                                 e.width, e.height))
      return r;
  return cudaSuccess;
}
cudaError_t cudaMemset3D(cudaPitchedPtr p, int v, cudaExtent e) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMemset3D", true);
  return ret(memset3d(p, v, e));
}
cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int v, cudaExtent e, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t err = cudaSuccess;
  if (captured(s, "cudaMemset3DAsync", err, [&](Node& x) -> cudaError_t {
        // A memset node is 2D: slices that follow each other (rows of a slice = its rows) are
        // one box of height * depth rows; others would need a node per slice.
        if (e.depth > 1 && p.ysize != e.height)
          return said("cudaMemset3DAsync", cudaErrorStreamCaptureUnsupported,
                      "slices with rows between them cannot be captured by gpurf (one memset "
                      "node a slice): the capture is invalidated");
        x.type = kNodeMemset;
        const cudaMemsetParams m{p.ptr, p.pitch, unsigned(v & 0xff),
                                 1,     e.width, e.height * e.depth};
        return set_memset(x, "cudaMemset3DAsync", &m);
      }))
    return ret(err);
  return ret(memset3d(p, v, e));
}
cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured(s, "cudaMemsetAsync", e, [&](Node& x) -> cudaError_t {
        x.type = kNodeMemset;
        const cudaMemsetParams m{p, 0, unsigned(v & 0xff), 1, n, 1};
        return set_memset(x, "cudaMemsetAsync", &m);
      }))
    return ret(e);
  return ret(rt().memset(p, v, n));
}
cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t n, size_t offset,
                               int kind) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMemcpyToSymbol", true);
  return ret(symbol_copy(symbol, n, offset, const_cast<void*>(src), true, kind));
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t n, size_t offset, int kind) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMemcpyFromSymbol", true);
  return ret(symbol_copy(symbol, n, offset, dst, false, kind));
}
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t n, size_t offset,
                                    int kind, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured(s, "cudaMemcpyToSymbolAsync", e, [&](Node& x) -> cudaError_t {
        x.type = kNodeMemcpy;
        const VarRec* v = rt().var(symbol);
        if (!v || !v->address || offset + n > v->bytes)
          return said("cudaMemcpyToSymbolAsync", v ? cudaErrorInvalidValue : cudaErrorInvalidSymbol,
                      "not a symbol, or past its end");
        return set_copy1d(x, "cudaMemcpyToSymbolAsync",
                          reinterpret_cast<void*>(v->address + offset), src, n,
                          cudaMemcpyHostToDevice);
      }))
    return ret(e);
  return ret(symbol_copy(symbol, n, offset, const_cast<void*>(src), true, kind));
}
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t n, size_t offset,
                                      int kind, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured(s, "cudaMemcpyFromSymbolAsync", e, [&](Node& x) -> cudaError_t {
        x.type = kNodeMemcpy;
        const VarRec* v = rt().var(symbol);
        if (!v || !v->address || offset + n > v->bytes)
          return said("cudaMemcpyFromSymbolAsync",
                      v ? cudaErrorInvalidValue : cudaErrorInvalidSymbol,
                      "not a symbol, or past its end");
        return set_copy1d(x, "cudaMemcpyFromSymbolAsync", dst,
                          reinterpret_cast<void*>(v->address + offset), n, cudaMemcpyDeviceToHost);
      }))
    return ret(e);
  return ret(symbol_copy(symbol, n, offset, dst, false, kind));
}
cudaError_t cudaGetSymbolAddress(void** p, const void* symbol) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  const VarRec* v = rt().var(symbol);
  if (!p || !v || !v->address) return ret(cudaErrorInvalidSymbol);
  *p = reinterpret_cast<void*>(v->address);
  return cudaSuccess;
}
cudaError_t cudaGetSymbolSize(size_t* n, const void* symbol) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  const VarRec* v = rt().var(symbol);
  if (!n || !v) return ret(cudaErrorInvalidSymbol);
  *n = v->bytes;
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  GPURF_LOCKED;
  if (rt().sticky) return ret(rt().sticky);
  cudaDeviceProp p;
  if (cudaError_t e = rt().properties(p)) return ret(e);
  // Free: what no allocation holds (device, managed and host memory share the window), so it
  // falls as the program allocates, as a program sizing its work by it expects.
  if (free_bytes) *free_bytes = std::min<uint64_t>(rt().unallocated(), p.totalGlobalMem);
  if (total) *total = p.totalGlobalMem;
  return cudaSuccess;
}

// ------------------------------------------------------------------------------ textures,
// surfaces, arrays (textures.h; docs/programs.md "Textures and surfaces")

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned flags) {
  GPURF_LOCKED;
  return make_array("cudaMalloc3DArray", array, desc, extent, flags, true);
}
cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                            size_t height, unsigned flags) {
  GPURF_LOCKED;
  return make_array("cudaMallocArray", array, desc, cudaExtent{width, height, 0}, flags, false);
}
cudaError_t cudaFreeArray(cudaArray_t array) {
  GPURF_LOCKED;
  if (!array) return cudaSuccess;
  if (cudaError_t e = rt().status()) return ret(e);
  ArrayRec* a = nullptr;
  if (cudaError_t e = find_array("cudaFreeArray", array, a)) return e;
  rt().free(reinterpret_cast<void*>(a->base), false);
  rt().textures.remove_array(array);
  return cudaSuccess;
}
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned* flags,
                             cudaArray_t array) {
  GPURF_LOCKED;
  ArrayRec* a = nullptr;
  if (cudaError_t e = find_array("cudaArrayGetInfo", array, a)) return e;
  if (desc) *desc = a->desc;
  if (extent) *extent = a->extent;
  if (flags) *flags = a->flags;
  return cudaSuccess;
}
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, const void* array) {
  GPURF_LOCKED;
  ArrayRec* a = nullptr;
  if (cudaError_t e = find_array("cudaGetChannelDesc", array, a)) return e;
  if (!desc) return said("cudaGetChannelDesc", cudaErrorInvalidValue, "desc null");
  *desc = a->desc;
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_off, size_t h_off, const void* src,
                                size_t spitch, size_t width, size_t height, int kind) {
  GPURF_LOCKED;
  return array_copy2d("cudaMemcpy2DToArray", dst, w_off, h_off, const_cast<void*>(src), spitch,
                      width, height, kind, true);
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_off, size_t h_off, const void* src,
                                     size_t spitch, size_t width, size_t height, int kind,
                                     cudaStream_t) {
  GPURF_LOCKED;
  return array_copy2d("cudaMemcpy2DToArrayAsync", dst, w_off, h_off, const_cast<void*>(src), spitch,
                      width, height, kind, true);
}
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, const void* src, size_t w_off,
                                  size_t h_off, size_t width, size_t height, int kind) {
  GPURF_LOCKED;
  return array_copy2d("cudaMemcpy2DFromArray", src, w_off, h_off, dst, dpitch, width, height, kind,
                      false);
}
cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, const void* src, size_t w_off,
                                       size_t h_off, size_t width, size_t height, int kind,
                                       cudaStream_t) {
  GPURF_LOCKED;
  return array_copy2d("cudaMemcpy2DFromArrayAsync", src, w_off, h_off, dst, dpitch, width, height,
                      kind, false);
}
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_off, size_t h_off, const void* src,
                              size_t count, int kind) {
  GPURF_LOCKED;
  return array_copy("cudaMemcpyToArray", dst, w_off, h_off, const_cast<void*>(src), count, kind,
                    true);
}
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w_off, size_t h_off, const void* src,
                                   size_t count, int kind, cudaStream_t) {
  GPURF_LOCKED;
  return array_copy("cudaMemcpyToArrayAsync", dst, w_off, h_off, const_cast<void*>(src), count,
                    kind, true);
}
cudaError_t cudaMemcpyFromArray(void* dst, const void* src, size_t w_off, size_t h_off,
                                size_t count, int kind) {
  GPURF_LOCKED;
  return array_copy("cudaMemcpyFromArray", src, w_off, h_off, dst, count, kind, false);
}
cudaError_t cudaMemcpyFromArrayAsync(void* dst, const void* src, size_t w_off, size_t h_off,
                                     size_t count, int kind, cudaStream_t) {
  GPURF_LOCKED;
  return array_copy("cudaMemcpyFromArrayAsync", src, w_off, h_off, dst, count, kind, false);
}
// Between two 1D/2D arrays: the source rectangle (or `count` bytes from the offset on, row after
// row) as device memory of the array's row pitch, copied into the destination's.
static cudaError_t array_source(const char* call, const void* src, size_t w_off, size_t h_off,
                                size_t width, size_t height, int kind, void*& at,
                                size_t& row_bytes) {
  if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return said(call, cudaErrorInvalidMemcpyDirection,
                "kind " + std::to_string(kind) + " between arrays");
  ArrayRec* a = nullptr;
  if (cudaError_t e = copy_array(call, src, kind, false, a)) return e;
  if (a->depth > 1) return said(call, cudaErrorInvalidValue, "a 3D array (cudaMemcpy3D)");
  if (w_off + width > a->row_bytes() || h_off + height > a->height)
    return said(call, cudaErrorInvalidValue,
                "the source rectangle at (" + std::to_string(w_off) + " bytes, row " +
                    std::to_string(h_off) + ") of " + std::to_string(width) + " bytes x " +
                    std::to_string(height) + " rows is outside the array's " +
                    std::to_string(a->row_bytes()) + " bytes x " + std::to_string(a->height) +
                    " rows");
  at = reinterpret_cast<void*>(a->base + h_off * a->row_bytes() + w_off);
  row_bytes = a->row_bytes();
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wd, size_t hd, const void* src,
                                     size_t ws, size_t hs, size_t width, size_t height, int kind) {
  GPURF_LOCKED;
  const char* call = "cudaMemcpy2DArrayToArray";
  void* at = nullptr;
  size_t row = 0;
  if (cudaError_t e = array_source(call, src, ws, hs, width, height, kind, at, row)) return e;
  return array_copy2d(call, dst, wd, hd, at, row, width, height, cudaMemcpyDeviceToDevice, true);
}
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wd, size_t hd, const void* src,
                                   size_t ws, size_t hs, size_t count, int kind) {
  GPURF_LOCKED;
  const char* call = "cudaMemcpyArrayToArray";
  void* at = nullptr;
  size_t row = 0;
  if (cudaError_t e = array_source(call, src, ws, hs, 0, 0, kind, at, row)) return e;
  ArrayRec* s = rt().textures.find_array(src);
  if (hs * row + ws + count > s->bytes())
    return said(call, cudaErrorInvalidValue,
                std::to_string(count) + " bytes from (" + std::to_string(ws) + " bytes, row " +
                    std::to_string(hs) + ") run past the source array's " +
                    std::to_string(s->bytes()) + " bytes");
  return array_copy(call, dst, wd, hd, at, count, cudaMemcpyDeviceToDevice, true);
}
// Between arrays (positions and extent in texels) and pitched memory (in bytes when no array
// takes part), slice by slice, row by row.
} // extern "C"
namespace gpurf::cudart {
cudaError_t copy_3d(const char* call, const cudaMemcpy3DParms* p) {
  if (!p) return said(call, cudaErrorInvalidValue, "no parameters (null)");
  if (cudaError_t e = rt().status()) return ret(e);
  if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault)
    return said(call, cudaErrorInvalidMemcpyDirection, "kind " + std::to_string(p->kind));
  ArrayRec* arr[2] = {nullptr, nullptr}; // source, destination
  const void* handle[2] = {p->srcArray, p->dstArray};
  const cudaPitchedPtr* ptr[2] = {&p->srcPtr, &p->dstPtr};
  const cudaPos* pos[2] = {&p->srcPos, &p->dstPos};
  for (int k = 0; k < 2; ++k) {
    if (!handle[k] == !ptr[k]->ptr)
      return said(call, cudaErrorInvalidValue,
                  std::string("give exactly one of ") +
                      (k ? "dstArray, dstPtr" : "srcArray, srcPtr"));
    if (handle[k])
      if (cudaError_t e = find_array(call, handle[k], arr[k])) return e;
  }
  if (arr[0] && arr[1] && arr[0]->format.bytes() != arr[1]->format.bytes())
    return said(call, cudaErrorInvalidValue, "the arrays' texels differ in size");
  const cudaExtent& e = p->extent;
  const uint64_t elem = arr[0] ? arr[0]->format.bytes() : arr[1] ? arr[1]->format.bytes() : 1;
  const uint64_t width = e.width * elem;
  if (!e.width || !e.height || !e.depth) return cudaSuccess;
  uint64_t at[2], pitch[2], slice[2];
  for (int k = 0; k < 2; ++k) {
    const cudaPos& q = *pos[k];
    if (const ArrayRec* a = arr[k]) {
      if (q.x + e.width > a->width || q.y + e.height > a->height || q.z + e.depth > a->depth)
        return said(call, cudaErrorInvalidValue,
                    std::string(k ? "destination" : "source") + " box outside the array");
      pitch[k] = a->row_bytes();
      slice[k] = pitch[k] * a->height;
      at[k] = a->base + q.z * slice[k] + q.y * pitch[k] + q.x * elem;
    } else {
      const cudaPitchedPtr& m = *ptr[k];
      if (q.x + width > m.pitch)
        return said(call, cudaErrorInvalidPitchValue,
                    std::string(k ? "destination" : "source") + " rows of " +
                        std::to_string(q.x + width) + " bytes above the pitch " +
                        std::to_string(m.pitch));
      if (e.depth > 1 && q.y + e.height > m.ysize)
        return said(call, cudaErrorInvalidValue,
                    std::string(k ? "destination" : "source") + " ysize " +
                        std::to_string(m.ysize) + " below the rows copied per slice");
      pitch[k] = m.pitch;
      slice[k] = m.pitch * m.ysize;
      at[k] = reinterpret_cast<uint64_t>(m.ptr) + q.z * slice[k] + q.y * pitch[k] + q.x;
    }
  }
  for (uint64_t z = 0; z < e.depth; ++z)
    for (uint64_t y = 0; y < e.height; ++y)
      if (cudaError_t err =
              rt().memcpy(reinterpret_cast<void*>(at[1] + z * slice[1] + y * pitch[1]),
                          reinterpret_cast<const void*>(at[0] + z * slice[0] + y * pitch[0]), width,
                          cudaMemcpyDefault))
        return ret(err);
  return cudaSuccess;
}
} // namespace gpurf::cudart
extern "C" {
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  GPURF_LOCKED;
  GPURF_CAPTURE_FORBIDS("cudaMemcpy3D", true);
  return copy_3d("cudaMemcpy3D", p);
}
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t s) {
  GPURF_LOCKED;
  cudaError_t e = cudaSuccess;
  if (captured(s, "cudaMemcpy3DAsync", e, [&](Node& x) -> cudaError_t {
        x.type = kNodeMemcpy;
        return set_copy(x, "cudaMemcpy3DAsync", p);
      }))
    return ret(e);
  return copy_3d("cudaMemcpy3DAsync", p);
}
cudaError_t cudaCreateTextureObject(cudaTextureObject_t* t, const cudaResourceDesc* res,
                                    const cudaTextureDesc* tex, const cudaResourceViewDesc* view) {
  GPURF_LOCKED;
  static_assert(sizeof(cudaTextureObject_t) == sizeof(uint64_t), "64-bit handles");
  return make_object("cudaCreateTextureObject", reinterpret_cast<uint64_t*>(t), res, tex, view,
                     false);
}
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* s, const cudaResourceDesc* res) {
  GPURF_LOCKED;
  return make_object("cudaCreateSurfaceObject", reinterpret_cast<uint64_t*>(s), res, nullptr,
                     nullptr, true);
}
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t) {
  GPURF_LOCKED;
  return said("cudaDestroyTextureObject", rt().textures.destroy(t, false),
              "not a live texture object");
}
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s) {
  GPURF_LOCKED;
  return said("cudaDestroySurfaceObject", rt().textures.destroy(s, true),
              "not a live surface object");
}
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* res, cudaTextureObject_t t) {
  GPURF_LOCKED;
  return object_resource("cudaGetTextureObjectResourceDesc", res, t, false);
}
cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* res, cudaSurfaceObject_t s) {
  GPURF_LOCKED;
  return object_resource("cudaGetSurfaceObjectResourceDesc", res, s, true);
}
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* tex, cudaTextureObject_t t) {
  GPURF_LOCKED;
  const TextureObjects::Object* o = rt().textures.find(t, false);
  if (!tex || !o)
    return said("cudaGetTextureObjectTextureDesc", cudaErrorInvalidValue,
                tex ? "not a live texture object" : "no place for the descriptor (null)");
  *tex = o->tex;
  return cudaSuccess;
}

// ------------------------------------------------------------------------------ device

cudaError_t cudaGetDeviceCount(int* n) {
  GPURF_LOCKED;
  if (!n) return ret(cudaErrorInvalidValue);
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* d) {
  GPURF_LOCKED;
  if (!d) return ret(cudaErrorInvalidValue);
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  GPURF_LOCKED;
  return d == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice);
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  GPURF_LOCKED;
  if (!p) return ret(cudaErrorInvalidValue);
  if (d != 0) return ret(cudaErrorInvalidDevice);
  return ret(rt().properties(*p));
}
cudaError_t cudaDeviceGetAttribute(int* v, int attr, int d) {
  GPURF_LOCKED;
  if (!v) return ret(cudaErrorInvalidValue);
  if (d != 0) return ret(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  if (cudaError_t e = rt().properties(p)) return ret(e);
  switch (attr) { // cudaDeviceAttr values
  case 1:
    *v = p.maxThreadsPerBlock;
    break;
  case 2:
  case 3:
    *v = p.maxThreadsDim[attr - 2];
    break;
  case 4:
    *v = p.maxThreadsDim[2];
    break;
  case 5:
  case 6:
  case 7:
    *v = p.maxGridSize[attr - 5];
    break;
  case 8:
    *v = int(p.sharedMemPerBlock);
    break;
  case 9:
    *v = int(p.totalConstMem);
    break;
  case 10:
    *v = 32;
    break;
  case 12:
    *v = p.regsPerBlock;
    break;
  case 13: // clock rate in kHz
    *v = int(rt().gpu().sm(0).shape().clock_ghz * 1e6);
    break;
  case 16:
    *v = p.multiProcessorCount;
    break;
  case 19:
    *v = p.canMapHostMemory;
    break;
  case 38:
    *v = p.l2CacheSize;
    break;
  case 39:
    *v = p.maxThreadsPerMultiProcessor;
    break;
  case 41:
    *v = 1;
    break;
  case 75:
    *v = p.major;
    break;
  case 76:
    *v = p.minor;
    break;
  case 81:
    *v = int(p.sharedMemPerMultiprocessor);
    break;
  case 82:
    *v = p.regsPerMultiprocessor;
    break;
  case 83:
    *v = p.managedMemory;
    break;
  case 95: // cudaDevAttrCooperativeLaunch
    *v = p.cooperativeLaunch;
    break;
  case 97:
    *v = int(p.sharedMemPerBlockOptin);
    break;
  case 106:
    *v = p.maxBlocksPerMultiProcessor;
    break;
  case 115: // cudaDevAttrMemoryPoolsSupported: cudaMallocAsync and the default pool work
    *v = 1;
    break;
  case 11:
    *v = int(std::min<size_t>(p.memPitch, INT32_MAX));
    break;
  case 14:
    *v = int(p.textureAlignment);
    break;
  case 37:
    *v = p.memoryBusWidth;
    break;
  case 79:
    *v = p.globalL1CacheSupported;
    break;
  case 80:
    *v = p.localL1CacheSupported;
    break;
  // Managed memory: the host may touch it between launches while none runs (each launch runs
  // to its end inside the call), as concurrent access allows; a host-registered pointer is
  // the device's too.
  case 89: // cudaDevAttrConcurrentManagedAccess
    *v = p.managedMemory;
    break;
  case 91: // cudaDevAttrCanUseHostPointerForRegisteredMem
  case 99: // cudaDevAttrHostRegisterSupported
    *v = p.canMapHostMemory;
    break;
  // What a discrete GPU of the usual setup answers: no overlap of copies and kernels (copies
  // and launches run one at a time), no run-time limit, not integrated, the default compute
  // mode, no ECC, no PCI address, one GPU on the board, no host-native atomics or pageable
  // memory access, one priority (cudaDeviceGetStreamPriorityRange's 0, 0), no reserved
  // shared memory.
  case 15:
  case 17:
  case 18:
  case 20:
  case 31:
  case 32:
  case 33:
  case 34:
  case 35:
  case 40:
  case 50:
  case 78:
  case 84:
  case 86:
  case 88:
  case 100:
  case 101:
  case 111:
  case 108: // cudaDevAttrMaxPersistingL2CacheSize: no persisting lines (a hint gpurf ignores)
  case 120: // cudaDevAttrClusterLaunch: thread-block clusters are not modelled
    *v = 0;
    break;
  default: {
    // Not one of CUDA 13's cudaDeviceAttr values: "invalid argument", as CUDA answers.
    static const std::set<int> gaps = {44, 102, 103, 104, 105, 107, 110, 136, 137, 146};
    if (attr < 1 || attr > 147 || gaps.count(attr)) return ret(cudaErrorInvalidValue);
    std::fprintf(stderr, "gpurf: cudaDeviceGetAttribute: attribute %d is not modelled (0)\n", attr);
    *v = 0;
  }
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() {
  GPURF_LOCKED;
  if (cudaError_t e = capture_sync("cudaDeviceSynchronize", nullptr)) return ret(e);
  return ret(rt().status());
}
cudaError_t cudaDeviceReset() {
  GPURF_LOCKED;
  rt().sticky = cudaSuccess; // the simulation goes on: caches and statistics are kept
  rt().last_error = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(int) {
  GPURF_LOCKED;
  return ret(rt().status());
}
// The L1/shared split is the platform's: no preference, as a device that has none reports.
cudaError_t cudaDeviceGetCacheConfig(int* config) {
  GPURF_LOCKED;
  if (!config) return ret(cudaErrorInvalidValue);
  *config = 0; // cudaFuncCachePreferNone
  return ret(rt().status());
}
// Shared-memory bank width (deprecated, still in CUDA 13; double-precision programs ask for
// eight-byte banks): the platform's bank width is fixed (the LSU's shared_bank_bytes), so
// as on CUDA's devices without configurable banks a set does nothing and succeeds, and a get
// reports four bytes, the device default; a value outside cudaSharedMemConfig is
// cudaErrorInvalidValue.
cudaError_t cudaDeviceSetSharedMemConfig(int config) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  return config < 0 || config > 2 ? ret(cudaErrorInvalidValue) : cudaSuccess;
}
cudaError_t cudaDeviceGetSharedMemConfig(int* config) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  if (!config) return ret(cudaErrorInvalidValue);
  *config = 1; // cudaSharedMemBankSizeFourByte
  return cudaSuccess;
}
cudaError_t cudaFuncSetSharedMemConfig(const void* fun, int config) {
  GPURF_LOCKED;
  if (cudaError_t e = rt().status()) return ret(e);
  if (!rt().kernel(fun)) return ret(cudaErrorInvalidDeviceFunction);
  return config < 0 || config > 2 ? ret(cudaErrorInvalidValue) : cudaSuccess;
}
// The limits a program may set and read back (cudaLimit: stack, printf FIFO, malloc heap, device
// runtime depth and launches, L2 fetch granularity, persisting L2), with CUDA's defaults. They
// change nothing gpurf models: local memory follows the kernel's .local stack.
cudaError_t cudaDeviceGetLimit(size_t* value, int limit) {
  GPURF_LOCKED;
  if (limit < 0 || limit >= int(std::size(rt().limits))) return ret(cudaErrorUnsupportedLimit);
  if (!value) return ret(cudaErrorInvalidValue);
  *value = rt().limits[size_t(limit)];
  return cudaSuccess;
}
cudaError_t cudaDeviceSetLimit(int limit, size_t value) {
  GPURF_LOCKED;
  if (limit < 0 || limit >= int(std::size(rt().limits))) return ret(cudaErrorUnsupportedLimit);
  rt().limits[size_t(limit)] = value;
  return cudaSuccess;
}
static unsigned device_flags = 0; // what cudaSetDeviceFlags set (no effect on the model)
cudaError_t cudaSetDeviceFlags(unsigned flags) {
  GPURF_LOCKED;
  device_flags = flags;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceFlags(unsigned* flags) {
  GPURF_LOCKED;
  if (!flags) return ret(cudaErrorInvalidValue);
  *flags = device_flags;
  return cudaSuccess;
}
// One device: the one to choose, and no peer (a device is not its own peer, as on CUDA).
cudaError_t cudaChooseDevice(int* device, const void* prop) {
  GPURF_LOCKED;
  if (!device || !prop) return ret(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  GPURF_LOCKED;
  if (!can) return ret(cudaErrorInvalidValue);
  if (device != 0 || peer != 0) return ret(cudaErrorInvalidDevice);
  *can = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int, unsigned) {
  GPURF_LOCKED;
  return ret(cudaErrorInvalidDevice); // the only device is the current one
}
cudaError_t cudaDeviceDisablePeerAccess(int) {
  GPURF_LOCKED;
  return ret(cudaError_t(705)); // cudaErrorPeerAccessNotEnabled: it never is (above)
}
// The one device's bus id, as cudaDeviceGetPCIBusId gives it (either case); any other:
// cudaErrorInvalidDevice.
cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* id) {
  GPURF_LOCKED;
  if (!device || !id) return ret(cudaErrorInvalidValue);
  if (::strcasecmp(id, "0000:00:00.0") && ::strcasecmp(id, "00:00.0"))
    return ret(cudaErrorInvalidDevice);
  *device = 0;
  return cudaSuccess;
}
// CUDA 12's explicit initialisation of a device: device 0 only; the flags as cudaSetDeviceFlags'.
cudaError_t cudaInitDevice(int device, unsigned device_flags, unsigned) {
  GPURF_LOCKED;
  if (device != 0) return ret(cudaErrorInvalidDevice);
  if (device_flags) cudaSetDeviceFlags(device_flags);
  return ret(rt().status());
}
cudaError_t cudaSetValidDevices(int* devices, int len) {
  GPURF_LOCKED;
  if (len < 0 || (len && !devices)) return ret(cudaErrorInvalidValue);
  for (int i = 0; i < len; ++i)
    if (devices[i] != 0) return ret(cudaErrorInvalidDevice);
  return cudaSuccess;
}
cudaError_t cudaDeviceGetPCIBusId(char* id, int len, int device) {
  GPURF_LOCKED;
  if (!id || len <= 0) return ret(cudaErrorInvalidValue);
  if (device != 0) return ret(cudaErrorInvalidDevice);
  std::snprintf(id, size_t(len), "%s", "0000:00:00.0");
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  GPURF_LOCKED;
  if (!v) return ret(cudaErrorInvalidValue);
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  GPURF_LOCKED;
  if (!v) return ret(cudaErrorInvalidValue);
  *v = 13000;
  return cudaSuccess;
}

// ------------------------------------------------------------------------------ errors

cudaError_t cudaGetLastError() {
  GPURF_LOCKED;
  const cudaError_t e = rt().sticky ? rt().sticky : rt().last_error;
  rt().last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() {
  GPURF_LOCKED;
  return rt().sticky ? rt().sticky : rt().last_error;
}
const char* cudaGetErrorString(cudaError_t e) {
  GPURF_LOCKED;
  const ErrorName* n = find_error(e);
  return n ? n->text : "unrecognized error code";
}
const char* cudaGetErrorName(cudaError_t e) {
  GPURF_LOCKED;
  const ErrorName* n = find_error(e);
  return n ? n->name : "unrecognized error code";
}

// ------------------------------------------------------------------------------ streams, events
// One in-order queue: every operation has ended when its call returns.

cudaError_t cudaStreamCreate(cudaStream_t* s) {
  GPURF_LOCKED;
  if (rt().sticky) return ret(rt().sticky); // a context a kernel broke makes nothing new
  if (!s) return ret(cudaErrorInvalidValue);
  *s = new char;
  rt().streams[*s] = 0;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  GPURF_LOCKED;
  if (cudaError_t e = cudaStreamCreate(s)) return e;
  rt().streams[*s] = int(flags); // cudaStreamNonBlocking: not ordered after the legacy stream
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags, int) {
  GPURF_LOCKED;
  return cudaStreamCreateWithFlags(s, flags);
}
// The flags the stream was made with; the default streams (0, cudaStreamLegacy,
// cudaStreamPerThread) have none.
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned* flags) {
  GPURF_LOCKED;
  if (!flags) return ret(cudaErrorInvalidValue);
  if (reinterpret_cast<uintptr_t>(s) <= 2) {
    *flags = 0;
    return cudaSuccess;
  }
  auto it = rt().streams.find(s);
  if (it == rt().streams.end()) return ret(cudaErrorInvalidResourceHandle);
  *flags = unsigned(it->second);
  return cudaSuccess;
}
cudaError_t cudaStreamGetPriority(cudaStream_t s, int* priority);
// A stream's id (unique while the program runs: its handle; the legacy and per-thread default
// streams 0 and 2) and its device.
cudaError_t cudaStreamGetId(cudaStream_t s, unsigned long long* id) {
  GPURF_LOCKED;
  if (!id) return ret(cudaErrorInvalidValue);
  if (reinterpret_cast<uintptr_t>(s) > 2 && !rt().streams.count(s))
    return ret(cudaErrorInvalidResourceHandle);
  *id = reinterpret_cast<uintptr_t>(s) == 1 ? 0 : reinterpret_cast<uintptr_t>(s);
  return cudaSuccess;
}
cudaError_t cudaStreamGetDevice(cudaStream_t s, int* device) {
  GPURF_LOCKED;
  if (!device) return ret(cudaErrorInvalidValue);
  if (reinterpret_cast<uintptr_t>(s) > 2 && !rt().streams.count(s))
    return ret(cudaErrorInvalidResourceHandle);
  *device = 0;
  return cudaSuccess;
}
// Stream attributes (cudaStreamAttributeAccessPolicyWindow: L2 persistence; synchronisation
// policy; priority): hints that change no value here. Set is accepted; Get gives zeros (no
// window), except the priority the stream was created with.
cudaError_t cudaStreamSetAttribute(cudaStream_t s, int, const void* value) {
  GPURF_LOCKED;
  if (!value) return ret(cudaErrorInvalidValue);
  if (reinterpret_cast<uintptr_t>(s) > 2 && !rt().streams.count(s))
    return ret(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}
// Stream attributes are hints kept nowhere (above): nothing to copy, the handles checked.
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  GPURF_LOCKED;
  for (cudaStream_t s : {dst, src})
    if (reinterpret_cast<uintptr_t>(s) > 2 && !rt().streams.count(s))
      return ret(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
  return cudaStreamCopyAttributes(per_thread(dst), per_thread(src));
}
cudaError_t cudaStreamGetAttribute(cudaStream_t s, int attr, void* value) {
  GPURF_LOCKED;
  if (!value) return ret(cudaErrorInvalidValue);
  if (reinterpret_cast<uintptr_t>(s) > 2 && !rt().streams.count(s))
    return ret(cudaErrorInvalidResourceHandle);
  std::memset(value, 0, 64); // a cudaLaunchAttributeValue
  if (attr == 8) {           // cudaLaunchAttributePriority
    int pr = 0;
    cudaStreamGetPriority(s, &pr);
    std::memcpy(value, &pr, sizeof pr);
  }
  return cudaSuccess;
}
cudaError_t cudaStreamGetId_ptsz(cudaStream_t s, unsigned long long* id) {
  return cudaStreamGetId(per_thread(s), id);
}
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t s, int* device) {
  return cudaStreamGetDevice(per_thread(s), device);
}
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t s, int attr, const void* value) {
  return cudaStreamSetAttribute(per_thread(s), attr, value);
}
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t s, int attr, void* value) {
  return cudaStreamGetAttribute(per_thread(s), attr, value);
}
// Persisting L2 lines are a hint gpurf does not keep: there are none to reset.
cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }
// cudaGetKernel: a kernel's context-independent handle; here the host symbol, which
// cudaLaunchKernel, cudaFuncGetAttributes and cudaGetFuncBySymbol take.
cudaError_t cudaGetKernel(void** kernel, const void* fun) {
  GPURF_LOCKED;
  if (!kernel) return ret(cudaErrorInvalidValue);
  if (!rt().kernel(fun)) return ret(cudaErrorInvalidDeviceFunction);
  *kernel = const_cast<void*>(fun);
  return cudaSuccess;
}
// Managed memory is copied whole around every launch: attaching it to a stream changes nothing.
cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void* p, size_t, unsigned) {
  GPURF_LOCKED;
  return p ? cudaSuccess : ret(cudaErrorInvalidValue);
}
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t s, void* p, size_t n, unsigned f) {
  return cudaStreamAttachMemAsync(s, p, n, f);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  GPURF_LOCKED;
  if (!rt().streams.erase(s)) return ret(cudaErrorInvalidResourceHandle);
  delete static_cast<char*>(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  GPURF_LOCKED;
  if (cudaError_t e = capture_sync("cudaStreamSynchronize", s ? s : cudaStream_t(1))) return ret(e);
  return ret(rt().status());
}
cudaError_t cudaStreamQuery(cudaStream_t s) {
  GPURF_LOCKED;
  if (cudaError_t e = capture_sync("cudaStreamQuery", s ? s : cudaStream_t(1))) return ret(e);
  return ret(rt().status());
}
// A host function runs when the stream's earlier work is done: gpurf finishes every launch and
// copy inside its call, so that is now, in the calling thread.
cudaError_t cudaLaunchHostFunc(cudaStream_t s, void (*fn)(void*), void* data) {
  GPURF_LOCKED;
  if (!fn) return ret(cudaErrorInvalidValue);
  cudaError_t e = cudaSuccess;
  if (captured(s, "cudaLaunchHostFunc", e, [&](Node& x) -> cudaError_t {
        x.type = kNodeHost;
        x.host = {fn, data};
        return cudaSuccess;
      }))
    return ret(e);
  if (cudaError_t e = rt().status()) return ret(e);
  fn(data);
  return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, void (*fn)(void*), void* data) {
  return cudaLaunchHostFunc(per_thread(s), fn, data);
}
cudaError_t cudaStreamAddCallback(cudaStream_t s, void (*cb)(cudaStream_t, cudaError_t, void*),
                                  void* data, unsigned flags) {
  GPURF_LOCKED;
  if (!cb || flags != 0) return ret(cudaErrorInvalidValue); // CUDA: flags must be 0
  cudaError_t e = cudaSuccess;
  if (not_captured("cudaStreamAddCallback", s, "a stream callback (use cudaLaunchHostFunc)", e))
    return ret(e);
  cb(s, rt().status(), data);
  return cudaSuccess;
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t s, void (*cb)(cudaStream_t, cudaError_t, void*),
                                       void* data, unsigned flags) {
  return cudaStreamAddCallback(per_thread(s), cb, data, flags);
}
// One in-order queue: no priorities (the range is [0, 0]). Capture: graphs.cpp.
cudaError_t cudaStreamGetPriority(cudaStream_t, int* priority) {
  GPURF_LOCKED;
  if (!priority) return ret(cudaErrorInvalidValue);
  *priority = 0;
  return cudaSuccess;
}
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t s, int* priority) {
  return cudaStreamGetPriority(per_thread(s), priority);
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  GPURF_LOCKED;
  if (least) *least = 0;
  if (greatest) *greatest = 0;
  return cudaSuccess;
}
// The profiler's range markers: nothing to start (gpurf's statistics cover every launch).
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned) {
  GPURF_LOCKED;
  if (rt().sticky) return ret(rt().sticky);
  cudaError_t e = cudaSuccess;
  if (capture_event_wait(s, ev, e)) return ret(e); // a fork or join of a capture
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  GPURF_LOCKED;
  if (rt().sticky) return ret(rt().sticky);
  if (!e) return ret(cudaErrorInvalidValue);
  *e = new char;
  rt().events[*e] = Event{};
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags) {
  GPURF_LOCKED;
  if (cudaError_t r = cudaEventCreate(e)) return r;
  rt().events[*e].timing = !(flags & 0x02); // cudaEventDisableTiming
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  GPURF_LOCKED;
  if (!rt().events.erase(e)) return ret(cudaErrorInvalidResourceHandle);
  delete static_cast<char*>(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  GPURF_LOCKED;
  if (rt().sticky) return ret(rt().sticky); // as every call that uses the broken context
  auto it = rt().events.find(e);
  if (it == rt().events.end()) return ret(cudaErrorInvalidResourceHandle);
  cudaError_t ce = cudaSuccess;
  if (capture_event_record(e, s, ce)) return ret(ce); // the capture's position, for a fork/join
  if (cudaError_t err = rt().ensure()) return ret(err);
  it->second.time_ns = rt().now_ns();
  it->second.recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned) {
  GPURF_LOCKED;
  return cudaEventRecord(e, s);
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  GPURF_LOCKED;
  if (event_captured(e)) return ret(cudaErrorCapturedEvent);
  return rt().events.count(e) ? ret(rt().status()) : ret(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventQuery(cudaEvent_t e) {
  GPURF_LOCKED;
  if (event_captured(e)) return ret(cudaErrorCapturedEvent);
  return rt().events.count(e) ? ret(rt().status()) : ret(cudaErrorInvalidResourceHandle);
}
// Simulated time between the events, in milliseconds.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  GPURF_LOCKED;
  auto ia = rt().events.find(a), ib = rt().events.find(b);
  if (!ms || ia == rt().events.end() || ib == rt().events.end())
    return ret(cudaErrorInvalidResourceHandle);
  if (!ia->second.timing || !ib->second.timing) return ret(cudaErrorInvalidResourceHandle);
  // Never recorded: "invalid resource handle", as the Runtime API documents (not "not ready",
  // which is for a recorded event whose work has not finished: none here).
  if (!ia->second.recorded || !ib->second.recorded) return ret(cudaErrorInvalidResourceHandle);
  *ms = float((ib->second.time_ns - ia->second.time_ns) * 1e-6);
  return cudaSuccess;
}

// Programs built with `nvcc --default-stream per-thread` call these forms: `_ptds` the
// synchronous calls (on the calling thread's default stream, which the one in-order queue
// serves as any other), `_ptsz` the calls taking a stream, where 0 names that stream.
cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t n, int kind) {
  return cudaMemcpy(dst, src, n, kind);
}
cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t n, int kind, cudaStream_t s) {
  return cudaMemcpyAsync(dst, src, n, kind, per_thread(s));
}
cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, int kind) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch,
                                   size_t width, size_t height, int kind, cudaStream_t s) {
  return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, per_thread(s));
}
cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) { return cudaMemcpy3D(p); }
cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t s) {
  return cudaMemcpy3DAsync(p, per_thread(s));
}
cudaError_t cudaMemset_ptds(void* p, int v, size_t n) { return cudaMemset(p, v, n); }
cudaError_t cudaMemsetAsync_ptsz(void* p, int v, size_t n, cudaStream_t s) {
  return cudaMemsetAsync(p, v, n, per_thread(s));
}
cudaError_t cudaMemset2D_ptds(void* p, size_t pitch, int v, size_t width, size_t height) {
  return cudaMemset2D(p, pitch, v, width, height);
}
cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int v, cudaExtent e) {
  return cudaMemset3D(p, v, e);
}
cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int v, cudaExtent e, cudaStream_t s) {
  return cudaMemset3DAsync(p, v, e, per_thread(s));
}
cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t n, size_t offset,
                                    int kind) {
  return cudaMemcpyToSymbol(symbol, src, n, offset, kind);
}
cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t n, size_t offset,
                                      int kind) {
  return cudaMemcpyFromSymbol(dst, symbol, n, offset, kind);
}
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t n,
                                         size_t offset, int kind, cudaStream_t s) {
  return cudaMemcpyToSymbolAsync(symbol, src, n, offset, kind, per_thread(s));
}
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t n, size_t offset,
                                           int kind, cudaStream_t s) {
  return cudaMemcpyFromSymbolAsync(dst, symbol, n, offset, kind, per_thread(s));
}
cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t w_off, size_t h_off, const void* src,
                                     size_t spitch, size_t width, size_t height, int kind) {
  return cudaMemcpy2DToArray(dst, w_off, h_off, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t w_off, size_t h_off,
                                          const void* src, size_t spitch, size_t width,
                                          size_t height, int kind, cudaStream_t s) {
  return cudaMemcpy2DToArrayAsync(dst, w_off, h_off, src, spitch, width, height, kind,
                                  per_thread(s));
}
cudaError_t cudaMemcpy2DFromArray_ptds(void* dst, size_t dpitch, const void* src, size_t w_off,
                                       size_t h_off, size_t width, size_t height, int kind) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, w_off, h_off, width, height, kind);
}
cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t w_off,
                                            size_t h_off, size_t width, size_t height, int kind,
                                            cudaStream_t s) {
  return cudaMemcpy2DFromArrayAsync(dst, dpitch, src, w_off, h_off, width, height, kind,
                                    per_thread(s));
}
cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wd, size_t hd, const void* src,
                                          size_t ws, size_t hs, size_t width, size_t height,
                                          int kind) {
  return cudaMemcpy2DArrayToArray(dst, wd, hd, src, ws, hs, width, height, kind);
}
cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wd, size_t hd, const void* src,
                                        size_t ws, size_t hs, size_t count, int kind) {
  return cudaMemcpyArrayToArray(dst, wd, hd, src, ws, hs, count, kind);
}
cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t w_off, size_t h_off, const void* src,
                                   size_t count, int kind) {
  return cudaMemcpyToArray(dst, w_off, h_off, src, count, kind);
}
cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t w_off, size_t h_off,
                                        const void* src, size_t count, int kind, cudaStream_t s) {
  return cudaMemcpyToArrayAsync(dst, w_off, h_off, src, count, kind, per_thread(s));
}
cudaError_t cudaMemcpyFromArray_ptds(void* dst, const void* src, size_t w_off, size_t h_off,
                                     size_t count, int kind) {
  return cudaMemcpyFromArray(dst, src, w_off, h_off, count, kind);
}
cudaError_t cudaMemcpyFromArrayAsync_ptsz(void* dst, const void* src, size_t w_off, size_t h_off,
                                          size_t count, int kind, cudaStream_t s) {
  return cudaMemcpyFromArrayAsync(dst, src, w_off, h_off, count, kind, per_thread(s));
}
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) {
  return cudaStreamSynchronize(per_thread(s));
}
cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return cudaStreamQuery(per_thread(s)); }
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t ev, unsigned flags) {
  return cudaStreamWaitEvent(per_thread(s), ev, flags);
}
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned* flags) {
  return cudaStreamGetFlags(per_thread(s), flags);
}
cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) {
  return cudaEventRecord(e, per_thread(s));
}
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned flags) {
  return cudaEventRecordWithFlags(e, per_thread(s), flags);
}

// libsystemc.so refers to sc_main (its own main calls it); the program has its own main, so
// this is never called.
int sc_main(int, char**) { return 0; }

} // extern "C"
