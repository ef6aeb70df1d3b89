#!/usr/bin/env python3
"""From what scripts/bench/engine-bench.sh wrote (torch-plain.txt, torch-BUILD.txt, python-BUILD.txt),
the accel benchmark's JSON (the shape tests/bench/accel_bench.py writes), so docs/results.md
quotes PyTorch's figures under each build with the same markers:

    engine-bench-json.py DIR BUILD [ROUND...]   ->   DIR/accel-bench-BUILD.json

Each ROUND adds the rounds that scripts/bench/ab-bench.sh's `compare` part wrote in the same folder
(torch-BUILD-ROUND.txt, python-BUILD-ROUND.txt): accel's figures become one list over the rounds,
and the engine's figure the median of its rounds. The engine part's own round (torch-BUILD.txt)
counts where it is there; a `compare` part alone writes torch-plain.txt itself.

Exit status 2, with one line on stderr (scripts/lib/script_input.py): a folder that does not exist
or is no folder, no round's files, or one of them that is not a regular file of those lines.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_input import fail, input_folder, read_text  # noqa: E402


def json_line(path, line):
    try:
        return json.loads(line)
    except ValueError as e:
        fail("%s: a line is not JSON: %s" % (path, e))


def rows(path):
    return [json_line(path, line) for line in read_text(path).splitlines() if line.startswith("{")]


def main():
    if len(sys.argv) < 3:
        fail("usage: engine-bench-json.py DIR BUILD [ROUND...]")
    folder, build = input_folder(sys.argv[1]), sys.argv[2]
    suffixes = [s for s in [""] + ["-" + r for r in sys.argv[3:]]
                if os.path.lexists(os.path.join(folder, "torch-%s%s.txt" % (build, s)))]
    if not suffixes:
        fail("no torch-%s*.txt of those rounds in %s" % (build, folder))
    plain = rows(os.path.join(folder, "torch-plain.txt"))
    accel = [rows(os.path.join(folder, "torch-%s%s.txt" % (build, s))) for s in suffixes]
    engines = []
    for s in suffixes:
        path = os.path.join(folder, "python-%s%s.txt" % (build, s))
        lines = read_text(path).strip().splitlines()
        if not lines:
            fail("%s is empty" % path)
        engines.append(json_line(path, lines[-1]))
    out = []
    for i, p in enumerate(plain):
        a = [r[i] for r in accel]
        if any(x["path"] != p["path"] or x["bytes"] != p["bytes"] for x in a):
            fail("the runs' paths differ at row %d (%s)" % (i, p["path"]))
        way = "d2h" if ("host" in p["path"] or "cpu" in p["path"]) else "h2d"
        key = "%s %d MiB" % (way, p["bytes"] >> 20)
        engine = [e[key] for e in engines if key in e]
        out.append({"path": p["path"], "bytes": p["bytes"],
                    "ok": p["ok"] and all(x["ok"] for x in a),
                    "plain_gb_per_s": [p["gb_per_s"]],
                    "accel_gb_per_s": [x["gb_per_s"] for x in a],
                    "engine_gb_per_s": statistics.median(engine) if engine else None})
    with open(os.path.join(folder, "accel-bench-%s.json" % build), "w") as f:
        json.dump({"rounds": len(suffixes), "rows": out}, f, indent=1)


if __name__ == "__main__":
    main()
