#!/usr/bin/env bash
# Functional results never depend on when a memory stores a timed write's bytes (docs/vp.md
# "Timed writes"): the built-in memory stores them on receipt (memory.store: request), reads
# them from the payload at its answer (response), or copies them on receipt and stores them at a
# random moment before the answer, non-overlapping writes in random order (shuffled). In AT mode
# and in LT mode with a waiting memory, on 1, 2 and 4 SMs, every run verifies, and each store
# gives the statistics of `request` bit for bit (the ports' timing does not depend on data).
#   vp_store.sh GPURF SRC          (ctest cli.vp_store) the suite with `shuffled`; the atomics
#                                  kernel and a reduced bfs application with all three
#   vp_store.sh GPURF SRC full     (ctest -L vp_full) the suite, every application and stress
#                                  kernel (coverage.sh's reduced sizes) with all three
source "$(dirname "$0")/lib.sh" "$1" "$2"
FULL=${3:-}

declare -A MODE=([AT]="-p gpu.memory_port=at" [LT]="-p gpu.memory_port=lt -p memory.respond=wait")
runs=("stress/atomics" "apps/bfs --var n=4096")
[ -n "$FULL" ] && runs+=(
  "apps/gaussian --var n=48"
  "apps/dp1d --var cols=2048 --var rows=49"
  "apps/heat2d --var nx=64 --var ny=64 --var steps=3"
  "stress/apps/multi_launch --var n=4096 --var gens=4"
  "stress/stencil3d --var nx=32 --var ny=8"
  "stress/stencil2d_unrolled --var nx=128 --var ny=128"
  "stress/calls --var n=1024"
  "stress/gemm_rt --var m=128 --var n=128 --var k=32"
)
suite_stores=(shuffled)
[ -n "$FULL" ] && suite_stores=(request response shuffled)

checked=0
# same DIR_A DIR_B WHAT: the statistics of two runs are equal (all but the host's times).
same() {
  python3 -c '
import json, sys
a, b = (json.load(open(f + "/stats.json")) for f in sys.argv[1:3])
a.pop("host", None), b.pop("host", None)
sys.exit(a != b)' "$1" "$2" || fail "$3: statistics differ from memory.store=request"
}
for n in 1 2 4; do
  for mode in AT LT; do
    for store in "${suite_stores[@]}"; do
      out="$TMP/suite-$mode$n-$store"
      "$GPURF" suite --platform "$SRC/configs/fermi.yaml" ${MODE[$mode]} -p memory.store=$store \
        -p gpu.sm_count=$n -j 2 --out "$out" >"$TMP/out" 2>"$TMP/err" ||
        fail "$mode suite on $n SMs, store $store: $(grep -E ' NO |passed|error' "$TMP/out" "$TMP/err" | head -5)"
      checked=$((checked + $(grep -c ' yes ' "$TMP/out")))
      if [ "$store" != request ] && [ -n "$FULL" ]; then
        for k in "$TMP/suite-$mode$n-request"/fermi/*/; do
          k=$(basename "$k")
          same "$TMP/suite-$mode$n-request/fermi/$k" "$out/fermi/$k" "$mode $n SMs $k $store"
        done
      fi
    done
    for r in "${runs[@]}"; do
      read -r w vars <<<"$r"
      for store in request response shuffled; do
        out="$TMP/${w//\//_}-$mode$n-$store"
        # shellcheck disable=SC2086
        if "$GPURF" run --quiet --platform "$SRC/configs/fermi.yaml" --workload "$w" $vars \
          ${MODE[$mode]} -p memory.store=$store -p gpu.sm_count=$n --out "$out" \
          >"$TMP/out" 2>&1 &&
          python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r['verified'] and r['outputs_checked'] else 1)" "$out/result.json"; then
          checked=$((checked + 1))
        else
          fail "$w $mode $n SMs store $store: $(grep -m1 error "$TMP/out" | head -c 300)"
        fi
        [ "$store" = request ] || same "$TMP/${w//\//_}-$mode$n-request" "$out" "$w $mode $n SMs $store"
      done
    done
  done
done
echo "$checked runs verified"

# A late store needs a memory that answers after the call.
expect_exit 2 "memory.store" "gpu.memory_port: at" -- run -p memory.store=shuffled
expect_exit 2 "memory.store" "request, response, shuffled" -- run -p gpu.memory_port=at -p memory.store=late
finish
