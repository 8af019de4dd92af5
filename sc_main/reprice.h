// gpurf energy --table FILE PATH... [--format text|json]: prices saved runs (a kernel's result
// folder, its stats.json, or a suite folder = every kernel in it) with another energy table.
// JSON: one run -> result.json's `energy` object as that table prices it; several runs ->
// {"schema", "table", "runs": [{"path", "kernel", "platform", "verified", "energy"}]}.
// Plain C++17 (platform/energy, nlohmann::json); no SystemC. docs/energy.md, docs/tools.md.
#pragma once

#include <string>
#include <vector>

namespace gpurf {

// `args` are the arguments after "energy". Prints the reports on stdout. Returns 0; 2 for bad
// input (a missing or bad table, a path without a run, a run the table does not price, a bad
// option), with the message on stderr; 1 when a report breaks the energy identity (a bug).
int reprice_main(const std::vector<std::string>& args);

// Version of the `--format json` layout (docs/energy.md, "Repricing a saved run").
constexpr int kRepriceSchema = 1;

} // namespace gpurf
