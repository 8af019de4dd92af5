// Collector allocator: binds an issued instruction to a free operand collector unit (of the
// set serving its pipe); answers busy when none is free, which stalls issue.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

namespace gpurf {

class IAllocator : public Unit {
public:
  using Registry = gpurf::Registry<IAllocator, const UnitContext&>;
  MultiTargetSocket<IAllocator> in;         // Issue from the schedulers
  MultiTargetSocket<IAllocator> release;    // Release from collector i (binding order)
  MultiInitSocket<IAllocator> to_collector; // Issue to collector i
  // WIR's reuse stage: reused instructions go straight to the writeback (Complete) and
  // release their sources at the scheduler k of the sub-core (OperandsRead); unused otherwise.
  using OptionalSocket =
      tlm_utils::multi_passthrough_initiator_socket<IAllocator, 32, tlm::tlm_base_protocol_types, 0,
                                                    sc_core::SC_ZERO_OR_MORE_BOUND>;
  OptionalSocket to_wb, to_sched;
  IAllocator(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), release("release"), to_collector("to_collector"), to_wb("to_wb"),
        to_sched("to_sched") {
    in.register_b_transport(this, &IAllocator::on_issue);
    release.register_b_transport(this, &IAllocator::on_release);
  }

  // The builder declares collector i (binding order) and the pipes it serves (bit i: Pipe i).
  void add_collector(unsigned pipe_mask) { collector_pipes_.push_back(pipe_mask); }
  // Cycles from issue to the earliest collector binding (WIR's rename and reuse stages).
  virtual unsigned front_stages() const { return 0; }

protected:
  std::vector<unsigned> collector_pipes_;
  virtual void on_issue(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
  virtual void on_release(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
