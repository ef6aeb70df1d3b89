"""accel's speed figures, side by side in one call (docs/accel.md): PyTorch's own copy paths
(tests/python/accel_torch.py) without accel and under `pinbench accel`, alternating for ROUNDS
rounds, and the staged engine's own rate at the same sizes from pinbench's Python package, in the
same process as nothing else. Prints a table and writes every figure to OUT/accel-bench.json (and
each accel run's record to OUT/accel-torch-N.json).

    python3 accel_bench.py PINBENCH ACCEL_TORCH_PY OUT [--rounds 2] [--sizes 4KiB,64MiB,256MiB,1GiB]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def run_paths(command, env=None):
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, rows, done.stderr


def engine_rates(sizes):
    """The engine's own rate from Python (pinbench.to_device / to_host), median of 5."""
    import torch
    import pinbench

    out = {}
    for nbytes in sizes:
        x = torch.randn(nbytes // 4)
        g = torch.empty_like(x, device="cuda")
        y = torch.empty_like(x)
        for name, fn in (("h2d", lambda: pinbench.to_device(g, x)),
                         ("d2h", lambda: pinbench.to_host(y, g))):
            for _ in range(2):
                fn()
            samples = []
            for _ in range(5):
                t0 = time.perf_counter()
                fn()
                samples.append(time.perf_counter() - t0)
            out[(name, nbytes)] = nbytes / (statistics.median(samples) * 1e9)
        if not torch.equal(y, x):
            raise SystemExit("engine: bytes wrong at %d" % nbytes)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pinbench")
    p.add_argument("script")
    p.add_argument("out")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--sizes", default="4KiB,64MiB,256MiB,1GiB")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    runs = {"plain": [], "accel": []}
    for r in range(a.rounds):
        base = [sys.executable, a.script, "--sizes", a.sizes, "--loop"]
        code, rows, err = run_paths(base)
        if code != 0:
            print(err, file=sys.stderr)
            raise SystemExit("without accel: exit %d" % code)
        runs["plain"].append(rows)
        record = os.path.join(a.out, "accel-torch-%d.json" % r)
        code, rows, err = run_paths([a.pinbench, "accel", "--json", record, "--"] + base)
        with open(os.path.join(a.out, "accel-torch-%d.report.txt" % r), "w") as f:
            f.write(err)
        if code != 0:
            print(err, file=sys.stderr)
            raise SystemExit("under accel: exit %d" % code)
        runs["accel"].append(rows)

    sizes = sorted({row["bytes"] for row in runs["plain"][0] if "gb_per_s" in row})
    engine = engine_rates([s for s in sizes if s >= (1 << 20)])
    table = []
    print("%-24s %10s %12s %12s %7s %12s %9s" % ("path", "bytes", "plain GB/s", "accel GB/s",
                                                 "ratio", "engine GB/s", "of engine"))
    for i, row in enumerate(runs["plain"][0]):
        key = row["path"]
        plain = [rs[i] for rs in runs["plain"]]
        acc = [rs[i] for rs in runs["accel"]]
        entry = {"path": key, "bytes": row["bytes"], "ok": all(x["ok"] for x in plain + acc)}
        if "wall_ms" in row:
            entry["plain_wall_ms"] = [x["wall_ms"] for x in plain]
            entry["accel_wall_ms"] = [x["wall_ms"] for x in acc]
            print("%-24s %10d plain %s ms, accel %s ms" % (
                key, row["bytes"], entry["plain_wall_ms"], entry["accel_wall_ms"]))
        else:
            entry["plain_gb_per_s"] = [x["gb_per_s"] for x in plain]
            entry["accel_gb_per_s"] = [x["gb_per_s"] for x in acc]
            pm = statistics.median(entry["plain_gb_per_s"])
            am = statistics.median(entry["accel_gb_per_s"])
            way = "d2h" if ("host" in key or "cpu" in key) else "h2d"
            eng = engine.get((way, row["bytes"]))
            entry["engine_gb_per_s"] = eng
            print("%-24s %10d %12.2f %12.2f %7.2f %12s %9s" % (
                key, row["bytes"], pm, am, am / pm, "%.2f" % eng if eng else "-",
                "%.2f" % (am / eng) if eng else "-"))
        table.append(entry)
    with open(os.path.join(a.out, "accel-bench.json"), "w") as f:
        json.dump({"rounds": a.rounds, "rows": table, "runs": runs}, f, indent=1)
    return 0 if all(e["ok"] for e in table) else 1


if __name__ == "__main__":
    sys.exit(main())
