#include "fatbin.h"

#include <cstring>

#ifdef GPURF_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef GPURF_HAVE_LZ4
#include <lz4.h>
#endif

namespace gpurf::cudart {
namespace {

constexpr uint32_t kWrapperMagic = 0x466243b1, kContainerMagic = 0xBA55ED50;
constexpr uint32_t kLinkVersion = 2; // the device-link wrapper of nvcc -rdc=true
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;

template <class T> T at(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}

const uint8_t* wrapper_data(const void* wrapper) {
  const auto* w = static_cast<const uint8_t*>(wrapper);
  if (at<uint32_t>(w, 0) != kWrapperMagic)
    throw FatbinError("the fat binary wrapper has magic " + std::to_string(at<uint32_t>(w, 0)) +
                      ", not 0x466243b1");
  const auto* data = at<const uint8_t*>(w, 8);
  if (!data) throw FatbinError("the fat binary wrapper has no data");
  return data;
}

} // namespace

std::vector<FatbinEntry> parse_fatbin_wrapper(const void* wrapper) {
  return parse_fatbin_container(wrapper_data(wrapper));
}

std::vector<const void*> prelinked_containers(const void* wrapper) {
  wrapper_data(wrapper); // checks the magic
  const auto* w = static_cast<const uint8_t*>(wrapper);
  std::vector<const void*> out;
  if (at<uint32_t>(w, 4) != kLinkVersion) return out;
  const auto* list = at<const void* const*>(w, 16);
  for (size_t i = 0; list && list[i]; ++i) out.push_back(list[i]);
  return out;
}

std::vector<FatbinEntry> parse_fatbin_container(const void* container) {
  const auto* data = static_cast<const uint8_t*>(container);
  std::vector<FatbinEntry> out;
  const uint8_t* c = data;
  if (at<uint32_t>(c, 0) != kContainerMagic)
    throw FatbinError("the fat binary has magic " + std::to_string(at<uint32_t>(c, 0)) +
                      ", not 0xba55ed50");
  {
    const unsigned header = at<uint16_t>(c, 6);
    const uint64_t size = at<uint64_t>(c, 8);
    if (header < 16)
      throw FatbinError("fat binary container header of " + std::to_string(header) + " bytes");
    for (uint64_t off = 0; off + 64 <= size;) {
      const uint8_t* e = c + header + off;
      FatbinEntry fe;
      fe.kind = at<uint16_t>(e, 0);
      const unsigned eh = at<uint32_t>(e, 4);
      const uint64_t bytes = at<uint64_t>(e, 8);
      const uint32_t compressed = at<uint32_t>(e, 16);
      fe.ptx_minor = at<uint16_t>(e, 24);
      fe.ptx_major = at<uint16_t>(e, 26);
      fe.arch = at<uint32_t>(e, 28);
      fe.flags = at<uint64_t>(e, 40);
      fe.uncompressed_bytes = at<uint64_t>(e, 56);
      if (eh < 64 || eh + bytes > size - off)
        throw FatbinError("fat binary entry at offset " + std::to_string(off) +
                          " overruns its container");
      fe.payload = e + eh;
      if (fe.flags & kFlagZstd)
        fe.compression = "zstd";
      else if (fe.flags & kFlagLz4)
        fe.compression = "lz4";
      fe.payload_bytes = fe.compression.empty() ? bytes : compressed;
      if (fe.payload_bytes > bytes) fe.payload_bytes = bytes;
      if (fe.compression.empty()) fe.uncompressed_bytes = bytes;
      out.push_back(fe);
      off += eh + bytes;
    }
  }
  return out;
}

std::string entry_text(const FatbinEntry& e) {
  std::string s;
  const char* avoid = "; build the program with `nvcc --no-compress` (uncompressed fatbin entries)";
  if (e.compression.empty()) {
    s.assign(reinterpret_cast<const char*>(e.payload), e.payload_bytes);
  } else if (e.compression == "zstd") {
#ifdef GPURF_HAVE_ZSTD
    s.resize(e.uncompressed_bytes);
    const size_t n = ZSTD_decompress(s.data(), s.size(), e.payload, e.payload_bytes);
    if (ZSTD_isError(n))
      throw FatbinError(std::string("zstd-compressed PTX: ") + ZSTD_getErrorName(n) + avoid);
    s.resize(n);
#else
    throw FatbinError(std::string("the PTX is zstd-compressed and gpurf was built without "
                                  "libzstd") +
                      avoid);
#endif
  } else {
#ifdef GPURF_HAVE_LZ4
    s.resize(e.uncompressed_bytes);
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(e.payload), s.data(),
                                      int(e.payload_bytes), int(s.size()));
    if (n < 0) throw FatbinError(std::string("LZ4-compressed PTX cannot be read") + avoid);
    s.resize(size_t(n));
#else
    throw FatbinError(std::string("the PTX is LZ4-compressed and gpurf was built without "
                                  "liblz4") +
                      avoid);
#endif
  }
  while (!s.empty() && s.back() == '\0') s.pop_back(); // the payload is padded with NULs
  return s;
}

std::string select_ptx(const std::vector<FatbinEntry>& entries, unsigned max_arch, unsigned* arch) {
  const FatbinEntry* best = nullptr;
  for (const FatbinEntry& e : entries) {
    if (e.kind != 1) continue;
    const bool fits = !max_arch || e.arch <= max_arch;
    const bool best_fits = best && (!max_arch || best->arch <= max_arch);
    if (!best || (fits && (!best_fits || e.arch > best->arch)) ||
        (!fits && !best_fits && e.arch < best->arch))
      best = &e;
  }
  if (!best) return "";
  if (arch) *arch = best->arch;
  return entry_text(*best);
}

} // namespace gpurf::cudart
