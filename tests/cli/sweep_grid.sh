#!/usr/bin/env bash
# scripts/sweep: a 2-point grid x 1 kernel gives a CSV of 2 rows with distinct cycles;
# --gather rebuilds it; --emit-parallel and --emit-slurm write job lists and run nothing.
# --platform takes a name as gpurf does; a change of occupancy between points is noted;
# kernels go by their launch files' name.
source "$(dirname "$0")/lib.sh" "$@"
SWEEP=("$SRC/scripts/sweep" --gpurf "$GPURF" --platform "$SRC/configs/fermi.yaml")

"$SRC/scripts/sweep" --gpurf "$GPURF" --platform fermi --grid bank.count=2,4 --kernels scan -j 2 \
  --out "$TMP/sw" >"$TMP/log" 2>&1 || fail "sweep failed: $(tail -20 "$TMP/log")"
grep -q '"platform": ".*/configs/fermi.yaml"' "$TMP/sw/sweep.json" || fail "--platform fermi: $(cat "$TMP/sw/sweep.json")"
# Two banks hold fewer registers than four: fewer resident warps, and the sweep says so.
grep -q "note: scan: resident_warps changes between points: 16 (bank.count=2), 40 (bank.count=4)" \
  "$TMP/log" || fail "no occupancy note: $(cat "$TMP/log")"
"$SRC/scripts/sweep" --gpurf "$GPURF" --platform fermy --grid bank.count=2 --out "$TMP/x" 2>"$TMP/err"
[ $? = 2 ] && grep -q "did you mean 'fermi'" "$TMP/err" || fail "--platform fermy: $(cat "$TMP/err")"
CSV="$TMP/sw/results.csv"
[ -f "$CSV" ] || fail "no $CSV"
head -1 "$CSV" | grep -q '^point,bank.count,kernel,verified,.*cycles' ||
  fail "csv header: $(head -1 "$CSV")"
python3 - "$CSV" <<'PY' || fail "csv rows: $(cat "$CSV")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2, rows
assert [r["bank.count"] for r in rows] == ["2", "4"], rows
assert all(r["kernel"] == "scan" and r["verified"] == "true" for r in rows), rows
assert rows[0]["cycles"] != rows[1]["cycles"], "same cycles at both points"
assert float(rows[0]["ipc"]) > 0 and "bank_conflicts.read_read" in rows[0]
PY
[ -f "$TMP/sw/point_1/scan/result.json" ] || fail "no point_1/scan/result.json"
grep -q '"bank.count=4"' "$TMP/sw/point_1/point.json" || fail "point.json lacks its override"

# --gather rebuilds the same CSV from the outputs.
cp "$CSV" "$TMP/first.csv"
rm "$CSV"
"$SRC/scripts/sweep" --gather "$TMP/sw" >"$TMP/log" 2>&1 || fail "gather: $(cat "$TMP/log")"
cmp -s "$CSV" "$TMP/first.csv" || fail "gather gave another CSV"

# Emitters: one command per job, nothing run.
"${SWEEP[@]}" --grid bank.count=2,4 --grid scheduler.policy=lrr,gto --kernels scan,gaussian \
  --out "$TMP/em" --emit-parallel "$TMP/jobs.txt" --emit-slurm "$TMP/sweep.sbatch" >"$TMP/log" 2>&1 ||
  fail "emit: $(cat "$TMP/log")"
[ "$(wc -l <"$TMP/jobs.txt")" = 8 ] || fail "jobs.txt: expected 8 lines: $(cat "$TMP/jobs.txt")"
grep -q -- "-p bank.count=4 -p scheduler.policy=gto" "$TMP/jobs.txt" || fail "jobs.txt lacks a point"
grep -q -- "--array=1-8" "$TMP/sweep.sbatch" || fail "slurm script: $(cat "$TMP/sweep.sbatch")"
grep -qF "$TMP/jobs.txt" "$TMP/sweep.sbatch" || fail "slurm script does not read the job list"
[ -z "$(find "$TMP/em" -name result.json)" ] || fail "an emitter ran a job"
# One job of the list, run by hand as a host would, then gathered: 1 of 8 rows verified.
bash -c "$(sed -n 1p "$TMP/jobs.txt")" || fail "job line 1 failed"
"$SRC/scripts/sweep" --gather "$TMP/em" >"$TMP/log" 2>&1
[ $? = 1 ] || fail "gather of an unfinished sweep should exit 1"
grep -q "1 passed, 7 failed" "$TMP/log" || fail "gather: $(cat "$TMP/log")"
# Kernels given as launch-file paths: the folders are the kernels' names (the launch files'
# `name`, as gpurf suite and compare name them, not the files' names), the CSV names them
# so, --gather finds them again.
cp "$SRC/examples/saxpy_shfl.yaml" "$TMP/other.yaml"
sed -i "s|^ptx: |ptx: $SRC/examples/|" "$TMP/other.yaml"
"${SWEEP[@]}" --grid bank.count=2,4 --kernels "$TMP/other.yaml,$SRC/workloads/scan.yaml" \
  -j 2 --out "$TMP/paths" >"$TMP/log" 2>&1 || fail "sweep with launch-file paths: $(tail -5 "$TMP/log")"
grep -q "ETA" "$TMP/log" || fail "sweep shows no ETA: $(cat "$TMP/log")"
python3 - "$TMP/paths/results.csv" <<'PY' || fail "csv of launch-file paths"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted(r["kernel"] for r in rows) == ["saxpy_shfl", "saxpy_shfl", "scan", "scan"], rows
assert all(r["verified"] == "true" for r in rows), rows
PY
[ -f "$TMP/paths/point_1/saxpy_shfl/result.json" ] || fail "no point_1/saxpy_shfl/result.json"
rm "$TMP/paths/results.csv"
"$SRC/scripts/sweep" --gather "$TMP/paths" >"$TMP/log" 2>&1 || fail "gather of paths: $(cat "$TMP/log")"
cp "$TMP/other.yaml" "$TMP/scan.yaml"
"${SWEEP[@]}" --grid bank.count=2 --kernels "$TMP/scan.yaml,$TMP/other.yaml" --out "$TMP/clash" \
  >"$TMP/log" 2>&1
[ $? = 2 ] && grep -q "are both named 'saxpy_shfl'" "$TMP/log" || fail "name clash: $(cat "$TMP/log")"
finish
