// gpurf exec [--platform P] [--out DIR] [-p key=value]... [--timed SPEC] [--quiet] -- PROGRAM
// ARGS... Puts libgpurf-cudart first in LD_LIBRARY_PATH (as libcudart.so.13), passes the options to
// it in GPURF_* variables, runs the program and exits with its status (docs/programs.md).
#include "sc_main/exec.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include <sys/wait.h>
#include <unistd.h>

#include "cudart/timed.h"
#include "gpurf/platform/config.h"
#include "sc_main/names.h"
#include "sc_main/provenance.h"

namespace gpurf {
namespace {

namespace fs = std::filesystem;

// The folder holding libcudart.so.13 -> libgpurf-cudart.so: the build tree's, else the
// installed one beside the tool (<prefix>/bin/gpurf, <prefix>/lib/gpurf), or where
// `cmake --install` puts it (<libdir>/gpurf).
std::string cudart_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& d :
       {exe.parent_path() / "cudart" / "lib", exe.parent_path().parent_path() / "lib" / "gpurf",
        fs::path(GPURF_INSTALL_CUDART_DIR)})
    if (fs::exists(d / "libcudart.so.13")) return d.string();
  throw ConfigError("gpurf exec: libgpurf-cudart is not built (no cudart/lib/libcudart.so.13 "
                    "beside the gpurf tool): build the target gpurf_cudart");
}

// Where `program` is: as given when it has a '/', else on the PATH.
std::string find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "";
  for (size_t b = 0; b <= p.size();) {
    size_t e = p.find(':', b);
    if (e == std::string::npos) e = p.size();
    const fs::path c = fs::path(p.substr(b, e - b)) / program;
    if (::access(c.c_str(), X_OK) == 0) return c.string();
    b = e + 1;
  }
  return program;
}

} // namespace

int exec_main(const std::vector<std::string>& args, const std::vector<std::string>& argv,
              const std::function<void(ConfigNode&)>& validate) {
  std::string platform = "fermi", out, params, timed;
  bool timed_given = false;
  std::vector<std::string> overrides;
  bool quiet = false;
  size_t i = 0;
  auto value = [&](const std::string& opt) {
    if (i + 1 >= args.size()) throw ConfigError("gpurf exec: " + opt + " needs a value");
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--platform")
      platform = value(a);
    else if (a == "--out")
      out = value(a);
    else if (a == "-p")
      overrides.push_back(value(a));
    else if (a == "--quiet")
      quiet = true;
    else if (a == "--timed") {
      timed = value(a);
      timed_given = true;
      try { // its form here; its kernel names in the program, which knows them
        cudart::TimedSet::parse(timed, "--timed");
      } catch (const std::invalid_argument& e) {
        throw ConfigError("gpurf exec: " + std::string(e.what()));
      }
    } else if (!a.empty() && a[0] == '-')
      throw ConfigError("gpurf exec: unknown option '" + a +
                        "' (options: --platform P, --out DIR, -p key.path=value, --timed SPEC, "
                        "--quiet, then -- PROGRAM ARGS...)");
    else
      break; // the program
  }
  if (i >= args.size())
    throw ConfigError("gpurf exec: no program (usage: gpurf exec [--platform P] [--out DIR] "
                      "[-p key.path=value]... [--timed SPEC] [--quiet] -- PROGRAM ARGS...)");
  const std::string pfile = fs::absolute(platform_path(data_root(), platform)).string();
  ConfigPtr root = load_config(pfile); // a bad file or override: exit 2 before the program runs
  for (const std::string& o : overrides) {
    if (o.find(';') != std::string::npos)
      throw ConfigError("-p " + o + ": a value with ';' cannot be passed to the program");
    apply_override(*root, o);
    params += (params.empty() ? "" : ";") + o;
  }
  {
    ConfigPtr copy = load_config(pfile); // built here and thrown away: the program builds its own
    for (const std::string& o : overrides) apply_override(*copy, o);
    validate(*copy);
  }
  const std::vector<std::string> prog(args.begin() + long(i), args.end());
  const std::string path = find_program(prog[0]);
  {
    std::ifstream f(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), {});
    if (!f && bytes.empty()) throw ConfigError("gpurf exec: no program '" + prog[0] + "'");
    // Device code (a .nv_fatbin section) without a dynamic libcudart: nvcc's default
    // `-cudart static` linked CUDA's runtime into the program, where gpurf cannot take its
    // place. Anything else (a script, an interpreter loading CUDA itself) may still reach it.
    if (bytes.find("libcudart.so.") == std::string::npos) {
      // (A static runtime names libcuda.so.1 too, to load the driver: refused all the same.)
      if (bytes.find(".nv_fatbin") != std::string::npos)
        throw ConfigError("gpurf exec: " + path +
                          " carries device code but links CUDA's runtime statically (nvcc's "
                          "default, -cudart static), so gpurf cannot run its kernels: rebuild "
                          "it with `nvcc -cudart shared` (docs/programs.md)");
      if (bytes.find("libcuda.so.1") == std::string::npos) // the driver API: driver.cpp
        std::cerr
            << "gpurf exec: warning: " << path
            << " loads neither libcudart.so nor libcuda.so.1: if it runs CUDA kernels itself, "
               "gpurf cannot run them; build it with `nvcc -cudart shared` "
               "(docs/programs.md)\n";
    }
  }
  if (!out.empty()) {
    fs::create_directories(out);
    out = fs::absolute(out).string();
    fs::remove(out + "/launches.jsonl");
    fs::remove(out + "/result.json");
    std::ofstream(out + "/platform.yaml") << to_yaml(*root);
    nlohmann::ordered_json prov = provenance(argv, 1);
    prov["platform"] = file_facts(pfile);
    prov["platform"]["overrides"] = overrides;
    prov["platform"]["resolved"] = "platform.yaml";
    prov["program"] = file_facts(fs::absolute(path).string());
    prov["program"]["arguments"] = std::vector<std::string>(prog.begin() + 1, prog.end());
    if (timed_given) prov["timed"] = timed;
    std::ofstream(out + "/provenance.json") << prov.dump(2) << "\n";
  }
  const char* old = std::getenv("LD_LIBRARY_PATH");
  const std::string ld = cudart_dir() + (old && *old ? ":" + std::string(old) : "");
  ::setenv("LD_LIBRARY_PATH", ld.c_str(), 1);
  ::setenv("GPURF_PLATFORM", pfile.c_str(), 1);
  ::setenv("GPURF_PARAMS", params.c_str(), 1);
  if (!out.empty())
    ::setenv("GPURF_OUT", out.c_str(), 1);
  else
    ::unsetenv("GPURF_OUT");
  if (quiet) ::setenv("GPURF_QUIET", "1", 1);
  if (timed_given) ::setenv("GPURF_TIMED", timed.c_str(), 1); // else the environment's, if any
  ::setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
  std::vector<char*> cargs;
  for (const std::string& a : prog) cargs.push_back(const_cast<char*>(a.c_str()));
  cargs.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(path.c_str(), cargs.data());
    std::cerr << "gpurf exec: cannot run " << path << "\n";
    ::_exit(127);
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0) {
  }
  if (WIFSIGNALED(st)) {
    std::cerr << "gpurf exec: " << prog[0] << " killed by signal " << WTERMSIG(st) << "\n";
    return 128 + WTERMSIG(st);
  }
  return WEXITSTATUS(st);
}

} // namespace gpurf
