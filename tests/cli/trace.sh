# gpurf run --trace / --trace-window / --vcd / --vcd-signals: valid Chrome trace JSON bounded
# by the window, a VCD with the chosen signals, and bad values refused with status 2.
source "$(dirname "$0")/lib.sh" "$@"

"$GPURF" run --workload scan --trace "$TMP/t.json" --trace-window 100:600 \
  --vcd "$TMP/w.vcd" --vcd-signals sm.sub0.scheduler0.issued,sm.sub0.bank0.busy,sm.ipc \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || fail "run --trace: exit $rc: $(tail -c 600 "$TMP/err")"
grep -q "verified" "$TMP/out" || fail "run --trace: not verified: $(cat "$TMP/out")"
python3 - "$TMP/t.json" <<'EOF' || fail "trace JSON invalid or outside the window"
import json, sys
t = json.load(open(sys.argv[1]))
ev = [e for e in t["traceEvents"] if e["ph"] != "M"]
assert t["displayTimeUnit"] in ("ms", "ns"), t.get("displayTimeUnit")
assert any(e["ph"] == "X" for e in ev), "no slices"
assert any(e["ph"] == "i" and e["name"].startswith("read ") for e in ev), "no operand reads"
for e in ev:
    assert 100 <= e["ts"] < 600, e
    assert e["ph"] != "X" or e["ts"] + e["dur"] <= 600, e
names = {e["name"] for e in ev}
for stage in ("issue", "writeback"):
    assert stage in names, stage
assert any(n.startswith("execute") for n in names)
EOF
[ -s "$TMP/w.vcd" ] || fail "no VCD file written"
grep -q '\$enddefinitions' "$TMP/w.vcd" || fail "VCD lacks \$enddefinitions"
for s in issued busy ipc; do
  grep -q "$s" "$TMP/w.vcd" || fail "VCD lacks signal $s"
done

# Listing the signals, and a misspelt one.
expect_exit 0 "sm.sub0.bank0.busy" "sm.sub0.scheduler0.issued" -- \
  run --workload synthetic --vcd-signals list
expect_exit 2 "did you mean 'sm.sub0.scheduler0.issued'" -- \
  run --workload synthetic --vcd "$TMP/x.vcd" --vcd-signals sm.sub0.scheduler0.isued

# Bad windows and missing companions.
expect_exit 2 "--trace-window" "600" -- run --workload synthetic --trace "$TMP/x.json" \
  --trace-window 600:100
expect_exit 2 "--trace-window" "FROM:TO" -- run --workload synthetic --trace "$TMP/x.json" \
  --trace-window abc:100
expect_exit 2 "--trace-window" -- run --workload synthetic --trace "$TMP/x.json" \
  --trace-window 100
expect_exit 2 "--trace" -- run --workload synthetic --trace-window 1:100
expect_exit 2 "--vcd" -- run --workload synthetic --vcd-signals sm.ipc
expect_exit 2 "--trace" -- run --workload synthetic --trace /nonexistent-dir/t.json

finish
