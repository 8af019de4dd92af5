// gpurf::data_path (docs/vp.md "The installed package"): a name as given when it exists, else
// the first data folder holding it, $GPURF_DATA first, then the found package's, the install
// prefix's and the source tree; a name found nowhere comes back unchanged.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "gpurf/platform/config.h"
#include "gpurf/platform/data_path.h"

namespace fs = std::filesystem;

namespace {

struct TempTree {
  inline static unsigned made = 0;
  fs::path root = fs::temp_directory_path() /
                  ("gpurf-data-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
  TempTree() { fs::create_directories(root); }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
    ::unsetenv("GPURF_DATA");
  }
  std::string file(const std::string& rel) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << "x: 1\n";
    return (root / rel).string();
  }
};

} // namespace

TEST(DataPath, EnvironmentBeforePackageBeforeSourceTree) {
  TempTree env, pkg;
  const std::string in_env = env.file("configs/only-here.yaml");
  pkg.file("configs/only-here.yaml");
  const std::string in_pkg = pkg.file("configs/pkg-only.yaml");
  ::setenv("GPURF_DATA", env.root.c_str(), 1);
  EXPECT_EQ(gpurf::data_path("configs/only-here.yaml", pkg.root.string()), in_env);
  EXPECT_EQ(gpurf::data_path("configs/pkg-only.yaml", pkg.root.string()), in_pkg);
  ::unsetenv("GPURF_DATA");
  EXPECT_EQ(gpurf::data_path("configs/only-here.yaml", pkg.root.string()),
            pkg.root.string() + "/configs/only-here.yaml");
  // The source tree gpurf was built from holds the platforms (looked up from a folder that
  // does not).
  const fs::path here = fs::current_path();
  fs::current_path(pkg.root);
  // (An installed gpurf at the configured prefix would come first.)
  const std::vector<std::string> roots = gpurf::data_roots("");
  ASSERT_FALSE(roots.empty());
  EXPECT_EQ(roots.back(), GPURF_SOURCE_DIR);
  EXPECT_EQ(gpurf::data_path("configs/fermi.yaml", ""), roots.front() + "/configs/fermi.yaml");
  fs::current_path(here);
  EXPECT_EQ(gpurf::data_dir("configs", pkg.root.string()), pkg.root.string() + "/configs");
}

TEST(DataPath, AnExistingOrAbsoluteOrUnknownNameComesBackAsGiven) {
  TempTree t;
  const std::string abs = t.file("a.yaml");
  EXPECT_EQ(gpurf::data_path(abs, ""), abs);
  EXPECT_EQ(gpurf::data_path("/nowhere/b.yaml", ""), "/nowhere/b.yaml");
  EXPECT_EQ(gpurf::data_path("configs/no-such-platform.yaml", t.root.string()),
            "configs/no-such-platform.yaml");
  EXPECT_THROW(gpurf::data_dir("no-such-folder", t.root.string()), gpurf::ConfigError);
}
