# gpurf micro: its options, bad input, and that a measurement follows the configuration it
# reads. Every platform in configs/ is held to its rows by micro_platforms.sh (no MISMATCH).
source "$(dirname "$0")/lib.sh" "$@"

# A measurement follows the configuration it reads: a slower L1 hit is measured as such.
"$GPURF" micro --platform "$SRC/configs/fermi.yaml" -p l1.hit_latency=33 --format json -j 2 \
  >"$TMP/hit.json" 2>/dev/null
python3 -c '
import json, sys
r = [r for r in json.load(open(sys.argv[1]))["rows"] if r["quantity"] == "L1 hit latency"][0]
assert r["configured"] == 33 and r["measured"] == 33 and r["ok"], r
' "$TMP/hit.json" || fail "L1 hit latency 33 not measured as 33"

expect_exit 2 "--format" "csv" "text, markdown or json" -- micro --format csv
expect_exit 2 "cannot open platform file" "nope.yaml" -- micro --platform nope.yaml
expect_exit 2 "unknown argument" "--bogus" -- micro --bogus
expect_exit 2 "bank.count" -- micro --platform "$SRC/configs/turing-subcore.yaml" -p bank.count=6
expect_exit 2 "declares no var" "warpz" "did you mean 'warps'" -- run --platform \
  "$SRC/configs/fermi.yaml" --workload "$SRC/workloads/micro/dep_fadd.yaml" --var warpz=2


# Several SMs: the chase runs on one SM and its L1 misses cross the interconnect both ways.
"$GPURF" micro --platform "$SRC/configs/fermi.yaml" -p gpu.sm_count=2 -p gpu.interconnect_latency=7 \
  --format json -j 2 >"$TMP/noc.json" 2>"$TMP/noc.err"
[ $? -eq 0 ] || fail "2 SMs: $(head -c 600 "$TMP/noc.err")"
"$GPURF" micro --platform "$SRC/configs/fermi.yaml" --format json -j 2 >"$TMP/one.json" 2>/dev/null
python3 -c '
import json, sys
pick = lambda f: [r for r in json.load(open(f))["rows"] if r["quantity"].startswith("L1 miss latency")][0]
noc, one = pick(sys.argv[1]), pick(sys.argv[2])
assert noc["ok"] and noc["measured"] == noc["configured"], noc
assert noc["configured"] == one["configured"] + 14, (noc, one)
' "$TMP/noc.json" "$TMP/one.json" || fail "interconnect latency not measured in the L1 miss latency"

finish
