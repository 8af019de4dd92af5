// Kernel launch descriptions (workloads/*.yaml): loading, validation against the PTX, buffer
// contents. Plain C++ (no SystemC). See workloads/README.md for the format:
//
//   name: sgemm                 # reference checker name
//   ptx: ptx/sgemm.ptx          # relative to the YAML file
//   kernel: sgemm               # .entry name
//   vars: {n: 64}               # integer variables (values may be expressions over earlier vars)
//   scaled: [n]                 # vars multiplied by --scale N
//   grid: ["n/16", "n/16", 1]   # 1 to 3 integers or expressions
//   block: [16, 16, 1]
//   shared_bytes: 0             # dynamic shared memory
//   buffers:                    # allocated in order, 256-byte aligned
//     A: {type: f32, count: "n*n", init: {uniform: {min: -1.0, max: 1.0, seed: 1}}}
//     C: {type: f32, count: "n*n", init: {constant: 0}, output: true}
//   params:                     # .entry parameters in order
//     - {buffer: A}
//     - {s32: "n"}              # u32 s32 u64 s64 f32 f64
//
// Every error is a gpurf::ConfigError naming file:line, the key, the bad value and the valid
// choices (did-you-mean for names).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf {

// Integer expression over variables: + - * / % ( ), unary + and -, decimal/hex literals,
// identifiers. Division and remainder truncate toward zero; by zero is an error. Throws
// ExprError with a message naming the problem (unknown variable with did-you-mean, position).
struct ExprError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
int64_t eval_expr(const std::string& text, const std::map<std::string, int64_t>& vars);

struct LaunchBuffer {
  std::string name;
  std::string type;             // u8 s8 u16 s16 u32 s32 u64 s64 f32 f64
  unsigned elem_bytes = 4;      // size of one element
  uint64_t count = 0;           // elements
  bool output = false;          // read back and checked after the kernel
  std::vector<uint8_t> initial; // count * elem_bytes bytes: the `init` contents
  uint64_t bytes() const { return count * elem_bytes; }
};

struct LaunchParam {
  enum class Kind { Buffer, U32, S32, U64, S64, F32, F64 };
  Kind kind = Kind::Buffer;
  std::string buffer;     // Kind::Buffer: the buffer's name (its address is passed, 8 bytes)
  uint64_t bits = 0;      // scalars: the value's bits (f32: float bits in the low 32)
  unsigned bytes() const; // 8 for Buffer/U64/S64/F64, else 4
};
const char* param_kind_name(LaunchParam::Kind k);

struct LaunchSpec {
  std::string file;     // the YAML path as given
  std::string name;     // workload / reference checker name
  std::string ptx_path; // resolved path of the PTX file
  std::string kernel;   // .entry name
  unsigned scale = 1;
  std::map<std::string, int64_t> vars; // after --scale
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  unsigned shared_bytes = 0; // dynamic shared memory per CTA
  std::vector<LaunchBuffer> buffers;
  std::vector<LaunchParam> params;
  std::shared_ptr<const ptx::Module> module; // the parsed PTX

  const ptx::Function& entry() const;                             // the kernel's .entry
  const LaunchBuffer* find_buffer(const std::string& name) const; // nullptr if absent
  uint64_t threads_per_cta() const { return uint64_t(block[0]) * block[1] * block[2]; }
  uint64_t num_ctas() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
};

// Loads and validates a launch file; `scale` (>= 1) multiplies the `scaled` vars. Parses the
// PTX (a PTX syntax error becomes a ConfigError "ptxfile:line: message (ptx of file:line)").
// `vars`: "name=value" assignments that replace the value of a var the file declares (before
// --scale; gpurf run --var), e.g. "warps=4".
LaunchSpec load_launch(const std::string& path, unsigned scale = 1,
                       const std::vector<std::string>& vars = {});

// Packs the kernel parameter buffer (entry layout) given each buffer's device address
// (`buffer_addr[i]` for `spec.buffers[i]`).
std::vector<uint8_t> pack_params(const LaunchSpec& spec, const std::vector<uint64_t>& buffer_addr);

} // namespace gpurf
