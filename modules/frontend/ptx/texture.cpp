#include "gpurf/modules/frontend/ptx/texture.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/modules/frontend/ptx/half.h"

namespace gpurf::ptx {

std::string TextureDesc::check() const {
  if (channels != 1 && channels != 2 && channels != 4)
    return "channels " + std::to_string(channels) + " (valid: 1, 2, 4)";
  if (bits != 8 && bits != 16 && bits != 32)
    return "channel bits " + std::to_string(bits) + " (valid: 8, 16, 32)";
  if (kind == TexChannel::Float && bits == 8) return "8-bit float channels (valid: 16, 32)";
  if (width == 0 || height == 0 || depth == 0) return "a zero dimension";
  if (pitch && pitch < width * texel_bytes())
    return "pitch " + std::to_string(pitch) + " below a row's " +
           std::to_string(width * texel_bytes()) + " bytes";
  if (slice_pitch && slice_pitch < row_pitch() * height)
    return "slice pitch " + std::to_string(slice_pitch) + " below a slice's " +
           std::to_string(row_pitch() * height) + " bytes";
  if (read == TexRead::NormalizedFloat && kind != TexChannel::Float && bits == 32)
    return "normalised-float reads of 32-bit integers (valid: 8- and 16-bit)";
  const bool float_result = kind == TexChannel::Float || read == TexRead::NormalizedFloat;
  if (!surface && filter == TexFilter::Linear && !float_result)
    return "linear filtering of a texture that returns integers (CUDA: "
           "cudaErrorInvalidFilterSetting; use read mode normalized-float or point filtering)";
  return {};
}

uint64_t TextureTable::add(const TextureDesc& d) {
  if (const std::string bad = d.check(); !bad.empty())
    throw std::invalid_argument("invalid texture descriptor: " + bad);
  descs_.push_back(d);
  live_.push_back(true);
  return descs_.size();
}

const TextureDesc* TextureTable::find(uint64_t h) const {
  return h >= 1 && h <= descs_.size() && live_[h - 1] ? &descs_[h - 1] : nullptr;
}

bool TextureTable::remove(uint64_t h) {
  if (!find(h)) return false;
  live_[h - 1] = false;
  return true;
}

namespace {

uint64_t dim_size(const TextureDesc& d, unsigned k) {
  return k == 0 ? d.width : k == 1 ? d.height : d.depth;
}

uint64_t texel_addr(const TextureDesc& d, int64_t i, int64_t j, int64_t k) {
  return d.base + uint64_t(k) * d.slice() + uint64_t(j) * d.row_pitch() +
         uint64_t(i) * d.texel_bytes();
}

bool float_result(const TextureDesc& d) {
  return d.kind == TexChannel::Float || d.read == TexRead::NormalizedFloat;
}

// The texel's four channels as the texture returns them: floats (as f32 bits converted back
// by the caller) when float_result, else integers; missing channels 0, alpha 1.
std::array<double, 4> read_texel(const TextureDesc& d, GlobalMemory& mem, uint64_t a) {
  uint8_t buf[16] = {0};
  mem.read(a, buf, d.texel_bytes());
  std::array<double, 4> c{0, 0, 0, 1};
  const unsigned cb = d.bits / 8;
  for (unsigned ch = 0; ch < d.channels; ++ch) {
    uint32_t raw = 0;
    std::memcpy(&raw, buf + ch * cb, cb);
    double v;
    if (d.kind == TexChannel::Float) {
      if (d.bits == 16) {
        v = half::to_double(uint16_t(raw), half::kF16);
      } else {
        float f;
        std::memcpy(&f, &raw, 4);
        v = f;
      }
    } else if (d.kind == TexChannel::Signed) {
      const int64_t sv = int64_t(int32_t(raw << (32 - d.bits))) >> (32 - d.bits);
      v = double(sv);
      if (d.read == TexRead::NormalizedFloat)
        v = std::max(-1.0, v / double((1u << (d.bits - 1)) - 1));
    } else {
      v = double(raw);
      if (d.read == TexRead::NormalizedFloat) v /= double((1ull << d.bits) - 1);
    }
    c[ch] = v;
  }
  return c;
}

std::array<uint32_t, 4> pack(const TextureDesc& d, const std::array<double, 4>& c) {
  std::array<uint32_t, 4> r{};
  for (unsigned ch = 0; ch < 4; ++ch) {
    if (float_result(d)) {
      const float f = float(c[ch]);
      std::memcpy(&r[ch], &f, 4);
    } else {
      r[ch] = uint32_t(int64_t(c[ch]));
    }
  }
  return r;
}

// Mirror-repeat of a normalised coordinate into [0, 1].
float mirror(float u) {
  const float f = std::floor(u);
  const float t = u - f;
  return (int64_t(f) & 1) ? 1.0f - t : t;
}

// The texel coordinate x (in texels) of coordinate `c` in dimension k.
float scaled(const TextureDesc& d, unsigned k, float c) {
  if (!d.normalized) return c;
  const float n = float(dim_size(d, k));
  switch (d.address[k]) {
  case TexAddress::Wrap:
    return (c - std::floor(c)) * n;
  case TexAddress::Mirror:
    return mirror(c) * n;
  default:
    return c * n;
  }
}

// Index i of dimension k after addressing; false: outside, read the border colour.
bool address(const TextureDesc& d, unsigned k, int64_t& i) {
  const int64_t n = int64_t(dim_size(d, k));
  TexAddress m = d.address[k];
  // CUDA: wrap and mirror need normalised coordinates; unnormalised ones clamp.
  if (!d.normalized && (m == TexAddress::Wrap || m == TexAddress::Mirror)) m = TexAddress::Clamp;
  switch (m) {
  case TexAddress::Wrap:
    i = ((i % n) + n) % n;
    return true;
  case TexAddress::Mirror: {
    const int64_t p = ((i % (2 * n)) + 2 * n) % (2 * n);
    i = p < n ? p : 2 * n - 1 - p;
    return true;
  }
  case TexAddress::Clamp:
    i = std::min(std::max(i, int64_t(0)), n - 1);
    return true;
  case TexAddress::Border:
    return i >= 0 && i < n;
  }
  return true;
}

// The 8-fraction-bit weight of a linear fetch (CUDA: 9-bit fixed point).
double weight(float frac) { return std::nearbyint(double(frac) * 256.0) / 256.0; }

std::array<double, 4> fetch(const TextureDesc& d, GlobalMemory& mem, const int64_t* idx,
                            unsigned dims) {
  int64_t ijk[3] = {0, 0, 0};
  for (unsigned k = 0; k < dims; ++k) {
    ijk[k] = idx[k];
    if (!address(d, k, ijk[k])) return {d.border[0], d.border[1], d.border[2], d.border[3]};
  }
  return read_texel(d, mem, texel_addr(d, ijk[0], ijk[1], ijk[2]));
}

} // namespace

std::array<uint32_t, 4> tex_sample(const TextureDesc& d, GlobalMemory& mem, unsigned dims,
                                   const float* coords, const int32_t* icoords, TexResult,
                                   uint64_t* touched) {
  if (icoords) { // integer texel indices: tex1Dfetch reads zero outside the resource
    int64_t idx[3] = {0, 0, 0};
    bool inside = true;
    for (unsigned k = 0; k < dims; ++k) {
      idx[k] = icoords[k];
      inside = inside && idx[k] >= 0 && idx[k] < int64_t(dim_size(d, k));
    }
    if (!inside) {
      if (touched) *touched = d.base;
      return {0, 0, 0, 0};
    }
    if (touched) *touched = texel_addr(d, idx[0], idx[1], idx[2]);
    return pack(d, read_texel(d, mem, texel_addr(d, idx[0], idx[1], idx[2])));
  }
  float x[3] = {0, 0, 0};
  for (unsigned k = 0; k < dims; ++k) x[k] = scaled(d, k, coords[k]);
  if (touched) { // the nearest texel, addressed (the border's: the resource's first texel)
    int64_t ijk[3] = {0, 0, 0};
    bool in = true;
    for (unsigned k = 0; k < dims; ++k) {
      ijk[k] = int64_t(std::floor(x[k]));
      in = address(d, k, ijk[k]) && in;
    }
    *touched = in ? texel_addr(d, ijk[0], ijk[1], ijk[2]) : d.base;
  }
  if (d.filter == TexFilter::Point) {
    int64_t idx[3] = {0, 0, 0};
    for (unsigned k = 0; k < dims; ++k) idx[k] = int64_t(std::floor(x[k]));
    return pack(d, fetch(d, mem, idx, dims));
  }
  // Linear: the 2^dims texels around x - 0.5, weights with 8 fraction bits, accumulated
  // in f32 in corner order (bit k of the corner set: index i+1 in dimension k).
  int64_t lo[3] = {0, 0, 0};
  double a[3] = {0, 0, 0};
  for (unsigned k = 0; k < dims; ++k) {
    const float xb = x[k] - 0.5f;
    const float f = std::floor(xb);
    lo[k] = int64_t(f);
    a[k] = weight(xb - f);
  }
  float acc[4] = {0, 0, 0, 0};
  for (unsigned corner = 0; corner < (1u << dims); ++corner) {
    int64_t idx[3] = {0, 0, 0};
    float w = 1.0f;
    for (unsigned k = 0; k < dims; ++k) {
      const bool hi = (corner >> k) & 1;
      idx[k] = lo[k] + (hi ? 1 : 0);
      w *= float(hi ? a[k] : 1.0 - a[k]);
    }
    const std::array<double, 4> t = fetch(d, mem, idx, dims);
    for (unsigned ch = 0; ch < 4; ++ch) acc[ch] += w * float(t[ch]);
  }
  return pack(d, {acc[0], acc[1], acc[2], acc[3]});
}

std::array<uint32_t, 4> tex_gather(const TextureDesc& d, GlobalMemory& mem, unsigned comp, float x,
                                   float y, TexResult, uint64_t* touched) {
  const float xs = scaled(d, 0, x) - 0.5f, ys = scaled(d, 1, y) - 0.5f;
  const int64_t i = int64_t(std::floor(xs)), j = int64_t(std::floor(ys));
  const int64_t at[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
  std::array<double, 4> c{};
  for (unsigned q = 0; q < 4; ++q) {
    const int64_t idx[3] = {at[q][0], at[q][1], 0};
    c[q] = fetch(d, mem, idx, 2)[comp];
  }
  if (touched) {
    int64_t ii = i, jj = j;
    *touched = address(d, 0, ii) && address(d, 1, jj) ? texel_addr(d, ii, jj, 0) : d.base;
  }
  return pack(d, c);
}

std::string surf_access(const TextureDesc& d, GlobalMemory& mem, unsigned dims, int32_t xb,
                        int32_t y, int32_t z, void* buf, unsigned len, bool write, SurfClamp mode,
                        uint64_t& addr) {
  addr = 0;
  const int64_t row = int64_t(d.width * d.texel_bytes());
  int64_t c[3] = {xb, dims > 1 ? y : 0, dims > 2 ? z : 0};
  const int64_t hi[3] = {row - int64_t(len), int64_t(d.height) - 1, int64_t(d.depth) - 1};
  if (xb % int32_t(len) != 0)
    return "misaligned surface x-coordinate " + std::to_string(xb) + " bytes (a " +
           std::to_string(len) + "-byte access needs a multiple of " + std::to_string(len) + ")";
  bool inside = true;
  for (unsigned k = 0; k < 3; ++k) inside = inside && c[k] >= 0 && c[k] <= hi[k];
  if (!inside) {
    if (mode == SurfClamp::Trap)
      return "surface access out of range at (" + std::to_string(xb) + " bytes, " +
             std::to_string(y) + ", " + std::to_string(z) + ") of a " + std::to_string(d.width) +
             "x" + std::to_string(d.height) + "x" + std::to_string(d.depth) + " surface of " +
             std::to_string(d.texel_bytes()) + "-byte texels (.trap)";
    if (mode == SurfClamp::Zero) {
      if (!write) std::memset(buf, 0, len);
      return {};
    }
    for (unsigned k = 0; k < 3; ++k) c[k] = std::min(std::max(c[k], int64_t(0)), hi[k]);
  }
  addr = d.base + uint64_t(c[2]) * d.slice() + uint64_t(c[1]) * d.row_pitch() + uint64_t(c[0]);
  if (write)
    mem.write(addr, buf, len);
  else
    mem.read(addr, buf, len);
  return {};
}

} // namespace gpurf::ptx
