#!/usr/bin/env bash
# scripts/plot writes non-empty PNGs (ipc, stat, energy) and refuses bad input with exit 2.
# Skipped (77) without matplotlib (Debian's python3-matplotlib; scripts/setup installs it).
source "$(dirname "$0")/lib.sh" "$@"
python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
  { echo "skipped: no matplotlib"; exit 77; }
PLOT="$SRC/scripts/plot"

"$GPURF" suite --platform "$SRC/configs/fermi.yaml" --kernels scan,gaussian -j 2 --out "$TMP/s" \
  >"$TMP/suite.log" 2>&1 || fail "gpurf suite failed: $(tail -5 "$TMP/suite.log")"
png() { # FILE: exists, non-empty, a PNG
  [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "$1 is not a non-empty PNG"
}
"$PLOT" ipc "$TMP/s" "$TMP/s/fermi" -o "$TMP/ipc.png" >"$TMP/log" 2>&1 || fail "plot ipc: $(cat "$TMP/log")"
png "$TMP/ipc.png"
"$PLOT" stat bank_conflicts.read_read "$TMP/s" "$TMP/s/fermi" -o "$TMP/rr.png" >"$TMP/log" 2>&1 ||
  fail "plot stat: $(cat "$TMP/log")"
png "$TMP/rr.png"
if grep -q '"breakdown"' "$TMP/s/fermi/summary.json"; then
  "$PLOT" energy "$TMP/s" "$TMP/s/fermi" -o "$TMP/e.png" >"$TMP/log" 2>&1 || fail "plot energy: $(cat "$TMP/log")"
  png "$TMP/e.png"
fi

# Energy priced by different tables (gebhart's has no leakage): a WARNING and a title that
# says so; --strict refuses. A ratio 0/0 is drawn as n/a, not as a bar of 1.
"$GPURF" suite --platform gebhart --kernels scan,gaussian -j 2 --out "$TMP/g" >"$TMP/suite.log" 2>&1 ||
  fail "gpurf suite on gebhart failed: $(tail -5 "$TMP/suite.log")"
"$PLOT" energy "$TMP/s" "$TMP/g" -o "$TMP/mix.svg" >"$TMP/log" 2>&1 || fail "plot energy: $(cat "$TMP/log")"
grep -q "WARNING: the energy statistics were priced by different energy tables" "$TMP/log" &&
  grep -q "NOT COMPARABLE: different energy tables" "$TMP/mix.svg" || fail "mixed energy tables not marked"
"$PLOT" stat sm_energy_pj "$TMP/s" "$TMP/g" -o "$TMP/mix.svg" --strict 2>"$TMP/err"
[ $? = 2 ] && grep -q "strict: the energy statistics were priced by different" "$TMP/err" ||
  fail "plot stat --strict: $(cat "$TMP/err")"
"$PLOT" stat coalesced_accesses "$TMP/s" "$TMP/s" -o "$TMP/na.svg" >"$TMP/log" 2>&1 ||
  fail "plot stat coalesced_accesses: $(cat "$TMP/log")"
[ "$(grep -c "<!-- n/a -->" "$TMP/na.svg")" = 4 ] || fail "0/0 not drawn as n/a (2 kernels x 2 columns)"

# Bad input: exit 2, the file or name.
"$PLOT" stat icp "$TMP/s" -o "$TMP/x.png" 2>"$TMP/err"
[ $? = 2 ] && grep -q "did you mean 'ipc'" "$TMP/err" || fail "plot stat icp: $(cat "$TMP/err")"
mkdir -p "$TMP/s99"
sed 's/"schema": 1,/"schema": 99,/' "$TMP/s/fermi/summary.json" >"$TMP/s99/summary.json"
"$PLOT" ipc "$TMP/s" "$TMP/s99" -o "$TMP/x.png" 2>"$TMP/err"
[ $? = 2 ] && grep -q '"schema": 99' "$TMP/err" || fail "plot schema 99: $(cat "$TMP/err")"
sed 's/"schema": 1,//' "$TMP/s/fermi/summary.json" >"$TMP/s99/summary.json"
"$PLOT" energy "$TMP/s99" -o "$TMP/x.png" 2>"$TMP/err"
[ $? = 2 ] && grep -q 'no "schema" field' "$TMP/err" || fail "plot schema 0: $(cat "$TMP/err")"
[ ! -e "$TMP/x.png" ] || fail "a refused plot wrote its file"
# Formats by extension (PDF, SVG), labels and size from the command line; others refused (2).
"$PLOT" ipc "$TMP/s" "$TMP/s" -o "$TMP/f.pdf" --title "My title" --ylabel "my IPC" --size 6x3 \
  >/dev/null 2>&1 || fail "plot to PDF"
head -c 5 "$TMP/f.pdf" | grep -q "%PDF" || fail "f.pdf is not a PDF"
"$PLOT" stat cycles "$TMP/s" --absolute -o "$TMP/f.svg" --title "My title" >/dev/null 2>&1 ||
  fail "plot to SVG"
grep -q "My title" "$TMP/f.svg" || fail "the SVG lacks the --title"
"$PLOT" ipc "$TMP/s" -o "$TMP/f.jpg" 2>"$TMP/err"
[ $? = 2 ] && grep -q "unknown format '.jpg'; give a file ending in .png, .pdf, .svg" "$TMP/err" ||
  fail "plot .jpg: $(cat "$TMP/err")"
"$PLOT" ipc "$TMP/s" -o "$TMP/f.png" --size 7 2>"$TMP/err"
[ $? = 2 ] && grep -q "expected WIDTHxHEIGHT" "$TMP/err" || fail "plot --size 7: $(cat "$TMP/err")"
finish
