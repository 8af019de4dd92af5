#include "gpurf/platform/check/identities.h"

#include "gpurf/platform/stats.h"

#include <algorithm>
#include <mutex>
#include <sstream>

namespace gpurf {

bool has_kind(const nlohmann::ordered_json& stats, const std::string& kind) {
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), kind)) return true;
  return false;
}

const std::string& group_impl(const nlohmann::ordered_json& group) {
  static const std::string none;
  auto u = group.find("_unit");
  if (u == group.end() || !u->is_object()) return none;
  auto i = u->find("impl");
  return i != u->end() && i->is_string() ? i->get_ref<const std::string&>() : none;
}

bool has_impl(const nlohmann::ordered_json& stats, const std::string& kind,
              const std::string& impl) {
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), kind) && group_impl(it.value()) == impl)
      return true;
  return false;
}

namespace {
std::mutex g_reads_mutex;
std::set<std::pair<std::string, std::string>> g_reads;
void record_identity_reads(const std::set<std::pair<std::string, std::string>>& r) {
  std::lock_guard<std::mutex> lock(g_reads_mutex);
  g_reads.insert(r.begin(), r.end());
}
} // namespace

std::set<std::pair<std::string, std::string>> identity_reads() {
  std::lock_guard<std::mutex> lock(g_reads_mutex);
  return g_reads;
}

// Every statistic no identity reads, with the reason. `gap`: it feeds the energy or a
// paper's headline and should have an identity (docs/checks.md lists these as open).
const std::vector<UnwatchedStat>& unwatched_statistics() {
  static const std::vector<UnwatchedStat> list = {
      // Stalls, waits and occupancy: sums over cycles of a unit's own state, which no other
      // unit or checker event counts.
      {"allocator", "full", "refused allocation attempts (stalls)"},
      // The simulator's own check, no hardware and no energy: a source named twice by one
      // instruction is read once (reads_requested) and checked twice.
      {"collector", "operands_checked",
       "the value check's own count (a repeated source is read "
       "once, checked twice)"},
      {"allocator", "occupied_collector_cycles", "occupancy: collector-cycles bound"},
      {"allocator", "refusals", "Malekeh: refused allocation attempts by reason (stalls)"},
      {"allocator", "stage_full", "WIR: refused issue attempts (stalls)"},
      {"allocator", "collector_wait_cycles", "WIR: stall cycles"},
      {"arbiter", "conflicts",
       "request-cycles spent waiting, by kind (the checker sees grants, not refusals)"},
      {"arbiter", "compressor_wait_cycles", "W-C at the MRF port: stalls"},
      {"collector", "dispatch_stall_cycles", "stall cycles"},
      {"crossbar", "decompressor_wait_cycles", "W-C: stalls"},
      {"exec", "busy_cycles", "occupancy: unit-cycles reserved"},
      {"l1", "mshr_full_stalls", "requests refused for want of an MSHR (stalls)"},
      {"l2", "bank_conflict_cycles", "waits"},
      {"l2", "mshr_wait_cycles", "waits"},
      {"l2", "deferred_requests", "AT: waits for an MSHR"},
      {"lsu", "busy_cycles", "occupancy"},
      {"lsu", "stall_cycles", "refused dispatch attempts (stalls)"},
      {"lsu", "l1_busy_cycles", "L1 accesses refused and retried (stalls)"},
      {"lsu", "wb_busy_cycles", "stalls"},
      {"lsu", "latency_total", "a sum of dispatch-to-ready latencies"},
      {"memory", "busy_cycles", "occupancy"},
      {"memory", "queue_cycles", "waits"},
      {"memory_port", "waited_cycles", "waits"},
      {"memory_port", "backpressure_waits", "waits"},
      {"rfc", "eviction_waits", "waits"},
      {"rfc", "write_port_stall_cycles", "stalls"},
      {"writeback", "port_stall_cycles", "stalls"},
      {"writeback", "order_stall_cycles", "stalls"},
      {"writeback", "compressor_wait_cycles", "W-C: stalls"},
      {"writeback", "low_register_cycles", "WIR: stall cycles"},
      // Occupancy computed at a launch from the kernel's resources.
      {"sm", "resident_warps", "occupancy at launch"},
      {"sm", "resident_ctas", "occupancy at launch"},
      {"sm", "cta_limit", "occupancy limits at launch"},
      // Outcomes that no second unit and no checker event sees; the totals they split are
      // watched.
      {"l1", "write_hits", "lines of writes found cached (a write-through L1 allocates nothing)"},
      {"l2", "write_hits", "lines of writes by outcome: no other count of the lines writes cover"},
      {"l2", "write_misses",
       "lines of writes by outcome: no other count of the lines writes cover"},
      {"l2", "write_fetches",
       "fills of partial write misses: their bytes are in bytes_from_memory"},
      {"memory", "reads", "transactions: the bytes they move are watched (bytes_read)"},
      {"rfc", "dead_elided", "dead values dropped without an access"},
      {"rfc", "exit_dropped", "values of finished warps dropped without an access"},
      {"rfc", "flush_writebacks", "the part of rfc.writebacks a deactivation caused"},
      {"rfc", "flushes", "deactivations that flushed; their write-backs are in rfc.writebacks"},
      {"collector", "ccu_invalidations", "Malekeh: valid bits cleared by bank writes"},
      {"collector", "ccu_flushes", "Malekeh: tables cleared at a warp change"},
      {"collector", "ccu_flushed_entries", "Malekeh: entries lost to flushes"},
      {"collector", "ccu_dead_tables", "Malekeh: tables whose warp had finished"},
      {"collector", "ccu_evictions", "Malekeh: entries replaced"},
      {"writeback", "divergent_full_writes", "CMRC: the part of width_writes stored whole"},
      {"writeback", "dedicated_writes", "WIR: bank writes by kind (the bank writes are watched)"},
      {"writeback", "in_place_writes", "WIR: bank writes by kind (the bank writes are watched)"},
      {"writeback", "reuse_block_drops", "WIR: reuse-buffer valid bits cleared"},
      {"writeback", "reuse_launch_drops", "WIR: reuse-buffer valid bits cleared"},
      {"allocator", "reuse_pending_waits", "WIR: pending-retry queue entries"},
      {"allocator", "reuse_pending_hits", "WIR: outcomes of pending retries"},
      {"allocator", "reused_sources",
       "WIR: operands never read; tests/e2e/ptx_suite_test.cpp holds operands checked + "
       "reused_sources to the front-end's operands"},
      // Modern core (collector fixed_window, scheduler control_bits; docs/modern-core.md).
      {"collector", "rfc_misses", "modern core: operand-slot look-ups that missed (a hit rate)"},
      {"collector", "rfc_fills", "modern core: values the reuse bits cached (tag events)"},
      {"collector", "static_instructions", "modern core: distinct pcs, a static count"},
      {"collector", "static_reuse_instructions", "modern core: a static count (Table 6)"},
      {"scheduler", "stall_count_waits", "modern core: looks at a held warp (stalls)"},
      {"scheduler", "dependence_counter_waits", "modern core: looks at a held warp (stalls)"},
      {"memory_port", "transactions", "protocol: the memory counts what it serves"},
      {"memory_port", "requests", "protocol: the memory counts what it serves"},
      {"memory_port", "dmi_accesses", "protocol"},
      {"memory_port", "dmi_grants", "protocol"},
      {"memory_port", "dmi_invalidations", "protocol"},
      {"memory_port", "error_responses", "protocol (an error stops the run)"},
      // Open: they feed the energy or a paper's headline, and no independent event counts them
      // yet.
      {"bank", "gated_cycles",
       "W-C: leakage time base of power gating; the checker models wake-ups, not gated "
       "slice-cycles",
       true},
      {"exec", "affine_instructions",
       "Affine GPU: decided from the operand values, which the checker does not see", true},
      {"lsu", "shared_bank_conflict_cycles",
       "from the lanes' shared addresses, which no other unit sees", true},
      {"arbiter", "unpaired", "CMRC: reads the coalescing search left alone, by reason", true},
      {"writeback", "design_space_wins",
       "W-C Fig. 5 (design_space: true): a hypothetical choice, stored nowhere", true},
      {"writeback", "vsb_misses", "WIR: VSB lookups that missed; retried lookups count again",
       true},
      {"rename", "reads", "WIR: renamed sources (instruction sources, with repeats)", true},
      {"reuse_buffer", "lookups", "WIR: reuse-buffer structure events", true},
      {"reuse_buffer", "inserts", "WIR: reuse-buffer structure events", true},
      {"hash", "hashes", "WIR: H3 hashes of results (retried writes hash again)", true},
      {"vsb", "lookups", "WIR: VSB structure events (retried writes look up again)", true},
      {"vsb", "inserts", "WIR: VSB structure events", true},
      {"reg_allocator", "allocations", "WIR: physical-register allocator events", true},
      {"reg_allocator", "frees", "WIR: physical-register allocator events", true},
      {"refcount", "increments", "WIR: reference-count events", true},
      {"refcount", "decrements", "WIR: reference-count events", true},
  };
  return list;
}

std::vector<std::string> check_identities(const nlohmann::ordered_json& st, const EventCounts& e,
                                          unsigned slices) {
  std::vector<std::string> bad;
  // Each identity: named terms that must all be equal.
  using Term = std::pair<std::string, double>;
  auto equal = [&](const char* what, std::vector<Term> terms) {
    for (const Term& t : terms)
      if (t.second != terms[0].second) {
        std::ostringstream m;
        m << what << ":";
        for (const Term& x : terms) m << " " << x.first << " = " << uint64_t(x.second) << ";";
        std::string s = m.str();
        s.pop_back();
        bad.push_back(s);
        return;
      }
  };
  // Every count an identity reads goes through `sum`, `read_at` or `element` (recorded:
  // identity_reads()). Each throws UnknownStatistic when a group it reads does not declare
  // the statistic: a renamed counter stops the run, it never sums to 0. A block that only
  // some designs have is gated on their unit kind or `impl:` (has_kind, has_impl), never on
  // the statistic being there.
  std::set<std::pair<std::string, std::string>> reads;
  // The groups of kind `kind` (of implementation `impl`, "" = any).
  auto groups = [&](const char* kind, const std::string& impl) {
    std::vector<std::pair<std::string, const nlohmann::ordered_json*>> out;
    for (auto it = st.begin(); it != st.end(); ++it)
      if (it.value().is_object() && group_of_kind(it.key(), kind) &&
          (impl.empty() || group_impl(it.value()) == impl))
        out.emplace_back(it.key(), &it.value());
    return out;
  };
  auto stat_of = [&](const std::string& path, const nlohmann::ordered_json& group,
                     const char* stat) -> const nlohmann::ordered_json& {
    auto s = group.find(stat);
    if (s == group.end() || !s->is_object()) {
      std::string have;
      for (auto it = group.begin(); it != group.end(); ++it)
        if (it.key()[0] != '_') have += (have.empty() ? "" : ", ") + it.key();
      const std::string& impl = group_impl(group);
      throw UnknownStatistic("identities (platform/check/identities.cpp) read statistic '" +
                             std::string(stat) + "' of " + path +
                             (impl.empty() ? "" : " (impl " + impl + ")") +
                             ", which declares no such statistic (it has: " + have +
                             "); rename a counter's readers with it");
    }
    return *s;
  };
  // One group's count.
  auto read_at = [&](const char* kind, const std::string& path, const nlohmann::ordered_json& group,
                     const char* stat) {
    reads.emplace(kind, stat);
    stat_of(path, group, stat);
    double v = 0;
    stat_value(group, stat, v);
    return v;
  };
  // Sum over every group of kind `kind` (of implementation `impl`, "" = any).
  auto sum_of = [&](const char* kind, const std::string& impl, const char* stat) {
    reads.emplace(kind, stat);
    double s = 0;
    for (auto& [path, g] : groups(kind, impl)) s += read_at(kind, path, *g, stat);
    return s;
  };
  auto sum = [&](const char* kind, const char* stat) { return sum_of(kind, "", stat); };
  // Element `i` of a vector statistic, summed over the groups of its kind.
  auto element = [&](const char* kind, const char* stat, size_t i) {
    reads.emplace(kind, stat);
    double s = 0;
    for (auto& [path, g] : groups(kind, "")) {
      const auto& v = stat_of(path, *g, stat);
      if (v.contains("values") && i < v["values"].size()) s += v["values"][i].get<double>();
    }
    return s;
  };
  auto has = [&](const char* kind, const char* impl) { return has_impl(st, kind, impl); };
  const double retired = sum("sm", "warp_instructions");

  // Injected instructions (W-C's dummy MOVs) go through the pipeline like any other; the
  // program's warp instructions do not count them.
  // W-C stores registers compressed (its writeback, or its arbiter behind an RFC): the SM
  // injects dummy MOVs (platform/sm.cpp).
  const bool wc_wb = has("writeback", "warped_compression");
  const bool wc = wc_wb || has("arbiter", "warped_compression_mrf");
  const double movs = wc ? sum("sm", "movs_retired") : 0;
  if (wc)
    equal("dummy MOVs injected = retired",
          {{"sm.movs_injected", sum("sm", "movs_injected")}, {"sm.movs_retired", movs}});
  // WIR: reused instructions bypass the collectors and the pipes.
  const double reused = sum_of("allocator", "wir", "reuse_hits");
  equal("instructions issued = dispatched + reused = retired",
        {{"scheduler.issued", sum("scheduler", "issued")},
         {"collector.dispatched + allocator.reuse_hits", sum("collector", "dispatched") + reused},
         {"writeback.retired", sum("writeback", "retired")},
         {"sm.warp_instructions + movs_retired", retired + movs},
         {"issue events", double(e.issued)},
         {"dispatch + reuse events", double(e.dispatched + e.reused)},
         {"retire events", double(e.retired)}});
  // Per scheduler: every cycle of its SM ("sm", or "sm1" of several) issued or stalled for a
  // reason (two-level: has a state).
  for (auto it = st.begin(); it != st.end(); ++it) {
    if (!it.value().is_object() || !group_of_kind(it.key(), "scheduler")) continue;
    const std::string g = it.key();
    double cycles = 0;
    if (auto sm = st.find(g.substr(0, g.find('.'))); sm != st.end())
      cycles = read_at("sm", sm.key(), *sm, "cycles");
    auto one = [&](const char* stat) { return read_at("scheduler", g, it.value(), stat); };
    const std::string what = "every cycle of " + g + " issued or stalled for a reason";
    equal(what.c_str(),
          {{"active_cycles + stall_cycles", one("active_cycles") + one("stall_cycles")},
           {"sm.cycles", cycles}});
    if (group_impl(it.value()) == "two_level") {
      const std::string w2 = "every cycle of " + g + " has a two-level state";
      equal(w2.c_str(), {{"cycles_by_state", one("cycles_by_state")}, {"sm.cycles", cycles}});
    }
  }
  // WIR's verify-reads are bank reads compared in the register file: no crossbar transfer.
  const double verify = sum("arbiter", "verify_reads_granted");
  equal("bank reads granted = performed = crossed = seen",
        {{"arbiter.reads_granted", sum("arbiter", "reads_granted")},
         {"bank.reads - arbiter.verify_reads_granted", sum("bank", "reads") - verify},
         {"crossbar.transfers", sum("crossbar", "transfers")},
         {"bank read events", double(e.bank_reads)}});
  equal("verify-reads granted = verify-read events",
        {{"arbiter.verify_reads_granted", verify}, {"verify-read events", double(e.verify_reads)}});
  equal("physical bank accesses = port cycles used",
        {{"arbiter.bank_accesses", sum("arbiter", "bank_accesses")},
         {"port cycles seen", double(e.bank_port_cycles)}});
  equal("bank writes granted = performed = seen",
        {{"arbiter.writes_granted", sum("arbiter", "writes_granted")},
         {"bank.writes", sum("bank", "writes")},
         {"bank write events", double(e.bank_writes)}});
  // The Affine GPU's tuples activate one slice of a full mask.
  const double affine_saved_r = sum_of("bank", "affine", "affine_reads") * (slices - 1);
  const double affine_saved_w = sum_of("bank", "affine", "affine_writes") * (slices - 1);
  equal("slices activated by reads = slices in the granted masks",
        {{"bank.slice_reads + (slices - 1) x affine_reads",
          sum("bank", "slice_reads") + affine_saved_r},
         {"granted read slices (+ WIR verify-reads)",
          double(e.bank_slice_reads + e.verify_slice_reads)}});
  equal("slices activated by writes = slices in the granted masks",
        {{"bank.slice_writes + (slices - 1) x affine_writes",
          sum("bank", "slice_writes") + affine_saved_w},
         {"granted write slices", double(e.bank_slice_writes)}});
  equal("crossbar bytes = slices moved x slice bytes",
        {{"crossbar.bytes", sum("crossbar", "bytes")},
         {"read slices x slice bytes", double(e.bank_slice_reads) * (128.0 / slices)}});
  if (has("crossbar", "split")) // CMRC's split crossbar: one per slice
    equal("slice crossbar transfers = slices read",
          {{"crossbar.slice_transfers", sum("crossbar", "slice_transfers")},
           {"granted read slices", double(e.bank_slice_reads)}});
  equal("operands into collectors = operands read",
        {{"collector.oc_writes + oc_coalesced_operands + ccu_hits",
          sum("collector", "oc_writes") + sum_of("collector", "cmrc", "oc_coalesced_operands") +
              sum_of("collector", "ccu", "ccu_hits")},
         {"arrival events", double(e.arrivals)},
         {"bank reads + RFC hits + CCU hits", double(e.bank_reads + e.rfc_reads + e.ccu_reads)}});
  // Malekeh's caching collectors: every source operand a CT hit or a bank read; the results
  // the arbiter offers are written, lose port D or meet a locked entry; warp changes seen
  // alike by the CCUs and the checker.
  if (has("collector", "ccu")) {
    equal("Malekeh: source operands = CCU hits + bank reads requested",
          {{"collector.source_operands", sum_of("collector", "ccu", "source_operands")},
           {"collector.ccu_hits + reads_requested",
            sum_of("collector", "ccu", "ccu_hits") + sum("collector", "reads_requested")}});
    equal("Malekeh: CCU hits = CCU hit events",
          {{"collector.ccu_hits", sum_of("collector", "ccu", "ccu_hits")},
           {"CCU hit events", double(e.ccu_reads)}});
    equal("Malekeh: CCU writes = near results cached = CCU write events",
          {{"collector.ccu_writes", sum_of("collector", "ccu", "ccu_writes")},
           {"arbiter.ccu_near_results - ccu_write_port_lost - ccu_write_locked",
            sum_of("arbiter", "malekeh", "ccu_near_results") -
                sum_of("collector", "ccu", "ccu_write_port_lost") -
                sum_of("collector", "ccu", "ccu_write_locked")},
           {"CCU write events", double(e.ccu_writes)}});
    equal("Malekeh: far results squashed = squashed results seen by the CCUs",
          {{"arbiter.ccu_squashed_results", sum_of("arbiter", "malekeh", "ccu_squashed_results")},
           {"collector.ccu_writes_squashed", sum_of("collector", "ccu", "ccu_writes_squashed")}});
    equal("Malekeh: warp changes (each flushes once) = warp changes seen",
          {{"collector.ccu_warp_changes", sum_of("collector", "ccu", "ccu_warp_changes")},
           {"allocation events to another warp", double(e.ccu_warp_changes)}});
  }
  if (has("collector", "fixed_stage"))
    equal(
        "operands forwarded = forwarded arrivals",
        {{"collector.operands_forwarded", sum_of("collector", "fixed_stage", "operands_forwarded")},
         {"forwarded arrival events", double(e.forwarded)}});
  // Modern core (fixed_window, allocate_stage): every instruction allocated is dispatched,
  // every refusal counted on both sides, bank reads and cache hits as the checker saw them;
  // its bypass as the standard collector's forwarding.
  if (has("collector", "fixed_window")) {
    equal("modern core: instructions allocated = dispatched",
          {{"collector.allocated", sum_of("collector", "fixed_window", "allocated")},
           {"collector.dispatched", sum_of("collector", "fixed_window", "dispatched")},
           {"allocator.allocations", sum_of("allocator", "allocate_stage", "allocations")}});
    equal("modern core: port conflicts = refused issues",
          {{"collector.port_conflicts", sum_of("collector", "fixed_window", "port_conflicts")},
           {"allocator.full", sum_of("allocator", "allocate_stage", "full")}});
    equal("modern core: bank reads = bank read events",
          {{"collector.bank_reads", sum_of("collector", "fixed_window", "bank_reads")},
           {"bank read events", double(e.bank_reads)}});
    equal("modern core: register-file cache hits = RFC read events",
          {{"collector.rfc_hits", sum_of("collector", "fixed_window", "rfc_hits")},
           {"RFC read events", double(e.rfc_reads)}});
    equal("operands forwarded = forwarded arrivals",
          {{"collector.operands_forwarded",
            sum_of("collector", "fixed_window", "operands_forwarded")},
           {"forwarded arrival events", double(e.forwarded)}});
  }
  // Warped-Compression: every register is written and read in one stored form; the banks
  // activate exactly that form's slices (1, 3, 5 or 8). The form is stored by the writeback,
  // or by the arbiter when the compressors sit at the MRF write port (behind an RFC).
  if (wc) {
    const char* store = wc_wb ? "writeback" : "arbiter";
    const std::vector<double> slices_of = {1, 3, 5, 8}, compressed = {1, 1, 1, 0};
    const std::vector<double> one(4, 1.0);
    auto weighted = [&](const char* kind, const char* stat, const std::vector<double>& w) {
      double s = 0;
      for (size_t k = 0; k < w.size(); ++k) s += w[k] * element(kind, stat, k);
      return s;
    };
    if (wc_wb)
      equal("W-C: registers written in a stored form = register writes = compressed + divergent",
            {{"writeback.stored_forms", weighted("writeback", "stored_forms", one)},
             {"writeback.register_writes", sum("writeback", "register_writes")},
             {"compressor.compressions + writeback.divergent_writes + mov_writes",
              sum("compressor", "compressions") + sum("writeback", "divergent_writes") +
                  sum("writeback", "mov_writes")}});
    else
      equal("W-C at the MRF port: MRF writes in a stored form = writes granted = compressed + "
            "divergent",
            {{"arbiter.stored_forms", weighted("arbiter", "stored_forms", one)},
             {"arbiter.writes_granted", sum("arbiter", "writes_granted")},
             {"compressor.compressions + arbiter.divergent_writes",
              sum("compressor", "compressions") + sum("arbiter", "divergent_writes")}});
    equal("W-C: slices written = slices of the stored forms written",
          {{"bank.slice_writes", sum("bank", "slice_writes")},
           {"stored_forms x slices", weighted(store, "stored_forms", slices_of)}});
    equal("W-C: register reads by stored form = reads granted",
          {{"arbiter.read_forms", weighted("arbiter", "read_forms", one)},
           {"arbiter.reads_granted", sum("arbiter", "reads_granted")}});
    equal("W-C: slices read = slices of the stored forms read",
          {{"bank.slice_reads", sum("bank", "slice_reads")},
           {"read_forms x slices", weighted("arbiter", "read_forms", slices_of)}});
    equal("W-C: decompressions = compressed registers read",
          {{"decompressor.decompressions", sum("decompressor", "decompressions")},
           {"read_forms <4,0> + <4,1> + <4,2>", weighted("arbiter", "read_forms", compressed)}});
  }
  // WIR: a destination is written, or remapped to a register holding its value (a verify-read
  // found it, or the instruction was reused).
  equal("results written = register writes of the writeback (+ WIR remaps)",
        {{"writeback.register_writes + shared_writes + reused_results",
          sum("writeback", "register_writes") + sum_of("writeback", "wir", "shared_writes") +
              sum_of("writeback", "wir", "reused_results")},
         {"producer write and remap events", double(e.arch_writes)}});
  if (has("writeback", "wir")) {
    equal("WIR: register-file reads granted = verify-reads + dummy MOV copies requested",
          {{"writeback.verify_reads + dummy_movs",
            sum("writeback", "verify_reads") + sum("writeback", "dummy_movs")},
           {"arbiter.verify_reads_granted", verify}});
    equal("WIR: VSB hits verified in the banks, the verify cache or not at all = shared + false "
          "matches",
          {{"writeback.verify_reads + verify_cache_hits + unverified_shares",
            sum("writeback", "verify_reads") + sum("writeback", "verify_cache_hits") +
                sum("writeback", "unverified_shares")},
           {"writeback.shared_writes + vsb_false_matches",
            sum("writeback", "shared_writes") + sum("writeback", "vsb_false_matches")}});
    if (has("allocator", "wir"))
      equal("WIR: instructions issued = reuse lookups + skipped",
            {{"scheduler.issued", sum("scheduler", "issued")},
             {"allocator.reuse_lookups + reuse_skipped",
              sum("allocator", "reuse_lookups") + sum("allocator", "reuse_skipped")}});
    equal("WIR: reuse lookups = hits + misses",
          {{"allocator.reuse_lookups", sum("allocator", "reuse_lookups")},
           {"allocator.reuse_hits + reuse_misses",
            sum("allocator", "reuse_hits") + sum("allocator", "reuse_misses")}});
    equal("WIR: reused instructions = bypassed at the writeback = reuse events",
          {{"allocator.reuse_hits", reused},
           {"writeback.bypassed", sum("writeback", "bypassed")},
           {"reuse events", double(e.reused)}});
  }
  equal("L1 requests = LSU segments",
        {{"l1.reads + writes + atomics",
          sum("l1", "reads") + sum("l1", "writes") + sum("l1", "atomics")},
         {"lsu.segments", sum("lsu", "segments")}});
  equal("L1 line reads = hits + misses + MSHR merges",
        {{"l1.line_reads", sum("l1", "line_reads")},
         {"l1.hits + misses + mshr_merges",
          sum("l1", "hits") + sum("l1", "misses") + sum("l1", "mshr_merges")}});
  // The L2 takes what the L1 sends to its memory port: line fills (one per miss),
  // write-throughs and atomics.
  const bool l2 = has_kind(st, "l2");
  if (l2) {
    equal("L2 requests = L1 misses + write-throughs + atomics",
          {{"l2.reads + writes + atomics",
            sum("l2", "reads") + sum("l2", "writes") + sum("l2", "atomics")},
           {"l1.misses + writes + atomics",
            sum("l1", "misses") + sum("l1", "writes") + sum("l1", "atomics")}});
    equal("L2 line reads = hits + misses + MSHR merges",
          {{"l2.line_reads", sum("l2", "line_reads")},
           {"l2.hits + misses + mshr_merges",
            sum("l2", "hits") + sum("l2", "misses") + sum("l2", "mshr_merges")}});
  }
  // The memory's traffic is what the cache at the memory port sent (the functional debug
  // accesses are not counted by either).
  if (has_kind(st, "memory")) {
    const char* port = l2 ? "l2" : "l1";
    const std::string from = std::string(port) + ".bytes_from_memory";
    const std::string to = std::string(port) + ".bytes_to_memory";
    equal("memory bytes read = bytes the memory port's cache read",
          {{"memory.bytes_read", sum("memory", "bytes_read")},
           {from, sum(port, "bytes_from_memory")}});
    equal("memory bytes written = bytes the memory port's cache wrote",
          {{"memory.bytes_written", sum("memory", "bytes_written")},
           {to, sum(port, "bytes_to_memory")}});
  }
  if (has_kind(st, "rfc")) {
    equal("RFC hits = RFC read events",
          {{"rfc.reads", sum("rfc", "reads")}, {"RFC read events", double(e.rfc_reads)}});
    equal("RFC lookups = hits + misses",
          {{"rfc.reads + rfc.misses", sum("rfc", "reads") + sum("rfc", "misses")},
           {"operands read", double(e.bank_reads + e.rfc_reads)}});
    equal("RFC results = allocated + bypassed",
          {{"rfc.results", sum("rfc", "results")},
           {"RFC result writes + rfc.bypass", double(e.rfc_writes) + sum("rfc", "bypass")},
           {"writeback.register_writes", sum("writeback", "register_writes")}});
    equal("MRF writes = bank writes", {{"rfc.mrf_writes", sum("rfc", "mrf_writes")},
                                       {"bank write events", double(e.bank_writes)}});
    equal("RFC write-backs = bank writes of cached values",
          {{"rfc.writebacks", sum("rfc", "writebacks")},
           {"copy write events", double(e.bank_copy_writes)}});
    // Gebhart Sec. 3.1: every result not bypassed is allocated; with allocate_sources the MRF
    // operands passing by are copied in too.
    equal("RFC writes = results allocated + source operands copied",
          {{"rfc.writes", sum("rfc", "writes")},
           {"RFC result write events + RFC fill events", double(e.rfc_writes + e.rfc_fills)}});
  } else {
    equal("no RFC: every result is one bank write (WIR: or a remap)",
          {{"bank write events + remap events", double(e.bank_writes + e.remaps)},
           {"producer write events", double(e.arch_writes)}});
  }
  // Execution: each pipe's instructions are the dispatches into it that the checker saw; the
  // MEM pipe's go to the LSU, by memory space, and every one completes.
  if (has_kind(st, "exec"))
    for (unsigned p = 0; p < kNumPipes; ++p) {
      if (Pipe(p) == Pipe::MEM) continue;
      const std::string what =
          std::string("exec instructions of pipe ") + pipe_name(Pipe(p)) + " = dispatches into it";
      equal(what.c_str(), {{"exec.instructions", element("exec", "instructions", p)},
                           {"dispatch events", double(e.by_pipe[p])}});
    }
  if (has_kind(st, "lsu")) {
    equal("LSU instructions = completed = MEM dispatches",
          {{"lsu.instructions", sum("lsu", "instructions")},
           {"lsu.completed", sum("lsu", "completed")},
           {"MEM dispatch events", double(e.by_pipe[unsigned(Pipe::MEM)])}});
    static const char* const spaces[kMemSpaces] = {"none",  "global", "shared",
                                                   "local", "param",  "const"};
    for (unsigned m = 0; m < kMemSpaces; ++m) {
      const std::string what =
          std::string("LSU instructions of space ") + spaces[m] + " = MEM dispatches of it";
      equal(what.c_str(), {{"lsu.instructions", element("lsu", "instructions", m)},
                           {"MEM dispatch events", double(e.mem_by_space[m])}});
    }
  }
  if (has_kind(st, "allocator"))
    equal("collector allocations = allocation events",
          {{"allocator.allocations", sum("allocator", "allocations")},
           {"allocation events", double(e.allocations)}});
  if (has("scheduler", "two_level")) {
    equal("two-level: activations = activation events",
          {{"scheduler.activations", sum("scheduler", "activations")},
           {"activation events", double(e.activations)}});
    equal("two-level: deactivations = deactivation events",
          {{"scheduler.deactivations", sum("scheduler", "deactivations")},
           {"deactivation events", double(e.deactivations)}});
  }
  // The SMs' memory traffic crosses the interconnect: every request the L1s send to their
  // memory side (a fill per miss, write-throughs, atomics), with its bytes.
  if (has_kind(st, "interconnect")) {
    equal("interconnect requests = L1 misses + writes + atomics",
          {{"interconnect.requests", sum("interconnect", "requests")},
           {"l1.misses + writes + atomics",
            sum("l1", "misses") + sum("l1", "writes") + sum("l1", "atomics")}});
    equal("interconnect bytes = bytes the L1s read and wrote",
          {{"interconnect.bytes", sum("interconnect", "bytes")},
           {"l1.bytes_from_memory + bytes_to_memory",
            sum("l1", "bytes_from_memory") + sum("l1", "bytes_to_memory")}});
  }
  // The cache at the memory port writes: the L2 its dirty victims and, write-through, the
  // writes it forwards; the L1 (write-through) every write.
  if (has_kind(st, "memory")) {
    if (l2)
      equal("memory writes = L2 write-backs + write-throughs",
            {{"memory.writes", sum("memory", "writes")},
             {"l2.writebacks + write_throughs",
              sum("l2", "writebacks") + sum("l2", "write_throughs")}});
    else
      equal("memory writes = L1 writes",
            {{"memory.writes", sum("memory", "writes")}, {"l1.writes", sum("l1", "writes")}});
  }
  // (The modern core's read stage requests nothing: its own block above.)
  if (has_kind(st, "collector") && !has("collector", "fixed_window")) {
    equal("operands requested from the register file = operands that came from it",
          {{"collector.reads_requested", sum("collector", "reads_requested")},
           {"collector.oc_writes + oc_coalesced_operands",
            sum("collector", "oc_writes") + sum_of("collector", "cmrc", "oc_coalesced_operands")}});
  }
  // CMRC: every operand read and every result written has one stored width.
  if (has("collector", "cmrc"))
    equal("CMRC: operands read by stored width = operands requested",
          {{"collector.width_reads", sum("collector", "width_reads")},
           {"collector.reads_requested", sum("collector", "reads_requested")}});
  if (has("writeback", "cmrc"))
    equal("CMRC: results written by stored width = register writes",
          {{"writeback.width_writes", sum("writeback", "width_writes")},
           {"writeback.register_writes", sum("writeback", "register_writes")}});
  if (has("arbiter", "coalescing") && has("collector", "cmrc"))
    equal("CMRC: reads of one instruction coalesced = operands entering with another",
          {{"arbiter.coalesced[read_read_same_inst + read_read_diff_bank]",
            element("arbiter", "coalesced", 0) + element("arbiter", "coalesced", 4)},
           {"collector.oc_coalesced_operands", sum("collector", "oc_coalesced_operands")}});
  // W-C's compression ratio (Sec. 6.1): the non-divergent writes are the compressed ones,
  // and their best forms' slices are the slices the banks wrote for them.
  if (wc_wb) {
    equal("W-C: non-divergent writes of the compression ratio = compressions",
          {{"writeback.ratio_writes[non_divergent]", element("writeback", "ratio_writes", 0)},
           {"compressor.compressions", sum("compressor", "compressions")}});
    equal("W-C: divergent writes of the compression ratio = divergent writes",
          {{"writeback.ratio_writes[divergent]", element("writeback", "ratio_writes", 1)},
           {"writeback.divergent_writes", sum("writeback", "divergent_writes")}});
    equal("W-C: slices of the compressed writes = slices written - 8 x uncompressed writes",
          {{"writeback.ratio_slices[non_divergent]", element("writeback", "ratio_slices", 0)},
           {"bank.slice_writes - 8 x (divergent_writes + mov_writes)",
            sum("bank", "slice_writes") -
                8 * (sum("writeback", "divergent_writes") + sum("writeback", "mov_writes"))}});
  }
  // WIR's tables: the rename table maps every destination written or remapped; the verify
  // cache is looked up by every verified VSB hit and filled by every verify-read.
  if (has_kind(st, "rename"))
    equal("WIR: rename-table writes = producer write and remap events",
          {{"rename.writes", sum("rename", "writes")},
           {"producer write and remap events", double(e.arch_writes)}});
  if (has_kind(st, "verify_cache")) {
    equal("WIR: verify-cache lookups = hits + verify-reads",
          {{"verify_cache.reads", sum("verify_cache", "reads")},
           {"writeback.verify_cache_hits + verify_reads",
            sum("writeback", "verify_cache_hits") + sum("writeback", "verify_reads")}});
    equal("WIR: verify-cache fills = verify-reads",
          {{"verify_cache.writes", sum("verify_cache", "writes")},
           {"writeback.verify_reads", sum("writeback", "verify_reads")}});
  }
  // W-C's power gating: a gated slice an access finds is woken, as the checker's own model of
  // the valid bits (from the bank accesses) has it. With wake_latency 0 a wake-up costs no
  // cycle, the checker has nothing to time and keeps no model: bank.wakeups is left unwatched.
  if (has("bank", "power_gated") && e.gating)
    equal("W-C: slices woken = wake-ups in the checker's gating model",
          {{"bank.wakeups", sum_of("bank", "power_gated", "wakeups")},
           {"wake-up events", double(e.wakeups)}});
  if (has_kind(st, "exec"))
    equal("instructions by latency class = instructions by pipe",
          {{"exec.class_instructions", sum("exec", "class_instructions")},
           {"exec.instructions", sum("exec", "instructions")}});
  if (has("collector", "cmrc"))
    // Against the slices read, not the split crossbar's count: the collector may sit behind
    // any crossbar (the split one's transfers are held to the slices read above).
    equal("CMRC: slices written into the collectors = slices read",
          {{"collector.oc_slice_writes", sum("collector", "oc_slice_writes")},
           {"granted read slices", double(e.bank_slice_reads)}});
  if (has("allocator", "wir"))
    equal("WIR: reuse-buffer misses by cause = misses",
          {{"allocator.reuse_miss_kinds", sum("allocator", "reuse_miss_kinds")},
           {"allocator.reuse_misses", sum("allocator", "reuse_misses")}});
  // Several SMs: the GPU's counts are its SMs'.
  if (has_kind(st, "gpu")) {
    double last = 0;
    for (auto it = st.begin(); it != st.end(); ++it)
      if (it.value().is_object() && it.key().find('.') == std::string::npos &&
          group_of_kind(it.key(), "sm"))
        last = std::max(last, read_at("sm", it.key(), it.value(), "cycles"));
    equal("GPU cycles = the last SM's cycles",
          {{"gpu.cycles", sum("gpu", "cycles")}, {"max sm.cycles", last}});
    equal("GPU warp instructions = the SMs' warp instructions",
          {{"gpu.warp_instructions", sum("gpu", "warp_instructions")},
           {"sm.warp_instructions", retired}});
  }
  record_identity_reads(reads);
  return bad;
}

} // namespace gpurf
