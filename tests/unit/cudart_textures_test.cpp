// libgpurf-cudart's texture and surface objects and CUDA arrays (cudart/textures.h): CUDA's
// descriptors mapped onto the front-end's, and each bad argument's CUDA error.
#include <gtest/gtest.h>

#include <cstring>

#include "cudart/textures.h"

using namespace gpurf::cudart;
namespace ptx = gpurf::ptx;

namespace {

// Device memory for the tests: [0x10000000, +64 KiB).
constexpr uint64_t kBase = 0x10000000, kBytes = 64 * 1024;
bool device(uint64_t a, uint64_t n) { return a >= kBase && a + n <= kBase + kBytes; }

cudaChannelFormatDesc fmt(int x, int y, int z, int w, int f) { return {x, y, z, w, f}; }

cudaTextureDesc sampler(int address, int filter, int read, bool normalized) {
  cudaTextureDesc t;
  std::memset(&t, 0, sizeof t);
  t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = address;
  t.filterMode = filter;
  t.readMode = read;
  t.normalizedCoords = normalized;
  return t;
}

cudaResourceDesc on_array(cudaArray_t a) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  return r;
}

cudaResourceDesc on_linear(uint64_t p, cudaChannelFormatDesc d, size_t bytes) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = reinterpret_cast<void*>(p);
  r.res.linear.desc = d;
  r.res.linear.sizeInBytes = bytes;
  return r;
}

cudaResourceDesc on_pitch(uint64_t p, cudaChannelFormatDesc d, size_t w, size_t h, size_t pitch) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = reinterpret_cast<void*>(p);
  r.res.pitch2D.desc = d;
  r.res.pitch2D.width = w;
  r.res.pitch2D.height = h;
  r.res.pitch2D.pitchInBytes = pitch;
  return r;
}

struct CudartTextureObjects : ::testing::Test {
  TextureObjects t;
  std::string why;
  uint64_t h = 0;
  cudaError_t make(const cudaResourceDesc& r, const cudaTextureDesc& s) {
    return t.create(&h, &r, &s, nullptr, false, device, why);
  }
  cudaError_t make_surface(const cudaResourceDesc& r) {
    return t.create(&h, &r, nullptr, nullptr, true, device, why);
  }
  cudaArray_t array(cudaChannelFormatDesc d, cudaExtent e, unsigned flags = 0) {
    ArrayRec a;
    EXPECT_EQ(TextureObjects::array_shape(&d, e, flags, true, a, why), cudaSuccess) << why;
    a.base = kBase + 0x1000;
    return t.add_array(a);
  }
  const ptx::TextureDesc& desc() { return *t.table().find(h); }
};

} // namespace

TEST(CudartTextures, ChannelFormats) {
  TexelFormat f;
  std::string why;
  ASSERT_EQ(texel_format(fmt(32, 0, 0, 0, cudaChannelFormatKindFloat), f, why), cudaSuccess);
  EXPECT_EQ(f.channels, 1u);
  EXPECT_EQ(f.bits, 32u);
  EXPECT_EQ(f.kind, ptx::TexChannel::Float);
  ASSERT_EQ(texel_format(fmt(8, 8, 8, 8, cudaChannelFormatKindUnsigned), f, why), cudaSuccess);
  EXPECT_EQ(f.bytes(), 4u);
  EXPECT_EQ(f.kind, ptx::TexChannel::Unsigned);
  EXPECT_FALSE(f.normalized);
  ASSERT_EQ(texel_format(fmt(16, 16, 0, 0, cudaChannelFormatKindFloat), f, why), cudaSuccess);
  EXPECT_EQ(f.channels, 2u);
  EXPECT_EQ(f.bits, 16u); // half2
  // The normalised kinds: bits and channels from the kind, always read as floats.
  ASSERT_EQ(texel_format(fmt(0, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X1 + 2), f, why),
            cudaSuccess); // UnsignedNormalized8X4
  EXPECT_EQ(f.channels, 4u);
  EXPECT_EQ(f.bits, 8u);
  EXPECT_EQ(f.kind, ptx::TexChannel::Unsigned);
  EXPECT_TRUE(f.normalized);
  ASSERT_EQ(texel_format(fmt(0, 0, 0, 0, cudaChannelFormatKindSignedNormalized16X4), f, why),
            cudaSuccess);
  EXPECT_EQ(f.channels, 4u);
  EXPECT_EQ(f.bits, 16u);
  EXPECT_EQ(f.kind, ptx::TexChannel::Signed);
  // Not a format: three channels, unequal or gapped channels, odd widths, 8-bit floats.
  for (const cudaChannelFormatDesc& d :
       {fmt(32, 32, 32, 0, cudaChannelFormatKindFloat), fmt(8, 16, 0, 0, 1), fmt(8, 0, 8, 0, 1),
        fmt(12, 0, 0, 0, 1), fmt(8, 0, 0, 0, cudaChannelFormatKindFloat), fmt(0, 0, 0, 0, 0),
        fmt(32, 0, 0, 0, cudaChannelFormatKindNone), fmt(32, 0, 0, 0, 99)}) {
    why.clear();
    EXPECT_EQ(texel_format(d, f, why), cudaErrorInvalidChannelDescriptor)
        << d.x << " " << d.y << " " << d.z << " " << d.w << " kind " << d.f;
    EXPECT_NE(why.find("channel format"), std::string::npos);
  }
  // Formats CUDA has and gpurf does not: refused, naming what is supported.
  for (int kind : {int(cudaChannelFormatKindNV12), 17, 23,
                   int(cudaChannelFormatKindUnsignedNormalized1010102)}) {
    EXPECT_EQ(texel_format(fmt(8, 8, 8, 8, kind), f, why), cudaErrorNotSupported) << kind;
    EXPECT_NE(why.find("supported: 1, 2 or 4 channels"), std::string::npos) << why;
  }
}

TEST(CudartTextures, ArrayShapes) {
  ArrayRec a;
  std::string why;
  const cudaChannelFormatDesc f = fmt(32, 0, 0, 0, cudaChannelFormatKindFloat);
  ASSERT_EQ(TextureObjects::array_shape(&f, {100, 0, 0}, 0, false, a, why), cudaSuccess);
  EXPECT_EQ(a.width, 100u); // 1D: one row, one slice; the extent as given
  EXPECT_EQ(a.height, 1u);
  EXPECT_EQ(a.depth, 1u);
  EXPECT_EQ(a.extent.height, 0u);
  EXPECT_EQ(a.bytes(), 400u);
  ASSERT_EQ(TextureObjects::array_shape(&f, {5, 3, 2}, kArraySurfaceLoadStore, true, a, why),
            cudaSuccess);
  EXPECT_EQ(a.row_bytes(), 20u);
  EXPECT_EQ(a.bytes(), 120u);
  EXPECT_EQ(a.flags, unsigned(kArraySurfaceLoadStore));
  struct Bad {
    const cudaChannelFormatDesc* d;
    cudaExtent e;
    unsigned flags;
    bool three_d;
    cudaError_t want;
  };
  const cudaChannelFormatDesc f3 = fmt(32, 32, 32, 0, cudaChannelFormatKindFloat);
  for (const Bad& b : {
           Bad{nullptr, {4, 4, 0}, 0, false, cudaErrorInvalidValue},
           Bad{&f3, {4, 4, 0}, 0, false, cudaErrorInvalidChannelDescriptor},
           Bad{&f, {0, 4, 0}, 0, false, cudaErrorInvalidValue},
           Bad{&f, {4, 0, 3}, 0, true, cudaErrorInvalidValue},       // depth, no height
           Bad{&f, {131073, 0, 0}, 0, false, cudaErrorInvalidValue}, // maxTexture1D
           Bad{&f, {32769, 0, 0}, kArraySurfaceLoadStore, false, cudaErrorInvalidValue},
           Bad{&f, {16, 16, 16385}, 0, true, cudaErrorInvalidValue},           // maxTexture3D
           Bad{&f, {4, 4, 0}, 0x100, false, cudaErrorInvalidValue},            // unknown flag
           Bad{&f, {4, 4, 2}, kArrayLayered, false, cudaErrorInvalidValue},    // not here
           Bad{&f, {32769, 0, 2}, kArrayLayered, true, cudaErrorInvalidValue}, // 1D layered
           Bad{&f, {4, 4, 0}, kArrayLayered, true, cudaErrorInvalidValue},     // no layer
           Bad{&f, {32769, 4, 2}, kArrayLayered, true, cudaErrorInvalidValue},
           Bad{&f, {4, 4, 2049}, kArrayLayered, true, cudaErrorInvalidValue}, // layers
           Bad{&f, {4, 4, 6}, kArrayCubemap, true, cudaErrorNotSupported},
           Bad{&f, {4, 4, 0}, kArraySparse, false, cudaErrorNotSupported},
       }) {
    why.clear();
    EXPECT_EQ(TextureObjects::array_shape(b.d, b.e, b.flags, b.three_d, a, why), b.want)
        << b.e.width << "x" << b.e.height << "x" << b.e.depth << " flags " << b.flags;
    EXPECT_FALSE(why.empty());
  }
  EXPECT_EQ(TextureObjects::array_shape(&f, {4, 4, 6}, kArrayCubemap, true, a, why),
            cudaErrorNotSupported);
  EXPECT_NE(why.find("supported: 1D, 2D, 3D and 1D/2D layered arrays"), std::string::npos) << why;
  // A 1D layered array: layers of one row (height 0 as given).
  ASSERT_EQ(TextureObjects::array_shape(&f, {7, 0, 3}, kArrayLayered, true, a, why), cudaSuccess);
  EXPECT_EQ(a.height, 1u);
  EXPECT_EQ(a.depth, 3u);
  EXPECT_EQ(a.bytes(), 84u);
  // A 2D layered array: stored as a 3D one, a layer a slice (tex2DLayered, surf2DLayered*).
  ASSERT_EQ(TextureObjects::array_shape(&f, {5, 3, 4}, kArrayLayered, true, a, why), cudaSuccess);
  EXPECT_EQ(a.depth, 4u);
  EXPECT_EQ(a.bytes(), 240u);
}

TEST_F(CudartTextureObjects, ArrayTextureTakesEverySamplingField) {
  const cudaArray_t a = array(fmt(8, 8, 8, 8, cudaChannelFormatKindUnsigned), {5, 4, 0});
  cudaTextureDesc s =
      sampler(cudaAddressModeWrap, cudaFilterModeLinear, cudaReadModeNormalizedFloat, true);
  s.addressMode[1] = cudaAddressModeBorder;
  const float border[4] = {0.25f, 0.5f, 0.75f, 1.0f};
  std::memcpy(s.borderColor, border, sizeof border);
  ASSERT_EQ(make(on_array(a), s), cudaSuccess) << why;
  EXPECT_NE(h, 0u);
  const ptx::TextureDesc& d = desc();
  EXPECT_FALSE(d.surface);
  EXPECT_EQ(d.resource, ptx::TexResource::Array);
  EXPECT_EQ(d.base, kBase + 0x1000);
  EXPECT_EQ(d.width, 5u);
  EXPECT_EQ(d.height, 4u);
  EXPECT_EQ(d.depth, 1u);
  EXPECT_EQ(d.pitch, 0u); // packed rows
  EXPECT_EQ(d.channels, 4u);
  EXPECT_EQ(d.bits, 8u);
  EXPECT_EQ(d.kind, ptx::TexChannel::Unsigned);
  EXPECT_EQ(d.read, ptx::TexRead::NormalizedFloat);
  EXPECT_EQ(d.filter, ptx::TexFilter::Linear);
  EXPECT_EQ(d.address[0], ptx::TexAddress::Wrap);
  EXPECT_EQ(d.address[1], ptx::TexAddress::Border);
  EXPECT_TRUE(d.normalized);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(d.border[c], border[c]);
  // The descriptors come back as given.
  const TextureObjects::Object* o = t.find(h, false);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->res.res.array.array, a);
  EXPECT_EQ(o->tex.addressMode[1], cudaAddressModeBorder);
  EXPECT_EQ(t.find(h, true), nullptr); // not a surface
}

TEST_F(CudartTextureObjects, ReadModes) {
  // Normalised reads promote 8/16-bit integers only (CUDA: 32-bit integers and floats are
  // returned as they are); the normalised kinds always read as floats.
  struct Case {
    cudaChannelFormatDesc f;
    int read;
    ptx::TexRead want;
  };
  for (const Case& c : {
           Case{fmt(16, 0, 0, 0, cudaChannelFormatKindSigned), cudaReadModeNormalizedFloat,
                ptx::TexRead::NormalizedFloat},
           Case{fmt(16, 0, 0, 0, cudaChannelFormatKindSigned), cudaReadModeElementType,
                ptx::TexRead::ElementType},
           Case{fmt(32, 0, 0, 0, cudaChannelFormatKindUnsigned), cudaReadModeNormalizedFloat,
                ptx::TexRead::ElementType},
           Case{fmt(32, 0, 0, 0, cudaChannelFormatKindFloat), cudaReadModeNormalizedFloat,
                ptx::TexRead::ElementType},
           Case{fmt(0, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X1),
                cudaReadModeElementType, ptx::TexRead::NormalizedFloat},
       }) {
    const cudaArray_t a = array(c.f, {4, 4, 0});
    ASSERT_EQ(make(on_array(a), sampler(cudaAddressModeClamp, cudaFilterModePoint, c.read, false)),
              cudaSuccess)
        << why;
    EXPECT_EQ(desc().read, c.want) << "kind " << c.f.f << " bits " << c.f.x;
  }
}

TEST_F(CudartTextureObjects, LinearFilteringNeedsAFloatResult) {
  const cudaArray_t ints = array(fmt(32, 0, 0, 0, cudaChannelFormatKindSigned), {4, 4, 0});
  EXPECT_EQ(make(on_array(ints), sampler(cudaAddressModeClamp, cudaFilterModeLinear,
                                         cudaReadModeNormalizedFloat, false)),
            cudaErrorInvalidValue); // 32-bit integers are not promoted
  EXPECT_NE(why.find("linear filtering of a texture that returns integers"), std::string::npos);
  const cudaArray_t bytes = array(fmt(8, 0, 0, 0, cudaChannelFormatKindUnsigned), {4, 4, 0});
  EXPECT_EQ(make(on_array(bytes), sampler(cudaAddressModeClamp, cudaFilterModeLinear,
                                          cudaReadModeElementType, false)),
            cudaErrorInvalidValue);
  EXPECT_EQ(make(on_array(bytes), sampler(cudaAddressModeClamp, cudaFilterModeLinear,
                                          cudaReadModeNormalizedFloat, false)),
            cudaSuccess)
      << why;
}

TEST_F(CudartTextureObjects, LinearMemoryIgnoresFilterAndAddress) {
  const cudaChannelFormatDesc f = fmt(32, 0, 0, 0, cudaChannelFormatKindFloat);
  ASSERT_EQ(make(on_linear(kBase + 256, f, 4000 + 3),
                 sampler(cudaAddressModeWrap, cudaFilterModeLinear, 0, true)),
            cudaSuccess)
      << why;
  const ptx::TextureDesc& d = desc();
  EXPECT_EQ(d.resource, ptx::TexResource::Linear);
  EXPECT_EQ(d.base, kBase + 256);
  EXPECT_EQ(d.width, 1000u); // whole texels
  EXPECT_EQ(d.filter, ptx::TexFilter::Point);
  EXPECT_EQ(d.address[0], ptx::TexAddress::Clamp);
  EXPECT_FALSE(d.normalized);
  const cudaTextureDesc s = sampler(cudaAddressModeClamp, cudaFilterModePoint, 0, false);
  EXPECT_EQ(make(on_linear(kBase + 128, f, 64), s), cudaErrorInvalidValue); // textureAlignment
  EXPECT_NE(why.find("textureAlignment"), std::string::npos);
  EXPECT_EQ(make(on_linear(kBase + kBytes - 256, f, 512), s), cudaErrorInvalidValue); // past
  EXPECT_NE(why.find("not inside one live device allocation"), std::string::npos);
  EXPECT_EQ(make(on_linear(0, f, 64), s), cudaErrorInvalidValue);    // null
  EXPECT_EQ(make(on_linear(kBase, f, 3), s), cudaErrorInvalidValue); // no whole texel
  EXPECT_EQ(make(on_linear(kBase, fmt(32, 32, 32, 0, 2), 64), s),
            cudaErrorInvalidChannelDescriptor);
}

TEST_F(CudartTextureObjects, Pitch2D) {
  const cudaChannelFormatDesc f = fmt(32, 0, 0, 0, cudaChannelFormatKindFloat);
  const cudaTextureDesc s = sampler(cudaAddressModeBorder, cudaFilterModeLinear, 0, false);
  ASSERT_EQ(make(on_pitch(kBase, f, 13, 7, 64), s), cudaSuccess) << why;
  EXPECT_EQ(desc().resource, ptx::TexResource::Pitch2D);
  EXPECT_EQ(desc().pitch, 64u);
  EXPECT_EQ(desc().width, 13u);
  EXPECT_EQ(desc().height, 7u);
  EXPECT_EQ(desc().address[1], ptx::TexAddress::Border);
  EXPECT_EQ(make(on_pitch(kBase, f, 13, 7, 60), s), cudaErrorInvalidValue); // not 32-aligned
  EXPECT_NE(why.find("a multiple of 32"), std::string::npos);
  EXPECT_EQ(make(on_pitch(kBase, f, 13, 7, 32), s), cudaErrorInvalidValue); // below a row
  EXPECT_EQ(make(on_pitch(kBase, f, 13, 0, 64), s), cudaErrorInvalidValue);
  EXPECT_EQ(make(on_pitch(kBase, f, 13, 7, 2097152), s), cudaErrorInvalidValue); // max pitch
  EXPECT_EQ(make(on_pitch(kBase, f, 13, 2000, 64), s), cudaErrorInvalidValue);   // past memory
}

TEST_F(CudartTextureObjects, BadDescriptors) {
  const cudaArray_t a = array(fmt(32, 0, 0, 0, cudaChannelFormatKindFloat), {4, 4, 0});
  const cudaResourceDesc r = on_array(a);
  const cudaTextureDesc s = sampler(cudaAddressModeClamp, cudaFilterModePoint, 0, false);
  EXPECT_EQ(t.create(nullptr, &r, &s, nullptr, false, device, why), cudaErrorInvalidValue);
  EXPECT_EQ(t.create(&h, nullptr, &s, nullptr, false, device, why), cudaErrorInvalidValue);
  EXPECT_EQ(t.create(&h, &r, nullptr, nullptr, false, device, why), cudaErrorInvalidValue);
  cudaResourceDesc bad = r;
  bad.flags = 1;
  EXPECT_EQ(make(bad, s), cudaErrorInvalidValue);
  bad = r;
  bad.resType = 9;
  EXPECT_EQ(make(bad, s), cudaErrorInvalidValue);
  bad.resType = cudaResourceTypeMipmappedArray;
  EXPECT_EQ(make(bad, s), cudaErrorNotSupported);
  EXPECT_NE(why.find("mipmapped arrays are not supported"), std::string::npos);
  bad = on_array(nullptr);
  EXPECT_EQ(make(bad, s), cudaErrorInvalidValue);
  int not_an_array = 0;
  bad = on_array(&not_an_array);
  EXPECT_EQ(make(bad, s), cudaErrorInvalidResourceHandle);
  for (int k = 0; k < 3; ++k) {
    cudaTextureDesc m = s;
    m.addressMode[k] = 4;
    EXPECT_EQ(make(r, m), cudaErrorInvalidValue) << k;
    EXPECT_NE(why.find("addressMode[" + std::to_string(k) + "] 4"), std::string::npos) << why;
  }
  cudaTextureDesc m = s;
  m.filterMode = 2;
  EXPECT_EQ(make(r, m), cudaErrorInvalidValue);
  m = s;
  m.readMode = -1;
  EXPECT_EQ(make(r, m), cudaErrorInvalidValue);
  m = s;
  m.sRGB = 1;
  EXPECT_EQ(make(r, m), cudaErrorNotSupported);
  m = s;
  m.seamlessCubemap = 1;
  EXPECT_EQ(make(r, m), cudaErrorInvalidValue);
  cudaResourceViewDesc view;
  std::memset(&view, 0, sizeof view);
  EXPECT_EQ(t.create(&h, &r, &s, &view, false, device, why), cudaErrorNotSupported);
  // None of these made an object.
  EXPECT_EQ(t.table().find(1), nullptr);
}

TEST_F(CudartTextureObjects, Surfaces) {
  const cudaChannelFormatDesc f = fmt(32, 0, 0, 0, cudaChannelFormatKindFloat);
  const cudaArray_t plain = array(f, {8, 8, 0});
  EXPECT_EQ(make_surface(on_array(plain)), cudaErrorInvalidValue);
  EXPECT_NE(why.find("cudaArraySurfaceLoadStore"), std::string::npos);
  EXPECT_EQ(make_surface(on_linear(kBase, f, 256)), cudaErrorInvalidValue);
  EXPECT_EQ(make_surface(on_pitch(kBase, f, 8, 8, 32)), cudaErrorInvalidValue);
  const cudaArray_t a = array(f, {8, 8, 2}, kArraySurfaceLoadStore);
  ASSERT_EQ(make_surface(on_array(a)), cudaSuccess) << why;
  EXPECT_TRUE(desc().surface);
  EXPECT_EQ(desc().depth, 2u);
  const uint64_t s = h;
  EXPECT_EQ(t.destroy(s, false), cudaErrorInvalidValue); // not a texture
  ASSERT_NE(t.find(s, true), nullptr);
  EXPECT_EQ(t.destroy(s, true), cudaSuccess);
  EXPECT_EQ(t.destroy(s, true), cudaErrorInvalidValue); // twice
  EXPECT_EQ(t.table().find(s), nullptr);                // the kernels no longer see it
  EXPECT_EQ(t.destroy(0, false), cudaErrorInvalidValue);
}

TEST_F(CudartTextureObjects, FreedArrayIsNoHandle) {
  const cudaArray_t a = array(fmt(32, 0, 0, 0, cudaChannelFormatKindFloat), {4, 4, 0});
  EXPECT_NE(t.find_array(a), nullptr);
  t.remove_array(a);
  EXPECT_EQ(t.find_array(a), nullptr);
  EXPECT_EQ(make(on_array(a), sampler(cudaAddressModeClamp, cudaFilterModePoint, 0, false)),
            cudaErrorInvalidResourceHandle);
}
