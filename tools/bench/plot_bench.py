#!/usr/bin/env python3
"""Draws the JSON that `clgemm-bench --json` writes as a roofline chart, PNG or SVG.

GFLOP/s per problem for each contender on a log axis: square sizes (M = N = K) as lines in the
left panel, the other shapes as points in the right one. Each clgemm kernel's roofline ceiling,
min(peak, bandwidth x its arithmetic intensity), is a dashed line in its colour, and the device
peak a grey line, when the bench was given --peak-gflops and --bandwidth-gbs (the JSON records
them). Needs matplotlib (Debian: python3-matplotlib; tools/bootstrap.sh installs it).

    python3 tools/bench/plot_bench.py results.json -o chart.png -o chart.svg

--peak-gflops and --bandwidth-gbs here replace the file's peaks, the ceilings recomputed from
each row's intensity (for files written before the bench recorded its peaks). --timing picks
the figure drawn: per-call (the default: the median of calls each enqueued and finished on its
own) or back-to-back (batches of calls with one finish, per call). Reads both the bench's JSON
object (its rows under "results") and the plain list of rows that earlier versions wrote.
"""
import argparse
import json
import math
import os
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
          "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]
MARKERS = ["o", "s", "^", "D", "v"]
FORMATS = (".png", ".svg")


class DataError(Exception):
    pass


def fail(message):
    print(f"plot_bench.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def positive(value):
    """A known figure (> 0) or None, as the bench writes unknown ones as null."""
    return value if isinstance(value, (int, float)) and value > 0 else None


def roofline(peak, bandwidth, intensity):
    """min(peak, bandwidth * intensity) with whichever of the two is known, as the bench does."""
    ceiling = bandwidth * intensity if bandwidth and intensity else None
    if peak:
        ceiling = min(ceiling, peak) if ceiling else peak
    return ceiling


TIMINGS = {"per-call": "gflops", "back-to-back": "back_to_back_gflops"}


def load_rows(path, timing="per-call"):
    try:
        with open(path, encoding="utf-8") as f:
            rows = json.load(f)
    except OSError as e:
        raise DataError(f"cannot read '{path}': {e.strerror}")
    except ValueError as e:
        raise DataError(f"'{path}' is not valid JSON: {e}")
    if isinstance(rows, dict):
        rows = rows.get("results")
    if not isinstance(rows, list) or not rows:
        raise DataError(f"'{path}' is not clgemm-bench --json output: expected a list of results")
    figure = TIMINGS[timing]
    for i, row in enumerate(rows):
        fields = ("contender", "m", "n", "k", figure)
        if not isinstance(row, dict) or any(name not in row for name in fields):
            raise DataError(f"'{path}': result {i + 1} lacks one of {', '.join(fields)}")
    # The chart reads "gflops": the chosen figure.
    return [dict(row, gflops=row[figure]) for row in rows]


def chart_data(rows, peak_override, bandwidth_override):
    """Problems and contenders in the order measured, each result's GFLOP/s and drawn ceiling."""
    problems, contenders, gflops, ceilings = [], [], {}, {}
    recompute = peak_override is not None or bandwidth_override is not None
    peak = peak_override if recompute else None
    bandwidth = bandwidth_override if recompute else None
    for row in rows:
        problem = (int(row["m"]), int(row["n"]), int(row["k"]))
        name = str(row["contender"])
        if problem not in problems:
            problems.append(problem)
        if name not in contenders:
            contenders.append(name)
        gflops[name, problem] = positive(row["gflops"])
        if recompute:
            row_bandwidth = bandwidth
            ceiling = roofline(peak, bandwidth, positive(row.get("intensity_flop_per_byte")))
        else:
            peak = peak or positive(row.get("peak_gflops"))
            bandwidth = bandwidth or positive(row.get("bandwidth_gbs"))
            # Files from before the bench recorded its peaks: their ceilings as they are.
            row_bandwidth = positive(row.get("bandwidth_gbs")) if "bandwidth_gbs" in row else True
            ceiling = positive(row.get("ceiling_gflops"))
        # Only a bandwidth makes a kernel's ceiling its own; the peak alone is the grey line.
        if ceiling and row_bandwidth and positive(row.get("intensity_flop_per_byte")):
            ceilings[name, problem] = ceiling
    return problems, contenders, gflops, ceilings, peak, bandwidth


def tick_label(value, _position=None):
    """1, 2, 5, 10, ..., 1k, 2k, 10k: compact labels."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def shape_label(problem):
    return "x".join(str(v) for v in problem)


def draw(rows, outputs, title, peak_override, bandwidth_override, timing="per-call"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

    plt.rcParams.update({"font.family": "DejaVu Sans", "font.size": 10,
                         "svg.fonttype": "none", "svg.hashsalt": "clgemm-bench"})
    problems, contenders, gflops, ceilings, peak, bandwidth = chart_data(
        rows, peak_override, bandwidth_override)
    squares = sorted((p for p in problems if p[0] == p[1] == p[2]), key=lambda p: p[0])
    others = [p for p in problems if p not in squares]

    panels = [kind for kind, members in (("squares", squares), ("others", others)) if members]
    ratios = [1.0]
    if len(panels) == 2:
        share = min(max(0.2 + 0.1 * len(others), 0.25), 0.45)
        ratios = [1 - share, share]
    fig, axes = plt.subplots(1, len(panels), sharey=True, figsize=(11.6, 5.9), squeeze=False,
                             gridspec_kw={"width_ratios": ratios})
    axes = dict(zip(panels, axes[0]))

    color = {name: COLORS[i % len(COLORS)] for i, name in enumerate(contenders)}
    marker = {name: MARKERS[i % len(MARKERS)] for i, name in enumerate(contenders)}
    dashes = (0, (7, 4))

    if "squares" in axes:
        ax = axes["squares"]
        for name in contenders:
            points = [(p[0], gflops.get((name, p))) for p in squares]
            points = [(n, v) for n, v in points if v]
            if points:
                ax.plot(*zip(*points), color=color[name], marker=marker[name], linewidth=2,
                        markersize=6, markeredgecolor="white", zorder=3)
            limits = [(p[0], ceilings[name, p]) for p in squares if (name, p) in ceilings]
            if limits:
                ax.plot(*zip(*limits), color=color[name], linestyle=dashes, linewidth=1.6,
                        alpha=0.85, zorder=2)
        sizes = [p[0] for p in squares]
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        # A tick per size, a label only where it does not crowd the previous one (1000, 1024).
        span = max(math.log2(max(sizes) / min(sizes)), 1.0)
        labels, last = [], None
        for n in sizes:
            crowded = last is not None and math.log2(n / last) / span < 0.06
            labels.append("" if crowded else str(n))
            last = last if crowded else n
        ax.set_xticklabels(labels)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(min(sizes) / 2 ** 0.3, max(sizes) * 2 ** 0.3)
        ax.set_xlabel("square size n (M = N = K), log2 scale")

    if "others" in axes:
        ax = axes["others"]
        spread = min(0.15, 0.8 / max(len(contenders), 1))
        for i, name in enumerate(contenders):
            offset = (i - (len(contenders) - 1) / 2) * spread
            points = [(j + offset, gflops.get((name, p))) for j, p in enumerate(others)]
            points = [(x, v) for x, v in points if v]
            if points:
                ax.plot(*zip(*points), color=color[name], marker=marker[name], linestyle="none",
                        markersize=7, markeredgecolor="white", zorder=3)
            for j, p in enumerate(others):
                if (name, p) in ceilings:
                    ax.hlines(ceilings[name, p], j + offset - spread / 2, j + offset + spread / 2,
                              color=color[name], linestyle=(0, (3, 2)), linewidth=2, zorder=2)
        for j in range(1, len(others)):
            ax.axvline(j - 0.5, color="#ddd", linewidth=1)
        ax.set_xticks(range(len(others)))
        long_labels = len(others) > 2 or any(len(shape_label(p)) > 12 for p in others)
        ax.set_xticklabels([shape_label(p) for p in others], rotation=30 if long_labels else 0,
                           ha="right" if long_labels else "center")
        ax.set_xlim(-0.5, len(others) - 0.5)
        ax.set_xlabel("other shapes (M x N x K)")

    values = [v for v in list(gflops.values()) + list(ceilings.values()) + [peak] if v]
    low, high = (min(values), max(values)) if values else (1, 10)
    # Whole decades, with room for markers and lines (the peak) at either end.
    low = 10 ** math.floor(math.log10(low / 1.25))
    high = 10 ** math.ceil(math.log10(high * 1.25))
    if high <= low:
        high = low * 10
    first = axes[panels[0]]
    first.set_yscale("log")
    first.set_ylim(low, high)
    decades = round(math.log10(high / low))
    first.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if decades > 3 else (1, 2, 5)))
    first.yaxis.set_major_formatter(FuncFormatter(tick_label))
    first.yaxis.set_minor_formatter(NullFormatter())
    first.set_ylabel("GFLOP/s (log scale)")
    for ax in axes.values():
        ax.grid(True, axis="y", which="major", color="#ccc", linewidth=0.8)
        ax.set_axisbelow(True)
        if peak:
            ax.axhline(peak, color="#888", linewidth=3, alpha=0.6, zorder=1)

    device = rows[0].get("device", "an unknown device")
    platform = rows[0].get("platform")
    fig.suptitle(title or f"SGEMM on {device}" + (f" ({platform})" if platform else ""),
                 fontsize=14, fontweight="bold")
    if peak or bandwidth:
        peaks = (f"ceilings from peak {f'{peak:g}' if peak else 'unknown'} GFLOP/s, "
                 f"bandwidth {f'{bandwidth:g}' if bandwidth else 'unknown'} GB/s")
    else:
        peaks = "no ceilings: give clgemm-bench --peak-gflops and --bandwidth-gbs"
    how = ("median of repeated calls" if timing == "per-call"
           else "back to back: batches of calls with one finish, per call")
    fig.text(0.5, 0.915, f"row-major, beta 0, {how}; " + peaks,
             ha="center", color="#444")

    handles = [Line2D([], [], color=color[n], marker=marker[n], linewidth=2,
                      markeredgecolor="white", label=n) for n in contenders]
    if ceilings:
        handles.append(Line2D([], [], color="#333", linestyle=dashes, linewidth=1.6,
                              label="ceiling (dashed, kernel's colour):\n"
                                    "min(peak, bandwidth x\narithmetic intensity)"))
    if peak:
        handles.append(Line2D([], [], color="#888", linewidth=3, alpha=0.6,
                              label=f"device peak, {tick_label(peak)} GFLOP/s"))
    axes[panels[-1]].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.03, 1.0),
                            frameon=False, handlelength=3, title="measured",
                            title_fontproperties={"weight": "bold"})
    fig.subplots_adjust(top=0.86, wspace=0.08)

    for path in outputs:
        svg = path.lower().endswith(".svg")
        fig.savefig(path, dpi=150, bbox_inches="tight", facecolor="white",
                    metadata={"Date": None} if svg else {"Software": None})
        print(f"plot_bench.py: wrote {path}")


def main():
    parser = argparse.ArgumentParser(
        prog="plot_bench.py",
        description="Draw clgemm-bench's JSON results as a roofline chart (PNG or SVG).")
    parser.add_argument("json", help="the file clgemm-bench --json wrote")
    parser.add_argument("-o", "--output", action="append", required=True,
                        help="chart to write, .png or .svg (repeatable)")
    parser.add_argument("--title", help="title (default: SGEMM on <device> (<platform>))")
    parser.add_argument("--peak-gflops", type=float,
                        help="device peak GFLOP/s, replacing the file's (ceilings recomputed)")
    parser.add_argument("--bandwidth-gbs", type=float,
                        help="memory bandwidth in GB/s, replacing the file's (ceilings recomputed)")
    parser.add_argument("--timing", choices=sorted(TIMINGS), default="per-call",
                        help="the figure drawn: per-call (default) or back-to-back")
    args = parser.parse_args()

    for path in args.output:
        if not path.lower().endswith(FORMATS):
            fail(f"--output '{path}': expected a .png or .svg file name")
        directory = os.path.dirname(path) or "."
        if not os.path.isdir(directory):
            fail(f"--output '{path}': '{directory}' is not a directory")
    for name in ("peak_gflops", "bandwidth_gbs"):
        value = getattr(args, name)
        if value is not None and not (math.isfinite(value) and value > 0):
            fail(f"--{name.replace('_', '-')}: expected a positive number, got {value}")
    try:
        rows = load_rows(args.json, args.timing)
    except DataError as e:
        fail(str(e))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        fail("needs matplotlib: install python3-matplotlib (tools/bootstrap.sh does)")
    draw(rows, args.output, args.title, args.peak_gflops, args.bandwidth_gbs, args.timing)


if __name__ == "__main__":
    main()
