#!/usr/bin/env bash
# gpurf micro on every platform in configs/ (issue 38): every row either matches what the
# platform's units promise or is omitted with the reason (n/a), so any MISMATCH, a failed
# simulation or a non-zero exit is a bug. The expected values come from gpurf micro itself,
# which reads them from each platform; nothing is hard-coded here.
#   micro_platforms.sh GPURF SRC SHARD SHARDS   (ctest cli.micro_platforms_<shard>)
# Platform i of the sorted configs/ belongs to shard i % SHARDS.
source "$(dirname "$0")/lib.sh" "$1" "$2"
SHARD=${3:?shard}
SHARDS=${4:?shards}

# Platforms where most rows cannot apply, and why (the test fails once one has 20 rows again,
# so the list stays true): wir-rlpvc's capped policy counts the registers the reuse buffer and
# the VSB hold against the warp's logical registers, so a one-warp chain runs in low-register
# mode (random evictions, results waiting) and every row is omitted.
FEW='wir-rlpvc'

mapfile -t configs < <(ls "$SRC"/configs/*.yaml | sort)
[ ${#configs[@]} -ge 30 ] || fail "only ${#configs[@]} platforms in $SRC/configs"
for i in "${!configs[@]}"; do
  [ $((i % SHARDS)) -eq "$SHARD" ] || continue
  cfg=${configs[$i]}
  p=$(basename "$cfg" .yaml)
  "$GPURF" micro --platform "$cfg" --format json -j 2 >"$TMP/$p.json" 2>"$TMP/err"
  rc=$?
  [ $rc -eq 0 ] || fail "$p: exit $rc: $(head -c 600 "$TMP/err")"
  python3 - "$TMP/$p.json" "$p" "$FEW" >"$TMP/check" 2>&1 <<'PY' || fail "$(cat "$TMP/check")"
import json, sys
j = json.load(open(sys.argv[1]))
p, rows, omitted = sys.argv[2], j["rows"], j["omitted"]
few = p in sys.argv[3].split()
bad = [f'{p}: {r["quantity"]}: configured {r["configured"]}, measured {r["measured"]} '
       f'({r["formula"]}): MISMATCH' for r in rows if not r["ok"]]
# An omitted row says why; most rows must still apply (a platform whose rows all went n/a
# would prove nothing).
bad += [f'{p}: {o["quantity"]}: omitted without a reason' for o in omitted
        if not o["reason"].startswith("n/a: ")]
if (len(rows) < 20) != few:
    bad.append(f"{p}: {len(rows)} rows apply ({len(omitted)} omitted)" +
               (": drop it from FEW" if few else ""))
if bad:
    sys.exit("\n".join(bad))
PY
done
finish
