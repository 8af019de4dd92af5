#!/usr/bin/env bash
# Ratios declared as formulas where their counters are (issue 34): every hit ratio and IPC in
# stats.json carries the counters it divides ("ratio_of"), and summary.json's aggregated hit
# ratios equal those declared counters summed over every instance, so a unit that changes its
# ratio or renames a counter it divides fails here. Every statistic carries a kind the results
# schema lists, and scripts/suite_stats.py reads it (an older dump without kinds is refused).
source "$(dirname "$0")/lib.sh" "$@"

"$GPURF" suite --platform fermi --platform gebhart-rfc --platform malekeh --kernels sgemm \
  -j 2 --out "$TMP/s" >"$TMP/suite.log" 2>&1 || fail "suite failed: $(tail -5 "$TMP/suite.log")"

python3 - "$TMP/s" "$SRC/scripts" <<'PY' || fail "declared ratios"
import json, sys
sys.path.insert(0, sys.argv[2])
import results_schema, suite_stats
d = sys.argv[1]
# summary key -> (unit kind, declared formula)
where = {("l1_hit_ratio",): ("l1", "hit_rate"), ("l2_hit_ratio",): ("l2", "hit_rate"),
         ("rfc", "hit_ratio"): ("rfc", "hit_rate"), ("ccu", "hit_ratio"): ("collector", "ccu_hit_ratio"),
         ("ipc",): ("sm", "ipc")}
seen = set()
for p in ("fermi", "gebhart-rfc", "malekeh"):
    r = json.load(open(f"{d}/{p}/sgemm/result.json"))
    s = json.load(open(f"{d}/{p}/sgemm/stats.json"))
    for g, grp in s.items():
        if g == "host":  # the host's figures, no statistics
            continue
        for name, st in grp.items():
            if name == "_unit":
                continue
            assert st.get("kind") in results_schema.STAT_KINDS, (p, g, name, st)
            for key in results_schema.STAT_KINDS[st["kind"]]:
                assert key in st, (p, g, name, key)
    for path, (kind, formula) in where.items():
        v = r
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        groups = [x for x in suite_stats.group(s, kind) if formula in x]
        if v is None and not groups:
            continue
        assert groups, (p, path, "summary has it, no unit declares it")
        of = groups[0][formula]["ratio_of"]
        num = sum(suite_stats.total(s, kind, n) for n in of["numerator"])
        den = sum(suite_stats.total(s, kind, n) for n in of["denominator"])
        want = num / den if den else None
        assert v == want or abs(v - want) < 1e-12, (p, path, v, want, of)
        seen.add(path)
assert len(seen) == len(where), sorted(where.keys() - seen)
# A dump without kinds: suite_stats refuses it, naming the fix.
try:
    suite_stats.total({"sm.l1": {"hits": {"value": 1}}}, "l1", "hits")
    raise AssertionError("a statistic without kind was read")
except SystemExit as e:
    assert "no kind" in str(e), e
PY
finish
