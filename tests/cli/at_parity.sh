# AT memory port parity (docs/vp.md "AT"): with the built-in memory, `gpu.memory_port: at`
# gives the direct port's cycles within 2% on every suite kernel and on latency-bound,
# low-occupancy kernels (tests/cli/data/at_parity: one warp's chain of dependent loads, a
# wavefront of few CTAs with a bar.sync per step, an LU diagonal block, an application of 16
# short launches), every run verified. Before the fix the SM's clock fell behind SystemC's
# time after sleeping on the memory alone (the pointer chase took 30x the direct port's
# cycles, the LU block 3.3x), and each launch waited for the memory to answer the requests
# still out (the application 1.07x).
source "$(dirname "$0")/lib.sh" "$@"

PLATFORM="$SRC/configs/fermi.yaml"
# within A B: A within 2% of B
within() {
  python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(a - b) > 0.02 * b)" "$1" "$2"
}

# The suite in both modes.
for mode in direct at; do
  "$GPURF" suite --platform "$PLATFORM" -p gpu.memory_port=$mode -j 2 --out "$TMP/$mode" \
    >"$TMP/out" 2>"$TMP/err" || fail "suite, memory_port $mode: $(grep -E ' NO |passed' "$TMP/out" | head -5)"
done
python3 - "$TMP/direct/fermi/summary.json" "$TMP/at/fermi/summary.json" <<'PY' || fail "suite: AT vs direct cycles"
import json, sys
direct = {r["kernel"]: r for r in json.load(open(sys.argv[1]))}
at = {r["kernel"]: r for r in json.load(open(sys.argv[2]))}
assert set(direct) == set(at) and len(direct) >= 16, (sorted(direct), sorted(at))
bad = [f"{k}: direct {direct[k]['cycles']}, at {at[k]['cycles']}" for k in sorted(direct)
       if not direct[k]["verified"] or not at[k]["verified"]
       or abs(at[k]["cycles"] - direct[k]["cycles"]) > 0.02 * direct[k]["cycles"]]
if bad:
    print("AT off by more than 2% (or not verified):\n  " + "\n  ".join(bad), file=sys.stderr)
    sys.exit(1)
PY

# cycles WORKLOAD MODE: the verified run's cycles
cycles() {
  "$GPURF" run --quiet --platform "$PLATFORM" --workload "$1" -p gpu.memory_port=$2 \
    --out "$TMP/one" >/dev/null 2>"$TMP/err" || { fail "$1 $2: $(tail -c 400 "$TMP/err")"; echo 0; return; }
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verified"]; print(r["cycles"])' \
    "$TMP/one/result.json" || { fail "$1 $2: not verified"; echo 0; }
}
for k in chase wavefront lu_diag launches; do
  w="$SRC/tests/cli/data/at_parity/$k.yaml"
  direct=$(cycles "$w" direct)
  for mode in at lt; do
    c=$(cycles "$w" $mode)
    within "$c" "$direct" || fail "$k: memory_port $mode gives $c cycles, direct $direct"
  done
done

finish
