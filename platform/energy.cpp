#include "gpurf/platform/energy.h"

#include "gpurf/platform/stats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace gpurf {

namespace fs = std::filesystem;

namespace {

constexpr double kRegBytes = 128; // a warp register: 32 lanes x 4 B
constexpr double kLanes = 32;     // lanes of a warp instruction
constexpr double kMaxPj = 1e6;    // ranges: generous, only to catch unit mistakes
constexpr double kMaxMw = 1e6;

// Pipe labels of the exec `instructions` vector, each with its table entry.
const char* const kPipes[] = {"sp", "int", "dp", "sfu", "mem", "tensor"};

// The components of the SM scope's `pipeline:` (breakdown keys), in GPUWattch's terms; the
// interconnect between the SMs and the L2 is outside the SM (uncore).
struct PipelineComponent {
  const char* name;
  bool uncore;
  const char* what;
};
const PipelineComponent kPipelineComponents[] = {
    {"fetch", false, "instruction cache and instruction buffer"},
    {"decode", false, "instruction decode"},
    {"issue", false, "warp scheduler and scoreboard"},
    {"operand_collection", false, "collector allocation, arbitration and dispatch"},
    {"writeback", false, "result writeback and scoreboard release"},
    {"memory_pipeline", false,
     "LSU: address generation, coalescing, constant cache, shared replays"},
    {"interconnect", true, "SM-to-L2 interconnect"},
};

// ---------------------------------------------------------------------------------------
// Which statistics are energy events. The one place that says, for every statistic of every
// unit kind gpurf knows, what the energy model does with it (docs/energy.md, "Unpriced
// events and the energy identity"). Rules:
// - Formulas (floating-point values computed from other statistics at dump time: ipc,
//   hit_rate, ...) are never events and are not listed.
// - A fixed kind (kFixedKinds) has every statistic listed here. A statistic of a fixed kind
//   that is not listed stops every run: whoever adds a counter to one of these units
//   classifies it here, as priced by a table entry, a leakage time base, no event, or an
//   event the model deliberately leaves out.
// - Any other kind is an added structure (RFC, compressor, ...). Each of its statistics that
//   is not listed here as NotEvent/NotModelled is an energy event: the table's
//   structures.<kind>.events must price it, or the run fails.
// - An energy event counted non-zero without a price is an error (check_energy_priced);
//   at load time, every energy event a unit declares needs a price (check_energy_declared).
using R = EnergyRole;
const std::vector<EnergyStatClass> kEnergyStats = {
    // kind, statistic, label ("" = whole statistic), role, what prices it / why it is no event
    {"sm", "cycles", "", R::Leakage, "time base of every leakage term"},
    {"gpu", "cycles", "", R::NotEvent, "the last SM's end; leakage counts each SM's cycles"},
    {"gpu", "warp_instructions", "", R::NotEvent, "the SMs' sum"},
    {"interconnect", "requests", "", R::Scope,
     "SM-to-L2 interconnect: a request's header crossing the chip (uncore)"},
    {"interconnect", "bytes", "", R::Scope, "SM-to-L2 interconnect: bytes crossing the chip"},
    {"memory_port", "transactions", "", R::NotEvent, "the memory prices its accesses"},
    {"memory_port", "dmi_accesses", "", R::NotEvent, "the memory prices its accesses"},
    {"memory_port", "dmi_grants", "", R::NotEvent, "protocol"},
    {"memory_port", "dmi_invalidations", "", R::NotEvent, "protocol"},
    {"memory_port", "waited_cycles", "", R::NotEvent, "waits"},
    {"memory_port", "requests", "", R::NotEvent, "the memory prices its accesses"},
    {"memory_port", "backpressure_waits", "", R::NotEvent, "waits"},
    {"memory_port", "error_responses", "", R::NotEvent, "protocol"},
    {"sm", "warp_instructions", "", R::NotEvent,
     "retired instructions; priced by exec.instructions"},
    {"sm", "resident_warps", "", R::NotEvent, "occupancy"},
    {"sm", "resident_ctas", "", R::NotEvent, "occupancy"},
    {"sm", "cta_limit", "", R::NotEvent, "occupancy"},
    {"sm", "movs_injected", "", R::NotEvent,
     "W-C dummy MOVs; priced by their bank, wire, codec and functional-unit events"},
    {"sm", "movs_retired", "", R::NotEvent, "W-C dummy MOVs; as movs_injected"},

    {"bank", "slice_reads", "", R::Priced, "bank_read_pj_per_16B x slice bytes / 16"},
    {"bank", "slice_writes", "", R::Priced, "bank_write_pj_per_16B x slice bytes / 16"},
    {"bank", "gated_cycles", "", R::Leakage, "reduces bank_leakage_mw's slice-cycles"},
    {"bank", "wakeups", "", R::NotEvent, "W-C: the paper prices no wake-up energy"},
    {"bank", "reads", "", R::NotEvent, "accesses; priced per activated slice by slice_reads"},
    {"bank", "affine_reads", "", R::NotEvent, "WIR's Affine GPU: one slice each in slice_reads"},
    {"bank", "affine_writes", "", R::NotEvent, "WIR's Affine GPU: one slice each in slice_writes"},
    {"bank", "writes", "", R::NotEvent, "accesses; priced per activated slice by slice_writes"},

    {"crossbar", "bytes", "", R::Priced, "wire_pj_per_mm_per_128b (or _32b) x wire_mm"},
    {"crossbar", "transfers", "", R::NotEvent, "transfers; priced per byte by bytes"},
    {"crossbar", "decompressor_wait_cycles", "", R::NotEvent, "W-C: stalls"},
    {"crossbar", "slice_transfers", "", R::NotEvent,
     "the same transfers per slice crossbar; priced per byte by bytes"},

    {"collector", "oc_writes", "", R::Priced, "collector_write_pj_per_operand"},
    {"collector", "reads_requested", "", R::NotEvent,
     "requests; the reads are priced by bank slice_reads"},
    {"collector", "dispatched", "", R::Scope,
     "dispatching a collected instruction to its pipe (operand collection)"},
    {"collector", "dispatch_stall_cycles", "", R::NotEvent, "stall cycles"},
    {"collector", "operands_forwarded", "", R::NotEvent,
     "fixed-stage forwarding: the operand write is priced by oc_writes, the bank read as a read"},
    {"collector", "operands_checked", "", R::NotEvent, "the simulator's value check, no hardware"},
    {"collector", "width_reads", "", R::NotEvent,
     "CMRC: bank reads by stored width; priced by bank slice_reads"},
    {"collector", "ccu_writes", "", R::Priced,
     "Malekeh: a result written into a CCU's table over port D: collector_write_pj_per_operand "
     "+ 128 B over the wire (the crossbar to the CCUs)"},
    {"collector", "source_operands", "", R::NotEvent,
     "Malekeh: CT hits + bank reads; the reads are priced by bank slice_reads"},
    {"collector", "ccu_hits", "", R::NotEvent,
     "Malekeh: operands found in the cache table: no bank read, no crossbar transfer; reading "
     "them out at dispatch is the collector read of every design (dispatched)"},
    {"collector", "ccu_write_port_lost", "", R::NotEvent, "Malekeh: results not cached"},
    {"collector", "ccu_write_locked", "", R::NotEvent, "Malekeh: results not cached"},
    {"collector", "ccu_writes_squashed", "", R::NotEvent,
     "Malekeh: far results squashed by the arbiter (no data written)"},
    // Modern core (collector fixed_window, scheduler control_bits; docs/modern-core.md).
    {"collector", "allocated", "", R::NotEvent, "modern core: the Allocate step (dispatched)"},
    {"collector", "port_conflicts", "", R::NotEvent, "modern core: refused issues (stalls)"},
    {"collector", "bank_reads", "", R::NotEvent, "modern core: priced by bank slice_reads"},
    {"collector", "rfc_hits", "", R::NotModelled,
     "modern core: operand-slot cache reads; no energy table prices that cache"},
    {"collector", "rfc_fills", "", R::NotModelled, "modern core: operand-slot cache writes"},
    {"collector", "rfc_misses", "", R::NotEvent, "modern core: look-ups (bank_reads)"},
    {"collector", "static_instructions", "", R::NotEvent, "modern core: a static count"},
    {"collector", "static_reuse_instructions", "", R::NotEvent, "modern core: a static count"},
    {"scheduler", "stall_count_waits", "", R::NotEvent, "modern core: stalls"},
    {"scheduler", "dependence_counter_waits", "", R::NotEvent, "modern core: stalls"},
    {"collector", "ccu_invalidations", "", R::NotModelled, "Malekeh: a valid bit cleared"},
    {"collector", "ccu_warp_changes", "", R::NotEvent, "Malekeh: allocations"},
    {"collector", "ccu_flushes", "", R::NotModelled, "Malekeh: the table's valid bits cleared"},
    {"collector", "ccu_flushed_entries", "", R::NotEvent, "Malekeh: entries lost to flushes"},
    {"collector", "ccu_dead_tables", "", R::NotModelled,
     "Malekeh: a finished warp's table's valid bits cleared"},
    {"collector", "ccu_evictions", "", R::NotEvent,
     "Malekeh: replacements; priced by the write that takes the entry"},
    {"collector", "oc_slice_writes", "", R::NotEvent,
     "CMRC: the collector writes in 32 B slices; priced per write by oc_writes"},
    {"collector", "oc_coalesced_operands", "", R::NotEvent,
     "CMRC: operands that entered in another operand's write; no write of their own"},

    {"exec", "instructions", "", R::Priced, "fu_<pipe>_pj_per_lane_op x 32 lanes, per pipe label"},
    {"exec", "affine_instructions", "", R::Priced,
     "WIR's Affine GPU: these of the instructions are priced as 1 lane, not 32"},
    {"exec", "busy_cycles", "", R::NotEvent, "occupancy (functional-unit leakage not modelled)"},
    {"exec", "class_instructions", "", R::NotEvent,
     "the same instructions by latency class; priced per pipe by instructions"},

    {"lsu", "instructions", "shared", R::Priced, "shared_access_pj_per_warp_access"},
    {"lsu", "instructions", "global", R::NotEvent,
     "priced as L1 requests (l1.reads, writes, atomics) and memory bytes"},
    {"lsu", "instructions", "local", R::NotEvent,
     "priced as L1 requests (l1.reads, writes, atomics) and memory bytes"},
    {"lsu", "instructions", "none", R::NotEvent, "no memory access"},
    {"lsu", "instructions", "param", R::Scope,
     "parameter memory access: a constant-cache read (Fermi keeps parameters in a constant bank)"},
    {"lsu", "instructions", "const", R::Scope, "constant cache access"},
    {"lsu", "segments", "", R::NotEvent, "coalesced L1 accesses; priced as l1 requests"},
    {"lsu", "shared_bank_conflict_cycles", "", R::Scope,
     "extra shared-memory port cycles of bank conflicts: the replayed bank accesses"},
    {"lsu", "busy_cycles", "", R::NotEvent, "occupancy"},
    {"lsu", "stall_cycles", "", R::NotEvent, "stalls"},
    {"lsu", "l1_busy_cycles", "", R::NotEvent, "stalls"},
    {"lsu", "wb_busy_cycles", "", R::NotEvent, "stalls"},
    {"lsu", "completed", "", R::Scope,
     "memory pipeline: address generation and coalescing of a memory instruction (exec never "
     "counts the mem pipe: memory instructions go to the LSU)"},
    {"lsu", "latency_total", "", R::NotEvent, "a sum of latencies"},

    {"l1", "reads", "", R::Priced, "l1_access_pj_per_request"},
    {"l1", "writes", "", R::Priced, "l1_access_pj_per_request"},
    {"l1", "atomics", "", R::Priced, "l1_access_pj_per_request"},
    {"l1", "bytes_from_memory", "", R::Priced, "l1_fill_pj_per_byte"},
    {"l1", "line_reads", "", R::NotEvent, "lines the read requests cover; priced by reads"},
    {"l1", "hits", "", R::NotEvent, "outcomes of reads; priced by reads"},
    {"l1", "misses", "", R::NotEvent, "outcomes of reads; priced by reads and bytes_from_memory"},
    {"l1", "mshr_merges", "", R::NotEvent, "outcomes of reads; priced by reads"},
    {"l1", "write_hits", "", R::NotEvent, "outcomes of writes; priced by writes"},
    {"l1", "mshr_full_stalls", "", R::NotEvent, "stalls"},
    {"l1", "bytes_to_memory", "", R::NotEvent,
     "write-through bytes; priced by memory.bytes_written"},

    {"l2", "reads", "", R::Priced, "l2_access_pj_per_request"},
    {"l2", "writes", "", R::Priced, "l2_access_pj_per_request"},
    {"l2", "atomics", "", R::Priced, "l2_access_pj_per_request"},
    {"l2", "writebacks", "", R::Priced,
     "l2_access_pj_per_request (the dirty line read out of the L2)"},
    {"l2", "bytes_from_memory", "", R::Priced, "l2_fill_pj_per_byte"},
    {"l2", "line_reads", "", R::NotEvent, "lines the read requests cover; priced by reads"},
    {"l2", "hits", "", R::NotEvent, "outcomes of reads; priced by reads"},
    {"l2", "misses", "", R::NotEvent, "outcomes of reads; priced by reads and bytes_from_memory"},
    {"l2", "mshr_merges", "", R::NotEvent, "outcomes of reads; priced by reads"},
    {"l2", "write_hits", "", R::NotEvent, "outcomes of writes; priced by writes"},
    {"l2", "write_misses", "", R::NotEvent, "outcomes of writes; priced by writes"},
    {"l2", "write_fetches", "", R::NotEvent, "fills; priced by bytes_from_memory"},
    {"l2", "write_throughs", "", R::NotEvent, "writes forwarded; priced as l2 writes"},
    {"l2", "bank_conflict_cycles", "", R::NotEvent, "waits"},
    {"l2", "mshr_wait_cycles", "", R::NotEvent, "waits"},
    {"l2", "deferred_requests", "", R::NotEvent, "AT: waits for an MSHR"},
    {"l2", "bytes_to_memory", "", R::NotEvent,
     "write-backs and write-throughs; priced by memory.bytes_written"},

    {"memory", "bytes_read", "", R::Priced, "memory_pj_per_byte"},
    {"memory", "bytes_written", "", R::Priced, "memory_pj_per_byte"},
    {"memory", "reads", "", R::NotEvent, "transactions; priced per byte by bytes_read"},
    {"memory", "writes", "", R::NotEvent, "transactions; priced per byte by bytes_written"},
    {"memory", "busy_cycles", "", R::NotEvent, "occupancy"},
    {"memory", "queue_cycles", "", R::NotEvent, "waits"},

    {"arbiter", "conflicts", "", R::NotEvent, "request-cycles spent waiting"},
    {"arbiter", "verify_reads_granted", "", R::NotEvent,
     "WIR: bank reads, priced by bank slice_reads (the comparator is not modelled)"},
    {"arbiter", "ccu_near_results", "", R::NotEvent,
     "Malekeh: results offered to a CCU; priced by collector ccu_writes"},
    {"arbiter", "ccu_squashed_results", "", R::NotModelled,
     "Malekeh: the tri-state buffer's control of a squashed result"},
    {"arbiter", "reads_granted", "", R::NotEvent, "grants; priced by bank slice_reads"},
    {"arbiter", "read_forms", "", R::NotEvent,
     "W-C: register reads by stored form; priced by bank slice_reads"},
    {"arbiter", "writes_granted", "", R::NotEvent, "grants; priced by bank slice_writes"},
    {"arbiter", "bank_accesses", "", R::NotEvent,
     "port cycles; priced per slice by bank slice_reads and slice_writes"},
    {"arbiter", "coalesced", "", R::NotEvent,
     "CMRC: requests served by another request's access; no access of their own"},
    {"arbiter", "stored_forms", "", R::NotEvent,
     "W-C at the MRF port: writes by stored form; priced by bank slice_writes"},
    {"arbiter", "divergent_writes", "", R::NotEvent,
     "W-C at the MRF port: uncompressed writes (no compressor activation)"},
    {"arbiter", "compressor_wait_cycles", "", R::NotEvent, "stalls"},
    {"arbiter", "unpaired", "", R::NotEvent,
     "CMRC: port cycles that served one request, by why; priced as the bank's slices"},

    {"allocator", "allocations", "", R::Scope,
     "collector allocation: the instruction written into a collector (operand collection)"},
    {"allocator", "full", "", R::NotEvent, "refused attempts"},
    {"allocator", "occupied_collector_cycles", "", R::NotEvent, "occupancy"},
    {"allocator", "refusals", "", R::NotEvent, "Malekeh: refused attempts by reason"},
    {"allocator", "reuse_lookups", "", R::NotEvent,
     "WIR: priced by the reuse_buffer structure's lookups"},
    {"allocator", "reuse_hits", "", R::NotEvent, "WIR: outcomes of reuse-buffer lookups"},
    {"allocator", "reuse_misses", "", R::NotEvent, "WIR: outcomes of reuse-buffer lookups"},
    {"allocator", "reused_sources", "", R::NotEvent, "WIR: operands never read"},
    {"allocator", "reuse_skipped", "", R::NotEvent, "WIR: instructions by reason"},
    {"allocator", "reuse_miss_kinds", "", R::NotEvent, "WIR: reuse-buffer misses by cause"},
    {"allocator", "reuse_pending_waits", "", R::NotEvent, "WIR: pending-retry queue entries"},
    {"allocator", "reuse_pending_hits", "", R::NotEvent, "WIR: outcomes of pending retries"},
    {"allocator", "stage_full", "", R::NotEvent, "WIR: refused issue attempts"},
    {"allocator", "collector_wait_cycles", "", R::NotEvent, "WIR: stall cycles"},

    {"writeback", "retired", "", R::NotEvent, "retired instructions; priced by exec.instructions"},
    {"writeback", "register_writes", "", R::Scope,
     "writeback of a result: scoreboard release and writeback arbitration (the bank write is "
     "priced by slice_writes; result wires to the banks not modelled)"},
    {"writeback", "port_stall_cycles", "", R::NotEvent, "stalls"},
    {"writeback", "verify_reads", "", R::NotEvent, "WIR: priced as bank reads (bank slice_reads)"},
    {"writeback", "shared_writes", "", R::NotEvent, "WIR: writes avoided (no bank access)"},
    {"writeback", "vsb_false_matches", "", R::NotEvent, "WIR: outcomes of verify-reads"},
    {"writeback", "vsb_misses", "", R::NotEvent, "WIR: outcomes of VSB lookups"},
    {"writeback", "dedicated_writes", "", R::NotEvent, "WIR: bank writes (slice_writes)"},
    {"writeback", "dummy_movs", "", R::NotEvent,
     "WIR: the inactive lanes' copy into a new dedicated register: a bank read and the "
     "result's write (slice_reads, slice_writes)"},
    {"writeback", "bypassed", "", R::NotEvent, "WIR: reused instructions, no backend event"},
    {"writeback", "reused_results", "", R::NotEvent, "WIR: remaps, no bank access"},
    {"writeback", "in_place_writes", "", R::NotEvent, "WIR: bank writes (slice_writes)"},
    {"writeback", "low_register_cycles", "", R::NotEvent, "WIR: stall cycles"},
    {"writeback", "reuse_block_drops", "", R::NotEvent,
     "WIR: valid bits cleared (reference counts priced by refcount decrements)"},
    {"writeback", "reuse_launch_drops", "", R::NotEvent,
     "WIR: valid bits cleared (reference counts priced by refcount decrements)"},
    {"writeback", "verify_cache_hits", "", R::NotEvent,
     "WIR: priced by the verify_cache structure's reads"},
    {"writeback", "unverified_shares", "", R::NotEvent, "WIR: a fault-injection count"},
    {"writeback", "order_stall_cycles", "", R::NotEvent, "stalls"},
    {"writeback", "width_writes", "", R::NotEvent,
     "CMRC: register writes by stored width; priced by bank slice_writes"},
    {"writeback", "divergent_full_writes", "", R::NotEvent,
     "CMRC: register writes; priced by bank slice_writes"},
    {"writeback", "stored_forms", "", R::NotEvent,
     "W-C: register writes by stored form; priced by bank slice_writes"},
    {"writeback", "divergent_writes", "", R::NotEvent,
     "W-C: uncompressed register writes; priced by bank slice_writes"},
    {"writeback", "mov_writes", "", R::NotEvent,
     "W-C: dummy MOV register writes; priced by bank slice_writes"},
    {"writeback", "compressor_wait_cycles", "", R::NotEvent, "stalls"},
    {"writeback", "ratio_writes", "", R::NotEvent, "W-C: compression-ratio bookkeeping"},
    {"writeback", "ratio_slices", "", R::NotEvent, "W-C: compression-ratio bookkeeping"},
    {"writeback", "design_space_wins", "", R::NotEvent, "W-C: design-space study (Fig. 5)"},

    {"scheduler", "issued", "", R::Scope,
     "an issued warp instruction: its fetch (I-cache, instruction buffer), decode and issue "
     "(scheduler, scoreboard)"},
    {"scheduler", "active_cycles", "", R::NotEvent, "cycles"},
    {"scheduler", "stall_cycles", "", R::NotEvent, "stalls"},
    {"scheduler", "cycles_by_state", "", R::NotEvent, "cycles"},
    {"scheduler", "activations", "", R::Scope,
     "two-level scheduler: a warp moved to the active set"},
    {"scheduler", "deactivations", "", R::Scope,
     "two-level scheduler: a warp moved to the pending set"},

    // Gebhart's register file cache: an added structure (the table's structures.rfc).
    {"rfc", "reads", "", R::Structure, "operands read from the RFC"},
    {"rfc", "writes", "", R::Structure, "values written into the RFC"},
    {"rfc", "writebacks", "", R::Structure, "dirty values read out of the RFC for the MRF"},
    {"rfc", "misses", "", R::NotEvent,
     "MRF reads; priced by bank slice_reads (tag checks not modelled)"},
    {"rfc", "results", "", R::NotEvent, "results offered; each is an rfc write or a bank write"},
    {"rfc", "mrf_writes", "", R::NotEvent, "priced by bank slice_writes"},
    {"rfc", "bypass", "", R::NotEvent,
     "results written around the RFC; priced by bank slice_writes"},
    {"rfc", "dead_elided", "", R::NotEvent, "dead values dropped without an access"},
    {"rfc", "exit_dropped", "", R::NotEvent, "values of finished warps dropped without an access"},
    {"rfc", "flush_writebacks", "", R::NotEvent, "part of writebacks"},
    {"rfc", "flushes", "", R::NotEvent, "flush operations; their write-backs are in writebacks"},
    {"rfc", "eviction_waits", "", R::NotEvent, "waits"},
    {"rfc", "write_port_stall_cycles", "", R::NotEvent, "stalls"},
};

// Kinds whose statistics must all be classified above: the units the fixed entries model
// and the units that have no energy events of their own. An added structure may not use them.
const char* const kFixedKinds[] = {
    "sm",        "bank",   "crossbar", "collector",    "exec",       "l1",
    "l2",        "memory", "lsu",      "arbiter",      "allocator",  "writeback",
    "scheduler", "host",   "gpu",      "interconnect", "memory_port"};

std::string fmt(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

// Reads a required number in [0, max]: absent -> ConfigError naming the file:line of the map
// that should hold it, the key, the valid range and what it is.
double required(Params& p, const ConfigNode& root, const std::string& name, const std::string& desc,
                double max) {
  if (!p.node() || !p.node()->find(name)) {
    const ConfigNode* at = p.node() ? p.node() : &root;
    const std::string key = p.path().empty() ? name : p.path() + "." + name;
    throw ConfigError(at->where() + ": " + key + ": missing required entry (" + desc +
                      "); expected a number in [0, " + fmt(max) + "]");
  }
  return p.get_double(name, 0, desc, 0, max);
}

bool required_bool(Params& p, const std::string& name, const std::string& desc) {
  if (!p.node() || !p.node()->find(name))
    p.fail(name, "missing required entry (" + desc + "); expected true or false");
  return p.get_bool(name, false, desc);
}

using Json = nlohmann::ordered_json;

// The groups of one kind, in dump order.
std::vector<std::pair<std::string, const Json*>> groups(const Json& stats,
                                                        const std::string& kind) {
  std::vector<std::pair<std::string, const Json*>> out;
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), kind)) out.emplace_back(it.key(), &*it);
  return out;
}

double stat_or(const Json& group, const std::string& name, double def) {
  double v = def;
  return stat_value(group, name, v) ? v : def;
}

double stat_required(const std::pair<std::string, const Json*>& g, const std::string& name) {
  double v = 0;
  if (!stat_value(*g.second, name, v))
    throw std::runtime_error("energy: statistics group '" + g.first + "' has no statistic '" +
                             name + "'");
  return v;
}

// An element of a labelled vector statistic; false if the statistic or label is absent.
bool stat_label(const Json& group, const std::string& name, const std::string& label, double& out) {
  auto it = group.find(name);
  if (it == group.end() || !it->contains("labels") || !it->contains("values")) return false;
  const Json& labels = (*it)["labels"];
  const Json& values = (*it)["values"];
  for (size_t i = 0; i < labels.size() && i < values.size(); ++i)
    if (labels[i] == label) {
      out = values[i].get<double>();
      return true;
    }
  return false;
}

// A statistic in the dump: an object with "value" (scalar, formula) or "values" (vector).
bool is_stat(const Json& st) {
  return st.is_object() && (st.contains("value") || st.contains("values"));
}

// A formula: a floating-point value computed from other statistics, never an event.
bool is_formula(const Json& st) {
  auto v = st.find("value");
  return v != st.end() && v->is_number_float();
}

// The counts of one statistic: one per element of a labelled vector, otherwise one with an
// empty label (a scalar's value, a vector's total).
std::vector<std::pair<std::string, double>> counts(const Json& st) {
  std::vector<std::pair<std::string, double>> out;
  if (st.contains("values") && st.contains("labels")) {
    const Json& labels = st["labels"];
    const Json& values = st["values"];
    for (size_t i = 0; i < labels.size() && i < values.size(); ++i)
      out.emplace_back(labels[i].get<std::string>(), values[i].get<double>());
    return out;
  }
  double n = 0;
  if (auto t = st.find("total"); t != st.end() && t->is_number())
    n = t->get<double>();
  else if (auto v = st.find("value"); v != st.end() && v->is_number())
    n = v->get<double>();
  else if (auto vs = st.find("values"); vs != st.end())
    for (const Json& x : *vs) n += x.get<double>();
  out.emplace_back("", n);
  return out;
}

// The count of element `label` of a statistic ("" = all of it); 0 when absent.
double count_of(const Json& st, const std::string& label) {
  double all = 0;
  for (auto& [l, n] : counts(st)) {
    if (!label.empty() && l == label) return n;
    all += n;
  }
  return label.empty() ? all : 0;
}

const EnergyStatClass* find_class(const std::string& kind, const std::string& stat,
                                  const std::string& label) {
  const EnergyStatClass* whole = nullptr;
  for (const EnergyStatClass& c : kEnergyStats)
    if (kind == c.kind && stat == c.stat) {
      if (!label.empty() && label == c.label) return &c;
      if (!*c.label) whole = &c;
    }
  return whole;
}

// One unpriced event: a statistic (element) of one kind, over every unit that counts it.
struct Unpriced {
  std::string kind, stat, event; // event: "reads", or "instructions[x]" for a vector element
  std::vector<std::string> units;
  double count = 0;
  bool classified = true; // false: a fixed kind's statistic missing from kEnergyStats
};

// Every energy event in `stats` without a price: counted non-zero, or, if `declared`, any.
std::vector<Unpriced> find_unpriced(const EnergyTable& t, const Json& stats, bool declared) {
  // Only which events have a price matters here, not how much.
  const std::vector<EnergyPrice> prices = energy_prices(t, EnergyPlatform{1, 1, 1});
  auto priced = [&](const std::string& kind, const std::string& stat, const std::string& label) {
    return std::any_of(prices.begin(), prices.end(), [&](const EnergyPrice& p) {
      return p.kind == kind && p.stat == stat && (p.label.empty() || p.label == label);
    });
  };
  std::vector<Unpriced> out;
  for (auto g = stats.begin(); g != stats.end(); ++g) {
    if (!g->is_object()) continue;
    const std::string kind = energy_group_kind(g.key(), &t);
    const bool fixed = energy_fixed_kind(kind);
    for (auto st = g->begin(); st != g->end(); ++st) {
      if (!is_stat(*st) || is_formula(*st)) continue;
      // Only fixed kinds classify or price the elements of a vector; a structure prices a
      // vector by its total.
      const std::vector<std::pair<std::string, double>> items =
          fixed ? counts(*st)
                : std::vector<std::pair<std::string, double>>{{"", count_of(*st, "")}};
      for (auto& [label, n] : items) {
        if (!declared && n == 0) continue;
        const EnergyStatClass* c = find_class(kind, st.key(), label);
        // A Scope event is an event only for a table of the SM scope.
        const bool is_event = c == nullptr || c->role == R::Priced || c->role == R::Structure ||
                              (c->role == R::Scope && t.scope == EnergyScope::Sm);
        if (!is_event) continue;
        if (priced(kind, st.key(), label)) continue;
        const bool classified = c || !fixed;
        const std::string event =
            classified && !label.empty() ? st.key() + "[" + label + "]" : st.key();
        auto u = std::find_if(out.begin(), out.end(), [&](const Unpriced& x) {
          return x.kind == kind && x.event == event;
        });
        if (u == out.end()) {
          out.push_back({kind, st.key(), event, {}, 0, classified});
          u = out.end() - 1;
        }
        if (std::find(u->units.begin(), u->units.end(), g.key()) == u->units.end())
          u->units.push_back(g.key());
        u->count += n;
      }
    }
  }
  return out;
}

// "sm.sub0.rfc", or "sm.sub0.rfc (and 3 more)" for several units.
std::string units_text(const std::vector<std::string>& units) {
  std::string s = units.empty() ? "" : units[0];
  if (units.size() > 1) s += " (and " + std::to_string(units.size() - 1) + " more)";
  return s;
}

// A statistic of a fixed kind that kEnergyStats does not classify: a gpurf bug, not bad input.
void throw_unclassified(const std::vector<Unpriced>& u) {
  std::string m;
  for (const Unpriced& x : u)
    if (!x.classified)
      m += (m.empty() ? "" : "; ") + std::string("statistic '") + x.stat + "' of unit " +
           units_text(x.units) + " (kind '" + x.kind + "')";
  if (m.empty()) return;
  throw std::logic_error(
      "platform/energy.cpp: energy events not classified in kEnergyStats: " + m +
      ". Every statistic of this kind must be listed there: priced by a table entry, a leakage "
      "time base, no energy event or not modelled (docs/energy.md, \"Unpriced events and the "
      "energy identity\")");
}

std::string pipeline_components_text() {
  std::string s;
  for (const PipelineComponent& c : kPipelineComponents)
    s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

// Every Scope event, as `kind.stat` or `kind.stat[label]` (error messages).
std::string scope_events_text() {
  std::string s;
  for (const EnergyStatClass& c : kEnergyStats)
    if (c.role == R::Scope)
      s += (s.empty() ? "" : ", ") + std::string(c.kind) + "." + c.stat +
           (*c.label ? std::string("[") + c.label + "]" : "");
  return s;
}

// The number of SMs in the statistics: groups of kind sm (at least one).
double sm_groups(const Json& stats) {
  double n = 0;
  for (auto g = stats.begin(); g != stats.end(); ++g)
    if (g->is_object() && energy_group_kind(g.key()) == "sm") ++n;
  return std::max(n, 1.0);
}

// What to add to the table so that `events` of `kind` have a price.
std::string what_to_add(const EnergyTable& t, const std::string& kind,
                        const std::vector<std::string>& events) {
  if (energy_fixed_kind(kind)) {
    const bool scope =
        t.scope == EnergyScope::Sm &&
        std::all_of(events.begin(), events.end(), [&](const std::string& e) {
          return std::any_of(kEnergyStats.begin(), kEnergyStats.end(), [&](const auto& x) {
            return kind == x.kind && e == x.stat && x.role == R::Scope;
          });
        });
    if (scope) {
      std::string list;
      for (const std::string& e : events) list += (list.empty() ? "" : ", ") + e + ": <pJ>";
      return "an SM-scope table prices them under pipeline.<component>." + kind + " ({" + list +
             "}, a vector by label: {stat: {label: <pJ>}}; components: " +
             pipeline_components_text() + ") in " + t.path +
             ", each number with its source in a comment (docs/energy.md, \"Scopes\")";
    }
    return "the table format has no entry for them: give the fixed entry in platform/energy.cpp "
           "(energy_prices) or classify them in kEnergyStats";
  }
  std::string list;
  for (const std::string& e : events) list += (list.empty() ? "" : ", ") + e + ": <pJ>";
  auto s = std::find_if(t.structures.begin(), t.structures.end(),
                        [&](const EnergyStructure& x) { return x.name == kind; });
  std::string add = s != t.structures.end()
                        ? "add {" + list + "} to structures." + kind + ".events (" + s->where + ")"
                        : "add structures: {" + kind +
                              ": {part_of_rf: <true|false>, leakage_mw: <mW>, events: {" + list +
                              "}}} to " + t.path;
  return add + ", each number with its source in a comment (docs/energy.md); a statistic that is "
               "no energy event is classified in kEnergyStats (platform/energy.cpp) instead";
}

// The table names a statistic that the groups of its kind do not have.
void check_structure_stats(const EnergyTable& t, const Json& stats) {
  for (const EnergyStructure& s : t.structures) {
    const auto gs = groups(stats, s.name);
    if (gs.empty()) continue;
    for (size_t e = 0; e < s.events.size(); ++e) {
      const std::string& stat = s.events[e].first;
      if (std::any_of(gs.begin(), gs.end(), [&](auto& g) {
            auto it = g.second->find(stat);
            return it != g.second->end() && is_stat(*it);
          }))
        continue;
      std::string have;
      for (auto it = gs[0].second->begin(); it != gs[0].second->end(); ++it)
        have += (have.empty() ? "" : ", ") + it.key();
      throw ConfigError(s.event_where[e] + ": structures." + s.name + ".events." + stat +
                        ": no statistic '" + stat + "' in the run's '" + s.name + "' groups (" +
                        gs[0].first + " has: " + have + ")");
    }
  }
}

// Equal up to floating-point rounding: relative difference at most 1e-9.
bool same_energy(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

std::string fmt17(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

// The leakage time base: the GPU's cycles (every SM leaks until the last one ends), or the
// SM's in statistics from before the GPU level.
double sm_cycles(const Json& stats) {
  double cycles = 0;
  for (const char* g : {"gpu", "sm"})
    if (auto it = stats.find(g); it != stats.end() && stat_value(*it, "cycles", cycles))
      return cycles;
  throw std::runtime_error("energy: statistics have no gpu.cycles or sm.cycles");
}

void check_inputs(const Json& stats, const EnergyPlatform& pf) {
  if (!(pf.clock_ghz > 0) || !pf.bank_slices || !pf.bank_rows)
    throw std::runtime_error("energy: platform clock_ghz, bank_slices and bank_rows must be > 0");
  if (!stats.is_object()) throw std::runtime_error("energy: statistics are not a JSON object");
}

// The SM scope's static power outside the register banks: sm_static_mw and uncore_static_mw
// per SM for the whole run (0 for a register-file-scope table).
double static_outside_rf(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf) {
  return (t.sm_static_mw + t.uncore_static_mw) * sm_groups(stats) * sm_cycles(stats) / pf.clock_ghz;
}

double count_of_or0(const Json& group, const std::string& stat) {
  auto st = group.find(stat);
  return st != group.end() && is_stat(*st) ? count_of(*st, "") : 0;
}

} // namespace

const std::vector<EnergyStatClass>& energy_stat_classes() { return kEnergyStats; }

bool energy_fixed_kind(const std::string& kind) {
  return std::find(std::begin(kFixedKinds), std::end(kFixedKinds), kind) != std::end(kFixedKinds);
}

std::string energy_group_kind(const std::string& path, const EnergyTable* table) {
  const size_t dot = path.rfind('.');
  std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
  auto known = [&](const std::string& k) {
    if (energy_fixed_kind(k)) return true;
    for (const EnergyStatClass& c : kEnergyStats)
      if (k == c.kind) return true;
    if (table)
      for (const EnergyStructure& s : table->structures)
        if (k == s.name) return true;
    return false;
  };
  if (known(last)) return last;
  std::string stripped = last;
  while (!stripped.empty() && std::isdigit(static_cast<unsigned char>(stripped.back())))
    stripped.pop_back();
  return stripped.empty() ? last : stripped;
}

std::vector<EnergyPrice> energy_prices(const EnergyTable& t, const EnergyPlatform& pf) {
  const double slice_bytes = kRegBytes / pf.bank_slices;
  std::vector<EnergyPrice> p = {
      {"bank", "slice_reads", "", t.bank_read_pj_per_16B * slice_bytes / 16},
      {"bank", "slice_writes", "", t.bank_write_pj_per_16B * slice_bytes / 16},
      {"crossbar", "bytes", "", t.wire_pj_per_mm_per_byte * t.wire_mm},
      {"collector", "oc_writes", "", t.collector_write_pj},
      {"collector", "ccu_writes", "",
       t.collector_write_pj + kRegBytes * t.wire_pj_per_mm_per_byte * t.wire_mm},
      {"l1", "reads", "", t.l1_access_pj},
      {"l1", "writes", "", t.l1_access_pj},
      {"l1", "atomics", "", t.l1_access_pj},
      {"l1", "bytes_from_memory", "", t.l1_fill_pj_per_byte},
      {"l2", "reads", "", t.l2_access_pj},
      {"l2", "writes", "", t.l2_access_pj},
      {"l2", "atomics", "", t.l2_access_pj},
      {"l2", "writebacks", "", t.l2_access_pj},
      {"l2", "bytes_from_memory", "", t.l2_fill_pj_per_byte},
      {"lsu", "instructions", "shared", t.shared_access_pj},
      {"memory", "bytes_read", "", t.memory_pj_per_byte},
      {"memory", "bytes_written", "", t.memory_pj_per_byte},
  };
  for (auto& [pipe, pj] : t.fu_pj_per_lane_op) {
    p.push_back({"exec", "instructions", pipe, kLanes * pj});
    p.push_back({"exec", "affine_instructions", pipe, (1 - kLanes) * pj}); // 31 lanes saved
  }
  for (const EnergyStructure& s : t.structures)
    for (auto& [stat, pj] : s.events) p.push_back({s.name, stat, "", pj});
  for (const EnergyPipelineComponent& c : t.pipeline)
    for (const EnergyPipelineEvent& e : c.events) p.push_back({e.kind, e.stat, e.label, e.pj});
  return p;
}

void check_energy_priced(const EnergyTable& t, const Json& stats) {
  const std::vector<Unpriced> u = find_unpriced(t, stats, false);
  if (u.empty()) return;
  throw_unclassified(u);
  std::string m = t.path + ": energy events counted but not priced by this table (their energy "
                           "would silently be 0):";
  std::vector<std::string> kinds;
  for (const Unpriced& x : u) {
    m += " event '" + x.event + "' of unit " + units_text(x.units) + " (" + fmt(x.count) +
         " counted);";
    if (std::find(kinds.begin(), kinds.end(), x.kind) == kinds.end()) kinds.push_back(x.kind);
  }
  for (const std::string& k : kinds) {
    std::vector<std::string> events;
    for (const Unpriced& x : u)
      if (x.kind == k && std::find(events.begin(), events.end(), x.stat) == events.end())
        events.push_back(x.stat);
    m += " " + what_to_add(t, k, events) + ".";
  }
  throw ConfigError(m);
}

void check_energy_declared(const EnergyTable& t, const Json& declared, const ConfigNode* platform) {
  check_structure_stats(t, declared);
  const std::vector<Unpriced> u = find_unpriced(t, declared, true);
  if (u.empty()) return;
  throw_unclassified(u);
  std::string table_at = t.path;
  if (const ConfigNode* e = platform ? platform->find("energy") : nullptr)
    if (const ConfigNode* n = e->find("table")) table_at += " (energy.table, " + n->where() + ")";
  std::vector<std::string> kinds;
  for (const Unpriced& x : u)
    if (std::find(kinds.begin(), kinds.end(), x.kind) == kinds.end()) kinds.push_back(x.kind);
  std::string m;
  for (const std::string& k : kinds) {
    std::vector<std::string> events, units;
    std::string quoted;
    for (const Unpriced& x : u)
      if (x.kind == k) {
        if (std::find(events.begin(), events.end(), x.stat) == events.end())
          events.push_back(x.stat);
        quoted += (quoted.empty() ? "'" : ", '") + x.event + "'";
        for (const std::string& g : x.units)
          if (std::find(units.begin(), units.end(), g) == units.end()) units.push_back(g);
      }
    const ConfigNode* key = platform ? platform->find(k) : nullptr;
    m += (m.empty() ? "" : "; ") + (key ? key->where() + ": " + k + ": " : std::string()) +
         "the platform's unit " + units_text(units) + " counts energy event" +
         (events.size() > 1 ? "s " : " ") + quoted + " that its energy table " + table_at +
         " does not price; " + what_to_add(t, k, events);
  }
  throw ConfigError(m);
}

double energy_identity_total(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf) {
  check_inputs(stats, pf);
  const std::vector<EnergyPrice> prices = energy_prices(t, pf);
  double total = 0;
  // Dynamic: count x price, for every priced statistic of every group.
  for (auto g = stats.begin(); g != stats.end(); ++g) {
    if (!g->is_object()) continue;
    const std::string kind = energy_group_kind(g.key(), &t);
    for (const EnergyPrice& p : prices)
      if (p.kind == kind)
        if (auto st = g->find(p.stat); st != g->end() && is_stat(*st))
          total += count_of(*st, p.label) * p.pj;
  }
  return total + energy_identity_static(t, stats, pf);
}

double energy_identity_static(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf) {
  check_inputs(stats, pf);
  const double cycles = sm_cycles(stats);
  const double slice_mw =
      t.bank_leakage_mw * pf.bank_rows * (kRegBytes / pf.bank_slices) / t.bank_bytes;
  double total = 0;
  // Every slice of a bank leaks for every cycle it is not gated; a structure leaks per group
  // for the whole run; the SM scope adds its static power per SM.
  for (auto g = stats.begin(); g != stats.end(); ++g) {
    if (!g->is_object()) continue;
    const std::string kind = energy_group_kind(g.key(), &t);
    if (kind == "bank")
      total +=
          (pf.bank_slices * cycles - count_of_or0(*g, "gated_cycles")) / pf.clock_ghz * slice_mw;
    for (const EnergyStructure& s : t.structures)
      if (s.name == kind) total += s.leakage_mw * cycles / pf.clock_ghz;
  }
  return total + static_outside_rf(t, stats, pf);
}

void check_energy_identity(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf,
                           const Json& report) {
  const double want = energy_identity_total(t, stats, pf);
  const double total = report.at("total_energy_pj").get<double>();
  double sum = 0;
  for (auto& [k, v] : report.at("breakdown").items()) sum += v.get<double>();
  const double parts = report.at("sm_energy_pj").get<double>() +
                       report.at("uncore_energy_pj").get<double>() +
                       report.at("memory_energy_pj").get<double>();
  const double stat = report.at("static_energy_pj").get<double>();
  const double dyn_stat = report.at("dynamic_energy_pj").get<double>() + stat;
  auto broken = [&](const std::string& what, double a, double b) {
    throw std::runtime_error(
        "energy identity broken (" + t.path + "): " + what + ": " + fmt17(a) + " pJ vs " +
        fmt17(b) + " pJ, relative difference " +
        fmt(std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b))) +
        " > 1e-9; the report's breakdown does not follow the table (platform/energy.cpp)");
  };
  if (!same_energy(total, want))
    broken("total_energy_pj vs the sum over events of count x price plus leakage", total, want);
  if (!same_energy(total, sum)) broken("total_energy_pj vs the sum of the breakdown", total, sum);
  if (!same_energy(total, parts))
    broken("total_energy_pj vs sm_energy_pj + uncore_energy_pj + memory_energy_pj", total, parts);
  const double want_static = energy_identity_static(t, stats, pf);
  if (!same_energy(stat, want_static))
    broken("static_energy_pj vs the sum of the leakage and static terms", stat, want_static);
  if (!same_energy(total, dyn_stat))
    broken("total_energy_pj vs dynamic_energy_pj + static_energy_pj", total, dyn_stat);
}

namespace {

// The SM scope's entries: static power and `pipeline:` (component -> unit kind -> statistic ->
// pJ per count, or -> label -> pJ for a labelled vector). Only Scope events may be priced
// there (every other event has its fixed entry or structure). One event may be priced by
// several components (an issued instruction is fetched, decoded and issued), each its share.
// A register-file-scope table has none of these keys.
void parse_sm_scope(EnergyTable& t, Params& top, ConfigNode& root) {
  const bool sm = t.scope == EnergyScope::Sm;
  if (!sm) {
    for (const char* k : {"pipeline", "sm_static_mw", "uncore_static_mw"})
      if (root.find(k))
        top.fail(k, "belongs to a table of scope sm; this table's scope is register-file "
                    "(add scope: sm, docs/energy.md \"Scopes\")");
    return;
  }
  t.sm_static_mw = required(top, root, "sm_static_mw",
                            "static power of one SM outside its register banks, mW", kMaxMw);
  t.uncore_static_mw = required(top, root, "uncore_static_mw",
                                "one SM's share of the static power outside the SMs, mW", kMaxMw);
  if (!root.find("pipeline"))
    top.fail("pipeline", "missing required entry for scope sm; expected a map of component (" +
                             pipeline_components_text() + ") -> unit kind -> statistic -> pJ");
  Params& pl = top.sub("pipeline", "SM scope: component -> unit kind -> statistic -> pJ");
  for (const std::string& name : pl.node()->keys()) {
    const PipelineComponent* pc = nullptr;
    for (const PipelineComponent& c : kPipelineComponents)
      if (name == c.name) pc = &c;
    if (!pc)
      pl.fail(name,
              "unknown component '" + name + "'; expected one of " + pipeline_components_text());
    EnergyPipelineComponent comp{name, pc->uncore, {}};
    Params& cp = pl.sub(name, pc->what);
    if (!cp.node() || cp.node()->kind != ConfigNode::Kind::Map)
      pl.fail(name, "expected a map of unit kind -> statistic -> pJ per count");
    for (const std::string& kind : cp.node()->keys()) {
      Params& kp = cp.sub(kind, "statistics of unit kind '" + kind + "'");
      if (!kp.node() || kp.node()->kind != ConfigNode::Kind::Map)
        cp.fail(kind, "expected a map of statistic -> pJ per count");
      for (const std::string& stat : kp.node()->keys()) {
        ConfigNode* v = kp.node()->find(stat);
        std::vector<std::string> labels{""}; // "" = the whole statistic
        Params* lp = nullptr;
        if (v->kind == ConfigNode::Kind::Map) {
          lp = &kp.sub(stat, "labels of vector statistic '" + stat + "'");
          labels = v->keys();
        }
        for (const std::string& label : labels) {
          const std::string key = kind + "." + stat + (label.empty() ? "" : "[" + label + "]");
          bool scope_event = false;
          for (const EnergyStatClass& c : kEnergyStats)
            scope_event = scope_event || (kind == c.kind && stat == c.stat && label == c.label &&
                                          c.role == R::Scope);
          Params& owner = lp ? *lp : kp;
          const std::string at = label.empty() ? stat : label;
          if (!scope_event)
            owner.fail(at, "'" + key +
                               "' is not an event of the SM scope (a fixed entry or a "
                               "structure prices every other event); expected one of " +
                               scope_events_text());
          const double pj = owner.get_double(at, 0, "pJ per count of " + key, 0, kMaxPj);
          comp.events.push_back({kind, stat, label, pj});
        }
      }
    }
    t.pipeline.push_back(std::move(comp));
  }
}

} // namespace

EnergyTable parse_energy_table(ConfigNode& root, const std::string& path) {
  Params top(&root, "");
  EnergyTable t;
  t.path = path;
  t.name = top.get_string("name", fs::path(path).stem().string(), "table name");
  top.get_string("source", "", "where the numbers come from");
  top.get_string("technology", "", "process node and voltage the numbers are for");
  const std::string scope =
      top.get_choice("scope", "register-file",
                     "what the table prices: register-file (the register file, functional units "
                     "and memory hierarchy) or sm (the SM as GPUWattch scopes it; docs/energy.md)",
                     {"register-file", "sm"});
  t.scope = scope == "sm" ? EnergyScope::Sm : EnergyScope::RegisterFile;

  t.bank_read_pj_per_16B = required(top, root, "bank_read_pj_per_16B",
                                    "pJ per 16 B (128-bit) slice read of a register bank", kMaxPj);
  t.bank_write_pj_per_16B =
      required(top, root, "bank_write_pj_per_16B",
               "pJ per 16 B (128-bit) slice write of a register bank", kMaxPj);
  t.bank_leakage_mw =
      required(top, root, "bank_leakage_mw", "leakage of one bank of bank_bytes, mW", kMaxMw);
  t.bank_bytes = required(top, root, "bank_bytes",
                          "capacity of the bank the access and leakage figures are for", 1e9);
  if (t.bank_bytes <= 0) top.fail("bank_bytes", "must be > 0 (bank capacity in bytes)");

  // The wire energy in the unit its source quotes: per 128 or per 32 bits.
  const bool w128 = root.find("wire_pj_per_mm_per_128b") != nullptr;
  const bool w32 = root.find("wire_pj_per_mm_per_32b") != nullptr;
  if (w128 && w32)
    top.fail("wire_pj_per_mm_per_32b", "give one of wire_pj_per_mm_per_128b and "
                                       "wire_pj_per_mm_per_32b, not both");
  if (w32)
    t.wire_pj_per_mm_per_byte =
        top.get_double("wire_pj_per_mm_per_32b", 0, "wire pJ per mm per 32-bit word", 0, kMaxPj) /
        4;
  else
    t.wire_pj_per_mm_per_byte =
        required(top, root, "wire_pj_per_mm_per_128b",
                 "wire pJ per mm per 128 bits (or give wire_pj_per_mm_per_32b)", kMaxPj) /
        16;
  t.wire_mm = required(top, root, "wire_mm", "distance from the banks to the collectors, mm", 100);

  t.collector_write_pj = required(top, root, "collector_write_pj_per_operand",
                                  "pJ per operand write into a collector", kMaxPj);

  for (const char* pipe : kPipes) {
    const std::string key = std::string("fu_") + pipe + "_pj_per_lane_op";
    t.fu_pj_per_lane_op.emplace_back(
        pipe, required(top, root, key,
                       std::string("pJ per lane operation of the ") + pipe + " pipe", kMaxPj));
  }
  t.l1_access_pj = required(top, root, "l1_access_pj_per_request",
                            "pJ per L1 request (one line access: read, write or atomic)", kMaxPj);
  t.l1_fill_pj_per_byte =
      required(top, root, "l1_fill_pj_per_byte", "pJ per byte filled into the L1", kMaxPj);
  t.l2_access_pj =
      required(top, root, "l2_access_pj_per_request",
               "pJ per L2 request (one line access: read, write, atomic or write-back)", kMaxPj);
  t.l2_fill_pj_per_byte =
      required(top, root, "l2_fill_pj_per_byte", "pJ per byte filled into the L2", kMaxPj);
  t.shared_access_pj = required(top, root, "shared_access_pj_per_warp_access",
                                "pJ per warp shared-memory access (32 x 4 B)", kMaxPj);
  t.memory_pj_per_byte =
      required(top, root, "memory_pj_per_byte", "pJ per byte read or written off-chip", kMaxPj);

  // Added structures: any statistics group kind, with per-event energies.
  if (root.find("structures")) {
    Params& ss = top.sub("structures", "added structures: group kind -> per-event energies");
    if (ss.node())
      for (const std::string& name : ss.node()->keys()) {
        Params& sp = ss.sub(name, "an added structure");
        if (energy_fixed_kind(name))
          ss.fail(name, "'" + name +
                            "' is a unit the fixed entries already model; name an "
                            "added structure by its own statistics group kind");
        EnergyStructure s;
        s.name = name;
        s.where = sp.node() ? sp.node()->where() : root.where();
        s.part_of_rf = required_bool(sp, "part_of_rf", "counted in the register-file energy");
        s.leakage_mw = required(sp, root, "leakage_mw",
                                "leakage of one instance (statistics group), mW", kMaxMw);
        if (!sp.node() || !sp.node()->find("events"))
          sp.fail("events", "missing required entry; expected a map of statistic name -> pJ "
                            "per counted event");
        Params& ev = sp.sub("events", "statistic name -> pJ per counted event");
        if (!ev.node() || ev.node()->keys().empty())
          sp.fail("events", "expected a map of statistic name -> pJ per counted event");
        for (const std::string& stat : ev.node()->keys()) {
          s.events.emplace_back(
              stat, ev.get_double(stat, 0, "pJ per count of statistic '" + stat + "'", 0, kMaxPj));
          s.event_where.push_back(ev.node()->find(stat)->where());
        }
        t.structures.push_back(std::move(s));
      }
  }
  parse_sm_scope(t, top, root);
  top.check_unused();
  return t;
}

EnergyTable load_energy_table(const std::string& path) {
  if (!fs::is_regular_file(path)) throw ConfigError(path + ": cannot open energy table");
  ConfigPtr root = load_config(path);
  return parse_energy_table(*root, path);
}

std::shared_ptr<const EnergyTable> platform_energy_table(Params& top) {
  Params& e = top.sub("energy", "energy accounting (docs/energy.md)");
  const std::string name = e.get_string(
      "table", "",
      "technology table (configs/energy/*.yaml), relative to the platform file; empty: none");
  if (name.empty()) return nullptr;
  fs::path p(name);
  const ConfigNode* n = e.node() ? e.node()->find("table") : nullptr;
  if (p.is_relative() && n && n->line > 0) p = fs::path(n->file).parent_path() / p;
  if (!fs::is_regular_file(p)) {
    std::string avail;
    std::error_code ec;
    for (auto& f : fs::directory_iterator(p.parent_path().empty() ? "." : p.parent_path(), ec))
      if (f.path().extension() == ".yaml")
        avail += (avail.empty() ? "" : ", ") + f.path().filename().string();
    e.fail("table", "cannot open energy table '" + p.string() + "'" +
                        (avail.empty() ? "" : "; tables there: " + avail));
  }
  // The resolved platform (--dump-config) names the table so that it loads from anywhere.
  if (Params::fill_defaults && n) const_cast<ConfigNode*>(n)->scalar = fs::absolute(p).string();
  return std::make_shared<const EnergyTable>(load_energy_table(p.string()));
}

Json energy_report(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf) {
  check_inputs(stats, pf);
  const double cycles = sm_cycles(stats);
  check_structure_stats(t, stats);
  check_energy_priced(t, stats);
  const double ns = cycles / pf.clock_ghz; // mW x ns = pJ

  Json b = Json::object();
  // Register banks: each activated slice is one access of slice_bytes.
  const double slice_bytes = kRegBytes / pf.bank_slices;
  const double slice_leak_mw = t.bank_leakage_mw * (pf.bank_rows * slice_bytes) / t.bank_bytes;
  double rd = 0, wr = 0, leak = 0;
  for (auto& g : groups(stats, "bank")) {
    rd += stat_required(g, "slice_reads") * t.bank_read_pj_per_16B * slice_bytes / 16;
    wr += stat_required(g, "slice_writes") * t.bank_write_pj_per_16B * slice_bytes / 16;
    const double slice_cycles = pf.bank_slices * cycles;
    const double gated = stat_or(*g.second, "gated_cycles", 0);
    if (gated > slice_cycles)
      throw std::runtime_error("energy: " + g.first + ".gated_cycles (" + fmt(gated) +
                               ") exceeds slices x cycles (" + fmt(slice_cycles) + ")");
    leak += (slice_cycles - gated) / pf.clock_ghz * slice_leak_mw;
  }
  b["rf_bank_read"] = rd;
  b["rf_bank_write"] = wr;
  b["rf_bank_leakage"] = leak;

  // Malekeh: results written into the CCUs cross the wire and are collector writes.
  double ccu = 0;
  for (auto& g : groups(stats, "collector")) ccu += stat_or(*g.second, "ccu_writes", 0);
  double bytes = ccu * kRegBytes;
  for (auto& g : groups(stats, "crossbar")) bytes += stat_required(g, "bytes");
  b["rf_wire"] = bytes * t.wire_pj_per_mm_per_byte * t.wire_mm;

  double oc = ccu;
  for (auto& g : groups(stats, "collector")) oc += stat_required(g, "oc_writes");
  b["collector"] = oc * t.collector_write_pj;

  // Functional units: every lane of a warp instruction counted (active masks not counted);
  // the Affine GPU's one-lane instructions save the other 31.
  std::vector<double> fu(t.fu_pj_per_lane_op.size(), 0);
  for (auto& g : groups(stats, "exec"))
    for (auto [stat, lanes] :
         {std::pair{"instructions", kLanes}, {"affine_instructions", 1 - kLanes}}) {
      auto it = g.second->find(stat);
      if (it == g.second->end() && lanes < 0) continue; // optional
      if (it == g.second->end() || !it->contains("values"))
        throw std::runtime_error("energy: statistics group '" + g.first + "' has no vector '" +
                                 stat + "'");
      const Json& values = (*it)["values"];
      const Json labels = it->contains("labels") ? (*it)["labels"] : Json::array();
      for (size_t i = 0; i < values.size(); ++i) {
        const std::string label = i < labels.size() ? labels[i].get<std::string>() : "";
        size_t k = 0;
        while (k < fu.size() && t.fu_pj_per_lane_op[k].first != label) ++k;
        if (k == fu.size())
          throw ConfigError(t.path + ": no fu_" + label + "_pj_per_lane_op entry for pipe '" +
                            label + "' of " + g.first + "." + stat);
        fu[k] += values[i].get<double>() * lanes * t.fu_pj_per_lane_op[k].second;
      }
    }
  for (size_t k = 0; k < fu.size(); ++k) b["fu_" + t.fu_pj_per_lane_op[k].first] = fu[k];

  double l1 = 0;
  for (auto& g : groups(stats, "l1"))
    l1 += (stat_required(g, "reads") + stat_required(g, "writes") +
           stat_or(*g.second, "atomics", 0)) *
              t.l1_access_pj +
          stat_or(*g.second, "bytes_from_memory", 0) * t.l1_fill_pj_per_byte;
  b["l1"] = l1;

  double l2 = 0;
  for (auto& g : groups(stats, "l2"))
    l2 += (stat_required(g, "reads") + stat_required(g, "writes") + stat_required(g, "atomics") +
           stat_required(g, "writebacks")) *
              t.l2_access_pj +
          stat_required(g, "bytes_from_memory") * t.l2_fill_pj_per_byte;
  b["l2"] = l2;

  double shared = 0;
  for (auto& g : groups(stats, "lsu")) {
    double n = 0;
    if (stat_label(*g.second, "instructions", "shared", n)) shared += n;
  }
  b["shared_memory"] = shared * t.shared_access_pj;

  double mem = 0;
  for (auto& g : groups(stats, "memory"))
    mem += stat_required(g, "bytes_read") + stat_required(g, "bytes_written");
  b["memory"] = mem * t.memory_pj_per_byte;

  double rf_dyn = rd + wr + b["rf_wire"].get<double>() + b["collector"].get<double>();
  double rf_leak = leak;
  for (const EnergyStructure& s : t.structures) {
    const auto gs = groups(stats, s.name);
    double dyn = 0;
    for (const auto& [stat, pj] : s.events)
      for (auto& g : gs) {
        double v = 0;
        if (stat_value(*g.second, stat, v)) dyn += v * pj;
      }
    const double sleak = gs.size() * s.leakage_mw * ns;
    b[s.name] = dyn;
    b[s.name + "_leakage"] = sleak;
    if (s.part_of_rf) {
      rf_dyn += dyn;
      rf_leak += sleak;
    }
  }

  // Static: every leakage term so far, and the SM scope's static power below.
  double stat = leak;
  for (const EnergyStructure& s : t.structures) stat += b[s.name + "_leakage"].get<double>();

  // The SM scope: its pipeline components, and the static power outside the banks. The L2,
  // the interconnect and their static power are outside the SM (uncore).
  double uncore = 0;
  if (t.scope == EnergyScope::Sm) {
    for (const EnergyPipelineComponent& c : t.pipeline) {
      double e = 0;
      for (const EnergyPipelineEvent& ev : c.events)
        for (auto& g : groups(stats, ev.kind)) {
          double n = 0;
          if (ev.label.empty() ? stat_value(*g.second, ev.stat, n)
                               : stat_label(*g.second, ev.stat, ev.label, n))
            e += n * ev.pj;
        }
      b[c.name] = e;
      if (c.uncore) uncore += e;
    }
    const double sms = sm_groups(stats);
    b["sm_static"] = t.sm_static_mw * sms * ns;
    b["uncore_static"] = t.uncore_static_mw * sms * ns;
    stat += b["sm_static"].get<double>() + b["uncore_static"].get<double>();
    uncore += b["l2"].get<double>() + b["uncore_static"].get<double>();
  }

  double total = 0;
  for (auto& [k, v] : b.items()) total += v.get<double>();
  const double memory = b["memory"].get<double>();
  Json out;
  out["table"] = t.name;
  out["scope"] = t.scope == EnergyScope::Sm ? "sm" : "register-file";
  out["rf_dynamic_energy_pj"] = rf_dyn;
  out["rf_leakage_energy_pj"] = rf_leak;
  out["sm_energy_pj"] = total - memory - uncore;
  out["uncore_energy_pj"] = uncore;
  out["memory_energy_pj"] = memory;
  out["dynamic_energy_pj"] = total - stat;
  out["static_energy_pj"] = stat;
  out["total_energy_pj"] = total;
  out["breakdown"] = std::move(b);
  check_energy_identity(t, stats, pf, out);
  return out;
}

Json energy_report(const std::string& table_path, const Json& stats, const EnergyPlatform& pf) {
  return energy_report(load_energy_table(table_path), stats, pf);
}

} // namespace gpurf
