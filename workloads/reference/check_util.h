// Helpers shared by the reference checkers (not part of the public interface).
#pragma once

#include "gpurf/workloads/reference/reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace gpurf::workload::detail {

// Typed access with a size check: the buffer must hold exactly `count` elements of T.
template <class T> const T* in(const LaunchData& d, const char* name, uint64_t count) {
  const Buffer& b = d.buf(name);
  if (b.count != count)
    throw std::runtime_error(std::string("buffer '") + name + "' has " + std::to_string(b.count) +
                             " elements, the checker expects " + std::to_string(count));
  return b.in<T>();
}
template <class T> const T* out(const LaunchData& d, const char* name, uint64_t count) {
  in<T>(d, name, count);
  return d.buf(name).out<T>();
}

inline std::string fmt(double v) {
  char s[64];
  std::snprintf(s, sizeof s, "%.9g", v);
  return s;
}
template <class T> std::string fmt_any(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return fmt(double(v));
  else
    return std::to_string(v);
}

template <class T, class U>
std::string mismatch(const char* buffer, uint64_t index, T expected, U got,
                     const std::string& note = "") {
  std::ostringstream o;
  o << buffer << "[" << index << "]: expected " << fmt_any(expected) << ", got " << fmt_any(got);
  if (!note.empty()) o << " (" << note << ")";
  return o.str();
}

// An f16 (binary16) value from its bits, decoded here (independently of the engine's half.h).
inline double f16_value(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double v = e == 31  ? (m ? NAN : INFINITY)
                   : e == 0 ? std::ldexp(double(m), -24)
                            : std::ldexp(double(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}
// `x` rounded to f16, to nearest even (finite results, |x| < 65520), as a double.
inline double round_f16(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double ulp = std::ldexp(1.0, std::max(std::ilogb(x), -14) - 10);
  return std::nearbyint(x / ulp) * ulp; // the default rounding mode: ties to even
}

// |got - expected| <= tol; NaN never passes.
inline bool close(double expected, double got, double tol) {
  return std::isfinite(got) && std::fabs(got - expected) <= tol;
}

// Compares `count` integers exactly.
template <class T>
std::string compare_exact(const char* buffer, const T* expected, const T* got, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    if (expected[i] != got[i]) return mismatch(buffer, i, expected[i], got[i]);
  return "";
}

// Compares floats: |got - expected| <= atol + rtol * scale[i] (scale: a magnitude of the terms
// that produced element i, e.g. the sum of their absolute values; nullptr: |expected|).
template <class T, class E>
std::string compare_close(const char* buffer, const E* expected, const T* got, uint64_t count,
                          double rtol, double atol, const double* scale = nullptr) {
  for (uint64_t i = 0; i < count; ++i) {
    const double s = scale ? scale[i] : std::fabs(double(expected[i]));
    const double tol = atol + rtol * s;
    if (!close(double(expected[i]), double(got[i]), tol))
      return mismatch(buffer, i, double(expected[i]), double(got[i]), "tolerance " + fmt(tol));
  }
  return "";
}

// C = A * B, n x n row-major f32 buffers A, B, C and var n (sgemm, sgemm_async, mma_gemm),
// each input first passed through `input` (mma_gemm: rounded to f16). The products are summed in
// double; the kernels sum them in f32 in some order, whose error is at most about n * 2^-24 of
// sum_k |A[i][k] * B[k][j]| (n = 64: ~4e-6), so 1e-5 of that sum is allowed.
inline std::string check_gemm(const LaunchData& d, double (*input)(double) = nullptr) {
  const int64_t n = d.var("n");
  const uint64_t nn = uint64_t(n * n);
  const float* A = in<float>(d, "A", nn);
  const float* B = in<float>(d, "B", nn);
  const float* C = out<float>(d, "C", nn);
  std::vector<double> a(A, A + nn), b(B, B + nn), expected(nn), scale(nn);
  if (input)
    for (uint64_t i = 0; i < nn; ++i) a[i] = input(a[i]), b[i] = input(b[i]);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0, s = 0.0;
      for (int64_t k = 0; k < n; ++k) {
        const double p = a[size_t(i * n + k)] * b[size_t(k * n + j)];
        acc += p;
        s += std::fabs(p);
      }
      expected[size_t(i * n + j)] = acc;
      scale[size_t(i * n + j)] = s;
    }
  return compare_close("C", expected.data(), C, nn, 1e-5, 1e-7, scale.data());
}

// Emulates a warp's shfl.sync.down reduction tree exactly: for each offset (first, first/2, .., 1)
// lane l adds lane l+off's value, or its own value when l+off >= 32 (the hardware returns the
// caller's value for an out-of-range source). Returns lane 0's value. Matches
//   for (off = first; off > 0; off >>= 1) v += __shfl_down_sync(~0u, v, off);
template <class T> T warp_reduce_down(std::array<T, 32> v, int first) {
  for (int off = first; off > 0; off >>= 1) {
    std::array<T, 32> next;
    for (size_t l = 0; l < 32; ++l)
      next[l] = v[l] + (l + size_t(off) < 32 ? v[l + size_t(off)] : v[l]);
    v = next;
  }
  return v[0];
}

} // namespace gpurf::workload::detail
