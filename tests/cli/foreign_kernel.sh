#!/usr/bin/env bash
# A CUDA kernel from outside the suite (examples/saxpy_shfl: nvcc 13 PTX for sm_75) runs
# unmodified: every operand is checked; without a reference checker its outputs are not.
source "$(dirname "$0")/lib.sh" "$@"

"$GPURF" run --workload "$SRC/examples/saxpy_shfl.yaml" --out "$TMP/r" >"$TMP/out" 2>"$TMP/err" ||
  fail "saxpy_shfl did not verify: $(cat "$TMP/err")"
grep -q "operands are checked, outputs are not" "$TMP/err" || fail "no note about the missing reference"
python3 - "$TMP/r/result.json" <<'PY' || fail "result.json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verified"] is True and r["outputs_checked"] is False, r
assert r["operands_checked"] > 0 and r["warp_instructions"] > 0, r
PY
finish
