// Texture and surface objects (CUDA's unified texture-object model) and the functional
// semantics of tex / tld4 / suld / sust (plain C++, no SystemC).
//
// A texture or surface object is a 64-bit handle the kernel receives as a parameter; the
// engine looks it up in a TextureTable (LaunchConfig::textures) holding its descriptor:
// where the texels are (a linear, pitch-2D or array resource in global memory: rows `pitch`
// bytes apart, slices `slice_pitch` apart), their format (1/2/4 channels of 8/16/32-bit
// signed/unsigned integers, f16 or f32) and, for textures, how they are sampled (read mode,
// point or linear filter, address mode per dimension, normalised coordinates, border colour).
//
// Sampling follows the CUDA Programming Guide's "Texture Fetching" appendix:
//   * normalised coordinates are scaled by the size first (x = u * width);
//   * point:  tex(x) = T[floor(x)];
//   * linear: tex(x) = (1 - a) T[i] + a T[i + 1], i = floor(x - 0.5), a = frac(x - 0.5), a
//     held in 9-bit fixed point with 8 fraction bits (here: rounded to the nearest 1/256),
//     bilinear / trilinear as the product of the per-dimension weights;
//   * addressing applies to every texel index: clamp to [0, N-1]; wrap and mirror (normalised
//     coordinates only, as CUDA requires) repeat / reflect the coordinate; border reads the
//     border colour (zero by default) for an index outside [0, N-1].
// Read mode NormalizedFloat turns 8/16-bit integers into [0, 1] (unsigned) or [-1, 1]
// (signed: v / (2^(n-1) - 1), clamped at -1); f16 texels read as f32; linear filtering needs a
// float result (CUDA: cudaErrorInvalidFilterSetting), which the descriptor check enforces.
// Channels a format lacks read as 0, alpha as 1 (1.0f for a float result).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gpurf::ptx {

struct GlobalMemory;

enum class TexChannel : uint8_t { Signed, Unsigned, Float };
enum class TexAddress : uint8_t { Wrap, Clamp, Mirror, Border };
enum class TexFilter : uint8_t { Point, Linear };
enum class TexRead : uint8_t { ElementType, NormalizedFloat };
enum class TexResource : uint8_t { Linear, Pitch2D, Array };

struct TextureDesc {
  bool surface = false; // a surface object: suld/sust only, texel (x) coordinates in bytes
  TexResource resource = TexResource::Linear;
  uint64_t base = 0;                         // global address of texel (0,0,0)
  uint64_t width = 1, height = 1, depth = 1; // texels
  uint64_t pitch = 0, slice_pitch = 0;       // bytes; 0: packed (width * texel bytes, ...)
  unsigned channels = 1;                     // 1, 2 or 4
  unsigned bits = 32;                        // per channel: 8, 16 or 32
  TexChannel kind = TexChannel::Float;       // Float with bits 16 is f16
  TexRead read = TexRead::ElementType;
  TexFilter filter = TexFilter::Point;
  std::array<TexAddress, 3> address{TexAddress::Clamp, TexAddress::Clamp, TexAddress::Clamp};
  bool normalized = false;
  std::array<float, 4> border{0, 0, 0, 0};
  // A layered array (CUDA's cudaArrayLayered): `depth` layers of width x height, fetched only by
  // .a1d/.a2d instructions, whose layer index picks one (clamped for textures).
  bool layered = false;

  unsigned texel_bytes() const { return channels * bits / 8; }
  uint64_t row_pitch() const { return pitch ? pitch : width * texel_bytes(); }
  uint64_t slice() const { return slice_pitch ? slice_pitch : row_pitch() * height; }
  uint64_t bytes() const { return slice() * depth; } // the resource's footprint
  // Empty when valid, else why not ("linear filtering needs a float result ...").
  std::string check() const;
};

// Instr::tex_dims of a layered geometry: .a1d = kTexLayered | 1, .a2d = kTexLayered | 2.
constexpr uint8_t kTexLayered = 4;

// Handles are small nonzero integers (0 is CUDA's "no object").
class TextureTable {
public:
  uint64_t add(const TextureDesc& d); // throws std::invalid_argument when d.check() fails
  const TextureDesc* find(uint64_t handle) const;
  bool remove(uint64_t handle);

private:
  std::vector<TextureDesc> descs_; // handle h at h - 1
  std::vector<bool> live_;
};

// Texture result types (the tex/tld4 destination type).
enum class TexResult : uint8_t { F32, S32, U32 };

// One texture sample: four 32-bit results (f32 bits or integers). `coords` are floats (or
// integers when `int_coords`: unnormalised texel indices, point sampled, as tex1Dfetch);
// `dims` 1..3. `touched` (may be null) receives the global address of the texel nearest
// the sample point (the one point filtering reads): the timing model's access.
std::array<uint32_t, 4> tex_sample(const TextureDesc& d, GlobalMemory& mem, unsigned dims,
                                   const float* coords, const int32_t* icoords, TexResult rt,
                                   uint64_t* touched);
// tld4: channel `comp` (0..3 = r,g,b,a) of the four texels bilinear filtering of (x, y)
// would use, in the order the PTX ISA gives: (i, j+1), (i+1, j+1), (i+1, j), (i, j) with
// (i, j) the upper-left texel.
std::array<uint32_t, 4> tex_gather(const TextureDesc& d, GlobalMemory& mem, unsigned comp, float x,
                                   float y, TexResult rt, uint64_t* touched);

// Surface out-of-range handling (suld/sust .trap/.clamp/.zero).
enum class SurfClamp : uint8_t { Trap, Clamp, Zero };
// suld.b / sust.b of `len` bytes at byte x-coordinate `xb` and rows/slices y, z. Returns an
// empty string on success or the reason for a trap (out of range, misaligned x); `addr`
// receives the global address accessed (0 when none: a .zero read / ignored write).
std::string surf_access(const TextureDesc& d, GlobalMemory& mem, unsigned dims, int32_t xb,
                        int32_t y, int32_t z, void* buf, unsigned len, bool write, SurfClamp mode,
                        uint64_t& addr);

} // namespace gpurf::ptx
