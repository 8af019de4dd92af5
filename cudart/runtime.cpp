#include "runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cxxabi.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <sys/mman.h>
#include <unistd.h>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "fatbin.h"
#include "gpurf/modules/frontend/ptx/device_output.h"
#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/modules/frontend/ptx/link.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/data_path.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/host_interface.h"
#include "gpurf/platform/params.h"
#include "gpurf/platform/simulation.h"
#include "gpurf/platform/sm.h"
#include "gpurf/platform/stats.h"
#include "gpurf/platform/summary.h"

namespace gpurf::cudart {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kAllocAlign = 256, kPage = 4096;
constexpr uint64_t kParamBytes = 64 * 1024; // the launch's parameter buffer, below the windows

std::string env(const char* name, const std::string& def = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : def;
}

// The engine's view of the GPU's functional memory (module variables' initial values).
struct EngineMemory : ptx::GlobalMemory {
  explicit EngineMemory(IFunctionalMemory& m) : mem(m) {}
  void read(uint64_t a, void* d, unsigned n) override { mem.read(a, d, n); }
  void write(uint64_t a, const void* s, unsigned n) override { mem.write(a, s, n); }
  IFunctionalMemory& mem;
};

// Moves `bytes` between host memory and the GPU's functional memory in chunks.
void device_io(IFunctionalMemory& m, uint64_t dev, void* host, uint64_t bytes, bool write) {
  auto* h = static_cast<unsigned char*>(host);
  for (uint64_t done = 0; done < bytes;) {
    const unsigned n = unsigned(std::min<uint64_t>(bytes - done, uint64_t(1) << 24));
    if (write)
      m.write(dev + done, h + done, n);
    else
      m.read(dev + done, h + done, n);
    done += n;
  }
}

// `a` + `b`, counter by counter (the occupancy fields and strings are `b`'s; ipc recomputed).
nlohmann::ordered_json add_json(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
  if (a.is_null()) return b;
  nlohmann::ordered_json s = b;
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (!a.contains(it.key())) continue;
    const nlohmann::ordered_json& x = a[it.key()];
    if (it.value().is_object() && x.is_object())
      s[it.key()] = add_json(x, it.value());
    else if (it.value().is_number_unsigned() && x.is_number_unsigned() &&
             it.key().rfind("resident_", 0) != 0 && it.key() != "sm_count")
      s[it.key()] = x.get<uint64_t>() + it.value().get<uint64_t>();
  }
  if (s.contains("cycles") && s.contains("warp_instructions")) {
    const uint64_t c = s["cycles"], w = s["warp_instructions"];
    s["ipc"] = c ? double(w) / double(c) : 0.0;
  }
  add_hit_ratios(s); // of the sums, not the last launch's
  return s;
}

// "fan1(float*, float const*, int, int)" for "_Z4fan1PfPKfii" (the stderr line; the records
// keep the .entry's name).
std::string demangled(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : name;
  std::free(d);
  return s;
}

std::string dims(const dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// " [graph 1 launch 2 node 3]" for a graph's kernel node (Runtime::launch_mark), else "".
std::string mark_text(const nlohmann::ordered_json& m) {
  if (m.empty()) return "";
  return " [graph " + m["graph"].dump() + " launch " + m["graph_launch"].dump() + " node " +
         m["node"].get<std::string>() + "]";
}

// Whether the kernel's module reads a driver register (%envreg: the cooperative grid
// workspace of grid.sync()).
bool reads_envreg(const PtxFrontend& f) {
  for (const ptx::Function& fn : f.module().functions)
    for (const ptx::Instr& in : fn.instrs)
      for (const ptx::Operand& o : in.src)
        if (o.kind == ptx::Operand::Kind::Special && o.sreg == ptx::SReg::Envreg) return true;
  return false;
}

// The host side of the GPU's host interface: this library calls Gpu::launch directly, so the
// register socket and the interrupt are bound and never used.
struct HostSide : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<HostSide> regs{"regs"};
  sc_core::sc_signal<bool> irq{"irq"};
  HostSide(sc_core::sc_module_name nm, HostInterface& h) : sc_module(nm) {
    regs.bind(h.socket);
    h.irq.bind(irq);
  }
};

// The CUDA error of a launch refused with `error` (not sticky).
cudaError_t refusal_error(const std::string& error) {
  // Registers a block of that size cannot have: CUDA's "too many resources requested".
  if (error.find("the register banks (bank.count x bank.entries) hold") != std::string::npos)
    return cudaErrorLaunchOutOfResources;
  // A block beyond the kernel's __launch_bounds__ (.maxntid) or unlike its .reqntid: the same.
  if (error.find("host launch: block ") != std::string::npos) return cudaErrorLaunchOutOfResources;
  return error.find("cooperative launch of") != std::string::npos
             ? cudaErrorCooperativeLaunchTooLarge
             : cudaErrorInvalidConfiguration;
}

// A trap in a kernel that reads the cooperative grid workspace, launched without it: why.
void explain_trap(std::string& error, const PtxFrontend& f, bool cooperative) {
  if (!cooperative && error.find("trap: ") != std::string::npos && reads_envreg(f))
    error += " (the kernel reads the grid workspace a cooperative launch provides: grid.sync() "
             "needs cudaLaunchCooperativeKernel; CUDA traps too)";
}

// The CUDA error of a kernel that failed with `error` (sticky).
cudaError_t kernel_error(const std::string& error) {
  if (error.find("Assertion") != std::string::npos) return cudaErrorAssert;
  if (error.find("misaligned") != std::string::npos) return cudaErrorMisalignedAddress;
  if (error.find("out-of-bounds") != std::string::npos ||
      error.find("outside every allocation") != std::string::npos ||
      error.find("freed memory") != std::string::npos || error.find("address") != std::string::npos)
    return cudaErrorIllegalAddress;
  return cudaErrorLaunchFailure;
}

double cpu_now() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

} // namespace

std::recursive_mutex& api_mutex() {
  static std::recursive_mutex* m = new std::recursive_mutex; // lives as long as the Runtime
  return *m;
}

thread_local cudaError_t Runtime::last_error = cudaSuccess;
thread_local Runtime::CallStack Runtime::configs;

Runtime& Runtime::get() {
  static Runtime* r = new Runtime; // never destroyed: the program's exit must not tear SystemC down
  return *r;
}

Runtime::Runtime() : started_(std::chrono::steady_clock::now()) {
  quiet = !env("GPURF_QUIET").empty() && env("GPURF_QUIET") != "0";
  out_dir_ = env("GPURF_OUT");
}

namespace {

std::string archs_of(const std::vector<FatbinEntry>& entries) {
  std::string archs;
  for (const FatbinEntry& e : entries)
    archs += (archs.empty() ? "" : ", ") + std::string(e.kind == 1 ? "PTX " : "SASS ") + "sm_" +
             std::to_string(e.arch);
  return archs;
}

constexpr const char* kEmbedPtx = "build it with PTX embedded, e.g. `nvcc -cudart shared -gencode "
                                  "arch=compute_75,code=compute_75 ...`";

} // namespace

Module* Runtime::add_module(const void* wrapper) {
  auto m = std::make_unique<Module>();
  m->wrapper = wrapper;
  const std::string name = "module " + std::to_string(modules_.size());
  try {
    unsigned arch = 0;
    // nvcc -rdc=true: the device-linked SASS, and each translation unit's PTX to link here.
    const std::vector<const void*> units = prelinked_containers(wrapper);
    if (!units.empty()) {
      // One arch for all: the lowest of the units' highest PTX (a unit built for compute_75
      // beside libcudadevrt's many), each unit's best PTX not above it.
      std::vector<std::vector<FatbinEntry>> entries;
      arch = ~0u;
      for (size_t i = 0; i < units.size(); ++i) {
        entries.push_back(parse_fatbin_container(units[i]));
        unsigned a = 0;
        for (const FatbinEntry& e : entries.back())
          if (e.kind == 1) a = std::max(a, e.arch);
        if (!a)
          throw FatbinError("translation unit " + std::to_string(i) + " of " +
                            std::to_string(units.size()) +
                            " (a separately compiled program, nvcc -rdc=true) carries no PTX (" +
                            archs_of(entries.back()) + "): " + kEmbedPtx);
        arch = std::min(arch, a);
      }
      std::vector<ptx::PtxUnit> texts;
      for (size_t i = 0; i < units.size(); ++i)
        texts.push_back({select_ptx(entries[i], arch), name + " unit " + std::to_string(i)});
      m->ptx = ptx::link_ptx(texts);
      m->name = name + " (sm_" + std::to_string(arch) + ", " + std::to_string(units.size()) +
                " units linked)";
      m->arch = arch;
    } else {
      const std::vector<FatbinEntry> entries = parse_fatbin_wrapper(wrapper);
      m->ptx = select_ptx(entries, 0, &arch);
      if (m->ptx.empty() && !entries.empty()) // an empty container (a device-link stub) is none
        m->error = "the program carries no PTX (" + archs_of(entries) + "): " + kEmbedPtx;
      m->name = name + " (sm_" + std::to_string(arch) + ")";
      m->arch = arch;
    }
  } catch (const std::exception& e) {
    if (m->name.empty()) m->name = name;
    m->error = e.what();
  }
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

Module* Runtime::load_module(const void* image, std::string& why, cudaError_t& e) {
  driver_api = true;
  if ((e = status())) {
    why = "the device could not be set up (above)";
    return nullptr;
  }
  if (!image) {
    e = cudaErrorInvalidValue;
    why = "no image (null)";
    return nullptr;
  }
  const auto* b = static_cast<const uint8_t*>(image);
  uint32_t magic;
  std::memcpy(&magic, b, sizeof magic);
  auto m = std::make_unique<Module>();
  m->name = "module " + std::to_string(modules_.size()) + " (loaded at run time)";
  try {
    if (magic == 0x466243b1 || magic == 0xBA55ED50) { // a fat binary's wrapper, or a container
      const std::vector<FatbinEntry> entries =
          magic == 0x466243b1 ? parse_fatbin_wrapper(image) : parse_fatbin_container(image);
      m->ptx = select_ptx(entries, 0);
      if (m->ptx.empty()) {
        e = cudaErrorNoKernelImageForDevice;
        why = "the fat binary carries no PTX (" + archs_of(entries) + ")";
        return nullptr;
      }
    } else if (b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') {
      e = cudaErrorNoKernelImageForDevice;
      why = "the image is a cubin (ELF: SASS only); gpurf runs PTX: load PTX instead (nvcc "
            "-ptx, NVRTC's nvrtcGetPTX, or a fat binary with PTX)";
      return nullptr;
    } else {
      m->ptx = static_cast<const char*>(image); // PTX text, NUL-terminated
    }
    m->id = int(gpu().load_module_text(m->ptx, m->name));
    if (!gpu().kernel(uint32_t(m->id) << Gpu::kEntryBits)) { // no kernel runs: as bad PTX
      e = cudaErrorInvalidPtx;
      why = "no kernel of " + m->name + " can run";
      for (const ptx::Function& f : ptx::parse_ptx(m->ptx, m->name).functions)
        if (f.is_entry) try {
            gpu().find_kernel(f.name);
          } catch (const std::exception& x) {
            why = x.what();
            break;
          }
      return nullptr;
    }
  } catch (const std::exception& x) {
    e = cudaErrorInvalidPtx;
    why = x.what();
    return nullptr;
  }
  load_variables(*m);
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

const void* Runtime::module_function(Module* m, const std::string& name) {
  // One handle per (module, kernel), kept for the program's life: its address is the key.
  static std::map<std::pair<Module*, std::string>, std::unique_ptr<char>> handles;
  if (!m || m->id < 0) return nullptr;
  const auto handle = [&](uint32_t id, bool found) {
    std::unique_ptr<char>& h = handles[{m, name}];
    if (!h) h = std::make_unique<char>();
    KernelRec& k = kernels_[h.get()];
    k.module = m;
    k.name = name;
    k.id = id;
    k.found = found;
    return h.get();
  };
  for (uint32_t e = 0;; ++e) {
    const uint32_t id = uint32_t(m->id) << Gpu::kEntryBits | e;
    PtxFrontend* f = gpu().kernel(id);
    if (!f) break;
    if (f->kernel_name() == name) return handle(id, true);
  }
  // An .entry the model refused: a handle whose launch says why (not_runnable).
  for (const ptx::Function& f : ptx::parse_ptx(m->ptx, m->name).functions)
    if (f.is_entry && f.name == name) return handle(0, false);
  return nullptr;
}

void Runtime::add_kernel(Module* m, const void* host_fun, const char* name) {
  KernelRec& k = kernels_[host_fun];
  k.module = m;
  k.name = name;
}

void Runtime::add_var(Module* m, const void* host_var, const char* name, size_t bytes,
                      bool constant, void** managed_host_ptr) {
  VarRec& v = vars_[host_var];
  v.module = m;
  v.name = name;
  v.bytes = bytes;
  v.constant = constant;
  v.managed = managed_host_ptr != nullptr;
  v.managed_host_ptr = managed_host_ptr;
}

Gpu& Runtime::gpu() { return sim_->gpu(); }

cudaError_t Runtime::ensure() {
  if (finished_) {
    // A call from a global destructor or an atexit function registered before the runtime
    // started: the outputs are written and the simulation's statics may be gone. CUDA's
    // runtime has shut down by then too and answers every call so.
    static bool said = false;
    if (!said)
      std::fprintf(stderr, "gpurf: a CUDA call after the program's exit began (a global "
                           "destructor?): cudaErrorCudartUnloading, as CUDA's runtime answers "
                           "once it has shut down\n");
    said = true;
    return cudaErrorCudartUnloading;
  }
  if (built_) return init_error_;
  built_ = true;
  try {
    build();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpurf: %s\n", e.what());
    init_error_ = cudaErrorInitializationError;
    for (const auto& m : modules_)
      if (!m->error.empty() && m->ptx.empty()) init_error_ = cudaErrorNoKernelImageForDevice;
  }
  return init_error_;
}

void Runtime::build() {
  read_timed();
  ::setenv("SC_COPYRIGHT_MESSAGE", "DISABLE",
           0); // SystemC's banner would go to the program's stdout
  // The platform: a name in configs/ or a file.
  const std::string p = env("GPURF_PLATFORM", "fermi");
  platform_path_ = fs::exists(p) ? p : data_path("configs/" + p + ".yaml");
  platform_ = load_config(platform_path_);
  platform_name_ = fs::path(platform_path_).stem().string();
  std::istringstream params(env("GPURF_PARAMS"));
  for (std::string kv; std::getline(params, kv, ';');)
    if (!kv.empty()) apply_override(*platform_, kv);
  apply_override(*platform_, "gpu.hosted=true");
  // Kernels' printf: kept until the launch ends, then on the program's stdout (as CUDA's).
  ptx::set_device_output([this](const std::string& text) { device_text_ += text; });
  const FrontendOptions fo = frontend_options(*platform_);

  // Module 0 is the GPU's own: its first .entry builds the front-end the GPU is made with.
  std::vector<Module*> usable;
  for (const auto& m : modules_) {
    if (!m->error.empty()) throw std::runtime_error(m->name + ": " + m->error);
    if (!m->ptx.empty()) usable.push_back(m.get());
  }
  // The driver API: a program may register no kernel at all (its modules load later,
  // load_module). The GPU is then built around gpurf's module of one empty kernel, its register
  // space sized for any kernel (255 registers and predicates per thread; the platform may say
  // otherwise). A host-only translation unit registers a module without .entry: not loaded.
  // (Without the driver API such a module loads with an empty kernel: below.)
  Module* idle = nullptr;
  auto add_idle = [&](const char* name) {
    auto m = std::make_unique<Module>();
    m->name = name;
    m->ptx = ".version 7.0\n.target sm_75\n.address_size 64\n"
             ".visible .entry __gpurf_idle()\n{\n  ret;\n}\n";
    idle = m.get();
    modules_.push_back(std::move(m));
    usable.push_back(idle);
  };
  if (driver_api) {
    usable.erase(
        std::remove_if(usable.begin(), usable.end(),
                       [](const Module* m) { return m->ptx.find(".entry") == m->ptx.npos; }),
        usable.end());
    add_idle("gpurf's module for the driver API");
  }
  if (usable.empty())
    throw std::runtime_error(std::string("the program registered no PTX: ") + kEmbedPtx);
  // A translation unit without kernels (host code only, or __device__ variables alone; a
  // program with no kernel at all, as a device query or a bandwidth test) registers a module
  // without .entry: it loads with an empty kernel of its own, so that its variables exist, and
  // comes after the modules with kernels, whose first runnable one is the GPU's own.
  std::stable_partition(usable.begin(), usable.end(),
                        [](const Module* m) { return m->ptx.find(".entry") != m->ptx.npos; });
  for (Module* m : usable)
    if (m->ptx.find(".entry") == m->ptx.npos)
      m->ptx += "\n.visible .entry __gpurf_idle()\n{\n  ret;\n}\n";
  // The GPU's own kernel: the first .entry the model can run (a module whose every kernel is
  // refused, or an entry it cannot run, still loads later, so that launching one says why).
  // ptxas (when found) reads a file: the text goes to a temporary one while the module's
  // kernels compile (here and in the GPU's constructor).
  const fs::path tmp =
      fs::temp_directory_path() / ("gpurf-cudart-" + std::to_string(::getpid()) + ".ptx");
  struct Remove {
    fs::path p;
    ~Remove() {
      std::error_code ec;
      fs::remove(p, ec);
    }
  } remove{tmp};
  LaunchSpec spec;
  std::string why = "no .entry";
  for (size_t i = 0; i < usable.size() && !frontend_; ++i) {
    spec = module_spec(*usable[i], tmp);
    if (!spec.module->refused.empty())
      why = spec.module->no_entry(spec.module->refused.begin()->first);
    for (const ptx::Function& f : spec.module->functions) {
      if (!f.is_entry || !f.has_body) continue;
      spec.kernel = spec.name = f.name;
      try {
        frontend_ = std::make_unique<PtxFrontend>(spec, fo);
      } catch (const std::exception& e) {
        why = e.what();
        continue;
      }
      std::swap(usable[0], usable[i]);
      break;
    }
  }
  if (!frontend_ && !idle && !usable.empty()) {
    // No kernel of the program can run here: the GPU is built around the idle kernel, so
    // that the program's other calls work and the launch of a refused kernel fails saying
    // why (as CUDA fails a kernel without an image for the device), not every call.
    std::fprintf(stderr, "gpurf: warning: %s: no kernel can be loaded: %s\n",
                 usable.back()->name.c_str(), why.c_str());
    add_idle("gpurf's module for a program whose kernels are all refused");
    spec = module_spec(*idle, tmp);
    spec.kernel = spec.name = "__gpurf_idle";
    frontend_ = std::make_unique<PtxFrontend>(spec, fo);
    std::swap(usable[0], usable.back());
  }
  if (!frontend_)
    throw std::runtime_error(usable.back()->name + ": no kernel can be loaded: " + why);
  if (usable[0] == idle)
    for (const char* key : {"hosted_registers", "hosted_predicates"})
      if (!platform_->find_path(std::string("gpu.") + key))
        apply_override(*platform_, std::string("gpu.") + key + "=255");
  for (const std::string& w : frontend_->warnings())
    std::fprintf(stderr, "gpurf: warning: %s\n", w.c_str());
  size_registers(usable, tmp);
  SimOptions so;
  so.hosted = true;
  sim_ = std::make_unique<Simulation>(*platform_, *frontend_, frontend_->regs_per_thread(), so);
  gpu().run_ahead(true); // each launch's sc_start runs until no event is left
  static HostSide* host =
      new HostSide("cudart_host", gpu().host()); // lives as long as the simulation
  (void)host;
  usable[0]->id = 0;
  for (size_t i = 1; i < usable.size(); ++i)
    usable[i]->id = int(gpu().load_module_text(usable[i]->ptx, usable[i]->name));
  for (auto& [fun, k] : kernels_) {
    if (!k.module || k.module->id < 0) continue;
    for (uint32_t e = 0;; ++e) {
      PtxFrontend* f = gpu().kernel(uint32_t(k.module->id) << Gpu::kEntryBits | e);
      if (!f) break;
      if (f->kernel_name() == k.name) {
        k.id = uint32_t(k.module->id) << Gpu::kEntryBits | e;
        k.found = true;
      }
    }
  }
  sc_core::sc_start(sc_core::SC_ZERO_TIME); // elaboration ends: memory writes go straight in
  load_variables();

  // The allocation window: from the launch files' buffer base to below the timing-only
  // windows; reserved in the process so that managed memory has the same host address.
  const uint64_t base = PtxFrontend::kBufferBase, end = fo.window_base - kParamBytes;
  param_address_ = end;
  gaps_[base] = end - base;
  void* want = reinterpret_cast<void*>(base);
  void* got = ::mmap(want, end - base, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  host_window_ = got == want;
  if (got != MAP_FAILED && got != want) ::munmap(got, end - base);
  if (!out_dir_.empty()) fs::create_directories(out_dir_);
  // The outputs at exit: registered now, after the statistics' registry and the units'
  // statics exist, so that it runs before their destructors (atexit runs in reverse order;
  // the fat binaries' unregistration, registered before main, would run after them).
  std::atexit([] {
    const std::lock_guard<std::recursive_mutex> lock(api_mutex()); // a thread still calling
    Runtime::get().finish();
  });
}

// A module's PTX parsed and written to `tmp` (ptxas, when it runs, reads a file), as the
// launch of none of its kernels yet.
LaunchSpec Runtime::module_spec(const Module& m, const fs::path& tmp) {
  LaunchSpec spec;
  spec.module = std::make_shared<const ptx::Module>(ptx::parse_ptx(m.ptx, m.name));
  std::ofstream(tmp) << m.ptx;
  spec.file = m.name;
  spec.ptx_path = tmp.string();
  return spec;
}

// The SMs' register space is sized when the GPU is built, by its own module's kernels (and
// gpu.hosted_registers / hosted_predicates); the program's other modules are loaded after it.
// Their kernels are compiled here first, so that the space holds the largest of every module.
void Runtime::size_registers(const std::vector<Module*>& usable, const fs::path& tmp) {
  if (usable.size() < 2) return;
  const FrontendOptions fo = frontend_options(*platform_);
  unsigned regs[2] = {0, 0}, preds[2] = {0, 0}; // the GPU's module's, the others'
  for (size_t i = 0; i < usable.size(); ++i) {
    LaunchSpec spec = module_spec(*usable[i], tmp);
    for (const ptx::Function& f : spec.module->functions) {
      if (!f.is_entry || !f.has_body) continue;
      spec.kernel = spec.name = f.name;
      try {
        const PtxFrontend k(spec, fo);
        regs[i > 0] = std::max(regs[i > 0], k.regs_per_thread());
        preds[i > 0] = std::max(preds[i > 0], k.preds_per_thread());
      } catch (const std::exception&) { // not runnable: refused at its launch, saying why
      }
    }
  }
  std::ofstream(tmp) << usable[0]->ptx; // the GPU's own module, which the GPU compiles next
  // Only where another module needs more (the platform as resolved shows it).
  auto at_least = [&](const char* key, const unsigned n[2]) {
    const ConfigNode* v = platform_->find_path(std::string("gpu.") + key);
    if (n[1] > n[0] && (!v || std::strtoul(v->scalar.c_str(), nullptr, 10) < n[1]))
      apply_override(*platform_, std::string("gpu.") + key + "=" + std::to_string(n[1]));
  };
  at_least("hosted_registers", regs);
  at_least("hosted_predicates", preds);
}

void Runtime::load_variables() {
  // Each module's variables get their initial values now (not at its first launch), so that
  // cudaMemcpyToSymbol before the first launch stays.
  for (const auto& m : modules_)
    if (m->id >= 0) load_variables(*m);
}

void Runtime::load_variables(Module& module) {
  Module* m = &module;
  EngineMemory mem(gpu().functional_memory());
  {
    PtxFrontend* k0 = gpu().kernel(uint32_t(m->id) << Gpu::kEntryBits);
    if (!k0) return; // every kernel refused: its variables are not placed
    ptx::LaunchConfig c;
    c.grid = ptx::Dim3(1, 1, 1);
    c.block = ptx::Dim3(1, 1, 1);
    c.data_base = k0->options().data_base;
    c.data_limit = PtxFrontend::kDataBytes;
    c.init_data = true;
    const std::vector<uint8_t> zeros(k0->launch().entry().param_bytes, 0);
    const ptx::Kernel k(*k0->launch().module, k0->kernel_name(), c, zeros, mem);
    k0->module_initialized();
    // Every module's variables are live allocations for every kernel: a kernel may reach
    // another module's __device__ array through a pointer (cudaGetSymbolAddress).
    for (const ptx::VarDecl& v : k.module().vars)
      if ((v.space == ptx::Space::Global || v.space == ptx::Space::Const) && v.size) {
        checked_.add(k.symbol_address(v.name), v.size, "variable '" + v.name + "' of " + m->name);
        m->globals[v.name] = {k.symbol_address(v.name), v.size};
      }
    for (auto& [host, v] : vars_)
      if (v.module == m) {
        v.address = k.symbol_address(v.name);
        if (v.managed) map_managed_variable(v);
      }
  }
}

// A __managed__ variable: the host reaches it through the pointer nvcc's code registered, set
// to its device address, where the module variables' window is mapped in the process too; its
// bytes go to the device before each launch and back after it, as managed allocations'.
void Runtime::map_managed_variable(VarRec& v) {
  const uint64_t db = frontend_->options().data_base;
  if (!data_window_) {
    void* want = reinterpret_cast<void*>(db);
    void* got = ::mmap(want, PtxFrontend::kDataBytes, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got != want) {
      if (got != MAP_FAILED) ::munmap(got, PtxFrontend::kDataBytes);
      throw std::runtime_error("__managed__ variable '" + v.name +
                               "': the module variables' window at frontend.data_base is taken "
                               "in this process");
    }
    data_window_ = true;
  }
  const uint64_t first = v.address / kPage * kPage;
  const uint64_t last = (v.address + std::max<uint64_t>(v.bytes, 1) + kPage - 1) / kPage * kPage;
  ::mprotect(reinterpret_cast<void*>(first), last - first, PROT_READ | PROT_WRITE);
  device_io(gpu().functional_memory(), v.address, reinterpret_cast<void*>(v.address), v.bytes,
            false);
  if (v.managed_host_ptr) *v.managed_host_ptr = reinterpret_cast<void*>(v.address);
}

cudaError_t Runtime::status() {
  if (sticky && !finished_) return sticky;
  return ensure();
}

cudaError_t Runtime::record(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

// ------------------------------------------------------------------------------------ memory

cudaError_t Runtime::malloc(void** p, uint64_t bytes, AllocKind kind, const char* what) {
  if (!p) return cudaErrorInvalidValue;
  if (cudaError_t e = status()) return e;
  const uint64_t align = kind == AllocKind::Device ? kAllocAlign : kPage;
  const uint64_t size = std::max<uint64_t>((bytes + align - 1) / align * align, align);
  if (kind != AllocKind::Device && !host_window_) {
    std::fprintf(stderr,
                 "gpurf: %s: the device address window [0x%llx, 0x%llx) is taken in this "
                 "process, so memory the host and the device share cannot be placed\n",
                 kind == AllocKind::Managed ? "cudaMallocManaged" : "cudaMallocHost",
                 (unsigned long long)PtxFrontend::kBufferBase, (unsigned long long)param_address_);
    return cudaErrorMemoryAllocation;
  }
  for (auto it = gaps_.begin(); it != gaps_.end(); ++it) {
    const uint64_t at = (it->first + align - 1) / align * align;
    if (at + size > it->first + it->second) continue;
    const uint64_t gap_base = it->first, gap_end = it->first + it->second;
    gaps_.erase(it);
    if (at > gap_base) gaps_[gap_base] = at - gap_base;
    if (at + size < gap_end) gaps_[at + size] = gap_end - at - size;
    live_[at] = Allocation{size, kind};
    checked_.add(at, std::max<uint64_t>(bytes, 1),
                 std::string(what                         ? what
                             : kind == AllocKind::Device  ? "cudaMalloc"
                             : kind == AllocKind::Managed ? "cudaMallocManaged"
                                                          : "cudaMallocHost") +
                     " allocation of " + std::to_string(bytes) + " bytes");
    if (kind != AllocKind::Device && kind != AllocKind::Registered) {
      void* h = reinterpret_cast<void*>(at);
      ::mprotect(h, size, PROT_READ | PROT_WRITE);
      std::memset(h, 0, size);
    }
    *p = reinterpret_cast<void*>(at);
    return cudaSuccess;
  }
  return cudaErrorMemoryAllocation;
}

cudaError_t Runtime::free(void* p, bool host) {
  if (!p) return cudaSuccess;
  if (cudaError_t e = status()) return e;
  auto it = live_.find(reinterpret_cast<uint64_t>(p));
  if (it == live_.end() || (host != (it->second.kind == AllocKind::Host)))
    return cudaErrorInvalidValue; // CUDA 13's cudaFree and cudaFreeHost: "invalid argument"
  uint64_t base = it->first, size = it->second.bytes;
  if (it->second.kind != AllocKind::Device && it->second.kind != AllocKind::Registered)
    ::mprotect(p, size, PROT_NONE);
  live_.erase(it);
  checked_.free(base);
  // Merge with the neighbouring gaps.
  auto next = gaps_.lower_bound(base);
  if (next != gaps_.end() && next->first == base + size) {
    size += next->second;
    gaps_.erase(next);
  }
  auto prev = gaps_.lower_bound(base);
  if (prev != gaps_.begin()) {
    --prev;
    if (prev->first + prev->second == base) {
      base = prev->first;
      size += prev->second;
      gaps_.erase(prev);
    }
  }
  gaps_[base] = size;
  return cudaSuccess;
}

const Allocation* Runtime::allocation_of(uint64_t a, uint64_t* base) const {
  auto it = live_.upper_bound(a);
  if (it == live_.begin()) return nullptr;
  --it;
  if (a >= it->first + it->second.bytes) return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

void* Runtime::host_view(uint64_t a) const {
  uint64_t base = 0;
  const Allocation* al = allocation_of(a, &base);
  if (al && al->kind == AllocKind::Registered) return static_cast<char*>(al->host) + (a - base);
  return reinterpret_cast<void*>(a);
}

uint64_t Runtime::device_view(const void* p) const {
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  if (const Allocation* al = allocation_of(a)) return al->kind == AllocKind::Device ? 0 : a;
  for (const auto& [base, al] : live_)
    if (al.kind == AllocKind::Registered && p >= al.host &&
        p < static_cast<const char*>(al.host) + al.bytes)
      return base + (static_cast<const char*>(p) - static_cast<const char*>(al.host));
  return 0;
}

// The range gets a window allocation of its size (page-rounded, as other host memory) that
// to_device/to_host keep equal to the program's memory around every launch; copies through
// its window address read and write the program's memory (host_view).
cudaError_t Runtime::host_register(void* p, uint64_t bytes, unsigned flags) {
  if (cudaError_t e = status()) return e;
  if (!p || !bytes) return cudaErrorInvalidValue;
  const char* lo = static_cast<const char*>(p);
  for (const auto& [base, al] : live_) {
    if (al.kind != AllocKind::Registered) continue;
    const char* h = static_cast<const char*>(al.host);
    if (lo < h + al.bytes && h < lo + bytes) return cudaErrorHostMemoryAlreadyRegistered;
  }
  if (device_view(p)) return cudaErrorHostMemoryAlreadyRegistered; // cudaMallocHost memory
  void* at = nullptr;
  if (cudaError_t e = malloc(&at, bytes, AllocKind::Registered, "cudaHostRegister")) return e;
  Allocation& al = live_.at(reinterpret_cast<uint64_t>(at));
  al.bytes = bytes; // the program's range, not the page-rounded size
  al.host = p;
  al.flags = flags;
  return cudaSuccess;
}

cudaError_t Runtime::host_unregister(void* p) {
  if (cudaError_t e = status()) return e;
  for (auto& [base, al] : live_)
    if (al.kind == AllocKind::Registered && al.host == p) {
      const uint64_t pages = (al.bytes + kPage - 1) / kPage * kPage;
      al.bytes = pages; // free() returns the whole window range
      al.kind = AllocKind::Host;
      return free(reinterpret_cast<void*>(base), true);
    }
  return cudaErrorHostMemoryNotRegistered;
}

bool Runtime::device_range(uint64_t a, uint64_t bytes) const {
  // A device-only allocation, or the modules' variables.
  auto it = live_.upper_bound(a);
  if (it != live_.begin()) {
    --it;
    if (a >= it->first && a + bytes <= it->first + it->second.bytes)
      return it->second.kind == AllocKind::Device;
  }
  if (!built_ || !frontend_) return false;
  for (const auto& [h, v] : vars_) // a __managed__ variable: the host's copy is the current one
    if (v.managed && a >= v.address && a < v.address + v.bytes) return false;
  const uint64_t db = frontend_->options().data_base;
  return a >= db && a + bytes <= db + PtxFrontend::kDataBytes;
}

bool Runtime::allocated(uint64_t a, uint64_t bytes) const {
  auto it = live_.upper_bound(a);
  if (it != live_.begin()) {
    --it;
    if (a >= it->first && a + bytes <= it->first + it->second.bytes) return true;
  }
  return device_range(a, bytes);
}

bool Runtime::stray(uint64_t a, uint64_t bytes, const char* what) const {
  if (a + bytes <= PtxFrontend::kBufferBase || a >= param_address_) return false;
  auto it = live_.upper_bound(a);
  if (it != live_.begin()) {
    --it;
    if (a >= it->first && a + bytes <= it->first + it->second.bytes) return false;
  }
  std::fprintf(stderr,
               "gpurf: %s: [0x%llx, 0x%llx) is in the device memory window but not inside one "
               "live allocation (freed, or past its end)\n",
               what, (unsigned long long)a, (unsigned long long)(a + bytes));
  return true;
}

cudaError_t Runtime::memcpy(void* dst, const void* src, uint64_t bytes, int kind) {
  if (cudaError_t e = status()) return e;
  if (kind < 0 || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (!bytes) return cudaSuccess;
  const uint64_t d = reinterpret_cast<uint64_t>(dst), s = reinterpret_cast<uint64_t>(src);
  if (stray(d, bytes, "cudaMemcpy destination") || stray(s, bytes, "cudaMemcpy source"))
    return cudaErrorInvalidValue;
  const bool dd = device_range(d, bytes), sd = device_range(s, bytes);
  IFunctionalMemory& m = gpu().functional_memory();
  dst = host_view(d), src = host_view(s); // a registered range's window address: its memory
  if (!dd && !sd) {
    std::memmove(dst, src, bytes);
  } else if (dd && !sd) {
    device_io(m, d, const_cast<void*>(src), bytes, true);
  } else if (!dd && sd) {
    device_io(m, s, dst, bytes, false);
  } else {
    std::vector<unsigned char> tmp(bytes);
    device_io(m, s, tmp.data(), bytes, false);
    device_io(m, d, tmp.data(), bytes, true);
  }
  return cudaSuccess;
}

cudaError_t Runtime::memset(void* dst, int value, uint64_t bytes) {
  if (cudaError_t e = status()) return e;
  const uint64_t d = reinterpret_cast<uint64_t>(dst);
  if (bytes && stray(d, bytes, "cudaMemset")) return cudaErrorInvalidValue;
  if (!device_range(d, bytes)) {
    std::memset(host_view(d), value, bytes);
    return cudaSuccess;
  }
  std::vector<unsigned char> tmp(std::min<uint64_t>(bytes, uint64_t(1) << 24),
                                 static_cast<unsigned char>(value));
  for (uint64_t done = 0; done < bytes; done += tmp.size())
    device_io(gpu().functional_memory(), d + done, tmp.data(),
              std::min<uint64_t>(tmp.size(), bytes - done), true);
  return cudaSuccess;
}

const VarRec* Runtime::var(const void* host_var) const {
  auto it = vars_.find(host_var);
  return it == vars_.end() ? nullptr : &it->second;
}

void Runtime::to_device() {
  for (auto& [a, al] : live_)
    if (al.kind != AllocKind::Device)
      device_io(gpu().functional_memory(), a, al.host ? al.host : reinterpret_cast<void*>(a),
                al.bytes, true);
  for (auto& [h, v] : vars_)
    if (v.managed && v.address)
      device_io(gpu().functional_memory(), v.address, reinterpret_cast<void*>(v.address), v.bytes,
                true);
}

void Runtime::to_host() {
  for (auto& [a, al] : live_)
    if (al.kind != AllocKind::Device)
      device_io(gpu().functional_memory(), a, al.host ? al.host : reinterpret_cast<void*>(a),
                al.bytes, false);
  for (auto& [h, v] : vars_)
    if (v.managed && v.address)
      device_io(gpu().functional_memory(), v.address, reinterpret_cast<void*>(v.address), v.bytes,
                false);
}

// ------------------------------------------------------------------------------------ launch

// A CTA's shared memory as a launch of `block` threads and `dynamic` bytes counts it: the
// kernel's .shared variables (placed by the engine, as at a launch) and the dynamic bytes.
unsigned cta_shared(const KernelRec& k, unsigned block, size_t dynamic) {
  PtxFrontend* f = Runtime::get().gpu().kernel(k.id);
  ptx::SparseMemory scratch;
  ptx::LaunchConfig c;
  c.init_data = false;
  c.data_base = f->options().data_base;
  c.block = ptx::Dim3(block);
  c.dyn_shared_bytes = unsigned(dynamic);
  const std::vector<uint8_t> params(f->launch().entry().param_bytes, 0);
  return ptx::Kernel(f->module(), f->kernel_name(), c, params, scratch).shared_bytes();
}

size_t Runtime::dynamic_shared_limit(const KernelRec& k) {
  if (k.max_dynamic_shared >= 0) return size_t(k.max_dynamic_shared);
  cudaDeviceProp p;
  if (properties(p) != cudaSuccess || !k.found) return 0;
  try { // CUDA's default: sharedMemPerBlock (48 KB) less the kernel's .shared variables
    const size_t fixed = cta_shared(k, 1, 0);
    return p.sharedMemPerBlock > fixed ? p.sharedMemPerBlock - fixed : 0;
  } catch (const std::exception&) { // refused at its launch
    return 0;
  }
}

KernelRec* Runtime::kernel(const void* fun) {
  auto it = kernels_.find(fun);
  return it == kernels_.end() ? nullptr : &it->second;
}

cudaError_t Runtime::not_runnable(const void* fun, const char* call) {
  const KernelRec* k = kernel(fun);
  std::string why = std::string(call) + " of a function that is no registered kernel" +
                    (k ? " ('" + k->name + "' is in no module with PTX)" : std::string());
  if (k && k->module && k->module->id >= 0) try { // a refused kernel: its reason
      gpu().find_kernel(k->name);
    } catch (const std::exception& e) {
      why = std::string(call) + " of '" + k->name + "': refused: " + e.what();
    }
  std::fprintf(stderr, "gpurf: %s\n", why.c_str());
  return cudaErrorInvalidDeviceFunction;
}

double Runtime::now_ns() const { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

cudaError_t Runtime::launch(const void* fun, dim3 grid, dim3 block, void** args, size_t shared,
                            cudaStream_t, bool cooperative) {
  if (cudaError_t e = status()) return e;
  KernelRec* k = kernel(fun);
  if (!k || !k->found) return not_runnable(fun, "launch");
  // More dynamic shared memory than the kernel's attribute allows: CUDA's "invalid argument"
  // (not sticky), whatever the SM holds.
  if (shared > 0 && shared > dynamic_shared_limit(*k)) {
    cudaDeviceProp p;
    properties(p);
    size_t fixed = 0;
    try {
      fixed = cta_shared(*k, 1, 0);
    } catch (const std::exception&) { // refused at its launch
    }
    std::fprintf(stderr,
                 "gpurf: launch of '%s': refused: %zu bytes of dynamic shared memory, above the "
                 "kernel's cudaFuncAttributeMaxDynamicSharedMemorySize, %zu (cudaFuncSetAttribute "
                 "may raise it to %zu: sharedMemPerBlockOptin %zu less the kernel's %zu static "
                 "bytes) (cudaErrorInvalidValue)\n",
                 k->name.c_str(), shared, dynamic_shared_limit(*k),
                 p.sharedMemPerBlockOptin > fixed ? p.sharedMemPerBlockOptin - fixed : 0,
                 p.sharedMemPerBlockOptin, fixed);
    ++failed_launches_;
    return cudaErrorInvalidValue;
  }
  PtxFrontend* f = gpu().kernel(k->id);
  const ptx::Function& entry = f->launch().entry();
  // The arguments in the .entry's parameter layout.
  std::vector<uint8_t> params(std::max(entry.param_bytes, 1u), 0);
  for (size_t i = 0; i < entry.params.size(); ++i) {
    if (!args || !args[i]) return cudaErrorInvalidValue;
    std::memcpy(params.data() + entry.params[i].offset, args[i], entry.params[i].size);
  }
  const cudaError_t e = run(k, grid, block, std::move(params), shared, cooperative, 0, 0);
  device_launches.reset(); // the grid and all its descendants have run
  return e;
}

// Whether a kernel of the module launches kernels (calls the device runtime's launch).
bool Runtime::launches_kernels(const ptx::Module& m) {
  auto [it, added] = launches_kernels_.emplace(&m, false);
  if (added)
    for (const ptx::Function& fn : m.functions)
      for (const ptx::Instr& in : fn.instrs)
        if (in.op == ptx::Op::Call)
          for (const int c : in.callees())
            if (c >= 0 && m.functions[size_t(c)].name.rfind("__cudaCDP2LaunchDevice", 0) == 0)
              it->second = true;
  return it->second;
}

cudaError_t Runtime::run(KernelRec* k, dim3 grid, dim3 block, std::vector<uint8_t> params,
                         size_t shared, bool cooperative, uint64_t parent, unsigned depth) {
  PtxFrontend* f = gpu().kernel(k->id);
  if (params.size() > kParamBytes) return cudaErrorInvalidValue;
  IFunctionalMemory& m = gpu().functional_memory();
  device_io(m, param_address_, params.data(), params.size(), true);
  to_device();
  if (heap.empty() && f->module().function_index("malloc") >= 0) {
    void* base = nullptr;
    if (cudaError_t e = malloc(&base, limits[2], AllocKind::Device, "the device malloc heap"))
      return e;
    heap = ptx::DeviceHeap(reinterpret_cast<uint64_t>(base), limits[2]);
  }
  if (device_launches.empty() && launches_kernels(f->module())) {
    // Room for cudaLimitDevRuntimePendingLaunchCount buffers of the module's largest kernel
    // parameters (16-byte aligned).
    uint64_t most = 16;
    for (const ptx::Function& fn : f->module().functions)
      if (fn.is_entry) most = std::max<uint64_t>(most, (fn.param_bytes + 15) / 16 * 16);
    const uint64_t bytes = most * std::max<size_t>(limits[4], 1);
    void* base = nullptr;
    if (cudaError_t e =
            malloc(&base, bytes, AllocKind::Device, "the device runtime's parameter buffers"))
      return e;
    device_launches = ptx::DeviceLaunches(reinterpret_cast<uint64_t>(base), bytes);
  }
  device_launches.pending_limit = limits[4];
  device_launches.depth = depth;
  device_launches.last_error.clear();
  PtxFrontend::HostLaunch h;
  h.grid = {grid.x, grid.y, grid.z};
  h.block = {block.x, block.y, block.z};
  h.shared_bytes = unsigned(shared);
  h.param_address = param_address_;
  h.allocations = &checked_;
  h.cooperative = cooperative;
  h.textures = &textures.table();
  h.heap = &heap;
  h.stack_bytes = limits[0]; // cudaLimitStackSize: a recursive kernel's depth
  h.device_launches = device_launches.empty() ? nullptr : &device_launches;
  if (!timed_.timed(launches_ + 1, k->name)) {
    const cudaError_t e = fast_forward(*k, h, grid, block, shared, parent);
    return e ? e : run_children(*k, launches_, depth);
  }
  const uint64_t winst0 = gpu().retired(), checked0 = sum_stat("collector", "operands_checked");
  const double t0 = now_ns();
  ++launches_;
  std::string what = "launch " + std::to_string(launches_) + " " + demangled(k->name) + " grid " +
                     dims(grid) + " block " + dims(block) + from_parent(parent) +
                     mark_text(launch_mark);
  std::string error;
  if (!gpu().launch(h, k->id)) {
    // A failure of the kernel itself in Malekeh's profile run (a functional run of the first
    // warps inside the launch) is the kernel's failure; anything else refuses the launch.
    error = gpu().error();
    if (error.find("the profile run failed") == std::string::npos) {
      std::fprintf(stderr, "gpurf: %s: refused: %s\n", what.c_str(), error.c_str());
      ++failed_launches_;
      --launches_;
      return refusal_error(error);
    }
  }
  device_text_.clear(); // printf of the profile run: the kernel's own comes when it runs
  const uint64_t c0 = gpu().cycles();
  if (error.empty()) sc_core::sc_start();
  const uint64_t cycles = gpu().cycles() - c0, winst = gpu().retired() - winst0;
  if (error.empty() && !gpu().finished()) error = gpu().error();
  if (error.empty() && !gpu().finished()) error = "the kernel did not finish";
  if (error.empty()) {
    const std::string broken = gpu().broken_identities();
    if (!broken.empty()) error = "conservation identities broken:" + broken;
  }
  explain_trap(error, *f, cooperative);
  const bool checked = sum_stat("collector", "operands_checked") > checked0;
  const bool verified = error.empty() && checked;
  if (!verified) ++unverified_;
  end_launch();
  cudaError_t result = cudaSuccess;
  if (!error.empty()) {
    ++failed_launches_;
    sticky = result = kernel_error(error);
  }
  // The launch's counters: the summary's counters now minus after the previous launch.
  nlohmann::ordered_json now = {{"cycles", gpu().cycles()}, {"warp_instructions", gpu().retired()}};
  add_counters(now);
  nlohmann::ordered_json rec = launch_delta(counters_, now);
  counters_ = now;
  rec["cycles"] = cycles; // the kernel's own (the SMs' clock runs from time 0)
  rec["ipc"] = cycles ? double(winst) / double(cycles) : 0.0;
  const double ipc = rec["ipc"];
  if (!quiet) {
    std::fprintf(stderr, "gpurf: %s: %llu cycles, IPC %.3f, %s\n", what.c_str(),
                 (unsigned long long)cycles, ipc,
                 verified        ? "verified"
                 : error.empty() ? "unchecked"
                                 : ("FAILED: " + error).c_str());
  }
  nlohmann::ordered_json j;
  j["launch"] = launches_;
  j["kernel"] = k->name;
  j["grid"] = {grid.x, grid.y, grid.z};
  j["block"] = {block.x, block.y, block.z};
  j["shared_bytes"] = shared;
  if (parent) j["parent"] = parent; // a device launch: the launch whose grid made it
  for (auto it = launch_mark.begin(); it != launch_mark.end(); ++it) j[it.key()] = it.value();
  j["timed"] = true;
  j["verified"] = verified;
  j["error"] = error;
  j["start_ns"] = t0;
  j["end_ns"] = now_ns();
  for (auto it = rec.begin(); it != rec.end(); ++it) j[it.key()] = it.value();
  // Per kernel: the sum of its launches (summary.json, a row per kernel for gpurf compare).
  PerKernel& pk = per_kernel_[k->name];
  pk.sum = add_json(pk.sum, rec);
  ++pk.launches;
  pk.verified = pk.verified && verified;
  if (pk.error.empty()) pk.error = error;
  if (!out_dir_.empty()) write_launch(j.dump());
  return result ? result : run_children(*k, launches_, depth);
}

std::string Runtime::from_parent(uint64_t parent) {
  return parent ? " (device launch from launch " + std::to_string(parent) + ")" : "";
}

// CUDA lets the children of a grid run at any time before the grid counts as complete, in
// order within a stream, a tail launch after all of the grid's other work; gpurf runs them
// when the grid has ended, one after another in the order they were made (tail launches
// last), each child's own descendants before the next child: a legal schedule.
cudaError_t Runtime::run_children(const KernelRec& parent_k, uint64_t parent, unsigned depth) {
  std::vector<ptx::DeviceLaunch> q = device_launches.take();
  std::stable_partition(q.begin(), q.end(), [](const ptx::DeviceLaunch& l) {
    return l.stream != ptx::kStreamTailLaunch;
  });
  cudaError_t result = cudaSuccess;
  const ptx::Module& m = gpu().kernel(parent_k.id)->module();
  for (const ptx::DeviceLaunch& l : q) {
    device_launches.started();
    const ptx::Function& entry = m.functions[size_t(l.function)];
    std::vector<uint8_t> params(std::max(entry.param_bytes, 1u), 0);
    device_io(gpu().functional_memory(), l.buffer, params.data(),
              std::min<uint64_t>(l.buffer_bytes, entry.param_bytes), false);
    device_launches.release(l.buffer);
    if (result || sticky) continue; // a failed launch: CUDA runs none of what follows
    const std::string& name = entry.name;
    KernelRec* k = nullptr;
    for (auto& [h, r] : kernels_)
      if (r.module == parent_k.module && r.name == name && r.found) k = &r;
    if (!k) {
      std::fprintf(stderr, "gpurf: device launch of '%s'%s: refused: no registered kernel\n",
                   name.c_str(), from_parent(parent).c_str());
      result = cudaErrorInvalidDeviceFunction;
      continue;
    }
    result = run(k, dim3{l.grid[0], l.grid[1], l.grid[2]}, dim3{l.block[0], l.block[1], l.block[2]},
                 std::move(params), l.shared_bytes, false, parent, depth + 1);
  }
  return result;
}

void Runtime::end_launch() {
  to_host();
  if (!device_text_.empty()) {
    std::fwrite(device_text_.data(), 1, device_text_.size(), stdout);
    device_text_.clear();
  }
  std::fflush(stdout);
}

// The launch runs at once on the functional engine (PtxFrontend::fast_forward), on the same
// device bytes, with the same memory checks, printf, assert and errors as a timed launch; it
// takes no simulated time and adds nothing to the timing model's statistics (caches stay as
// the last timed launch left them).
cudaError_t Runtime::fast_forward(const KernelRec& k, const PtxFrontend::HostLaunch& h, dim3 grid,
                                  dim3 block, size_t shared, uint64_t parent) {
  const double cpu0 = cpu_now();
  const auto wall0 = std::chrono::steady_clock::now();
  PtxFrontend::FastForward r = gpu().fast_forward(h, k.id);
  explain_trap(r.error, *gpu().kernel(k.id), h.cooperative);
  const std::string what = "launch " + std::to_string(launches_ + 1) + " " + demangled(k.name) +
                           " grid " + dims(grid) + " block " + dims(block) + from_parent(parent) +
                           mark_text(launch_mark);
  if (!r.refused.empty()) {
    device_text_.clear();
    std::fprintf(stderr, "gpurf: %s: refused: %s\n", what.c_str(), r.refused.c_str());
    ++failed_launches_;
    return refusal_error(r.refused);
  }
  ++launches_;
  end_launch();
  const double cpu = cpu_now() - cpu0,
               wall =
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  ++ff_.launches;
  ff_.warp_instructions += r.warp_instructions;
  ff_.cpu_seconds += cpu;
  ff_.host_seconds += wall;
  cudaError_t result = cudaSuccess;
  if (!r.error.empty()) {
    ++failed_launches_;
    sticky = result = kernel_error(r.error);
  }
  if (!quiet)
    std::fprintf(stderr, "gpurf: %s: fast-forwarded, %llu warp instructions%s\n", what.c_str(),
                 (unsigned long long)r.warp_instructions,
                 r.error.empty() ? "" : (", FAILED: " + r.error).c_str());
  nlohmann::ordered_json j;
  j["launch"] = launches_;
  j["kernel"] = k.name;
  j["grid"] = {grid.x, grid.y, grid.z};
  j["block"] = {block.x, block.y, block.z};
  j["shared_bytes"] = shared;
  if (parent) j["parent"] = parent;
  for (auto it = launch_mark.begin(); it != launch_mark.end(); ++it) j[it.key()] = it.value();
  j["timed"] = false; // no cycles, no timing statistics: the functional engine alone
  j["verified"] = false;
  j["error"] = r.error;
  j["start_ns"] = now_ns(); // no simulated time
  j["end_ns"] = now_ns();
  j["warp_instructions"] = r.warp_instructions;
  j["host_seconds"] = wall;
  j["cpu_seconds"] = cpu;
  PerKernel& pk = per_kernel_[k.name];
  ++pk.fast_forwarded;
  if (pk.error.empty()) pk.error = r.error;
  if (!r.error.empty()) pk.verified = false;
  if (!out_dir_.empty()) write_launch(j.dump());
  return result;
}

void Runtime::read_timed() {
  const std::string spec = env("GPURF_TIMED");
  try {
    timed_ = TimedSet::parse(spec, "GPURF_TIMED");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gpurf: %s\n", e.what());
    std::exit(2);
  }
  // A kernel name must name one of the program's kernels (a typo would fast-forward them all).
  for (const std::string& n : timed_.names()) {
    bool found = false;
    std::string known;
    for (const auto& [fun, k] : kernels_) {
      found = found || TimedSet::matches(n, k.name);
      const std::vector<std::string> a = TimedSet::aliases(k.name);
      known += (known.empty() ? "" : ", ") + a.back();
    }
    if (!found) {
      std::fprintf(stderr,
                   "gpurf: GPURF_TIMED='%s': '%s' names no kernel of the program (its kernels: "
                   "%s)\n",
                   spec.c_str(), n.c_str(), known.empty() ? "none" : known.c_str());
      std::exit(2);
    }
  }
}

void Runtime::write_launch(const std::string& line) {
  std::ofstream(out_dir_ + "/launches.jsonl", std::ios::app) << line << "\n";
}

// ------------------------------------------------------------------------------------ device

cudaError_t Runtime::properties(cudaDeviceProp& p) {
  if (cudaError_t e = ensure()) return e;
  std::memset(&p, 0, sizeof p);
  const Sm& sm = gpu().sm(0);
  const SmShape& s = sm.shape();
  const SmLimits& l = sm.limits();
  std::snprintf(p.name, sizeof p.name, "gpurf %s", platform_name_.c_str());
  p.totalGlobalMem = param_address_ - PtxFrontend::kBufferBase;
  // Without the opt-in (cudaFuncSetAttribute) a block gets at most 48 KB, as on every GPU
  // since Fermi; sharedMemPerBlockOptin is what the SM has.
  p.sharedMemPerBlock = std::min<size_t>(l.shared_bytes, 48 * 1024);
  p.sharedMemPerMultiprocessor = l.shared_bytes;
  p.sharedMemPerBlockOptin = l.shared_bytes;
  p.regsPerMultiprocessor = int(uint64_t(s.subcores) * s.banks * s.bank_rows * 32);
  p.regsPerBlock = p.regsPerMultiprocessor;
  p.warpSize = 32;
  p.memPitch = uint64_t(1) << 31;
  p.maxThreadsPerBlock = int(std::min(1024u, l.warps * 32));
  p.maxThreadsDim[0] = p.maxThreadsDim[1] = p.maxThreadsPerBlock;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 0x7fffffff;
  p.maxGridSize[1] = p.maxGridSize[2] = 65535;
  p.totalConstMem = 64 * 1024;
  p.major = 7;
  p.minor = 5;
  // The texture limits of compute capability 7.5; textureAlignment is the allocations' (256:
  // every cudaMalloc pointer can be a linear texture's, as on CUDA).
  using L = TextureLimits;
  p.textureAlignment = L::kAlignment;
  p.texturePitchAlignment = L::kPitchAlignment;
  p.maxTexture1D = int(L::kMax1D);
  p.maxTexture2D[0] = int(L::kMax2D[0]);
  p.maxTexture2D[1] = int(L::kMax2D[1]);
  for (int k = 0; k < 3; ++k) {
    p.maxTexture2DLinear[k] = int(L::kMax2DLinear[k]);
    p.maxTexture3D[k] = p.maxSurface3D[k] = int(L::kMax3D);
  }
  for (int k = 0; k < 3; ++k)
    p.maxTexture2DLayered[k] = p.maxSurface2DLayered[k] = int(L::kMax2DLayered[k]);
  for (int k = 0; k < 2; ++k)
    p.maxTexture1DLayered[k] = p.maxSurface1DLayered[k] = int(L::kMax1DLayered[k]);
  p.maxSurface1D = int(L::kMaxSurface1D);
  p.maxSurface2D[0] = int(L::kMaxSurface2D[0]);
  p.maxSurface2D[1] = int(L::kMaxSurface2D[1]);
  p.surfaceAlignment = L::kAlignment;
  p.multiProcessorCount = int(gpu().sm_count());
  p.canMapHostMemory = host_window_;
  p.unifiedAddressing = 1;
  p.managedMemory = host_window_;
  p.maxThreadsPerMultiProcessor = int(l.warps * 32);
  p.maxBlocksPerMultiProcessor = int(l.max_ctas ? l.max_ctas : l.warps);
  p.globalL1CacheSupported = p.localL1CacheSupported = 1;
  p.cooperativeLaunch = 1;
  p.concurrentKernels = 0;
  p.asyncEngineCount = 0;
  p.memoryBusWidth = 256;
  if (const ConfigNode* l2 = platform_->find_path("l2.size_bytes"))
    p.l2CacheSize = std::atoi(l2->scalar.c_str());
  return cudaSuccess;
}

// ------------------------------------------------------------------------------------ the end

std::string Runtime::program_name() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "program" : exe.filename().string();
}

void Runtime::finish() {
  if (finished_ || !built_ || !sim_) return;
  finished_ = true;
  if (out_dir_.empty()) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  RunResult r;
  r.cycles = gpu().cycles();
  r.warp_instructions = gpu().retired();
  r.host_seconds = seconds;
  r.cpu_seconds = double(std::clock()) / CLOCKS_PER_SEC;
  nlohmann::ordered_json stats = dump_stats_json();
  const double hs = std::max(seconds, 1e-9);
  stats["host"] = {{"seconds", seconds},
                   {"cpu_seconds", r.cpu_seconds},
                   {"warp_instructions_per_second", r.warp_instructions / hs},
                   {"cycles_per_second", r.cycles / hs}};
  if (ff_.launches) // the fast-forwarded launches' own (the rest of the file: the timed ones)
    stats["host"]["fast_forward"] = {{"launches", ff_.launches},
                                     {"warp_instructions", ff_.warp_instructions},
                                     {"cpu_seconds", ff_.cpu_seconds},
                                     {"seconds", ff_.host_seconds},
                                     {"warp_instructions_per_cpu_second",
                                      ff_.warp_instructions / std::max(ff_.cpu_seconds, 1e-9)}};
  std::ofstream(out_dir_ + "/stats.json") << stats.dump(2) << "\n";
  // summary.json: one object per kernel (its launches summed), as a suite's.
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& [name, pk] : per_kernel_) {
    if (!pk.launches) continue; // fast-forwarded only: no timing counters to compare
    nlohmann::ordered_json o;
    o["schema"] = kResultSchema;
    o["kernel"] = name;
    o["platform"] = platform_name_;
    o["verified"] = pk.verified;
    o["error"] = pk.error;
    for (auto it = pk.sum.begin(); it != pk.sum.end(); ++it) o[it.key()] = it.value();
    o["launch_count"] = pk.launches; // timed ones (the counters are theirs)
    if (pk.fast_forwarded) o["fast_forwarded_launches"] = pk.fast_forwarded;
    list.push_back(o);
  }
  std::ofstream(out_dir_ + "/summary.json") << list.dump(2) << "\n";
  // result.json: the whole program (every launch), written last.
  const bool verified = failed_launches_ == 0 && launches_ > 0 && unverified_ == 0;
  nlohmann::ordered_json s = summarize(program_name(), platform_name_, r, verified,
                                       failed_launches_ ? "a launch failed"
                                       : unverified_    ? "a launch was not verified"
                                                        : "");
  s["launch_count"] = launches_;
  s["failed_launches"] = failed_launches_;
  s["fast_forwarded_launches"] = ff_.launches;
  s["fast_forwarded_warp_instructions"] = ff_.warp_instructions;
  std::ofstream(out_dir_ + "/result.json") << s.dump(2) << "\n";
}

} // namespace gpurf::cudart
