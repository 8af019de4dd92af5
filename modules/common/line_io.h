// What the caches (L1, L2) do with TLM payloads besides looking up tags: full-line
// transfers to the memory behind them, and the bytes of a line moved into or out of a
// request, honouring its byte enables.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>

#include <tlm>

#include "gpurf/modules/frontend/i_frontend.h"

namespace gpurf {

// Sets `gp` up as a plain transfer (no byte enables, no streaming) of `len` bytes at `addr`
// from or into `buf`.
// A request a cache cannot serve as such: nothing to do (ignore command, no bytes: answered
// OK), or malformed (no data pointer, empty byte-enable array: answered with the TLM error).
// Returns true when the request has been answered.
inline bool answered_trivially(tlm::tlm_generic_payload& gp) {
  if (gp.get_command() == tlm::TLM_IGNORE_COMMAND || gp.get_data_length() == 0) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return true;
  }
  if (!gp.get_data_ptr()) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return true;
  }
  if (gp.get_byte_enable_ptr() && gp.get_byte_enable_length() == 0) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return true;
  }
  return false;
}

inline void line_payload(tlm::tlm_generic_payload& gp, tlm::tlm_command cmd, uint64_t addr,
                         unsigned char* buf, unsigned len) {
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(buf);
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// Moves the bytes where [base, base + len) (held in `line`) and the request overlap: into
// the request (to_request) or from it into `line`; disabled bytes are left alone.
inline void move_overlap(tlm::tlm_generic_payload& gp, uint64_t base, unsigned char* line,
                         unsigned len, bool to_request) {
  const uint64_t addr = gp.get_address();
  const uint64_t lo = std::max(addr, base);
  const uint64_t hi = std::min<uint64_t>(addr + gp.get_data_length(), base + len);
  unsigned char* data = gp.get_data_ptr();
  const unsigned char* be = gp.get_byte_enable_ptr();
  const unsigned be_len = gp.get_byte_enable_length();
  for (uint64_t a = lo; a < hi; ++a) {
    const uint64_t i = a - addr;
    if (be && be[i % be_len] != TLM_BYTE_ENABLED) continue;
    if (to_request)
      data[i] = line[a - base];
    else
      line[a - base] = data[i];
  }
}

// Whether the request writes every byte of [base, base + len).
inline bool covers(const tlm::tlm_generic_payload& gp, uint64_t base, unsigned len) {
  const uint64_t addr = gp.get_address();
  if (addr > base || addr + gp.get_data_length() < base + len) return false;
  const unsigned char* be = gp.get_byte_enable_ptr();
  if (!be) return true;
  for (uint64_t a = base; a < base + len; ++a)
    if (be[(a - addr) % gp.get_byte_enable_length()] != TLM_BYTE_ENABLED) return false;
  return true;
}

// Throws WorkloadError when the memory answered `gp` with an error.
inline void check_memory_response(const tlm::tlm_generic_payload& gp, const std::string& unit,
                                  const char* what) {
  if (gp.is_response_ok()) return;
  std::ostringstream os;
  os << unit << ": memory " << what << " of " << gp.get_data_length() << " bytes at 0x" << std::hex
     << gp.get_address() << " failed: " << gp.get_response_string();
  throw WorkloadError(os.str());
}

} // namespace gpurf
