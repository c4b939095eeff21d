#!/usr/bin/env python3
"""Ratios of clgemm-bench's contenders to cuBLAS FP32 on the same shapes, from two JSON files.

    python3 tools/bench/bench_ratios.py BENCH.json CUBLAS.json [--bandwidth-gbs 4800]

BENCH.json is what `clgemm-bench --json` wrote (its object, or the list of rows of earlier
versions); CUBLAS.json what tools/device/cublas_suite.py wrote (the form is in its docstring).
Prints, per shape in both files: each contender's GFLOP/s and its ratio to cuBLAS FP32, per
call against per call and back to back against back to back (cuBLAS TF32 shown beside it);
then each contender's geometric mean of GFLOP/s over those shapes and its ratio to cuBLAS
FP32's; then, for GEMV-like shapes (the smaller of M and N at most 32 and at most an eighth
of the larger and of K: 1x4096x4096, 32x4096x11008), the bandwidth each achieved, counting
the bytes of A and B read once and of C written once, as a share of --bandwidth-gbs (4800:
the H200's HBM3e).

A shape is M, N, K with its batch, epilogue and transposes (the rows' batch_count, bias,
activation, trans_a and trans_b; 1, none, none and untransposed where a row lacks them),
labelled as clgemm-bench labels it: MxNxK[*B][+rowbias|+colbias][+relu|+gelu][/NT|/TN|/TT].
When some common shape has a batch or an epilogue, two more tables follow: one line per shape
with every contender's per-call ratio to cuBLAS FP32 side by side (clgemm's kernels, CLBlast's
Gemm, GemmStridedBatched and GemmBatched, clgemm-unfused, cuBLAS TF32), and for each shape with
an epilogue, each clgemm kernel's fused call against clgemm-unfused (its product, then a
separate bias and activation pass) and against the same product without the epilogue where the
files have it. Exits 2 when a file cannot be read or the two have no shape in common.
"""
import argparse
import json
import math
import sys

REFERENCE = "cublas-fp32"
GEMV_LIMIT = 32  # the smaller of M and N at most this (and an eighth of the others): GEMV-like
TIMINGS = (("per call", "gflops", "median_seconds"),
           ("back to back", "back_to_back_gflops", "back_to_back_seconds"))
# The peers of clgemm-bench (the other non-cuBLAS contenders are clgemm's kernels), in the
# order the side-by-side table shows them.
PEERS = ("clblast", "clblast-strided", "clblast-batched", "openblas", "clgemm-unfused")
UNFUSED = "clgemm-unfused"


def fail(message):
    print(f"bench_ratios.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        fail(f"cannot read {what} '{path}': {e.strerror}")
    except ValueError as e:
        fail(f"{what} '{path}' is not valid JSON: {e}")
    rows = data.get("results") if isinstance(data, dict) else data
    if not isinstance(rows, list):
        fail(f"{what} '{path}' has no list of results")
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or any(f not in row for f in ("contender", "m", "n", "k")):
            fail(f"{what} '{path}': result {i + 1} lacks contender, m, n or k")
    return data if isinstance(data, dict) else {}, rows


def figure(row, field):
    value = row.get(field) if row else None
    return value if isinstance(value, (int, float)) and value > 0 else None


def geometric_mean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def text(value, digits=1, suffix=""):
    return f"{value:.{digits}f}{suffix}" if value else "-"


def shape_of(row):
    """(m, n, k, batch, bias, activation, transposes) of a row; transposes "NN", "NT", "TN"
    or "TT" from its trans_a and trans_b (false where a row lacks them)."""
    transposes = ("T" if row.get("trans_a") else "N") + ("T" if row.get("trans_b") else "N")
    return (int(row["m"]), int(row["n"]), int(row["k"]), int(row.get("batch_count", 1)),
            str(row.get("bias", "none")), str(row.get("activation", "none")), transposes)


def label(shape):
    """clgemm-bench's label: MxNxK[*B][+rowbias|+colbias][+relu|+gelu][/NT|/TN|/TT]."""
    m, n, k, batch, bias, act, transposes = shape
    return (f"{m}x{n}x{k}" + (f"*{batch}" if batch != 1 else "")
            + (f"+{bias}bias" if bias != "none" else "") + (f"+{act}" if act != "none" else "")
            + (f"/{transposes}" if transposes != "NN" else ""))


def has_epilogue(shape):
    return shape[4] != "none" or shape[5] != "none"


def gemv_like(shape):
    """A few vectors against a matrix: memory-bound, judged by bandwidth."""
    m, n, k = shape[:3]
    few = min(m, n)
    return few <= GEMV_LIMIT and 8 * few <= min(max(m, n), k)


def traffic_bytes(shape):
    m, n, k, batch = shape[:4]
    return 4.0 * batch * (m * k + k * n + m * n)


def main():
    parser = argparse.ArgumentParser(
        prog="bench_ratios.py",
        description="clgemm-bench's contenders against cuBLAS FP32 on the same shapes.")
    parser.add_argument("bench", help="clgemm-bench --json output")
    parser.add_argument("cublas", help="tools/device/cublas_suite.py output")
    parser.add_argument("--bandwidth-gbs", type=float, default=4800.0,
                        help="peak memory bandwidth for the GEMV-like shapes (default 4800, H200)")
    args = parser.parse_args()
    if not (math.isfinite(args.bandwidth_gbs) and args.bandwidth_gbs > 0):
        fail(f"--bandwidth-gbs: expected a positive number, got {args.bandwidth_gbs}")

    bench_info, bench_rows = load(args.bench, "bench file")
    cublas_info, cublas_rows = load(args.cublas, "cuBLAS file")
    table = {}  # (contender, shape) -> row
    contenders, shapes = [], []
    for row in bench_rows + cublas_rows:
        shape = shape_of(row)
        name = str(row["contender"])
        table[name, shape] = row
        if name not in contenders:
            contenders.append(name)
        if shape not in shapes:
            shapes.append(shape)
    if REFERENCE not in contenders:
        fail(f"the cuBLAS file '{args.cublas}' has no {REFERENCE} results")
    common = [s for s in shapes if (REFERENCE, s) in table
              and any((c, s) in table for c in contenders if not c.startswith("cublas"))]
    if not common:
        fail("the two files have no shape in common")
    ours = [c for c in contenders if not c.startswith("cublas")]
    others = [c for c in contenders if c.startswith("cublas") and c != REFERENCE]

    print(f"bench:  {bench_info.get('device', 'unknown device')} "
          f"({bench_info.get('platform', 'unknown platform')}), {args.bench}")
    print(f"cuBLAS: {cublas_info.get('device', 'unknown device')}, cuBLAS "
          f"{cublas_info.get('cublas_version', '?')}, {args.cublas}")
    print(f"ratio:  a contender's GFLOP/s over {REFERENCE}'s on the same shape and timing "
          f"(per call against per call, back to back against back to back)\n")
    width = max(18, max(len(label(s)) for s in common))
    print(f"{'M x N x K':<{width}} {'contender':<16} {'call GFLOP/s':>12} {'vs fp32':>8} "
          f"{'b2b GFLOP/s':>12} {'vs fp32':>8}")
    for shape in common:
        name_of_shape = label(shape)
        reference = table[REFERENCE, shape]
        for name in [REFERENCE] + others + ours:
            row = table.get((name, shape))
            if not row:
                continue
            cells = []
            for _, field, _ in TIMINGS:
                value, base = figure(row, field), figure(reference, field)
                cells += [text(value), text(value / base if value and base else None, 2, "x")]
            print(f"{name_of_shape:<{width}} {name:<16} {cells[0]:>12} {cells[1]:>8} "
                  f"{cells[2]:>12} {cells[3]:>8}")

    print(f"\ngeometric mean of GFLOP/s over the {len(common)} common shapes:")
    print(f"{'contender':<16} {'shapes':>6} {'per call':>10} {'vs fp32':>8} {'back to back':>13} "
          f"{'vs fp32':>8}")
    base = {field: geometric_mean(figure(table[REFERENCE, s], field) for s in common)
            for _, field, _ in TIMINGS}
    for name in [REFERENCE] + others + ours:
        mine = [s for s in common if (name, s) in table]
        if len(mine) != len(common):
            print(f"{name:<16} {len(mine):>6}   (not on every common shape: left out)")
            continue
        cells = []
        for _, field, _ in TIMINGS:
            value = geometric_mean(figure(table[name, s], field) for s in common)
            cells += [text(value), text(value / base[field] if value and base[field] else None,
                                        2, "x")]
        print(f"{name:<16} {len(mine):>6} {cells[0]:>10} {cells[1]:>8} {cells[2]:>13} "
              f"{cells[3]:>8}")

    gemv = [s for s in common if gemv_like(s)]
    if gemv:
        print(f"\nGEMV-like shapes (min(M, N) <= {GEMV_LIMIT}, 8x below the others): bandwidth = bytes of A and B read "
              f"+ C written / time, against {args.bandwidth_gbs:g} GB/s")
        print(f"{'M x N x K':<18} {'contender':<16} {'MB':>8} {'call GB/s':>10} {'of peak':>8} "
              f"{'b2b GB/s':>10} {'of peak':>8}")
        for shape in gemv:
            megabytes = traffic_bytes(shape) / 1e6
            for name in [REFERENCE] + others + ours:
                row = table.get((name, shape))
                if not row:
                    continue
                cells = []
                for _, _, seconds_field in TIMINGS:
                    seconds = figure(row, seconds_field)
                    rate = traffic_bytes(shape) / seconds / 1e9 if seconds else None
                    cells += [text(rate), text(100 * rate / args.bandwidth_gbs if rate else None,
                                               1, "%")]
                print(f"{label(shape):<18} {name:<16} {megabytes:>8.3f} {cells[0]:>10} {cells[1]:>8} "
                      f"{cells[2]:>10} {cells[3]:>8}")

    if any(s[3] > 1 or has_epilogue(s) for s in common):
        side_by_side(table, common, ours, others)
        epilogues(table, common, ours)
    return 0


def side_by_side(table, common, ours, others):
    """One line per shape: cuBLAS FP32's per-call GFLOP/s, then each contender's ratio to it."""
    kernels = [c for c in ours if c not in PEERS]
    columns = kernels + [p for p in PEERS if p in ours] + others
    width = max(18, max(len(label(s)) for s in common))
    print(f"\nper call, each contender's GFLOP/s over {REFERENCE}'s on the shape ('-': not run "
          f"there):")
    print(f"{'M x N x K':<{width}} {REFERENCE:>12}" + "".join(f" {c:>16}" for c in columns))
    for shape in common:
        base = figure(table[REFERENCE, shape], "gflops")
        cells = []
        for name in columns:
            value = figure(table.get((name, shape)), "gflops")
            cells.append(text(value / base if value and base else None, 2, "x"))
        print(f"{label(shape):<{width}} {text(base):>12}" + "".join(f" {c:>16}" for c in cells))


def epilogues(table, common, ours):
    """Each clgemm kernel's fused epilogue against clgemm-unfused and the plain product."""
    shapes = [s for s in common if has_epilogue(s)]
    kernels = [c for c in ours if c not in PEERS]
    if not shapes or not kernels:
        return
    print(f"\nepilogues, per call: the fused call against {UNFUSED} (the product, then a "
          f"separate bias and activation pass) and against the same product without one")
    width = max(18, max(len(label(s)) for s in shapes))
    print(f"{'M x N x K':<{width}} {'contender':<16} {'fused ms':>9} {'unfused ms':>10} "
          f"{'speed-up':>8} {'plain ms':>9} {'epilogue cost':>13}")
    for shape in shapes:
        plain_shape = shape[:4] + ("none", "none") + shape[6:]
        unfused = figure(table.get((UNFUSED, shape)), "median_seconds")
        for name in kernels:
            fused = figure(table.get((name, shape)), "median_seconds")
            if not fused:
                continue
            plain = figure(table.get((name, plain_shape)), "median_seconds")
            speedup = text(unfused / fused if unfused else None, 2, "x")
            cost = text(100 * (fused / plain - 1) if plain else None, 1, "%")
            print(f"{label(shape):<{width}} {name:<16} {text(fused * 1e3, 3):>9} "
                  f"{text(unfused * 1e3 if unfused else None, 3):>10} {speedup:>8} "
                  f"{text(plain * 1e3 if plain else None, 3):>9} {cost:>13}")


if __name__ == "__main__":
    sys.exit(main())
