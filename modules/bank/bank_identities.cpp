// Every bank's activated slices against the granted masks (platform/check/identities.h).
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(bank_slices, identities::always()) {
  const EventCounts& e = c.events;
  // The Affine GPU's tuples activate one slice of a full mask.
  const double affine_saved_r = c.sum_of("bank", "affine", "affine_reads") * (c.slices - 1);
  const double affine_saved_w = c.sum_of("bank", "affine", "affine_writes") * (c.slices - 1);
  c.equal("slices activated by reads = slices in the granted masks",
          {{"bank.slice_reads + (slices - 1) x affine_reads",
            c.sum("bank", "slice_reads") + affine_saved_r},
           {"granted read slices (+ WIR verify-reads)",
            double(e.bank_slice_reads + e.verify_slice_reads)}});
  c.equal("slices activated by writes = slices in the granted masks",
          {{"bank.slice_writes + (slices - 1) x affine_writes",
            c.sum("bank", "slice_writes") + affine_saved_w},
           {"granted write slices", double(e.bank_slice_writes)}});
}

} // namespace gpurf
