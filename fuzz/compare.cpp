// Fuzzes `gpurf compare`'s result reader: the input is a summary.json compared with itself;
// compare answers (exit 0, 1) or reports bad input (exit 2) naming the file; no exception
// escapes.
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "common.h"
#include "sc_main/compare.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpurf_fuzz;
  const std::string path = write("summary.json", data, size);
  std::ostringstream out, err;
  auto* o = std::cout.rdbuf(out.rdbuf());
  auto* e = std::cerr.rdbuf(err.rdbuf());
  int rc = 0;
  try {
    rc = gpurf::compare_main({path, path});
  } catch (const std::exception& x) {
    std::cout.rdbuf(o);
    std::cerr.rdbuf(e);
    unexpected(x.what());
  }
  std::cout.rdbuf(o);
  std::cerr.rdbuf(e);
  if (rc == 2) require_location("compare error", err.str(), "summary.json");
  return 0;
}
