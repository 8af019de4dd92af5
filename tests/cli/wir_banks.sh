# WIR's bank-aware register allocation (docs/wir.md, "The paper's mechanism against gpurf",
# row 14): a new physical register comes from the bank the baseline's mapping gives its logical
# register. With nothing shared or reused (no VSB, reuse off, one added cycle) an instruction's
# sources then sit in the baseline's banks: histogram's read-read bank conflicts stay within
# 10% of wir's, while one free queue of any bank scatters them (1.7x).
source "$(dirname "$0")/lib.sh" "$@"

alone=(-p allocator.reuse=false -p allocator.vsb_entries=0 -p allocator.front_stages=1
       -p allocator.stages=1)
run() { # NAME PLATFORM ARGS...
  local name=$1 plat=$2
  shift 2
  "$GPURF" run --quiet --platform "$SRC/configs/$plat.yaml" --workload histogram "$@" \
    --out "$TMP/$name" >/dev/null 2>"$TMP/err" || fail "$name exited $?: $(cat "$TMP/err")"
}
run base wir
run aware wir-rlpv "${alone[@]}"
run any wir-rlpv "${alone[@]}" -p allocator.bank_aware=false

python3 - "$TMP" >"$TMP/check" 2>&1 <<'PY' || fail "$(cat "$TMP/check")"
import json, sys
def read_read(name):
    d = sys.argv[1] + "/" + name
    assert json.load(open(d + "/result.json"))["verified"], name
    c = json.load(open(d + "/stats.json"))["sm.sub0.arbiter"]["conflicts"]
    return c["values"][c["labels"].index("read_read")]
b, a, o = read_read("base"), read_read("aware"), read_read("any")
assert a * 10 < b * 11, f"bank-aware {a} read-read conflicts, wir {b}"
assert o * 2 > a * 3, f"one queue {o} not above 1.5 x bank-aware {a}"
PY

finish
