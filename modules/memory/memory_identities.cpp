// The memory (platform/check/identities.h): its traffic is what the cache at the memory port
// (the L2, or the L1 without one) sent; the functional debug accesses are counted by neither.
#include "gpurf/platform/check/identities.h"

#include <string>

namespace gpurf {

GPURF_IDENTITIES(memory, identities::kind("memory")) {
  const bool l2 = c.has_kind("l2");
  const char* port = l2 ? "l2" : "l1";
  const std::string from = std::string(port) + ".bytes_from_memory";
  const std::string to = std::string(port) + ".bytes_to_memory";
  c.equal("memory bytes read = bytes the memory port's cache read",
          {{"memory.bytes_read", c.sum("memory", "bytes_read")},
           {from, c.sum(port, "bytes_from_memory")}});
  c.equal("memory bytes written = bytes the memory port's cache wrote",
          {{"memory.bytes_written", c.sum("memory", "bytes_written")},
           {to, c.sum(port, "bytes_to_memory")}});
  // The cache at the memory port writes: the L2 its dirty victims and, write-through, the
  // writes it forwards; the L1 (write-through) every write.
  if (l2)
    c.equal("memory writes = L2 write-backs + write-throughs",
            {{"memory.writes", c.sum("memory", "writes")},
             {"l2.writebacks + write_throughs",
              c.sum("l2", "writebacks") + c.sum("l2", "write_throughs")}});
  else
    c.equal("memory writes = L1 writes",
            {{"memory.writes", c.sum("memory", "writes")}, {"l1.writes", c.sum("l1", "writes")}});
}

} // namespace gpurf
