"""cuBLAS FP32 and TF32 accuracy on the inputs clgemm-accuracy dumped, for the H200 device machine.

Usage: python3 tools/device/cublas_accuracy.py DIR [--ours OURS.json] [--tiny T] [--json]

DIR is what `clgemm-accuracy --dump DIR` wrote: manifest.json and, per K, A (M x K) and B (K x N)
as raw little-endian float32, row-major. For each K this computes the reference C = A * B in
float64 (on the GPU), runs cuBLAS through torch with TF32 off (fp32) and on (tf32), and prints
the metrics of clgemm-accuracy in its table format:
  relative error   = |c - ref| / |ref|, over the elements with |ref| >= TINY * rms(ref's row)
  normalised error = |c - ref| / sum_k |a_ik| |b_kj|, over every element (robust where ref ~ 0)
--ours takes the --json output of clgemm-accuracy (run on the same inputs, e.g. on the same
machine) and prints its rows beside cuBLAS's. Needs only python3, numpy and torch; no network.
Exits 1 when cuBLAS TF32's max normalised error is not above FP32's (TF32 was not in effect).
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

RELATIVE = "relative error   = |c - ref| / |ref|, over the elements with |ref| >= TINY * rms(ref's row)"
NORMALISED = ("normalised error = |c - ref| / sum_k |a_ik| |b_kj|, over every element "
              "(robust where ref ~ 0)")
CUBLAS_MODES = (("fp32", False, "cuBLAS FP32 (torch allow_tf32=False)"),
                ("tf32", True, "cuBLAS TF32 (torch allow_tf32=True)"))


def load_matrix(directory, name, shape, device):
    values = np.fromfile(os.path.join(directory, name), dtype="<f4")
    if values.size != shape[0] * shape[1]:
        sys.exit(f"{name}: {values.size} floats, expected {shape[0]} x {shape[1]}")
    return torch.from_numpy(values.reshape(shape)).to(device)


def error_stats(c, ref, magnitude, tiny):
    """The four metrics of clgemm-accuracy for one result; all arguments float64 tensors."""
    error = (c - ref).abs()
    normalised = torch.where(magnitude > 0, error / magnitude, error)
    row_rms = ref.pow(2).mean(dim=1, keepdim=True).sqrt()
    counted = (ref.abs() >= tiny * row_rms) & (ref != 0)
    relative = error[counted] / ref.abs()[counted]
    return {
        "relative_max": relative.max().item() if relative.numel() else 0.0,
        "relative_mean": relative.mean().item() if relative.numel() else 0.0,
        "relative_counted": int(counted.sum().item()),
        "relative_excluded": int((~counted).sum().item()),
        "normalised_max": normalised.max().item(),
        "normalised_mean": normalised.mean().item(),
    }


def measure_cublas(directory, case, tiny, device):
    a = load_matrix(directory, case["a_file"], case["a_shape"], device)
    b = load_matrix(directory, case["b_file"], case["b_shape"], device)
    a64, b64 = a.double(), b.double()
    ref = a64 @ b64  # each float product is exact in float64; the sums are float64
    magnitude = a64.abs() @ b64.abs()
    rows = []
    for precision, tf32, path in CUBLAS_MODES:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        c = (a @ b).double()
        if device == "cuda":
            torch.cuda.synchronize()
        row = {"library": "cublas", "k": case["k"], "precision": precision,
               "precision_path": path, "kernel": "cuBLAS"}
        row.update(error_stats(c, ref, magnitude, tiny))
        rows.append(row)
    torch.backends.cuda.matmul.allow_tf32 = False
    return rows


def add_ratios(rows):
    """normalised_max_vs_fp32: each row's max normalised error over its own library's fp32."""
    fp32 = {(r["library"], r["k"]): r["normalised_max"] for r in rows if r["precision"] == "fp32"}
    for r in rows:
        base = fp32.get((r["library"], r["k"]), 0.0)
        if base > 0:
            r["normalised_max_vs_fp32"] = r["normalised_max"] / base


def print_table(rows, header):
    for line in header:
        print(line)
    print()
    print(f"{'K':>6}  {'precision':<8} {'rel max':>10} {'rel mean':>10} {'norm max':>10} "
          f"{'norm mean':>10} {'vs fp32':>8}  {'kernel':<7} path")
    for r in rows:
        versus = f"{r['normalised_max_vs_fp32']:.2f}x" if "normalised_max_vs_fp32" in r else "-"
        print(f"{r['k']:>6}  {r['precision']:<8} {r['relative_max']:10.3e} "
              f"{r['relative_mean']:10.3e} {r['normalised_max']:10.3e} "
              f"{r['normalised_mean']:10.3e} {versus:>8}  {r['kernel']:<7} {r['precision_path']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="what clgemm-accuracy --dump wrote (manifest.json)")
    parser.add_argument("--ours", help="clgemm-accuracy --json output to print beside cuBLAS")
    parser.add_argument("--tiny", type=float,
                        help="threshold of the relative error (default: the manifest's)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = parser.parse_args()

    with open(os.path.join(args.directory, "manifest.json")) as f:
        manifest = json.load(f)
    tiny = args.tiny if args.tiny is not None else manifest.get("tiny", 1e-3)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    device_name = torch.cuda.get_device_name(0) if device == "cuda" else "CPU (no CUDA device)"

    ours = []
    if args.ours:
        with open(args.ours) as f:
            ours_report = json.load(f)
        for key in ("distribution", "seed_a", "seed_b"):
            if ours_report.get(key) != manifest.get(key):
                print(f"warning: --ours has {key} {ours_report.get(key)!r}, the dump "
                      f"{manifest.get(key)!r}: not the same inputs", file=sys.stderr)
        ours = ours_report["results"]

    rows = []
    for case in manifest["cases"]:
        rows += [r for r in ours if r["k"] == case["k"]]
        rows += measure_cublas(args.directory, case, tiny, device)
    add_ratios(rows)

    problems = []
    for case in manifest["cases"]:
        errors = {r["precision"]: r["normalised_max"]
                  for r in rows if r["library"] == "cublas" and r["k"] == case["k"]}
        if not errors["tf32"] > errors["fp32"]:
            problems.append(f"K={case['k']}: cuBLAS TF32 max normalised error "
                            f"{errors['tf32']:.3e} is not above FP32's {errors['fp32']:.3e}: "
                            "was TF32 in effect?")

    if args.json:
        report = {"tool": "cublas_accuracy.py", "device": device_name,
                  "torch": torch.__version__, "cuda": torch.version.cuda,
                  "m": manifest["cases"][0]["m"], "n": manifest["cases"][0]["n"],
                  "distribution": manifest["distribution"], "seed_a": manifest["seed_a"],
                  "seed_b": manifest["seed_b"], "tiny": tiny, "relative_error": RELATIVE,
                  "normalised_error": NORMALISED, "results": rows, "problems": problems,
                  "passed": not problems}
        print(json.dumps(report, indent=2))
    else:
        first = manifest["cases"][0]
        print_table(rows, [
            f"device:     {device_name}, torch {torch.__version__}, CUDA {torch.version.cuda}",
            f"problem:    row-major C = A * B (alpha 1, beta 0), M = {first['m']}, "
            f"N = {first['n']}, inputs from {args.directory}",
            f"inputs:     {manifest['distribution']}, seeds {manifest['seed_a']} (A) and "
            f"{manifest['seed_b']} (B); reference float64 on the {device.upper()}",
            f"rel:        {RELATIVE} (TINY = {tiny:g})",
            f"norm:       {NORMALISED}",
            "vs fp32:    max normalised error / the same library's fp32 at the same K",
        ])
        for problem in problems:
            print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
