// Small text helpers every part of gpurf uses for its messages: one of each. Header-only, so
// that the libraries that do not link gpurf_base (the PTX front-end, the compiler) use them too.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

namespace gpurf {

// "0x1f": an address or a raw value in messages and traces.
inline std::string hex(uint64_t v) {
  char b[2 + 16] = {'0', 'x'};
  return std::string(b, std::to_chars(b + 2, b + sizeof b, v, 16).ptr);
}

// The items separated by `sep` ("a, b, c" by default): lists in messages.
inline std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string s;
  for (const std::string& x : items) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Optimal string alignment distance (Levenshtein with adjacent transpositions counted as one
// edit): the measure of every did-you-mean hint.
inline size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

} // namespace gpurf
