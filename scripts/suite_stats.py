"""Reading `gpurf suite --out` platform folders: per kernel result.json and stats.json, and
the statistics of one unit kind summed over its instances (tests/cli/malekeh.sh; the papers'
tables are scripts/papers')."""
import json
import os
import sys


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
    """The statistics groups of unit kind `kind` (sm.sub0.bank3 is of kind bank)."""
    return [v for g, v in s.items() if isinstance(v, dict) and g.split(".")[-1].rstrip("0123456789") == kind]


def val(g, name):
    """A statistic of one group: a scalar's value or a vector's total (0 if absent)."""
    x = g.get(name, {})
    return x.get("value", sum(x.get("values", [0])))


def total(s, kind, name):
    """`name` summed over every unit of kind `kind`."""
    return sum(val(g, name) for g in group(s, kind))
