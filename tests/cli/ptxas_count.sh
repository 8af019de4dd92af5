#!/usr/bin/env bash
# Registers per thread without a hand-written table (docs/frontend.md, "ptxas's count for any
# kernel"): a kernel no ptxas-registers.txt lists runs at ptxas's occupancy when ptxas is found
# (the answer cached in the output folder and recorded), and at gpurf's allocator's count with
# one warning when it is not; never at the number of values its PTX names (under ptx_virtual
# heat2d names 224 and stress/stencil3d 1,794: neither would fit one CTA on fermi).
source "$(dirname "$0")/lib.sh" "$@"

# stress/stencil3d (1,794 PTX values, ptxas 88 registers) on the Fermi family: with its table
# row, copied where no table lists it with ptxas, and without ptxas.
mkdir -p "$TMP/s/ptx"
cp "$SRC/workloads/stress/stencil3d.yaml" "$TMP/s/"
cp "$SRC/workloads/stress/ptx/stencil3d.ptx" "$TMP/s/ptx/"
small=(--var nx=32 --var ny=8)

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

# stencil3d: ptxas's occupancy with its table, and with ptxas where there is none.
for p in fermi cmrc-wid wc; do
  "$GPURF" run --platform $p --workload stress/stencil3d "${small[@]}" --out "$TMP/st-$p" \
    --quiet 2>"$TMP/err" || fail "stress/stencil3d on $p: $(tail -3 "$TMP/err")"
  [ "$(field "$TMP/st-$p/result.json" ptxas_registers)" = 88 ] || fail "$p: stencil3d not at 88"
  if [ -n "$PTXAS" ]; then
    GPURF_PTXAS="$PTXAS" "$GPURF" run --platform $p --workload "$TMP/s/stencil3d.yaml" \
      "${small[@]}" --out "$TMP/stp-$p" --quiet 2>"$TMP/err" ||
      fail "stencil3d (no table) on $p: $(tail -3 "$TMP/err")"
    [ "$(field "$TMP/stp-$p/result.json" resident_warps)" = \
      "$(field "$TMP/st-$p/result.json" resident_warps)" ] ||
      fail "$p: stencil3d's occupancy with ptxas differs from the table's"
  fi
  GPURF_PTXAS=none "$GPURF" run --platform $p --workload "$TMP/s/stencil3d.yaml" "${small[@]}" \
    --out "$TMP/stn-$p" 2>"$TMP/err" >/dev/null || fail "stencil3d without ptxas on $p: $(tail -3 "$TMP/err")"
  grep -q "warning: kernel 'stencil3d': ptxas's register count is unknown" "$TMP/err" ||
    fail "$p: stencil3d without ptxas: no warning"
done

# gpurf's ptxas_like allocator needs 187 registers for stress/gemm_rt where ptxas needs 126: a
# CTA of 8 warps does not fit gebhart's banks at 187, so it runs at ptxas's count.
"$GPURF" run --platform gebhart --workload stress/gemm_rt --out "$TMP/gemm" --quiet 2>"$TMP/err" ||
  fail "stress/gemm_rt on gebhart: $(tail -3 "$TMP/err")"
[ "$(field "$TMP/gemm/result.json" registers_per_thread)" -gt 126 ] ||
  fail "gemm_rt: the allocator's count no longer exceeds ptxas's (the case is gone)"
[ "$(field "$TMP/gemm/result.json" resident_warps)" = 8 ] || fail "gemm_rt: not one CTA resident"

# __launch_bounds__(1024): ptxas (sm_75, 65,536 registers) gives 64 registers; the Fermi
# family's 32,768 hold 32 warps at 32, which occupancy then follows (refused before), with or
# without ptxas's count; the output is the tile's.
for p in fermi wc turing-subcore; do
  for px in "" none; do
    GPURF_PTXAS=$px "$GPURF" run --platform $p --workload "$SRC/tests/cli/data/launch_bounds.yaml" \
      --out "$TMP/lb-$p$px" --quiet 2>"$TMP/err" || fail "launch_bounds on $p ($px): $(tail -3 "$TMP/err")"
    [ "$(field "$TMP/lb-$p$px/result.json" resident_warps)" = 32 ] || fail "launch_bounds on $p: not 32 warps"
    [ "$(field "$TMP/lb-$p$px/result.json" verified)" = True ] || fail "launch_bounds on $p: not verified"
  done
done

finish
