// Texture and surface objects (modules/frontend/ptx/texture.h) on nvcc's own output
// (tests/unit/ptx_data/ptx_texture.cu). Expected values are worked out by hand from the CUDA
// Programming Guide's texture-fetching formulas (point: T[floor(x)]; linear: weights of
// x - 0.5 with 8 fraction bits; addressing per texel index) and the PTX ISA's tld4 order.
#include <gtest/gtest.h>

#include <cstring>

#include "gpurf/modules/frontend/ptx/parser.h"
#include "gpurf/modules/frontend/ptx/texture.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::data_module;
using ptxtest::Launch;

namespace {

const Module& tex() { return data_module("ptx_texture.ptx"); }

struct F4 {
  float x, y, z, w;
};

// A 4x3 one-channel f32 texture with T[j][i] = 10 j + i.
TextureDesc grid(Launch& L) {
  std::vector<float> t;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 4; ++i) t.push_back(float(10 * j + i));
  TextureDesc d;
  d.resource = TexResource::Pitch2D;
  d.base = L.buf(t);
  d.width = 4;
  d.height = 3;
  return d;
}

// Runs sample2d at the lanes' (x, y) and returns the float4 results.
std::vector<F4> sample2d(Launch& L, const TextureDesc& d, const std::vector<float>& x,
                         const std::vector<float>& y) {
  TextureTable tt;
  const uint64_t h = tt.add(d);
  L.cfg.textures = &tt;
  const unsigned n = unsigned(x.size());
  const uint64_t X = L.buf(x), Y = L.buf(y), O = L.zeros(n * 16);
  L.arg(h).arg(X).arg(Y).arg(O);
  L.run();
  return L.get<F4>(O, n);
}

} // namespace

TEST(PtxTexture, Tex1DfetchReadsLinearMemoryAndZeroOutside) {
  Launch L(tex(), "fetch1d", {1}, {32});
  std::vector<float> v;
  for (int i = 0; i < 8; ++i) v.push_back(float(10 + i));
  TextureDesc d;
  d.base = L.buf(v);
  d.width = 8;
  TextureTable tt;
  const uint64_t h = tt.add(d);
  L.cfg.textures = &tt;
  const uint64_t O = L.zeros(32 * 4);
  L.arg(h).arg(O).arg(-2);
  L.run();
  const auto o = L.get<float>(O, 32);
  for (int i = 0; i < 32; ++i) {
    const int k = i - 2;
    EXPECT_EQ(o[i], k >= 0 && k < 8 ? float(10 + k) : 0.0f) << i;
  }
}

TEST(PtxTexture, PointSamplingClampsUnnormalisedCoordinates) {
  Launch L(tex(), "sample2d", {1}, {4});
  const TextureDesc d = grid(L);
  const auto o = sample2d(L, d, {0.5f, 3.9f, -5.0f, 100.0f}, {0.5f, 2.2f, 1.5f, 100.0f});
  EXPECT_EQ(o[0].x, 0.0f);
  EXPECT_EQ(o[1].x, 23.0f);
  EXPECT_EQ(o[2].x, 10.0f);
  EXPECT_EQ(o[3].x, 23.0f);
  // a one-channel texture: green and blue read 0, alpha 1
  EXPECT_EQ(o[1].y, 0.0f);
  EXPECT_EQ(o[1].z, 0.0f);
  EXPECT_EQ(o[1].w, 1.0f);
}

TEST(PtxTexture, LinearFilteringUsesWeightsWithEightFractionBits) {
  Launch L(tex(), "sample2d", {1}, {4});
  TextureDesc d = grid(L);
  d.filter = TexFilter::Linear;
  const auto o = sample2d(L, d, {1.0f, 1.6f, 0.5f, 2.0f}, {0.5f, 1.5f, 1.3f, 1.0f});
  EXPECT_EQ(o[0].x, 0.5f); // halfway between T[0][0] and T[0][1]
  // x - 0.5 = 1.1: weight 0.1 held as 26/256 (exact 0.1 would give 11.1)
  EXPECT_EQ(o[1].x, 11.0f + 26.0f / 256.0f);
  // y - 0.5 = 0.8: 205/256 of T[1][0] = 10
  EXPECT_EQ(o[2].x, 10.0f * 205.0f / 256.0f);
  // bilinear centre of T[0][1], T[0][2], T[1][1], T[1][2] = (1 + 2 + 11 + 12) / 4
  EXPECT_EQ(o[3].x, 6.5f);
}

TEST(PtxTexture, NormalisedCoordinatesWrapMirrorAndBorder) {
  Launch L(tex(), "sample2d", {1}, {4});
  TextureDesc d = grid(L);
  d.normalized = true;
  d.address = {TexAddress::Wrap, TexAddress::Wrap, TexAddress::Wrap};
  // u = 1.125 wraps to 0.125 -> x = 0.5; u = -0.125 wraps to 0.875 -> x = 3.5; v = 0.5 -> y 1.5
  auto o = sample2d(L, d, {1.125f, -0.125f, 0.5f, 0.99f}, {0.5f, 0.5f, 1.5f, 0.1f});
  EXPECT_EQ(o[0].x, 10.0f);
  EXPECT_EQ(o[1].x, 13.0f);
  EXPECT_EQ(o[2].x, 12.0f); // v 1.5 -> 0.5
  EXPECT_EQ(o[3].x, 3.0f);

  Launch M(tex(), "sample2d", {1}, {4});
  TextureDesc m = grid(M);
  m.normalized = true;
  m.address = {TexAddress::Mirror, TexAddress::Mirror, TexAddress::Mirror};
  // u = 1.125: odd period, 1 - 0.125 = 0.875 -> texel 3; u = -0.125 -> 0.125 -> texel 0
  o = sample2d(M, m, {1.125f, -0.125f, 0.25f, 2.3f}, {0.5f, 0.5f, 1.2f, 0.5f});
  EXPECT_EQ(o[0].x, 13.0f);
  EXPECT_EQ(o[1].x, 10.0f);
  EXPECT_EQ(o[2].x, 21.0f); // v = 1.2 -> 0.8 -> y 2.4
  EXPECT_EQ(o[3].x, 11.0f); // u = 2.3: even period -> 0.3 -> x 1.2

  Launch B(tex(), "sample2d", {1}, {4});
  TextureDesc b = grid(B);
  b.normalized = true;
  b.address = {TexAddress::Border, TexAddress::Border, TexAddress::Border};
  b.border = {7, 7, 7, 7};
  o = sample2d(B, b, {-0.1f, 0.5f, 0.5f, 1.0f}, {0.5f, 0.5f, 1.0f, 0.5f});
  EXPECT_EQ(o[0].x, 7.0f);
  EXPECT_EQ(o[0].w, 7.0f);
  EXPECT_EQ(o[1].x, 12.0f);
  EXPECT_EQ(o[2].x, 7.0f);
  EXPECT_EQ(o[3].x, 7.0f);
}

TEST(PtxTexture, ReadModeNormalisedFloatAndHalfTexels) {
  Launch L(tex(), "sample2d", {1}, {2});
  std::vector<uint8_t> u8 = {255, 0, 128, 51, 128, 127, 0x81, 0x80};
  TextureDesc d;
  d.base = L.buf(u8);
  d.width = 2;
  d.channels = 4;
  d.bits = 8;
  d.kind = TexChannel::Unsigned;
  d.read = TexRead::NormalizedFloat;
  auto o = sample2d(L, d, {0.5f, 1.5f}, {0.5f, 0.5f});
  EXPECT_EQ(o[0].x, 1.0f);
  EXPECT_EQ(o[0].y, 0.0f);
  EXPECT_EQ(o[0].z, float(128.0 / 255.0));
  EXPECT_EQ(o[0].w, 0.2f);

  Launch S(tex(), "sample2d", {1}, {2});
  d.base = S.buf(u8);
  d.kind = TexChannel::Signed; // second texel: -128, 127, -127, -128
  o = sample2d(S, d, {0.5f, 1.5f}, {0.5f, 0.5f});
  EXPECT_EQ(o[1].x, -1.0f);
  EXPECT_EQ(o[1].y, 1.0f);
  EXPECT_EQ(o[1].z, -1.0f);
  EXPECT_EQ(o[1].w, -1.0f);
  EXPECT_EQ(o[0].x, float(-1.0 / 127.0));

  Launch H(tex(), "sample2d", {1}, {1});
  std::vector<uint16_t> h = {0x3e00, 0xc000}; // 1.5, -2
  TextureDesc hd;
  hd.base = H.buf(h);
  hd.channels = 2;
  hd.bits = 16;
  o = sample2d(H, hd, {0.5f}, {0.5f});
  EXPECT_EQ(o[0].x, 1.5f);
  EXPECT_EQ(o[0].y, -2.0f);
  EXPECT_EQ(o[0].w, 1.0f);
}

TEST(PtxTexture, IntegerResults) {
  Launch L(tex(), "sample2d_int", {1}, {1});
  std::vector<int32_t> v = {-7, 5};
  TextureDesc d;
  d.base = L.buf(v);
  d.width = 2;
  d.kind = TexChannel::Signed;
  TextureTable tt;
  const uint64_t h = tt.add(d);
  L.cfg.textures = &tt;
  const uint64_t X = L.buf(std::vector<float>{0.2f}), Y = L.buf(std::vector<float>{0.0f});
  const uint64_t O = L.zeros(4), U = L.zeros(4);
  L.arg(h).arg(X).arg(Y).arg(O).arg(U);
  L.run();
  EXPECT_EQ(L.get<int32_t>(O, 1)[0], -7);
  EXPECT_EQ(L.get<uint32_t>(U, 1)[0], 0xfffffff9u);
  // linear filtering of an integer-returning texture is refused, as CUDA refuses it
  d.filter = TexFilter::Linear;
  EXPECT_THROW(tt.add(d), std::invalid_argument);
}

TEST(PtxTexture, OneAndThreeDimensions) {
  Launch L(tex(), "sample1d", {1}, {3});
  std::vector<float> v = {0, 8, 16, 24};
  TextureDesc d;
  d.base = L.buf(v);
  d.width = 4;
  d.filter = TexFilter::Linear;
  d.normalized = true;
  TextureTable tt;
  L.cfg.textures = &tt;
  const uint64_t h = tt.add(d);
  // u = 0.25 -> x = 1 -> halfway T0..T1; u = 0.3 -> x 1.2 -> a = 0.7 -> 179/256; u = 1 -> clamp
  const uint64_t X = L.buf(std::vector<float>{0.25f, 0.3f, 1.0f}), O = L.zeros(12);
  L.arg(h).arg(X).arg(O);
  L.run();
  const auto o = L.get<float>(O, 3);
  EXPECT_EQ(o[0], 4.0f);
  EXPECT_EQ(o[1], 8.0f * 179.0f / 256.0f);
  EXPECT_EQ(o[2], 24.0f);

  Launch T(tex(), "sample3d", {1}, {2});
  std::vector<float> c;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) c.push_back(float(i + 2 * j + 4 * k));
  TextureDesc e;
  e.resource = TexResource::Array;
  e.base = T.buf(c);
  e.width = e.height = e.depth = 2;
  e.filter = TexFilter::Linear;
  TextureTable t3;
  T.cfg.textures = &t3;
  const uint64_t h3 = t3.add(e);
  const uint64_t X3 = T.buf(std::vector<float>{1.0f, 1.5f}),
                 Y3 = T.buf(std::vector<float>{1.0f, 0.5f}),
                 Z3 = T.buf(std::vector<float>{1.0f, 1.5f}), O3 = T.zeros(8);
  T.arg(h3).arg(X3).arg(Y3).arg(Z3).arg(O3);
  T.run();
  const auto o3 = T.get<float>(O3, 2);
  EXPECT_EQ(o3[0], 3.5f); // the mean of the eight texels
  EXPECT_EQ(o3[1], 5.0f); // texel centre (1, 0, 1)
}

TEST(PtxTexture, Tld4GathersOneChannelOfTheFourTexelsInIsaOrder) {
  Launch L(tex(), "gather", {1}, {1});
  std::vector<float> t; // 4x3 float4: (v, v + 1, 100 + v, 0), v = 10 j + i
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 4; ++i)
      for (float c : {float(10 * j + i), float(10 * j + i + 1), float(100 + 10 * j + i), 0.0f})
        t.push_back(c);
  TextureDesc d;
  d.resource = TexResource::Pitch2D;
  d.base = L.buf(t);
  d.width = 4;
  d.height = 3;
  d.channels = 4;
  d.pitch = 4 * 16 + 32; // rows padded
  std::vector<uint8_t> padded(d.pitch * 3);
  for (int j = 0; j < 3; ++j) std::memcpy(&padded[j * d.pitch], &t[j * 16], 64);
  d.base = L.buf(padded);
  TextureTable tt;
  L.cfg.textures = &tt;
  const uint64_t h = tt.add(d);
  const uint64_t X = L.buf(std::vector<float>{2.0f}), Y = L.buf(std::vector<float>{1.0f}),
                 O = L.zeros(32);
  L.arg(h).arg(X).arg(Y).arg(O);
  L.run();
  const auto o = L.get<F4>(O, 2);
  // (x, y) = (2, 1): i = 1, j = 0; order (i, j+1), (i+1, j+1), (i+1, j), (i, j)
  EXPECT_EQ(o[0].x, 11.0f);
  EXPECT_EQ(o[0].y, 12.0f);
  EXPECT_EQ(o[0].z, 2.0f);
  EXPECT_EQ(o[0].w, 1.0f);
  EXPECT_EQ(o[1].x, 111.0f); // channel b
  EXPECT_EQ(o[1].w, 101.0f);
}

namespace {
TextureDesc surface(uint64_t base, uint64_t w, uint64_t h, uint64_t d = 1, unsigned bits = 32) {
  TextureDesc s;
  s.surface = true;
  s.resource = d > 1 ? TexResource::Array : TexResource::Pitch2D;
  s.base = base;
  s.width = w;
  s.height = h;
  s.depth = d;
  s.bits = bits;
  return s;
}
} // namespace

TEST(PtxTexture, SurfaceReadWriteAndTrap) {
  for (int dx : {0, 1}) {
    Launch L(tex(), "surfaces", {1}, {32});
    std::vector<float> s(64);
    for (int i = 0; i < 64; ++i) s[i] = float(i);
    TextureTable tt;
    L.cfg.textures = &tt;
    const uint64_t S = L.buf(s), D = L.zeros(64 * 4);
    const uint64_t hs = tt.add(surface(S, 32, 2)), hd = tt.add(surface(D, 32, 2));
    L.arg(hs).arg(hd).arg(dx);
    if (dx == 1) { // lane 31 writes x = 128 bytes of a 128-byte row: .trap
      try {
        L.run();
        FAIL() << "no trap";
      } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
      }
      continue;
    }
    L.run();
    const auto d = L.get<float>(D, 64);
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(d[i], 0.0f);
      EXPECT_EQ(d[32 + i], 2.0f * float(32 + i)) << i;
    }
  }
}

TEST(PtxTexture, SurfaceClampAndZero) {
  for (int dx : {20, 110}) {
    Launch L(tex(), "surfaces_modes", {1}, {32});
    std::vector<uint32_t> s(256);
    for (int i = 0; i < 256; ++i) s[i] = 0x01000000u * uint32_t(i & 0x7f) + uint32_t(i);
    TextureTable tt;
    L.cfg.textures = &tt;
    const uint64_t S = L.buf(s), D = L.zeros(256 * 4);
    std::vector<uint32_t> junk(256, 0xdeadbeef);
    L.mem.write_vec(D, junk);
    const uint64_t hs = tt.add(surface(S, 128, 2)), hd = tt.add(surface(D, 128, 2));
    L.arg(hs).arg(hd).arg(dx);
    L.run();
    const auto d = L.get<uint32_t>(D, 256);
    for (int i = 0; i < 32; ++i) {
      // uchar4 row 0, .clamp: texel min(i + dx, 127)
      EXPECT_EQ(d[i], s[std::min(i + dx, 127)]) << dx << " " << i;
      // float4 row 1 at byte (i + dx) * 16, .zero: 0 beyond the 512-byte row
      for (int c = 0; c < 4; ++c) {
        const int t = (i + dx) * 4 + c;
        EXPECT_EQ(d[128 + i * 4 + c], (i + dx) * 16 <= 496 ? s[128 + t] : 0u) << dx << " " << i;
      }
    }
  }
}

TEST(PtxTexture, Surface1DAnd3D) {
  Launch L(tex(), "surfaces_1d3d", {1}, {32});
  std::vector<float> s(32 * 2 * 2);
  for (size_t i = 0; i < s.size(); ++i) s[i] = float(i);
  TextureTable tt;
  L.cfg.textures = &tt;
  const uint64_t S = L.buf(s), D = L.zeros(s.size() * 4);
  const uint64_t hs = tt.add(surface(S, 32, 2, 2)), hd = tt.add(surface(D, 32, 2, 2));
  L.arg(hs).arg(hd);
  L.run();
  const auto d = L.get<uint16_t>(D, s.size() * 2);
  const auto df = L.get<float>(D, s.size());
  std::vector<uint16_t> sh(s.size() * 2);
  std::memcpy(sh.data(), s.data(), s.size() * 4);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(d[i], uint16_t(sh[i] + 1)) << i;         // 1D: row 0 of slice 0, 2-byte units
    EXPECT_EQ(df[64 + i], s[64 + 32 + i] + 1.0f) << i; // 3D: (x, 1, 1) -> (x, 0, 1)
  }
}

// Layered arrays (tex2DLayered, tex1DLayered, surf2DLayeredread/write, surf1DLayered*): the
// first coordinate is the layer; a texture clamps it to the layers there are, a surface access
// is one of a 3D (.a2d) or 2D (.a1d: a layer a row) surface, with its out-of-range rule.
TEST(PtxTexture, LayeredFetchesPickTheirLayer) {
  const std::string text =
      ".version 8.0\n.target sm_75\n.address_size 64\n"
      ".visible .entry lay(.param .u64 t2, .param .u64 t1, .param .u64 s2, .param .u64 s1, "
      ".param .u64 o)\n{\n"
      ".reg .f32 %f<24>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<8>;\n"
      "ld.param.u64 %rd1, [t2];\nld.param.u64 %rd2, [t1];\nld.param.u64 %rd3, [s2];\n"
      "ld.param.u64 %rd4, [s1];\nld.param.u64 %rd5, [o];\ncvta.to.global.u64 %rd5, %rd5;\n"
      "mov.u32 %r1, %tid.x;\n" // layer = lane - 1
      "sub.s32 %r2, %r1, 1;\nmov.f32 %f1, 0f3FC00000;\nmov.f32 %f2, 0f3F000000;\n" // x 1.5, y .5
      "tex.a2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%r2, %f1, %f2, %f2}];\n"
      "tex.a1d.v4.f32.f32 {%f7, %f8, %f9, %f10}, [%rd2, {%r2, %f1}];\n"
      "mov.u32 %r3, 4;\nmov.u32 %r4, 1;\nmov.u32 %r5, 0;\n"
      "suld.b.a2d.b32.zero {%r6}, [%rd3, {%r2, %r3, %r4, %r4}];\n" // (1, 1) of layer lane-1
      "suld.b.a1d.b32.clamp {%r7}, [%rd4, {%r2, %r3}];\n"          // x 1 of layer lane-1
      "add.s32 %r8, %r1, 100;\n"
      "sust.b.a2d.b32.zero [%rd3, {%r1, %r5, %r5, %r5}], {%r8};\n" // (0, 0) of layer lane
      "mul.wide.u32 %rd6, %r1, 16;\nadd.s64 %rd6, %rd5, %rd6;\n"
      "st.global.v2.f32 [%rd6], {%f3, %f7};\nst.global.v2.u32 [%rd6+8], {%r6, %r7};\n"
      "ret;\n}\n";
  const Module m = parse_ptx(text, "lay.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const unsigned layers = 3, lanes = 5;
  Launch L(m, "lay", {1}, {lanes});
  // 2D layers of 4 x 2 texels T[l][y][x] = 100 l + 10 y + x; 1D layers of 4 texels 100 l + x.
  std::vector<float> t2, t1;
  std::vector<uint32_t> s2, s1;
  for (unsigned l = 0; l < layers; ++l)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 4; ++x) {
        t2.push_back(float(100 * l + 10 * y + x));
        s2.push_back(100 * l + 10 * y + x);
        if (y == 0) t1.push_back(float(100 * l + x)), s1.push_back(100 * l + x);
      }
  TextureDesc a2;
  a2.resource = TexResource::Array;
  a2.base = L.buf(t2);
  a2.width = 4, a2.height = 2, a2.depth = layers, a2.layered = true;
  TextureDesc a1 = a2;
  a1.base = L.buf(t1);
  a1.height = 1;
  TextureDesc sa2 = surface(L.buf(s2), 4, 2, layers), sa1 = surface(L.buf(s1), 4, 1, layers);
  sa2.layered = sa1.layered = true;
  TextureTable tt;
  L.cfg.textures = &tt;
  const uint64_t O = L.zeros(lanes * 16);
  const uint64_t hs2 = tt.add(sa2);
  L.arg(tt.add(a2)).arg(tt.add(a1)).arg(hs2).arg(tt.add(sa1)).arg(O);
  L.run();
  const auto f = L.get<float>(O, lanes * 4);
  const auto u = L.get<uint32_t>(O, lanes * 4);
  for (unsigned i = 0; i < lanes; ++i) {
    const int layer = int(i) - 1, clamped = std::min(std::max(layer, 0), int(layers) - 1);
    EXPECT_EQ(f[4 * i], float(100 * clamped + 1)) << i; // point at (1.5, 0.5): texel (1, 0)
    EXPECT_EQ(f[4 * i + 1], float(100 * clamped + 1)) << i;
    // .zero: a layer outside reads 0; .clamp: the nearest layer. Lane 1 reads layer 0's (1, 1)
    // after lane 0 may have written layer 0's (0, 0): a different texel.
    EXPECT_EQ(u[4 * i + 2], layer >= 0 && layer < int(layers) ? 100u * layer + 11 : 0u) << i;
    EXPECT_EQ(u[4 * i + 3], 100u * clamped + 1) << i;
  }
  const auto s2_after = L.get<uint32_t>(sa2.base, s2.size());
  for (unsigned l = 0; l < layers; ++l) EXPECT_EQ(s2_after[l * 8], 100 + l) << l;
  // A layered fetch of a plain object, and a plain fetch of a layered one, stop the kernel.
  TextureDesc flat = a2;
  flat.layered = false;
  Launch L2(m, "lay", {1}, {1});
  TextureTable t2b;
  L2.cfg.textures = &t2b;
  const uint64_t hf = t2b.add(flat);
  L2.arg(hf).arg(hf).arg(hf).arg(hf).arg(L2.zeros(16));
  try {
    L2.run();
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("is not a layered array"), std::string::npos) << e.what();
  }
}

TEST(PtxTexture, UnknownHandleIsARuntimeError) {
  Launch L(tex(), "fetch1d", {1}, {1});
  TextureTable tt;
  L.cfg.textures = &tt;
  L.arg(uint64_t(5)).arg(L.zeros(4)).arg(0);
  try {
    L.run();
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("not a texture object"), std::string::npos) << e.what();
  }
}

// tex.level and tex.grad (tex2DLod, tex1DLod, tex2DGrad) as nvcc writes them: gpurf's textures
// have one level (no mipmapped arrays), which every level of detail and gradient selects, so
// they read what tex reads; their extra operands are source registers.
TEST(PtxTexture, LevelAndGradSampleTheOneLevel) {
  const std::string text =
      ".version 8.0\n.target sm_75\n.address_size 64\n"
      ".visible .entry lod(.param .u64 h, .param .u64 o)\n{\n"
      ".reg .f32 %f<40>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
      "ld.param.u64 %rd1, [h];\nld.param.u64 %rd2, [o];\ncvta.to.global.u64 %rd2, %rd2;\n"
      "mov.u32 %r1, %tid.x;\ncvt.rn.f32.u32 %f1, %r1;\nadd.f32 %f1, %f1, 0f3F000000;\n"
      "mov.f32 %f2, 0f3FC00000;\nmov.f32 %f3, 0f40400000;\nmov.f32 %f4, 0fC0000000;\n"
      "tex.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd1, {%f1, %f2}];\n"
      "tex.level.2d.v4.f32.f32 {%f14, %f15, %f16, %f17}, [%rd1, {%f1, %f2}], %f3;\n"
      "tex.level.2d.v4.f32.f32 {%f18, %f19, %f20, %f21}, [%rd1, {%f1, %f2}], 0f00000000;\n"
      "tex.grad.2d.v4.f32.f32 {%f22, %f23, %f24, %f25}, [%rd1, {%f1, %f2}], {%f3, %f4}, {%f4, "
      "%f3};\n"
      "tex.level.1d.v4.f32.f32 {%f26, %f27, %f28, %f29}, [%rd1, {%f1}], %f3;\n"
      "tex.grad.1d.v4.f32.f32 {%f30, %f31, %f32, %f33}, [%rd1, {%f1}], {%f3}, {%f4};\n"
      "mul.wide.u32 %rd3, %r1, 24;\nadd.s64 %rd3, %rd2, %rd3;\n"
      "st.global.v2.f32 [%rd3], {%f10, %f14};\nst.global.v2.f32 [%rd3+8], {%f18, %f22};\n"
      "st.global.v2.f32 [%rd3+16], {%f26, %f30};\nret;\n}\n";
  const Module m = parse_ptx(text, "lod.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  // The level of detail and the gradients are reads of the instruction.
  const Function& f = *m.find_function("lod");
  std::vector<unsigned> reads, writes;
  for (const Instr& in : f.instrs)
    if (in.text.rfind("tex.grad.2d", 0) == 0) {
      reads_writes(f, in, reads, writes);
      EXPECT_EQ(reads.size(), 7u); // handle, two coordinates, two 2-element gradients
    }
  Launch L(m, "lod", {1}, {4});
  TextureDesc d = grid(L);
  TextureTable tt;
  const uint64_t h = tt.add(d);
  L.cfg.textures = &tt;
  const uint64_t O = L.zeros(4 * 24);
  L.arg(h).arg(O);
  L.run();
  const auto o = L.get<float>(O, 4 * 6);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(o[6 * i], float(10 + i)) << i; // T[1][i] at (i + 0.5, 1.5)
    for (int k = 1; k < 4; ++k) EXPECT_EQ(o[6 * i + k], float(10 + i)) << i << " " << k;
    // 1d over the same texels: row 0
    EXPECT_EQ(o[6 * i + 4], float(i)) << i;
    EXPECT_EQ(o[6 * i + 5], float(i)) << i;
  }
  // A gradient of the wrong size is refused by name.
  const std::string bad =
      ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry b(.param .u64 h)\n{\n"
      ".reg .f32 %f<8>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [h];\n"
      "tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%f3}, {%f4};\nret;\n}\n";
  const Module mb = parse_ptx(bad, "b.ptx");
  ASSERT_EQ(mb.refused.count("b"), 1u);
  EXPECT_NE(mb.refused.at("b").find("gradient of 2"), std::string::npos) << mb.refused.at("b");
}

TEST(PtxTexture, UnsupportedFormsRefuseOnlyTheirKernel) {
  const std::string head = ".version 8.0\n.target sm_75\n.address_size 64\n";
  const std::string good = ".visible .entry good(.param .u64 p) { ret; }\n";
  for (const char* bad : {"tex.cube.v4.f32.f32 {%f1, %f1, %f1, %f1}, [%rd1, {%f1, %f1, %f1, %f1}];",
                          "suld.p.2d.v4.b32.trap {%r1, %r1, %r1, %r1}, [%rd1, {%r1, %r1}];",
                          "tex.2d.v4.f32.f32 {%f1, %f1, %f1, %f1}, [%rd1, {%f1, %f1}], %f1;",
                          "tex.2d.v4.f32.f32 {%f1, %f1, %f1, %f1}, [%r1, {%f1, %f1}];"}) {
    const std::string text = head + good +
                             ".visible .entry bad(.param .u64 p) {\n.reg .f32 %f<2>;\n.reg .b32 "
                             "%r<2>;\n.reg .b64 %rd<2>;\n" +
                             bad + "\nret;\n}\n";
    const Module m = parse_ptx(text, "t.ptx");
    EXPECT_NE(m.find_function("good"), nullptr);
    ASSERT_EQ(m.refused.count("bad"), 1u) << bad;
    EXPECT_NE(m.refused.at("bad").find("supported: tex."), std::string::npos)
        << m.refused.at("bad");
  }
}
