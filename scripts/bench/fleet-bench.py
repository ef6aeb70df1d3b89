#!/usr/bin/env python3
"""Makes a synthetic fleet of check records from a real one, for the fleet benchmark.

  scripts/bench/fleet-bench.py RECORD OUT_DIR HOSTS [GPUS_PER_HOST]

Every host gets GPUS_PER_HOST copies of RECORD's first GPU (its own UUID and bus id), with its
rates and round trip scaled by a seeded factor near 1, so the fleet analysis has real work: a few
GPUs are slow and get flagged. The records are as `pinbench check --json` writes them.
"""
import copy
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import number_arg  # noqa: E402
from script_input import fail, load_json  # noqa: E402


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    source, out = sys.argv[1], sys.argv[2]
    hosts = number_arg.whole(sys.argv[3], "HOSTS", minimum=1)
    per_host = number_arg.whole(sys.argv[4], "GPUS_PER_HOST", minimum=1) if len(sys.argv) == 5 else 8
    base = load_json(source, "record")
    machine = base.get("machine") if isinstance(base, dict) else None
    if not isinstance(machine, dict) or not machine.get("gpus"):
        fail("record %s is no check record with a GPU" % source)
    gpu0 = base["machine"]["gpus"][0]
    cases0 = [c for c in base["cases"] if c.get("extra", {}).get("gpu") == 0]
    gates0 = [g for g in base["gates"] if g["name"].startswith("check/gpu0/")]
    rng = random.Random(53)
    os.makedirs(out, exist_ok=True)
    for h in range(hosts):
        r = copy.deepcopy(base)
        name = f"node{h:05d}"
        r["machine"]["hostname"] = name
        r["machine"]["gpus"], r["cases"], r["gates"] = [], [], []
        r["config"]["devices"] = list(range(per_host))
        r["config"]["placement_by_gpu"] = {f"gpu{i}": "no NUMA node named for the GPU"
                                           for i in range(per_host)}
        for i in range(per_host):
            g = copy.deepcopy(gpu0)
            g["index"] = i
            g["uuid"] = f"GPU-{h:08x}-{i:04x}-0000-0000-000000000000"
            g["pci_bus_id"] = f"0000:{i:02x}:00.0"
            r["machine"]["gpus"].append(g)
            slow = 1.0 + (0.5 if rng.random() < 0.002 else rng.gauss(0, 0.01))
            for c in cases0:
                c = copy.deepcopy(c)
                c["extra"]["gpu"] = i
                c["gate"] = c["gate"].replace("gpu0", f"gpu{i}")
                c["samples_ms"] = [s * slow for s in c["samples_ms"]]
                r["cases"].append(c)
            for gate in gates0:
                gate = copy.deepcopy(gate)
                gate["name"] = gate["name"].replace("gpu0", f"gpu{i}")
                r["gates"].append(gate)
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(r, f)


if __name__ == "__main__":
    main()
