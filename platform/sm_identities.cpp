// The SM's conservation identities (platform/check/identities.h): instructions through the
// pipeline, bank reads and writes across arbiter, banks and crossbar, results written. They
// hold on every platform; a design's terms in them (W-C's dummy MOVs, WIR's reuse and remaps)
// are zero where the design is absent.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(sm, identities::always()) {
  const EventCounts& e = c.events;
  const double retired = c.sum("sm", "warp_instructions");
  // Injected instructions (W-C's dummy MOVs) go through the pipeline like any other; the
  // program's warp instructions do not count them.
  // W-C stores registers compressed (its writeback, or its arbiter behind an RFC): the SM
  // injects dummy MOVs (platform/sm.cpp).
  const bool wc =
      c.has("writeback", "warped_compression") || c.has("arbiter", "warped_compression_mrf");
  const double movs = wc ? c.sum("sm", "movs_retired") : 0;
  if (wc)
    c.equal("dummy MOVs injected = retired",
            {{"sm.movs_injected", c.sum("sm", "movs_injected")}, {"sm.movs_retired", movs}});
  // WIR: reused instructions bypass the collectors and the pipes.
  const double reused = c.sum_of("allocator", "wir", "reuse_hits");
  c.equal(
      "instructions issued = dispatched + reused = retired",
      {{"scheduler.issued", c.sum("scheduler", "issued")},
       {"collector.dispatched + allocator.reuse_hits", c.sum("collector", "dispatched") + reused},
       {"writeback.retired", c.sum("writeback", "retired")},
       {"sm.warp_instructions + movs_retired", retired + movs},
       {"issue events", double(e.issued)},
       {"dispatch + reuse events", double(e.dispatched + e.reused)},
       {"retire events", double(e.retired)}});
  // WIR's verify-reads are bank reads compared in the register file: no crossbar transfer.
  const double verify = c.sum("arbiter", "verify_reads_granted");
  c.equal("bank reads granted = performed = crossed = seen",
          {{"arbiter.reads_granted", c.sum("arbiter", "reads_granted")},
           {"bank.reads - arbiter.verify_reads_granted", c.sum("bank", "reads") - verify},
           {"crossbar.transfers", c.sum("crossbar", "transfers")},
           {"bank read events", double(e.bank_reads)}});
  c.equal("bank writes granted = performed = seen",
          {{"arbiter.writes_granted", c.sum("arbiter", "writes_granted")},
           {"bank.writes", c.sum("bank", "writes")},
           {"bank write events", double(e.bank_writes)}});
  // WIR: a destination is written, or remapped to a register holding its value (a verify-read
  // found it, or the instruction was reused).
  c.equal("results written = register writes of the writeback (+ WIR remaps)",
          {{"writeback.register_writes + shared_writes + reused_results",
            c.sum("writeback", "register_writes") + c.sum_of("writeback", "wir", "shared_writes") +
                c.sum_of("writeback", "wir", "reused_results")},
           {"producer write and remap events", double(e.arch_writes)}});
  // With an RFC its own block holds the bank writes to the results (modules/rfc).
  if (!c.has_kind("rfc"))
    c.equal("no RFC: every result is one bank write (WIR: or a remap)",
            {{"bank write events + remap events", double(e.bank_writes + e.remaps)},
             {"producer write events", double(e.arch_writes)}});
}

} // namespace gpurf
