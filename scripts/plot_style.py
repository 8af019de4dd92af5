"""One look for every plot gpurf's scripts draw (scripts/plot, scripts/papers): readable fonts, a colour-blind-safe palette (Okabe & Ito) that separates 16+
series by adding hatching (bars) or markers (lines), axis labels with units for the summary
fields (docs/results.md), no offset notation, and PNG/PDF/SVG chosen by the file's extension."""
import os
import sys

# Okabe & Ito's eight colours, distinguishable under the common colour-vision deficiencies.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo", "---", "+++"]
MARKERS = ["o", "s", "D", "^", "v", "<", ">", "P", "X", "*"]
FORMATS = (".png", ".pdf", ".svg")

# Summary fields (docs/results.md): what the axis says, with the unit.
FIELDS = {
    "ipc": "IPC (warp instructions / cycle)",
    "cycles": "cycles",
    "warp_instructions": "warp instructions",
    "rf_bank_reads": "register bank reads (warp registers)",
    "rf_bank_writes": "register bank writes (warp registers)",
    "rf_bank_accesses": "register bank accesses (arbiter grants)",
    "rf_slice_activations": "bank slice activations",
    "oc_writes": "operand collector writes",
    "coalesced_accesses": "coalesced bank accesses",
    "operands_checked": "operands checked",
    "l1_hits": "L1 hits", "l1_misses": "L1 misses", "l2_hits": "L2 hits", "l2_misses": "L2 misses",
    "resident_warps": "resident warps per SM", "resident_ctas": "resident CTAs per SM",
    "rf_dynamic_energy_pj": "RF dynamic energy (pJ)",
    "rf_leakage_energy_pj": "RF leakage energy (pJ)",
    "sm_energy_pj": "SM energy (pJ)",
    "mrf_accesses": "MRF accesses (warp registers)",
    "host_seconds": "host time (s)",
    "cpu_seconds": "host CPU time (s)",
    "warp_instructions_per_second": "simulated warp instructions / host second",
    # The RFC's "reads" are the operands it served: its hits (docs/results.md).
    "rfc.reads": "RFC hits (operands read from the RFC)",
    "rfc.misses": "RFC misses (operands read from the MRF)",
    "l1_hit_ratio": "L1 hit ratio", "l2_hit_ratio": "L2 hit ratio",
    "rfc.hit_ratio": "RFC hit ratio", "ccu.hit_ratio": "CCU hit ratio (Malekeh)",
    "verify_cache.hit_ratio": "verify-cache hit ratio (WIR)",
}


def use_system_python():
    """Re-runs this script under Debian's /usr/bin/python3 when the python3 first on PATH
    (a virtualenv, pyenv) lacks matplotlib; nothing happens when neither has it."""
    import importlib.util
    sysp = "/usr/bin/python3"
    if (importlib.util.find_spec("matplotlib") is None and os.path.exists(sysp)
            and not os.environ.get("GPURF_PLOT_REEXEC")
            and os.path.realpath(sys.executable) != os.path.realpath(sysp)):
        os.environ["GPURF_PLOT_REEXEC"] = "1"
        os.execv(sysp, [sysp, os.path.abspath(sys.argv[0])] + sys.argv[1:])


class BadOutput(Exception):
    pass


def label(stat):
    """An axis label for a summary field or dot path (bank_conflicts.read_read)."""
    if stat in FIELDS:
        return FIELDS[stat]
    head, _, last = stat.rpartition(".")
    if head == "bank_conflicts":
        return f"bank conflicts: {last.replace('_', '-')} (cycles)"
    if head.endswith("breakdown"):
        return f"energy of {last.replace('_', ' ')} (pJ)"
    return stat


def check_output(path):
    """Raises BadOutput unless `path` ends in a format matplotlib writes here."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise BadOutput(f"-o {path}: unknown format '{ext or '(none)'}'; give a file ending in "
                        + ", ".join(FORMATS))


def size(text):
    """'WxH' in inches as (w, h); None for None."""
    if text is None:
        return None
    w, x, h = text.lower().partition("x")
    try:
        wh = (float(w), float(h))
    except ValueError:
        wh = None
    if not x or not wh or min(wh) <= 0 or max(wh) > 100:
        raise BadOutput(f"--size {text}: expected WIDTHxHEIGHT in inches, e.g. 8x4.5")
    return wh


def setup(plt):
    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10,
                         "xtick.labelsize": 9, "ytick.labelsize": 9, "legend.fontsize": 9,
                         "axes.formatter.useoffset": False, "axes.prop_cycle": plt.cycler(color=PALETTE),
                         "savefig.bbox": "tight", "savefig.dpi": 150})


def bar_style(i):
    """Colour and hatching of bar series i: eight colours, then the same with hatching."""
    return {"facecolor": PALETTE[i % len(PALETTE)], "hatch": HATCHES[(i // len(PALETTE)) % len(HATCHES)],
            "edgecolor": "white" if i < len(PALETTE) else "#333333", "linewidth": 0.4}


def line_style(i):
    """Colour and marker of line series i: no two of the first 80 alike."""
    return {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[(i // len(PALETTE)) % len(MARKERS)]}


def plain_numbers(ax, axis="y"):
    """Tick labels as numbers with SI prefixes (1.5M, 200k), never '1e7' above the axis."""
    from matplotlib.ticker import EngFormatter
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(EngFormatter(sep=""))


def save(fig, out):
    check_output(out)
    d = os.path.dirname(os.path.abspath(out))
    os.makedirs(d, exist_ok=True)
    fig.savefig(out)
