"""Reading `gpurf suite --out` platform folders: per kernel result.json and stats.json, and
the statistics of one unit kind summed over its instances (tests/cli/malekeh.sh; the papers'
tables are scripts/papers')."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import results_schema  # noqa: E402


def load(d, tool):
    """{kernel: (result, stats)} of the platform folder `d`; exits 2 naming `tool` if empty."""
    rows = {}
    if os.path.isdir(d):
        for k in sorted(os.listdir(d)):
            p = os.path.join(d, k)
            if not os.path.isfile(os.path.join(p, "result.json")):
                continue
            r = json.load(open(os.path.join(p, "result.json")))
            s = json.load(open(os.path.join(p, "stats.json")))
            rows[k] = (r, s)
    if not rows:  # bad input: exit status 2
        print(f"{tool}: {d}: no <kernel>/result.json (a `gpurf suite --out` platform folder?)",
              file=sys.stderr)
        sys.exit(2)
    return rows


def group(s, kind):
    """The statistics groups of unit kind `kind`: their path's last part is `kind`, optionally
    with an index (sm.sub0.bank3 is of kind bank, sm.l1 of kind l1), as platform/stats.cpp's
    group_of_kind."""
    def of(path):
        last = path.split(".")[-1]
        return last == kind or last.rstrip("0123456789") == kind
    return [v for g, v in s.items() if isinstance(v, dict) and of(g)]


def stat_kind(st):
    """A statistic's kind as stats.json declares it (platform/results_schema.json,
    statistic_kinds): counter, vector, formula or distribution."""
    k = st.get("kind")
    if k in results_schema.STAT_KINDS:
        return k
    raise SystemExit(f"stats.json statistic {st} has kind {k!r}, not one of "
                     f"{sorted(results_schema.STAT_KINDS)} (no kind: an older gpurf; rerun the suite)")


def val(g, name):
    """A statistic of one group: a counter's or formula's value, a vector's total, a
    distribution's count (0 if absent; None for a formula that is a ratio of nothing)."""
    if name not in g:
        return 0
    st = g[name]
    return {"counter": lambda: st["value"], "formula": lambda: st["value"],
            "vector": lambda: st["total"], "distribution": lambda: st["count"]}[stat_kind(st)]()


def total(s, kind, name):
    """`name` summed over every unit of kind `kind`."""
    return sum(val(g, name) for g in group(s, kind))


def distribution(s, kind, name):
    """A distribution merged over every unit of kind `kind` (their buckets are the same):
    count, sum, mean, min, max and p50/p90/p99 as gpurf computes them (the largest value of
    the bucket that holds the ceil(N% x count)-th sample, at most the max; docs/statistics.md);
    None where no unit of that kind declares it."""
    ds = [g[name] for g in group(s, kind) if name in g and stat_kind(g[name]) == "distribution"]
    if not ds:
        return None
    held = {}
    for d in ds:
        for lo, hi, n in d["buckets"]["held"]:
            held[(lo, hi)] = held.get((lo, hi), 0) + n
    count = sum(d["count"] for d in ds)
    out = {"count": count, "sum": sum(d["sum"] for d in ds)}
    some = [d for d in ds if d["count"]]
    out["mean"] = out["sum"] / count if count else None
    out["min"] = min(d["min"] for d in some) if some else None
    out["max"] = max(d["max"] for d in some) if some else None
    for p in (50, 90, 99):
        out[f"p{p}"] = None
        if not count:
            continue
        rank, seen = max(1, (p * count + 99) // 100), 0
        for (lo, hi), n in sorted(held.items()):
            seen += n
            if seen >= rank:
                out[f"p{p}"] = out["max"] if hi is None else min(hi, out["max"])
                break
    return out
