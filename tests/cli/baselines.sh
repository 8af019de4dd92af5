# Every baseline platform in configs/ runs its default workload to a verified finish.
source "$(dirname "$0")/lib.sh" "$@"

n=0
for p in "$SRC"/configs/*.yaml; do
  n=$((n + 1))
  "$GPURF" run --platform "$p" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ $rc -eq 0 ] || fail "$(basename "$p"): exit $rc: $(tail -c 600 "$TMP/err")"
  grep -q "verified" "$TMP/out" || fail "$(basename "$p"): not verified: $(cat "$TMP/out")"
done
[ $n -ge 5 ] || fail "only $n platform files in configs/"

finish
