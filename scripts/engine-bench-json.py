#!/usr/bin/env python3
"""From what scripts/engine-h200.sh wrote (torch-plain.txt, torch-BUILD.txt, python-BUILD.txt),
the accel benchmark's JSON (the shape tests/bench/accel_bench.py writes, one round), so
docs/results.md quotes PyTorch's figures under each build with the same markers:

    engine-bench-json.py DIR BUILD   ->   DIR/accel-bench-BUILD.json
"""
import json
import os
import sys


def rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def main():
    folder, build = sys.argv[1], sys.argv[2]
    plain = rows(os.path.join(folder, "torch-plain.txt"))
    accel = rows(os.path.join(folder, "torch-%s.txt" % build))
    with open(os.path.join(folder, "python-%s.txt" % build)) as f:
        engine = json.loads(f.read().strip().splitlines()[-1])
    out = []
    for p, a in zip(plain, accel):
        if p["path"] != a["path"] or p["bytes"] != a["bytes"]:
            raise SystemExit("the two runs' paths differ: %s / %s" % (p["path"], a["path"]))
        way = "d2h" if ("host" in p["path"] or "cpu" in p["path"]) else "h2d"
        out.append({"path": p["path"], "bytes": p["bytes"], "ok": p["ok"] and a["ok"],
                    "plain_gb_per_s": [p["gb_per_s"]], "accel_gb_per_s": [a["gb_per_s"]],
                    "engine_gb_per_s": engine.get("%s %d MiB" % (way, p["bytes"] >> 20))})
    with open(os.path.join(folder, "accel-bench-%s.json" % build), "w") as f:
        json.dump({"rounds": 1, "rows": out}, f, indent=1)


if __name__ == "__main__":
    main()
