#!/usr/bin/env bash
# Ctrl-C: an interrupted suite exits 130 with valid partial results; `--resume` runs only what
# is not done and the combined summary equals an uninterrupted suite's. An interrupted run
# writes partial statistics marked `interrupted` and closes its trace and VCD validly. A
# non-empty --out needs --force or --resume; every result folder holds its provenance.
source "$(dirname "$0")/lib.sh" "$@"
ARGS=(suite --platform fermi --kernels scan,apps/dp1d,apps/heat2d,apps/gaussian,sgemm -j 1)

"$GPURF" "${ARGS[@]}" --out "$TMP/full" >"$TMP/full.log" 2>&1 || fail "uninterrupted suite failed"

"$GPURF" "${ARGS[@]}" --out "$TMP/part" >"$TMP/part.log" 2>&1 &
pid=$!
for _ in $(seq 1200); do # until heat2d runs (dp1d done, heat2d's log opened)
  [ -f "$TMP/part/fermi/dp1d_app/result.json" ] && [ -f "$TMP/part/fermi/heat2d_app/log.txt" ] &&
    break
  sleep 0.1
done
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "interrupted suite exited $rc, expected 130: $(tail -5 "$TMP/part.log")"
grep -q "with --resume runs them" "$TMP/part.log" || fail "no resume hint: $(tail -3 "$TMP/part.log")"
# The runs never started failed nothing: "not run" in the table and the count, not "NO".
grep -qE "^gaussian_app +not run" "$TMP/part.log" && grep -qE "^sgemm +not run" "$TMP/part.log" &&
  grep -q "2 passed, 1 failed, 2 not run" "$TMP/part.log" || fail "not run: $(cat "$TMP/part.log")"
python3 - "$TMP/part/fermi/summary.json" <<'PY' || fail "partial summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s) == 5 and s[1]["kernel"] == "dp1d_app", [r["kernel"] for r in s]
assert s[0]["verified"] and s[1]["verified"], s[:2]
assert s[2].get("interrupted") is True and s[2]["cycles"] > 0, s[2]
assert not s[4]["verified"] and "not run" in s[4]["error"] and s[4]["not_run"] is True, s[4]
assert "not_run" not in s[2], s[2]
PY
expect_exit 2 "is not empty" "--force" "--resume" -- "${ARGS[@]}" --out "$TMP/part"
"$GPURF" "${ARGS[@]}" --out "$TMP/part" --resume >"$TMP/resume.log" 2>&1 ||
  fail "resume failed: $(tail -5 "$TMP/resume.log")"
grep -q "resume: 2 of 5 runs already done" "$TMP/resume.log" || fail "$(head -3 "$TMP/resume.log")"
python3 - "$TMP/full/fermi/summary.json" "$TMP/part/fermi/summary.json" <<'PY' || fail "resumed != full"
import json, sys
host = ("host_seconds", "cpu_seconds", "warp_instructions_per_second", "cycles_per_second")
a, b = ([{k: v for k, v in r.items() if k not in host} for r in json.load(open(f))] for f in sys.argv[1:])
assert a == b, [(x["kernel"], y["kernel"]) for x, y in zip(a, b) if x != y]
PY
python3 - "$TMP/part/provenance.json" <<'PY' || fail "suite provenance"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["suite"]["kernels"][1] == "apps/dp1d" and len(p["resumed"]) == 1, p
assert p["gpurf"] and p["command"][1] == "suite", p
PY
expect_exit 2 "holds another suite" -- suite --platform fermi --kernels scan --out "$TMP/part" --resume
expect_exit 2 "exclude each other" -- suite --out "$TMP/x" --force --resume
expect_exit 2 "need gpurf suite" -- run --resume

# One run: partial statistics, a valid trace and VCD, exit 130.
"$GPURF" run --workload apps/bfs --out "$TMP/run" --trace "$TMP/t.json" --trace-window 0:3000 \
  --vcd "$TMP/w.vcd" >"$TMP/run.log" 2>&1 &
pid=$!
sleep 2
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "interrupted run exited $rc: $(tail -3 "$TMP/run.log")"
python3 - "$TMP/run" "$TMP/t.json" "$TMP/w.vcd" <<'PY' || fail "interrupted run's files"
import json, sys, os
d, trace, vcd = sys.argv[1:]
r = json.load(open(d + "/result.json"))
assert r["interrupted"] is True and not r["verified"] and r["cycles"] > 0, r
assert "interrupted" in r["error"] and r["launch_count"] == len(r["launches"]), r
json.load(open(d + "/stats.json"))
assert json.load(open(trace))["traceEvents"], "empty trace"
text = open(vcd).read()
assert "$enddefinitions" in text and text.rstrip().splitlines()[-1].startswith(("#", "b", "0", "1")), text[-200:]
p = json.load(open(d + "/provenance.json"))
assert p["workload"]["name"] == "bfs_app" and p["workload"]["buffers"]["cols"].startswith("fnv1a64:")
assert os.path.exists(d + "/platform.yaml")
PY
finish
