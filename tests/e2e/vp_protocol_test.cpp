// The GPU's memory port against targets that answer in every way the TLM-2.0 base protocol
// allows, with the protocol checker (tests/support/protocol_checker.h) between them
// (docs/vp.md "Protocol conformance"): AT targets that accept BEGIN_REQ with TLM_ACCEPTED
// (END_REQ early or late, or implied by BEGIN_RESP), TLM_UPDATED (END_REQ or BEGIN_RESP) or
// TLM_COMPLETED, answer after random latencies (responses out of order) and wait for END_RESP
// as a DRAM model's arbiter does; LT targets that annotate or wait. Every run verifies the
// kernel's outputs and the conservation identities and breaks no protocol rule: every suite
// kernel (workloads/*.yaml) on 1 and 2 SMs, about a minute of CPU in all. Then the memory timeout
// (gpu.memory_timeout_cycles): a memory that never answers ends the run with an error naming
// what is outstanding.
#include <gtest/gtest.h>
#include <systemc>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/modules/memory/i_memory.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/params.h"
#include "gpurf/platform/sm.h"
#include "gpurf/platform/stats.h"
#include "tests/support/protocol_checker.h"
#include "tests/support/test_memories.h"

using namespace gpurf;
using gpurf::test::AtTestMemory;
using gpurf::test::LtTestMemory;
using gpurf::test::ProtocolChecker;

namespace {

struct Outcome {
  bool ok = false;
  std::string error, outputs, identities;
  nlohmann::ordered_json stats;
};

// Runs `kernel` on fermi (+ overrides), the GPU's memory port -> checker -> `mem`; the checker
// is finished (every transaction ended, every payload released) while the GPU exists.
template <class Memory>
Outcome run(const std::string& kernel, const std::vector<std::string>& overrides, Memory& mem,
            ProtocolChecker& checker) {
  ConfigPtr cfg = load_config(GPURF_SOURCE_DIR "/configs/fermi.yaml");
  for (const std::string& o : overrides) apply_override(*cfg, o);
  PtxFrontend fe(load_launch(GPURF_SOURCE_DIR "/workloads/" + kernel + ".yaml"),
                 frontend_options(*cfg));
  Params top(cfg.get(), "");
  Gpu gpu(top, fe, fe.regs_per_thread());
  gpu.memory_port().bind(checker.in);
  checker.out.bind(mem.socket);
  gpu.start();
  sc_core::sc_start();
  Outcome r;
  r.ok = gpu.finished();
  r.error = gpu.error();
  r.outputs = fe.verify_outputs();
  r.stats = dump_stats_json(false);
  if (r.ok) r.identities = gpu.broken_identities(r.stats);
  checker.finish();
  return r;
}

uint64_t stat(const Outcome& r, const std::string& group, const std::string& name) {
  return r.stats[group][name]["value"].get<uint64_t>();
}

using Accept = AtTestMemory::Accept;

// One way of answering: an AT target's options, or (lt) an LT target's.
struct Variant {
  const char* name;
  bool lt;
  AtTestMemory::Options at;
  LtTestMemory::Options lt_opt;
};

AtTestMemory::Options at(Accept a, AtTestMemory::Range end_req, AtTestMemory::Range latency,
                         unsigned seed, bool end_resp_only = false) {
  AtTestMemory::Options o;
  o.accept = a;
  o.end_req = end_req;
  o.latency = latency;
  o.seed = seed;
  o.end_resp_only = end_resp_only;
  return o;
}
LtTestMemory::Options lt(bool wait, unsigned seed) {
  LtTestMemory::Options o;
  o.wait = wait;
  o.seed = seed;
  return o;
}

const std::vector<Variant>& variants() {
  static const std::vector<Variant> v = {
      // END_REQ within 2 ns, responses 100-400 ns later: many outstanding, out of order.
      {"accepted_early_end_req", false, at(Accept::kAccepted, {0, 2}, {100, 400}, 1), {}},
      // END_REQ 20-60 ns late: the GPU's next BEGIN_REQ waits for it (backpressure).
      {"accepted_late_end_req", false, at(Accept::kAccepted, {20, 60}, {50, 300}, 2), {}},
      // No END_REQ: BEGIN_RESP implies it (one transaction at a time).
      {"end_req_implied", false, at(Accept::kImplied, {0, 0}, {40, 160}, 3), {}},
      {"updated_end_req", false, at(Accept::kUpdatedEndReq, {0, 10}, {100, 400}, 4), {}},
      {"updated_begin_resp", false, at(Accept::kUpdatedBeginResp, {0, 10}, {60, 300}, 5), {}},
      {"completed", false, at(Accept::kCompleted, {0, 10}, {100, 300}, 6), {}},
      // A DRAM model's arbiter: a response phase ends only with END_RESP.
      {"end_resp_only", false, at(Accept::kAccepted, {0, 5}, {100, 300}, 7, true), {}},
      {"lt_annotates", true, {}, lt(false, 8)},
      {"lt_waits", true, {}, lt(true, 9)},
  };
  return v;
}

std::vector<std::string> kernels() { // the suite
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(GPURF_SOURCE_DIR "/workloads"))
    if (e.path().extension() == ".yaml") v.push_back(e.path().stem().string());
  std::sort(v.begin(), v.end());
  return v;
}

class Protocol
    : public testing::TestWithParam<std::tuple<size_t /*variant*/, std::string, unsigned>> {};

} // namespace

// The kernel verifies, the identities hold and no protocol rule is broken; the traffic went
// the way the variant says.
TEST_P(Protocol, KernelVerifiesWithoutViolations) {
  const Variant& v = variants()[std::get<0>(GetParam())];
  const std::string& kernel = std::get<1>(GetParam());
  const std::vector<std::string> o = {std::string("gpu.memory_port=") + (v.lt ? "lt" : "at"),
                                      "gpu.sm_count=" + std::to_string(std::get<2>(GetParam()))};
  ProtocolChecker checker("checker");
  // Verified, identities held, no violation, no request outside memory.
  auto verified = [&](const Outcome& r, uint64_t bad_addresses) {
    EXPECT_EQ(r.outputs, "");
    EXPECT_EQ(r.identities, "");
    EXPECT_EQ(checker.violations(), 0u) << checker.first();
    EXPECT_EQ(bad_addresses, 0u);
  };
  if (v.lt) {
    LtTestMemory mem("mem", v.lt_opt);
    const Outcome r = run(kernel, o, mem, checker);
    ASSERT_TRUE(r.ok) << r.error;
    verified(r, mem.bad_addresses);
    EXPECT_EQ(checker.b_calls, stat(r, "memory_port", "transactions"));
    EXPECT_EQ(mem.requests, checker.b_calls);
    EXPECT_EQ(mem.waits, v.lt_opt.wait ? mem.requests : 0u);
    return;
  }
  AtTestMemory mem("mem", v.at);
  const Outcome r = run(kernel, o, mem, checker);
  ASSERT_TRUE(r.ok) << r.error;
  verified(r, mem.bad_addresses);
  EXPECT_EQ(checker.transactions, stat(r, "memory_port", "transactions"));
  EXPECT_EQ(mem.requests, checker.transactions);
  EXPECT_EQ(mem.outstanding, 0u);
  // The port ends every response phase with END_RESP on the forward path, never with a
  // return code; a TLM_COMPLETED target needs none.
  EXPECT_EQ(mem.completed_returns + mem.updated_returns, 0u);
  if (v.at.accept == Accept::kCompleted)
    EXPECT_EQ(checker.end_resps, 0u);
  else
    EXPECT_EQ(mem.end_resps, mem.requests - checker.completed_early);
}

INSTANTIATE_TEST_SUITE_P(VpProtocol, Protocol,
                         testing::Combine(testing::Range(size_t(0), variants().size()),
                                          testing::ValuesIn(kernels()), testing::Values(1u, 2u)),
                         [](const auto& info) {
                           return std::string(variants()[std::get<0>(info.param)].name) + "_" +
                                  std::get<1>(info.param) + "_" +
                                  std::to_string(std::get<2>(info.param)) + "sm";
                         });

// The variants do what they claim on a memory-bound kernel: many transactions outstanding,
// responses out of order, late END_REQs holding the GPU's next BEGIN_REQ back.
TEST(VpProtocolTargets, OutOfOrderResponsesAndLateEndReq) {
  {
    ProtocolChecker checker("checker");
    AtTestMemory mem("mem", variants()[0].at);
    const Outcome r = run("daxpy_dot", {"gpu.memory_port=at", "gpu.sm_count=2"}, mem, checker);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(checker.violations(), 0u) << checker.first();
    EXPECT_GT(mem.max_outstanding, 8u);
    EXPECT_GT(checker.max_in_flight, 8u);
    EXPECT_GT(mem.out_of_order, 100u);
    EXPECT_EQ(mem.end_reqs, mem.requests);
  }
}

TEST(VpProtocolTargets, LateEndReqIsBackpressure) {
  ProtocolChecker checker("checker");
  AtTestMemory mem("mem", variants()[1].at);
  const Outcome r = run("daxpy_dot", {"gpu.memory_port=at"}, mem, checker);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(checker.violations(), 0u) << checker.first();
  EXPECT_GT(stat(r, "memory_port", "backpressure_waits"), 100u);
}

// A target that takes BEGIN_RESP as ended only by END_RESP (DRAMSys 5.1's arbiter): the port
// answered TLM_COMPLETED before and the target's second response never began (the GPU waited
// for ever, silently); now every response is ended with END_RESP on the forward path.
TEST(VpProtocolTargets, ADramStyleArbiterGetsEndResp) {
  ProtocolChecker checker("checker");
  AtTestMemory::Options o = variants()[6].at;
  ASSERT_TRUE(o.end_resp_only);
  AtTestMemory mem("mem", o);
  const Outcome r = run("sgemm", {"gpu.memory_port=at"}, mem, checker);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.outputs, "");
  EXPECT_EQ(checker.violations(), 0u) << checker.first();
  EXPECT_EQ(mem.end_resps, mem.requests);
  EXPECT_EQ(checker.end_resps, mem.requests);
}

// BEGIN_RESP returned with TLM_UPDATED and a delay: END_RESP comes at the response's time,
// not before it (the port sent it at once, timed before the BEGIN_RESP it ends).
TEST(VpProtocolTargets, EndRespNotBeforeAnUpdatedBeginResp) {
  ProtocolChecker checker("checker");
  AtTestMemory mem("mem", variants()[4].at);
  const Outcome r = run("sgemm", {"gpu.memory_port=at"}, mem, checker);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(checker.violations(ProtocolChecker::kTiming), 0u) << checker.first();
  EXPECT_EQ(checker.violations(), 0u) << checker.first();
  EXPECT_GT(checker.end_resps, 0u);
}

// gpurf's own memory (the `memory` unit `gpurf run` binds) keeps the protocol too: AT on two
// SMs (its BEGIN_RESPs come at distinct cycles, so a response phase, ended by the GPU's
// END_RESP in the next delta, never overlaps the next) and LT waiting in b_transport.
class BuiltInMemory : public testing::TestWithParam<std::string> {};

TEST_P(BuiltInMemory, KeepsTheProtocol) {
  const bool lt = GetParam() == "lt";
  ConfigPtr cfg = load_config(GPURF_SOURCE_DIR "/configs/fermi.yaml");
  apply_override(*cfg, std::string("gpu.memory_port=") + GetParam());
  apply_override(*cfg, "gpu.sm_count=2");
  if (lt) apply_override(*cfg, "memory.respond=wait");
  PtxFrontend fe(load_launch(GPURF_SOURCE_DIR "/workloads/bfs.yaml"), frontend_options(*cfg));
  Params top(cfg.get(), "");
  Gpu gpu(top, fe, fe.regs_per_thread());
  UnitContext c = default_context("memory");
  c.shape = &gpu.sm(0).shape();
  c.clock = &gpu.clock();
  std::unique_ptr<IMemory> mem =
      IMemory::Registry::create("simple", top.sub("memory", "the built-in memory"), c);
  ProtocolChecker checker("checker");
  gpu.memory_port().bind(checker.in);
  checker.out.bind(mem->socket);
  gpu.start();
  sc_core::sc_start();
  ASSERT_TRUE(gpu.finished()) << gpu.error();
  EXPECT_EQ(fe.verify_outputs(), "");
  checker.finish();
  EXPECT_EQ(checker.violations(), 0u) << checker.first();
  EXPECT_GT(lt ? checker.b_calls : checker.end_resps, 1000u);
}

INSTANTIATE_TEST_SUITE_P(VpProtocol, BuiltInMemory, testing::Values("at", "lt"));

// ---- The memory timeout ----

// A memory that accepts BEGIN_REQ and never says more: the run ends with the port's error
// naming the transactions outstanding, after the timeout.
TEST(VpMemoryTimeout, AnAtMemoryThatNeverAnswers) {
  ProtocolChecker checker("checker");
  AtTestMemory::Options o;
  o.answer = false;
  AtTestMemory mem("mem", o);
  const Outcome r =
      run("sgemm", {"gpu.memory_port=at", "gpu.memory_timeout_cycles=20000"}, mem, checker);
  std::printf("%s\n", r.error.c_str());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(mem.requests, 1u); // the request channel never freed
  EXPECT_NE(r.error.find("memory_port: no answer from the memory for 20000 cycles"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("gpu.memory_timeout_cycles"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("READ of 128 bytes at 0x"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("(BEGIN_REQ sent, no END_REQ) for 20000 cycles"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("(BEGIN_REQ not sent yet: the request channel is busy)"),
            std::string::npos)
      << r.error;
  // It stopped at the bound: about 20,000 cycles (0.7 GHz) after the first request.
  const double cycles = sc_core::sc_time_stamp() / sc_core::sc_time(1e3 / 0.7, sc_core::SC_PS);
  EXPECT_GE(cycles, 20000.0);
  EXPECT_LT(cycles, 21000.0);
}

// The same with the default bound (1,000,000 cycles) and a memory that takes requests
// (END_REQ) but never responds: many outstanding, the oldest listed. (Here the LSU keeps
// retrying its full L1, so the SM's own watchdog, 200,000 cycles without a retired
// instruction, would stop it first; it is raised to let the memory's bound show.)
TEST(VpMemoryTimeout, TheDefaultBoundListsTheOldest) {
  ProtocolChecker checker("checker");
  AtTestMemory::Options o;
  o.accept = Accept::kUpdatedEndReq;
  o.answer = false;
  AtTestMemory mem("mem", o);
  const Outcome r =
      run("daxpy_dot", {"gpu.memory_port=at", "gpu.sm_count=2", "sm.watchdog_cycles=5000000"}, mem,
          checker);
  std::printf("%s\n", r.error.c_str());
  EXPECT_FALSE(r.ok);
  EXPECT_GT(mem.requests, 4u);
  EXPECT_NE(r.error.find("no answer from the memory for 1000000 cycles"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find(std::to_string(mem.requests) + " transactions outstanding"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("(END_REQ received, no BEGIN_RESP) for 1000000 cycles"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("and " + std::to_string(mem.requests - 4) + " more"), std::string::npos)
      << r.error;
}

// 0 turns the bound off: the GPU waits (the simulation runs out of events, the kernel not
// finished, no error).
TEST(VpMemoryTimeout, ZeroWaitsForEver) {
  ProtocolChecker checker("checker");
  AtTestMemory::Options o;
  o.answer = false;
  AtTestMemory mem("mem", o);
  const Outcome r =
      run("sgemm", {"gpu.memory_port=at", "gpu.memory_timeout_cycles=0"}, mem, checker);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "");
}

// LT: a b_transport that never returns is reported by the port's watchdog; the SM's thread
// stays in the target's wait, the simulation ends.
TEST(VpMemoryTimeout, AnLtMemoryThatNeverReturns) {
  ProtocolChecker checker("checker");
  LtTestMemory::Options o;
  o.answer = false;
  LtTestMemory mem("mem", o);
  Outcome r;
  {
    ConfigPtr cfg = load_config(GPURF_SOURCE_DIR "/configs/fermi.yaml");
    apply_override(*cfg, "gpu.memory_port=lt");
    apply_override(*cfg, "gpu.memory_timeout_cycles=5000");
    apply_override(*cfg, "gpu.sm_count=2");
    PtxFrontend fe(load_launch(GPURF_SOURCE_DIR "/workloads/sgemm.yaml"), frontend_options(*cfg));
    Params top(cfg.get(), "");
    Gpu gpu(top, fe, fe.regs_per_thread());
    gpu.memory_port().bind(checker.in);
    checker.out.bind(mem.socket);
    gpu.start();
    sc_core::sc_start();
    EXPECT_TRUE(gpu.stopped());
    EXPECT_FALSE(gpu.finished());
    r.error = gpu.error();
  }
  std::printf("%s\n", r.error.c_str());
  EXPECT_EQ(mem.requests, 1u);
  EXPECT_NE(r.error.find("memory_port: no answer from the memory for 5000 cycles "
                         "(gpu.memory_timeout_cycles): 1 b_transport call outstanding"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("(inside b_transport) for 5000 cycles"), std::string::npos) << r.error;
}
