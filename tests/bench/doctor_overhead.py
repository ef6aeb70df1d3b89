#!/usr/bin/env python3
"""doctor's overhead, a figure and not a test: a copy-heavy program's wall time under
`pinbench doctor --no-calibration` against the same program alone, runs interleaved.

Prints two ratios of medians: the program's own wall time (start to exit, as doctor measures
it around the child) and the whole command's (doctor's start-up, the program, reading the
events, symbolising and printing). Usage: doctor_overhead.py PINBENCH PROGRAM [ARGS...]"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 7


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pinbench, program = sys.argv[1], sys.argv[2:]
    plain, whole, child = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "doctor.json")
        for _ in range(RUNS):
            t0 = time.perf_counter()
            subprocess.run(program, check=True, stdout=subprocess.DEVNULL)
            plain.append(1e3 * (time.perf_counter() - t0))
            t0 = time.perf_counter()
            subprocess.run([pinbench, "doctor", "--no-calibration", "--json", record, "--"] + program,
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            whole.append(1e3 * (time.perf_counter() - t0))
            with open(record) as f:
                d = json.load(f)["doctor"]
            child.append(d["wall_ms"])
            calls = len(d["calls"])
    p, w, c = (statistics.median(x) for x in (plain, whole, child))
    print(f"program alone: median {p:.1f} ms of {RUNS} runs; under doctor: program {c:.1f} ms, "
          f"whole command {w:.1f} ms; {calls} API calls recorded per run")
    print(f"overhead: {c / p:.3f}x (program wall time), {w / p:.3f}x (whole command); goal 1.10x")


if __name__ == "__main__":
    main()
