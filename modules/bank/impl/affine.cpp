// WIR's Affine GPU register file (shared/papers/004, Sec. VII-A, after [9], [10]): a warp
// register whose 32 lanes step by one stride is stored as a (32-bit base, 32-bit stride)
// tuple in one 128-bit bank of its group instead of eight, so an access of it activates one
// slice: 1/8 of the access energy. The paper's Affine GPU is an energy study: the tuple's
// conversion costs no time and the bank keeps the full value (docs/wir.md).
#include "gpurf/modules/common/affine.h"
#include "gpurf/modules/bank/impl/sliced.h"

namespace gpurf {

class AffineBank : public SlicedBank {
public:
  AffineBank(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : SlicedBank(nm, p, c),
        affine_reads_(
            stats().scalar("affine_reads", "reads of a (base, stride) tuple: one slice", "accesses",
                           energy::no_event("WIR's Affine GPU: one slice each in slice_reads"))),
        affine_writes_(stats().scalar(
            "affine_writes", "writes of a (base, stride) tuple: one slice", "accesses",
            energy::no_event("WIR's Affine GPU: one slice each in slice_writes"))) {
    // An affine tuple is a compressed form of its own: over a BDI-compressed store the bank
    // would count one slice for a register W-C stored in several (the identities between the
    // banks' slices and the stored forms break).
    for (const auto& [slot, impl] : {std::pair{"writeback", "warped_compression"},
                                     std::pair{"arbiter", "warped_compression_mrf"}})
      need({{slot, std::string("!") + impl}},
           "stores affine registers as a (base, stride) tuple in one slice, which "
           "Warped-Compression's BDI store (" +
               std::string(slot) + ".impl: " + impl + ") already compresses in its own form");
  }

protected:
  unsigned activated(const unsigned char* row, unsigned mask, bool read) override {
    if (mask != (1u << slices_) - 1 || !affine(row)) return SlicedBank::activated(row, mask, read);
    ++(read ? affine_reads_ : affine_writes_);
    return 1;
  }

private:
  uint64_t &affine_reads_, &affine_writes_;
};

GPURF_REGISTER_UNIT(IBank, AffineBank, "affine",
                    "sliced bank storing affine warp registers as a (base, stride) tuple in one "
                    "slice (WIR's Affine GPU)");

} // namespace gpurf
