# The LT quantum and several SMs (docs/vp.md "The quantum and several SMs"): decoupled SMs reach
# the shared L2 and memory out of time order, so a large quantum moves the cycles (bfs on 2 SMs,
# quantum 700: +41%); gpu.quantum_sync makes each request wait for SystemC's time to reach it,
# and the cycles come back within 2% of quantum 0's (lock-step). Every run verified. A quantum
# sync without decoupled SMs is refused.
source "$(dirname "$0")/lib.sh" "$@"

# cycles of KERNEL on 2 decoupled SMs under the given overrides
cycles() {
  local k=$1
  shift
  "$GPURF" run --quiet --platform "$SRC/configs/fermi.yaml" --workload "$k" \
    -p gpu.memory_port=lt -p gpu.sm_count=2 "$@" --out "$TMP/one" >/dev/null 2>"$TMP/err" ||
    { fail "$k $*: $(tail -1 "$TMP/err")"; echo 0; return; }
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verified"]; print(r["cycles"])' \
    "$TMP/one/result.json" || fail "$k $*: not verified"
}
within() { # within A B FRACTION
  python3 -c "import sys; a, b, f = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]); sys.exit(abs(b - a) > f * a)" "$@"
}
for k in bfs heat2d; do
  lockstep=$(cycles $k)
  loose=$(cycles $k -p gpu.quantum_cycles=700)
  synced=$(cycles $k -p gpu.quantum_cycles=700 -p gpu.quantum_sync=true)
  within "$lockstep" "$loose" 0.10 && fail "$k: quantum 700 gives $loose cycles, lock-step $lockstep (expected >10% off)"
  within "$lockstep" "$synced" 0.02 || fail "$k: quantum 700 with quantum_sync gives $synced cycles, lock-step $lockstep"
  # At quantum 0 the SMs are in step already: the sync changes nothing.
  [ "$(cycles $k -p gpu.quantum_sync=true)" = "$lockstep" ] || fail "$k: quantum_sync moved the lock-step cycles"
done
expect_exit 2 "gpu.quantum_sync" "memory_port: lt" -- run -p gpu.quantum_sync=true
finish
