// What every API entry point (api.cpp: the runtime API, driver.cpp: the driver API) uses.
#pragma once

#include "runtime.h"

namespace gpurf::cudart {

inline Runtime& rt() { return Runtime::get(); }
inline cudaError_t ret(cudaError_t e) { return rt().record(e); }
// A `_ptsz` form's stream (nvcc --default-stream per-thread): 0 names the calling thread's
// default stream, cudaStreamPerThread (2), not the legacy stream.
inline cudaStream_t per_thread(cudaStream_t s) { return s ? s : cudaStream_t(2); }

} // namespace gpurf::cudart

// Every entry point runs under the runtime's lock (runtime.h api_mutex): host threads' calls
// one at a time.
#define GPURF_LOCKED                                                                               \
  const std::lock_guard<std::recursive_mutex> api_lock_(gpurf::cudart::api_mutex())
