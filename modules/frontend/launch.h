// Kernel launch descriptions (workloads/*.yaml): loading, validation against the PTX, buffer
// contents. Plain C++ (no SystemC). See workloads/README.md for the format:
//
//   name: sgemm                 # reference checker name
//   ptx: ptx/sgemm.ptx          # relative to the YAML file; a list for several modules
//   kernel: sgemm               # .entry name (the file's kernel)
//   vars: {n: 64}               # integer variables (values may be expressions over earlier vars)
//   scaled: [n]                 # vars multiplied by --scale N
//   grid: ["n/16", "n/16", 1]   # 1 to 3 integers or expressions
//   block: [16, 16, 1]
//   shared_bytes: 0             # dynamic shared memory
//   cooperative: false          # true: a cooperative launch (grid.sync(): every CTA resident)
//   buffers:                    # allocated in order, 256-byte aligned
//     A: {type: f32, count: "n*n", init: {uniform: {min: -1.0, max: 1.0, seed: 1}}}
//     C: {type: f32, count: "n*n", init: {constant: 0}, output: true}
//   params:                     # .entry parameters in order
//     - {buffer: A}
//     - {s32: "n"}              # u32 s32 u64 s64 f32 f64
//   steps:                      # optional: an application, host steps around launches
//     - for: {var: t, from: 0, to: "n - 1"}
//       do: [{launch: step}, {swap: [A, C]}]
//     - launch: {kernel: other, grid: [1], block: [256], params: [{buffer: C}], shared: 0}
//
// Every error is a gpurf::ConfigError naming file:line, the key, the bad value and the valid
// choices (did-you-mean for names).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/ptx/ir.h"
#include "gpurf/modules/frontend/ptx/texture.h"

namespace gpurf {

// Integer expression over variables: + - * / % ( ), unary + and -, decimal/hex literals,
// identifiers. Division and remainder truncate toward zero; by zero is an error. Throws
// ExprError with a message naming the problem (unknown variable with did-you-mean, position).
struct ExprError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Comparisons (== != < <= > >=, lowest precedence) give 0 or 1; `name[index]` reads element
// `index` of buffer `name` through `element` (conditions of application steps; without it such
// a read is an error).
using ElementReader = std::function<int64_t(const std::string& buffer, int64_t index)>;
int64_t eval_expr(const std::string& text, const std::map<std::string, int64_t>& vars,
                  const ElementReader& element = {});

// The most bytes a launch file's buffers may take together (docs/workloads.md).
constexpr uint64_t kMaxBufferBytes = uint64_t(512) << 20;

struct LaunchBuffer {
  std::string name;
  std::string type;             // u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64
  unsigned elem_bytes = 4;      // size of one element
  uint64_t count = 0;           // elements
  bool output = false;          // read back and checked after the kernel
  std::string symbol;           // placed at this module .const/.global variable, not allocated
  std::vector<uint8_t> initial; // count * elem_bytes bytes: the `init` contents
  uint64_t bytes() const { return count * elem_bytes; }
  bool is_float() const { return (!type.empty() && type[0] == 'f') || type == "bf16"; }
  // One element as bytes (elem_bytes of them): floats from `f`, integers from `i`.
  void encode(double f, int64_t i, uint8_t* out) const;
  // An element's value as an integer (floats truncated toward zero, saturated).
  int64_t decode(const uint8_t* in) const;
  // An element's value as a number (64-bit integers beyond 2^53 rounded).
  double value(const uint8_t* in) const;
};

struct LaunchParam {
  // Texture / Surface: a texture or surface object's handle (8 bytes), `buffer` names it.
  enum class Kind {
    Buffer,
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    S64,
    F32,
    F64,
    Struct,
    Texture,
    Surface
  };
  Kind kind = Kind::Buffer;
  std::string buffer; // Kind::Buffer: the buffer's name (its address is passed, 8 bytes)
  uint64_t bits = 0;  // scalars: the value's bits (f32: float bits in the low 32)
  std::string expr;   // integer scalars: the expression, evaluated again at every launch
  // A struct passed by value (`.param .align A .b8 x[N]`): N bytes, `raw` first (zero-filled),
  // then each field (a scalar or buffer address) at its `offset`.
  unsigned size = 0;
  std::vector<uint8_t> raw;
  std::vector<LaunchParam> fields;
  unsigned offset = 0;    // a field's byte offset in its struct
  unsigned bytes() const; // Struct: size; Buffer, 64-bit: 8; u8/s8: 1; u16/s16: 2; else 4
};
const char* param_kind_name(LaunchParam::Kind k);

// `verify:` in a launch file: an output compared with a file of the expected bytes, exactly
// or, per element, within atol + rtol * |expected|.
struct VerifyFile {
  std::string buffer, file, where; // file: resolved path; where: file:line of the entry
  double rtol = 0, atol = 0;       // both 0: exact
};

// A host step of an application (workloads/README.md, "Applications"). Expressions are
// evaluated when the step runs, over the vars as the steps left them.
struct AppStep {
  enum class Kind { Launch, For, Repeat, Set, Swap, Fill, Copy };
  Kind kind = Kind::Launch;
  std::string where; // file:line of the step, for errors while it runs
  std::string label; // Launch: its name in the per-launch statistics
  // Launch: the .entry it runs ("": the file's kernel); its grid and block (expressions over
  // the vars, evaluated at the launch; empty: the file's), dynamic shared memory ("": the
  // file's) and parameters (`own_params` false: the file's `params`).
  std::string kernel;
  std::vector<std::string> grid, block;
  std::string shared;
  int cooperative = -1; // `cooperative:` 0 or 1; -1: the file's
  bool own_params = false;
  std::vector<LaunchParam> params;
  std::string var, from, to, step; // For: var = from; var < to (> to if step < 0); var += step
  std::string cond;                // Repeat: run the body again while this is non-zero
  uint64_t max = 0;                // Repeat: passes at most (more is an error)
  std::vector<AppStep> body;       // For, Repeat
  std::vector<std::pair<std::string, std::string>> assign; // Set: var = expression, in order
  std::string a, b;                 // Swap: the two buffers; Copy: from a to b; Fill: buffer a
  std::string value;                // Fill: the element value (a number or an expression)
  std::string first, count, stride; // Fill: elements first, first + stride, ... (count of them)
};

// `textures:` in a launch file: a texture or surface object over a buffer
// (workloads/README.md, "Textures"). Its handle is its index + 1 (ptx::TextureTable order).
struct LaunchTexture {
  std::string name, buffer, where; // where: file:line of the entry
  ptx::TextureDesc desc;           // base: the buffer's address, set at each launch
};

struct LaunchSpec {
  std::string file;     // the YAML path as given
  std::string name;     // workload / reference checker name
  std::string ptx_path; // resolved path of the PTX file (the first, when `ptx:` lists several)
  std::string kernel;   // .entry name
  unsigned scale = 1;
  std::map<std::string, int64_t> vars; // after --scale
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  unsigned shared_bytes = 0;      // dynamic shared memory per CTA
  std::string shared_bytes_where; // file:line of `shared_bytes` ("" when the file has none)
  // `cooperative: true`: launched as cudaLaunchCooperativeKernel launches (grid-wide sync):
  // every CTA resident at once, the grid workspace in %envreg1:%envreg2.
  bool cooperative = false;
  std::vector<LaunchBuffer> buffers;
  std::vector<LaunchParam> params;
  std::vector<LaunchTexture> textures;
  // The host steps; a file without `steps:` is one launch. `application` tells them apart.
  std::vector<AppStep> steps;
  bool application = false;
  std::vector<VerifyFile> verify;
  // Things worth a warning that are not errors (a module variable the kernel names that
  // nothing initialises).
  std::vector<std::string> warnings;
  std::shared_ptr<const ptx::Module> module; // the parsed PTX
  // Every module `ptx:` lists, in order (modules[0] is `module`), and their resolved paths.
  std::vector<std::shared_ptr<const ptx::Module>> modules;
  std::vector<std::string> ptx_paths;
  // An application whose steps launch a kernel other than the file's, or that lists several
  // PTX files: every entry of every module is compiled (platform/gpu.h "Hosted kernels").
  bool several_kernels = false;

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

// The texture and surface objects of `spec.textures` over the buffers at `buffer_addr`.
ptx::TextureTable texture_table(const LaunchSpec& spec, const std::vector<uint64_t>& buffer_addr);

// Packs the kernel parameter buffer (entry layout) given each buffer's device address
// (`buffer_addr[i]` for `spec.buffers[i]`); integer scalars are evaluated over spec.vars, and
// a value outside its type's range throws ExprError naming the parameter.
std::vector<uint8_t> pack_params(const LaunchSpec& spec, const std::vector<uint64_t>& buffer_addr);
// The same for `params` of .entry `entry` (an application step's own parameters).
std::vector<uint8_t> pack_params(const LaunchSpec& spec, const std::vector<uint64_t>& buffer_addr,
                                 const ptx::Function& entry,
                                 const std::vector<LaunchParam>& params);
// The .entry `kernel` of the first of spec.modules that has one (nullptr: none).
const ptx::Function* find_entry(const LaunchSpec& spec, const std::string& kernel);
// "kernel 'k' cannot be loaded (why)" when a module of `spec` refused it, else "unknown kernel".
std::string no_entry(const LaunchSpec& spec, const std::string& kernel);
// Why `block` cannot launch .entry `f` (.reqntid / .maxntid), or "".
std::string block_error(const ptx::Function& f, const std::array<unsigned, 3>& block);

} // namespace gpurf
