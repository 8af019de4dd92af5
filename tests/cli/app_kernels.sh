#!/usr/bin/env bash
# Any kernel at any launch (issue 33): an application file's steps launch any .entry of the
# PTX files it lists (`launch: {kernel: NAME, grid, block, params, shared, label}`). A label
# that names another kernel, an unknown kernel, parameters that do not fit the kernel and a
# second --workload are input errors (2). A launch's statistics do not depend on the other
# kernels compiled beside it nor on which kernel is the file's.
source "$(dirname "$0")/lib.sh" "$@"
J="$SRC/workloads/ptx/jacobi.ptx"

# A two-kernel module (jacobi_step, jacobi_residual) launched as a file of jacobi_step: the
# buffers of apps/jacobi.yaml, STEPS as its steps. name: no reference checker (operands only).
two_kernels() { # FILE STEPS
  cat >"$TMP/$1" <<YAML
name: two_kernels
ptx: $J
kernel: jacobi_step
vars: {nx: 64, ny: 64, n: 4096}
grid: ["nx / 32", "ny / 8", 1]
block: [32, 8, 1]
buffers:
  u: {type: f32, count: "n", init: {uniform: {min: 0.0, max: 1.0, seed: 7}}, output: true}
  v: {type: f32, count: "n", init: {constant: 0}, output: true}
  part: {type: f32, count: 16, init: {constant: 0}, output: true}
params: [{buffer: u}, {buffer: v}, {s32: "nx"}, {s32: "ny"}]
steps:
$2
YAML
}
RESID='{kernel: jacobi_residual, grid: [16], block: [256], params: [{buffer: u}, {buffer: v}, {buffer: part}, {s32: "n"}, {f32: 1.0}]}'

# The silent wrong kernel: `launch: jacobi_residual` ran jacobi_step under that label (wrong
# statistics, verified). Now refused, naming the form that runs it.
two_kernels label.yaml "  - launch: jacobi_step
  - launch: jacobi_residual"
expect_exit 2 "label.yaml:14" "steps[1].launch" "'jacobi_residual' is the name of another kernel" \
  "launch: {kernel: jacobi_residual}" -- run --workload "$TMP/label.yaml"
# An unknown kernel lists the kernels of every module; bad parameters name the kernel's .param.
two_kernels unknown.yaml "  - launch: {kernel: jacobi_resid}"
expect_exit 2 "unknown.yaml:13" "unknown kernel 'jacobi_resid'; did you mean 'jacobi_residual'?" \
  "jacobi_step, jacobi_residual" -- run --workload "$TMP/unknown.yaml"
two_kernels params.yaml "  - launch: {kernel: jacobi_residual, grid: [16], block: [256], params: [{buffer: u}, {buffer: v}, {buffer: part}, {s32: \"n\"}, {s32: 1}]}"
expect_exit 2 "params.yaml:13" "params[4]" "does not match .param .f32 jacobi_residual_param_4" \
  -- run --workload "$TMP/params.yaml"
two_kernels default.yaml "  - launch: {kernel: jacobi_residual, grid: [16], block: [256]}"
expect_exit 2 "default.yaml:13" "the file's \`params\` do not fit kernel 'jacobi_residual'" \
  "4 parameters given" "give the step its own \`params:\`" -- run --workload "$TMP/default.yaml"
two_kernels block.yaml "  - launch: {kernel: jacobi_residual, grid: [16], block: [2048], params: []}"
expect_exit 2 "block.yaml:13" "block.x" "2048 out of range" -- run --workload "$TMP/block.yaml"
# Two launch files in one run: refused, not the last one silently.
expect_exit 2 "option --workload given twice" "launch: {kernel: NAME}" -- run --workload \
  heat2d --workload sgemm

# Per launch: each record names its kernel and registers; the sums are the totals; identical on
# a second run.
two_kernels mix.yaml "  - launch: {kernel: jacobi_residual, grid: [16], block: [256], params: [{buffer: u}, {buffer: v}, {buffer: part}, {s32: \"n\"}, {f32: 1.0}], label: first}
  - launch: {kernel: jacobi_step}
  - launch:
  - launch: $RESID"
"$GPURF" run --workload "$TMP/mix.yaml" --out "$TMP/mix" --quiet 2>"$TMP/err" ||
  fail "mix.yaml: $(tail -3 "$TMP/err")"
"$GPURF" run --workload "$TMP/mix.yaml" --out "$TMP/mix2" --quiet 2>"$TMP/err" ||
  fail "mix.yaml again: $(tail -3 "$TMP/err")"
python3 - "$TMP/mix/result.json" "$TMP/mix2/result.json" <<'PY' || fail "mix.yaml: per-launch records"
import json, sys
r, r2 = (json.load(open(f)) for f in sys.argv[1:3])
L = r["launches"]
assert [l["kernel"] for l in L] == ["jacobi_residual", "jacobi_step", "jacobi_step",
                                    "jacobi_residual"], [l["kernel"] for l in L]
assert [l["label"] for l in L] == ["first", "jacobi_step", "jacobi_step", "jacobi_residual"]
regs = {k["kernel"]: k["registers_per_thread"] for k in r["kernels"]}
assert set(regs) == {"jacobi_step", "jacobi_residual"}, regs
assert all(l["registers_per_thread"] == regs[l["kernel"]] for l in L)
for k in ("cycles", "warp_instructions", "rf_bank_reads", "rf_bank_writes", "l1_hits"):
    assert sum(l[k] for l in L) == r[k], k
assert L[0]["warp_instructions"] == L[3]["warp_instructions"] # the same residual twice
assert L[1]["warp_instructions"] == L[2]["warp_instructions"]
assert r == {**r2, "host_seconds": r["host_seconds"], "cpu_seconds": r["cpu_seconds"],
             "warp_instructions_per_second": r["warp_instructions_per_second"],
             "cycles_per_second": r["cycles_per_second"]}, "second run differs"
PY

# The file's own kernel with another grid (an expression, evaluated at the launch): one CTA
# of the file's 16, then the file's grid; one kernel, so nothing else is compiled.
two_kernels grid.yaml "  - launch: {kernel: jacobi_step, grid: [\"nx / 64\", \"ny / 64\"]}
  - launch:"
"$GPURF" run --workload "$TMP/grid.yaml" --out "$TMP/grid" --quiet 2>"$TMP/err" ||
  fail "grid.yaml: $(tail -3 "$TMP/err")"
python3 - "$TMP/grid/result.json" <<'PY' || fail "grid.yaml: a step's grid"
import json, sys
r = json.load(open(sys.argv[1]))
a, b = r["launches"]
assert a["resident_ctas"] == 1 < b["resident_ctas"], (a["resident_ctas"], b["resident_ctas"])
assert 0 < 8 * a["warp_instructions"] < b["warp_instructions"] # 8 warps of 128
assert "kernels" not in r
PY

# The same launch alone: launch 0 of mix.yaml (jacobi_residual, nothing ran before it) against
# a launch file of jacobi_residual with the same buffers: every counter equal, although the
# application compiled both kernels and sized the SMs' register space for the larger.
sed -e 's/^kernel: jacobi_step/kernel: jacobi_residual/' -e 's/^grid: .*/grid: [16]/' \
  -e 's/^block: .*/block: [256]/' \
  -e 's/^params: .*/params: [{buffer: u}, {buffer: v}, {buffer: part}, {s32: "n"}, {f32: 1.0}]/' \
  -e '/^steps:/,$d' "$TMP/mix.yaml" >"$TMP/alone.yaml"
"$GPURF" run --workload "$TMP/alone.yaml" --out "$TMP/alone" --quiet 2>"$TMP/err" ||
  fail "alone.yaml: $(tail -3 "$TMP/err")"
# After jacobi_step ran (warm caches, the same memory): the residual as the file's own kernel
# (`launch:`) and as another kernel (`launch: {kernel: ...}`) give the same record.
sed -e 's/^kernel: jacobi_step/kernel: jacobi_residual/' -e 's/^grid: .*/grid: [16]/' \
  -e 's/^block: .*/block: [256]/' \
  -e 's/^params: .*/params: [{buffer: u}, {buffer: v}, {buffer: part}, {s32: "n"}, {f32: 1.0}]/' \
  -e '/^steps:/,$d' "$TMP/mix.yaml" >"$TMP/own.yaml"
cat >>"$TMP/own.yaml" <<'YAML'
steps:
  - launch: {kernel: jacobi_step, grid: [2, 8], block: [32, 8], params: [{buffer: u}, {buffer: v}, {s32: "nx"}, {s32: "ny"}]}
  - launch:
YAML
two_kernels other.yaml "  - launch: {kernel: jacobi_step}
  - launch: $RESID"
# On fermi (ptx_virtual: both kernels name 205 registers) and turing-subcore (ptxas_like:
# jacobi_step 14, jacobi_residual 12, so the application's SMs are elaborated for 14 and the
# residual alone's for 12).
for p in fermi turing-subcore; do
  for f in mix alone own other; do
    "$GPURF" run --platform $p --workload "$TMP/$f.yaml" --out "$TMP/$p-$f" --quiet 2>"$TMP/err" ||
      fail "$f.yaml on $p: $(tail -3 "$TMP/err")"
  done
  python3 - "$TMP" $p <<'PY' || fail "$p: a launch's statistics differ from the same launch's elsewhere"
import json, sys
t, p = sys.argv[1:3]
load = lambda d: json.load(open(f"{t}/{p}-{d}/result.json"))
mix, alone, own, other = load("mix"), load("alone"), load("own"), load("other")
skip = {"launch", "label", "kernel", "ipc"}
def same(a, b, what):
    keys = [k for k in a if k not in skip and k in b and isinstance(a[k], (int, dict))]
    assert len(keys) >= 15, keys
    diff = [k for k in keys if a[k] != b[k]]
    assert not diff, (what, [(k, a[k], b[k]) for k in diff])
same(mix["launches"][0], alone, "launch 0 of mix.yaml vs alone.yaml")
assert alone["cycles"] == mix["launches"][0]["cycles"] > 0
same(own["launches"][1], other["launches"][1], "the residual after a sweep, own vs other")
assert own["launches"][1]["kernel"] == other["launches"][1]["kernel"] == "jacobi_residual"
if p == "turing-subcore": # the kernels' own registers, the SMs sized for the larger
    regs = {k["kernel"]: k["registers_per_thread"] for k in mix["kernels"]}
    assert regs == {"jacobi_step": 14, "jacobi_residual": 12}, regs
    assert alone["registers_per_thread"] == 12
PY
done

# apps/jacobi's checker replays the program: a residual scaled otherwise (0.0021, not the 0.002
# it mirrors) stops one check later and fails the run (exit 1) naming an element of `u`.
sed -e 's/{f32: 0.002}/{f32: 0.0021}/' -e "s|\.\./ptx/|$SRC/workloads/ptx/|g" \
  "$SRC/workloads/apps/jacobi.yaml" >"$TMP/jacobi.yaml"
expect_exit 1 "jacobi_app" "u[" "expected" -- run --workload "$TMP/jacobi.yaml" --quiet
finish
