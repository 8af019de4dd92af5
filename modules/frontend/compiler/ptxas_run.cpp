#include "gpurf/modules/frontend/compiler/ptxas_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <tuple>

namespace gpurf::compiler {

namespace fs = std::filesystem;

std::string find_ptxas() {
  if (const char* e = std::getenv("GPURF_PTXAS"))
    return std::string(e) == "none" ? "" : std::string(e);
  auto exe = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (const char* path = std::getenv("PATH")) {
    std::istringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty() && exe(fs::path(dir) / "ptxas")) return (fs::path(dir) / "ptxas").string();
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(var); home && *home && exe(fs::path(home) / "bin/ptxas"))
      return (fs::path(home) / "bin/ptxas").string();
  return "";
}

std::map<std::string, PtxasInfo> parse_ptxas_log(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::map<std::string, PtxasInfo> out;
  std::string name;
  PtxasInfo cur;
  std::istringstream in(log);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, entry)) {
      name = m[1];
      cur = {};
    } else if (!name.empty() && std::regex_search(line, m, frame)) {
      cur.stack = unsigned(std::stoul(m[1]));
      cur.spill = unsigned(std::stoul(m[2]));
    } else if (!name.empty() && std::regex_search(line, m, used)) {
      cur.registers = unsigned(std::stoul(m[1]));
      if (std::regex_search(line, m, smem)) cur.shared = unsigned(std::stoul(m[1]));
      out[name] = cur;
      name.clear(); // the lines after belong to called functions
    }
  }
  return out;
}

std::map<std::string, PtxasInfo> run_ptxas(const std::string& ptxas, const std::string& ptx_path,
                                           const std::string& arch, std::string& error) {
  if (ptxas.empty()) {
    error = "no ptxas found";
    return {};
  }
  // fork/exec, not a shell: the paths are passed as they are.
  int fd[2];
  if (::pipe(fd) != 0) {
    error = "cannot create a pipe for ptxas";
    return {};
  }
  const std::string arch_arg = "-arch=" + arch;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fd[1], 1);
    ::dup2(fd[1], 2);
    ::close(fd[0]);
    ::close(fd[1]);
    const char* argv[] = {ptxas.c_str(), arch_arg.c_str(), "-v",   ptx_path.c_str(),
                          "-o",          "/dev/null",      nullptr};
    ::execv(ptxas.c_str(), const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(fd[1]);
  std::string log;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd[0], buf, sizeof buf)) > 0;) log.append(buf, size_t(n));
  ::close(fd[0]);
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string first = log.substr(0, log.find('\n'));
    error = ptxas + " " + arch_arg + " -v " + ptx_path + " failed" +
            (first.empty() ? "" : ": " + first);
    return {};
  }
  return parse_ptxas_log(log);
}

namespace {

// The cache's key line: which PTX contents and arch its rows belong to.
std::string cache_key(const std::string& ptx_path, const std::string& arch) {
  std::ifstream in(ptx_path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  uint64_t h = 0xcbf29ce484222325ull; // FNV-1a: identifies contents
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  char s[96];
  std::snprintf(s, sizeof s, "# ptx fnv1a64:%016llx arch %s", static_cast<unsigned long long>(h),
                arch.c_str());
  return s;
}

// One ptxas run per PTX file (path, size, modification time) and arch in a process: a
// program's module of many kernels (CUB's: 50,000 lines, minutes of ptxas) is assembled once,
// not once per kernel it launches.
const std::map<std::string, PtxasInfo>& run_ptxas_once(const std::string& ptxas,
                                                       const std::string& ptx_path,
                                                       const std::string& arch,
                                                       std::string& error) {
  using Key = std::tuple<std::string, std::string, uintmax_t, int64_t>;
  struct Run {
    std::map<std::string, PtxasInfo> rows;
    std::string error;
  };
  static std::mutex mutex;
  static std::map<Key, Run> runs;
  std::error_code ec;
  const uintmax_t size = fs::file_size(ptx_path, ec);
  const int64_t mtime = ec ? 0 : fs::last_write_time(ptx_path, ec).time_since_epoch().count();
  const std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = runs.try_emplace(Key{ptx_path, arch, ec ? 0 : size, mtime});
  if (fresh) it->second.rows = run_ptxas(ptxas, ptx_path, arch, it->second.error);
  error = it->second.error;
  return it->second.rows;
}

} // namespace

std::optional<PtxasInfo> ptxas_registers(const std::string& ptx_path, const std::string& kernel,
                                         const std::string& target, const PtxasLookup& how,
                                         std::string& why) {
  if (auto p = ptxas_info(ptx_path, kernel)) return p;
  // sm_XY[a|f]: CUDA 13's ptxas assembles sm_75 and later.
  std::string arch = target.empty() ? "sm_75" : target;
  if (std::smatch m;
      std::regex_match(arch, m, std::regex(R"(sm_(\d+)[af]?)")) && std::stoul(m[1]) < 75)
    arch = "sm_75";
  const fs::path cache =
      how.cache_dir.empty() ? fs::path() : fs::path(how.cache_dir) / "ptxas-registers.txt";
  // Read and hash the PTX only where a cache is asked for.
  const std::string key = cache.empty() ? "" : cache_key(ptx_path, arch);
  if (!cache.empty()) {
    std::ifstream in(cache);
    std::string first, second;
    std::getline(in, first);
    if (std::getline(in, second) && second == key)
      if (auto p = read_ptxas_table(cache.string(), kernel)) return p;
  }
  if (!how.run || ptx_path.empty()) {
    why = "ptxas is not run here";
    return std::nullopt;
  }
  const std::string ptxas = find_ptxas();
  if (ptxas.empty()) {
    const char* env = std::getenv("GPURF_PTXAS");
    why = env ? "GPURF_PTXAS is '" + std::string(env) + "'"
              : "no ptxas on the PATH, in $CUDA_HOME/bin or in $CUDA_PATH/bin";
    return std::nullopt;
  }
  const auto& rows = run_ptxas_once(ptxas, ptx_path, arch, why);
  const auto it = rows.find(kernel);
  if (it == rows.end()) {
    if (why.empty()) why = ptxas + " -v listed no entry '" + kernel + "'";
    return std::nullopt;
  }
  PtxasInfo p = it->second;
  p.table = ptxas + " -arch=" + arch + " -v";
  if (!cache.empty()) {
    std::error_code ec;
    fs::create_directories(cache.parent_path(), ec);
    std::ofstream out(cache);
    out << "# ptxas -arch=" << arch << " -v " << fs::absolute(ptx_path).string()
        << " (gpurf, cached: copy beside the PTX to keep the counts)\n"
        << key << "\n# kernel          registers   shared    stack    spill\n";
    for (const auto& [name, row] : rows) out << ptxas_table_line(name, row) << "\n";
  }
  return p;
}

} // namespace gpurf::compiler
