#include "gpurf/platform/check/identities.h"

#include "gpurf/platform/stats.h"

#include <sstream>

namespace gpurf {

bool has_kind(const nlohmann::ordered_json& stats, const std::string& kind) {
  return has_stat(stats, kind, "");
}

bool has_stat(const nlohmann::ordered_json& stats, const std::string& kind,
              const std::string& stat) {
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), kind) &&
        (stat.empty() || it.value().contains(stat)))
      return true;
  return false;
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
  auto sum = [&](const char* kind, const char* stat) { return sum_stat(st, kind, stat); };
  const double retired = sum_stat(st, "sm", "warp_instructions");

  // Injected instructions (W-C's dummy MOVs) go through the pipeline like any other; the
  // program's warp instructions do not count them.
  const double movs = sum_stat(st, "sm", "movs_retired");
  if (has_stat(st, "sm", "movs_injected"))
    equal("dummy MOVs injected = retired",
          {{"sm.movs_injected", sum_stat(st, "sm", "movs_injected")}, {"sm.movs_retired", movs}});
  // WIR: reused instructions bypass the collectors and the pipes.
  const double reused = sum("allocator", "reuse_hits");
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
      stat_value(*sm, "cycles", cycles);
    auto one = [&](const char* stat) {
      double v = 0;
      stat_value(it.value(), stat, v);
      return v;
    };
    const std::string what = "every cycle of " + g + " issued or stalled for a reason";
    equal(what.c_str(),
          {{"active_cycles + stall_cycles", one("active_cycles") + one("stall_cycles")},
           {"sm.cycles", cycles}});
    if (it.value().contains("cycles_by_state")) {
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
  const double affine_saved_r = sum("bank", "affine_reads") * (slices - 1);
  const double affine_saved_w = sum("bank", "affine_writes") * (slices - 1);
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
  if (has_stat(st, "crossbar", "slice_transfers")) // CMRC's split crossbar: one per slice
    equal("slice crossbar transfers = slices read",
          {{"crossbar.slice_transfers", sum("crossbar", "slice_transfers")},
           {"granted read slices", double(e.bank_slice_reads)}});
  equal("operands into collectors = operands read",
        {{"collector.oc_writes + oc_coalesced_operands + ccu_hits",
          sum("collector", "oc_writes") + sum("collector", "oc_coalesced_operands") +
              sum("collector", "ccu_hits")},
         {"arrival events", double(e.arrivals)},
         {"bank reads + RFC hits + CCU hits", double(e.bank_reads + e.rfc_reads + e.ccu_reads)}});
  // Malekeh's caching collectors: every source operand a CT hit or a bank read; the results
  // the arbiter offers are written, lose port D or meet a locked entry; warp changes seen
  // alike by the CCUs and the checker.
  if (has_stat(st, "collector", "ccu_hits")) {
    equal("Malekeh: source operands = CCU hits + bank reads requested",
          {{"collector.source_operands", sum("collector", "source_operands")},
           {"collector.ccu_hits + reads_requested",
            sum("collector", "ccu_hits") + sum("collector", "reads_requested")}});
    equal("Malekeh: CCU hits = CCU hit events",
          {{"collector.ccu_hits", sum("collector", "ccu_hits")},
           {"CCU hit events", double(e.ccu_reads)}});
    equal("Malekeh: CCU writes = near results cached = CCU write events",
          {{"collector.ccu_writes", sum("collector", "ccu_writes")},
           {"arbiter.ccu_near_results - ccu_write_port_lost - ccu_write_locked",
            sum("arbiter", "ccu_near_results") - sum("collector", "ccu_write_port_lost") -
                sum("collector", "ccu_write_locked")},
           {"CCU write events", double(e.ccu_writes)}});
    equal("Malekeh: far results squashed = squashed results seen by the CCUs",
          {{"arbiter.ccu_squashed_results", sum("arbiter", "ccu_squashed_results")},
           {"collector.ccu_writes_squashed", sum("collector", "ccu_writes_squashed")}});
    equal("Malekeh: warp changes (each flushes once) = warp changes seen",
          {{"collector.ccu_warp_changes", sum("collector", "ccu_warp_changes")},
           {"allocation events to another warp", double(e.ccu_warp_changes)}});
  }
  if (has_stat(st, "collector", "operands_forwarded"))
    equal("operands forwarded = forwarded arrivals",
          {{"collector.operands_forwarded", sum("collector", "operands_forwarded")},
           {"forwarded arrival events", double(e.forwarded)}});
  // Warped-Compression: every register is written and read in one stored form; the banks
  // activate exactly that form's slices (1, 3, 5 or 8). The form is stored by the writeback,
  // or by the arbiter when the compressors sit at the MRF write port (behind an RFC).
  const bool wc_wb = has_stat(st, "writeback", "stored_forms");
  if (wc_wb || has_stat(st, "arbiter", "stored_forms")) {
    const char* store = wc_wb ? "writeback" : "arbiter";
    const std::vector<double> slices_of = {1, 3, 5, 8}, compressed = {1, 1, 1, 0};
    const std::vector<double> one(4, 1.0);
    auto weighted = [&](const char* kind, const char* stat, const std::vector<double>& w) {
      double s = 0;
      for (auto it = st.begin(); it != st.end(); ++it)
        if (it.value().is_object() && group_of_kind(it.key(), kind) && it.value().contains(stat))
          for (size_t k = 0; k < w.size() && k < it.value()[stat]["values"].size(); ++k)
            s += w[k] * it.value()[stat]["values"][k].get<double>();
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
          sum("writeback", "register_writes") + sum("writeback", "shared_writes") +
              sum("writeback", "reused_results")},
         {"producer write and remap events", double(e.arch_writes)}});
  if (has_stat(st, "writeback", "verify_reads")) {
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
    if (has_stat(st, "allocator", "reuse_skipped"))
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
  const bool l2 = has_stat(st, "l2", "reads");
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
  if (has_stat(st, "memory", "bytes_read")) {
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
  } else {
    equal("no RFC: every result is one bank write (WIR: or a remap)",
          {{"bank write events + remap events", double(e.bank_writes + e.remaps)},
           {"producer write events", double(e.arch_writes)}});
  }
  return bad;
}

} // namespace gpurf
