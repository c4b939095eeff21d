#!/usr/bin/env python3
"""Side-by-side table of clgemm-blas-bench runs: libclgemm_blas against NVBLAS and the CPU BLAS.

    python3 tools/bench/blas_summary.py --out blas-summary.md [--trace auto=TRACE.txt] \
        openblas=openblas.csv nvblas=nvblas.csv auto=auto.csv device=device.csv cpu=cpu.csv \
        [--extra "3xtf32=tf32.csv" ...]

Each RUN=FILE is what clgemm-blas-bench printed for one library or mode (several invocations
may be appended to one file; lines starting with '#' and header lines are skipped; a shape run
more than once, in rounds, counts with its fastest run and its largest error). The known
runs are openblas (the CPU BLAS plain), nvblas, auto, device and cpu (libclgemm_blas preloaded
in that CLGEMM_BLAS_MODE); any of them may be missing. The trace (CLGEMM_BLAS_TRACE=1's stderr
of the auto run) gives where auto ran each shape: the side of its last call of that shape.

The main table has one row per shape (and transpose pair and beta), the best time of each run,
and the ratios: auto against NVBLAS (NVBLAS time / auto time, above 1 is faster), and auto
against the best of the device (mode=device) and the CPU BLAS (the faster of plain and
mode=cpu), with the side auto chose beside the side that was faster. The --extra runs
(3xtf32, a capped device memory) follow, each row against NVBLAS and mode=device on the same
shape. Then the issue's targets, met or missed, and the trace's calibration lines. Writes
markdown to --out and prints it. A missing file leaves its column out (said on stderr); exits 2
when a file cannot be read.
"""
import argparse
import os
import re
import sys

KNOWN_RUNS = ("openblas", "nvblas", "auto", "device", "cpu")
TRACE_LINE = re.compile(r"clgemm_blas: \S+(?: \w+Major)? ([NT]{2}) m=(\d+) n=(\d+) k=(\d+): (\w+)")


def read_run(path):
    """Rows of one run, keyed by (shape, trans, beta), in the order they appear."""
    rows = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            fields = line.strip().split(",")
            if line.startswith("#") or len(fields) != 9 or fields[0] == "shape":
                continue
            shape, trans, beta, first_ms, best_ms, median_ms, gflops, error, calls = fields
            row = {
                "best_ms": float(best_ms),
                "median_ms": float(median_ms),
                "gflops": float(gflops),
                "error": float(error),
            }
            earlier = rows.get((shape, trans, beta))
            if earlier:  # a shape run again (rounds): the faster run, the larger error
                row["error"] = max(row["error"], earlier["error"])
                if earlier["best_ms"] < row["best_ms"]:
                    row = dict(earlier, error=row["error"])
            rows[(shape, trans, beta)] = row
    return rows


def read_sides(path):
    """Where each (shape, trans) ran in the trace: the side of its last call."""
    sides = {}
    calibration = []
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            match = TRACE_LINE.search(line)
            if match:
                trans, m, n, k, side = match.groups()
                sides[(f"{m}x{n}x{k}", trans)] = side
            elif "calibrat" in line:
                calibration.append(line.rstrip())
    return sides, calibration


def flop_count(shape):
    m, n, k = (int(x) for x in shape.split("x"))
    return 2 * m * n * k


def label(key):
    shape, trans, beta = key
    text = shape if trans == "NN" else f"{shape} {trans}"
    return text if float(beta) == 0 else f"{text}, beta {beta}"


def show_ms(value):
    """Four significant digits, without an exponent."""
    return f"{value:.0f}" if value >= 1000 else f"{value:.4g}"


def ms(row):
    return show_ms(row["best_ms"]) if row else "-"


def ratio(numerator, denominator):
    return numerator / denominator if numerator and denominator else None


def show_ratio(value):
    return f"{value:.2f}x" if value is not None else "-"


def summarize(runs, extras, sides, calibration):
    out = []
    order = []
    for name in ("auto",) + KNOWN_RUNS:
        for key in runs.get(name, {}):
            if key not in order:
                order.append(key)
    present = [name for name in KNOWN_RUNS if name in runs]
    titles = {"openblas": "CPU BLAS ms", "nvblas": "NVBLAS ms", "auto": "auto ms (ran)",
              "device": "device ms", "cpu": "cpu ms"}
    out.append("Best wall time per call (ms, host arrays in and out); ratios are time against "
               "time, above 1.00x means auto is faster.\n")
    header = ["shape"] + [titles[name] for name in present]
    header += ["auto vs NVBLAS", "auto vs best of both", "chosen / faster", "auto error"]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    verdicts = {"nvblas": [], "large": [], "crossover": []}
    for key in order:
        row = {name: runs[name].get(key) for name in present}
        cells = [label(key)]
        side = sides.get((key[0], key[1]))
        for name in present:
            text = ms(row[name])
            if name == "auto" and row[name] and side:
                text += f" ({side})"
            cells.append(text)
        auto = row.get("auto")
        nvblas = row.get("nvblas")
        device = row.get("device")
        cpu_rows = [r for r in (row.get("cpu"), row.get("openblas")) if r]
        cpu = min(cpu_rows, key=lambda r: r["best_ms"]) if cpu_rows else None
        best = min(device, cpu, key=lambda r: r["best_ms"]) if device and cpu else None
        vs_nvblas = ratio(nvblas and nvblas["best_ms"], auto and auto["best_ms"])
        vs_best = ratio(best and best["best_ms"], auto and auto["best_ms"])
        faster = "-"
        if device and cpu:
            faster = "device" if device["best_ms"] < cpu["best_ms"] else "cpu"
        cells += [show_ratio(vs_nvblas), show_ratio(vs_best),
                  f"{side or '-'} / {faster}" + (" (wrong)" if side and faster != "-" and
                                                  side != faster else ""),
                  f"{auto['error']:.2g}" if auto else "-"]
        out.append("| " + " | ".join(cells) + " |")
        if vs_nvblas is not None:
            verdicts["nvblas"].append((label(key), vs_nvblas))
            if flop_count(key[0]) >= 2 * 4096**3:
                verdicts["large"].append((label(key), vs_nvblas))
        if vs_best is not None:
            verdicts["crossover"].append((label(key), vs_best))

    extra_targets = []
    if extras:
        out.append("\nOther runs, against NVBLAS and mode=device (fp32) on the same shape:\n")
        out.append("| run | shape | ms | GFLOP/s | error | vs NVBLAS | vs device fp32 |")
        out.append("|---|---|---|---|---|---|---|")
        for name, rows in extras:
            for key, row in rows.items():
                nvblas = runs.get("nvblas", {}).get(key)
                device = runs.get("device", {}).get(key)
                vs_nvblas = ratio(nvblas and nvblas["best_ms"], row["best_ms"])
                device_error = f" (fp32 {device['error']:.2g})" if device else ""
                out.append(f"| {name} | {label(key)} | {show_ms(row['best_ms'])} | {row['gflops']:.0f} "
                           f"| {row['error']:.2g}{device_error} | {show_ratio(vs_nvblas)} "
                           f"| {show_ratio(ratio(device and device['best_ms'], row['best_ms']))} |")
                if name.startswith("3xtf32") and key[0] == "8192x8192x8192" and vs_nvblas:
                    extra_targets.append((vs_nvblas, row["error"], device and device["error"]))

    def verdict(title, pairs, bound):
        if not pairs:
            return f"- {title}: not measured"
        missed = [f"{name} {value:.2f}x" for name, value in pairs if value < bound]
        worst = min(value for _, value in pairs)
        state = "met" if not missed else "missed at " + ", ".join(missed)
        return f"- {title}: {state} (lowest {worst:.2f}x over {len(pairs)} shapes)"

    out.append("\nTargets:\n")
    out.append(verdict("products of 4096^3 and more, auto >= 2x NVBLAS", verdicts["large"], 2.0))
    out.append(verdict("every shape, auto >= 1.0x NVBLAS", verdicts["nvblas"], 1.0))
    out.append(verdict("every shape, auto >= 0.9x the best of the device and the CPU BLAS",
                       verdicts["crossover"], 0.9))
    for vs_nvblas, error, device_error in extra_targets:
        state = "met" if vs_nvblas >= 1.5 else "missed"
        fp32 = f", fp32 on the device {device_error:.2g}" if device_error is not None else ""
        out.append(f"- 3xtf32 at 8192^3 >= 1.5x NVBLAS FP32: {state} ({vs_nvblas:.2f}x; error "
                   f"{error:.2g}{fp32})")
    if calibration:
        out.append("\nThe calibration (auto's trace):\n")
        out.extend("    " + line for line in calibration)
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="*", metavar="RUN=FILE")
    parser.add_argument("--extra", action="append", default=[], metavar="NAME=FILE")
    parser.add_argument("--trace", metavar="auto=FILE")
    parser.add_argument("--out", help="write the markdown here too")
    args = parser.parse_args()
    try:
        runs = {}
        for item in args.runs:
            name, _, path = item.partition("=")
            if name not in KNOWN_RUNS or not path:
                parser.error(f"{item}: expected RUN=FILE with RUN one of {', '.join(KNOWN_RUNS)}")
            if os.path.exists(path):
                runs[name] = read_run(path)
            else:
                print(f"blas_summary: {path} missing, the {name} column left out", file=sys.stderr)
        extras = []
        for item in args.extra:
            name, _, path = item.partition("=")
            if os.path.exists(path):
                extras.append((name, read_run(path)))
        sides, calibration = ({}, [])
        trace = args.trace and (args.trace.partition("=")[2] or args.trace)
        if trace and os.path.exists(trace):
            sides, calibration = read_sides(trace)
    except OSError as error:
        print(f"blas_summary: {error}", file=sys.stderr)
        return 2
    text = summarize(runs, extras, sides, calibration)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
