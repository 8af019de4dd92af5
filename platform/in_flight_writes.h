// The timed writes a memory target may still be applying, so that functional state never
// depends on when a target stores a write's bytes (docs/vp.md "Timed writes").
//
// The functional engine owns memory's contents: every store and atomic reaches the target at
// once through debug transport. A timed write (an L2 write-back, a write-through store) carries
// bytes too, and a target may store them at any moment up to its response: at BEGIN_REQ, at
// END_REQ, at BEGIN_RESP, from a copy taken at the request or by reading the payload late, in
// any order between non-overlapping writes. A functional write made meanwhile to the same bytes
// would then be overwritten by older ones. So, while a timed write is in flight, its payload's
// buffer holds the true bytes of its range:
//   - it is filled with them when the write goes out (begin);
//   - a functional write through the port updates every in-flight buffer it overlaps (a target
//     that reads the payload late stores the truth) and marks them changed;
//   - a functional read through the port takes the in-flight buffers' bytes over the target's
//     (which may hold an older copy the target stored meanwhile);
//   - at the response (end), by which IEEE 1666 says the target has executed the write, a
//     changed write's true bytes are written back through debug transport, undoing whatever
//     older copy the target stored.
// Every in-flight buffer holds the truth for its range, so their order does not matter.
#pragma once

#include <tlm>
#include <vector>

namespace gpurf {

class InFlightWrites {
public:
  using Socket = tlm::tlm_fw_transport_if<>;
  // A timed write `gp` goes out to `target`: its buffer gets the true bytes of its range.
  void begin(tlm::tlm_generic_payload& gp, Socket& target);
  // The target answered `gp`: it is no longer in flight (its true bytes rewritten if a
  // functional write changed them after it went out). Ignores payloads not begun.
  void end(const tlm::tlm_generic_payload& gp, Socket& target);
  // A functional (debug) access through the port to `target`.
  unsigned debug(tlm::tlm_generic_payload& gp, Socket& target);
  size_t size() const { return writes_.size(); }

private:
  struct Write {
    const tlm::tlm_generic_payload* gp;
    uint64_t addr;
    unsigned len;
    unsigned char* data;
    bool changed;
  };
  // Copies the overlap of [addr, addr + len) and `w` between `buf` and w's buffer.
  static void overlap(Write& w, uint64_t addr, unsigned len, unsigned char* buf, bool to_write);
  std::vector<Write> writes_;
};

} // namespace gpurf
