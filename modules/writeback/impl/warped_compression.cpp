// Warped-Compression writeback (shared/papers/002, Sec. 4, 5, 5.1-5.2): every result passes
// the compression stage (`compress_latency` cycles; Table 2: 2). A result whose instruction
// ran with every thread of the warp is compressed by one of `compressors` units (Sec. 6.1:
// 2 per SM, one register per unit and cycle) with BDI at the allowed choice needing the fewest
// 16 B banks (<4,0>: 1, <4,1>: 3, <4,2>: 5; else uncompressed: 8) and only its stored form is
// written, to the lowest slices of the register's bank cluster (Sec. 5, Fig. 6). A divergent
// result is written uncompressed and skips the compressor (Sec. 5.2). The 2-bit compression
// range indicator goes to the sub-core's row tags, where the arbiter reads it.
#include "gpurf/modules/writeback/impl/priority.h"
#include "gpurf/policies/bdi.h"
#include "gpurf/policies/row_tags.h"
#include "gpurf/policies/unit_pool.h"
#include "gpurf/policies/wc_tags.h"

namespace gpurf {

class WcWriteback : public PriorityWriteback {
public:
  WcWriteback(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : PriorityWriteback(nm, p, c), tags_(c.row_tags),
        allowed_(allowed_choices(p.get_choice_list(
            "choices", {"b4d0", "b4d1", "b4d2"},
            "BDI choices the compressor may pick (Sec. 4; one alone: Fig. 15-16's variants)",
            {"b4d0", "b4d1", "b4d2"}))),
        compressors_(p.get_uint("compressors", 2,
                                "compressor units (one register per unit and cycle; Sec. 6.1: "
                                "2 per SM)",
                                1, 64)),
        latency_(p.get_uint("compress_latency", 2,
                            "cycles of the compression stage every result passes (Table 2)", 0,
                            64)),
        design_space_(p.get_bool("design_space", false,
                                 "also find, for every non-divergent write, the Table 1 "
                                 "encoding with the smallest stored form (Fig. 5; costs host "
                                 "time)")),
        forms_(stats().vector(
            "stored_forms", 4, "registers written, by stored form", "registers",
            {"b4d0", "b4d1", "b4d2", "uncompressed"},
            energy::no_event("W-C: register writes by stored form; priced by bank slice_writes"))),
        divergent_(stats().scalar(
            "divergent_writes",
            "registers written uncompressed because the instruction "
            "diverged",
            "registers",
            energy::no_event("W-C: uncompressed register writes; priced by bank slice_writes"))),
        mov_writes_(stats().scalar(
            "mov_writes", "registers written uncompressed by dummy MOVs (Sec. 5.2)", "registers",
            energy::no_event("W-C: dummy MOV register writes; priced by bank slice_writes"))),
        ratio_writes_(stats().vector("ratio_writes", 2,
                                     "register writes outside / inside divergence", "registers",
                                     {"non_divergent", "divergent"},
                                     energy::no_event("W-C: compression-ratio bookkeeping"))),
        ratio_slices_(stats().vector(
            "ratio_slices", 2,
            "16 B slices those writes need in BDI's best allowed form (divergent writes: if "
            "they were compressed, as in the paper's Fig. 8)",
            "slices", {"non_divergent", "divergent"},
            energy::no_event("W-C: compression-ratio bookkeeping"))),
        wins_(stats().vector(
            "design_space_wins", 9,
            "non-divergent writes by the Table 1 encoding with the smallest "
            "stored form (design_space: true; Fig. 5)",
            "registers", {"b4d0", "b4d1", "b4d2", "b8d0", "b8d1", "b8d2", "b8d4", "b2d1", "none"},
            energy::no_event("W-C: design-space study (Fig. 5)"),
            check::open_gap(
                "W-C Fig. 5 (design_space: true): a hypothetical choice, stored nowhere"))),
        comp_stats_(sibling_stats_path("compressor")),
        compressions_(comp_stats_.scalar(
            "compressions", "registers compressed (activations)", "registers",
            energy::structure("W-C: a compressor activation (structures.compressor)"))),
        waits_(stats().scalar("compressor_wait_cycles",
                              "register-cycles a result waited for a free compressor", "cycles",
                              energy::no_event("stalls"), check::unwatched("W-C: stalls"))) {
    need({{"crossbar", "warped_compression"}},
         "stores registers in Warped-Compression's BDI form, which only the decompressors between "
         "the banks and the collectors rebuild to 128 B (without them the collectors get "
         "compressed bytes)");
    if (tags_ && c.shape->slices != 8)
      p.fail("impl", "warped_compression needs banks of 8 x 16 B slices (bank.slices: 8), not " +
                         std::to_string(c.shape->slices));
    // Fig. 8: compression ratio = 128 B per register / bytes of banks its stored form needs.
    for (unsigned k = 0; k < 2; ++k)
      stats().formula(k ? "compression_ratio_divergent" : "compression_ratio",
                      k ? "8 x ratio_writes / ratio_slices, divergent writes"
                        : "8 x ratio_writes / ratio_slices, non-divergent writes",
                      "ratio", [this, k] {
                        return ratio_slices_[k]
                                   ? 8.0 * double(ratio_writes_[k]) / double(ratio_slices_[k])
                                   : 0.0;
                      });
  }

  unsigned write_stage() const override { return latency_; }
  RegForm stored_form() const override { return RegForm::Bdi; }

protected:
  Cycle write_ready(const WarpInst& inst, Cycle ready) override {
    if (!inst.n_dst || inst.divergent() || inst.injected) return ready + latency_;
    Cycle done = ready;
    for (unsigned k = 0; k < inst.n_dst; ++k) {
      const Cycle c = compressors_.take(ready, now());
      waits_ += c - ready;
      done = std::max(done, c);
    }
    return done + latency_;
  }

  WriteAction prepare_write(Txn& t) override {
    const LaneValues& v = t.inst->dst[t.operand].value;
    const bool div = t.inst->divergent();
    bdi::Choice c = bdi::Choice::Uncompressed;
    if (t.inst->injected) { // a dummy MOV decompresses in place: written uncompressed
      ++mov_writes_;
    } else {
      const bdi::Choice best = bdi::choose(v.data(), allowed_);
      ++ratio_writes_[div];
      ratio_slices_[div] += bdi::slices(best);
      if (div) {
        ++divergent_;
      } else {
        c = best;
        ++compressions_;
        if (design_space_) count_design_space(v);
      }
    }
    unsigned char* buf = write_buffer();
    bdi::compress(v.data(), c, buf);
    t.data = buf;
    t.slice_mask = (1u << bdi::slices(c)) - 1;
    tags_->set(t.bank, t.row, wc_tag(c));
    ++forms_[unsigned(c)];
    return WriteAction::Send;
  }

private:
  void count_design_space(const LaneValues& v) {
    uint8_t reg[kRegBytes];
    bdi::to_bytes(v.data(), reg);
    const auto& set = bdi::table1_design_space();
    const auto e = bdi::best(reg, set);
    size_t k = set.size();
    for (size_t i = 0; e && i < set.size(); ++i)
      if (set[i] == *e) k = i;
    ++wins_[k];
  }

  static unsigned allowed_choices(const std::vector<std::string>& names) {
    unsigned m = 0;
    for (const std::string& n : names) m |= 1u << (n == "b4d0" ? 0 : n == "b4d1" ? 1 : 2);
    return m;
  }
  RowTags* tags_;
  const unsigned allowed_;
  UnitPool compressors_;
  const unsigned latency_;
  const bool design_space_;
  Stat& forms_;
  uint64_t& divergent_;
  uint64_t& mov_writes_;
  Stat& ratio_writes_;
  Stat& ratio_slices_;
  Stat& wins_;
  StatGroup comp_stats_; // the compressors (energy: structures.compressor)
  uint64_t& compressions_;
  uint64_t& waits_;
};

GPURF_REGISTER_UNIT(IWriteback, WcWriteback, "warped_compression",
                    "Warped-Compression writeback: compression stage, BDI <4,0>/<4,1>/<4,2>, "
                    "stored form in the lowest slices, divergent results uncompressed; needs "
                    "arbiter: warped_compression");

} // namespace gpurf
