# Every suite kernel verified, with the timing checkers on, on every platform (configs/ and
# tests/platforms/) in every instruction-stream mode of docs/frontend.md: the three register
# allocations with the order and operands each paper's compiler gave, plus list scheduling
# and constant operands under gpurf's own allocator (the modes combine freely).
# The default run covers every mode on an eighth of the cross product: platform i runs in mode
# i mod 4 when i / 4 is even (every mode on 6-7 platforms, baselines and variants; the suite
# runs every platform in its own mode in PtxE2e); `full` (label modes_full) runs every
# platform in every mode.
source "$(dirname "$0")/lib.sh" "$@"
full=${3:-}

files=("$SRC"/configs/*.yaml "$SRC"/tests/platforms/*.yaml)
[ ${#files[@]} -ge 30 ] || fail "only ${#files[@]} platform files"

modes=("regalloc=linear_scan schedule=none constants=registers"
       "regalloc=ptx_virtual schedule=none constants=registers"
       "regalloc=ptxas_like schedule=list constants=operands"
       "regalloc=linear_scan schedule=list constants=operands")
for i in "${!modes[@]}"; do
  m=${modes[$i]}
  platforms=()
  for j in "${!files[@]}"; do
    [ -n "$full" ] || { [ $((j % ${#modes[@]})) -eq "$i" ] && [ $((j / ${#modes[@]} % 2)) -eq 0 ]; } &&
      platforms+=(--platform "${files[$j]}")
  done
  args=()
  for kv in $m; do args+=(-p "frontend.$kv"); done
  out="$TMP/${m// /_}"
  "$GPURF" suite "${platforms[@]}" "${args[@]}" -j 2 --out "$out" >"$TMP/log" 2>&1
  rc=$?
  last=$(tail -n 1 "$TMP/log")
  [ $rc -eq 0 ] || fail "$m: exit $rc: $(grep -B1 -A1 ' NO \|error' "$TMP/log" | head -c 1500)"
  [[ "$last" =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] || fail "$m: $last"
  [ "${BASH_REMATCH[1]:-0}" -ge $((16 * ${#platforms[@]} / 2)) ] || fail "$m: only $last"
done

# Constant operands change what is issued, not what runs: the warp instructions issued with
# parameters and immediates in registers equal those issued with them in the encoding plus
# the definitions executed but not issued (two processes: the functional count is
# independent of the mode).
for k in reduce sgemm nbody; do
  for c in registers operands; do
    "$GPURF" run --quiet --platform "$SRC/configs/gebhart.yaml" --workload "$k" \
      -p frontend.constants=$c --out "$TMP/c-$k-$c" >/dev/null 2>&1 || fail "$k constants=$c: exit $?"
  done
  python3 - "$TMP/c-$k-registers/result.json" "$TMP/c-$k-operands/result.json" <<'PY' ||
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["constant_instructions"] == 0 and b["constant_instructions"] > 0, (a, b)
assert a["warp_instructions"] == b["warp_instructions"] + b["constant_instructions"], \
    (a["warp_instructions"], b["warp_instructions"], b["constant_instructions"])
PY
    fail "$k: issued + constant instructions differ from the registers run"
done

# Malekeh's reuse hints profile the first CTAs on a private overlay of the memory: the real run
# still starts from the launch's inputs and verifies.
for k in nw bfs sgemm histogram; do
  "$GPURF" run --quiet --platform "$SRC/configs/turing-subcore.yaml" --workload "$k" \
    -p frontend.reuse_profile_warps=8 >"$TMP/log" 2>&1 ||
    fail "$k with reuse hints: exit $?: $(tail -c 400 "$TMP/log")"
done
expect_exit 2 "frontend.reuse_rthld" -- run --platform "$SRC/configs/turing-subcore.yaml" \
  --workload nw -p frontend.reuse_profile_warps=8 -p frontend.reuse_rthld=0

finish
