// A virtual platform's memory for the tests: sparse (4 KiB pages appear on first write; other
// bytes read 0) below `size` bytes, annotating a fixed latency, with a multi-passthrough target
// socket any number of initiators (GPUs, a host) bind to. Streaming width and byte enables are
// honoured; accesses beyond `size` get TLM_ADDRESS_ERROR_RESPONSE (debug: 0 bytes). Counts
// timed requests per initiator.
#pragma once

#include <memory>
#include <unordered_map>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace gpurf::test {

struct SparseMemory : sc_core::sc_module {
  tlm_utils::multi_passthrough_target_socket<SparseMemory> socket;
  uint64_t size = uint64_t(16) << 30;
  sc_core::sc_time latency{200, sc_core::SC_NS};
  std::unordered_map<int, uint64_t> requests; // timed requests per initiator

  explicit SparseMemory(sc_core::sc_module_name nm) : sc_module(nm), socket("socket") {
    socket.register_b_transport(this, &SparseMemory::b_transport);
    socket.register_transport_dbg(this, &SparseMemory::transport_dbg);
  }
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++requests[id];
    gp.set_response_status(copy(gp) ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    delay += latency;
  }
  unsigned transport_dbg(int, tlm::tlm_generic_payload& gp) {
    return copy(gp) ? gp.get_data_length() : 0;
  }
  bool copy(tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    const unsigned len = gp.get_data_length();
    unsigned sw = gp.get_streaming_width();
    if (sw == 0 || sw > len) sw = len;
    if (a >= size || size - a < sw) return false;
    const unsigned char* be = gp.get_byte_enable_ptr();
    const unsigned bl = gp.get_byte_enable_length();
    if (gp.is_read() == gp.is_write()) return true; // IGNORE
    for (unsigned i = 0; i < len; ++i) {
      if (be && bl && be[i % bl] != TLM_BYTE_ENABLED) continue;
      access(a + i % sw, gp.get_data_ptr() + i, gp.is_write());
    }
    return true;
  }
  // Untimed host-side access, as a loader or a host CPU's cache would do.
  void write(uint64_t a, const void* src, size_t n) {
    for (size_t i = 0; i < n; ++i)
      access(a + i, const_cast<unsigned char*>(static_cast<const unsigned char*>(src) + i), true);
  }
  void read(uint64_t a, void* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) access(a + i, static_cast<unsigned char*>(dst) + i, false);
  }

private:
  void access(uint64_t at, unsigned char* p, bool write) {
    auto& page = pages_[at >> 12];
    if (write) {
      if (!page) page = std::make_unique<unsigned char[]>(4096);
      page[at & 4095] = *p;
    } else {
      *p = page ? page[at & 4095] : 0;
    }
  }
  std::unordered_map<uint64_t, std::unique_ptr<unsigned char[]>> pages_;
};

} // namespace gpurf::test
