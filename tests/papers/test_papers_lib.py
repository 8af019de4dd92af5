"""The pure parts of scripts/papers (scripts/papers_lib.py): the verdict rule, aggregates,
statistic expressions and the registry's validation. Run by ctest (papers.lib):
python3 -m unittest discover -s tests/papers."""
import math
import os
import sys
import tempfile
import textwrap
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import papers_lib as L  # noqa: E402


def run(result=None, stats=None):
    return {"result": result or {}, "stats": stats or {}}


STATS = {
    "sm.sub0.collector0": {"ccu_hits": {"value": 30}, "width": {"values": [1, 2, 3, 4], "labels": ["1B", "2B", "3B", "4B"]}},
    "sm.sub0.collector1": {"ccu_hits": {"value": 10}, "width": {"values": [10, 0, 0, 6], "labels": ["1B", "2B", "3B", "4B"]}},
    "sm.sub0.writeback": {"ratio": {"values": [5, 7], "labels": ["non_divergent", "divergent"]}},
    "sm": {"cycles": {"value": 100}},
}


class Verdict(unittest.TestCase):
    def test_change_within_40_percent_of_the_magnitude(self):
        self.assertEqual(L.verdict("change", -31.8, -11.7), "missed")  # the example
        self.assertEqual(L.verdict("change", -46.4, -44.1), "reproduced")
        self.assertEqual(L.verdict("change", -10, -6.0), "reproduced")   # 0.6 |P|: the edge
        self.assertEqual(L.verdict("change", -10, -5.99), "missed")
        self.assertEqual(L.verdict("change", -10, -14.0), "reproduced")  # 1.4 |P|
        self.assertEqual(L.verdict("change", -10, -14.01), "missed")

    def test_the_direction_must_match(self):
        self.assertEqual(L.verdict("change", 6.1, -6.1), "missed")
        self.assertEqual(L.verdict("change", -2.1, 0.2), "missed")
        self.assertEqual(L.verdict("change", 4, 0.0), "missed")

    def test_ratio_is_compared_as_a_change(self):
        # 0.83 vs 0.65: -17% vs -35%, a miss although 0.83 / 0.65 = 1.28.
        self.assertEqual(L.verdict("ratio", 0.65, 0.83), "missed")
        self.assertEqual(L.verdict("ratio", 0.50, 0.498), "reproduced")
        self.assertAlmostEqual(L.paper_ratio("ratio", 0.65, 0.83), 17 / 35)

    def test_percent_and_value_compare_the_numbers(self):
        self.assertEqual(L.verdict("percent", 7.9, 20.3), "missed")
        self.assertEqual(L.verdict("percent", 46.4, 44.1), "reproduced")
        self.assertEqual(L.verdict("value", 2.5, 2.33), "reproduced")
        self.assertEqual(L.verdict("value", 1.3, 1.93), "missed")

    def test_about(self):
        self.assertEqual(L.verdict("ratio", "~1", 0.996), "reproduced")
        self.assertEqual(L.verdict("ratio", "~1", 0.961), "missed")     # Gebhart's combined IPC
        self.assertEqual(L.verdict("ratio", "~1", 1.019), "reproduced")  # 2 points
        self.assertEqual(L.verdict("ratio", "~0.99", 0.998), "reproduced")
        self.assertEqual(L.verdict("change", "~10", 13.9), "reproduced")  # 40% of 10 > 2
        self.assertEqual(L.verdict("value", "~2", 2.9), "missed")         # no 2 points for values

    def test_bounds(self):
        self.assertEqual(L.verdict("ratio", "<= 1.14", 1.709), "missed")  # W-C decompression at 8
        self.assertEqual(L.verdict("ratio", "<= 1.14", 1.19), "reproduced")  # 19% <= 14% x 1.4
        self.assertEqual(L.verdict("ratio", "<= 1.14", 1.20), "missed")
        self.assertEqual(L.verdict("percent", "> 50", 28.1), "missed")
        self.assertEqual(L.verdict("percent", "> 50", 30.0), "reproduced")
        self.assertEqual(L.verdict("percent", "< 2", 1.26), "reproduced")
        self.assertEqual(L.verdict("change", "> 0", -3.5), "missed")      # "above 1": no slack at 0
        self.assertEqual(L.verdict("change", "> 0", 0.1), "reproduced")

    def test_no_value(self):
        self.assertEqual(L.verdict("change", -10, math.nan), "no value")
        self.assertIsNone(L.paper_ratio("ratio", "<= 1.14", 1.1))

    def test_paper_values(self):
        self.assertEqual(L.parse_paper("<= 1.14"), ("<=", 1.14))
        self.assertEqual(L.parse_paper("> 50"), (">=", 50.0))
        self.assertEqual(L.parse_paper("~-1.5"), ("~", -1.5))
        for bad in ("about 1", "1.14x", True, "=> 3"):
            with self.assertRaises(ValueError):
                L.parse_paper(bad)

    def test_shown(self):
        self.assertAlmostEqual(L.shown("change", 0.682), -31.8)
        self.assertAlmostEqual(L.shown("percent", 0.464), 46.4)
        self.assertEqual(L.shown("ratio", 0.5), 0.5)


class Aggregates(unittest.TestCase):
    def setUp(self):
        self.d = {"a": run({"ipc": 2.0, "cycles": 10}), "b": run({"ipc": 1.0, "cycles": 30})}
        self.b = {"a": run({"ipc": 1.0, "cycles": 20}), "b": run({"ipc": 1.0, "cycles": 10})}

    def m(self, stat, agg, where=None):
        return {"stat": L.Expr(stat), "aggregate": agg, "kernels_where": L.Expr(where) if where else None}

    def test_mean_geomean_ratio_of_sums(self):
        # per-kernel cycles ratios 0.5 and 3
        self.assertAlmostEqual(L.measure(self.m("cycles", "mean"), self.d, self.b, ["a", "b"])[0], 1.75)
        self.assertAlmostEqual(L.measure(self.m("cycles", "geomean"), self.d, self.b, ["a", "b"])[0], math.sqrt(1.5))
        self.assertAlmostEqual(L.measure(self.m("cycles", "ratio_of_sums"), self.d, self.b, ["a", "b"])[0], 40 / 30)

    def test_ratio_of_sums_sums_each_statistic_first(self):
        v, ks = L.measure(self.m("cycles / ipc", "ratio_of_sums"), self.d, None, ["a", "b"])
        self.assertAlmostEqual(v, 40 / 3)
        self.assertEqual(ks, ["a", "b"])

    def test_without_a_baseline(self):
        self.assertAlmostEqual(L.measure(self.m("ipc", "mean"), self.d, None, ["a", "b"])[0], 1.5)

    def test_kernels_where_filters_on_the_design(self):
        v, ks = L.measure(self.m("cycles", "mean", "ipc - 1"), self.d, self.b, ["a", "b"])
        self.assertEqual(ks, ["a"])
        self.assertAlmostEqual(v, 0.5)

    def test_a_zero_denominator_drops_the_kernel(self):
        self.b["b"]["result"]["cycles"] = 0
        v, ks = L.measure(self.m("cycles", "mean"), self.d, self.b, ["a", "b"])
        self.assertEqual((v, ks), (0.5, ["a"]))

    def test_kernels_missing_from_a_run_are_left_out(self):
        v, ks = L.measure(self.m("cycles", "mean"), self.d, {"a": self.b["a"]}, ["a", "b"])
        self.assertEqual((v, ks), (0.5, ["a"]))

    def test_geomean_of_a_non_positive_value_is_nan(self):
        self.assertTrue(math.isnan(L.aggregate("geomean", [1.0, -1.0])))
        self.assertTrue(math.isnan(L.aggregate("mean", [])))


class Expressions(unittest.TestCase):
    def test_result_paths_and_breakdown(self):
        r = run({"energy": {"breakdown": {"rf_wire": 5.0}}, "bank_conflicts": {"a": 1, "b": 2}})
        self.assertEqual(L.Expr("energy.breakdown.rf_wire * 2").eval(lambda f, p: L.resolve(r, f, p)), 10)
        self.assertEqual(L.resolve(r, None, ("energy", "breakdown", "compressor")), 0)  # absent unit
        self.assertEqual(L.resolve(r, None, ("bank_conflicts",)), 3)
        with self.assertRaises(KeyError):
            L.resolve(r, None, ("energy", "total_energy_pj"))

    def test_unit_statistics_sum_over_instances(self):
        r = run({}, STATS)
        ev = lambda t: L.Expr(t).eval(lambda f, p: L.resolve(r, f, p))  # noqa: E731
        self.assertEqual(ev("collector.ccu_hits"), 40)
        self.assertEqual(ev('collector.width["4B"]'), 10)
        self.assertEqual(ev("collector.width[0]"), 11)
        self.assertEqual(ev("collector.width"), 26)
        self.assertEqual(ev("writeback.ratio.divergent"), 7)
        self.assertEqual(ev("max(collector.ccu_hits)"), 30)
        self.assertEqual(ev("count(collector.width)"), 8)
        self.assertEqual(ev("rfc.hits"), 0)  # a unit the platform lacks
        self.assertTrue(math.isnan(ev("collector.ccu_hits / rfc.hits")))
        with self.assertRaises(KeyError):
            ev('collector.width["5B"]')

    def test_rejected(self):
        for bad, needle in (("ipc +", "not an expression"), ("__import__('os')", "a call must be"),
                            ("ipc ** 2", "not allowed"), ("foo.bar", "unknown statistic 'foo.bar'"),
                            ("collector", "names a unit kind"), ("ipc if 1 else 2", "not allowed")):
            with self.assertRaises(ValueError) as c:
                L.Expr(bad)
            self.assertIn(needle, str(c.exception))

    def test_formula_names(self):
        self.assertEqual(L.Expr("(v - 1) / (p - 1)", {"v", "p"}).eval(lambda f, p: {"v": 1.5, "p": 2}[p[0]]), 0.5)
        with self.assertRaises(ValueError):
            L.Expr("v + ipc", {"v"})


HEADLINE = """\
    - id: h
      where: "Sec. 1"
      claim: "c"
      paper: -10
      kind: change
      design: fermi
      stat: ipc
      aggregate: mean
"""


class Registry(unittest.TestCase):
    def load(self, text, name="cmrc"):
        d = tempfile.mkdtemp()
        p = os.path.join(d, name + ".yaml")
        with open(p, "w") as f:
            f.write(textwrap.dedent(text))
        return L.load(p, ROOT)

    def bad(self, text, *needles, name="cmrc"):
        with self.assertRaises(L.RegistryError) as c:
            self.load(text, name)
        msg = str(c.exception)
        self.assertIn(f"{name}.yaml", msg)
        for n in needles:
            self.assertIn(n, msg)

    def test_the_five_registries_are_valid(self):
        for p in L.PAPERS:
            r = L.load(os.path.join(ROOT, "papers", p + ".yaml"), ROOT)
            self.assertGreaterEqual(len(r.headlines), 10, p)
            for d, b in r.measures():
                self.assertTrue(os.path.isfile(os.path.join(ROOT, "configs", d.platform + ".yaml")))

    def test_a_valid_file(self):
        r = self.load("paper: cmrc\nbaseline: fermi\nheadlines:\n" + HEADLINE)
        h = r.headlines[0]
        self.assertEqual((h["design"].platform, h["baseline"].platform, h["aggregate"]), ("fermi", "fermi", "mean"))

    def test_unknown_keys_and_values(self):
        base = "paper: cmrc\nbaseline: fermi\nheadlines:\n"
        self.bad(base + HEADLINE.replace("aggregate: mean", "aggregate: avg"),
                 "headlines[0] (id h)", "aggregate", "'avg'", "mean, geomean, ratio_of_sums")
        self.bad(base + HEADLINE.replace("kind: change", "kind: speedup"), "kind", "change, ratio, percent, value")
        self.bad(base + HEADLINE.replace("stat: ipc", "stat: ipcc"), "stat", "unknown statistic 'ipcc'")
        self.bad(base + HEADLINE + "      colour: red\n", "colour", "unknown key", "valid: id, where")
        self.bad(base + HEADLINE.replace("design: fermi", "design: fermii"), "design.platform", "'fermii'")
        self.bad(base + HEADLINE.replace("design: fermi", "design: {platform: fermi, q: 1}"), "design.q")
        self.bad(base + HEADLINE.replace("paper: -10", "paper: about 10"), "paper", "'about 10'")
        self.bad(base + HEADLINE + HEADLINE, "'h' is used twice")
        self.bad("paper: wc\nheadlines: []\n", "'wc' must be the file's name 'cmrc'")
        self.bad("paper: cmrc\nheadline: []\n", "the file: headline", "unknown key")
        self.bad("paper: x\n", "'x' is not one of cmrc", name="x")

    def test_a_change_needs_a_baseline(self):
        self.bad("paper: cmrc\nheadlines:\n" + HEADLINE, "kind 'change' needs a baseline")

    def test_values_and_formula(self):
        text = """\
        paper: cmrc
        baseline: fermi
        headlines:
          - id: f
            where: w
            claim: c
            paper: 0.5
            kind: ratio
            values:
              a: {design: cmrc-wid, stat: ipc, aggregate: mean}
            formula: "a - b"
        """
        self.bad(text, "formula", "'b' is not one of the values: a")
        self.bad(text.replace('formula: "a - b"', 'formula: "a"\n            stat: ipc'), "stat", "not with values:")

    def test_experiment_sweeps_expand_on_the_design_only(self):
        r = self.load("""\
        paper: cmrc
        baseline: fermi
        experiments:
          - id: w
            sweep: {arbiter.window: [0, 8], arbiter.x: [true]}
            quantities:
              - {design: cmrc-wid, stat: ipc, aggregate: mean}
        """)
        pairs = list(r.measures())
        self.assertEqual([d.p for d, _ in pairs], [(("arbiter.window", "0"), ("arbiter.x", "true")),
                                                   (("arbiter.window", "8"), ("arbiter.x", "true"))])
        self.assertTrue(all(b.p == () for _, b in pairs))
        self.assertEqual(r.experiments[0]["quantities"][0]["kind"], "ratio")

    def test_designs_with_the_same_overrides_are_equal(self):
        a = L.Design("wc", [("a.b", "1"), ("c.d", "2")])
        b = L.Design("wc", [("c.d", "2"), ("a.b", "1")])
        self.assertEqual(len({a, b, a.with_p({"a.b": "1"})}), 1)
        self.assertNotEqual(a, a.with_p({"a.b": "3"}))


if __name__ == "__main__":
    unittest.main()
