#!/usr/bin/env python3
"""Two builds side by side, from what scripts/bench/ab-bench.sh's `prev` and `blocks` parts wrote
(PREFIX-staged-BUILD-N.json, PREFIX-pipeline-BUILD-N.json, blocks-ab-BUILD-N.json) in one or more
folders, or in folders of a set of runs squeezed by scripts/bench/squeeze-runs.py (SET.json#call1):
the tables of an A/B README.

  ab-summary.py DIR [DIR...] [--prefix prev]

Per engine case (direction, method, size) and build, over every round found:
  - the share of page-locked memory's rate in the same run, lowest to highest;
  - the system time over the CPU time, with the rounds summed (one case's own share rests on a
    few of the kernel's ticks: docs/methodology.md, "The engine's CPU"), and how many rounds
    had their own share over 15%;
  - the CPU time (user + system) per GB moved.
Then each build's pipeline through the engine over the page-locked pipeline, lowest, middle and
highest; and the blocks batch's median GB/s per cell, and each build over `old` where there is
one. Rounds of several folders count together (a README names them call1/, call2/ and so on).

Exit status 2, with one line on stderr (scripts/lib/script_input.py): a folder that does not
exist or is no folder (or a SET.json that is no squeezed set, or holds no such folder), folders
that hold none of those files, or one of them that is not a regular file holding a run record's
JSON.
"""
import argparse
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_input import fail, input_folder, load_json, squeezed_files  # noqa: E402


def records_in(source):
    """{name: a loader of the record} for the .json files of SOURCE: a folder, or a set of runs
    squeezed by squeeze-runs.py (SET.json, or SET.json#FOLDER for a folder in it)."""
    if "#" in source or os.path.isfile(source):
        files = squeezed_files(source)
        return {"%s#%s" % (source, name): (lambda v=value: v) for name, value in files.items()
                if name.endswith(".json") and "/" not in name}
    input_folder(source)
    return {path: (lambda p=path: load_json(p, "record"))
            for path in glob.glob(os.path.join(source, "*.json"))}


def cases_of(name, load):
    record = load()
    if not isinstance(record, dict) or not isinstance(record.get("cases"), list):
        fail("record %s holds no list of cases" % name)
    return record["cases"]


def rounds(sources, pattern):
    """(build, name, loader) for every record whose name matches PATTERN (with a `build`
    group)."""
    out = []
    for source in sources:
        for name, load in sorted(records_in(source).items()):
            m = re.fullmatch(pattern, re.split(r"[/#]", name)[-1])
            if m:
                out.append((m.group("build"), name, load))
    return out


def median_ms(case):
    return statistics.median(case["samples_ms"])


def case_name(key):
    """An engine case's (direction, method, bytes) as the tables name it."""
    return "%s %s %d MiB" % (key[0], key[1], key[2] >> 20)


def print_table(title, header, rows):
    """TITLE, then a markdown table of HEADER and ROWS (lists of cells)."""
    print(title)
    print("| " + " | ".join(header) + " |")
    print("|---" * len(header) + "|")
    for cells in rows:
        print("| " + " | ".join(cells) + " |")


def staged_tables(dirs, prefix):
    share, cpu = {}, {}
    for build, name, load in rounds(dirs, re.escape(prefix) + r"-staged-(?P<build>\w+)-\d+\.json"):
        by_gate = {c["gate"]: c for c in cases_of(name, load)}
        for c in by_gate.values():
            if c["part"] != "staged" or c["method"] == "pinned" or not c.get("samples_ms"):
                continue
            key = (c["direction"], c["method"], c["bytes"])
            pinned = by_gate.get("staged/%s/pinned/%s" % (c["direction"], c["gate"].split("/")[-1]))
            if pinned and pinned.get("samples_ms"):
                share.setdefault(key, {}).setdefault(build, []).append(
                    median_ms(pinned) / median_ms(c))
            x = c.get("extra", {})
            if "cpu_user_s" in x:
                user, sys_s = x["cpu_user_s"], x["cpu_sys_s"]
                gb = len(c["samples_ms"]) * c["bytes"] / 1e9
                cpu.setdefault(key, {}).setdefault(build, []).append((user, sys_s, gb))
    builds = sorted({b for v in share.values() for b in v})
    rows = []
    for key in sorted(share):
        cells = [case_name(key)]
        for b in builds:
            v = sorted(share[key].get(b, []))
            cells.append("%.3f to %.3f (%d)" % (v[0], v[-1], len(v)) if v else "-")
        rows.append(cells)
    print_table("share of page-locked memory's rate, lowest to highest:", ["case"] + builds, rows)
    if not cpu:
        return
    rows = []
    for key in sorted(cpu):
        cells = [case_name(key)]
        for b in builds:
            v = cpu[key].get(b, [])
            total = sum(u + s for u, s, _ in v)
            if not v or total <= 0:
                cells.append("-")
                continue
            over = sum(1 for u, s, _ in v if u + s > 0 and s / (u + s) > 0.15)
            cells.append("%.1f%%; %d of %d; %.0f ms/GB" % (
                100 * sum(s for _, s, _ in v) / total, over, len(v),
                1000 * total / sum(g for _, _, g in v)))
        rows.append(cells)
    print_table("\nsystem time over CPU time, rounds summed; rounds over 15%; CPU ms per GB:",
                ["case"] + builds, rows)


def pipeline_lines(dirs, prefix):
    ratios = {}
    pattern = re.escape(prefix) + r"-pipeline-(?P<build>\w+)-\d+\.json"
    for build, name, load in rounds(dirs, pattern):
        t = {c["gate"]: median_ms(c) for c in cases_of(name, load) if c.get("samples_ms")}
        staged, pinned = t.get("pipeline/staged/streams=2"), t.get("pipeline/pinned/streams=2")
        if staged and pinned:
            ratios.setdefault(build, []).append(staged / pinned)
    for build, v in sorted(ratios.items()):
        v.sort()
        print("pipeline, %s: %.2f to %.2f, median %.2f, over %d rounds" % (
            build, v[0], v[-1], statistics.median(v), len(v)))


def blocks_table(dirs):
    rates = {}
    for build, name, load in rounds(dirs, r"blocks-ab-(?P<build>\w+)-\d+\.json"):
        for c in cases_of(name, load):
            if not c.get("samples_ms"):
                continue
            x = c.get("extra", {})
            key = (c["direction"], x.get("block_bytes", c["bytes"]), x.get("blocks", 0))
            rates.setdefault(key, {}).setdefault(build, []).append(
                c["bytes"] / median_ms(c) / 1e6)
    if not rates:
        return
    builds = sorted({b for v in rates.values() for b in v})
    others = [b for b in builds if b != "old"]
    has_old = "old" in builds
    rows = []
    for key in sorted(rates):
        med = {b: statistics.median(v) for b, v in rates[key].items()}
        cells = ["%.2f" % med[b] if b in med else "-" for b in builds]
        if has_old:
            cells += ["%.2f" % (med[b] / med["old"]) if b in med and "old" in med else "-"
                      for b in others]
        rows.append([key[0], "%d KiB x %d" % (key[1] >> 10, key[2])] + cells)
    header = ["direction", "blocks"] + builds + (["%s / old" % b for b in others] if has_old else [])
    print_table("\nblocks batch, GB/s, median of the rounds:", header, rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="folders scripts/bench/ab-bench.sh wrote, or SET.json#FOLDER of them")
    p.add_argument("--prefix", default="prev", help="the staged and pipeline files' prefix")
    a = p.parse_args()
    for d in a.dirs:
        records_in(d)
    files = re.escape(a.prefix) + r"-(staged|pipeline)-(?P<build>\w+)-\d+\.json"
    if not rounds(a.dirs, files) and not rounds(a.dirs, r"blocks-ab-(?P<build>\w+)-\d+\.json"):
        fail("no %s-staged-*, %s-pipeline-* or blocks-ab-* files in %s"
             % (a.prefix, a.prefix, " ".join(a.dirs)))
    staged_tables(a.dirs, a.prefix)
    pipeline_lines(a.dirs, a.prefix)
    blocks_table(a.dirs)


if __name__ == "__main__":
    main()
