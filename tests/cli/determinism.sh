# The same platform and workload twice: identical statistics, apart from host timing.
source "$(dirname "$0")/lib.sh" "$@"

strip_host() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("host", None); print(json.dumps(d, indent=1))' "$1"
}
for w in synthetic sgemm; do
  for i in 1 2; do
    "$GPURF" run --quiet --platform "$SRC/configs/fermi.yaml" --workload $w --out "$TMP/$w$i" \
      >/dev/null 2>"$TMP/err" || fail "run $w #$i exited $?: $(cat "$TMP/err")"
  done
  [ -s "$TMP/${w}1/stats.json" ] || { fail "$w: no stats.json"; continue; }
  strip_host "$TMP/${w}1/stats.json" >"$TMP/${w}1.json"
  strip_host "$TMP/${w}2/stats.json" >"$TMP/${w}2.json"
  grep -q '"cycles"' "$TMP/${w}1.json" || fail "$w: stats.json has no cycles"
  cmp -s "$TMP/${w}1.json" "$TMP/${w}2.json" ||
    fail "$w: two runs differ: $(diff "$TMP/${w}1.json" "$TMP/${w}2.json" | head -20)"
done

finish
