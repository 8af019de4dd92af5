// Module test of the L2 ("set_assoc") behind a memory that answers later (an AT memory through
// the GPU's AT port, docs/vp.md): a miss is answered pending and completes with the fill; a
// read merging with that fill waits for it too; when every MSHR waits on the memory, a new
// miss waits in the L2 for the first fill and then goes out. One simulation per process.
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/common/pending.h"
#include "gpurf/modules/l2/i_l2.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

// Answers every timed request pending; the test completes them.
struct LaterMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<LaterMemory> sock;
  std::vector<std::pair<uint64_t, PendingPtr>> requests; // address, answer
  explicit LaterMemory(sc_core::sc_module_name nm) : sc_module(nm), sock("sock") {
    sock.register_b_transport(this, &LaterMemory::b_transport);
    sock.register_transport_dbg(this, &LaterMemory::transport_dbg);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    requests.push_back({gp.get_address(), std::make_shared<Pending>()});
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    set_pending(gp, requests.back().second);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return gp.get_data_length(); }
};

struct Answer {
  bool pending = false;
  Cycle ready = 0; // when known (at once, or when the pending answer completes)
};

struct Bench {
  SimClock clock;
  UnitConfig conf;
  std::unique_ptr<IL2> l2;
  StubInit l1{"l1"};
  LaterMemory mem{"mem"};
  std::vector<std::shared_ptr<Answer>> answers;

  Bench() {
    l2 = make_unit<IL2>(conf, "sets: 4\nways: 2\nhit_latency: 50\nbanks: 1\nmshrs: 2\n", "l2.yaml",
                        "l2", "set_assoc", "l2", clock);
    l1.sock.bind(l2->in);
    l2->mem.bind(mem.sock);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  // A 128 B line fill from the L1 at cycle `at`.
  std::shared_ptr<Answer> read(Cycle at, uint64_t addr) {
    clock.now = at;
    std::vector<unsigned char> data(128);
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(data.data());
    gp.set_data_length(128);
    gp.set_streaming_width(128);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    l1.sock->b_transport(gp, d);
    EXPECT_TRUE(gp.is_response_ok());
    auto a = std::make_shared<Answer>();
    if (PendingPtr p = take_pending(gp)) {
      a->pending = true;
      p->then([a](Cycle c, const std::string&) { a->ready = c; });
    } else {
      a->ready = at + clock.cycles(d);
    }
    answers.push_back(a);
    return a;
  }
};

} // namespace

TEST(MemL2Pending, MissesAndMergesWaitForTheFillAndFullMshrsDeferNewMisses) {
  Bench b;
  auto first = b.read(100, 0x0);
  ASSERT_TRUE(first->pending);
  ASSERT_EQ(b.mem.requests.size(), 1u); // the fill went out at once
  auto merge = b.read(110, 0x0);        // the same line while its fill is out
  EXPECT_TRUE(merge->pending) << "a read merging with a pending fill answered at " << merge->ready;
  auto second = b.read(120, 0x80); // the second MSHR
  ASSERT_TRUE(second->pending);
  auto third = b.read(130, 0x100); // no MSHR: both wait on the memory
  EXPECT_TRUE(third->pending);
  EXPECT_EQ(b.mem.requests.size(), 2u) << "a miss went out without an MSHR";
  EXPECT_EQ(stat(*b.l2, "deferred_requests"), 1u);

  b.mem.requests[0].second->complete(400); // line 0x0 arrives
  EXPECT_EQ(first->ready, 400u);
  EXPECT_EQ(merge->ready, 400u);
  // The deferred miss took the freed MSHR at 400 and sent its fill after its lookup.
  ASSERT_EQ(b.mem.requests.size(), 3u);
  EXPECT_EQ(b.mem.requests[2].first, 0x100u);
  EXPECT_EQ(stat(*b.l2, "mshr_wait_cycles"), 400u - 130u);
  b.mem.requests[2].second->complete(700);
  EXPECT_EQ(third->ready, 700u);
  b.mem.requests[1].second->complete(500);
  EXPECT_EQ(second->ready, 500u);
  // Counted once each, however they completed.
  EXPECT_EQ(stat(*b.l2, "reads"), 4u);
  EXPECT_EQ(stat(*b.l2, "misses"), 3u);
  EXPECT_EQ(stat(*b.l2, "mshr_merges"), 1u);
}
