#!/usr/bin/env python3
"""nhood-plot: draw nhood-bench and nhood-sim JSON-lines results as PNG figures.

usage: nhood_plot.py [--out DIR] [--title-prefix TEXT] [--summary] FILE [FILE ...]

Every input line is one JSON object, as written by `nhood-bench --json` (latency key
lat_us_median) or `nhood-sim --json` (latency key pred_us). For every group of rows with the
same source kind, rank count, topology, collective and mode (plus MPI library, or model and
theta for the simulator) that has at least two message sizes, one PNG with two panels is
written:

  left   latency in microseconds (median; the LogGP prediction for nhood-sim) against the
         bytes per block, log-log, one line per algorithm; 'mpi' and 'direct' are the
         baselines and are drawn dashed in greys;
  right  improvement, baseline latency / algorithm latency, against the bytes per block:
         against 'mpi' (nhood-bench only, solid lines) and against 'direct' (dotted lines);
         the horizontal line at 1.0 marks parity.

Rows with coll 'create' or 'sched_build', rows with an 'error', a null latency or a failed
validation, and sizes of 0 bytes (no place on a log axis) are left out. Points of the
algorithm 'auto' are drawn with the marker of the algorithm it resolved to, and labelled with
its name where that changes; an algorithm that ran as its fallback (algo_resolved) names it in
the legend. Colours and markers belong to algorithm names and are the same in every figure
of a run: the library's algorithms keep fixed ones, any other name (a new algorithm) gets the
next free one of a palette in the order the names first appear in the input. Each written
path is printed; --summary also prints a table of latencies (size x algorithm) for every
group.

Exit status: 0 on success; 2 for a usage or input error (no input files, an unreadable
file, a line that is not a JSON object, no plottable rows); 3 when matplotlib is missing.
"""

import argparse
import json
import math
import os
import re
import statistics
import sys

PROG = "nhood-plot"

EXIT_INPUT = 2
EXIT_NO_MATPLOTLIB = 3

# Rows with these collectives time set-up, not a collective call.
IGNORED_COLLS = {"create", "sched_build"}
BASELINES = ("mpi", "direct")

# Fixed styles for the algorithms nhood had when this was written (src/selection/select.c),
# so that their figures keep their look; a name not here (an algorithm added since) gets the
# next free colour and marker of PALETTE_COLOURS and PALETTE_MARKERS in the order names first
# appear in the input (note_algo), so that adding an algorithm needs no change here.
STYLES = {
    "mpi": {"color": "#3a3a3a", "marker": "s", "linestyle": (0, (6, 3))},
    "direct": {"color": "#9a9a9a", "marker": "D", "linestyle": (0, (3, 2))},
    "combine": {"color": "#d62728", "marker": "o", "linestyle": "-"},
    "cart-direct": {"color": "#2ca02c", "marker": "v", "linestyle": "-"},
    "cart-dim": {"color": "#9467bd", "marker": "^", "linestyle": "-"},
    "cart-dim-batch": {"color": "#1f77b4", "marker": ">", "linestyle": "-"},
    "cart-bruck": {"color": "#ff7f0e", "marker": "<", "linestyle": "-"},
    "cart-2hop": {"color": "#17becf", "marker": "P", "linestyle": "-"},
    "auto": {"color": "#8c564b", "marker": "*", "linestyle": "-"},
}
PALETTE_COLOURS = [c for c in ["#e377c2", "#bcbd22", "#7f3c8d", "#11a579", "#f2b701", "#e73f74",
                               "#3969ac", "#80ba5a", "#008695", "#a05195"]
                   if c not in {st["color"] for st in STYLES.values()}]
PALETTE_MARKERS = [m for m in ["X", "h", "p", "d", "8", "H"]
                   if m not in {st["marker"] for st in STYLES.values()}]
# The baselines first, then the others in the registry's order; names not here come after
# them in the order they first appear in the input, and auto last.
ORDER = [name for name in STYLES if name != "auto"]

# Names not in STYLES, in the order they first appeared (note_algo), and their styles.
APPEARED = {}


class InputError(Exception):
    """A problem with the command line or the input: reported, exit status 2."""


def note_algo(algo):
    """Records an algorithm name as the input gives it, for its style and place in the order."""
    if algo and algo not in STYLES and algo not in APPEARED:
        k = len(APPEARED)
        APPEARED[algo] = {"color": PALETTE_COLOURS[k % len(PALETTE_COLOURS)],
                          "marker": PALETTE_MARKERS[k % len(PALETTE_MARKERS)],
                          "linestyle": "-"}


def style_of(algo):
    if algo in STYLES:
        return STYLES[algo]
    note_algo(algo)
    return APPEARED[algo]


def algo_sort_key(algo):
    if algo == "auto":
        return (2, 0, algo)
    if algo in ORDER:
        return (0, ORDER.index(algo), algo)
    note_algo(algo)
    return (1, list(APPEARED).index(algo), algo)


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

class Group:
    """The rows of one figure: latencies by algorithm and size."""

    def __init__(self, key, kind, ranks, topo, coll, mode, context):
        self.key = key
        self.kind = kind          # "bench" or "sim"
        self.ranks = ranks
        self.topo = topo
        self.coll = coll
        self.mode = mode          # None for nhood-sim
        self.context = context    # bench: MPI library; sim: (model, theta)
        # algo -> bytes -> list of (latency, resolved algorithm or None, msgs, rounds)
        self.points = {}
        # nhood-sim --seeds: algo -> bytes -> (10th, 90th percentile) of the prediction
        self.bands = {}

    def add(self, algo, nbytes, latency, resolved, msgs, rounds, band=None):
        self.points.setdefault(algo, {}).setdefault(nbytes, []).append(
            (latency, resolved, msgs, rounds))
        if band is not None:
            self.bands.setdefault(algo, {})[nbytes] = band

    def band(self, algo):
        """[(bytes, p10, p90)] where every size of algo has a band, else []."""
        per_size = self.bands.get(algo, {})
        sizes = sorted(self.points.get(algo, {}))
        if not sizes or any(b not in per_size for b in sizes):
            return []
        return [(b,) + per_size[b] for b in sizes]

    def sizes(self):
        return sorted({b for per_size in self.points.values() for b in per_size})

    def algos(self):
        return sorted(self.points, key=algo_sort_key)

    def series(self, algo):
        """[(bytes, latency, resolved)] sorted by size; duplicates: the median latency."""
        out = []
        for nbytes in sorted(self.points.get(algo, {})):
            entries = self.points[algo][nbytes]
            latency = statistics.median(e[0] for e in entries)
            resolved = sorted({e[1] for e in entries if e[1]})
            out.append((nbytes, latency, "/".join(resolved) if resolved else None))
        return out

    def counts(self, algo):
        """(msgs, rounds) when they are the same at every size, else None."""
        seen = {(e[2], e[3]) for per_size in self.points.get(algo, {}).values() for e in per_size}
        if len(seen) == 1:
            msgs, rounds = next(iter(seen))
            if msgs is not None and rounds is not None:
                return msgs, rounds
        return None

    def title(self):
        parts = [self.topo, self.coll]
        if self.mode:
            parts.append(self.mode)
        parts.append(f"{self.ranks} ranks")
        if self.kind == "sim":
            model, theta = self.context
            text = f"simulated, {model}" if model else "simulated"
            if theta is not None:
                text += f", theta {theta}"
            parts.append(text)
        elif self.context:
            parts.append(self.context)
        return "  ·  ".join(parts)

    def base_name(self):
        topo = self.topo
        if topo.startswith("mtx:"):
            topo = "mtx:" + os.path.basename(topo[4:])
            if topo.endswith(".mtx"):
                topo = topo[:-4]
        parts = [self.kind, self.coll]
        if self.mode:
            parts.append(self.mode)
        parts += [topo, f"p{self.ranks}"]
        name = "_".join(parts).replace("=", "")
        name = re.sub(r"[^A-Za-z0-9.-]+", "_", name).strip("._")
        return name[:150] or "plot"


def die(message):
    raise InputError(message)


def number(row, key, where, allow_null=False):
    value = row.get(key)
    if value is None and allow_null:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        die(f"{where}: field '{key}' must be a number, not {json.dumps(value)}")
    return value


def text(row, key, where):
    value = row.get(key)
    if not isinstance(value, str):
        die(f"{where}: field '{key}' must be a string, not {json.dumps(value)}")
    return value


def optional_count(row, key):
    value = row.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class Stats:
    def __init__(self):
        self.rows = 0
        self.used = 0
        self.setup = 0
        self.failed = 0
        self.zero_bytes = 0
        self.other = 0


def read_rows(paths, stats):
    groups = {}
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            die(f"cannot read {path}: {e.strerror or e}")
        for lineno, raw in enumerate(data.splitlines(), 1):
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                die(f"{where}: not UTF-8 text")
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                die(f"{where}: not JSON: {e.msg} (column {e.colno})")
            if not isinstance(row, dict):
                die(f"{where}: not a JSON object")
            stats.rows += 1
            add_row(groups, row, where, stats)
    return groups


def add_row(groups, row, where, stats):
    if "lat_us_median" in row:
        kind, latency_key = "bench", "lat_us_median"
    elif "pred_us" in row:
        kind, latency_key = "sim", "pred_us"
    else:
        stats.other += 1          # neither tool's row: nothing to plot
        return
    coll = text(row, "coll", where)
    if coll in IGNORED_COLLS:
        stats.setup += 1
        return
    topo = text(row, "topo", where)
    algo = text(row, "algo", where)
    ranks = int(number(row, "ranks", where))
    nbytes = int(number(row, "bytes", where))
    latency = number(row, latency_key, where, allow_null=True)
    if (row.get("error") is not None or latency is None or latency <= 0
            or row.get("validated") is False or row.get("verified") is False):
        stats.failed += 1
        return
    if nbytes <= 0:
        stats.zero_bytes += 1
        return
    if kind == "bench":
        mode = text(row, "mode", where)
        context = row.get("mpi_library") if isinstance(row.get("mpi_library"), str) else None
    else:
        mode = None
        model = row.get("model") if isinstance(row.get("model"), str) else None
        theta = optional_count(row, "theta")
        context = (model, theta)
    resolved = row.get("algo_resolved") if isinstance(row.get("algo_resolved"), str) else None
    note_algo(algo)
    note_algo(resolved)
    key = (kind, ranks, topo, coll, mode or "", repr(context))
    group = groups.get(key)
    if group is None:
        group = groups[key] = Group(key, kind, ranks, topo, coll, mode, context)
    band = None
    if kind == "sim" and isinstance(row.get("pred_p10_us"), (int, float)) and \
            isinstance(row.get("pred_p90_us"), (int, float)):
        band = (float(row["pred_p10_us"]), float(row["pred_p90_us"]))
    group.add(algo, nbytes, float(latency), resolved,
              optional_count(row, "msgs_sent_max"), optional_count(row, "rounds_max"), band)
    stats.used += 1


def sorted_groups(groups):
    return [groups[k] for k in sorted(groups, key=lambda k: (k[0], k[2], k[3], k[4], k[1], k[5]))]


# --------------------------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------------------------

def format_bytes(n):
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def format_us(value):
    if value >= 1000:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def summary(group, prefix):
    algos = group.algos()
    cells = {}
    for algo in algos:
        for nbytes, latency, resolved in group.series(algo):
            cell = format_us(latency)
            if algo == "auto" and resolved and resolved != "auto":
                cell += f" ({resolved})"
            cells[(nbytes, algo)] = cell
    unit = "predicted us" if group.kind == "sim" else "median us"
    header = ["bytes"] + algos
    rows = [[str(b)] + [cells.get((b, a), "-") for a in algos] for b in group.sizes()]
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    title = group.title()
    lines = [f"# {prefix + ': ' if prefix else ''}{title}  ({unit})"]
    for r in [header] + rows:
        lines.append("  ".join(c.rjust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Plotting
# --------------------------------------------------------------------------------------------

def load_matplotlib():
    try:
        import matplotlib
    except ImportError:
        print(f"{PROG}: matplotlib is not installed for {sys.executable}; run this tool "
              "with a Python that has it (e.g. /usr/bin/python3 with python3-matplotlib)",
              file=sys.stderr)
        sys.exit(EXIT_NO_MATPLOTLIB)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker
    return plt, ticker


def size_axis(ax, sizes, ticker):
    ax.set_xscale("log", base=2)
    shown = sizes
    if len(shown) > 10:
        step = math.ceil(len(shown) / 10)
        shown = shown[::step]
    ax.xaxis.set_major_locator(ticker.FixedLocator(shown))
    ax.xaxis.set_major_formatter(ticker.FixedFormatter([format_bytes(s) for s in shown]))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    lo, hi = sizes[0], sizes[-1]
    ax.set_xlim(lo / 1.4, hi * 1.4)
    ax.set_xlabel("bytes per block")


def plain_number(value, _pos=None):
    if value >= 1:
        return f"{value:g}"
    return f"{value:.3g}"


def leading_digit(value):
    return int(round(value / 10 ** math.floor(math.log10(value) + 1e-9)))


def log_value_axis(ax, values, ticker):
    """Log y axis with plain numbers, labelled densely enough to read a narrow range."""
    ax.set_yscale("log")
    lo, hi = min(values), max(values)
    span = hi / lo
    if span < 2:
        # Within a factor of two, decade ticks would leave at most one label: evenly spaced
        # ones instead (the axis is still logarithmic, the ticks merely linear).
        ax.yaxis.set_major_locator(ticker.MaxNLocator(nbins=6))
        ax.yaxis.set_minor_locator(ticker.NullLocator())
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
        return
    labelled = (set(range(2, 10)) if span < 4 else {2, 3, 4, 5, 7} if span < 10
                else {2, 3, 5} if span < 30 else {2, 5})
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, numticks=30))
    ax.yaxis.set_minor_locator(ticker.LogLocator(base=10, subs=tuple(range(2, 10)), numticks=30))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(plain_number))
    ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
        lambda v, _pos: plain_number(v) if v > 0 and leading_digit(v) in labelled else ""))


def label_for(group, algo):
    label = algo
    counts = group.counts(algo)
    if counts is not None:
        msgs, rounds = counts
        plural = lambda n, word: f"{n} {word}" + ("" if n == 1 else "s")  # noqa: E731
        label += f"  [{plural(msgs, 'msg')}, {plural(rounds, 'round')}]"
    # What auto picked, or the fallback that ran where the algorithm does not apply.
    picked = []
    for _, _, resolved in group.series(algo):
        for r in (resolved or "").split("/"):
            if r and r != algo and r not in picked:
                picked.append(r)
    if picked:
        label += "  \u2192 " + ", ".join(picked)
    return label


def draw_series(ax, algo, xs, ys, resolved, label, style, linestyle=None, hollow=False,
                annotate=False):
    """One line; auto's points take the marker of the algorithm they resolved to."""
    ls = linestyle if linestyle is not None else style["linestyle"]
    # The dashed baselines go on top: where an algorithm's line lies on a baseline's, both
    # stay visible.
    baseline = algo in BASELINES
    lw = 1.6 if baseline else 2.0
    z = 3 if baseline else 2
    face = "white" if hollow else style["color"]
    if algo != "auto":
        ax.plot(xs, ys, color=style["color"], linestyle=ls, linewidth=lw, marker=style["marker"],
                markersize=6, markerfacecolor=face, markeredgecolor=style["color"], label=label,
                zorder=z)
        return
    markers = []
    for r in resolved:
        first = (r or "auto").split("/")[0]
        markers.append(style_of(first)["marker"] if first != "auto" else style["marker"])
    ax.plot(xs, ys, color=style["color"], linestyle=ls, linewidth=lw, zorder=z)
    # The legend shows the marker of the first resolved algorithm.
    ax.plot([], [], color=style["color"], linestyle=ls, linewidth=lw,
            marker=markers[0] if markers else style["marker"], markersize=7,
            markerfacecolor=face, markeredgecolor=style["color"], label=label)
    previous = None
    for x, y, r, marker in zip(xs, ys, resolved, markers):
        ax.plot([x], [y], linestyle="none", marker=marker, markersize=7, zorder=z,
                markerfacecolor=face, markeredgecolor=style["color"], color=style["color"])
        if annotate and r and r != previous:
            # Kept inside the axes at the first and last sizes.
            ha = "left" if x == xs[0] else "right" if x == xs[-1] else "center"
            ax.annotate("auto\u2192" + r, (x, y), textcoords="offset points",
                        xytext={"left": (-4, 9), "right": (4, 9)}.get(ha, (0, 9)), ha=ha,
                        fontsize=7, color=style["color"], zorder=4,
                        bbox={"boxstyle": "round,pad=0.15", "facecolor": "white",
                              "edgecolor": "none", "alpha": 0.75})
        previous = r


def plot_group(group, out_dir, file_name, prefix, plt, ticker):
    sizes = group.sizes()
    algos = group.algos()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13.5, 5.4))

    # Left: latency against size, log-log.
    for algo in algos:
        data = group.series(algo)
        xs = [d[0] for d in data]
        ys = [d[1] for d in data]
        draw_series(left, algo, xs, ys, [d[2] for d in data], label_for(group, algo),
                    style_of(algo), annotate=True)
        band = group.band(algo)
        if band:  # the noise's 10th-90th percentile around the median
            left.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band],
                              color=style_of(algo)["color"], alpha=0.15, linewidth=0, zorder=1)
    size_axis(left, sizes, ticker)
    log_value_axis(left, [d[1] for a in algos for d in group.series(a)], ticker)
    banded = any(group.band(a) for a in algos)
    left.set_ylabel(("predicted latency (\u00b5s; shaded: noise, 10-90%)"
                     if banded else "predicted latency (\u00b5s, LogGP)") if group.kind == "sim"
                    else "latency (\u00b5s, median)")
    left.set_title("latency", fontsize=11)
    left.grid(True, which="major", alpha=0.35)
    left.grid(True, which="minor", axis="y", alpha=0.12)
    left.legend(fontsize=8, loc="best", framealpha=0.85)

    # Right: improvement over the baselines.
    baselines = [b for b in (["mpi", "direct"] if group.kind == "bench" else ["direct"])
                 if b in group.points]
    ratios_seen = []
    compared = []             # baselines that got at least one line
    for base in baselines:
        base_lat = {d[0]: d[1] for d in group.series(base)}
        dotted = base == "direct" and len(baselines) > 1
        for algo in algos:
            # Against mpi: every other algorithm, direct included; against direct: nhood's
            # other algorithms.
            if algo == "mpi" or algo == base or (base == "direct" and algo in BASELINES):
                continue
            data = [d for d in group.series(algo) if d[0] in base_lat]
            if not data:
                continue
            xs = [d[0] for d in data]
            ys = [base_lat[d[0]] / d[1] for d in data]
            ratios_seen += ys
            label = f"{algo} vs {base}"
            draw_series(right, algo, xs, ys, [d[2] for d in data], label, style_of(algo),
                        linestyle=(0, (1, 1.5)) if dotted else
                        ("-" if algo not in BASELINES else style_of(algo)["linestyle"]),
                        hollow=dotted)
            if base not in compared:
                compared.append(base)
    right.axhline(1.0, color="black", linewidth=0.9, zorder=0)
    size_axis(right, sizes, ticker)
    if ratios_seen and max(ratios_seen) / min(ratios_seen) > 10:
        log_value_axis(right, ratios_seen + [1.0], ticker)
    else:
        top = max(ratios_seen + [1.0])
        bottom = min(ratios_seen + [1.0])
        pad = 0.08 * (top - bottom or 1.0)
        right.set_ylim(max(0.0, bottom - pad), top + pad)
    right.set_ylabel("improvement (baseline latency / algorithm latency)")
    if len(compared) > 1:
        right.set_title("improvement over mpi (solid) and direct (dotted); above 1 is faster",
                        fontsize=11)
    elif compared:
        right.set_title(f"improvement over {compared[0]}; above 1 is faster", fontsize=11)
    else:
        right.set_title("improvement: no baseline (mpi or direct) and other algorithm",
                        fontsize=11)
    right.grid(True, which="major", alpha=0.35)
    if compared:
        right.legend(fontsize=8, loc="best", framealpha=0.85)

    title = group.title()
    if prefix:
        title = f"{prefix}: {title}"
    fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    path = os.path.join(out_dir, file_name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="nhood_plot.py",
        description="Draw nhood-bench and nhood-sim --json results as PNG figures.",
        epilog="Exit status: 0 on success, 2 for a usage or input error, 3 without matplotlib.")
    parser.add_argument("--out", default=".", metavar="DIR",
                        help="directory for the PNG files (created if missing; default .)")
    parser.add_argument("--title-prefix", default="", metavar="TEXT",
                        help="text put in front of every figure's title")
    parser.add_argument("--summary", action="store_true",
                        help="also print a table of latencies (size x algorithm) per group")
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="JSON-lines files from nhood-bench --json or nhood-sim --json")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if not args.files:
            die("no input files (give one or more JSON-lines files from nhood-bench --json "
                "or nhood-sim --json)")
        stats = Stats()
        groups = sorted_groups(read_rows(args.files, stats))
        plottable = [g for g in groups if len(g.sizes()) >= 2]
        if not groups:
            die(f"no plottable rows in {', '.join(args.files)}: {stats.rows} rows read, "
                f"{stats.setup} create/sched_build, {stats.failed} failed or without latency, "
                f"{stats.zero_bytes} of 0 bytes, {stats.other} not from nhood-bench or nhood-sim")
        if not plottable and not args.summary:
            die("no plottable rows: no group (kind, ranks, topo, coll, mode) has at least two "
                "message sizes")
        if plottable:
            plt, ticker = load_matplotlib()
            try:
                os.makedirs(args.out, exist_ok=True)
            except OSError as e:
                die(f"cannot create --out {args.out}: {e.strerror or e}")
    except InputError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return EXIT_INPUT

    if stats.failed:
        print(f"{PROG}: left out {stats.failed} row(s) with an error, no latency or a failed "
              "validation", file=sys.stderr)

    if plottable:
        used_names = set()
        for group in plottable:
            base = group.base_name()
            name, k = base, 2
            while name in used_names:
                name, k = f"{base}_{k}", k + 1
            used_names.add(name)
            try:
                path = plot_group(group, args.out, name + ".png", args.title_prefix, plt, ticker)
            except OSError as e:
                print(f"{PROG}: cannot write {os.path.join(args.out, name + '.png')}: "
                      f"{e.strerror or e}", file=sys.stderr)
                return EXIT_INPUT
            print(path, flush=True)

    if args.summary:
        for group in groups:
            print()
            print(summary(group, args.title_prefix))
    if not plottable:
        # Only with --summary, which printed the tables: they are what was asked for.
        print(f"{PROG}: nothing plotted: no group has at least two message sizes",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # Output piped into head and the like: stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
