# The modern core (configs/ampere-modern.yaml, docs/modern-core.md; Huerta et al. MICRO'25):
# sgemm, reduce and bfs verify with every check on, with the mechanisms at work: register-file
# cache hits from the compiler's reuse bits, bank-port conflicts refusing issue, stall counts
# and dependence counters holding warps (no scoreboard). Without the cache nbody, the
# suite's kernel most bound by the banks' read ports, takes more cycles (the paper's
# cache-removal experiment; docs/modern-core.md). Control bits that do not keep a dependence
# are caught: stall counts computed for a 2-cycle latency on 4-cycle pipes stop the run.
source "$(dirname "$0")/lib.sh" "$@"

P="$SRC/configs/ampere-modern.yaml"
run() { # run NAME WORKLOAD [-p ...]: result in $TMP/NAME
  local name=$1 w=$2
  shift 2
  "$GPURF" run --quiet --platform "$P" --workload "$w" --out "$TMP/$name" "$@" \
    >/dev/null 2>"$TMP/err" || fail "$w ($name) exited $?: $(head -c 600 "$TMP/err")"
}
for w in sgemm reduce bfs nbody; do run "$w" "$w"; done
run nbody-norfc nbody -p collector.rfc=false
python3 - "$TMP" "$SRC/scripts" >"$TMP/check" 2>&1 <<'PY' || fail "$(cat "$TMP/check")"
import json, sys
sys.path.insert(0, sys.argv[2])
from suite_stats import total
d = sys.argv[1]
def load(n):
    return json.load(open(f"{d}/{n}/result.json")), json.load(open(f"{d}/{n}/stats.json"))
bad = []
for n in ("sgemm", "reduce", "bfs", "nbody", "nbody-norfc"):
    r, s = load(n)
    if not r["verified"]: bad.append(f"{n}: not verified")
    if total(s, "scheduler", "stall_count_waits") == 0: bad.append(f"{n}: no stall-count wait")
r, s = load("sgemm")
if not total(s, "collector", "rfc_hits") > 0: bad.append("sgemm: no register-file cache hit")
if not total(s, "collector", "port_conflicts") > 0: bad.append("sgemm: no bank-port conflict")
if not total(s, "scheduler", "dependence_counter_waits") > 0: bad.append("sgemm: no counter wait")
if total(s, "collector", "operands_checked") == 0: bad.append("sgemm: nothing checked")
r, s = load("nbody")
n, sn = load("nbody-norfc")
if total(sn, "collector", "rfc_hits") != 0: bad.append("rfc=false still hits")
if not n["cycles"] > 1.05 * r["cycles"]:
    bad.append(f"nbody without the cache {n['cycles']} cycles, not 5% more than {r['cycles']}")
if not total(sn, "collector", "port_conflicts") > total(s, "collector", "port_conflicts"):
    bad.append("no more port conflicts without the cache")
if bad: sys.exit("; ".join(bad))
PY
expect_exit 1 "a fixed-latency dependence the control bits did not keep" -- \
  run --quiet --platform "$P" --workload reduce -p frontend.fixed_latency=2
finish
