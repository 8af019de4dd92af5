# Fast-forward (GPURF_TIMED, gpurf exec --timed; docs/programs.md "Fast-forward") on CUDA
# programs: the launches outside the set run on the functional engine alone, on the device
# bytes the timed model uses.
# - gaussian (46 launches) with only its last launch timed prints PASS; that launch's
#   functional statistics (warp instructions, operands checked by value, register-file reads
#   and writes, occupancy) and `verified` equal those of the same launch when every launch is
#   timed (cycles and the caches differ: they start cold after fast-forward); the other 45
#   records say "timed": false with their warp instructions and no cycles;
# - tests/programs/fast_forward.cu with its reduction kernels timed by name: PASS;
# - an out-of-bounds store, an assert and printf in fast-forwarded launches: the memory
#   check's message and cudaErrorIllegalAddress, the assert's message and cudaErrorAssert,
#   printf's lines;
# - a bad GPURF_TIMED or --timed exits 2 naming it, the bad item and the valid forms; a kernel
#   name that names no kernel exits 2 listing the program's kernels.
# Without nvcc: skipped (77) with the reason.
#   fast_forward.sh GPURF SOURCE_DIR
source "$(dirname "$0")/lib.sh" "$1" "$2"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$NVCC" ]; then
  echo "SKIP: no nvcc on the PATH or in /usr/local/cuda/bin: the CUDA programs cannot be built"
  exit 77
fi
for p in gaussian out_of_bounds assert printf fast_forward; do
  "$NVCC" -cudart shared -gencode arch=compute_75,code=compute_75 -I"$SRC/tests/programs" \
    -o "$TMP/$p" "$SRC/tests/programs/$p.cu" 2>"$TMP/nvcc.err" || fail "nvcc $p: $(head -c 400 "$TMP/nvcc.err")"
done
PLAT=fermi

# gaussian: every launch timed, then only the last (46: fan2 of the last pivot).
"$GPURF" exec --platform $PLAT --out "$TMP/all" -- "$TMP/gaussian" >"$TMP/all.out" 2>"$TMP/all.err" ||
  fail "gaussian, all timed: exit $?: $(tail -c 300 "$TMP/all.err")"
GPURF_TIMED=46 "$GPURF" exec --platform $PLAT --out "$TMP/late" -- "$TMP/gaussian" >"$TMP/late.out" 2>"$TMP/late.err" ||
  fail "gaussian, GPURF_TIMED=46: exit $?: $(tail -c 300 "$TMP/late.err")"
grep -qx PASS "$TMP/late.out" || fail "gaussian, GPURF_TIMED=46: no PASS: $(head -c 300 "$TMP/late.out")"
[ "$(grep -c ': fast-forwarded, [0-9]* warp instructions$' "$TMP/late.err")" -eq 45 ] ||
  fail "gaussian, GPURF_TIMED=46: not 45 'fast-forwarded' lines: $(head -c 300 "$TMP/late.err")"
grep -q "^gpurf: launch 46 fan2(.*cycles, IPC .*, verified$" "$TMP/late.err" ||
  fail "gaussian, GPURF_TIMED=46: launch 46 not timed and verified: $(tail -c 300 "$TMP/late.err")"
python3 - "$TMP/all/launches.jsonl" "$TMP/late/launches.jsonl" "$TMP/late/result.json" <<'PY' ||
import json, sys
every = [json.loads(l) for l in open(sys.argv[1])]
late = [json.loads(l) for l in open(sys.argv[2])]
res = json.load(open(sys.argv[3]))
bad = []
if len(every) != 46 or len(late) != 46:
    bad.append(f"{len(every)} and {len(late)} records, expected 46")
ff = [r for r in late if r["launch"] != 46]
for r in ff:
    if r.get("timed") is not False or "cycles" in r or r["warp_instructions"] <= 0 or r["error"]:
        bad.append(f"record {r['launch']}: not an untimed record with warp instructions: {r}")
    same = every[r["launch"] - 1]
    if r["warp_instructions"] != same["warp_instructions"]:
        bad.append(f"launch {r['launch']}: {r['warp_instructions']} warp instructions "
                   f"fast-forwarded, {same['warp_instructions']} timed")
a, b = every[45], late[45]
if b.get("timed") is not True or not b["verified"] or not a["verified"]:
    bad.append(f"launch 46 not timed and verified: {b}")
# What the launch does (its instructions, their operands checked by value against the
# functional engine, the register reads and writes they make, its occupancy) does not depend
# on the caches' or the banks' state; cycles, conflicts and hits do.
for k in ("warp_instructions", "operands_checked", "rf_bank_reads", "rf_bank_writes",
          "resident_warps", "resident_ctas", "occupancy_limit", "kernel", "grid", "block"):
    if a[k] != b[k]:
        bad.append(f"launch 46 {k}: {a[k]} when all are timed, {b[k]} after fast-forward")
if res.get("fast_forwarded_launches") != 45 or res.get("launch_count") != 46:
    bad.append(f"result.json: {res.get('fast_forwarded_launches')} fast-forwarded of {res.get('launch_count')}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"launch 46: {a['cycles']} cycles all timed, {b['cycles']} after fast-forward (cold caches)")
PY
  fail "gaussian, GPURF_TIMED=46: records"

# The stencil program: the reduction and the scale timed by name (demangled base and .entry).
"$GPURF" exec --platform $PLAT --timed "sum_rows, _Z5scalePfif" --out "$TMP/st" -- "$TMP/fast_forward" \
  >"$TMP/st.out" 2>"$TMP/st.err" || fail "fast_forward --timed sum_rows,...: exit $?: $(tail -c 300 "$TMP/st.err")"
grep -qx PASS "$TMP/st.out" || fail "fast_forward --timed: no PASS: $(head -c 300 "$TMP/st.out")"
[ "$(grep -c 'jacobi.*fast-forwarded' "$TMP/st.err")" -eq 8 ] || fail "fast_forward --timed: jacobi not fast-forwarded 8 times"
[ "$(grep -c 'sum_rows.*, verified$\|scale.*, verified$' "$TMP/st.err")" -eq 2 ] ||
  fail "fast_forward --timed: sum_rows and scale not timed and verified: $(tail -c 400 "$TMP/st.err")"
grep -q '"timed": "sum_rows, _Z5scalePfif"' "$TMP/st/provenance.json" || fail "provenance.json lacks timed"
# Every launch fast-forwarded.
GPURF_TIMED=none "$GPURF" exec --platform $PLAT -- "$TMP/fast_forward" >"$TMP/none.out" 2>"$TMP/none.err" ||
  fail "fast_forward, GPURF_TIMED=none: exit $?"
grep -qx PASS "$TMP/none.out" || fail "fast_forward, GPURF_TIMED=none: no PASS"
[ "$(grep -c 'fast-forwarded' "$TMP/none.err")" -eq 10 ] || fail "fast_forward, GPURF_TIMED=none: not 10 fast-forwarded launches"

# Memory check, assert and printf in fast-forwarded launches.
GPURF_TIMED=none "$GPURF" exec --platform $PLAT --out "$TMP/oob" -- "$TMP/out_of_bounds" >"$TMP/oob.out" 2>"$TMP/oob.err"
grep -q "synchronize: cudaErrorIllegalAddress" "$TMP/oob.out" || fail "out_of_bounds fast-forwarded: not cudaErrorIllegalAddress: $(head -c 300 "$TMP/oob.out")"
grep -q "fast-forwarded, [0-9]* warp instructions, FAILED: .*thread 64, .*global store of 4 bytes at 0x[0-9a-f]* outside every allocation: 0 bytes past the end of cudaMalloc allocation of 256 bytes \[0x" "$TMP/oob.err" ||
  fail "out_of_bounds fast-forwarded: no memory-check message: $(tail -c 500 "$TMP/oob.err")"
grep -q '"timed":false.*"error":".*outside every allocation' "$TMP/oob/launches.jsonl" || fail "out_of_bounds fast-forwarded: record lacks the error"
GPURF_TIMED=none "$GPURF" exec --platform $PLAT -- "$TMP/assert" >"$TMP/as.out" 2>"$TMP/as.err"
grep -q 'assert.cu:8: void check_positive(const int \*, int): block: \[1,0,0\], thread: \[5,0,0\] Assertion `v\[i\] > 0` failed' "$TMP/as.err" ||
  fail "assert fast-forwarded: no assert message: $(tail -c 400 "$TMP/as.err")"
grep -q "cudaErrorAssert, then memcpy: cudaErrorAssert" "$TMP/as.out" || fail "assert fast-forwarded: not cudaErrorAssert, sticky"
GPURF_TIMED=none "$GPURF" exec --platform $PLAT -- "$TMP/printf" >"$TMP/pf.out" 2>"$TMP/pf.err" || fail "printf fast-forwarded: exit $?"
grep -qx "block 1 thread 16: f=1.50 big=1234567890123 ok" "$TMP/pf.out" || fail "printf fast-forwarded: no line: $(head -c 300 "$TMP/pf.out")"
[ "$(sed -n 5p "$TMP/pf.out")" = "after the kernel" ] || fail "printf fast-forwarded: the kernel's lines are not first"

# Bad specifications: exit 2 naming the variable or option, the item and the forms.
for bad in "3-1" "0" "1,,2" "fan-1" "x y" "none,3"; do
  GPURF_TIMED="$bad" "$GPURF" exec --platform $PLAT -- "$TMP/gaussian" >"$TMP/bad.out" 2>"$TMP/bad.err"
  rc=$?
  [ $rc -eq 2 ] || fail "GPURF_TIMED='$bad': exit $rc, expected 2"
  grep -qF "GPURF_TIMED='$bad'" "$TMP/bad.err" || fail "GPURF_TIMED='$bad': message does not name it: $(head -c 300 "$TMP/bad.err")"
  grep -qF "a launch number N (from 1" "$TMP/bad.err" || fail "GPURF_TIMED='$bad': no valid forms: $(head -c 300 "$TMP/bad.err")"
done
expect_exit 2 "gpurf exec: --timed='2-x': bad item '2-x' (not a range N-M of launch numbers)" "N-M" -- \
  exec --timed 2-x -- "$TMP/gaussian"
GPURF_TIMED=fan3 "$GPURF" exec --platform $PLAT -- "$TMP/gaussian" >"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "GPURF_TIMED=fan3: exit $rc, expected 2"
grep -q "GPURF_TIMED='fan3': 'fan3' names no kernel of the program (its kernels: .*fan1" "$TMP/bad.err" ||
  fail "GPURF_TIMED=fan3: no message listing the kernels: $(head -c 300 "$TMP/bad.err")"
finish
