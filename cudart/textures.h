// Texture and surface objects and CUDA arrays made by the runtime API (docs/programs.md,
// "Textures and surfaces"): CUDA's descriptors (cudaResourceDesc, cudaTextureDesc,
// cudaChannelFormatDesc) checked and mapped onto the front-end's descriptor table
// (ptx::TextureTable, whose handles the kernels receive), and the arrays' records.
//
// An array is a device allocation holding its texels row after row, rows and slices packed
// (the front-end's TexResource::Array); the handle a program gets is its record's address.
// Plain C++: no simulation. The API (api.cpp) allocates the arrays' memory, prints `why` and
// returns the error; tests/unit/cudart_textures_test.cpp tests the checks.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "cuda_types.h"
#include "gpurf/modules/frontend/ptx/texture.h"

namespace gpurf::cudart {

// The device's texture limits (compute capability 7.5, as properties() reports them).
struct TextureLimits {
  static constexpr uint64_t kAlignment = 256; // textureAlignment: every allocation's
  static constexpr uint64_t kPitchAlignment = 32;
  static constexpr uint64_t kMax1D = 131072, kMax1DLinear = uint64_t(1) << 28;
  static constexpr uint64_t kMax2D[2] = {131072, 65536};
  static constexpr uint64_t kMax2DLinear[3] = {131072, 65000, 2097120}; // width, height, pitch
  static constexpr uint64_t kMax3D = 16384;
  static constexpr uint64_t kMax1DLayered[2] = {32768, 2048};        // width, layers
  static constexpr uint64_t kMax2DLayered[3] = {32768, 32768, 2048}; // width, height, layers
  static constexpr uint64_t kMaxSurface1D = 32768;
  static constexpr uint64_t kMaxSurface2D[2] = {131072, 65536};
};

// A texel format: what a cudaChannelFormatDesc names.
struct TexelFormat {
  unsigned channels = 1, bits = 32;
  ptx::TexChannel kind = ptx::TexChannel::Float;
  bool normalized = false; // cudaChannelFormatKind[Un]signedNormalized*: read as [0,1]/[-1,1]
  unsigned bytes() const { return channels * bits / 8; }
};
// cudaSuccess, cudaErrorInvalidChannelDescriptor (not a format CUDA has: 3 channels, 12 bits,
// unequal channels) or cudaErrorNotSupported (one CUDA has that gpurf does not: NV12,
// block-compressed, 10-10-10-2); `why` says which.
cudaError_t texel_format(const cudaChannelFormatDesc& d, TexelFormat& f, std::string& why);

struct ArrayRec {
  cudaChannelFormatDesc desc{};
  cudaExtent extent{}; // as given: height 0 for a 1D array, depth 0 for 1D/2D
  unsigned flags = 0;
  TexelFormat format;
  uint64_t base = 0;                         // device address of texel (0,0,0)
  uint64_t width = 1, height = 1, depth = 1; // texels (at least 1)
  uint64_t row_bytes() const { return width * format.bytes(); }
  uint64_t bytes() const { return row_bytes() * height * depth; }
};

class TextureObjects {
public:
  // Whether [a, a + bytes) lies inside one live device allocation.
  using DeviceRange = std::function<bool(uint64_t a, uint64_t bytes)>;

  // cudaMallocArray (`layered_ok` false) / cudaMalloc3DArray: the array's record without its
  // memory (base 0), or the error: cudaErrorInvalidValue (a zero width, a height of 0 under a
  // depth, beyond the device's limits, unknown flags), the format's errors, or
  // cudaErrorNotSupported (cubemap, sparse, deferred-mapping arrays).
  static cudaError_t array_shape(const cudaChannelFormatDesc* desc, cudaExtent extent,
                                 unsigned flags, bool three_d, ArrayRec& a, std::string& why);
  cudaArray_t add_array(const ArrayRec& a); // the handle
  ArrayRec* find_array(const void* handle); // null: not a live array
  void remove_array(const void* handle);

  // cudaCreateTextureObject (`surface` false) / cudaCreateSurfaceObject: a new handle in
  // `*out`, or the error: cudaErrorInvalidValue (null arguments, an unknown resource type or
  // mode, nonzero flags, a pointer outside the live device allocations or misaligned, a pitch
  // not a multiple of 32 or below a row, sizes beyond the limits, linear filtering of a
  // texture that returns integers, a surface not over an array made with
  // cudaArraySurfaceLoadStore), cudaErrorInvalidResourceHandle (not a live array), the
  // format's errors, or cudaErrorNotSupported (mipmapped arrays, resource views, sRGB).
  cudaError_t create(uint64_t* out, const cudaResourceDesc* res, const cudaTextureDesc* tex,
                     const cudaResourceViewDesc* view, bool surface, const DeviceRange& device,
                     std::string& why);
  // cudaErrorInvalidValue when `h` is no live object of that kind.
  cudaError_t destroy(uint64_t h, bool surface);
  struct Object {
    bool surface = false;
    cudaResourceDesc res{};
    cudaTextureDesc tex{}; // zeros for a surface
  };
  const Object* find(uint64_t h, bool surface) const;

  const ptx::TextureTable& table() const { return table_; }

private:
  ptx::TextureTable table_;
  std::map<uint64_t, Object> objects_;
  std::map<const void*, std::unique_ptr<ArrayRec>> arrays_;
};

} // namespace gpurf::cudart
