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
# A user kernel with a struct parameter and __constant__ coefficients, checked against a file
# (examples/poly_struct): no C++ written.
PS="$SRC/examples/poly_struct"
"$GPURF" run --workload "$PS/poly_struct.yaml" --out "$TMP/ps" --dump-outputs "$TMP/dump" \
  >"$TMP/out" 2>"$TMP/err" || fail "poly_struct did not verify: $(cat "$TMP/err")"
python3 - "$TMP/ps/result.json" "$TMP/dump" "$PS/expected_y.bin" <<'PY' || fail "poly_struct results"
import json, struct, sys, os
r = json.load(open(sys.argv[1]))
assert r["verified"] is True and r["outputs_checked"] is True, r
idx = json.load(open(os.path.join(sys.argv[2], "index.json")))
assert [b["name"] for b in idx["buffers"]] == ["y"] and idx["buffers"][0]["count"] == 3000, idx
got = struct.unpack("<3000f", open(os.path.join(sys.argv[2], "y.bin"), "rb").read())
want = struct.unpack("<3000f", open(sys.argv[3], "rb").read())
assert all(abs(g - w) <= 1e-5 + 1e-5 * abs(w) for g, w in zip(got, want))
assert len(set(got)) > 2900  # the coefficients reached the kernel: not a constant
PY
# Copies of the launch file with one change, paths made absolute.
variant() { # NAME SED-EXPRESSION
  sed -e "$2" -e "s|ptx: poly_struct.ptx|ptx: $PS/poly_struct.ptx|" \
    -e "s|file: expected_y.bin|file: $PS/expected_y.bin|" "$PS/poly_struct.yaml" >"$TMP/$1.yaml"
}
variant bias 's/f32: -0.5}   # bias/f32: -0.4}   # bias/'
expect_exit 1 "y[0]: expected 38.38" "verify of $TMP/bias.yaml:27" -- run --workload "$TMP/bias.yaml"
variant noconst '/symbol: coeffs/d; /init: {values/d'
expect_exit 1 "warning: $TMP/noconst.yaml: the kernel uses .const 'coeffs' (32 bytes)" \
  "give it a buffer with \`symbol: coeffs\`" -- run --workload "$TMP/noconst.yaml"
variant sym 's/symbol: coeffs/symbol: coefs/'
expect_exit 2 "sym.yaml:14: buffers.coeffs.symbol: no .const or .global variable 'coefs'" \
  "did you mean 'coeffs'?" -- run --workload "$TMP/sym.yaml"
variant field 's/offset: 24, f32/offset: 30, f32/'
expect_exit 2 "field.yaml:19: params[0]: struct does not match .param .b8 poly_param_0" \
  "field 4 (f32 at offset 30) ends past its 32 bytes" -- run --workload "$TMP/field.yaml"
variant big 's/count: 8, symbol/count: 9, symbol/'
expect_exit 2 "buffer 'coeffs' has 36 bytes; 'coeffs' holds 32" -- run --workload "$TMP/big.yaml"
variant vfile 's/file: expected_y.bin/file: poly_struct.cu/'
sed -i "s|file: poly_struct.cu|file: $PS/poly_struct.cu|" "$TMP/vfile.yaml"
expect_exit 2 "verify[0].file" "buffer 'y' has 3000 x f32 = 12000" -- run --workload "$TMP/vfile.yaml"
expect_exit 2 "--dump-outputs needs gpurf run with a launch file" -- suite --dump-outputs "$TMP/d"
finish
