#!/usr/bin/env python3
"""From what scripts/engine-h200.sh wrote (torch-plain.txt, torch-BUILD.txt, python-BUILD.txt),
the accel benchmark's JSON (the shape tests/bench/accel_bench.py writes), so docs/results.md
quotes PyTorch's figures under each build with the same markers:

    engine-bench-json.py DIR BUILD [ROUND...]   ->   DIR/accel-bench-BUILD.json

Each ROUND adds the rounds that scripts/h200-call.sh's `compare` part wrote in the same folder
(torch-BUILD-ROUND.txt, python-BUILD-ROUND.txt): accel's figures become one list over the rounds,
and the engine's figure the median of its rounds. The engine part's own round (torch-BUILD.txt)
counts where it is there; a `compare` part alone writes torch-plain.txt itself.
"""
import json
import os
import statistics
import sys


def rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def main():
    folder, build = sys.argv[1], sys.argv[2]
    suffixes = [s for s in [""] + ["-" + r for r in sys.argv[3:]]
                if os.path.exists(os.path.join(folder, "torch-%s%s.txt" % (build, s)))]
    if not suffixes:
        raise SystemExit("no torch-%s*.txt of those rounds in %s" % (build, folder))
    plain = rows(os.path.join(folder, "torch-plain.txt"))
    accel = [rows(os.path.join(folder, "torch-%s%s.txt" % (build, s))) for s in suffixes]
    engines = []
    for s in suffixes:
        with open(os.path.join(folder, "python-%s%s.txt" % (build, s))) as f:
            engines.append(json.loads(f.read().strip().splitlines()[-1]))
    out = []
    for i, p in enumerate(plain):
        a = [r[i] for r in accel]
        if any(x["path"] != p["path"] or x["bytes"] != p["bytes"] for x in a):
            raise SystemExit("the runs' paths differ at row %d (%s)" % (i, p["path"]))
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
