#!/usr/bin/env python3
"""Runs every clgemm test binary on each OpenCL implementation this machine has, and prints one
table: implementation, version, device, passed, failed, skipped and why.

Each (platform, device) that `clgemm-run --list-devices` shows is selected in turn through
CLGEMM_PLATFORM / CLGEMM_DEVICE, and each test binary runs once per device as a process of its
own, so no test depends on which implementation ran first. A process that dies (a signal, an
assertion inside a driver) is reported as such, with the test it died in.

On the H200 machine, source the device kit first with KIT_WITH_POCL=1 so that NVIDIA's driver
and PoCL are both visible:

    KIT_WITH_POCL=1 source .device-kit/nvidia-opencl.sh
    python3 tools/device/portability.py --build build --out "$OUT"

Exit status: 0 when every suite passed everywhere, 1 when a test failed or a process died,
2 on a usage error.
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

SUITES = ["tests/clgemm-tests", "tests/clgemm-precision-tests"]
DEVICE_LINE = re.compile(
    r"^platform (\d+) device (\d+): (.*) \[(\w+)\] on '(.*)', driver ([^,]*),")


def devices(build):
    """(platform index, device index, device name, platform name, driver) for every device."""
    out = subprocess.run([str(build / "clgemm-run"), "--list-devices"], capture_output=True,
                         text=True, timeout=120)
    found = []
    for line in out.stdout.splitlines():
        m = DEVICE_LINE.match(line)
        if m:
            found.append((m[1], m[2], m[3], m[5], m[6]))
    return found


def summarise(log, returncode):
    """Counts from a GoogleTest log, read line by line so a process that died still counts."""
    passed, failed, skipped, reasons = set(), set(), {}, {}
    current, pending_reason, running = None, [], None
    for line in log.splitlines():
        if line.startswith("[ RUN      ]"):
            running, pending_reason = line[12:].strip(), []
        elif line.startswith("[       OK ]"):
            passed.add(line[12:].split(" (")[0].strip())
            running = None
        elif line.startswith("[  FAILED  ]") and running:
            failed.add(line[12:].split(" (")[0].strip())
            running = None
        elif line.startswith("[  SKIPPED ]") and running:
            name = line[12:].split(" (")[0].strip()
            reason = " ".join(pending_reason).strip() or "no reason given"
            skipped[name] = reason
            reasons[reason] = reasons.get(reason, 0) + 1
            running = None
        elif running:
            if line.endswith(": Skipped"):
                pending_reason = []
                current = "reason"
            elif current == "reason" and line.strip():
                pending_reason.append(line.strip())
    died = None
    if returncode < 0 or returncode > 128 or (running and returncode != 0):
        sig = -returncode if returncode < 0 else returncode - 128
        died = f"process died (signal {sig}) in {running or 'between tests'}"
    return passed, failed, skipped, reasons, died


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the build directory (default build)")
    parser.add_argument("--out", default=None, help="directory for each run's full log")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per suite run")
    args = parser.parse_args()
    build = Path(args.build)
    for suite in SUITES:
        if not (build / suite).is_file():
            print(f"portability: {build / suite} is missing; build first", file=sys.stderr)
            return 2
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)

    found = devices(build)
    if not found:
        print("portability: clgemm-run --list-devices shows no OpenCL device", file=sys.stderr)
        return 2
    rows, all_green, notes = [], True, []
    for platform, device, name, platform_name, driver in found:
        for suite in SUITES:
            env = dict(os.environ, CLGEMM_PLATFORM=platform, CLGEMM_DEVICE=device)
            try:
                run = subprocess.run([str(build / suite), "--gtest_brief=0"], env=env,
                                     capture_output=True, text=True, timeout=args.timeout)
                log, code = run.stdout + run.stderr, run.returncode
            except subprocess.TimeoutExpired as timeout:
                log = (timeout.stdout or b"").decode(errors="replace") if isinstance(
                    timeout.stdout, bytes) else (timeout.stdout or "")
                code = 124
            if out:
                (out / f"p{platform}d{device}-{Path(suite).name}.log").write_text(log)
            passed, failed, skipped, reasons, died = summarise(log, code)
            if code == 124:
                died = f"timed out after {args.timeout} s"
            green = code == 0 and not failed and not died
            all_green &= green
            why = "; ".join(f"{n} x {r}" for r, n in sorted(reasons.items())) or "-"
            rows.append([platform_name, driver, name[:40], Path(suite).name, str(len(passed)),
                         str(len(failed)), str(len(skipped)), why])
            if failed:
                notes.append(f"{platform_name} {Path(suite).name} failed: " +
                             ", ".join(sorted(failed)))
            if died:
                notes.append(f"{platform_name} {Path(suite).name}: {died}")

    header = ["implementation", "version", "device", "suite", "passed", "failed", "skipped",
              "skipped because"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    for note in notes:
        print("- " + note)
    print("all suites green" if all_green else "NOT all suites green")
    return 0 if all_green else 1


if __name__ == "__main__":
    sys.exit(main())
