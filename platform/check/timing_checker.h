// Independent timing checker: an Observer of the units' events (platform/probe.h) that holds
// every instruction to the rules the platform's configuration promises, without sharing
// code with the units it checks. Plain C++ (no SystemC): tests drive it with hand-made
// events. A broken rule throws TimingViolation naming the rule, the unit, the cycle, the
// warp, pc, PTX line and what was seen; the SM stops the run with it like an operand
// mismatch. Rules (docs/checks.md):
//   ports      per bank and slice, per cycle: reads/writes granted <= ports (1rw: one
//              shared, 1r1w: one each); per collector, slice and cycle: operands from the
//              banks <= collector_ports; per RFC and cycle: hits <= read ports, result
//              allocations <= write ports
//   latency    operand arrival = read grant + bank latency + crossbar latency (RFC hit:
//              + hit latency); result ready = dispatch + the latency of the instruction's
//              class (else of its pipe); W-C: a compressed operand + decompress_latency
//              (<= decompressors per cycle), or with the stage at dispatch the pipe no
//              earlier than that after the last arrival; a read is granted
//              no earlier than the cycle after the collector was allocated (+ RFC tag check)
//   dispatch   every source arrived, no earlier than the last arrival; into the pipe its
//              class runs on; per pipe: never more than `count` units reserved, each
//              dispatch reserving one for its class's ii (else the pipe's)
//   hazards    RAW: a source is not issued before its producer's write was granted, nor
//              read before it (with forwarding, forward_stages > 0: issued no earlier than
//              `stages` cycles before the producer's result is ready, and a read of the old
//              value is replaced by the producer's result, arriving when it is ready); WAR:
//              a write is not granted while an older instruction
//              still has to read the register; WAW: writes of a register land in program
//              order (per storage too); predicates included
//   issue      per scheduler and cycle <= issue_width; a two-level scheduler issues only
//              from active warps and never holds more than `active`
//   retire     every destination written, no earlier than the result was ready
//   renaming   WIR: a physical register read holds exactly the version the rename stage
//              recorded; a remap (a destination sharing a register) names a register holding
//              the version it records; a reused instruction reads, executes and writes nothing
//   ccu        caching collectors (Malekeh), modelled here from the events alone: a CCU may
//              hold only the registers of the warp it was last allocated to (a new warp
//              flushes it), filled by its bank reads and by results written through port D;
//              a bank write of a register removes it unless the same result is written into
//              the CCU in that cycle (write-through, near results only, one per CCU and
//              cycle); a hit must find the version its reader wants
//   async      cp.async: a wait_group N issues only once every copy of its warp issued before
//              the N newest commit_groups retired (wait_all: every copy), so no read after
//              the wait can find the bytes missing (docs/ptx.md "Asynchronous copies")
#pragma once

#include <array>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpurf/platform/check/seq_map.h"
#include "gpurf/platform/probe.h"

namespace gpurf {

struct TimingViolation : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the configuration promises (filled by the SM from its units' parameters).
struct TimingSpec {
  unsigned subcores = 1, warps = 1, regs_per_thread = 1, preds_per_thread = 0;
  unsigned banks = 1, slices = 1;
  bool bank_split_ports = false; // 1r1w or 2r1w
  unsigned bank_read_ports = 1;  // reads per slice and cycle (2r1w: 2)
  unsigned bank_latency = 1, xbar_latency = 0;
  // Warped-Compression: a decompression stage after the crossbar for every compressed bank
  // operand (fewer slices than the bank has) with `decompressors` units per sub-core, one
  // such register each per cycle; a compression stage of `compress_latency` before every write.
  unsigned decompress_latency = 0, decompressors = 0, compress_latency = 0;
  // The stage between the collector and the pipe instead: an instruction's compressed operands
  // pass it together (ceil(n / decompressors) consecutive cycles) and it enters the pipe
  // `decompress_latency` after the last, no earlier than its last arrival.
  bool decompress_at_dispatch = false;
  // Warped-Compression bank power gating: a slice (16 B bank) with no valid entry is gated;
  // an access to it waits `wake_latency` cycles (0: no gating). bank_rows: storage rows.
  unsigned wake_latency = 0, bank_rows = 0;
  unsigned collector_ports = 1; // per collector slice port and cycle; 0: no port limits
  unsigned collectors = 1;      // per sub-core
  unsigned forward_stages = 0;  // fixed-stage register read with forwarding; 0: none
  // Compiler-set dependences (control bits): nothing is checked at issue; every operand is
  // still held to its producer's value at its read and arrival.
  bool software_dependences = false;
  struct Pipe {
    unsigned count = 0, latency = 0, ii = 1;
  };
  std::array<Pipe, kNumPipes> pipes{}; // MEM: the LSU (latency: to the L1 port, a minimum)
  // Per latency class (InstInfo::op_class): the pipe it must run on (-1: InstInfo::pipe),
  // its latency and ii (0: the executing pipe's). A pipe with count 0 folds onto SP.
  struct Class {
    int pipe = -1;
    unsigned latency = 0, ii = 0;
  };
  std::array<Class, kNumOpClasses> classes{};
  unsigned schedulers = 1; // per sub-core
  unsigned issue_width = 1;
  unsigned active_limit = 0; // two-level active warps per scheduler; 0: none
  bool rfc = false;
  unsigned rfc_read_ports = 0, rfc_write_ports = 0, rfc_tag_latency = 0, rfc_hit_latency = 0;
  // Caching collectors (Malekeh): a hit is read at the allocation and arrives this many
  // cycles later; 0: the collectors cache nothing.
  unsigned ccu_hit_latency = 0;
  // WIR register renaming: the banks hold physical registers (bank + banks x row); a read
  // must find the version the rename stage recorded, a destination may be remapped to a
  // register holding its value (Store::Rename), a reused instruction skips the backend.
  bool renaming = false;
  unsigned rename_stages = 2;   // issue to the collector binding (WIR's rename and reuse)
  unsigned bank_rows_total = 0; // physical registers per sub-core
};

// Events seen, for the conservation identities (platform/check/identities.h).
struct EventCounts {
  uint64_t issued = 0, dispatched = 0, retired = 0;
  uint64_t bank_reads = 0, bank_writes = 0, bank_slice_reads = 0, bank_slice_writes = 0;
  uint64_t bank_port_cycles = 0; // physical accesses: port cycles used
  // 64-bit operands' high halves read / written in their low half's access (frontend.reg64)
  uint64_t companion_reads = 0, companion_writes = 0;
  uint64_t rfc_reads = 0, rfc_writes = 0;
  uint64_t forwarded = 0; // reads replaced by a forwarded result
  uint64_t arrivals = 0;
  uint64_t arch_writes = 0;      // destination registers written by their producer
  uint64_t bank_copy_writes = 0; // bank writes of values already written elsewhere (RFC)
  uint64_t ccu_reads = 0, ccu_writes = 0, ccu_warp_changes = 0;              // caching collectors
  uint64_t reused = 0, verify_reads = 0, verify_slice_reads = 0, remaps = 0; // WIR
  uint64_t wakeups = 0;     // power-gated slices woken by an access
  uint64_t gating = 0;      // SMs whose checker models the gating (a wake-up takes cycles)
  uint64_t rfc_fills = 0;   // source operands copied into the RFC
  uint64_t allocations = 0; // collectors bound
  uint64_t activations = 0, deactivations = 0;     // two-level active set
  std::array<uint64_t, kNumPipes> by_pipe{};       // dispatches per pipe (MEM: into the LSU)
  std::array<uint64_t, kMemSpaces> mem_by_space{}; // MEM dispatches per memory space
  // Counts of several SMs together (the identities hold for the sums).
  EventCounts& operator+=(const EventCounts& o);
};

class TimingChecker : public Observer {
public:
  explicit TimingChecker(const TimingSpec& spec);

  void issue(const WarpInst&, Cycle) override;
  void allocated(const WarpInst&, unsigned collector, Cycle) override;
  void read(const RegAccess&, Cycle) override;
  void arrived(const WarpInst&, unsigned reg, unsigned collector, Store from, unsigned slice_mask,
               Cycle at) override;
  void operands_read(const WarpInst&, Cycle) override;
  void dispatch(const WarpInst&, Pipe, unsigned latency, Cycle) override;
  void complete(const WarpInst&, Cycle ready) override;
  void write(const RegAccess&, Cycle) override;
  void retire(const WarpInst&, Cycle) override;
  void active(unsigned subcore, unsigned scheduler, unsigned warp, bool on, Cycle) override;
  void verify_read(const RegAccess&, Cycle) override;
  void reused(const WarpInst&, Cycle) override;
  void filled(const RegAccess&, Cycle) override;

  const EventCounts& counts() const { return counts_; }
  // Instructions issued and not yet retired.
  size_t in_flight() const { return live_.size(); }

private:
  // One granted read of a source.
  struct Read {
    uint16_t reg;
    Store from;
    bool stale;       // the read returned an older value
    Cycle at;         // granted
    Cycle forward_at; // kNever: the read value stands
    Cycle wake;       // cycles the read waited for a gated slice
    bool companion;   // a 64-bit operand's high half, read with its low half
  };
  struct Inst {
    // Not zeroed: only read[0, reads) is ever looked at, each entry written by its read (an
    // instruction's whole record is built at every issue).
    Inst() {}
    const WarpInst* inst = nullptr;
    Cycle issue = 0, alloc = kNever, dispatch = kNever, ready = kNever, last_arrival = 0;
    unsigned latency = 0; // the result latency its class and pipe promise
    uint8_t sources = 0, reads = 0, arrivals = 0, writes = 0;
    uint8_t compressed = 0; // W-C: compressed operands arrived (for a stage at dispatch)
    Pipe pipe = Pipe::SP;
    uint64_t async_group = 0; // cp.async: the commits its warp had issued before it
    std::array<Read, InstInfo::kMaxSrc> read;
  };
  // cp.async per warp: commit_groups issued, and per group number the copies not retired.
  struct AsyncCopies {
    uint64_t commits = 0;
    std::map<uint64_t, unsigned> outstanding;
  };
  std::vector<AsyncCopies> async_; // per warp
  void async_issue(const WarpInst& i, Inst& s, Cycle t);
  struct Reg;
  struct Where;
  void raw_pending(const WarpInst& i, const Where& unit, Cycle t, unsigned index,
                   const Reg& r) const;
  struct Reg {
    uint32_t unwritten = 0;    // issued producers whose write is not granted yet
    uint64_t arch_version = 0; // last producer whose write was granted
    // The last two producers issued and when their results are ready (kNever: not known
    // yet); two, as an instruction may read the older one's value and be the newer one.
    std::array<uint64_t, 2> producer{};
    std::array<Cycle, 2> producer_ready{kNever, kNever};
    Cycle ready_of(uint64_t seq) const {
      return producer[0] == seq   ? producer_ready[0]
             : producer[1] == seq ? producer_ready[1]
                                  : kNever;
    }
    uint64_t bank_version = 0;     // last version written into the bank
    std::vector<uint64_t> readers; // issued instructions that have not read it yet
  };
  // Accesses per slice in one cycle, as slice masks by count: level[k] holds the slices
  // counted more than k times, so a slice's count is the number of levels holding it and an
  // access of mask m adds one to each of its slices by carrying m up the levels (no loop over
  // slices). Only level[0, depth) is in use; a new cycle sets depth to 0.
  struct SliceCounts {
    static constexpr unsigned kLevels = 33; // counts up to 33 (the limits are at most 32)
    uint8_t depth = 0;                      // the highest count of any slice
    std::array<uint32_t, kLevels> level;
    // Counts one access of the slices `m`; returns those of them now counted more than
    // `limit` times.
    uint32_t add(uint32_t m, unsigned limit) {
      const uint32_t in = m;
      for (unsigned k = 0; m && k < depth; ++k) {
        const uint32_t carry = m & level[k];
        level[k] |= m;
        m = carry;
      }
      if (m && depth < kLevels) level[depth++] = m;
      return limit < depth ? level[limit] & in : 0;
    }
  };
  struct PortUse {
    Cycle at = kNever;
    SliceCounts r, w; // reads (shared port: every access) and writes per slice this cycle
    bool any_r = false, any_w = false; // a read (shared port: any access) / a write this cycle
    // A new cycle: nothing counted (the levels above depth are never read).
    void reset(Cycle t) {
      at = t;
      r.depth = w.depth = 0;
      any_r = any_w = false;
    }
  };
  struct Count {
    Cycle at = kNever;
    unsigned n = 0;
  };

  // The unit a rule was broken in, named only when it is reported.
  struct Where {
    const char* kind = nullptr; // null: the SM
    unsigned subcore = 0;
    long index = -1;            // instance, -1: the sub-core has one
    const char* pipe = nullptr; // exec: the pipe
  };
  [[noreturn]] void fail(const char* rule, const Where& unit, Cycle at, const WarpInst* i,
                         const std::string& what) const;
  // The state of in-flight `i` (inline: every event of every instruction asks).
  Inst& state(const WarpInst& i, const char* rule, Cycle at) {
    Inst* s = live_.find(i.seq);
    if (!s || s->inst != &i) not_in_flight(i, rule, at);
    return *s;
  }
  [[noreturn]] void not_in_flight(const WarpInst& i, const char* rule, Cycle at);
  // The registers of `warp` (inline: most events ask for one or more).
  Reg* regs_of(unsigned warp) { return &regs_[size_t(warp) * reg_stride_]; }
  Reg& reg(unsigned warp, unsigned index) { return regs_of(warp)[index]; }
  // `unit()` names the unit a broken rule is reported in (built only then).
  template <class Unit>
  void arch_write(const WarpInst& i, unsigned index, const Unit& unit, Cycle at);
  [[gnu::always_inline]] void bank_port(const RegAccess& a, bool write, Cycle at);
  [[noreturn]] void bank_port_fail(const RegAccess& a, bool write, Cycle at, unsigned slice,
                                   unsigned limit) const;
  static unsigned bump(Count& c, Cycle at);
  std::string reg_name(unsigned index) const;

  TimingSpec spec_;
  unsigned slice_bits_; // the bits of a slice mask that name slices of the bank
  unsigned reg_stride_; // registers per warp: regs_per_thread + preds_per_thread
  EventCounts counts_;
  SeqMap<Inst> live_;                  // by sequence number
  std::vector<Reg> regs_;              // warp * (regs + preds) + index
  std::vector<PortUse> bank_use_;      // sub-core * banks + bank
  std::vector<PortUse> collector_use_; // sub-core * collectors + collector (r: slices)
  std::vector<std::map<Cycle, unsigned>> decompress_use_; // per sub-core: units taken per cycle
  // Power gating, modelled here from the bank accesses alone: per sub-core and bank, valid
  // bits per row and slice, valid entries and wake-up end per slice.
  struct Gating {
    std::vector<uint32_t> valid; // per row: its valid slices
    std::vector<unsigned> count;
    std::vector<Cycle> awake_at;
  };
  std::vector<Gating> gating_;
  // The cycles an access of `a`'s slices at cycle t waits for gated slices to wake; a write
  // then updates the valid bits.
  Cycle gate(const RegAccess& a, Cycle t, bool write) {
    return spec_.wake_latency ? gate_slices(a, t, write) : 0; // inline: every bank access asks
  }
  Cycle gate_slices(const RegAccess& a, Cycle t, bool write);

public:
  void released(unsigned subcore, unsigned bank, unsigned row, Cycle t) override;

private:
  // What each caching collector may hold (sub-core * collectors + collector).
  struct CcuModel {
    int warp = -1;
    // register -> version, flat: an entry counts only while its stamp is the table's
    // generation, so a flush (the CCU takes another warp) is one increment.
    struct Holds {
      std::vector<uint64_t> version, stamp;
      uint64_t gen = 1;
      const uint64_t* find(unsigned r) const {
        return r < stamp.size() && stamp[r] == gen ? &version[r] : nullptr;
      }
      void set(unsigned r, uint64_t v) {
        if (r >= stamp.size()) {
          stamp.resize(r + 1, 0);
          version.resize(r + 1, 0);
        }
        stamp[r] = gen;
        version[r] = v;
      }
      void erase(unsigned r) {
        if (r < stamp.size()) stamp[r] = 0;
      }
      void clear() { ++gen; }
    } holds;
    Cycle write_at = kNever; // port D's last write
  };
  std::vector<CcuModel> ccu_;
  // WIR: the version each physical register holds (sub-core * bank_rows_total + register).
  std::vector<uint64_t> phys_version_;
  uint64_t& phys(const RegAccess& a) {
    return phys_version_[size_t(a.inst->subcore) * spec_.bank_rows_total +
                         size_t(a.row) * spec_.banks + unsigned(a.bank)];
  }
  struct LastWrite {
    uint64_t version = 0;
    unsigned reg = 0;
    Cycle at = kNever;
  } last_bank_write_;
  std::pair<uint64_t, Cycle> last_access_{0, kNever}; // the last bank access: instruction, cycle
  void ccu_write(const RegAccess& a, Cycle t);

  std::vector<Count> issue_use_; // sub-core * schedulers + scheduler
  std::vector<Count> rfc_reads_, rfc_writes_;
  std::vector<std::vector<Cycle>> pipe_use_; // sub-core * pipes + pipe: units reserved until
  std::vector<unsigned> active_count_;       // per scheduler
  std::vector<bool> active_;                 // per warp
  uint64_t last_seq_ = 0;
  const WarpInst* alloc_inst_ = nullptr; // allocated, not yet issued
  Cycle alloc_at_ = 0;
};

} // namespace gpurf
