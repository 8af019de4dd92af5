// A register bank of `entries` rows of 128 B, split into `slices` slices; only the slices
// enabled by the payload's byte enables are activated (and counted).
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "gpurf/modules/bank/i_bank.h"
#include "gpurf/modules/common/bits.h"

namespace gpurf {

class SlicedBank : public IBank {
public:
  SlicedBank(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IBank(nm, c),
        entries_(p.get_uint("entries", 256, "rows of 128 B warp registers", 1, 1u << 20)),
        slices_(p.get_uint("slices", 1, "slices per bank, each with its own ports", 1, 8)),
        latency_(p.get_uint("latency", 1, "access latency in cycles", 0, 1000)),
        ports_(p.get_choice("ports", "1rw",
                            "ports per slice: one shared read/write port, one read and one "
                            "write port, or two read ports and one write port",
                            {"1rw", "1r1w", "2r1w"})),
        split_(ports_ != "1rw"), read_ports_(ports_ == "2r1w" ? 2 : 1),
        reads_(stats().scalar(
            "reads", "read accesses", "accesses",
            energy::no_event("accesses; priced per activated slice by slice_reads"))),
        writes_(stats().scalar(
            "writes", "write accesses", "accesses",
            energy::no_event("accesses; priced per activated slice by slice_writes"))),
        slice_reads_(stats().scalar("slice_reads", "slices activated by reads", "slices",
                                    energy::priced("bank_read_pj_per_16B x slice bytes / 16"))),
        slice_writes_(stats().scalar("slice_writes", "slices activated by writes", "slices",
                                     energy::priced("bank_write_pj_per_16B x slice bytes / 16"))) {
    if (kRegBytes % slices_) p.fail("slices", "128 B must split evenly into slices");
    // Claimed here, allocated by reserve_rows (the SM, once every unit has claimed its
    // storage) or at the first access: a platform too large fails before it allocates.
    p.claim_storage(uint64_t(entries_) * (kRegBytes + slices_ * sizeof(uint64_t)), "entries",
                    "entries x (128 B + a version tag per slice)");
  }

  unsigned slices() const override { return slices_; }
  unsigned rows() const override { return entries_; }
  void reserve_rows(unsigned rows) override {
    rows = std::max(rows, entries_);
    if (rows <= data_.size() / kRegBytes) return;
    data_.resize(size_t(rows) * kRegBytes, 0);
    tags_.resize(size_t(rows) * slices_, 0);
  }
  void reset_row(unsigned row) override {
    if (size_t(row + 1) * kRegBytes > data_.size()) return;
    std::memset(&data_[size_t(row) * kRegBytes], 0, kRegBytes);
    std::fill_n(&tags_[size_t(row) * slices_], slices_, 0); // version 0: no instruction's
  }
  bool separate_write_port() const override { return split_; }
  unsigned read_ports() const override { return read_ports_; }
  unsigned latency() const override { return latency_; }

protected:
  // Copies the enabled bytes of a 128 B access from src to dst, in slices of SB bytes: a slice
  // wholly enabled in one copy, a disabled one skipped, a mixed one byte by byte. SB is a
  // constant so that the tests of the enables unroll (W-C and CMRC read in slices every access).
  template <unsigned SB>
  static void copy_enabled(unsigned char* dst, const unsigned char* src, const unsigned char* be) {
    static_assert(SB % 8 == 0 && kRegBytes % SB == 0);
    static_assert(TLM_BYTE_ENABLED == 0xff && TLM_BYTE_DISABLED == 0);
    for (unsigned o = 0; o < kRegBytes; o += SB) {
      uint64_t all = ~uint64_t(0), any = 0;
      for (unsigned i = o; i < o + SB; i += 8) {
        uint64_t w;
        std::memcpy(&w, be + i, 8);
        all &= w;
        any |= w;
      }
      if (all == ~uint64_t(0))
        std::memcpy(dst + o, src + o, SB);
      else if (any)
        for (unsigned i = o; i < o + SB; ++i)
          if (be[i] == TLM_BYTE_ENABLED) dst[i] = src[i];
    }
  }

  // Variants see every access's row and slice mask before the data moves; the cycles
  // returned delay it (W-C power gating: a gated slice wakes up first).
  virtual unsigned on_slices(unsigned row, unsigned mask, bool read) { return 0; }
  // The slices an access of `mask` activates (what the energy counts), given the row's data
  // after the access: every slice of the mask.
  virtual unsigned activated(const unsigned char* row, unsigned mask, bool read) {
    return popcount32(mask);
  }

  void on_access(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    if (data_.empty()) reserve_rows(entries_); // built outside an SM (module tests)
    const uint64_t addr = gp.get_address();
    if (addr % kRegBytes || addr >= data_.size() || gp.get_data_length() != kRegBytes) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    unsigned char* row = &data_[addr];
    unsigned char* buf = gp.get_data_ptr();
    const unsigned char* be = gp.get_byte_enable_ptr();
    const bool read = gp.is_read();
    // The whole register in one copy (the common case); else slice by slice.
    if (bytes_enabled(be)) {
      std::memcpy(read ? buf : row, read ? row : buf, kRegBytes);
    } else {
      unsigned char* dst = read ? buf : row;
      const unsigned char* src = read ? row : buf;
      switch (kRegBytes / slices_) {
      case 16:
        copy_enabled<16>(dst, src, be);
        break;
      case 32:
        copy_enabled<32>(dst, src, be);
        break;
      case 64:
        copy_enabled<64>(dst, src, be);
        break;
      default:
        copy_enabled<128>(dst, src, be);
      }
    }
    Txn& t = txn_of(gp);
    const unsigned mask = t.slice_mask & ((1u << slices_) - 1);
    // Version tags per slice: a write stamps its slices; a read returns the common tag of
    // the slices it reads (kMixedVersion if different writes left them).
    uint64_t* tag = &tags_[size_t(addr / kRegBytes) * slices_];
    if (read) {
      t.version = 0;
      bool first = true;
      for (unsigned s = 0; s < slices_; ++s)
        if (mask >> s & 1) {
          if (!first && tag[s] != t.version) t.version = kMixedVersion;
          if (first) t.version = tag[s];
          first = false;
        }
    } else {
      for (unsigned s = 0; s < slices_; ++s)
        if (mask >> s & 1) tag[s] = t.version;
    }
    const unsigned n = activated(row, mask, read);
    (read ? slice_reads_ : slice_writes_) += n;
    ++(read ? reads_ : writes_);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    d += clock_->time(latency_ + on_slices(unsigned(addr / kRegBytes), mask, read));
    if (read && t.kind != Txn::Kind::VerifyRead) out->b_transport(gp, d); // WIR: compared here
  }

protected:
  const unsigned entries_, slices_, latency_;
  const std::string ports_;
  const bool split_;
  const unsigned read_ports_;
  uint64_t& reads_;
  uint64_t& writes_;
  uint64_t& slice_reads_;
  uint64_t& slice_writes_;
  std::vector<unsigned char> data_;
  std::vector<uint64_t> tags_; // per row and slice: version of the value it holds
};

} // namespace gpurf
