#!/usr/bin/env bash
# Registers per thread without a hand-written table (docs/frontend.md, "ptxas's count for any
# kernel"): a kernel no ptxas-registers.txt lists runs at ptxas's occupancy when ptxas is found
# (the answer cached in the output folder and recorded), and at gpurf's allocator's count with
# one warning when it is not; never at the number of values its PTX names (under ptx_virtual
# heat2d names 224, which on fermi would not fit one CTA).
source "$(dirname "$0")/lib.sh" "$@"

# heat2d, copied where no table lists it.
mkdir -p "$TMP/k/ptx"
cp "$SRC/workloads/heat2d.yaml" "$TMP/k/"
cp "$SRC/workloads/ptx/heat2d.ptx" "$TMP/k/ptx/"

field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$@"; }

# The table's count (58) for comparison: occupancy with it.
"$GPURF" run --platform fermi --workload heat2d --out "$TMP/table" --quiet 2>"$TMP/err" ||
  fail "heat2d with its table: $(tail -3 "$TMP/err")"
want_warps=$(field "$TMP/table/result.json" resident_warps)

PTXAS=$(command -v ptxas || true)
[ -z "$PTXAS" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ] && PTXAS=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
if [ -n "$PTXAS" ]; then
  for p in fermi cmrc-wid wc; do
    GPURF_PTXAS="$PTXAS" "$GPURF" run --platform $p --workload "$TMP/k/heat2d.yaml" \
      --out "$TMP/px-$p" --quiet 2>"$TMP/err" || fail "heat2d (no table) on $p: $(tail -3 "$TMP/err")"
    [ "$(field "$TMP/px-$p/result.json" ptxas_registers)" = 58 ] ||
      fail "$p: ptxas_registers is not ptxas's 58"
    grep -q "warning" "$TMP/err" && fail "$p: a warning although ptxas ran: $(cat "$TMP/err")"
  done
  [ "$(field "$TMP/px-fermi/result.json" resident_warps)" = "$want_warps" ] ||
    fail "fermi: occupancy with ptxas's count differs from the table's ($want_warps warps)"
  grep -q "^heat2d  *58 " "$TMP/px-fermi/ptxas-registers.txt" || fail "no cache in the output folder"
  grep -q '"source": ".*ptxas -arch=sm_75 -v"' "$TMP/px-fermi/provenance.json" ||
    fail "provenance does not record ptxas"
  # The cache answers a later run into the same folder without ptxas.
  GPURF_PTXAS=none "$GPURF" run --platform fermi --workload "$TMP/k/heat2d.yaml" \
    --out "$TMP/px-fermi" --quiet 2>"$TMP/err" || fail "cached run: $(tail -3 "$TMP/err")"
  [ "$(field "$TMP/px-fermi/result.json" ptxas_registers)" = 58 ] || fail "the cache was not read"
else
  echo "note: no ptxas found: the runs with ptxas are skipped"
fi

# Without ptxas: one warning naming the kernel and the way to ptxas's count; occupancy from
# gpurf's linear scan (32 registers), so more warps than ptxas's 58 allow.
for p in fermi cmrc-wid wc; do
  PATH=/usr/bin:/bin CUDA_HOME= CUDA_PATH= GPURF_PTXAS=none "$GPURF" run --platform $p \
    --workload "$TMP/k/heat2d.yaml" --out "$TMP/none-$p" 2>"$TMP/err" >/dev/null ||
    fail "heat2d without ptxas on $p: $(tail -3 "$TMP/err")"
  [ "$(grep -c "warning: kernel 'heat2d': ptxas's register count is unknown" "$TMP/err")" = 1 ] ||
    fail "$p: not exactly one warning: $(cat "$TMP/err")"
  grep -q "ptxas-registers.txt beside the PTX" "$TMP/err" || fail "$p: the warning lacks the remedy"
  [ "$(field "$TMP/none-$p/result.json" ptxas_registers)" = None ] || fail "$p: a count from nowhere"
done
[ "$(field "$TMP/none-fermi/result.json" resident_warps)" -gt "$want_warps" ] ||
  fail "fermi without ptxas: occupancy not from the allocator's count"

finish
