# Sourced by scripts/build and scripts/fuzz from the checkout's root: LAUNCHER holds cmake's
# arguments to compile through ccache where it is installed. Paths under the checkout are
# hashed relative to it (and the build folder's path is not hashed), so clones at other paths
# share the cache.
LAUNCHER=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
