#include "gpurf/modules/frontend/ptx/device_output.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace gpurf::ptx {
namespace {

DeviceOutput& sink() {
  static DeviceOutput s;
  return s;
}

// One conversion of `format` from `i` (just after '%'): its spec without the conversion
// letter and length, the conversion letter, the argument's size (0: none), and where it ends.
struct Conversion {
  std::string flags; // flags, width, precision
  std::string length;
  char conv = 0;
  size_t end = 0;
  unsigned bytes = 0;
};

Conversion parse(const std::string& f, size_t i) {
  Conversion c;
  size_t j = i;
  while (j < f.size() && std::strchr("-+ #0123456789.", f[j])) ++j;
  c.flags = f.substr(i, j - i);
  const size_t l = j;
  while (j < f.size() && std::strchr("hlLqjzt", f[j])) ++j;
  c.length = f.substr(l, j - l);
  c.conv = j < f.size() ? f[j] : 0;
  c.end = j < f.size() ? j + 1 : j;
  const bool wide = c.length == "l" || c.length == "ll" || c.length == "q" || c.length == "j" ||
                    c.length == "z" || c.length == "t";
  switch (c.conv) {
  case 'd':
  case 'i':
  case 'u':
  case 'x':
  case 'X':
  case 'o':
  case 'c':
    c.bytes = wide ? 8 : 4;
    break;
  case 'f':
  case 'F':
  case 'e':
  case 'E':
  case 'g':
  case 'G':
  case 'a':
  case 'A':
  case 's':
  case 'p':
    c.bytes = 8;
    break;
  default:
    c.bytes = 0;
  }
  return c;
}

} // namespace

void set_device_output(DeviceOutput s) { sink() = std::move(s); }
const DeviceOutput& device_output() { return sink(); }

size_t device_printf_args_bytes(const std::string& f) {
  size_t off = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    if (i + 1 < f.size() && f[i + 1] == '%') {
      ++i;
      continue;
    }
    const Conversion c = parse(f, i + 1);
    if (c.bytes) off = (off + c.bytes - 1) / c.bytes * c.bytes + c.bytes;
    i = c.end - 1;
  }
  return off;
}

std::string format_device_printf(const std::string& f, const unsigned char* args, size_t args_bytes,
                                 const std::function<std::string(uint64_t)>& string_at) {
  std::string out;
  size_t off = 0;
  char buf[512];
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out += f[i];
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    const Conversion c = parse(f, i + 1);
    if (!c.bytes) { // not a conversion CUDA's printf takes: as written
      out += f.substr(i, c.end - i);
      i = c.end - 1;
      continue;
    }
    off = (off + c.bytes - 1) / c.bytes * c.bytes;
    uint64_t v = 0;
    if (off + c.bytes <= args_bytes) std::memcpy(&v, args + off, c.bytes);
    off += c.bytes;
    const std::string spec = "%" + c.flags;
    switch (c.conv) {
    case 'd':
    case 'i':
      std::snprintf(buf, sizeof buf, (spec + "lld").c_str(),
                    c.bytes == 8 ? (long long)(int64_t)v : (long long)(int32_t)(uint32_t)v);
      break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
      std::snprintf(buf, sizeof buf, (spec + "ll" + c.conv).c_str(),
                    c.bytes == 8 ? (unsigned long long)v : (unsigned long long)(uint32_t)v);
      break;
    case 'c':
      std::snprintf(buf, sizeof buf, (spec + "c").c_str(), int(uint8_t(v)));
      break;
    case 's': {
      const std::string s = string_at(v);
      std::snprintf(buf, sizeof buf, (spec + "s").c_str(), s.c_str());
      break;
    }
    case 'p':
      std::snprintf(buf, sizeof buf, (spec + "p").c_str(), reinterpret_cast<void*>(v));
      break;
    default: { // floating point: passed as double
      double d;
      std::memcpy(&d, &v, 8);
      std::snprintf(buf, sizeof buf, (spec + c.conv).c_str(), d);
    }
    }
    out += buf;
    i = c.end - 1;
  }
  return out;
}

} // namespace gpurf::ptx
