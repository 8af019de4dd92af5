// The unit slots a platform file fills (the YAML key names the slot, `impl:` the unit).
#include "gpurf/modules/allocator/i_allocator.h"
#include "gpurf/modules/arbiter/i_arbiter.h"
#include "gpurf/modules/bank/i_bank.h"
#include "gpurf/modules/collector/i_collector.h"
#include "gpurf/modules/crossbar/i_crossbar.h"
#include "gpurf/modules/exec/i_exec.h"
#include "gpurf/modules/scheduler/i_scheduler.h"
#include "gpurf/modules/writeback/i_writeback.h"

namespace gpurf {

GPURF_UNIT_SLOT(IScheduler, "scheduler", "warp scheduler with scoreboard and instruction buffer");
GPURF_UNIT_SLOT(IAllocator, "allocator", "collector allocator");
GPURF_UNIT_SLOT(ICollector, "collector", "operand collector unit");
GPURF_UNIT_SLOT(IArbiter, "arbiter", "register bank arbiter");
GPURF_UNIT_SLOT(IBank, "bank", "register bank built of slices");
GPURF_UNIT_SLOT(ICrossbar, "crossbar", "crossbar from the banks to the collectors");
GPURF_UNIT_SLOT(IExec, "exec", "dispatch and execution pipes");
GPURF_UNIT_SLOT(IWriteback, "writeback", "result writeback");

} // namespace gpurf
