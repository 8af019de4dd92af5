#!/usr/bin/env bash
# gpurf compare: a summary against itself gives ratios of 1 and means of 1, in every format;
# a suite --out directory with one platform, and the platform directory, both work.
source "$(dirname "$0")/lib.sh" "$@"

"$GPURF" suite --platform "$SRC/configs/fermi.yaml" --kernels scan,gaussian -j 2 --out "$TMP/s" \
  >"$TMP/suite.log" 2>&1 || fail "gpurf suite failed: $(tail -5 "$TMP/suite.log")"

expect_exit 0 "ipc (s: absolute" "cycles (" "rf_bank_accesses (" "geomean" "arith-mean" \
  -- compare "$TMP/s" "$TMP/s/fermi"
# Every ratio (second column) of every row is 1.000: kernels and both means.
awk '$1=="scan"||$1=="gaussian"||$1=="arith-mean"||$1=="geomean" {n++; if ($3!="1.000") bad++}
     END {exit !(n>=12 && bad==0)}' "$TMP/out" ||
  fail "compare with itself: expected every row (12 or more) with ratio 1.000: $(cat "$TMP/out")"
grep -qE '^geomean +[0-9.]+ +1\.000$' "$TMP/out" || fail "no geomean row of 1.000"

# Nested statistics by dot path; csv carries raw ratios.
expect_exit 0 "stat,kernel,s,fermi/s,note" -- compare "$TMP/s" "$TMP/s/fermi" \
  --stats ipc,bank_conflicts.read_read --format csv
[ "$(grep -c '^ipc,' "$TMP/out")" = 4 ] || fail "csv: expected 4 ipc rows: $(cat "$TMP/out")"
awk -F, 'NR>1 && $4!="1" {bad++} END {exit bad>0}' "$TMP/out" ||
  fail "csv: a ratio other than 1: $(cat "$TMP/out")"

expect_exit 0 "### ipc" "| **geomean** |" -- compare "$TMP/s" "$TMP/s" --stats ipc --format markdown

# --normalize=off: absolute values in every column, equal here.
expect_exit 0 "cycles (absolute)" -- compare "$TMP/s" "$TMP/s" --stats cycles --normalize=off
grep -q "^scan" "$TMP/out" && awk '$1=="scan" {exit !($2==$3 && $2>0)}' "$TMP/out" || fail "normalize=off: $(cat "$TMP/out")"
# Provenance: compare says when a column was made with other overrides, and when a column has
# no provenance to tell.
"$GPURF" suite --platform "$SRC/configs/fermi.yaml" --kernels scan -p bank.count=8 --out "$TMP/b8" \
  >/dev/null 2>&1 || fail "suite with bank.count=8"
expect_exit 0 'differs from s beyond the platform: overrides [] vs ["bank.count=8"]' -- \
  compare "$TMP/s" "$TMP/b8"
mkdir -p "$TMP/bare" && cp "$TMP/s/fermi/summary.json" "$TMP/bare/"
expect_exit 0 "bare has no provenance.json" -- compare "$TMP/s" "$TMP/bare"
finish
