# Shared helpers of the CLI tests. Usage in a test: source lib.sh "$@" (gpurf binary, source
# root); then `expect_fail CODE "needle"... -- args...`; finish with `finish`.
set -u
GPURF=${1:?usage: $0 GPURF SOURCE_DIR}
SRC=${2:?usage: $0 GPURF SOURCE_DIR}
export SC_COPYRIGHT_MESSAGE=DISABLE
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpurf-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILED=0

fail() {
  echo "FAIL: $*" >&2
  FAILED=$((FAILED + 1))
}

# expect_exit CODE NEEDLE... -- ARGS...: runs gpurf ARGS; checks the exit status and that
# stderr (or stdout) contains every NEEDLE (fixed strings).
expect_exit() {
  local code=$1
  shift
  local needles=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    needles+=("$1")
    shift
  done
  shift
  "$GPURF" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -ne "$code" ]; then
    fail "gpurf $* exited $rc, expected $code; stderr: $(head -c 400 "$TMP/err")"
    return
  fi
  local n
  for n in "${needles[@]}"; do
    if ! grep -qF -- "$n" "$TMP/err" "$TMP/out"; then
      fail "gpurf $*: output lacks '$n'; stderr: $(head -c 600 "$TMP/err")"
    fi
  done
}

finish() {
  if [ "$FAILED" -ne 0 ]; then
    echo "$FAILED check(s) failed" >&2
    exit 1
  fi
  echo "all checks passed"
  exit 0
}
