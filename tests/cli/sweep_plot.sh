#!/usr/bin/env bash
# scripts/plot sweep: a line per kernel against a grid key, from scripts/sweep's CSV.
# Skipped (77) without matplotlib.
source "$(dirname "$0")/lib.sh" "$@"
python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
  { echo "skipped: no matplotlib"; exit 77; }
"$SRC/scripts/sweep" --gpurf "$GPURF" --platform "$SRC/configs/fermi.yaml" --grid bank.count=2,4 \
  --grid scheduler.policy=lrr,gto --kernels scan,gaussian -j 2 --out "$TMP/sw" >"$TMP/log" 2>&1 ||
  fail "sweep failed: $(tail -20 "$TMP/log")"
"$SRC/scripts/plot" sweep "$TMP/sw/results.csv" --x bank.count --y ipc -o "$TMP/s.png" >"$TMP/log" 2>&1 ||
  fail "plot sweep: $(cat "$TMP/log")"
[ -s "$TMP/s.png" ] || fail "no $TMP/s.png"
"$SRC/scripts/plot" sweep "$TMP/sw/results.csv" --x bank.count --y cycles --where scheduler.policy=gto \
  -o "$TMP/w.png" >"$TMP/log" 2>&1 || fail "plot sweep --where: $(cat "$TMP/log")"
[ -s "$TMP/w.png" ] || fail "no $TMP/w.png"
"$SRC/scripts/plot" sweep "$TMP/sw/results.csv" --x bank.count --y icp -o "$TMP/x.png" 2>"$TMP/err"
[ $? = 2 ] && grep -q "did you mean 'ipc'" "$TMP/err" || fail "plot sweep --y icp: $(cat "$TMP/err")"
finish
