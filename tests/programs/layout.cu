// libgpurf-cudart declares the runtime's types itself (cudart/cuda_types.h): their layouts must
// be CUDA 13's. Compiled against both declarations (tests/cli/programs.sh): a mismatch fails
// to compile.
#include <cstddef>
#include <cuda_runtime.h>
#include "cudart/cuda_types.h"

namespace g = gpurf::cudart;
#define SAME(T, f) static_assert(offsetof(T, f) == offsetof(g::T, f), #T "::" #f);
static_assert(sizeof(cudaDeviceProp) == sizeof(g::cudaDeviceProp), "cudaDeviceProp");
static_assert(sizeof(cudaFuncAttributes) == sizeof(g::cudaFuncAttributes), "cudaFuncAttributes");
static_assert(sizeof(dim3) == sizeof(g::dim3), "dim3");
SAME(cudaDeviceProp, totalGlobalMem)
SAME(cudaDeviceProp, sharedMemPerBlock)
SAME(cudaDeviceProp, warpSize)
SAME(cudaDeviceProp, maxThreadsPerBlock)
SAME(cudaDeviceProp, maxGridSize)
SAME(cudaDeviceProp, major)
SAME(cudaDeviceProp, minor)
SAME(cudaDeviceProp, multiProcessorCount)
SAME(cudaDeviceProp, canMapHostMemory)
SAME(cudaDeviceProp, surfaceAlignment)
SAME(cudaDeviceProp, unifiedAddressing)
SAME(cudaDeviceProp, l2CacheSize)
SAME(cudaDeviceProp, maxThreadsPerMultiProcessor)
SAME(cudaDeviceProp, sharedMemPerMultiprocessor)
SAME(cudaDeviceProp, regsPerMultiprocessor)
SAME(cudaDeviceProp, managedMemory)
SAME(cudaDeviceProp, cooperativeLaunch)
SAME(cudaDeviceProp, sharedMemPerBlockOptin)
SAME(cudaDeviceProp, maxBlocksPerMultiProcessor)
SAME(cudaDeviceProp, reservedSharedMemPerBlock)
SAME(cudaDeviceProp, gpuDirectRDMAFlushWritesOptions)
SAME(cudaDeviceProp, hostNumaMultinodeIpcSupported)
SAME(cudaDeviceProp, reserved)
SAME(cudaFuncAttributes, numRegs)
SAME(cudaFuncAttributes, maxDynamicSharedSizeBytes)
SAME(cudaFuncAttributes, reserved)
static_assert(sizeof(cudaLaunchAttribute) == sizeof(g::cudaLaunchAttribute), "cudaLaunchAttribute");
static_assert(sizeof(cudaLaunchConfig_t) == sizeof(g::cudaLaunchConfig_t), "cudaLaunchConfig_t");
SAME(cudaLaunchAttribute, val)
SAME(cudaLaunchConfig_t, dynamicSmemBytes)
SAME(cudaLaunchConfig_t, stream)
SAME(cudaLaunchConfig_t, attrs)
SAME(cudaLaunchConfig_t, numAttrs)
static_assert(offsetof(cudaLaunchAttribute, val.cooperative) ==
                  offsetof(g::cudaLaunchAttribute, val.cooperative) &&
              unsigned(cudaLaunchAttributeCooperative) == g::cudaLaunchAttributeCooperative &&
              g::cudaErrorCooperativeLaunchTooLarge == cudaErrorCooperativeLaunchTooLarge,
              "cooperative launch");
static_assert(g::cudaErrorAssert == cudaErrorAssert && g::cudaErrorNotSupported == cudaErrorNotSupported &&
              g::cudaErrorIllegalAddress == cudaErrorIllegalAddress &&
              g::cudaErrorMisalignedAddress == cudaErrorMisalignedAddress &&
              g::cudaErrorLaunchFailure == cudaErrorLaunchFailure &&
              g::cudaErrorNoKernelImageForDevice == cudaErrorNoKernelImageForDevice &&
              g::cudaErrorInvalidConfiguration == cudaErrorInvalidConfiguration &&
              g::cudaMemcpyDefault == cudaMemcpyDefault, "error and enum values");

int main() { return 0; }
