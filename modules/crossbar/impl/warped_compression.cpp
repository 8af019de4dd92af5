// Warped-Compression decompressors (shared/papers/002, Sec. 5, Fig. 1): a compressed operand
// (fewer than 8 slices read) takes one of `decompressors` units (Sec. 6.1: 4 per SM, one
// register per unit and cycle), spends the decompression stage in it (`decompress_latency`;
// Table 2: 1 cycle) and is rebuilt to its 128 B. An uncompressed operand skips it: Sec. 5
// sends "the compressed chunks" to the decompressor once "all the necessary banks for a
// compressed operand register are read", and the arbiter knows which operands those are from
// the range indicator before the read. `stage_at`: where the stage sits. dispatch (wc.yaml):
// between the collector and the execution pipe, the collector freed at dispatch and the
// instruction's compressed operands passing the units together (dispatch_stage), as Sec. 5's
// "placed between the execution unit and the register file", Sec. 5.1's sizing by the
// instruction rate and Sec. 6.8's 8-cycle cost suggest; crossbar: between the crossbar and
// the collector, which holds the instruction until its last operand is through (a read
// window that dispatches at a fixed cycle needs this one). Either way the bytes are rebuilt
// here, so the collector's check sees the decompressed value.
#include "gpurf/modules/crossbar/impl/full.h"
#include "gpurf/policies/bdi.h"
#include "gpurf/policies/unit_pool.h"

namespace gpurf {

class WcCrossbar : public FullCrossbar {
public:
  WcCrossbar(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : FullCrossbar(nm, p, c),
        units_(p.get_uint("decompressors", 4,
                          "decompressor units (one register per unit and cycle; Sec. 6.1: 4 "
                          "per SM)",
                          1, 64)),
        stage_(p.get_uint(
            "decompress_latency", 1,
            "cycles of the decompression stage every compressed operand passes (Table 2)", 0, 64)),
        at_dispatch_(
            p.get_choice("stage_at", "dispatch",
                         "where the decompression stage sits: dispatch (between the collector "
                         "and the execution pipe; the collector is freed at dispatch) or "
                         "crossbar (between the crossbar and the collector, which holds the "
                         "instruction through it)",
                         {"dispatch", "crossbar"}) == "dispatch"),
        dec_stats_(sibling_stats_path("decompressor")),
        decompressions_(dec_stats_.scalar(
            "decompressions", "registers decompressed (activations)", "registers",
            energy::structure("W-C: a decompressor activation (structures.decompressor)"))),
        waits_(stats().scalar("decompressor_wait_cycles",
                              "register-cycles an operand waited for a free decompressor", "cycles",
                              energy::no_event("W-C: stalls"), check::unwatched("W-C: stalls"))) {
    need({{"writeback", "warped_compression"}, {"arbiter", "warped_compression_mrf"}},
         "rebuilds every operand read in fewer than 8 slices as a BDI register: registers must "
         "be stored in that form, by the Warped-Compression writeback or MRF arbiter");
  }

  Decompression decompression() const override { return {stage_, units_.units(), at_dispatch_}; }

  Cycle dispatch_stage(unsigned compressed, Cycle now, bool book) override {
    if (!at_dispatch_ || !compressed) return now;
    const Cycle last = units_.take_n(compressed, now, now, book);
    if (book) { // group g of the run (units operands each, the last the rest) waits first + g
      const unsigned u = units_.units(), groups = (compressed + u - 1) / u;
      const Cycle first = last + 1 - groups;
      waits_ += compressed * (first - now) + u * Cycle(groups - 1) * (groups - 2) / 2 +
                (compressed - (groups - 1) * u) * Cycle(groups - 1);
    }
    return last + stage_;
  }

protected:
  void on_data(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    const Txn& t = txn_of(gp);
    Cycle at = now() + clock_->cycles(d);
    bdi::Choice c;
    try {
      c = bdi::choice_of_slices(unsigned(__builtin_popcount(t.slice_mask & 0xffu)));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string(name()) + ": read: " + e.what());
    }
    // At dispatch the stage is timed by dispatch_stage; the value is rebuilt here all the same,
    // so the collector's check at dispatch sees what the decompressor hands the pipe.
    if (c != bdi::Choice::Uncompressed) {
      if (at_dispatch_) {
        rebuild(gp, c);
        ++decompressions_;
      } else
        at = decompress(gp, c, at) + stage_;
    }
    d = clock_->time(at - now());
    FullCrossbar::on_data(id, gp, d);
  }

private:
  // Rebuilds the register in the payload's buffer; returns the cycle a unit takes it.
  Cycle decompress(tlm::tlm_generic_payload& gp, bdi::Choice c, Cycle at) {
    const Cycle slot = units_.take(at, now());
    waits_ += slot - at;
    ++decompressions_;
    rebuild(gp, c);
    return slot;
  }
  static void rebuild(tlm::tlm_generic_payload& gp, bdi::Choice c) {
    uint32_t lanes[kWarpSize];
    bdi::decompress(gp.get_data_ptr(), c, lanes);
    bdi::to_bytes(lanes, gp.get_data_ptr());
  }

  UnitPool units_;
  const unsigned stage_;
  const bool at_dispatch_;
  StatGroup dec_stats_; // the decompressors (energy: structures.decompressor)
  uint64_t& decompressions_;
  uint64_t& waits_;
};

GPURF_REGISTER_UNIT(ICrossbar, WcCrossbar, "warped_compression",
                    "Warped-Compression: decompression stage and decompressors between the "
                    "banks and the collectors");

} // namespace gpurf
