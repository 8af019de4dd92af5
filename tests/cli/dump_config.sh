# --dump-config prints YAML that loads again to the same configuration, and simulates the
# same as the file it came from.
source "$(dirname "$0")/lib.sh" "$@"

for p in fermi turing-subcore; do
  "$GPURF" --dump-config --platform "$SRC/configs/$p.yaml" >"$TMP/$p.1.yaml" 2>"$TMP/err" ||
    fail "--dump-config $p exited $?: $(cat "$TMP/err")"
  [ -s "$TMP/$p.1.yaml" ] || fail "--dump-config $p printed nothing"
  "$GPURF" --dump-config --platform "$TMP/$p.1.yaml" >"$TMP/$p.2.yaml" 2>"$TMP/err" ||
    fail "--dump-config of the dump of $p exited $?: $(cat "$TMP/err")"
  cmp -s "$TMP/$p.1.yaml" "$TMP/$p.2.yaml" ||
    fail "$p: the dump does not reload identically: $(diff "$TMP/$p.1.yaml" "$TMP/$p.2.yaml" | head)"
done

# The dump is complete: the defaults are spelled out, overrides are applied.
grep -qE '^  warps: 48$' "$TMP/fermi.1.yaml" || fail "fermi dump lacks sm.warps 48"
grep -qE '^  collector_ports: 1$' "$TMP/fermi.1.yaml" || fail "fermi dump lacks arbiter.collector_ports"
"$GPURF" --dump-config -p bank.latency=3 >"$TMP/over.yaml" 2>"$TMP/err" || fail "--dump-config -p exited $?"
awk '/^bank:/{b=1;next} /^[a-z]/{b=0} b && /^  latency: 3$/{ok=1} END{exit !ok}' "$TMP/over.yaml" ||
  fail "the override bank.latency=3 is not in the dump"

# The dump simulates exactly like the original.
strip_host() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("host", None); print(json.dumps(d, sort_keys=True))' "$1"
}
"$GPURF" run --quiet --workload synthetic --platform "$SRC/configs/fermi.yaml" --out "$TMP/a" \
  >/dev/null 2>"$TMP/err" || fail "run fermi exited $?: $(cat "$TMP/err")"
"$GPURF" run --quiet --workload synthetic --platform "$TMP/fermi.1.yaml" --out "$TMP/b" \
  >/dev/null 2>"$TMP/err" || fail "run of the fermi dump exited $?: $(cat "$TMP/err")"
if [ -s "$TMP/a/stats.json" ] && [ -s "$TMP/b/stats.json" ]; then
  [ "$(strip_host "$TMP/a/stats.json")" = "$(strip_host "$TMP/b/stats.json")" ] ||
    fail "the dumped fermi platform simulates differently from configs/fermi.yaml"
fi

finish
