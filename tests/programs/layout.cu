// libgpurf-cudart declares the runtime's types itself (cudart/cuda_types.h): their layouts must
// be CUDA 13's. Compiled against both declarations (tests/cli/programs.sh): a mismatch fails
// to compile.
#include <cstddef>
#include <cuda_runtime.h>
#include "cudart/cuda_types.h"
#include "cudart/graphs.h"

namespace g = gpurf::cudart;
#define SAME(T, f) static_assert(offsetof(T, f) == offsetof(g::T, f), #T "::" #f);
static_assert(sizeof(cudaDeviceProp) == sizeof(g::cudaDeviceProp), "cudaDeviceProp");
static_assert(sizeof(cudaFuncAttributes) == sizeof(g::cudaFuncAttributes), "cudaFuncAttributes");
static_assert(sizeof(cudaPointerAttributes) == sizeof(g::cudaPointerAttributes),
              "cudaPointerAttributes");
static_assert(sizeof(dim3) == sizeof(g::dim3), "dim3");
SAME(cudaDeviceProp, totalGlobalMem)
SAME(cudaPointerAttributes, devicePointer)
SAME(cudaPointerAttributes, hostPointer)
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
              unsigned(cudaLaunchAttributeProgrammaticStreamSerialization) ==
                  g::cudaLaunchAttributeProgrammaticStreamSerialization &&
              g::cudaErrorCooperativeLaunchTooLarge == cudaErrorCooperativeLaunchTooLarge,
              "cooperative launch");
static_assert(g::cudaErrorAssert == cudaErrorAssert && g::cudaErrorNotSupported == cudaErrorNotSupported &&
              g::cudaErrorIllegalAddress == cudaErrorIllegalAddress &&
              g::cudaErrorMisalignedAddress == cudaErrorMisalignedAddress &&
              g::cudaErrorLaunchFailure == cudaErrorLaunchFailure &&
              g::cudaErrorNoKernelImageForDevice == cudaErrorNoKernelImageForDevice &&
              g::cudaErrorInvalidConfiguration == cudaErrorInvalidConfiguration &&
              g::cudaMemcpyDefault == cudaMemcpyDefault, "error and enum values");

// Texture and surface objects, CUDA arrays (cudart/textures.h).
static_assert(sizeof(cudaChannelFormatDesc) == sizeof(g::cudaChannelFormatDesc), "cudaChannelFormatDesc");
static_assert(sizeof(cudaExtent) == sizeof(g::cudaExtent), "cudaExtent");
static_assert(sizeof(cudaResourceDesc) == sizeof(g::cudaResourceDesc), "cudaResourceDesc");
static_assert(sizeof(cudaTextureDesc) == sizeof(g::cudaTextureDesc), "cudaTextureDesc");
static_assert(sizeof(cudaResourceViewDesc) == sizeof(g::cudaResourceViewDesc), "cudaResourceViewDesc");
SAME(cudaChannelFormatDesc, f)
SAME(cudaResourceDesc, res)
SAME(cudaResourceDesc, res.linear.desc)
SAME(cudaResourceDesc, res.linear.sizeInBytes)
SAME(cudaResourceDesc, res.pitch2D.width)
SAME(cudaResourceDesc, res.pitch2D.pitchInBytes)
SAME(cudaResourceDesc, flags)
SAME(cudaTextureDesc, filterMode)
SAME(cudaTextureDesc, readMode)
SAME(cudaTextureDesc, sRGB)
SAME(cudaTextureDesc, borderColor)
SAME(cudaTextureDesc, normalizedCoords)
SAME(cudaTextureDesc, seamlessCubemap)
SAME(cudaResourceViewDesc, lastLayer)
static_assert(sizeof(cudaMemcpy3DParms) == sizeof(g::cudaMemcpy3DParms), "cudaMemcpy3DParms");
SAME(cudaMemcpy3DParms, srcPos)
SAME(cudaMemcpy3DParms, srcPtr)
SAME(cudaMemcpy3DParms, dstArray)
SAME(cudaMemcpy3DParms, dstPtr.ysize)
SAME(cudaMemcpy3DParms, extent)
SAME(cudaMemcpy3DParms, kind)
static_assert(g::kArraySurfaceLoadStore == cudaArraySurfaceLoadStore &&
              g::kArrayLayered == cudaArrayLayered && g::kArrayCubemap == cudaArrayCubemap &&
              g::kArraySparse == cudaArraySparse &&
              g::kArrayDeferredMapping == cudaArrayDeferredMapping &&
              int(g::cudaChannelFormatKindNV12) == int(cudaChannelFormatKindNV12) &&
              int(g::cudaChannelFormatKindSignedNormalized16X4) ==
                  int(cudaChannelFormatKindSignedNormalized16X4) &&
              int(g::cudaChannelFormatKindUnsignedNormalized1010102) ==
                  int(cudaChannelFormatKindUnsignedNormalized1010102) &&
              int(g::cudaResourceTypePitch2D) == int(cudaResourceTypePitch2D) &&
              int(g::cudaAddressModeBorder) == int(cudaAddressModeBorder) &&
              int(g::cudaReadModeNormalizedFloat) == int(cudaReadModeNormalizedFloat) &&
              g::cudaErrorInvalidChannelDescriptor == cudaErrorInvalidChannelDescriptor,
              "texture enums");

// CUDA Graphs (cudart/graphs.h).
static_assert(sizeof(cudaKernelNodeParams) == sizeof(g::cudaKernelNodeParams),
              "cudaKernelNodeParams");
SAME(cudaKernelNodeParams, gridDim)
SAME(cudaKernelNodeParams, sharedMemBytes)
SAME(cudaKernelNodeParams, kernelParams)
SAME(cudaKernelNodeParams, extra)
static_assert(sizeof(cudaMemsetParams) == sizeof(g::cudaMemsetParams), "cudaMemsetParams");
SAME(cudaMemsetParams, pitch)
SAME(cudaMemsetParams, value)
SAME(cudaMemsetParams, elementSize)
SAME(cudaMemsetParams, width)
SAME(cudaMemsetParams, height)
static_assert(sizeof(cudaHostNodeParams) == sizeof(g::cudaHostNodeParams), "cudaHostNodeParams");
SAME(cudaHostNodeParams, userData)
static_assert(sizeof(cudaGraphEdgeData) == sizeof(g::cudaGraphEdgeData), "cudaGraphEdgeData");
SAME(cudaGraphEdgeData, type)
static_assert(sizeof(cudaGraphExecUpdateResultInfo) == sizeof(g::cudaGraphExecUpdateResultInfo),
              "cudaGraphExecUpdateResultInfo");
SAME(cudaGraphExecUpdateResultInfo, errorNode)
SAME(cudaGraphExecUpdateResultInfo, errorFromNode)
static_assert(sizeof(cudaGraphInstantiateParams) == sizeof(g::cudaGraphInstantiateParams),
              "cudaGraphInstantiateParams");
SAME(cudaGraphInstantiateParams, uploadStream)
SAME(cudaGraphInstantiateParams, errNode_out)
SAME(cudaGraphInstantiateParams, result_out)
static_assert(
    int(g::cudaStreamCaptureStatusInvalidated) == int(cudaStreamCaptureStatusInvalidated) &&
        int(g::cudaStreamCaptureModeRelaxed) == int(cudaStreamCaptureModeRelaxed) &&
        int(g::cudaStreamCaptureModeThreadLocal) == int(cudaStreamCaptureModeThreadLocal) &&
        int(g::cudaGraphExecUpdateErrorTopologyChanged) ==
            int(cudaGraphExecUpdateErrorTopologyChanged) &&
        int(g::cudaGraphExecUpdateErrorParametersChanged) ==
            int(cudaGraphExecUpdateErrorParametersChanged) &&
        int(g::cudaGraphExecUpdateErrorNotSupported) == int(cudaGraphExecUpdateErrorNotSupported) &&
        int(g::cudaGraphInstantiateInvalidStructure) == int(cudaGraphInstantiateInvalidStructure) &&
        g::kNodeKernel == cudaGraphNodeTypeKernel && g::kNodeMemcpy == cudaGraphNodeTypeMemcpy &&
        g::kNodeMemset == cudaGraphNodeTypeMemset && g::kNodeHost == cudaGraphNodeTypeHost &&
        g::kNodeGraph == cudaGraphNodeTypeGraph && g::kNodeEmpty == cudaGraphNodeTypeEmpty &&
        g::kNodeWaitEvent == cudaGraphNodeTypeWaitEvent &&
        g::kNodeEventRecord == cudaGraphNodeTypeEventRecord &&
        g::kStreamNonBlocking == cudaStreamNonBlocking,
    "graph enums");
static_assert(g::cudaErrorIllegalState == cudaErrorIllegalState &&
                  g::cudaErrorStreamCaptureUnsupported == cudaErrorStreamCaptureUnsupported &&
                  g::cudaErrorStreamCaptureInvalidated == cudaErrorStreamCaptureInvalidated &&
                  g::cudaErrorStreamCaptureMerge == cudaErrorStreamCaptureMerge &&
                  g::cudaErrorStreamCaptureUnmatched == cudaErrorStreamCaptureUnmatched &&
                  g::cudaErrorStreamCaptureUnjoined == cudaErrorStreamCaptureUnjoined &&
                  g::cudaErrorStreamCaptureIsolation == cudaErrorStreamCaptureIsolation &&
                  g::cudaErrorStreamCaptureImplicit == cudaErrorStreamCaptureImplicit &&
                  g::cudaErrorCapturedEvent == cudaErrorCapturedEvent &&
                  g::cudaErrorStreamCaptureWrongThread == cudaErrorStreamCaptureWrongThread &&
                  g::cudaErrorGraphExecUpdateFailure == cudaErrorGraphExecUpdateFailure,
              "graph errors");

int main() { return 0; }
