#include "textures.h"

#include <cstdio>

namespace gpurf::cudart {
namespace {

using L = TextureLimits;

cudaError_t fail(cudaError_t e, std::string& why, const std::string& text) {
  why = text;
  return e;
}

std::string format_text(const cudaChannelFormatDesc& d) {
  return "{" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) +
         ", " + std::to_string(d.w) + ", kind " + std::to_string(d.f) + "}";
}

std::string u64(uint64_t v) { return std::to_string(v); }
std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

} // namespace

cudaError_t texel_format(const cudaChannelFormatDesc& d, TexelFormat& f, std::string& why) {
  const std::string what = "channel format " + format_text(d);
  if (d.f >= cudaChannelFormatKindUnsignedNormalized8X1 &&
      d.f <= cudaChannelFormatKindSignedNormalized16X4) {
    // 8X1, 8X2, 8X4, 16X1, 16X2, 16X4, unsigned then signed: always read as normalised floats.
    const int k = d.f - cudaChannelFormatKindUnsignedNormalized8X1;
    f.kind = k >= 6 ? ptx::TexChannel::Signed : ptx::TexChannel::Unsigned;
    f.bits = k % 6 < 3 ? 8 : 16;
    f.channels = 1u << (k % 3);
    f.normalized = true;
    return cudaSuccess;
  }
  if (d.f == cudaChannelFormatKindNV12 || (d.f > cudaChannelFormatKindSignedNormalized16X4 &&
                                           d.f <= cudaChannelFormatKindUnsignedNormalized1010102))
    return fail(cudaErrorNotSupported, why,
                what + ": NV12, block-compressed and 10-10-10-2 formats are not supported "
                       "(supported: 1, 2 or 4 channels of 8/16/32-bit signed or unsigned "
                       "integers, 16/32-bit floats, and the 8/16-bit normalized kinds)");
  if (d.f < cudaChannelFormatKindSigned || d.f > cudaChannelFormatKindFloat)
    return fail(cudaErrorInvalidChannelDescriptor, why,
                what + ": not a channel format (kind: signed 0, unsigned 1, float 2, ...)");
  const int bits[4] = {d.x, d.y, d.z, d.w};
  unsigned n = 0;
  while (n < 4 && bits[n] != 0) ++n;
  for (unsigned c = 0; c < 4; ++c)
    if ((c < n && bits[c] != d.x) || (c >= n && bits[c] != 0))
      return fail(cudaErrorInvalidChannelDescriptor, why,
                  what + ": the channels must be the first 1, 2 or 4 and have equal bits");
  if (n == 0 || n == 3)
    return fail(cudaErrorInvalidChannelDescriptor, why,
                what + ": " + std::to_string(n) + " channels (valid: 1, 2, 4)");
  if (d.x != 8 && d.x != 16 && d.x != 32)
    return fail(cudaErrorInvalidChannelDescriptor, why,
                what + ": " + std::to_string(d.x) + "-bit channels (valid: 8, 16, 32)");
  if (d.f == cudaChannelFormatKindFloat && d.x == 8)
    return fail(cudaErrorInvalidChannelDescriptor, why,
                what + ": 8-bit float channels (valid: 16, 32)");
  f.channels = n;
  f.bits = unsigned(d.x);
  f.kind = d.f == cudaChannelFormatKindSigned     ? ptx::TexChannel::Signed
           : d.f == cudaChannelFormatKindUnsigned ? ptx::TexChannel::Unsigned
                                                  : ptx::TexChannel::Float;
  f.normalized = false;
  return cudaSuccess;
}

cudaError_t TextureObjects::array_shape(const cudaChannelFormatDesc* desc, cudaExtent e,
                                        unsigned flags, bool three_d, ArrayRec& a,
                                        std::string& why) {
  if (!desc) return fail(cudaErrorInvalidValue, why, "no channel descriptor (null)");
  if (cudaError_t err = texel_format(*desc, a.format, why)) return err;
  const unsigned known = kArrayLayered | kArraySurfaceLoadStore | kArrayCubemap |
                         kArrayTextureGather | kArraySparse | kArrayDeferredMapping;
  if (flags & ~known)
    return fail(
        cudaErrorInvalidValue, why,
        "flags " + std::to_string(flags) +
            " (valid: cudaArrayLayered 1, cudaArraySurfaceLoadStore 2, cudaArrayTextureGather 8)");
  if (flags & (kArrayLayered | kArrayCubemap)) {
    if (!three_d)
      return fail(cudaErrorInvalidValue, why,
                  "layered and cubemap arrays are made by cudaMalloc3DArray");
    // A layered array is stored as a 3D one, a layer a slice (of one row for a 1D layered
    // array: height 0): tex1DLayered, tex2DLayered, surf1D/2DLayeredread/write.
    if (flags & kArrayCubemap)
      return fail(cudaErrorNotSupported, why,
                  "cubemap arrays are not supported (supported: 1D, 2D, 3D and 1D/2D layered "
                  "arrays; flags cudaArrayLayered, cudaArraySurfaceLoadStore, "
                  "cudaArrayTextureGather)");
    if (!e.depth) return fail(cudaErrorInvalidValue, why, "a layered array of depth 0 (no layer)");
  }
  if (flags & (kArraySparse | kArrayDeferredMapping))
    return fail(cudaErrorNotSupported, why,
                "sparse and deferred-mapping arrays are not supported (supported: flags "
                "cudaArraySurfaceLoadStore, cudaArrayTextureGather)");
  if (e.width == 0) return fail(cudaErrorInvalidValue, why, "width 0");
  const bool layered = flags & kArrayLayered;
  if (e.depth && !e.height && !layered)
    return fail(cudaErrorInvalidValue, why, "depth " + u64(e.depth) + " with height 0");
  const bool surf = flags & kArraySurfaceLoadStore;
  uint64_t max[3];
  if (layered && !e.height) {
    max[0] = L::kMax1DLayered[0];
    max[1] = 0;
    max[2] = L::kMax1DLayered[1];
  } else if (layered) {
    max[0] = L::kMax2DLayered[0];
    max[1] = L::kMax2DLayered[1];
    max[2] = L::kMax2DLayered[2];
  } else if (e.depth) {
    max[0] = max[1] = max[2] = L::kMax3D;
  } else if (e.height) {
    max[0] = surf ? L::kMaxSurface2D[0] : L::kMax2D[0];
    max[1] = surf ? L::kMaxSurface2D[1] : L::kMax2D[1];
    max[2] = 0;
  } else {
    max[0] = surf ? L::kMaxSurface1D : L::kMax1D;
    max[1] = max[2] = 0;
  }
  const uint64_t size[3] = {e.width, e.height, e.depth};
  for (unsigned k = 0; k < 3; ++k)
    if (size[k] > max[k])
      return fail(cudaErrorInvalidValue, why,
                  std::string(k == 0   ? "width "
                              : k == 1 ? "height "
                                       : "depth ") +
                      u64(size[k]) + " beyond the device's " + u64(max[k]) +
                      " for this kind of array");
  a.desc = *desc;
  a.extent = e;
  a.flags = flags;
  a.width = e.width;
  a.height = e.height ? e.height : 1;
  a.depth = e.depth ? e.depth : 1;
  a.base = 0;
  return cudaSuccess;
}

cudaArray_t TextureObjects::add_array(const ArrayRec& a) {
  auto rec = std::make_unique<ArrayRec>(a);
  ArrayRec* h = rec.get();
  arrays_[h] = std::move(rec);
  return h;
}

ArrayRec* TextureObjects::find_array(const void* h) {
  auto it = arrays_.find(h);
  return it == arrays_.end() ? nullptr : it->second.get();
}

void TextureObjects::remove_array(const void* h) { arrays_.erase(h); }

cudaError_t TextureObjects::create(uint64_t* out, const cudaResourceDesc* res,
                                   const cudaTextureDesc* tex, const cudaResourceViewDesc* view,
                                   bool surface, const DeviceRange& device, std::string& why) {
  if (!out) return fail(cudaErrorInvalidValue, why, "no place for the object (null)");
  if (!res) return fail(cudaErrorInvalidValue, why, "no resource descriptor (null)");
  if (!surface && !tex) return fail(cudaErrorInvalidValue, why, "no texture descriptor (null)");
  if (res->flags) return fail(cudaErrorInvalidValue, why, "resource descriptor flags (must be 0)");
  ptx::TextureDesc d;
  d.surface = surface;
  TexelFormat fmt;
  const char* const kSurfaceNeedsArray =
      "a surface object needs an array resource (cudaResourceTypeArray, from cudaMallocArray "
      "with cudaArraySurfaceLoadStore)";
  switch (res->resType) {
  case cudaResourceTypeArray: {
    if (!res->res.array.array) return fail(cudaErrorInvalidValue, why, "array handle null");
    const ArrayRec* a = find_array(res->res.array.array);
    if (!a) return fail(cudaErrorInvalidResourceHandle, why, "not a live CUDA array");
    if (view)
      return fail(cudaErrorNotSupported, why,
                  "resource views are not supported (pass none: the array is read in its "
                  "own format)");
    if (surface && !(a->flags & kArraySurfaceLoadStore))
      return fail(cudaErrorInvalidValue, why,
                  "the array was made without cudaArraySurfaceLoadStore");
    fmt = a->format;
    d.resource = ptx::TexResource::Array;
    d.base = a->base;
    d.width = a->width;
    d.height = a->height;
    d.depth = a->depth;
    d.layered = a->flags & kArrayLayered;
    break;
  }
  case cudaResourceTypeMipmappedArray:
    return fail(cudaErrorNotSupported, why,
                "mipmapped arrays are not supported (supported resources: CUDA arrays, "
                "linear and pitch-2D memory)");
  case cudaResourceTypeLinear:
  case cudaResourceTypePitch2D: {
    if (surface) return fail(cudaErrorInvalidValue, why, kSurfaceNeedsArray);
    if (view) return fail(cudaErrorInvalidValue, why, "a resource view needs an array resource");
    const bool linear = res->resType == cudaResourceTypeLinear;
    const void* p = linear ? res->res.linear.devPtr : res->res.pitch2D.devPtr;
    if (cudaError_t err =
            texel_format(linear ? res->res.linear.desc : res->res.pitch2D.desc, fmt, why))
      return err;
    const uint64_t base = reinterpret_cast<uint64_t>(p), tb = fmt.bytes();
    if (base % L::kAlignment)
      return fail(cudaErrorInvalidValue, why,
                  "device pointer " + hex(base) + " not a multiple of textureAlignment (" +
                      u64(L::kAlignment) + ")");
    uint64_t bytes;
    if (linear) {
      d.resource = ptx::TexResource::Linear;
      d.width = res->res.linear.sizeInBytes / tb;
      if (d.width == 0 || d.width > L::kMax1DLinear)
        return fail(cudaErrorInvalidValue, why,
                    "sizeInBytes " + u64(res->res.linear.sizeInBytes) + " holds " + u64(d.width) +
                        " texels of " + u64(tb) + " bytes (valid: 1 to " + u64(L::kMax1DLinear) +
                        ")");
      bytes = d.width * tb;
    } else {
      const auto& r = res->res.pitch2D;
      d.resource = ptx::TexResource::Pitch2D;
      d.width = r.width;
      d.height = r.height;
      d.pitch = r.pitchInBytes;
      if (!r.width || !r.height || r.width > L::kMax2DLinear[0] || r.height > L::kMax2DLinear[1])
        return fail(cudaErrorInvalidValue, why,
                    "pitch-2D size " + u64(r.width) + " x " + u64(r.height) + " (valid: 1 to " +
                        u64(L::kMax2DLinear[0]) + " x 1 to " + u64(L::kMax2DLinear[1]) + ")");
      if (r.pitchInBytes % L::kPitchAlignment || r.pitchInBytes < r.width * tb ||
          r.pitchInBytes > L::kMax2DLinear[2])
        return fail(cudaErrorInvalidValue, why,
                    "pitchInBytes " + u64(r.pitchInBytes) + " (valid: a multiple of " +
                        u64(L::kPitchAlignment) + ", at least a row's " + u64(r.width * tb) +
                        " bytes, at most " + u64(L::kMax2DLinear[2]) + ")");
      bytes = r.pitchInBytes * (r.height - 1) + r.width * tb;
    }
    if (!p || !device(base, bytes))
      return fail(cudaErrorInvalidValue, why,
                  "the texels [" + hex(base) + ", " + hex(base + bytes) +
                      ") are not inside one live device allocation");
    d.base = base;
    break;
  }
  default:
    return fail(cudaErrorInvalidValue, why,
                "resource type " + std::to_string(res->resType) +
                    " (valid: array 0, mipmapped array 1, linear 2, pitch-2D 3)");
  }
  d.channels = fmt.channels;
  d.bits = fmt.bits;
  d.kind = fmt.kind;
  if (!surface) {
    for (unsigned k = 0; k < 3; ++k)
      if (tex->addressMode[k] < cudaAddressModeWrap || tex->addressMode[k] > cudaAddressModeBorder)
        return fail(cudaErrorInvalidValue, why,
                    "addressMode[" + std::to_string(k) + "] " +
                        std::to_string(tex->addressMode[k]) +
                        " (valid: wrap 0, clamp 1, mirror 2, border 3)");
    if (tex->filterMode != cudaFilterModePoint && tex->filterMode != cudaFilterModeLinear)
      return fail(cudaErrorInvalidValue, why,
                  "filterMode " + std::to_string(tex->filterMode) + " (valid: point 0, linear 1)");
    if (tex->readMode != cudaReadModeElementType && tex->readMode != cudaReadModeNormalizedFloat)
      return fail(cudaErrorInvalidValue, why,
                  "readMode " + std::to_string(tex->readMode) +
                      " (valid: element type 0, normalized float 1)");
    if (tex->sRGB)
      return fail(cudaErrorNotSupported, why,
                  "sRGB conversion is not supported (supported: sRGB 0)");
    if (tex->seamlessCubemap)
      return fail(cudaErrorInvalidValue, why, "seamlessCubemap without a cubemap array");
    // CUDA: a linear resource ignores the address and filter modes (tex1Dfetch: integer
    // indices, zero outside); only 8/16-bit integers are promoted to normalised floats.
    const bool linear = res->resType == cudaResourceTypeLinear;
    for (unsigned k = 0; k < 3; ++k)
      d.address[k] = linear ? ptx::TexAddress::Clamp : ptx::TexAddress(tex->addressMode[k]);
    d.filter = linear || tex->filterMode == cudaFilterModePoint ? ptx::TexFilter::Point
                                                                : ptx::TexFilter::Linear;
    const bool promotable = fmt.kind != ptx::TexChannel::Float && fmt.bits < 32;
    d.read = fmt.normalized || (promotable && tex->readMode == cudaReadModeNormalizedFloat)
                 ? ptx::TexRead::NormalizedFloat
                 : ptx::TexRead::ElementType;
    d.normalized = !linear && tex->normalizedCoords != 0;
    for (unsigned c = 0; c < 4; ++c) d.border[c] = tex->borderColor[c];
    // cudaErrorInvalidValue: the one error cudaCreateTextureObject documents.
    if (d.filter == ptx::TexFilter::Linear && fmt.kind != ptx::TexChannel::Float &&
        d.read != ptx::TexRead::NormalizedFloat)
      return fail(cudaErrorInvalidValue, why,
                  "linear filtering of a texture that returns integers (valid: point "
                  "filtering, or cudaReadModeNormalizedFloat of 8/16-bit integers, or floats)");
  }
  if (const std::string bad = d.check(); !bad.empty()) return fail(cudaErrorInvalidValue, why, bad);
  const uint64_t h = table_.add(d);
  Object& o = objects_[h];
  o.surface = surface;
  o.res = *res;
  if (tex) o.tex = *tex;
  *out = h;
  return cudaSuccess;
}

cudaError_t TextureObjects::destroy(uint64_t h, bool surface) {
  if (!find(h, surface)) return cudaErrorInvalidValue;
  table_.remove(h);
  objects_.erase(h);
  return cudaSuccess;
}

const TextureObjects::Object* TextureObjects::find(uint64_t h, bool surface) const {
  auto it = objects_.find(h);
  return it == objects_.end() || it->second.surface != surface ? nullptr : &it->second;
}

} // namespace gpurf::cudart
