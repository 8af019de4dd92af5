// The execution pipes (platform/check/identities.h): each pipe's instructions are the
// dispatches into it that the checker saw (the MEM pipe's go to the LSU: modules/lsu).
#include "gpurf/platform/check/identities.h"

#include <string>

namespace gpurf {

GPURF_IDENTITIES(exec, identities::kind("exec")) {
  for (unsigned p = 0; p < kNumPipes; ++p) {
    if (Pipe(p) == Pipe::MEM) continue;
    c.equal(std::string("exec instructions of pipe ") + pipe_name(Pipe(p)) +
                " = dispatches into it",
            {{"exec.instructions", c.element("exec", "instructions", p)},
             {"dispatch events", double(c.events.by_pipe[p])}});
  }
  c.equal("instructions by latency class = instructions by pipe",
          {{"exec.class_instructions", c.sum("exec", "class_instructions")},
           {"exec.instructions", c.sum("exec", "instructions")}});
}

} // namespace gpurf
