// A hosted GPU's modules and kernels (docs/vp.md "Host interface"): the table of loaded PTX
// modules, each entry compiled into a front-end of its own (its registers and occupancy), the
// modules' variables placed one after another in the data window, and the lookup of a kernel
// by id or name.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "gpurf/modules/frontend/ptx/parser.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/sm.h"

namespace gpurf {
namespace {

// Bytes a module's .global/.const variables take (placed in order, aligned, as the engine
// places them).
uint64_t module_data_bytes(const ptx::Module& m) {
  uint64_t bytes = 0;
  for (const ptx::VarDecl& v : m.vars)
    if (v.space == ptx::Space::Global || v.space == ptx::Space::Const) {
      const uint64_t a = std::max(1u, v.align);
      bytes = (bytes + a - 1) / a * a + v.size;
    }
  return bytes;
}

} // namespace

unsigned Gpu::add_module(LaunchSpec spec, const std::string& name, PtxFrontend* built) {
  const ptx::Module& m = *spec.module;
  const uint64_t bytes = module_data_bytes(m);
  if (data_next_ + bytes > data_end_)
    throw WorkloadError(name + ": its .global/.const variables need " + std::to_string(bytes) +
                        " bytes; " + std::to_string(data_end_ - data_next_) +
                        " are left in frontend.data_base's window");
  if (modules_.size() >> kEntryBits)
    throw WorkloadError(name + ": " + std::to_string(modules_.size()) + " modules are loaded");
  FrontendOptions o = built ? built->options() : kernel(0)->options();
  o.data_base = data_next_;
  Module mod;
  mod.name = name;
  mod.parsed = spec.module;
  for (const ptx::Function& f : m.functions) {
    if (!f.is_entry || !f.has_body) continue;
    if (built && f.name == built->kernel_name()) {
      mod.kernels.push_back(built);
      continue;
    }
    spec.kernel = spec.name = f.name;
    spec.buffers.clear();
    spec.params.clear();
    spec.steps.clear();
    spec.verify.clear();
    spec.application = false;
    try {
      mod.owned.push_back(std::make_unique<PtxFrontend>(spec, o));
    } catch (const std::exception& e) { // a kernel the model cannot run: refused alone
      mod.unrunnable[f.name] = e.what();
      continue;
    }
    PtxFrontend& k = *mod.owned.back();
    for (const std::string& w : k.warnings()) std::cerr << "warning: " << w << "\n";
    mod.kernels.push_back(&k);
  }
  // A module whose every entry is refused still loads: a program registers every module at
  // start, and only a launch of a refused kernel is an error (it names why, find_kernel).
  if (mod.kernels.empty() && m.refused.empty() && mod.unrunnable.empty())
    throw WorkloadError(name + ": the module has no .entry");
  if (mod.kernels.size() >> kEntryBits)
    throw WorkloadError(name + ": " + std::to_string(mod.kernels.size()) + " entries");
  for (PtxFrontend* k : mod.kernels) {
    k->share_module(*mod.kernels[0]); // the module's variables: initialised once
    give_clock(*k);                   // %clock and %globaltimer
    if (!sms_.empty() &&
        (k->regs_per_thread() > hosted_regs_ || k->preds_per_thread() > hosted_preds_))
      throw WorkloadError(name + ": kernel '" + k->kernel_name() + "' needs " +
                          std::to_string(k->regs_per_thread()) + " registers and " +
                          std::to_string(k->preds_per_thread()) +
                          " predicates per thread; the SMs hold " + std::to_string(hosted_regs_) +
                          " and " + std::to_string(hosted_preds_) +
                          ": raise gpu.hosted_registers / gpu.hosted_predicates");
  }
  if (sms_.empty()) // the GPU's own module sizes the SMs' register space
    for (PtxFrontend* k : mod.kernels) {
      hosted_regs_ = std::max(hosted_regs_, k->regs_per_thread());
      hosted_preds_ = std::max(hosted_preds_, k->preds_per_thread());
    }
  data_next_ = (data_next_ + bytes + 255) / 256 * 256;
  modules_.push_back(std::move(mod));
  return unsigned(modules_.size() - 1);
}

unsigned Gpu::load_module(const std::string& path) {
  if (!hosted()) throw WorkloadError("gpu.hosted is false: the GPU loads no modules");
  LaunchSpec spec;
  try {
    spec.module = std::make_shared<const ptx::Module>(ptx::parse_ptx_file(path));
  } catch (const std::exception& e) {
    throw WorkloadError(e.what());
  }
  spec.file = spec.ptx_path = path;
  return add_module(spec, path, nullptr);
}

unsigned Gpu::load_module_text(const std::string& text, const std::string& name) {
  if (!hosted()) throw WorkloadError("gpu.hosted is false: the GPU loads no modules");
  LaunchSpec spec;
  try {
    spec.module = std::make_shared<const ptx::Module>(ptx::parse_ptx(text, name));
  } catch (const std::exception& e) {
    throw WorkloadError(e.what());
  }
  // ptxas reads a file: the text goes to a temporary one while the kernels compile.
  namespace fs = std::filesystem;
  static unsigned serial = 0;
  const fs::path tmp = fs::temp_directory_path() / ("gpurf-module-" + std::to_string(::getpid()) +
                                                    "-" + std::to_string(++serial) + ".ptx");
  {
    std::ofstream out(tmp);
    out << text;
  }
  spec.file = name;
  spec.ptx_path = tmp.string();
  try {
    const unsigned id = add_module(spec, name, nullptr);
    fs::remove(tmp);
    return id;
  } catch (...) {
    fs::remove(tmp);
    throw;
  }
}

PtxFrontend* Gpu::kernel(uint32_t id) const {
  const uint32_t m = id >> kEntryBits, e = id & ((1u << kEntryBits) - 1);
  if (m >= modules_.size() || e >= modules_[m].kernels.size()) return nullptr;
  return modules_[m].kernels[e];
}

uint32_t Gpu::find_kernel(const std::string& name) const {
  for (size_t m = 0; m < modules_.size(); ++m)
    for (size_t e = 0; e < modules_[m].kernels.size(); ++e)
      if (modules_[m].kernels[e]->kernel_name() == name) return uint32_t(m << kEntryBits | e);
  for (const Module& m : modules_) {
    if (m.parsed && m.parsed->refused.count(name))
      throw WorkloadError(m.parsed->no_entry(name) + "; the kernels: " + kernel_names());
    if (auto it = m.unrunnable.find(name); it != m.unrunnable.end())
      throw WorkloadError("kernel '" + name + "' cannot be run: " + it->second +
                          "; the kernels: " + kernel_names());
  }
  throw WorkloadError("no kernel '" + name +
                      "' in the loaded modules; the kernels: " + kernel_names());
}

std::string Gpu::kernel_names() const {
  std::ostringstream o;
  for (size_t m = 0; m < modules_.size(); ++m) {
    const std::string& name = modules_[m].name; // a program's modules are named "module N (...)"
    o << (m ? "; " : "");
    if (name.rfind("module ", 0) == 0)
      o << name << ":";
    else
      o << "module " << m << " (" << name << "):";
    const size_t n = modules_[m].kernels.size(), shown = n > 12 ? 10 : n; // a library's many
    for (size_t e = 0; e < shown; ++e)
      o << (e ? ", " : " ") << "0x" << std::hex << (m << kEntryBits | e) << std::dec << " "
        << modules_[m].kernels[e]->kernel_name();
    if (shown < n) o << " and " << n - shown << " more";
  }
  return o.str();
}

} // namespace gpurf
