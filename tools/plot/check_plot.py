#!/usr/bin/env python3
"""Checks for nhood_plot.py, run by run_test.sh with a Python that has matplotlib.

usage: check_plot.py samples OUTDIR     plots testdata/*_sample.jsonl into OUTDIR and checks
                                        that exactly the expected PNG files are written, are
                                        PNGs and are not empty, and that --summary works
       check_plot.py bad-input OUTDIR   a line that is not JSON, no input files, a missing
                                        file and a file without plottable rows give exit 2
                                        and a message naming the problem (file:line)
"""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "nhood_plot.py")
DATA = os.path.join(HERE, "testdata")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# One figure per (kind, ranks, topo, coll, mode) group with two or more sizes. Not here: the
# create and sched_build rows, and the algorithm 'bogus' whose rows carry an error.
EXPECTED = {
    "bench_allgather_blocking_moore_d2_r2_p16.png",
    "bench_allgather_blocking_er_density0.5_seed2_p4.png",
    "bench_alltoall_persistent_er_density0.5_seed2_p8.png",
    "sim_allgather_er_density0.2_seed1_p256.png",
    "sim_allgather_moore_d2_r2_p256.png",
}

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message)


def run(args):
    proc = subprocess.run([sys.executable, TOOL] + args, capture_output=True, text=True)
    print(f"$ nhood_plot.py {' '.join(args)}\n  -> exit {proc.returncode}")
    for stream in (proc.stdout, proc.stderr):
        for line in stream.splitlines():
            print("  | " + line)
    return proc


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def samples(out):
    fresh(out)
    bench = os.path.join(DATA, "bench_sample.jsonl")
    sim = os.path.join(DATA, "sim_sample.jsonl")
    proc = run(["--out", out, "--title-prefix", "ctest", "--summary", bench, sim])
    check(proc.returncode == 0, f"exit status {proc.returncode}, expected 0")
    written = set(os.listdir(out))
    check(written == EXPECTED, f"wrong files: missing {sorted(EXPECTED - written)}, "
          f"unexpected {sorted(written - EXPECTED)}")
    printed = {line for line in proc.stdout.splitlines() if line.endswith(".png")}
    check(printed == {os.path.join(out, name) for name in EXPECTED},
          f"printed paths {sorted(printed)} are not the expected files in {out}")
    for name in sorted(EXPECTED & written):
        path = os.path.join(out, name)
        with open(path, "rb") as f:
            head = f.read(8)
        size = os.path.getsize(path)
        check(head == PNG_SIGNATURE, f"{name} is not a PNG (starts {head!r})")
        check(size > 10000, f"{name} is only {size} bytes")
    # The summary: a table per group, auto's resolved algorithm shown.
    check("# ctest: moore:d=2,r=2" in proc.stdout, "--summary printed no table for moore:d=2,r=2")
    check("(direct)" in proc.stdout, "--summary does not show what auto resolved to")
    check("bogus" not in proc.stdout, "rows with an error were not left out of the summary")


def bad_input(out):
    fresh(out)
    bad = os.path.join(DATA, "bad_sample.jsonl")
    proc = run(["--out", out, bad])
    check(proc.returncode == 2, f"bad JSON: exit status {proc.returncode}, expected 2")
    check(f"{bad}:3:" in proc.stderr, f"bad JSON: the message does not name {bad}:3")
    check(not os.listdir(out), "bad JSON: files were written")

    proc = run(["--out", out])
    check(proc.returncode == 2, f"no input files: exit status {proc.returncode}, expected 2")
    check("no input files" in proc.stderr, "no input files: no message saying so")

    missing = os.path.join(out, "does-not-exist.jsonl")
    proc = run(["--out", out, missing])
    check(proc.returncode == 2, f"missing file: exit status {proc.returncode}, expected 2")
    check(f"cannot read {missing}" in proc.stderr, "missing file: no message naming it")

    # Only rows with nothing to plot: set-up timings and failed runs.
    empty = os.path.join(out, "setup-only.jsonl")
    with open(os.path.join(DATA, "bench_sample.jsonl")) as src, open(empty, "w") as dst:
        dst.writelines(l for l in src if '"coll":"create"' in l or '"error"' in l)
    proc = run(["--out", out, empty])
    check(proc.returncode == 2, f"no plottable rows: exit status {proc.returncode}, expected 2")
    check("no plottable rows" in proc.stderr, "no plottable rows: no message saying so")
    check(not [n for n in os.listdir(out) if n.endswith(".png")], "no plottable rows: PNG written")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("samples", "bad-input"):
        print(__doc__, file=sys.stderr)
        return 2
    (samples if sys.argv[1] == "samples" else bad_input)(sys.argv[2])
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
