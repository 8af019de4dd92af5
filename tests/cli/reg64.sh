# frontend.reg64 (docs/cmrc.md, "64-bit registers as one operand"): under one_operand a 64-bit
# PTX register is one register-file operand, as GPGPU-Sim's PTX mode counts it. daxpy_dot
# (80% of its reads are 64-bit halves) reads the same registers in fewer bank accesses, each
# high half entering its collector with its low half's write; every run verified. Bad values
# and platforms whose units cannot carry a pair exit 2 naming the key.
source "$(dirname "$0")/lib.sh" "$@"

run() { # NAME PLATFORM ARGS...
  local name=$1 plat=$2
  shift 2
  "$GPURF" run --quiet --platform "$SRC/configs/$plat.yaml" --workload daxpy_dot "$@" \
    --out "$TMP/$name" >/dev/null 2>"$TMP/err" || fail "$name exited $?: $(cat "$TMP/err")"
}
run two fermi
run one fermi -p frontend.reg64=one_operand
run cmrc cmrc-wid -p frontend.reg64=one_operand

python3 - "$TMP" >"$TMP/check" 2>&1 <<'PY' || fail "$(cat "$TMP/check")"
import json, sys
def stats(name):
    d = sys.argv[1] + "/" + name
    assert json.load(open(d + "/result.json"))["verified"], name
    s = json.load(open(d + "/stats.json"))
    def total(unit, stat):
        return sum(g[stat]["value"] for k, g in s.items()
                   if k.split(".")[-1].rstrip("0123456789") == unit and stat in g)
    return total
two, one, cmrc = stats("two"), stats("one"), stats("cmrc")
# The same registers are read and written, in fewer port cycles.
assert one("arbiter", "reads_granted") == two("arbiter", "reads_granted"), "reads differ"
assert one("arbiter", "writes_granted") == two("arbiter", "writes_granted"), "writes differ"
halves = one("collector", "reg64_high_halves")
assert halves > 0, "no high half rode its low half"
assert two("collector", "reg64_high_halves") == 0, "two_registers carried a pair"
assert one("collector", "oc_writes") + halves == two("collector", "oc_writes"), "oc writes"
a1, a2 = one("arbiter", "bank_accesses"), two("arbiter", "bank_accesses")
assert a1 * 10 < a2 * 8, f"one_operand {a1} bank accesses, two_registers {a2}"
assert cmrc("collector", "reg64_high_halves") > 0, "cmrc-wid carried no pair"
PY

expect_exit 2 "frontend.reg64" "'one'" "two_registers" "one_operand" \
  -- run --workload daxpy_dot -p frontend.reg64=one
expect_exit 2 "command line" "frontend.reg64" "one_operand needs units" "writeback 'warped_compression'" \
  "valid here: two_registers" -- run --platform "$SRC/configs/wc.yaml" --workload daxpy_dot \
  -p frontend.reg64=one_operand
printf 'include: %s\nfrontend:\n  reg64: one_operand\n' "$SRC/configs/malekeh.yaml" >"$TMP/ccu.yaml"
expect_exit 2 "$TMP/ccu.yaml:3" "frontend.reg64" "collector 'ccu'" "valid here: two_registers" \
  -- run --platform "$TMP/ccu.yaml" --workload daxpy_dot

finish
