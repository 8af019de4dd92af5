// The GPU's host interface (docs/vp.md "Host interface"): a TLM-2.0 target socket of 32-bit
// registers through which a virtual platform's host launches kernels, and an interrupt line.
// Built by a hosted Gpu (gpu.hosted: true); the SMs idle until START.
//
// Register map (byte offsets; 32-bit little-endian registers, 4-byte aligned accesses only):
//   0x00 ID        RO  0x47505246 ("GPRF")
//   0x04 STATUS    RO  0 idle, 1 running, 2 done, 3 error
//   0x08 ERROR     RO  0 none, 1 rejected (a launch: bad grid/block, no CTA fits, unknown
//                      kernel; a LOAD or FIND that failed), 2 kernel failed (a memory error,
//                      an operand check, the watchdog); the text: HostInterface::error_text()
//   0x0C CONTROL   WO  bit 0 START, bit 1 IRQ_ACK (lowers irq), bit 2 LOAD, bit 3 FIND;
//                      START, LOAD and FIND are ignored while a kernel runs
//   0x10 GRID_X, 0x14 GRID_Y, 0x18 GRID_Z, 0x1C BLOCK_X, 0x20 BLOCK_Y, 0x24 BLOCK_Z  RW
//   0x28 PARAM_LO, 0x2C PARAM_HI  RW  address of the kernel's parameter buffer in memory
//                      (the .entry's .param layout, as the host's CUDA driver packs it)
//   0x30 SHARED    RW  dynamic shared memory per CTA, bytes
//   0x34 KERNEL    RW  the kernel START runs: (module << 16) | its index among the module's
//                      .entry functions in file order; module 0 is the GPU's own PTX; reset:
//                      the kernel the GPU was built with
//   0x38 CYCLES_LO, 0x3C CYCLES_HI  RO  cycles of the last kernel
//   0x40 WINST_LO, 0x44 WINST_HI    RO  warp instructions of the last kernel
//   0x48 MODULE_LO, 0x4C MODULE_HI, 0x50 MODULE_LEN  RW  PTX text in memory that LOAD loads
//   0x54 MODULE    RO  the id of the module the last LOAD loaded
//   0x58 NAME_LO, 0x5C NAME_HI  RW  address of a NUL-terminated .entry name that FIND looks up
// At the end of a kernel (done or error) STATUS is set and irq rises until IRQ_ACK. LOAD
// (Gpu::load_module_text: the text read through debug transport, every entry compiled) and
// FIND (Gpu::find_kernel: KERNEL := the id of the entry named) complete within the register
// write: STATUS 2 (done) or 3 (error, ERROR 1 and the text); no interrupt.
#pragma once

#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace gpurf {

class Gpu;

class HostInterface : public sc_core::sc_module {
public:
  SC_HAS_PROCESS(HostInterface);
  tlm_utils::simple_target_socket<HostInterface> socket;
  sc_core::sc_out<bool> irq;

  enum Reg : unsigned {
    kId = 0x00,
    kStatus = 0x04,
    kError = 0x08,
    kControl = 0x0C,
    kGridX = 0x10,
    kBlockX = 0x1C,
    kParamLo = 0x28,
    kParamHi = 0x2C,
    kShared = 0x30,
    kKernel = 0x34,
    kCyclesLo = 0x38,
    kCyclesHi = 0x3C,
    kWinstLo = 0x40,
    kWinstHi = 0x44,
    kModuleLo = 0x48,
    kModuleHi = 0x4C,
    kModuleLen = 0x50,
    kModule = 0x54,
    kNameLo = 0x58,
    kNameHi = 0x5C,
    kSize = 0x60
  };
  enum Status : uint32_t { kIdle = 0, kRunning = 1, kDone = 2, kFailed = 3 };
  enum Error : uint32_t { kNone = 0, kRejected = 1, kKernelFailed = 2 };
  static constexpr uint32_t kMagic = 0x47505246;
  static constexpr uint32_t kStart = 1, kIrqAck = 2, kLoad = 4, kFind = 8;
  static constexpr uint32_t kMaxModuleBytes = 64u << 20, kMaxNameBytes = 4096;

  HostInterface(sc_core::sc_module_name nm, Gpu& gpu);
  const std::string& error_text() const { return error_text_; }

private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  uint32_t read(unsigned offset) const;
  void write(unsigned offset, uint32_t v);
  void start();
  bool load(); // false: failed (STATUS 3, ERROR 1)
  bool find();
  void finished(); // SC_METHOD on the GPU's done event
  void finish(Status s, Error e, const std::string& text);

  Gpu& gpu_;
  uint32_t status_ = kIdle, error_ = kNone, kernel_ = 0, shared_ = 0;
  uint32_t grid_[3] = {1, 1, 1}, block_[3] = {1, 1, 1};
  uint64_t param_ = 0, cycles_ = 0, winst_ = 0, start_cycle_ = 0, start_winst_ = 0;
  uint64_t module_addr_ = 0, name_addr_ = 0;
  uint32_t module_len_ = 0, module_ = 0;
  std::string error_text_;
  sc_core::sc_event raise_; // irq changes in a process (a port is written from one)
  bool irq_level_ = false;
  void drive_irq() { irq.write(irq_level_); }
};

} // namespace gpurf
