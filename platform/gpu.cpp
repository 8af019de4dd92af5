#include "gpurf/platform/gpu.h"

#include <algorithm>

#include <tlm_utils/simple_target_socket.h>

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/l1/i_l1.h"
#include "gpurf/modules/l2/i_l2.h"
#include "gpurf/platform/at_port.h"
#include "gpurf/platform/check/identities.h"
#include "gpurf/platform/host_interface.h"
#include "gpurf/platform/lt_port.h"
#include "gpurf/platform/sm.h"

namespace gpurf {

// The SMs' L1s to the L2 (or the memory port): a fixed latency each way, no contention (the
// L2's banks and MSHRs and the memory's channel are where requests queue). Debug transport is
// forwarded; DMI is refused so that every access is timed.
//
// One request at a time goes through to the shared units: with `memory_port: lt` a target may
// wait inside a request, and another SM's request then waits here for it instead of entering
// the L2 half-way through the first one's lookups. Never contended when the target answers at
// once (no request can start while another is in flight).
class Gpu::Interconnect final : public Unit {
public:
  // One socket per SM (tagged with its index; bound at once, unlike a multi-socket, so the
  // front-end can place buffers through it before the simulation starts).
  using In = tlm_utils::simple_target_socket_tagged<Interconnect>;
  std::vector<std::unique_ptr<In>> in;
  tlm_utils::simple_initiator_socket<Interconnect> out;

  Interconnect(sc_core::sc_module_name nm, const UnitContext& c, unsigned sms, unsigned latency)
      : Unit(nm, c), out("out"), latency_(latency),
        requests_(stats().vector("requests", sms, "requests from each SM's L1", "requests")),
        bytes_(stats().vector("bytes", sms, "bytes of each SM's requests", "bytes")) {
    for (unsigned s = 0; s < sms; ++s) {
      in.push_back(std::make_unique<In>(("in" + std::to_string(s)).c_str()));
      in.back()->register_b_transport(this, &Interconnect::b_transport, int(s));
      in.back()->register_transport_dbg(this, &Interconnect::transport_dbg, int(s));
      in.back()->register_get_direct_mem_ptr(this, &Interconnect::get_direct_mem_ptr, int(s));
    }
  }

private:
  void b_transport(int sm, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    const Cycle me = clock_->now; // the issuing SM's cycle (others may run while we wait)
    while (busy_) sc_core::wait(free_);
    busy_ = true;
    clock_->now = me;
    ++requests_[size_t(sm)];
    bytes_[size_t(sm)] += gp.get_data_length();
    delay += clock_->time(latency_);
    out->b_transport(gp, delay);
    delay += clock_->time(latency_);
    busy_ = false;
    free_.notify(sc_core::SC_ZERO_TIME);
  }
  unsigned transport_dbg(int, tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
  bool get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    return refuse_dmi(dmi);
  }

  const unsigned latency_;
  Stat &requests_, &bytes_;
  bool busy_ = false;
  sc_core::sc_event free_;
};

// One SM's share of the launch: its warp slots are [base, base + slots) of the front-end's.
class Gpu::SmView final : public IFrontend {
public:
  explicit SmView(IFrontend& f) : f_(f) {}
  void place(unsigned base, unsigned slots) {
    base_ = base;
    slots_ = slots;
  }
  Occupancy start(const SmLimits&, unsigned, IFunctionalMemory&) override { return {}; }
  // The SM may have more warp slots than the launch gives it (registers bound them).
  const InstInfo* peek(unsigned w) override { return w < slots_ ? f_.peek(base_ + w) : nullptr; }
  uint64_t offer_epoch() const override { return f_.offer_epoch(); }
  void execute(unsigned w, WarpInst& out) override {
    f_.execute(base_ + w, out);
    out.warp = w;
  }
  void retire(const WarpInst& inst) override { f_.retire(inst); } // by CTA slot, GPU-wide
  bool done() const override { return f_.done_in(base_, slots_); }
  std::string describe_warp(unsigned w) const override {
    return w < slots_ ? f_.describe_warp(base_ + w) : "no CTA (beyond the launch's warp slots)";
  }
  std::string progress() const override { return f_.progress(); }
  unsigned predicate_registers() const override { return f_.predicate_registers(); }
  unsigned occupancy_registers() const override { return f_.occupancy_registers(); }
  unsigned hardware_registers() const override { return f_.hardware_registers(); }
  bool next_divergent(unsigned w) override { return w < slots_ && f_.next_divergent(base_ + w); }
  LaneValues register_value(unsigned w, unsigned r) const override {
    return w < slots_ ? f_.register_value(base_ + w, r) : LaneValues{};
  }
  uint64_t warps_finished(unsigned w) const override {
    return w < slots_ ? f_.warps_finished(base_ + w) : 0;
  }

private:
  IFrontend& f_;
  unsigned base_ = 0, slots_ = 0;
};

Gpu::Gpu(Params& top, IFrontend& frontend, unsigned regs_per_thread,
         const std::vector<Observer*>& observers)
    : frontend_(frontend),
      cycles_(stats_.scalar("cycles", "cycles until the last SM ended", "cycles")),
      retired_(stats_.scalar("warp_instructions", "warp instructions retired by every SM",
                             "instructions")) {
  stats_.formula("ipc", "warp instructions per cycle, all SMs", "instructions/cycle",
                 [this] { return cycles_ ? double(retired_) / double(cycles_) : 0.0; });
  Params& g = top.sub("gpu", "the GPU around the SMs (docs/vp.md)");
  const unsigned n = g.get_uint("sm_count", 1,
                                "SMs running the launch (its CTAs spread over them), sharing "
                                "the interconnect, the L2 and the memory port",
                                1, 256);
  const unsigned noc_latency = g.get_uint(
      "interconnect_latency", 0, "cycles each way between an SM's L1 and the L2", 0, 1u << 20);
  const std::string port =
      g.get_choice("memory_port", "direct",
                   "direct: the SMs are SC_METHODs in step with SystemC's time and the memory "
                   "target must answer b_transport without waiting (annotated delay); lt: the "
                   "SMs are SC_THREADs decoupled by the global quantum and the target may wait; "
                   "at: the 4-phase approximately-timed protocol, several transactions "
                   "outstanding, the caches' MSHRs complete at BEGIN_RESP (docs/vp.md)",
                   {"direct", "lt", "at"});
  const bool lt = port == "lt", at = port == "at";
  const unsigned burst = g.get_uint("burst_bytes", 128,
                                    "at: largest transaction; a request is split into naturally "
                                    "aligned power-of-two bursts of at most this",
                                    4, 1u << 16);
  if (burst & (burst - 1)) g.fail("burst_bytes", std::to_string(burst) + " is not a power of two");
  const bool hosted = g.get_bool("hosted", false,
                                 "the SMs idle until a virtual platform's host launches a "
                                 "kernel through the host interface (docs/vp.md); kernels run "
                                 "one after another");
  const unsigned quantum =
      g.get_uint("quantum_cycles", 0,
                 "lt: sets the TLM global quantum to this many cycles; 0: leaves it as the "
                 "virtual platform set it (SystemC's default 0: the SMs stay in lock-step)",
                 0, 1u << 30);
  const unsigned memory_timeout = g.get_uint(
      "memory_timeout_cycles", 1000000,
      "lt, at: a memory transaction (at) or b_transport (lt) unanswered for this many cycles "
      "stops the SMs with an error listing what is outstanding; 0: wait for ever",
      0, 1u << 31);
  // A trace or a waveform follows one SM's units and warp slots.
  if (n > 1 && !observers.empty())
    g.fail("sm_count", "an instruction trace (--trace) or a user observer follows one SM; " +
                           std::to_string(n) + " SMs given: run it with gpu.sm_count: 1");
  for (unsigned s = 0; s < n; ++s) {
    views_.push_back(std::make_unique<SmView>(frontend));
    const std::string name = n == 1 ? "sm" : "sm" + std::to_string(s);
    sms_.push_back(std::make_unique<Sm>(name.c_str(), top, *views_.back(), regs_per_thread,
                                        observers, Sm::Mode{lt, hosted}));
    Sm& sm = *sms_.back();
    sm.share_clock(&clock_);
    sm.on_stop([this](Sm& stopped) {
      if (!stopped.error().empty() && error_.empty()) {
        error_ =
            sm_count() > 1 ? std::string(stopped.name()) + ": " + stopped.error() : stopped.error();
        for (auto& other : sms_) other->halt("halted: " + std::string(stopped.name()) + " failed");
      }
      if (++stopped_ < sms_.size()) return;
      cycles_ = cycles();
      retired_ = retired();
      done_.notify(sc_core::SC_ZERO_TIME);
      if (pause_ && at_) sc_core::sc_pause();
    });
  }
  clock_.period = sms_[0]->clock().period;
  if (quantum) {
    if (!lt) g.fail("quantum_cycles", "a quantum needs memory_port: lt (decoupled SMs)");
    tlm::tlm_global_quantum::instance().set(clock_.time(quantum));
  }
  UnitContext c = default_context("interconnect");
  c.shape = &sms_[0]->shape();
  c.clock = &clock_;
  noc_ = std::make_unique<Interconnect>("interconnect", c, n, noc_latency);
  for (unsigned s = 0; s < n; ++s) sms_[s]->memory_port().bind(*noc_->in[s]);
  Params& l2p = top.sub("l2", "L2 cache shared by the SMs, between the interconnect and the "
                              "memory port (docs/platforms.md)");
  const std::string impl =
      l2p.get_choice("impl", "none", "implementation of the l2", IL2::Registry::names());
  c.name = "l2";
  l2_ = IL2::Registry::create(impl, l2p, c);
  if (l2_) {
    noc_->out.bind(l2_->in);
    for (auto& sm : sms_) sm->report_also(l2_.get());
  }
  if (hosted) host_ = std::make_unique<HostInterface>("host", *this);
  // An LT or AT port sits between the L2 (without one, the interconnect) and the socket.
  auto behind_caches = [&](auto& port_in) {
    if (l2_)
      l2_->mem.bind(port_in);
    else
      noc_->out.bind(port_in);
  };
  c.name = "memory_port";
  auto timed_out = [this](const std::string& why) { // the memory never answered
    if (error_.empty()) error_ = why;
    for (auto& sm : sms_) sm->halt(why);
  };
  if (at) {
    at_ = std::make_unique<AtPort>("memory_port", c, burst, memory_timeout);
    at_->on_timeout(timed_out);
    behind_caches(at_->in);
    for (auto& sm : sms_)
      sm->wait_on_memory(at_->response_event(), [p = at_.get()] { return p->outstanding() > 0; });
  }
  if (lt) {
    lt_ = std::make_unique<LtPort>("memory_port", c, memory_timeout);
    lt_->on_timeout(timed_out);
    behind_caches(lt_->in);
  }
}

Gpu::~Gpu() = default;

tlm::tlm_initiator_socket<>& Gpu::memory_port() {
  if (lt_) return lt_->out;
  if (at_) return at_->out;
  if (l2_) return l2_->mem;
  return noc_->out;
}

IFunctionalMemory& Gpu::functional_memory() { return sms_[0]->functional_memory(); }

HostInterface& Gpu::host() {
  if (!host_) throw ConfigError("gpu.hosted is false: the GPU has no host interface");
  return *host_;
}

bool Gpu::launch(const PtxFrontend::HostLaunch& h) {
  auto* ptx = dynamic_cast<PtxFrontend*>(&frontend_);
  error_.clear();
  stopped_ = 0;
  const SmLimits& limits = sms_[0]->limits();
  for (unsigned s = 0; s < sm_count(); ++s)
    views_[s]->place(s * limits.warp_slots(), limits.warp_slots());
  try {
    if (!ptx) throw WorkloadError("a hosted GPU runs PTX kernels");
    // A kernel that failed leaves its instructions in the pipelines (no reset is modelled).
    for (auto& sm : sms_)
      if (!sm->drained())
        throw WorkloadError(std::string(sm->name()) + " still holds instructions of a kernel "
                                                      "that failed; the GPU takes no more kernels");
    const Occupancy o = ptx->start_hosted(limits, sm_count(), functional_memory(), h);
    for (auto& sm : sms_) sm->set_occupancy(o);
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
  for (auto& sm : sms_) sm->restart();
  return true;
}

Occupancy Gpu::start() {
  const SmLimits& limits = sms_[0]->limits();
  for (unsigned s = 0; s < sm_count(); ++s)
    views_[s]->place(s * limits.warp_slots(), limits.warp_slots());
  const Occupancy o = frontend_.start(limits, sm_count(), functional_memory());
  for (auto& sm : sms_) sm->set_occupancy(o);
  return o;
}

bool Gpu::next_launch() {
  Occupancy o;
  if (!finished() || !frontend_.next_launch(sms_[0]->limits(), sm_count(), functional_memory(), o))
    return false;
  stopped_ = 0;
  for (auto& sm : sms_) {
    sm->set_occupancy(o);
    sm->restart();
  }
  return true;
}

bool Gpu::stopped() const { return stopped_ == sms_.size(); }

bool Gpu::finished() const {
  return std::all_of(sms_.begin(), sms_.end(), [](const auto& s) { return s->finished(); });
}

Cycle Gpu::cycles() const {
  Cycle c = 0;
  for (const auto& s : sms_) c = std::max(c, s->cycles());
  return c;
}

uint64_t Gpu::retired() const {
  uint64_t n = 0;
  for (const auto& s : sms_) n += s->retired();
  return n;
}

std::string Gpu::broken_identities(const nlohmann::ordered_json& stats) const {
  if (!sms_[0]->checker()) return "";
  // Each scheduler's cycles hold against its own SM's; the rest against the sums.
  EventCounts counts;
  size_t in_flight = 0;
  for (const auto& sm : sms_) {
    counts += sm->checker()->counts();
    in_flight += sm->checker()->in_flight();
  }
  std::string broken;
  for (const std::string& b : check_identities(stats, counts, sms_[0]->shape().slices))
    broken += "\n  " + b;
  if (in_flight)
    broken += "\n  " + std::to_string(in_flight) + " instructions issued but never retired";
  return broken;
}

} // namespace gpurf
