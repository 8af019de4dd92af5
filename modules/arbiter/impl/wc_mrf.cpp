// Warped-Compression's compressors at the main register file's write port (docs/combined.md:
// Gebhart's RFC + W-C). With a register file cache between the writeback and the banks, a
// result reaches the MRF only when the RFC evicts it, bypasses it or holds no copy; so the
// compression stage (`compress_latency`, Table 2: 2 cycles) and the `compressors` (Sec. 6.1:
// 2 per SM) sit where those writes enter the arbiter, and the RFC keeps registers
// uncompressed. Each write is compressed with BDI at the allowed choice needing the fewest
// 16 B slices, unless a divergent instruction produced the value (Sec. 5.2: later divergent
// writes of the phase then need no dummy MOV) or a dummy MOV writes it. The range indicator
// is set as the write enters (the writeback's moment in W-C); reads take only the stored
// form's slices, as arbiter `warped_compression`.
#include <array>
#include <deque>

#include "gpurf/modules/arbiter/impl/write_first.h"
#include "gpurf/policies/bdi.h"
#include "gpurf/policies/row_tags.h"
#include "gpurf/policies/unit_pool.h"
#include "gpurf/policies/wc_tags.h"

namespace gpurf {

class WcMrfArbiter : public WriteFirstArbiter {
public:
  RegForm read_form() const override { return RegForm::Bdi; }
  RegForm stored_form() const override { return RegForm::Bdi; }

  WcMrfArbiter(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : WriteFirstArbiter(nm, p, c), tags_(c.row_tags),
        compressors_(p.get_uint("compressors", 2,
                                "compressor units at the MRF write port (one register per unit "
                                "and cycle; W-C Sec. 6.1: 2 per SM)",
                                1, 64)),
        latency_(p.get_uint("compress_latency", 2,
                            "cycles of the compression stage every MRF write passes (W-C "
                            "Table 2)",
                            0, 64)),
        stored_(stats().vector(
            "stored_forms", 4, "MRF writes, by the stored form written", "registers",
            {"b4d0", "b4d1", "b4d2", "uncompressed"},
            energy::no_event(
                "W-C at the MRF port: writes by stored form; priced by bank slice_writes"))),
        read_forms_(stats().vector(
            "read_forms", 4, "register reads, by the stored form read", "reads",
            {"b4d0", "b4d1", "b4d2", "uncompressed"},
            energy::no_event("W-C: register reads by stored form; priced by bank slice_reads"))),
        divergent_(stats().scalar(
            "divergent_writes",
            "MRF writes of a divergent result or a dummy MOV, "
            "uncompressed (Sec. 5.2)",
            "registers",
            energy::no_event(
                "W-C at the MRF port: uncompressed writes (no compressor activation)"))),
        comp_stats_(sibling_stats_path("compressor")),
        compressions_(comp_stats_.scalar(
            "compressions", "registers compressed (activations)", "registers",
            energy::structure("W-C: a compressor activation (structures.compressor)"))),
        waits_(stats().scalar("compressor_wait_cycles",
                              "register-cycles an MRF write waited for a free compressor", "cycles",
                              energy::no_event("stalls"),
                              check::unwatched("W-C at the MRF port: stalls"))) {
    need({{"crossbar", "warped_compression"}},
         "stores registers in Warped-Compression's BDI form, which only the decompressors between "
         "the banks and the collectors rebuild to 128 B (without them the collectors get "
         "compressed bytes)");
    if (tags_ && c.shape->slices != 8)
      p.fail("impl", "warped_compression_mrf needs banks of 8 x 16 B slices (bank.slices: 8), "
                     "not " +
                         std::to_string(c.shape->slices));
  }

  void tick(Cycle now) override {
    while (!stage_.empty() && stage_.front().ready <= now) { // compressed: to the bank queue
      queues_.resize(banks_.size());
      queues_[stage_.front().txn.bank].writes.push_back(stage_.front().txn);
      stage_.pop_front();
    }
    WriteFirstArbiter::tick(now);
    if (!stage_.empty()) wake(stage_.front().ready);
  }

  void dump_state(std::ostream& os) const override {
    WriteFirstArbiter::dump_state(os);
    os << "  " << stage_.size() << " writes in the compression stage\n";
  }

protected:
  void on_request(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (t.kind == Txn::Kind::Read) {
      const bdi::Choice c = wc_choice(tags_->get(t.bank, t.row));
      t.slice_mask = uint8_t((1u << bdi::slices(c)) - 1);
      ++read_forms_[unsigned(c)];
    }
    if (t.kind != Txn::Kind::Write) return WriteFirstArbiter::on_request(id, gp, d);
    if (t.bank >= banks_.size()) bad_bank("write", t.bank);
    // A value a divergent instruction produced (its result, or an RFC write-back, which carries
    // the producer's masks) or a dummy MOV stays uncompressed and skips the compressors.
    const bool whole = !(t.inst->divergent() || t.inst->injected);
    const uint32_t* lanes = t.inst->dst[t.operand].value.data();
    const bdi::Choice c = whole ? bdi::choose(lanes) : bdi::Choice::Uncompressed;
    Cycle ready = now();
    if (whole) {
      ready = compressors_.take(now(), now());
      waits_ += ready - now();
      ++compressions_;
    } else {
      ++divergent_;
    }
    unsigned char* buf = buffer();
    bdi::compress(lanes, c, buf);
    t.data = buf;
    t.slice_mask = uint8_t((1u << bdi::slices(c)) - 1);
    tags_->set(t.bank, t.row, wc_tag(c));
    ++stored_[unsigned(c)];
    stage_.push_back(
        {ready + latency_, Req::of(t)}); // nondecreasing: writes leave in arrival order
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    wake(stage_.back().ready);
  }

  // The bank took the write: its buffer is free again, and the acknowledgement carries no
  // data pointer (the writeback recycles the buffers it filled itself).
  void written(const Req& t, const unsigned char*) override {
    free_.push_back(t.data);
    txn_.data = nullptr;
  }

private:
  unsigned char* buffer() {
    if (free_.empty()) return store_.emplace_back().data();
    unsigned char* b = free_.back();
    free_.pop_back();
    return b;
  }

  struct Staged {
    Cycle ready;
    Req txn;
  };
  RowTags* tags_;
  UnitPool compressors_;
  const unsigned latency_;
  Stat& stored_;
  Stat& read_forms_;
  uint64_t& divergent_;
  StatGroup comp_stats_; // the compressors (energy: structures.compressor)
  uint64_t& compressions_;
  uint64_t& waits_;
  std::deque<Staged> stage_;
  std::deque<std::array<unsigned char, kRegBytes>> store_; // stable addresses
  std::vector<unsigned char*> free_;
};

GPURF_REGISTER_UNIT(IArbiter, WcMrfArbiter, "warped_compression_mrf",
                    "Warped-Compression with the compressors at the MRF write port (behind a "
                    "register file cache): BDI <4,0>/<4,1>/<4,2> of every bank write, range "
                    "indicators, reads of the stored form's slices; writeback stays full-form");

} // namespace gpurf
