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
# Two read ports per bank (the paper's "2R", Table 6): the Allocate stage reserves two reads
# per bank and cycle and the banks (bank.ports 2r1w) grant them; without the cache nbody
# then loses no cycles to the ports that one port per bank costs it.
run nbody-2r nbody -p collector.rfc=false -p collector.read_ports=2 -p bank.ports=2r1w
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
t, st = load("nbody-2r")
if not t["verified"]: bad.append("nbody-2r: not verified")
if not total(st, "collector", "port_conflicts") < total(sn, "collector", "port_conflicts") / 4:
    bad.append(f"2 read ports: {total(st, 'collector', 'port_conflicts')} port conflicts, not a "
               f"quarter of one port's {total(sn, 'collector', 'port_conflicts')}")
if not t["cycles"] < n["cycles"]:
    bad.append(f"2 read ports: {t['cycles']} cycles, not fewer than one port's {n['cycles']}")
if bad: sys.exit("; ".join(bad))
PY
# Two reserved read ports need banks that have them.
expect_exit 2 "collector.read_ports" "2r1w" -- \
  run --quiet --platform "$P" --workload reduce -p collector.read_ports=2
expect_exit 1 "a fixed-latency dependence the control bits did not keep" -- \
  run --quiet --platform "$P" --workload reduce -p frontend.fixed_latency=2
finish
