#include "gpurf/platform/results.h"

#include <stdexcept>

namespace gpurf {

const nlohmann::json& results_schema() {
  static const nlohmann::json schema = nlohmann::json::parse(kResultsSchemaJson);
  return schema;
}

void check_result_keys(const nlohmann::ordered_json& summary) {
  const nlohmann::json& keys = results_schema()["result_keys"];
  for (auto it = summary.begin(); it != summary.end(); ++it)
    if (!keys.contains(it.key()))
      throw std::logic_error("result key '" + it.key() +
                             "' is not in platform/results_schema.json: add it there (what it "
                             "means) so that the tools and scripts know it");
}

} // namespace gpurf
