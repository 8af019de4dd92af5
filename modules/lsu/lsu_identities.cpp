// The LSUs (platform/check/identities.h): the MEM pipe's dispatches, by memory space, and
// every one completes.
#include "gpurf/platform/check/identities.h"

#include <string>

namespace gpurf {

GPURF_IDENTITIES(lsu, identities::kind("lsu")) {
  c.equal("LSU instructions = completed = MEM dispatches",
          {{"lsu.instructions", c.sum("lsu", "instructions")},
           {"lsu.completed", c.sum("lsu", "completed")},
           {"MEM dispatch events", double(c.events.by_pipe[unsigned(Pipe::MEM)])}});
  static const char* const spaces[kMemSpaces] = {"none",  "global", "shared",
                                                 "local", "param",  "const"};
  for (unsigned m = 0; m < kMemSpaces; ++m)
    c.equal(std::string("LSU instructions of space ") + spaces[m] + " = MEM dispatches of it",
            {{"lsu.instructions", c.element("lsu", "instructions", m)},
             {"MEM dispatch events", double(c.events.mem_by_space[m])}});
}

} // namespace gpurf
