#!/usr/bin/env bash
# scripts/plot sweep: a line per kernel against a grid key, from scripts/sweep's CSV; titles
# name the platform, occupancy changes are labelled, hit ratios plot.
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
# Titles name the platform; the hit ratios of the summary plot (rfc.hit_ratio); the RFC's
# reads say they are its hits; points where occupancy changes carry the resident warps.
"$SRC/scripts/sweep" --gpurf "$GPURF" --platform gebhart-rfc --grid bank.count=2,4 --kernels scan \
  -j 2 --out "$TMP/rfc" >"$TMP/log" 2>&1 || fail "sweep on gebhart-rfc: $(tail -20 "$TMP/log")"
"$SRC/scripts/plot" sweep "$TMP/rfc/results.csv" --x bank.count --y rfc.hit_ratio -o "$TMP/h.svg" \
  >"$TMP/log" 2>&1 || fail "plot sweep --y rfc.hit_ratio: $(cat "$TMP/log")"
grep -q "RFC hit ratio on gebhart-rfc" "$TMP/h.svg" || fail "rfc.hit_ratio plot: no title naming the platform"
grep -q "occupancy (resident warps) changes along x" "$TMP/log" || fail "no occupancy note: $(cat "$TMP/log")"
grep -q "<!-- 16w -->" "$TMP/h.svg" && grep -q "<!-- 32w -->" "$TMP/h.svg" ||
  fail "the points do not carry their resident warps"
"$SRC/scripts/plot" sweep "$TMP/rfc/results.csv" --x bank.count --y rfc.reads -o "$TMP/r.svg" \
  >"$TMP/log" 2>&1 || fail "plot sweep --y rfc.reads: $(cat "$TMP/log")"
grep -q "RFC hits (operands read from the RFC) on gebhart-rfc" "$TMP/r.svg" || fail "rfc.reads: the title does not say hits"
"$SRC/scripts/plot" sweep "$TMP/sw/results.csv" --x bank.count --y icp -o "$TMP/x.png" 2>"$TMP/err"
[ $? = 2 ] && grep -q "did you mean 'ipc'" "$TMP/err" || fail "plot sweep --y icp: $(cat "$TMP/err")"
finish
