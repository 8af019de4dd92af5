# gpurf run --sample-interval: sampling changes no statistic (the units' settle() is free of
# side effects), the rows add up to the run's totals, CSV and JSON lines agree, applications
# and the two-level scheduler are covered, bad options exit 2, and scripts/plot timeline draws it
# (with its kernel, platform and launch boundaries where result.json is beside it).
source "$(dirname "$0")/lib.sh" "$@"

strip_host() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("host", None); print(json.dumps(d, indent=1))' "$1"
}
# The rows' sums equal the summary's counters; intervals tile [0, cycles) in steps of N.
check_rows() { # FILE RESULT N
  python3 - "$@" <<'PY' || fail "$1: rows do not add up to $2"
import csv, json, sys
path, res, n = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
if path.endswith(".jsonl"):
    rows = [json.loads(l) for l in open(path)]
else:
    rows = [{k: float(v) if v else None for k, v in r.items()} for r in csv.DictReader(open(path))]
s = lambda c: sum(r[c] for r in rows)
assert rows, "no rows"
assert all(r["cycle"] == i * n and (r["cycles"] == n or i == len(rows) - 1)
           for i, r in enumerate(rows)), "intervals do not tile the run"
assert s("cycles") == res["cycles"], (s("cycles"), res["cycles"])
assert s("warp_instructions") == res["warp_instructions"]
assert s("bank_reads") == res["rf_bank_reads"] and s("bank_writes") == res["rf_bank_writes"]
for k, v in res["bank_conflicts"].items():
    assert s("conflicts." + k) == v, (k, s("conflicts." + k), v)
assert s("l1_hits") == res["l1_hits"] and s("l1_misses") == res["l1_misses"]
if "rfc" in res:
    assert s("rfc_hits") == res["rfc"]["reads"] and s("rfc_misses") == res["rfc"]["misses"]
if "scheduler_states" in res:
    for k, v in res["scheduler_states"].items():
        assert s("state." + k) == v, (k, s("state." + k), v)
assert any(r["ipc"] > 0 for r in rows)
PY
}

for case in "fermi sgemm 700" "gebhart-rfc-twolevel sgemm 1000" "turing-subcore apps/dp1d 20000"; do
  set -- $case
  p=$1 w=$2 n=$3 d="$TMP/$p-${w//\//_}"
  "$GPURF" run --quiet --platform "$p" --workload "$w" --out "$d.plain" >/dev/null 2>"$TMP/err" ||
    fail "$p $w: run exited $?: $(head -c 300 "$TMP/err")"
  "$GPURF" run --quiet --platform "$p" --workload "$w" --out "$d.ts" --sample-interval "$n" \
    >/dev/null 2>"$TMP/err" || fail "$p $w sampled: exited $?: $(head -c 300 "$TMP/err")"
  "$GPURF" run --quiet --platform "$p" --workload "$w" --sample-interval "$n" \
    --samples "$d.jsonl" >/dev/null 2>"$TMP/err" || fail "$p $w jsonl: exited $?"
  [ -s "$d.ts/timeline.csv" ] || { fail "$p $w: no $d.ts/timeline.csv"; continue; }
  cmp -s <(strip_host "$d.plain/stats.json") <(strip_host "$d.ts/stats.json") ||
    fail "$p $w: sampling changed the statistics: $(diff <(strip_host "$d.plain/stats.json") <(strip_host "$d.ts/stats.json") | head -8)"
  check_rows "$d.ts/timeline.csv" "$d.plain/result.json" "$n"
  check_rows "$d.jsonl" "$d.plain/result.json" "$n"
done
grep -q '^cycle,cycles,warp_instructions,ipc,.*state.stalled_none_ready.*rfc_hit_ratio' \
  "$TMP/gebhart-rfc-twolevel-sgemm.ts/timeline.csv" || fail "two-level + RFC columns missing"

# Bad options: exit 2 with the option named.
expect_exit 2 "--samples" ".csv" -- run --sample-interval 100 --samples "$TMP/t.txt"
expect_exit 2 "--sample-interval" "'0'" -- run --sample-interval 0 --out "$TMP/x"
expect_exit 2 "--sample-interval" "'1e3'" -- run --sample-interval 1e3 --out "$TMP/x"
expect_exit 2 "--samples FILE.csv" "--out DIR" -- run --sample-interval 100
expect_exit 2 "--samples needs --sample-interval" -- run --samples "$TMP/t.csv"
expect_exit 2 "need gpurf run" -- suite --sample-interval 100 --out "$TMP/s"
expect_exit 2 "one SM" "gpu.sm_count=1" -- run -p gpu.sm_count=2 --sample-interval 100 \
  --samples "$TMP/t.csv"
[ -e "$TMP/x" ] && fail "a refused run made its --out folder"

# scripts/plot timeline (skipped without matplotlib).
if python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  PLOT="$SRC/scripts/plot"
  for f in "$TMP/gebhart-rfc-twolevel-sgemm.ts/timeline.csv" "$TMP/fermi-sgemm.jsonl"; do
    "$PLOT" timeline "$f" -o "$TMP/t.png" >/dev/null 2>"$TMP/err" ||
      fail "plot timeline $f exited $?: $(head -c 300 "$TMP/err")"
    [ -s "$TMP/t.png" ] || fail "plot timeline $f: no PNG"
    rm -f "$TMP/t.png"
  done
  # Beside its result.json: the title names kernel and platform, launch boundaries are drawn.
  "$PLOT" timeline "$TMP/turing-subcore-apps_dp1d.ts/timeline.csv" -o "$TMP/a.svg" >/dev/null \
    2>"$TMP/err" || fail "plot timeline of dp1d: $(head -c 300 "$TMP/err")"
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["launches"]))' \
    "$TMP/turing-subcore-apps_dp1d.ts/result.json")
  grep -q "dp1d_app on turing-subcore, $n launches (dotted: boundaries)" "$TMP/a.svg" ||
    fail "timeline title: $(grep -o '<!-- [^>]*launches[^>]*-->' "$TMP/a.svg")"
  "$PLOT" timeline "$TMP/fermi-sgemm.jsonl" --panels ipc,stals -o "$TMP/t.png" 2>"$TMP/err"
  [ $? -eq 2 ] && grep -q "did you mean 'stalls'" "$TMP/err" || fail "bad panel: $(cat "$TMP/err")"
  "$PLOT" timeline "$TMP/fermi-sgemm.plain/result.json" -o "$TMP/t.png" 2>"$TMP/err"
  [ $? -eq 2 ] && grep -q "not a gpurf time series" "$TMP/err" || fail "bad file: $(cat "$TMP/err")"
fi

finish
