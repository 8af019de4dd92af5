#!/usr/bin/env bash
# Application files (workloads/apps): the suite applications run as multi-launch
# applications at realistic sizes and verify against their references; per-launch statistics
# add up to the whole run's; applications run on every baseline, on several SMs and behind LT
# and AT memory ports; bad steps are input errors (2), a failing step a failed run (1).
source "$(dirname "$0")/lib.sh" "$@"

# Sums of the per-launch records equal the totals; the launch count is the expected one.
check_launches() { # result.json expected-launch-count (0: any >= 3)
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
L = r["launches"]
assert r["verified"] and r["outputs_checked"], r["error"]
assert r["launch_count"] == len(L), (r["launch_count"], len(L))
assert len(L) == want if want else len(L) >= 3, (len(L), want)
for k in ("cycles", "warp_instructions", "rf_bank_reads", "rf_bank_writes", "operands_checked",
          "l1_hits", "l1_misses"):
    assert sum(l[k] for l in L) == r[k], (k, sum(l[k] for l in L), r[k])
for k, v in r["bank_conflicts"].items():
    assert sum(l["bank_conflicts"][k] for l in L) == v, k
assert all(l["warp_instructions"] > 0 and l["cycles"] > 0 for l in L)
assert [l["launch"] for l in L] == list(range(len(L)))
PY
}

for app in heat2d:8 dp1d:8 gaussian:127 bfs:0 jacobi:48; do
  name=${app%%:*}
  "$GPURF" run --workload apps/$name --out "$TMP/$name" >"$TMP/out" 2>"$TMP/err" ||
    fail "apps/$name did not verify: $(tail -3 "$TMP/err")"
  check_launches "$TMP/$name/result.json" "${app##*:}" || fail "apps/$name: per-launch records"
  grep -q "launches: " "$TMP/out" || fail "apps/$name: no per-label line"
done

# The baselines' other pipelines (two-level scheduler, compression, sub-cores, WIR) across
# launches: the timing checker and the identities hold.
for p in gebhart warped-compression turing-subcore wir; do
  "$GPURF" run --platform $p --workload apps/heat2d --quiet 2>"$TMP/err" ||
    fail "apps/heat2d on $p: $(tail -3 "$TMP/err")"
done
# Several SMs and the LT and AT memory ports: the same instructions, verified.
for o in gpu.sm_count=2 gpu.memory_port=lt gpu.memory_port=at; do
  "$GPURF" run --workload apps/dp1d -p $o --out "$TMP/dp-$o" --quiet 2>"$TMP/err" ||
    fail "apps/dp1d with $o: $(tail -3 "$TMP/err")"
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); \
assert a['warp_instructions']==b['warp_instructions']" "$TMP/dp1d/result.json" \
    "$TMP/dp-$o/result.json" || fail "apps/dp1d with $o: different warp instructions"
done

# A copy of application NAME in $TMP with sed expression EXPR applied (the PTX path made
# absolute).
app_copy() {
  sed -e "$2" -e "s|ptx: ../ptx/|ptx: $SRC/workloads/ptx/|" "$SRC/workloads/apps/$1.yaml" >"$TMP/$3"
}
# A step that fails while running names the step and fails the run (exit 1).
app_copy bfs 's/max: 65536/max: 2/' endless.yaml
expect_exit 1 "endless.yaml:" "still holds after 2 passes" -- run --workload "$TMP/endless.yaml"
# A bad step is bad input (exit 2) naming file, line and key.
app_copy heat2d 's/- swap: \[tin, tout\]/- swap: [tin, tuot]/' bad.yaml
expect_exit 2 "bad.yaml:25" "unknown buffer 'tuot'; did you mean 'tout'?" -- run --workload \
  "$TMP/bad.yaml"
finish
