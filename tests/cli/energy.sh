#!/usr/bin/env bash
# gpurf energy (repricing saved runs) and gpurf compare across energy tables:
# - a suite repriced with its own table gives exactly each run's result.json energy;
# - the SM-scope table (gpuwattch-fermi) prices the same runs, its identity holds;
# - bad input exits 2 naming the file/key/valid values;
# - compare warns when the energy statistics it shows were priced by different tables, and
#   refuses with --strict.
source "$(dirname "$0")/lib.sh" "$@"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }

"$GPURF" suite --platform "$SRC/configs/fermi.yaml" --kernels scan,gaussian -j 2 --out "$TMP/f" \
  >"$TMP/suite.log" 2>&1 || fail "gpurf suite fermi failed: $(tail -5 "$TMP/suite.log")"
"$GPURF" run --platform "$SRC/configs/gebhart-rfc.yaml" --workload scan --out "$TMP/g" \
  >"$TMP/run.log" 2>&1 || fail "gpurf run gebhart-rfc failed: $(tail -5 "$TMP/run.log")"

# Repricing with the run's own table reproduces result.json's energy object exactly.
expect_exit 0 '"schema": 1' '"kernel": "scan"' '"kernel": "gaussian"' -- \
  energy --table "$SRC/configs/energy/warped-compression.yaml" "$TMP/f" --format json
cp "$TMP/out" "$TMP/own.json"
python3 - "$TMP/own.json" <<'PY' || fail "own table: repriced energy differs from result.json"
import json, os, sys
d = json.load(open(sys.argv[1]))
assert len(d["runs"]) == 2, d["runs"]
for r in d["runs"]:
    own = json.load(open(os.path.join(r["path"], "result.json")))["energy"]
    assert r["energy"] == own, (r["kernel"], r["energy"], own)
    assert r["verified"] is True and r["platform"] == "fermi"
PY
# One run (a run folder or its stats.json): the energy object itself, as result.json's.
for one in "$TMP/g" "$TMP/g/stats.json"; do
  expect_exit 0 '"table": "gebhart"' '"breakdown"' -- energy --table "$SRC/configs/energy/gebhart.yaml" \
    "$one" --format json
  python3 -c "
import json; e=json.load(open('$TMP/out'))
assert e==json.load(open('$TMP/g/result.json'))['energy'], e" || fail "$one: not result.json's energy"
done
# A run folder and its stats.json name the same run.
expect_exit 0 '"kernel": "scan"' -- energy --table "$SRC/configs/energy/gebhart.yaml" \
  "$TMP/g" "$TMP/g/stats.json" --format json
python3 -c "
import json,sys; d=json.load(open('$TMP/out')); r=d['runs']
assert len(r)==2 and r[0]['energy']==r[1]['energy']
assert r[0]['energy']==json.load(open('$TMP/g/result.json'))['energy']" ||
  fail "gebhart-rfc: repricing with its own table differs from result.json"

# The SM scope: every component and the identity (sum of the breakdown = total = sm + uncore +
# memory = dynamic + static).
expect_exit 0 '"scope": "sm"' '"fetch"' '"memory_pipeline"' '"sm_static"' -- \
  energy --table "$SRC/configs/energy/gpuwattch-fermi.yaml" "$TMP/f/fermi" --format json
python3 - "$TMP/out" "$TMP/own.json" <<'PY' || fail "gpuwattch-fermi: identity or scope broken"
import json, sys
d = json.load(open(sys.argv[1])); own = json.load(open(sys.argv[2]))
close = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1)
for r, o in zip(d["runs"], own["runs"]):
    e = r["energy"]
    assert e["table"] == "gpuwattch-fermi"
    assert close(sum(e["breakdown"].values()), e["total_energy_pj"])
    assert close(e["sm_energy_pj"] + e["uncore_energy_pj"] + e["memory_energy_pj"], e["total_energy_pj"])
    assert close(e["dynamic_energy_pj"] + e["static_energy_pj"], e["total_energy_pj"])
    for k in ("fetch", "decode", "issue", "operand_collection", "writeback", "memory_pipeline"):
        assert e["breakdown"][k] > 0, k
    # Same events: the register-file banks cost the same under both tables.
    assert e["breakdown"]["rf_bank_read"] == o["energy"]["breakdown"]["rf_bank_read"]
PY
expect_exit 0 "energy table" "scope sm" "fermi/scan" "breakdown:" "fetch" -- \
  energy --table "$SRC/configs/energy/gpuwattch-fermi.yaml" "$TMP/f/fermi/scan"

# Bad input: exit 2 with the file, key and valid values.
expect_exit 2 "missing --table FILE" -- energy "$TMP/f"
expect_exit 2 "nope.yaml: cannot open energy table" -- energy --table "$TMP/nope.yaml" "$TMP/f"
expect_exit 2 "option --format: 'csv' is not text or json" -- \
  energy --table "$SRC/configs/energy/gebhart.yaml" "$TMP/f" --format csv
mkdir -p "$TMP/empty"
expect_exit 2 "$TMP/empty: no run" -- energy --table "$SRC/configs/energy/gebhart.yaml" "$TMP/empty"
# A table that does not price the run's RFC: the unit, the event and the table.
expect_exit 2 "event 'reads' of unit sm.sub0.rfc" "warped-compression.yaml" -- \
  energy --table "$SRC/configs/energy/warped-compression.yaml" "$TMP/g"
printf 'name: bad\nscope: sm\n' >"$TMP/bad.yaml"
expect_exit 2 "bad.yaml" "bank_read_pj_per_16B: missing required entry" -- \
  energy --table "$TMP/bad.yaml" "$TMP/f"
sed 's/^  clock_ghz:.*$//' "$TMP/g/platform.yaml" >"$TMP/p.yaml" && mkdir -p "$TMP/noclk" &&
  cp "$TMP/g/stats.json" "$TMP/noclk/" && cp "$TMP/p.yaml" "$TMP/noclk/platform.yaml"
expect_exit 2 "platform.yaml: sm.clock_ghz: missing" -- \
  energy --table "$SRC/configs/energy/gebhart.yaml" "$TMP/noclk"

# compare: energy priced by different tables is flagged; one table is not.
expect_exit 0 "WARNING: the energy statistics were priced by different energy tables" \
  "gebhart: g" "warped-compression: f" -- compare "$TMP/f" "$TMP/g"
expect_exit 2 "--strict: the energy statistics were priced by different energy tables" -- \
  compare "$TMP/f" "$TMP/g" --strict
expect_exit 0 "ipc (" -- compare "$TMP/f" "$TMP/g" --stats ipc --strict
grep -q "WARNING" "$TMP/err" && fail "compare --stats ipc warned about energy tables"
expect_exit 0 "sm_energy_pj (" -- compare "$TMP/f" "$TMP/f"
grep -q "WARNING" "$TMP/err" && fail "compare of one table warned: $(cat "$TMP/err")"
finish
