#!/usr/bin/env bash
# Kernels of gpurf's own that stress the PTX front-end (tests/cli/data, sources and the
# host reference gen_expected.py there), verified against their expected outputs on every
# platform in configs/:
#  - debug_loop: nvcc -G (debug) PTX that reads a register no instruction of its CTA wrote.
#    It reads 0 (as GPGPU-Sim), one warning names the read, the operand check agrees with the
#    timing model (the CTA's registers start at 0 in every variant), the outputs verify.
#  - debug_call: nvcc -G PTX whose __noinline__ function reads a register before writing it
#    in every call: each call's frame reads 0 there (the call zeroes it).
#  - undef: hand-written PTX whose register read before its write holds the previous CTA's
#    value in the same warp slot unless the CTA's registers start at 0.
#  - sync_red: __syncthreads_count/_and/_or (bar.red), with a partial warp and more CTAs
#    than warp slots.
#  - half_ops: f16 add, mul, fma, neg, max, cvt.rz and setp (cuda_fp16.h intrinsics) on
#    16-bit registers; expected outputs from gen_expected.py.
source "$(dirname "$0")/lib.sh" "$@"
D="$SRC/tests/cli/data"
n=0
for platform in "$SRC"/configs/*.yaml; do
  p=$(basename "$platform" .yaml)
  for k in debug_loop debug_call undef sync_red half_ops; do
    n=$((n + 1))
    if ! "$GPURF" run --platform "$platform" --workload "$D/$k.yaml" --out "$TMP/$p-$k" \
      >"$TMP/out" 2>"$TMP/err"; then
      fail "$k on $p: $(grep -m1 error "$TMP/err" | head -c 400)"
      continue
    fi
    warnings=$(grep -c "reads .* where no instruction of its CTA wrote it" "$TMP/err")
    python3 - "$TMP/$p-$k/result.json" "$k" "$warnings" <<'PY' || fail "$k on $p: result.json"
import json, sys
r = json.load(open(sys.argv[1]))
k, warnings = sys.argv[2], int(sys.argv[3])
assert r["verified"] is True and r["outputs_checked"] is True, r
assert r["operands_checked"] > 0, r
if k not in ("sync_red", "half_ops"):  # per warp: debug_loop's loop entry, debug_call's first call; undef: CTA
    least = {"debug_loop": 125, "debug_call": 96, "undef": 64}[k]
    assert r["undefined_reads"] >= least, r["undefined_reads"]
    assert warnings == 1, warnings
else:
    assert r["undefined_reads"] == 0 and warnings == 0, (r["undefined_reads"], warnings)
PY
  done
done
[ "$n" -ge 120 ] || fail "only $n runs: configs/ not found?"
# The warning names the kernel, the PTX line and the register.
"$GPURF" run --workload "$D/debug_loop.yaml" --out "$TMP/w" >"$TMP/out" 2>"$TMP/err"
grep -qF "warning: kernel 'debug_loop': " "$TMP/err" &&
  grep -qF "debug_loop.ptx:74 'mov.u16' reads %rs17 (r" "$TMP/err" ||
  fail "warning text: $(head -c 400 "$TMP/err")"
# A shuffle reading an undefined register in lanes whose value no lane takes (lane 0's value
# broadcast: the warp-aggregated pattern) has no undefined value in its result: no warning.
"$GPURF" run --workload "$D/shfl_broadcast.yaml" --out "$TMP/sb" --dump-outputs "$TMP/sbo" \
  >"$TMP/out" 2>"$TMP/err" || fail "shfl_broadcast: $(tail -c 400 "$TMP/err")"
grep -q "where no instruction of its CTA wrote it" "$TMP/err" &&
  fail "shfl_broadcast: a warning for lanes no lane takes: $(head -c 400 "$TMP/err")"
python3 - "$TMP/sb/result.json" "$TMP/sbo/out.bin" <<'PY' || fail "shfl_broadcast: outputs"
import json, struct, sys
assert json.load(open(sys.argv[1]))["undefined_reads"] == 0
out = struct.unpack("<64I", open(sys.argv[2], "rb").read())
assert out == tuple((t & ~31) * 7 + 5 for t in range(64)), out
PY
# bar.red is a barrier in the timing model: the k-th B2R (the reduction's write) of every warp
# of a CTA issues no earlier than the k-th bar.red of each of the CTA's warps (the release is
# at the last arrival's issue; a scheduler ticking later in that cycle may issue a released
# warp then, as for bar.sync and as GPGPU-Sim's schedulers do).
"$GPURF" run --workload "$D/sync_red.yaml" --trace "$TMP/t.json" --trace-window 0:4000 \
  --out "$TMP/trace" >"$TMP/out" 2>"$TMP/err" || fail "sync_red --trace: $(tail -c 400 "$TMP/err")"
python3 - "$TMP/t.json" <<'PY' || fail "sync_red: a B2R issued before its barrier released"
import collections, json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"]
      if e["ph"] == "X" and "seq" in e.get("args", {})]
# per CTA slot and warp slot: issue cycles of its bar.red and of its B2R records, in order
bar = collections.defaultdict(lambda: collections.defaultdict(list))
b2r = collections.defaultdict(lambda: collections.defaultdict(list))
for e in sorted(ev, key=lambda e: e["args"]["seq"]):
    a = e["args"]
    if e["name"].startswith("bar.red"):
        bar[a["cta"]][a["warp"]].append(a["issue"])
    elif e["name"].startswith("b2r.result"):
        b2r[a["cta"]][a["warp"]].append(a["issue"])
checked = 0
for cta, warps in b2r.items():
    assert len(bar[cta]) == 4, (cta, dict(bar[cta]))  # 100 threads: 4 warps
    for w, issues in warps.items():
        for k, t in enumerate(issues):
            arrivals = [bar[cta][x][k] for x in bar[cta] if k < len(bar[cta][x])]
            if len(arrivals) < 4:
                continue  # a later CTA in the slot, or past the window
            assert t >= max(arrivals), (cta, w, k, t, arrivals)
            checked += 1
assert checked > 100, checked
PY
finish
