// WIR (platform/check/identities.h; docs/wir.md): verify-reads, VSB hits, reuse, and its
// tables (the rename table, the verify cache). Its terms in the SM's identities (reused
// instructions, remaps) are in platform/sm_identities.cpp.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(wir, identities::impl("writeback", "wir")) {
  const double verify = c.sum("arbiter", "verify_reads_granted");
  c.equal("WIR: register-file reads granted = verify-reads + dummy MOV copies requested",
          {{"writeback.verify_reads + dummy_movs",
            c.sum("writeback", "verify_reads") + c.sum("writeback", "dummy_movs")},
           {"arbiter.verify_reads_granted", verify}});
  c.equal("WIR: VSB hits verified in the banks, the verify cache or not at all = shared + false "
          "matches",
          {{"writeback.verify_reads + verify_cache_hits + unverified_shares",
            c.sum("writeback", "verify_reads") + c.sum("writeback", "verify_cache_hits") +
                c.sum("writeback", "unverified_shares")},
           {"writeback.shared_writes + vsb_false_matches",
            c.sum("writeback", "shared_writes") + c.sum("writeback", "vsb_false_matches")}});
  if (c.has("allocator", "wir"))
    c.equal("WIR: instructions issued = reuse lookups + skipped",
            {{"scheduler.issued", c.sum("scheduler", "issued")},
             {"allocator.reuse_lookups + reuse_skipped",
              c.sum("allocator", "reuse_lookups") + c.sum("allocator", "reuse_skipped")}});
  c.equal("WIR: reuse lookups = hits + misses",
          {{"allocator.reuse_lookups", c.sum("allocator", "reuse_lookups")},
           {"allocator.reuse_hits + reuse_misses",
            c.sum("allocator", "reuse_hits") + c.sum("allocator", "reuse_misses")}});
  c.equal("WIR: reused instructions = bypassed at the writeback = reuse events",
          {{"allocator.reuse_hits", c.sum_of("allocator", "wir", "reuse_hits")},
           {"writeback.bypassed", c.sum("writeback", "bypassed")},
           {"reuse events", double(c.events.reused)}});
}

// The rename table maps every destination written or remapped.
GPURF_IDENTITIES(wir_rename, identities::kind("rename")) {
  c.equal("WIR: rename-table writes = producer write and remap events",
          {{"rename.writes", c.sum("rename", "writes")},
           {"producer write and remap events", double(c.events.arch_writes)}});
}

// The verify cache is looked up by every verified VSB hit and filled by every verify-read.
GPURF_IDENTITIES(wir_verify_cache, identities::kind("verify_cache")) {
  c.equal("WIR: verify-cache lookups = hits + verify-reads",
          {{"verify_cache.reads", c.sum("verify_cache", "reads")},
           {"writeback.verify_cache_hits + verify_reads",
            c.sum("writeback", "verify_cache_hits") + c.sum("writeback", "verify_reads")}});
  c.equal("WIR: verify-cache fills = verify-reads",
          {{"verify_cache.writes", c.sum("verify_cache", "writes")},
           {"writeback.verify_reads", c.sum("writeback", "verify_reads")}});
}

} // namespace gpurf
