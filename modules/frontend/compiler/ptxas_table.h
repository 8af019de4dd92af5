// The `ptxas -v` resource table scripts/gen-ptx writes beside the PTX it generates
// (workloads/ptxas-registers.txt for workloads/ptx/*.ptx): one line per kernel,
// "NAME REGISTERS SHARED STACK SPILL", '#' comments. The ptxas_like allocator takes its
// register count from it (plain C++, no SystemC).
#pragma once

#include <optional>
#include <string>

namespace gpurf::compiler {

struct PtxasInfo {
  unsigned registers = 0, shared = 0, stack = 0, spill = 0;
  std::string table; // the file it came from
};

// The table row of `kernel` for the PTX file `ptx_path`: ptxas-registers.txt in the PTX file's
// folder, else in its parent (gen-ptx puts PTX in ptx/ below the table). nullopt when no table
// exists or it does not list the kernel. Throws CompileError (file:line, the bad text, the
// expected format) for a malformed table.
std::optional<PtxasInfo> ptxas_info(const std::string& ptx_path, const std::string& kernel);

// The row of `kernel` in the table file `table` (nullopt: no such file or row; throws
// CompileError for a malformed table).
std::optional<PtxasInfo> read_ptxas_table(const std::string& table, const std::string& kernel);

// One table line in the format above.
std::string ptxas_table_line(const std::string& kernel, const PtxasInfo& p);

} // namespace gpurf::compiler
