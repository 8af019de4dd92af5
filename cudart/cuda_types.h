// The few CUDA runtime types libgpurf-cudart needs, declared here with the layouts and values of
// CUDA 13's headers (facts of the ABI; no CUDA header is included). tests/programs checks the
// layouts against the real headers when nvcc is present (cudart_layout.cu).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpurf::cudart {

using cudaError_t = int;
enum : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorMissingConfiguration = 52,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorStartupFailure = 127,
  cudaErrorInvalidKernelImage = 200,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorInvalidPtx = 218,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorSymbolNotFound = 500,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
};

// cudaMemcpyKind
enum : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
using cudaStream_t = void*;
using cudaEvent_t = void*;

// cudaLaunchKernelExC's configuration (CUDA 13): a cudaLaunchAttribute is its id, padding to 8
// bytes and a 64-byte value union.
enum : unsigned { cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeCooperative = 2 };
struct cudaLaunchAttribute {
  unsigned id;
  char pad[4];
  union {
    char pad[64];
    int cooperative;
  } val;
};
struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned numAttrs;
};

// cudaFuncAttributes (CUDA 13).
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
  int maxDynamicSharedSizeBytes, preferredShmemCarveout, clusterDimMustBeSet;
  int requiredClusterWidth, requiredClusterHeight, requiredClusterDepth;
  int clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed;
  int reserved[16];
};

// cudaDeviceProp (CUDA 13), member for member.
struct cudaDeviceProp {
  char name[256];
  unsigned char uuid[16];
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int multiProcessorCount, integrated, canMapHostMemory;
  int maxTexture1D, maxTexture1DMipmap, maxTexture2D[2], maxTexture2DMipmap[2];
  int maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3];
  int maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2], maxSurface3D[3];
  int maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver;
  int asyncEngineCount, unifiedAddressing, memoryBusWidth, l2CacheSize;
  int persistingL2CacheMaxSize, maxThreadsPerMultiProcessor, streamPrioritiesSupported;
  int globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID;
  int hostNativeAtomicSupported, pageableMemoryAccess, concurrentManagedAccess;
  int computePreemptionSupported, canUseHostPointerForRegisteredMem, cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch;
  int unifiedFunctionPointers, deviceNumaConfig, deviceNumaId, mpsEnabled, hostNumaId;
  unsigned int gpuPciDeviceID, gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};

} // namespace gpurf::cudart
