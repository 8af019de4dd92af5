// CMRC's collectors (platform/check/identities.h; docs/cmrc.md): every operand read has one
// stored width, the coalescing arbiter's pairs are the operands that entered with another,
// and the slices written into the collectors are the slices read.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(cmrc_collector, identities::impl("collector", "cmrc")) {
  // A 64-bit operand (frontend.reg64: one_operand) has one width: its high half none.
  c.equal("CMRC: operands read by stored width = operands requested",
          {{"collector.width_reads + reg64_high_halves",
            c.sum("collector", "width_reads") + c.sum("collector", "reg64_high_halves")},
           {"collector.reads_requested", c.sum("collector", "reads_requested")}});
  if (c.has("arbiter", "coalescing"))
    c.equal("CMRC: reads of one instruction coalesced = operands entering with another",
            {{"arbiter.coalesced[read_read_same_inst + read_read_diff_bank]",
              c.element("arbiter", "coalesced", 0) + c.element("arbiter", "coalesced", 4)},
             {"collector.oc_coalesced_operands", c.sum("collector", "oc_coalesced_operands")}});
  // Against the slices read, not the split crossbar's count: the collector may sit behind
  // any crossbar (the split one's transfers are held to the slices read: impl/split there).
  c.equal("CMRC: slices written into the collectors = slices read",
          {{"collector.oc_slice_writes", c.sum("collector", "oc_slice_writes")},
           {"granted read slices", double(c.events.bank_slice_reads)}});
}

} // namespace gpurf
