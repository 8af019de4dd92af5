// Warped-Compression (platform/check/identities.h; docs/warped-compression.md): every register
// is written and read in one stored form; the banks activate exactly that form's slices (1, 3,
// 5 or 8). The form is stored by the writeback, or by the arbiter when the compressors sit at
// the MRF write port (arbiter warped_compression_mrf, behind an RFC: docs/combined.md). The
// SM's dummy MOVs are held in platform/sm_identities.cpp.
#include "gpurf/platform/check/identities.h"

#include <vector>

namespace gpurf {

GPURF_IDENTITIES(warped_compression,
                 identities::any_impl({{"writeback", "warped_compression"},
                                       {"arbiter", "warped_compression_mrf"}})) {
  const bool wc_wb = c.has("writeback", "warped_compression");
  const char* store = wc_wb ? "writeback" : "arbiter";
  const std::vector<double> slices_of = {1, 3, 5, 8}, compressed = {1, 1, 1, 0};
  const std::vector<double> one(4, 1.0);
  auto weighted = [&](const char* kind, const char* stat, const std::vector<double>& w) {
    double s = 0;
    for (size_t k = 0; k < w.size(); ++k) s += w[k] * c.element(kind, stat, k);
    return s;
  };
  if (wc_wb)
    c.equal("W-C: registers written in a stored form = register writes = compressed + divergent",
            {{"writeback.stored_forms", weighted("writeback", "stored_forms", one)},
             {"writeback.register_writes", c.sum("writeback", "register_writes")},
             {"compressor.compressions + writeback.divergent_writes + mov_writes",
              c.sum("compressor", "compressions") + c.sum("writeback", "divergent_writes") +
                  c.sum("writeback", "mov_writes")}});
  else
    c.equal("W-C at the MRF port: MRF writes in a stored form = writes granted = compressed + "
            "divergent",
            {{"arbiter.stored_forms", weighted("arbiter", "stored_forms", one)},
             {"arbiter.writes_granted", c.sum("arbiter", "writes_granted")},
             {"compressor.compressions + arbiter.divergent_writes",
              c.sum("compressor", "compressions") + c.sum("arbiter", "divergent_writes")}});
  c.equal("W-C: slices written = slices of the stored forms written",
          {{"bank.slice_writes", c.sum("bank", "slice_writes")},
           {"stored_forms x slices", weighted(store, "stored_forms", slices_of)}});
  c.equal("W-C: register reads by stored form = reads granted",
          {{"arbiter.read_forms", weighted("arbiter", "read_forms", one)},
           {"arbiter.reads_granted", c.sum("arbiter", "reads_granted")}});
  c.equal("W-C: slices read = slices of the stored forms read",
          {{"bank.slice_reads", c.sum("bank", "slice_reads")},
           {"read_forms x slices", weighted("arbiter", "read_forms", slices_of)}});
  c.equal("W-C: decompressions = compressed registers read",
          {{"decompressor.decompressions", c.sum("decompressor", "decompressions")},
           {"read_forms <4,0> + <4,1> + <4,2>", weighted("arbiter", "read_forms", compressed)}});
  // The compression ratio (Sec. 6.1): the non-divergent writes are the compressed ones, and
  // their best forms' slices are the slices the banks wrote for them.
  if (!wc_wb) return;
  c.equal("W-C: non-divergent writes of the compression ratio = compressions",
          {{"writeback.ratio_writes[non_divergent]", c.element("writeback", "ratio_writes", 0)},
           {"compressor.compressions", c.sum("compressor", "compressions")}});
  c.equal("W-C: divergent writes of the compression ratio = divergent writes",
          {{"writeback.ratio_writes[divergent]", c.element("writeback", "ratio_writes", 1)},
           {"writeback.divergent_writes", c.sum("writeback", "divergent_writes")}});
  c.equal("W-C: slices of the compressed writes = slices written - 8 x uncompressed writes",
          {{"writeback.ratio_slices[non_divergent]", c.element("writeback", "ratio_slices", 0)},
           {"bank.slice_writes - 8 x (divergent_writes + mov_writes)",
            c.sum("bank", "slice_writes") -
                8 * (c.sum("writeback", "divergent_writes") + c.sum("writeback", "mov_writes"))}});
}

} // namespace gpurf
