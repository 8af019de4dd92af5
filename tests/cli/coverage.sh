#!/usr/bin/env bash
# Every application (workloads/apps) and every stress kernel (workloads/stress) verified, with
# every check on, on every platform in configs/: the variants' state across CTAs, launches and
# calls, and kernels of real size (issue 30). The suite's kernels on every platform are
# cli.modes'.
#   coverage.sh GPURF SRC SHARD SHARDS          reduced sizes (ctest cli.coverage_<shard>):
#                                               several CTAs per warp slot, several launches
#   coverage.sh GPURF SRC SHARD SHARDS full     the files' own sizes (ctest -L coverage,
#                                               scripts/coverage)
# Platform i of the sorted configs/ belongs to shard i % SHARDS.
source "$(dirname "$0")/lib.sh" "$1" "$2"
SHARD=${3:?shard}
SHARDS=${4:?shards}
FULL=${5:-}

# workload and its reduced size (--var), one per line.
runs=(
  "apps/gaussian --var n=48"
  "apps/dp1d --var cols=2048 --var rows=49"
  "apps/heat2d --var nx=64 --var ny=64 --var steps=3"
  "apps/bfs --var n=4096"
  "apps/jacobi --var ny=32"
  "stress/apps/multi_launch --var n=4096 --var gens=4"
  "stress/stencil3d --var nx=32 --var ny=8"
  "stress/stencil2d_unrolled --var nx=128 --var ny=128"
  "stress/calls --var n=1024"
  "stress/gemm_rt --var m=128 --var n=128 --var k=32"
  "stress/atomics --var n=2048"
)

mapfile -t configs < <(ls "$SRC"/configs/*.yaml | sort)
jobs=()
i=0
for c in "${configs[@]}"; do
  [ $((i % SHARDS)) -eq "$SHARD" ] || { i=$((i + 1)); continue; }
  i=$((i + 1))
  for r in "${runs[@]}"; do
    read -r w vars <<<"$r"
    [ -n "$FULL" ] && vars=""
    jobs+=("$(basename "$c" .yaml) $w${vars:+ $vars}") # no trailing blank: xargs -L joins those
  done
done
[ ${#jobs[@]} -gt 0 ] || fail "shard $SHARD of $SHARDS has no platform"

run_one() { # platform workload vars...
  local p=$1 w=$2
  shift 2
  local out="$TMP/$p/${w//\//_}"
  if "$GPURF" run --quiet --platform "$SRC/configs/$p.yaml" --workload "$w" "$@" --out "$out" \
    >"$out.log" 2>&1 &&
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r['verified'] and r['outputs_checked'] else 1)" "$out/result.json"; then
    echo "ok $p $w"
  else
    echo "FAILED $p $w: $(grep -m1 error "$out.log" | head -c 400)"
  fi
}
for j in "${jobs[@]}"; do mkdir -p "$TMP/${j%% *}"; done
export -f run_one
export GPURF SRC TMP SC_COPYRIGHT_MESSAGE
printf '%s\n' "${jobs[@]}" | xargs -P 2 -L 1 bash -c 'run_one "$@"' _ >"$TMP/results"
sort "$TMP/results"
while read -r line; do fail "$line"; done < <(grep '^FAILED' "$TMP/results")
[ "$(grep -c '^ok' "$TMP/results")" -eq ${#jobs[@]} ] ||
  fail "$(grep -c '^ok' "$TMP/results") of ${#jobs[@]} runs verified"
finish
