// WIR on PTX kernels (docs/wir.md), one simulation per process: a false VSB match that renames
// a destination to a register holding another value must stop the run at the first consumer
// (the golden check), while the verify-read catches every such match; reused instructions
// really bypass the backend; the register accounting balances.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/simulation.h"
#include "gpurf/platform/stats.h"

using namespace gpurf;

namespace {

std::string root() { return GPURF_SOURCE_DIR; }

struct WirRun {
  RunResult r;
  uint64_t stat(const std::string& kind, const std::string& name) const {
    return uint64_t(sum_stat(r.stats, kind, name));
  }
  // One labelled element of a vector statistic, summed over the groups ending in `.kind`.
  uint64_t element(const std::string& kind, const std::string& name,
                   const std::string& label) const {
    uint64_t n = 0;
    bool found = false;
    for (auto it = r.stats.begin(); it != r.stats.end(); ++it) {
      const std::string& g = it.key();
      if (g.size() < kind.size() + 1 || g.compare(g.size() - kind.size(), kind.size(), kind) ||
          g[g.size() - kind.size() - 1] != '.' || !it.value().contains(name))
        continue;
      const auto& v = it.value()[name];
      for (size_t i = 0; i < v["labels"].size(); ++i)
        if (v["labels"][i] == label) {
          n += v["values"][i].get<uint64_t>();
          found = true;
        }
    }
    EXPECT_TRUE(found) << kind << "." << name << "[" << label << "]";
    return n;
  }
};

WirRun run(const std::string& platform, const std::string& kernel,
           const std::vector<std::string>& overrides = {},
           const std::vector<std::string>& vars = {}) {
  // A suite kernel's name, or a launch (or application) file's path from the repository root.
  const bool suite = kernel.find('/') == std::string::npos;
  const LaunchSpec spec = load_launch(
      suite ? root() + "/workloads/" + kernel + ".yaml" : root() + "/" + kernel, 1, vars);
  ConfigPtr cfg = load_config(root() + "/configs/" + platform + ".yaml");
  for (const std::string& o : overrides) apply_override(*cfg, o);
  PtxFrontend fe(spec, frontend_options(*cfg));
  Simulation sim(*cfg, fe, fe.regs_per_thread());
  WirRun out{sim.run()};
  if (out.r.ok && fe.checks_outputs()) {
    EXPECT_EQ(fe.verify_outputs(), "");
  }
  return out;
}

// An 8-bit signature: collisions are frequent.
const std::vector<std::string> kWeakHash = {"allocator.hash_bits=8"};

} // namespace

TEST(Wir, VerifyReadsCatchEveryFalseMatch) {
  const WirRun x = run("wir-r", "sgemm", kWeakHash);
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.stat("writeback", "vsb_false_matches"), 0u) << "8 bits should collide";
  EXPECT_GT(x.stat("writeback", "shared_writes"), 0u);
}

TEST(Wir, AFalseMatchWithoutTheVerifyReadStopsTheRun) {
  std::vector<std::string> o = kWeakHash;
  o.push_back("allocator.verify=false");
  const WirRun x = run("wir-r", "sgemm", o);
  ASSERT_FALSE(x.r.ok);
  EXPECT_NE(x.r.error.find("operand check failed"), std::string::npos) << x.r.error;
}

TEST(Wir, ReusedInstructionsBypassTheBackend) {
  const WirRun x = run("wir-rlpv", "nn");
  ASSERT_TRUE(x.r.ok) << x.r.error;
  const uint64_t reused = x.stat("allocator", "reuse_hits");
  ASSERT_GT(reused, 0u);
  // Issued = executed (dispatched by the collectors) + reused; retired = issued.
  EXPECT_EQ(x.stat("scheduler", "issued"), x.stat("collector", "dispatched") + reused);
  EXPECT_EQ(x.stat("writeback", "bypassed"), reused);
  // Pending-retry turned some pending hits into reuses.
  EXPECT_GT(x.stat("allocator", "reuse_pending_hits"), 0u);
  // The verify cache served verify-reads without the banks.
  EXPECT_GT(x.stat("writeback", "verify_cache_hits"), 0u);
}

TEST(Wir, RegisterAccountingBalances) {
  const WirRun x = run("wir-rlpvc", "scan");
  ASSERT_TRUE(x.r.ok) << x.r.error;
  const uint64_t allocated = x.stat("reg_allocator", "allocations"),
                 freed = x.stat("reg_allocator", "frees");
  EXPECT_GE(allocated, freed);
  EXPECT_GE(x.stat("refcount", "increments") + allocated, x.stat("refcount", "decrements"));
  // Live at the end = allocated - released (the zero register and the last mappings).
  EXPECT_EQ(allocated - freed, uint64_t(sum_stat(x.r.stats, "writeback", "phys_live")));
}

// Warp 1 stores shared memory warp 0 loaded and reloads it (tests/e2e/data): its store flag
// keeps the reload from warp 0's reuse-buffer entry (the same tag); without the flag the
// golden check stops the run at the reload's consumer.
TEST(Wir, AWarpsOwnSharedStoreStopsItsLoadReuse) {
  const WirRun x = run("wir-rl", "tests/e2e/data/wir_store_reload.yaml",
                       {"frontend.regalloc=linear_scan", "frontend.schedule=none"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.stat("allocator", "reuse_lookups"), 0u);
  EXPECT_GT(x.stat("allocator", "reuse_skipped"), 0u);
}

// Warp 1 stores global memory, then loads the shared memory warp 0 loaded
// (tests/e2e/data/wir_global_store.ptx). WIR keeps one store flag per space (Sec. VI-A): a
// global store stops the warp's global loads, not its shared loads, so the load reuses warp 0's
// (the golden check confirms the value). Before, every global store set the shared flag too.
TEST(Wir, AGlobalStoreLeavesSharedLoadsReusable) {
  const WirRun x = run("wir-rl", "tests/e2e/data/wir_global_store.yaml",
                       {"frontend.regalloc=linear_scan", "frontend.schedule=none"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_EQ(x.element("allocator", "reuse_skipped", "load_after_store"), 0u);
  EXPECT_GT(x.stat("allocator", "reuse_hits"), 0u);
}

// Warp 0 loads in[] through the non-coherent path before a barrier; warp 1 passes the barrier,
// stores to out[] and loads the same in[] (tests/e2e/data/wir_readonly.ptx). ld.global.nc
// data is read-only for the kernel's lifetime, and read-only memory reuses as arithmetic does
// (Sec. VI-A, Fig. 10 i1, i2): no store flag and no barrier count apply. Before, the load was
// treated as a global load and skipped after the store.
TEST(Wir, ReadOnlyLoadsReuseAcrossBarriersAndStores) {
  const WirRun x = run("wir-rl", "tests/e2e/data/wir_readonly.yaml",
                       {"frontend.regalloc=linear_scan", "frontend.schedule=none"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_EQ(x.element("allocator", "reuse_skipped", "load_after_store"), 0u);
  EXPECT_EQ(x.stat("l1", "reads"), 1u) << "warp 1's load (another barrier count) reused";
}

// Every reuse-buffer miss has one cause (reuse_miss_kinds); a first computation misses once
// per launch and sharing values through the VSB makes other-register misses rare.
TEST(Wir, EveryMissHasACause) {
  const WirRun x = run("wir-rlpv", "nn");
  ASSERT_TRUE(x.r.ok) << x.r.error;
  const uint64_t pending = x.element("allocator", "reuse_miss_kinds", "pending"),
                 evicted = x.element("allocator", "reuse_miss_kinds", "evicted"),
                 other = x.element("allocator", "reuse_miss_kinds", "other_registers"),
                 first = x.element("allocator", "reuse_miss_kinds", "first");
  EXPECT_EQ(pending + evicted + other + first, x.stat("allocator", "reuse_misses"));
  EXPECT_GT(first, 0u);
  EXPECT_GT(evicted + pending, 0u);
}

// Register reuse without instruction reuse (allocator.reuse: false): every instruction counts
// as skipped, so issued = lookups + skipped holds. Before, the identity failed the run.
TEST(Wir, RegisterReuseAloneCompletes) {
  const WirRun x = run("wir-rlpv", "scan", {"allocator.reuse=false"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_EQ(x.stat("allocator", "reuse_lookups"), 0u);
  EXPECT_EQ(x.element("allocator", "reuse_skipped", "reuse_off"), x.stat("scheduler", "issued"));
  EXPECT_GT(x.stat("writeback", "shared_writes"), 0u);
}

// The rename and reuse stages in one cycle and no register-allocation cycles (a design
// exploration of Fig. 22 below D3): collectors bind and reuses retire one cycle after issue,
// which the timing checker accepts (it takes the allocator's front stages; before, it assumed
// two and stopped the run).
TEST(Wir, OneAddedCyclePassesTheTimingChecker) {
  const WirRun x = run("wir-rlpv", "scan", {"allocator.front_stages=1", "allocator.stages=1"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.stat("allocator", "reuse_hits"), 0u);
}

// A loop calls double pow() (the non-inlined __internal_accurate_pow) and a __noinline__
// function (tests/e2e/data/wir_calls.cu): each callee reads its arguments with ld.param from the
// call's .param space, per-thread memory the caller rewrites (st.param) before every call. The
// store stops the warp's param loads from reusing; before, a later call (or another warp's)
// took an earlier call's argument and the golden check stopped the run.
TEST(Wir, CallsReadTheirOwnArguments) {
  const WirRun x = run("wir-rlpv", "tests/e2e/data/wir_calls.yaml");
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.stat("allocator", "reuse_hits"), 0u);
}

// Gaussian elimination as an application (apps/gaussian, 31 launches at n = 32): the kernel
// computes with its parameters (t, n: constant operands, keyed by name in the reuse tag), and
// each launch has a new t. Reuse-buffer entries end with their launch; before, the second
// launch reused the first one's address arithmetic on t and loaded the wrong pivot.
TEST(Wir, ReuseEndsWithTheLaunch) {
  const WirRun x = run("wir-rl", "workloads/apps/gaussian.yaml", {}, {"n=32"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_EQ(x.r.launches, 31u);
  EXPECT_GT(x.stat("writeback", "reuse_launch_drops"), 0u);
  EXPECT_GT(x.stat("allocator", "reuse_hits"), 0u);
}

// 300 thread blocks one after another in one CTA slot (tests/e2e/data/wir_blocks.cu), each
// loading shared memory at the address and barrier count of every block before it. A block's
// shared-load entries go when it ends. Before, the tag's block was the slot and a 7-bit
// generation: with buffers large enough to keep entries (65,536), block 128 reused block 0's
// load.
TEST(Wir, SharedLoadsReuseOnlyTheirOwnBlock) {
  const WirRun x =
      run("wir-rl", "tests/e2e/data/wir_blocks.yaml",
          {"sm.max_ctas=1", "allocator.reuse_entries=65536", "allocator.vsb_entries=65536"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GE(x.stat("writeback", "reuse_block_drops"), 299u);
}

// CTA 0 polls a flag that CTA 1 (on another SM, or later in the same one) sets, through L2
// (tests/e2e/data/wir_poll.cu: __ldcg, ld.global.cg; mode 1 __ldcv, ld.global.cv), with no
// store or barrier between the polls. Such a load exists to see other SMs' stores: never
// reused. Before, a poll reused the first poll's 0 and the golden check stopped the run.
void polls_are_never_reused(const std::string& mode) {
  const WirRun x = run("wir-rl", "tests/e2e/data/wir_poll.yaml", {}, {mode});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.element("allocator", "reuse_skipped", "memory"), 0u);
}
TEST(Wir, L2PollsAreNeverReused) { polls_are_never_reused("mode=0"); }
TEST(Wir, FetchAgainPollsAreNeverReused) { polls_are_never_reused("mode=1"); }

// A load after an acquire load (mode 0) or after a volatile poll and __threadfence (mode 1)
// must see the store the flag guards, and a shared load after each cp.async into its word
// (mode 2, no barrier between) the copy: tests/e2e/data/wir_acquire.cu. A fence or an acquire
// stops the warp's load reuse until its next barrier, as its own store does; cp.async is a
// shared store of the warp. Before, each reload reused the first load and the golden check
// stopped the run.
void reloads_see_new_values(const std::string& mode) {
  const WirRun x = run("wir-rl", "tests/e2e/data/wir_acquire.yaml", {}, {mode});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.element("allocator", "reuse_skipped", "load_after_store"), 0u);
}
TEST(Wir, AnAcquireLoadEndsLoadReuse) { reloads_see_new_values("mode=0"); }
TEST(Wir, AFenceEndsLoadReuse) { reloads_see_new_values("mode=1"); }
TEST(Wir, AnAsyncCopyIsASharedStore) { reloads_see_new_values("mode=2"); }

// Float maxima by an atomicCAS loop whose first read is a plain load (tests/e2e/data/
// wir_cas_max.cu): warps 37 apart load the same addresses, which other warps' CAS changed in
// between; no store flag of the loading warp stops the reuse. A hit whose recorded values are
// not what the load reads now is dropped (reuse_stale_loads) and the load executes. Before,
// the load reused the old maxima and the golden check stopped the run (sync_mix on wir-rlpvc).
TEST(Wir, AStaleLoadEntryIsNotReused) {
  const WirRun x = run("wir-rl", "tests/e2e/data/wir_cas_max.yaml");
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.stat("allocator", "reuse_stale_loads"), 0u);
}

// A register written twice under partial guards (tests/e2e/data/wir_pinned.ptx): the first
// divergent write pins a dedicated register, the second writes it in place. The convergent add
// after each write has the same opcode and source register, but the register's value changed:
// a pinned register is named by no reuse tag. Before, the second add reused the first one's
// result and the golden check stopped the run.
TEST(Wir, APinnedRegisterIsNoReuseOperand) {
  const WirRun x = run("wir-r", "tests/e2e/data/wir_pinned.yaml",
                       {"frontend.regalloc=linear_scan", "frontend.schedule=none"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.stat("writeback", "dummy_movs"), 0u);
}

// stress/gemm_rt: gpurf's allocator names 187 registers where ptxas needs 126, so its CTA of 8
// warps runs at ptxas's occupancy with backing rows beyond the banks' 1,024 registers. Those
// rows are physical registers too: the mappings alone (8 x 187) exceed the modelled rows.
// Before, with the pool at the modelled rows, no result found a register (watchdog).
TEST(Wir, BackingRowsArePhysicalRegisters) {
  const WirRun x = run("wir-r", "workloads/stress/gemm_rt.yaml", {}, {"m=128", "n=128", "k=32"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(uint64_t(sum_stat(x.r.stats, "writeback", "phys_peak")), 1024u); // the banks' rows
}

// The Affine GPU is an energy study: an affine access activates one slice instead of the
// eight of every other (full-mask) access, and affine integer arithmetic runs on one lane.
// (Its timing equals wir's: tests/cli/affine.sh compares the two runs.)
TEST(Wir, AffineTuplesActivateOneSlice) {
  const WirRun aff = run("affine", "sgemm");
  ASSERT_TRUE(aff.r.ok) << aff.r.error;
  const uint64_t ar = aff.stat("bank", "affine_reads"), aw = aff.stat("bank", "affine_writes");
  ASSERT_GT(ar, 0u);
  ASSERT_GT(aw, 0u);
  EXPECT_EQ(aff.stat("bank", "slice_reads"), 8 * aff.stat("bank", "reads") - 7 * ar);
  EXPECT_EQ(aff.stat("bank", "slice_writes"), 8 * aff.stat("bank", "writes") - 7 * aw);
  EXPECT_GT(aff.stat("exec", "affine_instructions"), 0u);
}

// Low-register mode (Sec. V-E): with a pool barely above the logical registers of the resident
// warps (24 x 39 = 936) results find it empty; misses and random evictions free registers.
TEST(Wir, LowRegisterModeFreesRegistersAndCompletes) {
  const WirRun x = run("wir-rlpv", "sgemm", {"allocator.phys_regs=940"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_GT(x.stat("writeback", "low_register_cycles"), 0u);
  EXPECT_GT(x.stat("allocator", "reuse_hits"), 0u);
}

// Divergence (Sec. V-D): the first divergent redefinition of a register takes a dedicated one,
// into which a dummy MOV copies the inactive lanes: one register-file read each, granted by
// the arbiter beside the verify-reads; the golden check sees every lane right.
TEST(Wir, DummyMovsReadTheOldRegisterInTheBanks) {
  const WirRun x = run("wir-rlpv", "nw");
  ASSERT_TRUE(x.r.ok) << x.r.error;
  const uint64_t movs = x.stat("writeback", "dummy_movs");
  ASSERT_GT(movs, 0u);
  EXPECT_GE(x.stat("writeback", "dedicated_writes"), movs);
  EXPECT_EQ(x.stat("arbiter", "verify_reads_granted"), x.stat("writeback", "verify_reads") + movs);
}

// A launch that uses fewer warp slots than the one before (tests/e2e/data/wir_stale_slots.*):
// 42 warps of `spread` (24 registers) finish and leave their mappings in their slots; 16
// warps of `dense` (62 registers) then fill the pool with their own, with the pool at the
// banks' 1,024 rows (a cudart program's pool when its first kernel needs no backing rows).
// Each launch fits alone. Before, the results of dense's first writes (no register to
// overwrite in place) waited for good once the VSB and the reuse buffer were empty: the
// finished warps' mappings were dropped only by the next warp of their slot (watchdog on
// every WIR design; a real program's second launch on wir-novsb). Now a launch's end releases
// every slot's mappings (a kernel's registers die with it).
class WirStaleSlots : public testing::TestWithParam<std::string> {};

TEST_P(WirStaleSlots, FinishedWarpsMappingsDoNotStarveTheNextLaunch) {
  const WirRun x =
      run(GetParam(), "tests/e2e/data/wir_stale_slots.yaml", {"allocator.phys_regs=1024"});
  ASSERT_TRUE(x.r.ok) << x.r.error;
  EXPECT_EQ(x.r.launches, 2u);
}

INSTANTIATE_TEST_SUITE_P(Designs, WirStaleSlots,
                         testing::Values("wir-r", "wir-rl", "wir-rlp", "wir-rlpv", "wir-rlpvc",
                                         "wir-novsb", "wir-rpv", "affine-rlpv"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });
