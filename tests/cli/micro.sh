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

# The tensor pipe: an mma chain's latency and the peak rate of independent chains follow
# exec.tensor (issue 36), on a platform with tensor units and on one whose mma folds onto SP.
"$GPURF" micro --platform "$SRC/configs/turing-subcore.yaml" -p exec.tensor.latency=40 \
  -p exec.tensor.ii=16 --format json -j 2 >"$TMP/tensor.json" 2>/dev/null
python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
lat = [r for r in rows if r["quantity"].startswith("latency mma.sync")][0]
assert lat["quantity"].endswith("(tensor) [tensor]") and lat["configured"] == 40, lat
assert lat["ok"] and lat["measured"] == 40, lat
peak = [r for r in rows if r["quantity"].startswith("peak IPC") and "mma.sync" in r["quantity"]][0]
# 4 sub-cores x 1 unit / ii 16, within one initiation interval of the ends of the two runs
assert 4 / 16 <= peak["configured"] <= 4 / 16 * 1.05 and peak["ok"], peak
assert abs(peak["measured"] - 0.25) < 0.01, peak
' "$TMP/tensor.json" || fail "tensor latency 40 / ii 16 not measured as configured"

# On the modern core (ampere-modern) the mma chain's rows apply too: the extra chain's first
# mma finds nothing in the register-file cache (reuse bits stay within a basic block) and
# reads its 7 sources from the banks, 4 in one bank, so its window is 4 cycles for 3, once
# per run; the row's overhead counts it (it was omitted as an unexplained +1 cycle before).
"$GPURF" micro --platform "$SRC/configs/ampere-modern.yaml" -p exec.tensor.latency=40 \
  --format json -j 2 >"$TMP/modern.json" 2>/dev/null
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
lat = [r for r in j["rows"] if r["quantity"].startswith("latency mma.sync")]
assert lat, [o for o in j["omitted"] if o["quantity"].startswith("latency mma.sync")]
lat = lat[0]
assert lat["configured"] == 40 and lat["ok"] and abs(lat["measured"] - 40) < 1e-9, lat
assert "once per run" in lat["formula"], lat
' "$TMP/modern.json" || fail "ampere-modern: the mma latency row does not measure exec.tensor.latency 40"

# An mma reads its fragments as the registers they are: each of dep_hmma's 32 extra links
# reads its 7 source registers (A 2, B 1, C 4) from the banks and writes its 4 results, runs
# on the tensor pipe, and is priced there (fu_tensor_pj_per_lane_op x 32 lanes).
for e in 0 1; do
  "$GPURF" run --quiet --platform "$SRC/configs/turing-subcore.yaml" \
    --workload "$SRC/workloads/micro/dep_hmma.yaml" --var extra=$e --out "$TMP/hmma$e" \
    >/dev/null 2>&1 || fail "dep_hmma extra=$e: exit $?"
done
python3 -c '
import json, sys
r = [json.load(open(sys.argv[i] + "/result.json")) for i in (1, 2)]
s = [json.load(open(sys.argv[i] + "/stats.json")) for i in (1, 2)]
assert all(x["verified"] for x in r), r
assert r[1]["rf_bank_reads"] - r[0]["rf_bank_reads"] == 32 * 7, (r[0]["rf_bank_reads"], r[1]["rf_bank_reads"])
assert r[1]["rf_bank_writes"] - r[0]["rf_bank_writes"] == 32 * 4, (r[0]["rf_bank_writes"], r[1]["rf_bank_writes"])
tensor = lambda st: sum(v["instructions"]["values"][5] for k, v in st.items() if k.startswith("sm.sub") and k.endswith(".exec"))
assert tensor(s[1]) - tensor(s[0]) == 32, (tensor(s[0]), tensor(s[1]))
e = [x["energy"]["breakdown"]["fu_tensor"] for x in r]
assert abs(e[1] - e[0] - 32 * 32 * 48) < 1e-6, e  # energy/warped-compression.yaml: 48 pJ
' "$TMP/hmma0" "$TMP/hmma1" || fail "dep_hmma: fragment registers, tensor pipe or its energy"

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
