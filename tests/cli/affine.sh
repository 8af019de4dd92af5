# WIR's Affine GPU (configs/affine.yaml) is an energy study on the wir baseline: on every
# kernel below, the same cycles and bank accesses as wir, fewer activated slices and less
# SM energy.
source "$(dirname "$0")/lib.sh" "$@"

for w in sgemm nn; do
  for p in wir affine; do
    "$GPURF" run --quiet --platform "$SRC/configs/$p.yaml" --workload $w --out "$TMP/$w-$p" \
      >/dev/null 2>"$TMP/err" || fail "$w on $p exited $?: $(cat "$TMP/err")"
  done
  python3 - "$TMP/$w-wir" "$TMP/$w-affine" >"$TMP/check" 2>&1 <<'PY' || fail "$w: $(cat "$TMP/check")"
import json, sys
def load(d):
    r = json.load(open(d + "/result.json"))
    s = json.load(open(d + "/stats.json"))
    tot = lambda name: sum(g[name]["value"] for k, g in s.items() if k.split(".")[-1].rstrip("0123456789") == "bank")
    return r, tot
rb, tb = load(sys.argv[1])
ra, ta = load(sys.argv[2])
assert ra["verified"] and rb["verified"]
assert ra["cycles"] == rb["cycles"], (ra["cycles"], rb["cycles"])
assert ta("reads") == tb("reads") and ta("writes") == tb("writes")
assert ta("slice_reads") < tb("slice_reads") and ta("slice_writes") < tb("slice_writes")
assert ra["sm_energy_pj"] < rb["sm_energy_pj"], (ra["sm_energy_pj"], rb["sm_energy_pj"])
PY
done

finish
