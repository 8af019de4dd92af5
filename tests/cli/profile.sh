#!/usr/bin/env bash
# gpurf profile: the JSON report of sgemm on fermi has every field, in range and consistent;
# bad input exits 2 naming the option and what it accepts.
source "$(dirname "$0")/lib.sh" "$@"

"$GPURF" profile --workload sgemm --format json >"$TMP/p.json" 2>"$TMP/err" ||
  fail "profile sgemm exited $?: $(head -c 600 "$TMP/err")"
python3 - "$TMP/p.json" >"$TMP/check" 2>&1 <<'PY' || fail "$(cat "$TMP/check")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["kernel"] == "sgemm" and j["platform"] == "fermi", j["kernel"]
regs = j["registers_per_thread"]
assert regs["ptxas"] == 39 and 8 <= regs["gpurf"] <= 128 and regs["numbered"] >= regs["gpurf"], regs  # fermi: ptx_virtual (sgemm: 100 values)
assert j["warp_instructions"] > 1000 and j["reads"] > j["writes"] > 0, j["reads"]
def share(x):
    assert 0 <= x <= 1, x
def dist(a, n):
    assert len(a) == n and abs(sum(a) - 1) < 1e-9, a
rr = j["register_reads"]
assert sum(rr["reads_by_register"]) == j["reads"] and len(rr["reads_by_register"]) <= regs["numbered"]
share(rr["hottest6_share"])
b = j["banks"]
dist(b["read_share"], b["count"])
share(b["same_bank_share"]); share(b["same_bank_share_random"])
assert b["multi_source_instructions"] > 0
l = j["value_lifetime"]
dist(l["reads_per_value"]["share"], 4)
assert abs(l["reads_per_value"]["share"][1] - l["read_once_share"]) < 1e-9
assert l["read_once_within3_share"] <= l["read_once_share"]
dist(l["lifetime_of_reads"]["share"], 6); dist(l["lifetime_of_once_read"]["share"], 6)
w = j["operand_width"]
for k in ("reads", "writes", "accesses"):
    dist(w[k], 4)
assert 0 <= w["wasted_bandwidth"] < 0.75 and abs(w["full_width_share"] - w["accesses"][3]) < 1e-9
r = j["reuse_distance"]
dist(r["share"], 5)
assert r["reuses"] > 0 and abs(sum(r["share"][:2]) - r["below12_share"]) <= r["share"][2]
c = j["repeated_computations"]
assert c["window"] == 1000 and 0 < c["reusable_share"] <= c["share"] < 1, c  # sgemm repeats (WIR Fig. 2)
share(c["over10_share"])
PY

# text and markdown carry the same headline rows
"$GPURF" profile --workload sgemm --format markdown >"$TMP/p.md" 2>"$TMP/err" ||
  fail "profile --format markdown exited $?"
grep -qF "| registers per thread (gpurf / ptxas) |" "$TMP/p.md" || fail "markdown: $(head -3 "$TMP/p.md")"

# the profile follows the platform's register allocation (frontend.regalloc; fermi: ptx_virtual)
"$GPURF" profile -p frontend.regalloc=linear_scan --workload sgemm --format json \
  >"$TMP/ls.json" 2>"$TMP/err" || fail "profile with linear_scan exited $?: $(head -c 300 "$TMP/err")"
python3 -c '
import json, sys
a, b = (json.load(open(f))["registers_per_thread"] for f in sys.argv[1:])
assert a["gpurf"] > b["gpurf"] and b["ptxas"] == a["ptxas"], (a, b)
' "$TMP/p.json" "$TMP/ls.json" || fail "ptx_virtual profile registers not above linear_scan's"

expect_exit 2 "option --format" "text, markdown or json" -- profile --workload sgemm --format xml
expect_exit 2 "--workload" "sgemm" -- profile --workload sgemmm
expect_exit 2 "option --format needs gpurf profile" -- run --workload sgemm --format json
expect_exit 2 "needs a PTX kernel" -- profile --workload synthetic
expect_exit 2 "bank.count" -- profile --workload scan -p bank.count=0
finish
