#include "gpurf/modules/frontend/compiler/ptxas_table.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpurf/modules/frontend/compiler/compile.h"

namespace gpurf::compiler {

std::optional<PtxasInfo> read_ptxas_table(const std::string& table, const std::string& kernel) {
  std::ifstream in(table);
  unsigned lineno = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineno;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ss(line);
    std::string name;
    if (!(ss >> name)) continue;
    PtxasInfo p;
    std::string extra;
    if (!(ss >> p.registers >> p.shared >> p.stack >> p.spill) || (ss >> extra))
      throw CompileError(table + ":" + std::to_string(lineno) + ": '" + line +
                         "': expected 'KERNEL REGISTERS SHARED STACK SPILL' (unsigned "
                         "integers; scripts/gen-ptx writes this table)");
    if (name != kernel) continue;
    p.table = table;
    return p;
  }
  return std::nullopt;
}

std::optional<PtxasInfo> ptxas_info(const std::string& ptx_path, const std::string& kernel) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(ptx_path).parent_path();
  for (const fs::path& table :
       {dir / "ptxas-registers.txt", dir.parent_path() / "ptxas-registers.txt"}) {
    std::error_code ec;
    if (fs::is_regular_file(table, ec))
      return read_ptxas_table(table.string(), kernel); // the nearest table decides
  }
  return std::nullopt;
}

std::string ptxas_table_line(const std::string& kernel, const PtxasInfo& p) {
  char s[64];
  std::snprintf(s, sizeof s, " %10u %8u %8u %8u", p.registers, p.shared, p.stack, p.spill);
  std::string name = kernel;
  if (name.size() < 16) name.resize(16, ' ');
  return name + s;
}

} // namespace gpurf::compiler
