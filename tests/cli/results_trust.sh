#!/usr/bin/env bash
# Results a reader can trust (issue 34): hit ratios of every cache-like unit in the summary,
# aggregated over instances; compare prints 0/0 as n/a and marks energy priced by different
# tables in the table itself; one kernel name (the launch file's `name`) for folders, tables
# and compare; a replacing suite removes an earlier suite's stale folders; --list, --describe
# and profile columns never run together; gen-ptx refuses a name it does not know.
source "$(dirname "$0")/lib.sh" "$@"

# A launch file whose file name is not its kernel's name (saxpy_shfl in other.yaml).
mkdir -p "$TMP/mine"
sed "s|^ptx: |ptx: $SRC/examples/|" "$SRC/examples/saxpy_shfl.yaml" >"$TMP/mine/other.yaml"

"$GPURF" suite --platform fermi --platform gebhart-rfc --platform malekeh --platform wir-rlpv \
  --kernels "scan,$TMP/mine/other.yaml" -j 2 --out "$TMP/s" >"$TMP/suite.log" 2>&1 ||
  fail "suite failed: $(tail -5 "$TMP/suite.log")"

# One name: the folder, the suite's table and the summary say saxpy_shfl.
[ -f "$TMP/s/fermi/saxpy_shfl/result.json" ] || fail "no fermi/saxpy_shfl/result.json: $(ls "$TMP/s/fermi")"
grep -qE '^saxpy_shfl +yes' "$TMP/suite.log" || fail "suite table lacks saxpy_shfl: $(cat "$TMP/suite.log")"
grep -q "other.yaml" "$TMP/suite.log" && fail "suite table names the file: $(cat "$TMP/suite.log")"
expect_exit 0 "saxpy_shfl" -- compare "$TMP/s/fermi" "$TMP/s/malekeh" --stats ipc
cp "$TMP/mine/other.yaml" "$TMP/mine/again.yaml"
expect_exit 2 "are both named 'saxpy_shfl'" -- suite --kernels "$TMP/mine/other.yaml,$TMP/mine/again.yaml" \
  --out "$TMP/twice"

# Hit ratios from the counters, every instance together (the CCUs are one per collector).
python3 - "$TMP/s" <<'PY' || fail "hit ratios"
import json, sys
d = sys.argv[1]
def res(p, k="scan"):
    return json.load(open(f"{d}/{p}/{k}/result.json")), json.load(open(f"{d}/{p}/{k}/stats.json"))
r, _ = res("fermi")
looked = r["l1_hits"] + r["l1_misses"] + r["l1_mshr_merges"]
assert looked > 0 and abs(r["l1_hit_ratio"] - r["l1_hits"] / looked) < 1e-12, r
r, _ = res("gebhart-rfc")
f = r["rfc"]
assert 0 < f["hit_ratio"] < 1 and abs(f["hit_ratio"] - f["reads"] / (f["reads"] + f["misses"])) < 1e-12, f
r, st = res("malekeh")
ccus = [g for k, g in st.items() if "ccu_hits" in g]
assert len(ccus) > 1, "expected several collectors with a CCU"
hits = sum(g["ccu_hits"]["value"] for g in ccus)
ops = sum(g["source_operands"]["value"] for g in ccus)
assert r["ccu"] == {"hits": hits, "source_operands": ops, "hit_ratio": hits / ops}, r["ccu"]
assert "ccu" not in res("fermi")[0] and "rfc" not in res("fermi")[0]
r, _ = res("wir-rlpv")
v = r["verify_cache"]
assert v["lookups"] > 0 and v["hit_ratio"] == v["hits"] / v["lookups"], v
PY

# 0/0 is no ratio: n/a (coalesced_accesses is 0 off CMRC), not 1.000; not in the means.
expect_exit 0 "coalesced_accesses" -- compare "$TMP/s/fermi" "$TMP/s/malekeh" --stats coalesced_accesses
awk '$1=="scan" {exit !($2=="0" && $3=="n/a")}' "$TMP/out" || fail "0/0: $(cat "$TMP/out")"
grep -q "1.000" "$TMP/out" && fail "0/0 shown as 1.000: $(cat "$TMP/out")"
# Energy priced by different tables: the table's title says so, not only stderr.
expect_exit 0 "NOT COMPARABLE, priced by different energy tables" -- \
  compare "$TMP/s/fermi" "$TMP/s/gebhart-rfc" --stats sm_energy_pj
grep -q "NOT COMPARABLE" "$TMP/out" || fail "the table does not mark mixed energy tables: $(cat "$TMP/out")"

# Replacing a suite's results: the earlier suite's other platforms and kernels go, with a note;
# what gpurf did not write stays and is named.
echo mine >"$TMP/s/notes.txt"
"$GPURF" suite --platform fermi --kernels scan --out "$TMP/s" --force >"$TMP/re.log" 2>&1 ||
  fail "suite --force: $(tail -5 "$TMP/re.log")"
[ -e "$TMP/s/malekeh" ] && fail "stale folder malekeh left: $(ls "$TMP/s")"
[ -e "$TMP/s/fermi/saxpy_shfl" ] && fail "stale folder fermi/saxpy_shfl left"
[ -f "$TMP/s/notes.txt" ] || fail "a file gpurf did not write was removed"
grep -q "removed 4 result folder(s) of an earlier suite" "$TMP/re.log" || fail "no removal note: $(cat "$TMP/re.log")"
grep -q "left in place (not gpurf's results; not this suite's): $TMP/s/notes.txt" "$TMP/re.log" || fail "no note on notes.txt"
expect_exit 0 "scan" -- compare "$TMP/s" --stats ipc # one platform again: no "name one of"
# --force on a folder no suite wrote (no provenance.json): nothing of it is removed.
mkdir -p "$TMP/u/proj" && echo x >"$TMP/u/proj/log.txt"
"$GPURF" suite --platform fermi --kernels scan --out "$TMP/u" --force >"$TMP/re.log" 2>&1 ||
  fail "suite --force into a foreign folder: $(tail -5 "$TMP/re.log")"
[ -f "$TMP/u/proj/log.txt" ] && grep -q "left in place (no suite's provenance.json there" "$TMP/re.log" ||
  fail "a foreign folder: $(cat "$TMP/re.log")"

# Columns: two spaces at least between a name and what follows, however long the name.
"$GPURF" --list >"$TMP/list"
awk '/^  / && !/^  [^ ]+  +[^ ]/ {print; bad=1} END {exit bad}' "$TMP/list" ||
  fail "--list: a name runs into its description"
"$GPURF" --list platforms >"$TMP/plat"
awk '!/^[^ ]+  +[^ ]/ {print; bad=1} END {exit bad}' "$TMP/plat" || fail "--list platforms: columns run together"
"$GPURF" --describe pipes >"$TMP/desc"
# (the parameter rows: up to the statistics and sockets sections, whose columns list_describe
# checks)
awk 'NR>1 && /^[^ ]/ {exit} NR>1 && !/^  [^ ]+  +[^ ]+  +default [^ ]+  +/ {print; bad=1} END {exit bad}' "$TMP/desc" ||
  fail "--describe: columns run together: $(cat "$TMP/desc")"
"$GPURF" profile --workload scan >"$TMP/prof" 2>/dev/null || fail "profile scan"
grep -q "WIR-reusable)  " "$TMP/prof" || fail "profile: a quantity runs into its value: $(cat "$TMP/prof")"

# gen-ptx: a path or unknown name exits 2 and says what it takes (before looking for nvcc).
"$SRC/scripts/gen-ptx" ../conv/conv2d.cu >"$TMP/out" 2>&1
[ $? = 2 ] && grep -q "no kernel '../conv/conv2d.cu'" "$TMP/out" && grep -q "nvcc -arch=sm_75" "$TMP/out" ||
  fail "gen-ptx ../conv/conv2d.cu: $(cat "$TMP/out")"
"$SRC/scripts/gen-ptx" --chekc >"$TMP/out" 2>&1
[ $? = 2 ] || fail "gen-ptx --chekc: $(cat "$TMP/out")"
finish
