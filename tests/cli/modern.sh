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

# The control-bit pass's counters flow over the CFG: sgemm_tiled's compute block waits for
# its shared loads, not for the next tile's prefetching global loads, so the control bits
# come within 10% of the scoreboard (the pass that made a block's first instruction wait for
# every counter of its registers took 1.53x the scoreboard's cycles).
run tiled sgemm_tiled
run tiled-sb sgemm_tiled -p scheduler.impl=standard
python3 - "$TMP" >"$TMP/check" 2>&1 <<'PY' || fail "$(cat "$TMP/check")"
import json, sys
d = sys.argv[1]
c = json.load(open(f"{d}/tiled/result.json"))
s = json.load(open(f"{d}/tiled-sb/result.json"))
if not (c["verified"] and s["verified"]): sys.exit("sgemm_tiled: not verified")
if not c["cycles"] < 1.10 * s["cycles"]:
    sys.exit(f"sgemm_tiled: control bits {c['cycles']} cycles, not within 10% of the "
             f"scoreboard's {s['cycles']}")
PY

# The designs on the modern core (docs/modern-core.md): Warped-Compression on the fixed read
# window compresses and decompresses; WIR and Malekeh on its collector-based form reuse and
# cache; Gebhart's RFC in its own read stage hits.
for d in wc wir malekeh gebhart-rfc; do
  "$GPURF" run --quiet --platform "$SRC/configs/ampere-modern-$d.yaml" --workload reduce \
    --out "$TMP/$d" >/dev/null 2>"$TMP/err" || fail "ampere-modern-$d exited $?: $(head -c 600 "$TMP/err")"
done
python3 - "$TMP" "$SRC/scripts" >"$TMP/check" 2>&1 <<'PY' || fail "$(cat "$TMP/check")"
import json, sys
sys.path.insert(0, sys.argv[2])
from suite_stats import total
d = sys.argv[1]
bad = []
for n, kind, stat in (("wc", "compressor", "compressions"), ("wc", "decompressor", "decompressions"),
                      ("wir", "allocator", "reuse_hits"), ("malekeh", "collector", "ccu_hits"),
                      ("gebhart-rfc", "rfc", "reads")):
    r = json.load(open(f"{d}/{n}/result.json"))
    s = json.load(open(f"{d}/{n}/stats.json"))
    if not r["verified"]: bad.append(f"ampere-modern-{n}: not verified")
    if not total(s, kind, stat) > 0: bad.append(f"ampere-modern-{n}: no {kind} {stat}")
if bad: sys.exit("; ".join(bad))
PY
# Units that cannot work together are refused at load, naming what would work.
O="$SRC/configs/ampere-modern-ocu.yaml"
expect_exit 2 "scheduler.impl" "fixed_window" -- \
  run --quiet --platform "$O" --workload reduce -p scheduler.impl=control_bits
expect_exit 2 "rfc.impl" "fixed_stage" -- \
  run --quiet --platform "$P" --workload reduce -p rfc.impl=cache
expect_exit 2 "bank.impl" "wake_latency" -- \
  run --quiet --platform "$SRC/configs/ampere-modern-wc.yaml" --workload reduce \
  -p bank.impl=power_gated -p bank.wake_latency=10
expect_exit 2 "crossbar.decompressors" "fixed window" -- \
  run --quiet --platform "$SRC/configs/ampere-modern-wc.yaml" --workload reduce \
  -p crossbar.decompressors=1
expect_exit 2 "WIR" -- \
  run --quiet --platform "$P" --workload reduce -p allocator.impl=wir -p writeback.impl=wir
finish
