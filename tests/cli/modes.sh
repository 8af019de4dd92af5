# Every suite kernel verified, with the timing checkers on, on every platform (configs/ and
# tests/platforms/) in every instruction-stream mode of docs/frontend.md: the three register
# allocations with the order and operands each paper's compiler gave, plus list scheduling
# and constant operands under gpurf's own allocator (the modes combine freely).
source "$(dirname "$0")/lib.sh" "$@"

platforms=()
for p in "$SRC"/configs/*.yaml "$SRC"/tests/platforms/*.yaml; do platforms+=(--platform "$p"); done
[ ${#platforms[@]} -ge 30 ] || fail "only $((${#platforms[@]} / 2)) platform files"

modes=("regalloc=linear_scan schedule=none constants=registers"
       "regalloc=ptx_virtual schedule=none constants=registers"
       "regalloc=ptxas_like schedule=list constants=operands"
       "regalloc=linear_scan schedule=list constants=operands")
for m in "${modes[@]}"; do
  args=()
  for kv in $m; do args+=(-p "frontend.$kv"); done
  out="$TMP/${m// /_}"
  "$GPURF" suite "${platforms[@]}" "${args[@]}" -j 2 --out "$out" >"$TMP/log" 2>&1
  rc=$?
  last=$(tail -n 1 "$TMP/log")
  [ $rc -eq 0 ] || fail "$m: exit $rc: $(grep -B1 -A1 ' NO \|error' "$TMP/log" | head -c 1500)"
  [[ "$last" =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] || fail "$m: $last"
  [ "${BASH_REMATCH[1]:-0}" -ge $((16 * ${#platforms[@]} / 2)) ] || fail "$m: only $last"
done

finish
