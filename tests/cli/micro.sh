# gpurf micro on the five baselines: every latency and throughput the microbenchmarks measure
# equals the platform's configuration (expected values come from gpurf micro itself, which
# reads them from the platform; nothing is hard-coded here). Rows listed in KNOWN are model
# discrepancies found by the microbenchmarks and reported, not hidden: they must still be
# measured, and the test fails once one of them matches (drop it from the list then).
source "$(dirname "$0")/lib.sh" "$@"

# peak IPC: independent chains stay below the issue/pipe/collector peak where operand
# collectors compete for bank ports (reads and writes share single-ported banks; conflicts are
# counted in arbiter.conflicts; no closed formula). gebhart's fixed-stage read reaches it.
KNOWN='^(fermi|warped-compression|turing-subcore|wir):peak IPC,'

for p in fermi warped-compression gebhart turing-subcore wir; do
  "$GPURF" micro --platform "$SRC/configs/$p.yaml" --format json -j 2 >"$TMP/$p.json" 2>"$TMP/err"
  rc=$?
  [ $rc -le 1 ] || { fail "$p: exit $rc: $(head -c 600 "$TMP/err")"; continue; }
  python3 - "$TMP/$p.json" "$p" "$KNOWN" >"$TMP/check" 2>&1 <<'PY' || fail "$(cat "$TMP/check")"
import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"]
p, known = sys.argv[2], re.compile(sys.argv[3])
bad = []
assert len(rows) >= 30, f"{p}: only {len(rows)} rows"
for r in rows:
    listed = bool(known.search(r["quantity"]) or known.search(p + ":" + r["quantity"]))
    if r["ok"] == listed:
        bad.append(f'{p}: {r["quantity"]}: configured {r["configured"]}, measured '
                   f'{r["measured"]} ({"matches, drop it from KNOWN" if listed else "MISMATCH"})')
if bad:
    sys.exit("\n".join(bad))
PY
done

# A measurement follows the configuration it reads: a slower L1 hit is measured as such.
"$GPURF" micro --platform "$SRC/configs/fermi.yaml" -p l1.hit_latency=33 --format json -j 2 \
  >"$TMP/hit.json" 2>/dev/null
python3 -c '
import json, sys
r = [r for r in json.load(open(sys.argv[1]))["rows"] if r["quantity"] == "L1 hit latency"][0]
assert r["configured"] == 33 and r["measured"] == 33 and r["ok"], r
' "$TMP/hit.json" || fail "L1 hit latency 33 not measured as 33"

expect_exit 2 "--format" "csv" "text, markdown or json" -- micro --format csv
expect_exit 2 "cannot open platform file" "nope.yaml" -- micro --platform nope.yaml
expect_exit 2 "unknown argument" "--bogus" -- micro --bogus
expect_exit 2 "bank.count" -- micro --platform "$SRC/configs/turing-subcore.yaml" -p bank.count=6
expect_exit 2 "declares no var" "warpz" "did you mean 'warps'" -- run --platform \
  "$SRC/configs/fermi.yaml" --workload "$SRC/workloads/micro/dep_fadd.yaml" --var warpz=2


# Several SMs: the chase runs on one SM and its L1 misses cross the interconnect both ways.
"$GPURF" micro --platform "$SRC/configs/fermi.yaml" -p gpu.sm_count=2 -p gpu.interconnect_latency=7 \
  --format json -j 2 >"$TMP/noc.json" 2>"$TMP/noc.err"
[ $? -le 1 ] || fail "2 SMs: $(head -c 600 "$TMP/noc.err")" # 1: fermi's KNOWN peak IPC row
"$GPURF" micro --platform "$SRC/configs/fermi.yaml" --format json -j 2 >"$TMP/one.json" 2>/dev/null
python3 -c '
import json, sys
pick = lambda f: [r for r in json.load(open(f))["rows"] if r["quantity"].startswith("L1 miss latency")][0]
noc, one = pick(sys.argv[1]), pick(sys.argv[2])
assert noc["ok"] and noc["measured"] == noc["configured"], noc
assert noc["configured"] == one["configured"] + 14, (noc, one)
' "$TMP/noc.json" "$TMP/one.json" || fail "interconnect latency not measured in the L1 miss latency"

finish
