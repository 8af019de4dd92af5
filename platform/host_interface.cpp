#include "gpurf/platform/host_interface.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "gpurf/platform/gpu.h"
#include "gpurf/platform/stats.h"

namespace gpurf {

HostInterface::HostInterface(sc_core::sc_module_name nm, Gpu& gpu)
    : sc_core::sc_module(nm), socket("socket"), irq("irq"), gpu_(gpu) {
  kernel_ = gpu.gpu_kernel();
  socket.register_b_transport(this, &HostInterface::b_transport);
  socket.register_transport_dbg(this, &HostInterface::transport_dbg);
  SC_METHOD(finished);
  sensitive << gpu.done_event();
  dont_initialize();
  SC_METHOD(drive_irq);
  sensitive << raise_;
}

namespace {
void set_half(uint64_t& r, bool high, uint32_t v) {
  r = high ? (r & 0xffffffffu) | uint64_t(v) << 32 : (r & ~uint64_t(0xffffffffu)) | v;
}
} // namespace

uint32_t HostInterface::read(unsigned offset) const {
  switch (offset) {
  case kId:
    return kMagic;
  case kStatus:
    return status_;
  case kError:
    return error_;
  case kControl:
    return 0;
  case kParamLo:
    return uint32_t(param_);
  case kParamHi:
    return uint32_t(param_ >> 32);
  case kShared:
    return shared_;
  case kKernel:
    return kernel_;
  case kCyclesLo:
    return uint32_t(cycles_);
  case kCyclesHi:
    return uint32_t(cycles_ >> 32);
  case kWinstLo:
    return uint32_t(winst_);
  case kWinstHi:
    return uint32_t(winst_ >> 32);
  case kModuleLo:
    return uint32_t(module_addr_);
  case kModuleHi:
    return uint32_t(module_addr_ >> 32);
  case kModuleLen:
    return module_len_;
  case kModule:
    return module_;
  case kNameLo:
    return uint32_t(name_addr_);
  case kNameHi:
    return uint32_t(name_addr_ >> 32);
  default:
    break;
  }
  if (offset >= kGridX && offset < kBlockX) return grid_[(offset - kGridX) / 4];
  if (offset >= kBlockX && offset < kParamLo) return block_[(offset - kBlockX) / 4];
  return 0;
}

void HostInterface::write(unsigned offset, uint32_t v) {
  if (offset >= kGridX && offset < kBlockX)
    grid_[(offset - kGridX) / 4] = v;
  else if (offset >= kBlockX && offset < kParamLo)
    block_[(offset - kBlockX) / 4] = v;
  else if (offset == kParamLo)
    param_ = (param_ & ~uint64_t(0xffffffff)) | v;
  else if (offset == kParamHi)
    param_ = (param_ & 0xffffffff) | uint64_t(v) << 32;
  else if (offset == kShared)
    shared_ = v;
  else if (offset == kKernel)
    kernel_ = v;
  else if (offset == kModuleLo || offset == kModuleHi)
    set_half(module_addr_, offset == kModuleHi, v);
  else if (offset == kModuleLen)
    module_len_ = v;
  else if (offset == kNameLo || offset == kNameHi)
    set_half(name_addr_, offset == kNameHi, v);
  else if (offset == kControl) {
    if (v & kIrqAck) {
      irq_level_ = false;
      raise_.notify(sc_core::SC_ZERO_TIME);
    }
    if (status_ == kRunning) return; // one thing at a time
    bool ok = true;                  // in order: LOAD, FIND, START; the first failure ends it
    if (v & kLoad) ok = load();
    if (ok && (v & kFind)) ok = find();
    if (ok && (v & kStart)) start();
  }
  // Read-only registers ignore writes.
}

// LOAD and FIND answer at once: STATUS and ERROR, no interrupt.
bool HostInterface::load() {
  status_ = kDone;
  error_ = kNone;
  error_text_.clear();
  std::ostringstream name;
  name << "module at 0x" << std::hex << module_addr_;
  try {
    if (!module_len_ || module_len_ > kMaxModuleBytes)
      throw WorkloadError("MODULE_LEN " + std::to_string(module_len_) + ": give 1 to " +
                          std::to_string(kMaxModuleBytes) + " bytes of PTX text");
    std::string text(module_len_, '\0');
    for (uint32_t off = 0; off < module_len_; off += 4096)
      gpu_.functional_memory().read(module_addr_ + off, text.data() + off,
                                    std::min<uint32_t>(4096, module_len_ - off));
    if (const size_t nul = text.find('\0'); nul != std::string::npos) text.resize(nul);
    module_ = gpu_.load_module_text(text, name.str());
  } catch (const std::exception& e) {
    status_ = kFailed;
    error_ = kRejected;
    error_text_ = "LOAD: " + std::string(e.what());
  }
  return status_ == kDone;
}

bool HostInterface::find() {
  status_ = kDone;
  error_ = kNone;
  error_text_.clear();
  try {
    std::string name;
    for (char c; name.size() < kMaxNameBytes; name += c) {
      gpu_.functional_memory().read(name_addr_ + name.size(), &c, 1);
      if (!c) break;
    }
    if (name.size() == kMaxNameBytes)
      throw WorkloadError("the name at NAME_LO/HI has no NUL within " +
                          std::to_string(kMaxNameBytes) + " bytes");
    kernel_ = gpu_.find_kernel(name);
  } catch (const std::exception& e) {
    status_ = kFailed;
    error_ = kRejected;
    error_text_ = "FIND: " + std::string(e.what());
  }
  return status_ == kDone;
}

void HostInterface::start() {
  PtxFrontend::HostLaunch h;
  for (unsigned d = 0; d < 3; ++d) {
    h.grid[d] = grid_[d];
    h.block[d] = block_[d];
  }
  h.shared_bytes = shared_;
  h.param_address = param_;
  start_winst_ = gpu_.retired();
  status_ = kRunning;
  error_ = kNone;
  error_text_.clear();
  const bool ok = gpu_.launch(h, kernel_);
  start_cycle_ = gpu_.cycles(); // the SMs restarted at SystemC's time
  if (!ok) finish(kFailed, kRejected, gpu_.error());
}

void HostInterface::finished() {
  if (status_ != kRunning) return;
  if (!gpu_.finished()) return finish(kFailed, kKernelFailed, gpu_.error());
  // Every hosted kernel proves its counts as a whole run does (the counters accumulate over
  // the kernels, so they hold at every kernel's end).
  if (const std::string broken = gpu_.broken_identities(); !broken.empty())
    return finish(kFailed, kKernelFailed, "conservation identities broken:" + broken);
  finish(kDone, kNone, "");
}

void HostInterface::finish(Status s, Error e, const std::string& text) {
  status_ = s;
  error_ = e;
  error_text_ = text;
  cycles_ = gpu_.cycles() - start_cycle_;
  winst_ = gpu_.retired() - start_winst_;
  irq_level_ = true;
  raise_.notify(sc_core::SC_ZERO_TIME);
}

void HostInterface::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  const uint64_t a = gp.get_address();
  if (gp.get_data_length() != 4 || (a & 3) || a >= kSize || gp.get_byte_enable_ptr() ||
      (gp.get_streaming_width() && gp.get_streaming_width() != 4)) {
    gp.set_response_status(a >= kSize ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                      : tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  uint32_t v = 0;
  if (gp.is_read()) {
    v = read(unsigned(a));
    std::memcpy(gp.get_data_ptr(), &v, 4);
  } else if (gp.is_write()) {
    std::memcpy(&v, gp.get_data_ptr(), 4);
    write(unsigned(a), v);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned HostInterface::transport_dbg(tlm::tlm_generic_payload& gp) {
  const uint64_t a = gp.get_address();
  if (!gp.is_read() || gp.get_data_length() != 4 || (a & 3) || a >= kSize) return 0;
  const uint32_t v = read(unsigned(a));
  std::memcpy(gp.get_data_ptr(), &v, 4);
  return 4;
}

} // namespace gpurf
