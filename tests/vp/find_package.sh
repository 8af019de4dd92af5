#!/usr/bin/env bash
# gpurf as a library from outside: install this build tree, then configure, build and run the
# separate project examples/embed, which only does find_package(gpurf); its kernel must verify
# with the cycles the gpurf tool reports for the same platform and kernel.
#   tests/vp/find_package.sh BUILD_DIR SOURCE_DIR GPURF
set -euo pipefail
build="$1" src="$2" gpurf="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
test -f "$tmp/prefix/include/gpurf/platform/simulation.h" || { echo "no installed headers"; exit 1; }
cmake -S "$src/examples/embed" -B "$tmp/b" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/b" >"$tmp/build.log" || { tail -30 "$tmp/build.log"; exit 1; }
out="$("$tmp/b/embed" "$src/configs/fermi.yaml" "$src/workloads/sgemm.yaml")"
echo "$out"
grep -q "verified" <<<"$out" || exit 1
"$gpurf" run --quiet --platform "$src/configs/fermi.yaml" --workload sgemm --out "$tmp/cli" >/dev/null
want="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$tmp/cli/result.json")"
grep -q ": $want cycles" <<<"$out" || { echo "the tool reports $want cycles"; exit 1; }
