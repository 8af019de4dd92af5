# Designs no paper combined (docs/combined.md). Gebhart's RFC + Warped-Compression
# (configs/wc-rfc.yaml): on each kernel below, verified with every check on, both mechanisms
# at work (RFC hits, compressed MRF writes and decompressed MRF reads, fewer slices than
# whole registers), and the compressors only where values reach the MRF (fewer compressions
# than wc.yaml's, which compresses every result). Dummy MOVs still decompress registers before
# divergent writes, but none for a register the RFC holds or dropped dead (bfs and nw: MOVs
# issued forever, or copying a stale bank value, without that), and no more than wc's (a
# diverged value stays uncompressed through the RFC). A compressing writeback in front of an
# RFC is refused: its evictions would overwrite rows whose stored form the writeback recorded.
source "$(dirname "$0")/lib.sh" "$@"

for w in sgemm reduce bfs nw; do
  for p in wc wc-rfc; do
    "$GPURF" run --quiet --platform "$SRC/configs/$p.yaml" --workload $w --out "$TMP/$w-$p" \
      -p sm.max_cycles=5000000 \
      >/dev/null 2>"$TMP/err" || fail "$w on $p exited $?: $(cat "$TMP/err")"
  done
  python3 - "$TMP/$w-wc" "$TMP/$w-wc-rfc" "$SRC/scripts" >"$TMP/check" 2>&1 <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[3])
from suite_stats import total
def load(d):
    return json.load(open(d + "/result.json")), json.load(open(d + "/stats.json"))
(rw, sw), (rc, sc) = load(sys.argv[1]), load(sys.argv[2])
bad = []
if not (rw["verified"] and rc["verified"]): bad.append("not verified")
hits, comp = total(sc, "rfc", "reads"), total(sc, "compressor", "compressions")
dec = total(sc, "decompressor", "decompressions")
if not hits > 0: bad.append("no RFC hits: the RFC was dropped")
if not (comp > 0 and dec > 0): bad.append(f"compressions {comp}, decompressions {dec}: W-C was dropped")
if not total(sc, "bank", "slice_writes") < 8 * total(sc, "arbiter", "writes_granted"):
    bad.append("every MRF write took all 8 slices: nothing stored compressed")
if not total(sc, "bank", "slice_reads") < 8 * total(sc, "arbiter", "reads_granted"):
    bad.append("every MRF read took all 8 slices")
if not total(sc, "rfc", "mrf_writes") == total(sc, "arbiter", "writes_granted"):
    bad.append("MRF writes not all through the RFC's write-backs and bypasses")
if not comp < total(sw, "compressor", "compressions"):
    bad.append(f"compressions {comp} not below wc's {total(sw, 'compressor', 'compressions')}")
movs = [total(x, "sm", "movs_injected") for x in (sw, sc)]
if not movs[1] <= movs[0]: bad.append(f"dummy MOVs {movs[1]}, more than wc's {movs[0]}")
if bad: sys.exit("; ".join(bad))
PY
    fail "$w: $(cat "$TMP/check")"
done
movs=$(python3 -c '
import glob, json, sys
print(sum(json.load(open(f))["sm"].get("movs_injected", {}).get("value", 0)
          for f in glob.glob(sys.argv[1] + "/*-wc-rfc/stats.json")))' "$TMP")
[ "$movs" -gt 0 ] || fail "no dummy MOV on wc-rfc over sgemm, reduce, bfs, nw: W-C's MOVs dropped"

cat >"$TMP/wc-writeback-rfc.yaml" <<YAML
include: [$SRC/configs/wc.yaml, $SRC/configs/units/rfc-gtx480.yaml]
name: wc-writeback-rfc
energy: {table: $SRC/configs/energy/wc-rfc.yaml}
YAML
expect_exit 2 "writeback.impl" "'warped_compression' stores registers in" \
  "before the register file cache" "warped_compression_mrf" -- \
  run --platform "$TMP/wc-writeback-rfc.yaml" --workload reduce
cat >"$TMP/twice.yaml" <<YAML
include: $SRC/configs/wc.yaml
name: twice
arbiter: {impl: warped_compression_mrf}
YAML
expect_exit 2 "arbiter.impl" "one of them must be full-form" -- \
  run --platform "$TMP/twice.yaml" --workload reduce

finish
