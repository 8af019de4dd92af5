"""The pure parts of scripts/papers (issue 32): the headline registry's schema and validation,
statistic expressions, aggregates and the verdict rule. papers/README.md documents the schema;
tests/papers/test_papers_lib.py tests this module without running gpurf."""
import ast
import math
import os
import re

import results_schema

PAPERS = ["cmrc", "gebhart", "wc", "malekeh", "wir"]
KINDS = ["change", "ratio", "percent", "value"]
AGGREGATES = ["mean", "geomean", "ratio_of_sums"]
TOOLS = ["suite", "profile"]
FUNCTIONS = ["max", "min", "count"]
FILE_KEYS = ["paper", "title", "source", "baseline", "kernels", "headlines", "experiments", "combined"]
MEASURE_KEYS = ["design", "baseline", "stat", "aggregate", "kernels_where", "energy_table"]
HEADLINE_KEYS = ["id", "where", "claim", "paper", "kind", "reason", "values", "formula"] + MEASURE_KEYS
EXPERIMENT_KEYS = ["id", "where", "text", "sweep", "per_kernel", "quantities"]
QUANTITY_KEYS = ["label", "kind", "paper"] + MEASURE_KEYS
DESIGN_KEYS = ["platform", "p", "program", "vars", "tool"]
# result.json's top-level keys (platform/results_schema.json) and gpurf profile's JSON keys: a
# statistic name whose first part is one of these is read from that file.
RESULT_KEYS = results_schema.RESULT_KEYS
PROFILE_KEYS = ["counted", "reads", "writes", "register_reads", "banks", "value_lifetime",
                "operand_width", "reuse_distance", "repeated_computations"]
# Unit kinds in stats.json (a group's last name without its index: sm.sub0.collector3 ->
# collector).
UNIT_KINDS = ["gpu", "sm", "exec", "bank", "scheduler", "allocator", "collector", "arbiter",
              "crossbar", "decompressor", "compressor", "writeback", "lsu", "l1", "l2",
              "interconnect", "memory", "host", "rfc"]
ID_RE = re.compile(r"^[a-z0-9_]+$")
# The verdict's tolerance: within 40% of the paper's magnitude; "~" claims at least 2 points.
TOLERANCE = 0.4
ABOUT_POINTS = 2.0


class RegistryError(Exception):
    """Bad input in a registry file: the message names the file, the entry and the key."""


# ---- statistic expressions ------------------------------------------------------------------

def _path(node):
    """A dotted name (a.b.c, a.b["4B"], a.b[0]) as a tuple, or None."""
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        p = _path(node.value)
        return p + (node.attr,) if p else None
    if isinstance(node, ast.Subscript):
        p = _path(node.value)
        sl = node.slice
        if isinstance(sl, ast.Index):  # Python < 3.9
            sl = sl.value
        if p and isinstance(sl, ast.Constant) and isinstance(sl.value, (str, int)):
            return p + (sl.value,)
    return None


class Expr:
    """A statistic expression: + - * / ( ), numbers, statistic names and max/min/count(name)."""

    def __init__(self, text, names=None):
        self.text = str(text)
        self.allowed = names  # formula: only these plain names
        try:
            self.tree = ast.parse(self.text.strip(), mode="eval").body
        except SyntaxError as e:
            raise ValueError(f"not an expression: {e.msg}") from None
        self.refs = []  # (function or None, path)
        self._check(self.tree)

    def _check(self, n):
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            self._check(n.left)
            self._check(n.right)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            self._check(n.operand)
        elif isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) \
                and not isinstance(n.value, bool):
            pass
        elif isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in FUNCTIONS and len(n.args) == 1
                    and not n.keywords and _path(n.args[0])):
                raise ValueError("a call must be max(name), min(name) or count(name)")
            self._ref(n.func.id, _path(n.args[0]))
        else:
            p = _path(n)
            if not p:
                raise ValueError(f"'{ast.unparse(n) if hasattr(ast, 'unparse') else n}' is not allowed "
                                 "(numbers, statistic names, + - * / ( ), max/min/count(name))")
            self._ref(None, p)

    def _ref(self, fn, p):
        if self.allowed is not None:
            if fn or len(p) != 1 or p[0] not in self.allowed:
                raise ValueError(f"'{'.'.join(map(str, p))}' is not one of the values: "
                                 f"{', '.join(sorted(self.allowed))}")
        else:
            head = p[0]
            if head not in RESULT_KEYS and head not in PROFILE_KEYS and head not in UNIT_KINDS:
                raise ValueError(f"unknown statistic '{'.'.join(map(str, p))}': the first name must be a "
                                 f"result.json key ({', '.join(RESULT_KEYS)}), a profile key "
                                 f"({', '.join(PROFILE_KEYS)}) or a unit kind ({', '.join(UNIT_KINDS)})")
            if head in UNIT_KINDS and head not in RESULT_KEYS and len(p) < 2:
                raise ValueError(f"'{head}' names a unit kind: say which statistic (e.g. {head}.NAME)")
        self.refs.append((fn, p))

    def eval(self, get):
        """The value with get(fn, path) -> float for each statistic."""
        def ev(n):
            if isinstance(n, ast.BinOp):
                a, b = ev(n.left), ev(n.right)
                if isinstance(n.op, ast.Add):
                    return a + b
                if isinstance(n.op, ast.Sub):
                    return a - b
                if isinstance(n.op, ast.Mult):
                    return a * b
                return a / b if b else math.nan
            if isinstance(n, ast.UnaryOp):
                v = ev(n.operand)
                return -v if isinstance(n.op, ast.USub) else v
            if isinstance(n, ast.Constant):
                return float(n.value)
            if isinstance(n, ast.Call):
                return float(get(n.func.id, _path(n.args[0])))
            return float(get(None, _path(n)))
        return ev(self.tree)


def _walk(obj, path, full):
    """path followed into a JSON object; a dict at the end sums its numbers."""
    for i, k in enumerate(path):
        if isinstance(obj, dict) and k in obj:
            obj = obj[k]
        elif isinstance(obj, list) and isinstance(k, int) and -len(obj) <= k < len(obj):
            obj = obj[k]
        elif i >= 2 and path[0] == "energy" and path[1] == "breakdown":
            return 0.0  # an energy component the platform does not have
        else:
            raise KeyError(f"'{'.'.join(map(str, full))}' is not in the run's JSON")
    if isinstance(obj, bool):
        return float(obj)
    if isinstance(obj, (int, float)):
        return float(obj)
    if isinstance(obj, dict):
        return float(sum(v for v in obj.values() if isinstance(v, (int, float))))
    raise KeyError(f"'{'.'.join(map(str, full))}' is not a number")


def unit_groups(stats, kind):
    """The statistics groups of unit kind `kind` (sm.sub0.bank3 is of kind bank)."""
    return [v for g, v in stats.items()
            if isinstance(v, dict) and g.split(".")[-1].rstrip("0123456789") == kind]


def _unit_values(stats, path):
    """The value of `kind.stat[.label]` in each unit instance that has it."""
    kind, name, label = path[0], path[1], path[2] if len(path) > 2 else None
    out = []
    for g in unit_groups(stats, kind):
        s = g.get(name)
        if not isinstance(s, dict):
            continue
        if "values" in s:
            vals = s["values"]
            if label is None:
                out.extend(vals)
            elif isinstance(label, int):
                out.append(vals[label])
            else:
                labels = s.get("labels", [])
                if label not in labels:
                    raise KeyError(f"'{'.'.join(map(str, path))}': no label '{label}' "
                                   f"(labels: {', '.join(labels)})")
                out.append(vals[labels.index(label)])
        else:
            out.append(s.get("value", 0))
    return out


def resolve(run, fn, path):
    """One kernel's statistic: `run` is {"result": result.json or profile JSON, "stats":
    stats.json or None}. A unit statistic the platform's units lack counts 0."""
    res = run.get("result") or {}
    if path[0] in res:
        v = _walk(res, path, path)
        return 1.0 if fn == "count" else v
    if path[0] in UNIT_KINDS and len(path) >= 2:
        vals = _unit_values(run.get("stats") or {}, path)
        if fn == "count":
            return float(len(vals))
        if fn == "max":
            return float(max(vals, default=0))
        if fn == "min":
            return float(min(vals, default=0))
        return float(sum(vals))
    raise KeyError(f"'{'.'.join(map(str, path))}' is in neither the run's result (or profile) "
                   "nor its stats.json")


# ---- aggregates and the verdict -------------------------------------------------------------

def aggregate(name, values):
    """mean or geomean of per-kernel values (NaN entries dropped); NaN when none is left."""
    xs = [x for x in values if x == x]
    if not xs:
        return math.nan
    if name == "mean":
        return sum(xs) / len(xs)
    if name == "geomean":
        if any(x <= 0 for x in xs):
            return math.nan
        return math.exp(sum(math.log(x) for x in xs) / len(xs))
    raise ValueError(f"aggregate '{name}' is not one of {', '.join(AGGREGATES)}")


def _kernels(spec, design_runs, base_runs, kernels):
    """The kernels a measure uses: in both runs and passing kernels_where (on the design)."""
    where = spec.get("kernels_where")
    ks = [k for k in kernels if k in design_runs and (base_runs is None or k in base_runs)]
    if where is not None:
        ks = [k for k in ks if where.eval(lambda f, p: resolve(design_runs[k], f, p))]
    return ks


def per_kernel(spec, design_runs, base_runs, kernels):
    """{kernel: stat(design) / stat(baseline)} (or stat(design) without a baseline); NaN
    where the baseline's value is 0."""
    stat, out = spec["stat"], {}
    for k in _kernels(spec, design_runs, base_runs, kernels):
        d = stat.eval(lambda f, p: resolve(design_runs[k], f, p))
        if base_runs is not None:
            b = stat.eval(lambda f, p: resolve(base_runs[k], f, p))
            d = d / b if b else math.nan
        out[k] = d
    return out


def measure(spec, design_runs, base_runs, kernels):
    """A measure's aggregate and the kernels it used. design_runs / base_runs: {kernel: run}
    (base_runs None without a baseline). kernels_where filters on the design's run."""
    stat, agg = spec["stat"], spec["aggregate"]
    ks = _kernels(spec, design_runs, base_runs, kernels)
    if not ks:
        return math.nan, []
    if agg == "ratio_of_sums":
        def summed(runs):
            return lambda f, p: sum(resolve(runs[k], f, p) for k in ks)
        d = stat.eval(summed(design_runs))
        if base_runs is None:
            return d, ks
        b = stat.eval(summed(base_runs))
        return (d / b if b else math.nan), ks
    per = per_kernel(spec, design_runs, base_runs, ks)
    used = [k for k, x in per.items() if x == x]
    return aggregate(agg, list(per.values())), used


def shown(kind, agg):
    """gpurf's number in the unit the paper states it."""
    if agg != agg:
        return agg
    if kind == "change":
        return (agg - 1) * 100
    if kind == "percent":
        return agg * 100
    return agg  # ratio, value


def compared(kind, x):
    """The number the verdict compares: changes for change and ratio, the value otherwise."""
    return (x - 1) * 100 if kind == "ratio" else x


def parse_paper(v):
    """(op, number): op '=' for a number, '<=', '>=', '~'. ValueError if not valid."""
    if isinstance(v, bool):
        raise ValueError("a number or a string like '<= 1.14', '>= 50', '~1'")
    if isinstance(v, (int, float)):
        return "=", float(v)
    m = re.fullmatch(r"\s*(<=|>=|<|>|~)\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*", str(v))
    if not m:
        raise ValueError(f"'{v}' is not a number nor '<= N', '>= N', '< N', '> N', '~N'")
    op = {"<": "<=", ">": ">="}.get(m.group(1), m.group(1))
    return op, float(m.group(2))


def verdict(kind, paper, gpurf):
    """'reproduced' or 'missed' (papers/README.md, The verdict). paper: the registry's value,
    gpurf: the shown number (same unit). 'no value' when gpurf has none."""
    if gpurf is None or gpurf != gpurf:
        return "no value"
    op, p = parse_paper(paper)
    P, G = compared(kind, p), compared(kind, gpurf)
    tol = TOLERANCE * abs(P)
    if op == "=":
        ok = P != 0 and (G > 0) == (P > 0) and G != 0 and (1 - TOLERANCE) * abs(P) <= abs(G) <= (1 + TOLERANCE) * abs(P)
    elif op == "~":
        ok = abs(G - P) <= (tol if kind == "value" else max(tol, ABOUT_POINTS))
    elif op == "<=":
        ok = G <= P + tol
    else:
        ok = G >= P - tol
    return "reproduced" if ok else "missed"


def paper_ratio(kind, paper, gpurf):
    """gpurf / paper in the compared unit, for a plain number; None otherwise."""
    op, p = parse_paper(paper)
    P = compared(kind, p)
    if op != "=" or P == 0 or gpurf is None or gpurf != gpurf:
        return None
    return compared(kind, gpurf) / P


# ---- the registry ---------------------------------------------------------------------------

class Design:
    """One run gpurf makes: a platform, -p overrides, and a program or the suite's kernels."""

    def __init__(self, platform, p=(), program=None, vars_=(), tool="suite"):
        self.platform, self.program, self.tool = platform, program, tool
        self.p = tuple(sorted(p))
        self.vars = tuple(sorted(vars_))

    def key(self):
        return (self.platform, self.p, self.program, self.vars, self.tool)

    def __eq__(self, o):
        return isinstance(o, Design) and self.key() == o.key()

    def __hash__(self):
        return hash(self.key())

    def with_p(self, extra):
        """This design with more -p overrides; the key `platform` replaces the platform."""
        d = dict(self.p)
        d.update((k, v) for k, v in extra.items() if k != "platform")
        return Design(extra.get("platform", self.platform), d.items(), self.program, self.vars, self.tool)

    def label(self):
        s = self.platform + ("" if self.tool == "suite" else f" ({self.tool})")
        if self.program:
            s += f" {self.program}"
        s += "".join(f" {k}={v}" for k, v in self.vars)
        return s + "".join(f" -p {k}={v}" for k, v in self.p)


def _scalar(v):
    """A -p value as gpurf's command line wants it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class Registry:
    """A validated papers/<paper>.yaml. root: the repository (configs/, workloads/)."""

    def __init__(self, path, data, root):
        self.path, self.root = path, root
        self.where = os.path.relpath(path, root) if os.path.isabs(path) else path
        if not isinstance(data, dict):
            self.fail("the file", "", "must be a map with paper:, headlines:, experiments:")
        self.paper = os.path.splitext(os.path.basename(path))[0]
        for k in data:
            if k not in FILE_KEYS:
                self.fail("the file", k, f"unknown key (valid: {', '.join(FILE_KEYS)})")
        if data.get("paper") != self.paper:
            self.fail("the file", "paper", f"'{data.get('paper')}' must be the file's name '{self.paper}'")
        if self.paper not in PAPERS:
            self.fail("the file", "paper", f"'{self.paper}' is not one of {', '.join(PAPERS)}")
        self.title = str(data.get("title", self.paper))
        self.source = data.get("source")
        self.kernels = data.get("kernels")
        if self.kernels is not None and not (isinstance(self.kernels, list)
                                             and all(isinstance(k, str) for k in self.kernels)):
            self.fail("the file", "kernels", "must be a list of suite kernel names")
        self.default_baseline = self.design("the file", "baseline", data.get("baseline")) \
            if data.get("baseline") is not None else None
        self.headlines = self._entries(data, "headlines", self.headline)
        self.experiments = self._entries(data, "experiments", self.experiment)

    def fail(self, entry, key, msg):
        raise RegistryError(f"{self.where}: {entry}" + (f": {key}" if key else "") + f": {msg}")

    def _entries(self, data, key, parse):
        """The parsed entries of list `key`, each id used once."""
        out, ids = [], set()
        for i, x in enumerate(self._list(data, key)):
            e = parse(i, x)
            if e["id"] in ids:
                self.fail(f"{key}[{i}]", "id", f"'{e['id']}' is used twice")
            ids.add(e["id"])
            out.append(e)
        return out

    def _list(self, data, key):
        v = data.get(key) or []
        if not isinstance(v, list):
            self.fail("the file", key, "must be a list")
        return v

    def _keys(self, entry, d, valid):
        if not isinstance(d, dict):
            self.fail(entry, "", "must be a map")
        for k in d:
            if k not in valid:
                self.fail(entry, k, f"unknown key (valid: {', '.join(valid)})")

    def design(self, entry, key, v):
        """A design from a platform name or a {platform, p, program, vars, tool} map."""
        if isinstance(v, str):
            v = {"platform": v}
        if not isinstance(v, dict):
            self.fail(entry, key, "must be a platform name or a map with platform:")
        for k in v:
            if k not in DESIGN_KEYS:
                self.fail(entry, f"{key}.{k}", f"unknown key (valid: {', '.join(DESIGN_KEYS)})")
        plat = v.get("platform")
        if not isinstance(plat, str) or not os.path.isfile(os.path.join(self.root, "configs", plat + ".yaml")):
            self.fail(entry, f"{key}.platform", f"'{plat}' is not a platform (configs/<name>.yaml)")
        p = v.get("p") or {}
        if not isinstance(p, dict) or any(not isinstance(x, str) or "." not in x for x in p):
            self.fail(entry, f"{key}.p", "must map key.path to a value")
        prog = v.get("program")
        if prog is not None and not os.path.isfile(os.path.join(self.root, "workloads", str(prog) + ".yaml")):
            self.fail(entry, f"{key}.program", f"'{prog}' is not a launch file (workloads/<program>.yaml)")
        vars_ = v.get("vars") or {}
        if not isinstance(vars_, dict):
            self.fail(entry, f"{key}.vars", "must map a variable name to a value")
        tool = v.get("tool", "suite")
        if tool not in TOOLS:
            self.fail(entry, f"{key}.tool", f"'{tool}' is not one of {', '.join(TOOLS)}")
        return Design(plat, [(k, _scalar(x)) for k, x in p.items()], prog,
                      [(k, _scalar(x)) for k, x in vars_.items()], tool)

    def expr(self, entry, key, text, names=None):
        if not isinstance(text, (str, int, float)) or isinstance(text, bool):
            self.fail(entry, key, "must be an expression (a string)")
        try:
            return Expr(text, names)
        except ValueError as e:
            self.fail(entry, key, str(e))

    def measure(self, entry, d, kind):
        """The measure keys of a headline or quantity, validated."""
        for k in ("design", "stat", "aggregate"):
            if k not in d:
                self.fail(entry, k, "missing")
        m = {"design": self.design(entry, "design", d["design"])}
        if "baseline" in d:
            m["baseline"] = None if d["baseline"] is None else self.design(entry, "baseline", d["baseline"])
        else:
            m["baseline"] = self.default_baseline
        m["stat"] = self.expr(entry, "stat", d["stat"])
        if d["aggregate"] not in AGGREGATES:
            self.fail(entry, "aggregate", f"'{d['aggregate']}' is not one of {', '.join(AGGREGATES)}")
        m["aggregate"] = d["aggregate"]
        m["kernels_where"] = self.expr(entry, "kernels_where", d["kernels_where"]) \
            if d.get("kernels_where") is not None else None
        t = d.get("energy_table")
        if t is not None and not os.path.isfile(os.path.join(self.root, str(t))):
            self.fail(entry, "energy_table", f"'{t}' is not a file (configs/energy/<name>.yaml)")
        m["energy_table"] = t
        if kind in ("change", "ratio") and m["baseline"] is None:
            self.fail(entry, "baseline", f"kind '{kind}' needs a baseline (the design's ratio to it)")
        return m

    def _kind(self, entry, d, required):
        k = d.get("kind")
        if k is None and not required:
            return None
        if k not in KINDS:
            self.fail(entry, "kind", f"'{k}' is not one of {', '.join(KINDS)}")
        return k

    def _paper(self, entry, d):
        try:
            parse_paper(d["paper"])
        except ValueError as e:
            self.fail(entry, "paper", str(e))
        return d["paper"]

    def _id(self, entry, d):
        if not isinstance(d.get("id"), str) or not ID_RE.match(d["id"]):
            self.fail(entry, "id", f"'{d.get('id')}' must match [a-z0-9_]+")
        return d["id"]

    def headline(self, i, h):
        entry = f"headlines[{i}]"
        self._keys(entry, h, HEADLINE_KEYS)
        entry = f"headlines[{i}] (id {h.get('id')})"
        e = {"id": self._id(entry, h)}
        for k in ("where", "claim", "paper", "kind"):
            if k not in h:
                self.fail(entry, k, "missing")
        e["where"], e["claim"] = str(h["where"]), str(h["claim"])
        e["kind"] = self._kind(entry, h, True)
        e["paper"] = self._paper(entry, h)
        e["reason"] = str(h.get("reason") or "")
        if "values" in h or "formula" in h:
            if "values" not in h or "formula" not in h:
                self.fail(entry, "values" if "values" not in h else "formula",
                          "values: and formula: go together")
            for k in MEASURE_KEYS:
                if k in h:
                    self.fail(entry, k, "not with values:/formula: (each value has its own)")
            if not isinstance(h["values"], dict) or not h["values"]:
                self.fail(entry, "values", "must map names to measures")
            e["values"] = {}
            for name, d in h["values"].items():
                if not ID_RE.match(str(name)):
                    self.fail(entry, f"values.{name}", "a value's name must match [a-z0-9_]+")
                self._keys(f"{entry}: values.{name}", d, MEASURE_KEYS)
                e["values"][name] = self.measure(f"{entry}: values.{name}", d, None)
            e["formula"] = self.expr(entry, "formula", h["formula"], set(e["values"]))
        else:
            e.update(self.measure(entry, h, e["kind"]))
        return e

    def experiment(self, i, x):
        entry = f"experiments[{i}]"
        self._keys(entry, x, EXPERIMENT_KEYS)
        entry = f"experiments[{i}] (id {x.get('id')})"
        e = {"id": self._id(entry, x), "where": str(x.get("where", "")), "text": str(x.get("text", ""))}
        sweep = x.get("sweep") or {}
        if not isinstance(sweep, dict) or any(not isinstance(v, list) or not v for v in sweep.values()) \
                or any(not isinstance(k, str) or ("." not in k and k != "platform") for k in sweep):
            self.fail(entry, "sweep", "must map key.path (or platform) to a non-empty list of values")
        for plat in sweep.get("platform", []):
            self.design(entry, "sweep.platform", str(plat))
        e["per_kernel"] = x.get("per_kernel", False)
        if e["per_kernel"] not in (True, False):
            self.fail(entry, "per_kernel", "must be true or false")
        if e["per_kernel"] and sweep:
            self.fail(entry, "per_kernel", "a per-kernel table has no sweep (one column per quantity)")
        points = [{}]
        for k, vs in sweep.items():
            points = [dict(pt, **{k: _scalar(v)}) for pt in points for v in vs]
        e["points"] = points
        e["sweep"] = {k: [_scalar(v) for v in vs] for k, vs in sweep.items()}
        qs = x.get("quantities")
        if not isinstance(qs, list) or not qs:
            self.fail(entry, "quantities", "must be a non-empty list")
        e["quantities"] = []
        for j, q in enumerate(qs):
            qe = f"{entry}: quantities[{j}]"
            self._keys(qe, q, QUANTITY_KEYS)
            kind = self._kind(qe, q, False)
            if kind is None:
                kind = "ratio" if q.get("baseline", self.default_baseline) is not None else "value"
            m = self.measure(qe, q, kind)
            m["label"], m["kind"] = str(q.get("label", f"quantity {j}")), kind
            if "paper" in q:
                m["paper"] = self._paper(qe, q)
            e["quantities"].append(m)
        return e

    def measures(self):
        """Every (measure, design, baseline) the file needs, sweeps expanded: for the runs."""
        for h in self.headlines:
            for m in (h["values"].values() if "values" in h else [h]):
                yield m["design"], m["baseline"]
        for x in self.experiments:
            for q in x["quantities"]:
                for pt in x["points"]:
                    yield q["design"].with_p(pt), q["baseline"]


def load(path, root):
    """The registry in `path` (RegistryError on bad input)."""
    import yaml
    try:
        with open(path) as f:
            data = yaml.safe_load(f)
    except OSError as e:
        raise RegistryError(f"{path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise RegistryError(f"{path}: not YAML: {e}") from None
    return Registry(path, data, root)
