# scripts/papers (issue 32, papers/README.md) on one suite kernel: CMRC's registry gives a
# report in which every headline has a number computed from verified runs, and those numbers
# are the runs' own (one recomputed here from the result files); --reuse reruns nothing; bad
# input (an unknown paper, a broken registry entry, a -p key gpurf refuses) exits 2 naming the
# file, the entry and the valid values; a run that is not verified makes its headline
# "refused" and the command exit 1.
source "$(dirname "$0")/lib.sh" "$@"
PAPERS="$SRC/scripts/papers"
python3 -c "import yaml" 2>/dev/null || { echo "no python3-yaml: skipped"; exit 77; }

# expect_papers CODE NEEDLE... -- ARGS...: as expect_exit, for scripts/papers.
expect_papers() {
  local code=$1
  shift
  local needles=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do needles+=("$1"); shift; done
  shift
  "$PAPERS" "$@" --gpurf "$GPURF" --no-plots >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  [ "$rc" -eq "$code" ] || { fail "papers $* exited $rc, expected $code: $(tail -c 600 "$TMP/err")"; return; }
  local n
  for n in "${needles[@]}"; do
    grep -qF -- "$n" "$TMP/err" "$TMP/out" || fail "papers $*: output lacks '$n': $(tail -c 600 "$TMP/err")"
  done
}

# Bad input, before anything runs.
expect_papers 2 "unknown paper 'cmrcx'" "cmrc, gebhart, wc, malekeh, wir, all" -- cmrcx --out "$TMP/x"
expect_papers 2 "--kernels: unknown kernel nokernel" -- cmrc --kernels nokernel --out "$TMP/x"
expect_papers 2 "--kernels attention: not in cmrc's kernel set" "name one of those" -- cmrc --kernels attention --out "$TMP/x"
mkdir -p "$TMP/reg"
sed 's/aggregate: \(geo\)\{0,1\}mean$/aggregate: average/' "$SRC/papers/cmrc.yaml" >"$TMP/reg/cmrc.yaml"
expect_papers 2 "cmrc.yaml: headlines[0] (id bank_accesses_wid): aggregate: 'average' is not one of mean, geomean, ratio_of_sums" \
  -- cmrc --registry "$TMP/reg" --out "$TMP/x"
cat >"$TMP/reg/cmrc.yaml" <<'EOF'
paper: cmrc
baseline: fermi
headlines:
  - id: ipc_wid
    where: "Fig. 11"
    claim: "speedup"
    paper: 15.3
    kind: change
    design: {platform: cmrc-wid, p: {arbiter.no_such_key: 1}}
    stat: ipc
    aggregate: mean
EOF
expect_papers 2 "cmrc.yaml: design 'cmrc-wid -p arbiter.no_such_key=1'" "no_such_key" \
  -- cmrc --registry "$TMP/reg" --kernels scan --out "$TMP/x"

# CMRC on scan: every headline computed, from verified runs.
expect_papers 0 "cmrc: " " of 18 reproduced" "wall time" -- cmrc --kernels scan -j 2 --out "$TMP/p"
cp "$TMP/out" "$TMP/first"
[ -s "$TMP/p/papers.md" ] || fail "no papers.md"
grep -qF "| cmrc | " "$TMP/p/papers.md" || fail "papers.md lacks the count per paper"
python3 - "$TMP/p" <<'PY' >"$TMP/check" 2>&1 || fail "$(cat "$TMP/check")"
import glob, json, math, os, sys
out = sys.argv[1]
rep = json.load(open(f"{out}/papers.json"))
bad = []
hs = rep["headlines"]
if len(hs) < 10:
    bad.append(f"{len(hs)} headlines")
for h in hs:
    if h["verdict"] not in ("reproduced", "missed") or not isinstance(h["gpurf"], float) or math.isnan(h["gpurf"]):
        bad.append(f"{h['id']}: {h['verdict']} {h['gpurf']}")
    if h["kernels"] != 1:
        bad.append(f"{h['id']}: {h['kernels']} kernels")
results = glob.glob(f"{out}/runs/*/scan/result.json")
if len(results) != rep["runs"] or len(results) < 8:
    bad.append(f"{len(results)} result files for {rep['runs']} runs")
for p in results:
    if json.load(open(p))["verified"] is not True:
        bad.append(f"{p} not verified")
# The engine's number is the runs' own: cmrc-wid's IPC over fermi's, as a change.
def ipc(platform):
    r = json.load(open(f"{out}/runs/{platform}/scan/result.json"))
    assert r["platform"] == platform and r["kernel"] == "scan", p
    return r["ipc"]
want = (ipc("cmrc-wid") / ipc("fermi") - 1) * 100
got = next(h["gpurf"] for h in hs if h["id"] == "ipc_wid")
if abs(got - want) > 1e-9:
    bad.append(f"ipc_wid {got} != {want} from the result files")
verdicts = {h["id"]: h["verdict"] for h in hs}
want_v = "reproduced" if 0.6 * 15.3 <= want <= 1.4 * 15.3 else "missed"
if verdicts["ipc_wid"] != want_v:
    bad.append(f"ipc_wid {want:+.1f}% vs +15.3%: {verdicts['ipc_wid']}, expected {want_v}")
if bad:
    sys.exit("\n".join(bad))
PY

# --reuse: the same numbers, no run made again.
expect_papers 0 "papers: 0 runs" -- cmrc --kernels scan -j 2 --out "$TMP/p" --reuse
diff <(grep -v "wall time" "$TMP/first") <(grep -v "wall time" "$TMP/out") >/dev/null ||
  fail "--reuse changed the table"

# A unit statistic that no run has (a misspelt name) is bad input too, found after the runs.
cat >"$TMP/reg/cmrc.yaml" <<'EOF2'
paper: cmrc
headlines:
  - id: oc
    where: "Fig. 10b"
    claim: "c"
    paper: 50
    kind: percent
    design: cmrc-wid
    stat: "collector.oc_slice_writez / collector.oc_writes"
    aggregate: mean
EOF2
expect_papers 2 "cmrc.yaml: oc: unknown statistic 'collector.oc_slice_writez'" \
  -- cmrc --registry "$TMP/reg" --kernels scan --out "$TMP/p" --reuse
sed -i 's/oc_slice_writez/oc_slice_writes/' "$TMP/reg/cmrc.yaml"
expect_papers 0 "papers: 0 runs" -- cmrc --registry "$TMP/reg" --kernels scan --out "$TMP/p" --reuse

# A run that is not verified: its headline is refused, the command exits 1.
cat >"$TMP/gpurf-unverified" <<EOF
#!/usr/bin/env bash
# gpurf, then scan's result on fermi marked not verified (as a failed check would leave it).
"$GPURF" "\$@"; rc=\$?
out=""; plat=""; prev=""
for a in "\$@"; do [ "\$prev" = --out ] && out=\$a; [ "\$prev" = --platform ] && plat=\$a; prev=\$a; done
if [ -n "\$out" ] && [ "\$(basename "\$plat")" = fermi.yaml ]; then
  sed -i 's/"verified": true/"verified": false/' "\$out/result.json"
fi
exit \$rc
EOF
chmod +x "$TMP/gpurf-unverified"
cat >"$TMP/reg/cmrc.yaml" <<'EOF2'
paper: cmrc
baseline: fermi
headlines:
  - id: ipc_wid
    where: "Fig. 11"
    claim: "speedup"
    paper: 15.3
    kind: change
    design: {platform: cmrc-wid, p: {arbiter.window: 8}}
    stat: ipc
    aggregate: mean
EOF2
"$PAPERS" cmrc --registry "$TMP/reg" --kernels scan --out "$TMP/u" --gpurf "$TMP/gpurf-unverified" \
  --no-plots >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] || fail "an unverified run: exit $rc, expected 1: $(tail -c 400 "$TMP/err")"
grep -q "ipc_wid .*refused" "$TMP/out" || fail "an unverified run: headline not refused: $(cat "$TMP/out")"
grep -qF "not verified: fermi/scan" "$TMP/u/papers.md" || fail "papers.md does not say which run is not verified"
finish
