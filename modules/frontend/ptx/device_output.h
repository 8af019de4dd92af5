// Where a kernel's printf output goes (docs/programs.md "printf and assert"). The engine
// formats each active lane's `vprintf(format, args)` as CUDA's printf does and hands the text
// to the sink; without one (gpurf run) the call is a no-op returning 0, as before. One sink
// per process: libgpurf-cudart sets it and prints the text when the kernel ends.
#pragma once

#include <functional>
#include <string>

namespace gpurf::ptx {

using DeviceOutput = std::function<void(const std::string&)>;
void set_device_output(DeviceOutput sink);
const DeviceOutput& device_output();

// CUDA's printf formatting of `format` with the argument buffer `args` (each argument at its
// natural alignment: 4-byte ints and chars, 8-byte longs, doubles and pointers); `string_at`
// reads a NUL-terminated device string (%s). Unknown conversions are printed as written.
std::string format_device_printf(const std::string& format, const unsigned char* args,
                                 size_t args_bytes,
                                 const std::function<std::string(uint64_t)>& string_at);
// The argument buffer's size for `format`.
size_t device_printf_args_bytes(const std::string& format);

} // namespace gpurf::ptx
