#!/usr/bin/env bash
# gpurf as a library from outside: install this build tree into a temporary prefix, then,
# with no source tree in sight, build the installed sources of examples/embed and examples/vp
# (share/gpurf/examples, copied to an empty folder) against the prefix with find_package
# alone, and run them from another empty folder: their platform and kernels must come from the
# prefix's share/gpurf (gpurf::data_path), the example VP must pass its host's checks, and
# embed must verify sgemm with the cycles the gpurf tool reports for the same platform and
# kernel.
#   tests/vp/find_package.sh BUILD_DIR SOURCE_DIR GPURF
set -euo pipefail
build="$1" src="$2" gpurf="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
test -f "$prefix/include/gpurf/platform/simulation.h" || { echo "no installed headers"; exit 1; }
share="$prefix/share/gpurf"
for f in configs/fermi.yaml configs/units workloads/sgemm.yaml workloads/ptx/sgemm.ptx \
         workloads/bfs.yaml workloads/data/bfs_cols.bin workloads/apps/bfs.yaml \
         examples/vp/main.cpp examples/vp/CMakeLists.txt examples/embed/main.cpp; do
  test -e "$share/$f" || { echo "not installed: share/gpurf/$f"; exit 1; }
done

# Build each example from its installed sources in an empty folder; nothing of the source tree
# is on any path (CMAKE_PREFIX_PATH names the prefix only).
for ex in embed vp; do
  mkdir -p "$tmp/src-$ex"
  cp -r "$share/examples/$ex/." "$tmp/src-$ex/"
  cmake -S "$tmp/src-$ex" -B "$tmp/b-$ex" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure-$ex.log" || { cat "$tmp/configure-$ex.log"; exit 1; }
  cmake --build "$tmp/b-$ex" >"$tmp/build-$ex.log" || { tail -30 "$tmp/build-$ex.log"; exit 1; }
done

# examples/dramsys needs DRAMSys, which is never required: without it, it configures and says
# it is skipped.
cp -r "$share/examples/dramsys" "$tmp/src-dramsys"
cmake -S "$tmp/src-dramsys" -B "$tmp/b-dramsys" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  >"$tmp/configure-dramsys.log" 2>&1 || { cat "$tmp/configure-dramsys.log"; exit 1; }
grep -q "examples/dramsys: skipped" "$tmp/configure-dramsys.log" ||
  { echo "examples/dramsys without DRAMSys did not say it is skipped"; exit 1; }

mkdir "$tmp/run" && cd "$tmp/run" # no configs/ or workloads/ here: data_path must find them
unset GPURF_DATA
out="$("$tmp/b-embed/embed" configs/fermi.yaml workloads/sgemm.yaml)"
echo "$out"
grep -q "^platform $share/configs/fermi.yaml, launch $share/workloads/sgemm.yaml$" <<<"$out" ||
  { echo "embed did not take its files from the installed prefix"; exit 1; }
grep -q "verified" <<<"$out" || exit 1
"$gpurf" run --quiet --platform "$src/configs/fermi.yaml" --workload sgemm --out "$tmp/cli" >/dev/null
want="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$tmp/cli/result.json")"
grep -q ": $want cycles" <<<"$out" || { echo "the tool reports $want cycles"; exit 1; }

vp="$("$tmp/b-vp/vp" - annotate)" || { echo "$vp"; echo "the installed example VP failed"; exit 1; }
echo "$vp"
grep -q "launches, 0 failures" <<<"$vp" || exit 1
