#!/usr/bin/env bash
# scripts/sweep checks every point before running anything: an unknown key or value exits 2
# with gpurf's message, and no job runs.
source "$(dirname "$0")/lib.sh" "$@"
SWEEP=("$SRC/scripts/sweep" --gpurf "$GPURF" --platform "$SRC/configs/fermi.yaml" --kernels scan)

check() { # NEEDLE... -- sweep args
  local needles=()
  while [ "$1" != "--" ]; do needles+=("$1"); shift; done
  shift
  rm -rf "$TMP/sw"
  "${SWEEP[@]}" "$@" --out "$TMP/sw" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  [ $rc = 2 ] || fail "sweep $* exited $rc, expected 2: $(cat "$TMP/err")"
  for n in "${needles[@]}"; do
    grep -qF -- "$n" "$TMP/err" || fail "sweep $*: stderr lacks '$n': $(cat "$TMP/err")"
  done
  [ -z "$(find "$TMP/sw" -name result.json 2>/dev/null)" ] || fail "sweep $* ran a job"
}
check "bank.cuont" "did you mean 'count'" "nothing was run" -- --grid bank.cuont=2,4
check "scheduler.policy" "'xyz'" -- --grid bank.count=2,4 --grid scheduler.policy=gto,xyz
check "expected key.path=v1,v2" -- --grid bank.count
check "given twice" -- --grid bank.count=2 --grid bank.count=4
check "no suite kernel, application or launch file 'scna'" "did you mean 'scan'" -- --grid bank.count=2 --kernels scna
finish
