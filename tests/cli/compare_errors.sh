#!/usr/bin/env bash
# gpurf compare's bad input exits 2 naming the file or key: no summary, another schema
# version, an unknown statistic (did-you-mean); unverified and missing kernels are marked.
source "$(dirname "$0")/lib.sh" "$@"

"$GPURF" suite --platform "$SRC/configs/fermi.yaml" --kernels scan,gaussian -j 2 --out "$TMP/s" \
  >"$TMP/suite.log" 2>&1 || fail "gpurf suite failed: $(tail -5 "$TMP/suite.log")"
S="$TMP/s/fermi/summary.json"

# edit FROM TO PYTHON: a copy of summary FROM with each kernel object `o` changed by PYTHON.
edit() {
  mkdir -p "$2"
  python3 - "$1" "$2/summary.json" "$3" <<'PY'
import json, sys
src, dst, code = sys.argv[1:]
l = json.load(open(src))
for o in list(l):
    exec(code)
json.dump(l, open(dst, "w"), indent=2)
PY
}

# Unknown statistic: the name, did-you-mean, and the statistics there are.
expect_exit 2 "unknown statistic 'icp'" "did you mean 'ipc'" "statistics:" "rf_bank_accesses" \
  -- compare "$TMP/s" --stats icp
expect_exit 2 "did you mean 'bank_conflicts.read_read'" -- compare "$TMP/s" --stats read_read
expect_exit 2 "$S: kernel '" "'bank_conflicts' is a group" "bank_conflicts.read_write" \
  -- compare "$TMP/s" --stats bank_conflicts
# A default statistic that is an object in a hand-edited summary (found by the compare fuzzer).
edit "$S" "$TMP/sgroup" 'o["ipc"] = {"a": 1}'
expect_exit 2 "$TMP/sgroup/summary.json: kernel" "'ipc' is a group" -- compare "$TMP/sgroup"

# Another schema version, or none: exit 2 naming the file and the version.
edit "$S" "$TMP/s99" 'o["schema"] = 99'
expect_exit 2 "$TMP/s99/summary.json" '"schema": 99' "reads schema 1" -- compare "$TMP/s" "$TMP/s99"
edit "$S" "$TMP/s0" 'o.pop("schema", None)'
expect_exit 2 "$TMP/s0/summary.json" 'no "schema" field' -- compare "$TMP/s0"

# No summary.json; several platforms.
mkdir -p "$TMP/empty"
expect_exit 2 "$TMP/empty: no summary.json" -- compare "$TMP/s" "$TMP/empty"
expect_exit 2 "no such file or directory" -- compare "$TMP/nonexistent"
mkdir -p "$TMP/two/a" "$TMP/two/b"
cp "$S" "$TMP/two/a/"; cp "$S" "$TMP/two/b/"
expect_exit 2 "platforms; name one of" "$TMP/two/a" -- compare "$TMP/two"
expect_exit 2 "unknown option '--stat-s'" -- compare "$TMP/s" --stat-s ipc

# A field of the wrong type (fuzz compare found "verified": "fermi" escaping as a JSON
# type_error): the file, the kernel, the field, the value and what it must be.
edit "$S" "$TMP/vstr" 'o["verified"] = "fermi"'
expect_exit 2 "$TMP/vstr/summary.json: kernel 'scan'" '"verified": "fermi"' "expected true or false" \
  -- compare "$TMP/s" "$TMP/vstr"
edit "$S" "$TMP/estr" 'o["error"] = 7'
expect_exit 2 "$TMP/estr/summary.json: kernel 'scan'" '"error": 7' "expected a string" \
  -- compare "$TMP/estr"

# An unverified kernel: a warning, '*', excluded from the means; exit 0.
edit "$S" "$TMP/bad" 'o["verified"] = o["kernel"] != "scan"; o["cycles"] *= 2'
expect_exit 0 "warning: $TMP/bad/summary.json: kernel 'scan' is not verified" "2.000*" \
  "kernel scan is not verified in bad ('*'); not in the means" "means over 1 of 2 kernels" \
  -- compare "$TMP/s" "$TMP/bad" --stats cycles

# A kernel missing in one DIR: '-', a note, excluded from the means.
edit "$S" "$TMP/miss" 'l.remove(o) if o["kernel"] == "gaussian" else None'
expect_exit 0 "kernel gaussian is missing in miss ('-'); not in the means" \
  -- compare "$TMP/s" "$TMP/miss" --stats ipc
grep -qE '^gaussian +[0-9.]+ +-$' "$TMP/out" || fail "missing kernel not shown as '-': $(cat "$TMP/out")"
finish
