// The fatbin container nvcc embeds in a program (docs/programs.md "How a program's PTX is
// found"): __cudaRegisterFatBinary receives a wrapper {magic 0x466243b1, version, data, ...}
// whose data is a container {magic 0xBA55ED50, version, header size, payload size} followed by
// entries, each a header (kind: 1 PTX, 2 ELF; header size; payload size; compressed size;
// PTX version; target arch; flags; uncompressed size) and its payload. nvcc 13 compresses
// payloads with zstd by default (flag 0x8000); older nvcc used LZ4 (flag 0x2000).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurf::cudart {

struct FatbinEntry {
  unsigned kind = 0; // 1: PTX, 2: ELF (SASS)
  unsigned arch = 0; // sm_XY as XY
  unsigned ptx_major = 0, ptx_minor = 0;
  uint64_t flags = 0;
  std::string compression; // "", "zstd", "lz4"
  const uint8_t* payload = nullptr;
  uint64_t payload_bytes = 0, uncompressed_bytes = 0;
};

struct FatbinError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The entries of the container the wrapper points to. Throws
// FatbinError on a malformed container.
std::vector<FatbinEntry> parse_fatbin_wrapper(const void* wrapper);
std::vector<FatbinEntry> parse_fatbin_container(const void* container);
// nvcc -rdc=true registers one wrapper (version 2) whose container holds the device-linked SASS
// and whose fourth field lists each translation unit's own container (with its PTX), null-
// terminated (crt/link.stub's __cudaPrelinkedFatbins). Empty for any other wrapper.
std::vector<const void*> prelinked_containers(const void* wrapper);
// An entry's bytes, decompressed; FatbinError naming the scheme when it cannot be read.
std::string entry_text(const FatbinEntry& e);
// The PTX text of the best PTX entry: the highest arch not above `max_arch` (0: any), else the
// lowest. Empty when there is no PTX entry.
std::string select_ptx(const std::vector<FatbinEntry>& entries, unsigned max_arch,
                       unsigned* arch = nullptr);

} // namespace gpurf::cudart
