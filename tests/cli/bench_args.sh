#!/usr/bin/env bash
# scripts/bench's bad arguments exit 2 with a message naming them, before anything runs.
source "$(dirname "$0")/lib.sh" "$@"

check() { # NEEDLE... -- bench args
  local needles=()
  while [ "$1" != "--" ]; do needles+=("$1"); shift; done
  shift
  python3 "$SRC/scripts/bench" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  [ $rc = 2 ] || fail "bench $* exited $rc, expected 2: $(cat "$TMP/err")"
  for n in "${needles[@]}"; do
    grep -qF -- "$n" "$TMP/err" || fail "bench $*: stderr lacks '$n': $(cat "$TMP/err")"
  done
}
check "--repeat must be at least 1" -- --repeat 0
check "--fail-below needs --compare OLD.json" -- --fail-below 0.9
check "invalid choice: 'maybe'" -- --checks maybe
check "--instructions counts fixed runs" "--quick does not apply" -- --instructions --quick
check "--repeat, --checks do not apply" -- --instructions --repeat 3 --checks off
check "--compare $TMP/none.json: not a scripts/bench --json file" -- --compare "$TMP/none.json"
echo '{"results": 3}' >"$TMP/bad.json"
check "--compare $TMP/bad.json: not a scripts/bench --json file" -- --compare "$TMP/bad.json"
finish
