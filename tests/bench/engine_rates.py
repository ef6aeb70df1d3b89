"""The staged engine's own rate from pinbench's Python package at 64 MiB, 256 MiB and 1 GiB, both
ways, printed as one JSON line ({"h2d 64 MiB": GB/s, ...}): what scripts/bench/engine-bench.sh and
scripts/bench/ab-bench.sh compare between two builds (PYTHONPATH names the build's package).
"""
import json

from accel_bench import engine_rates

if __name__ == "__main__":
    rates = engine_rates([64 << 20, 256 << 20, 1 << 30])
    print(json.dumps({f"{way} {nbytes >> 20} MiB": v for (way, nbytes), v in rates.items()}))
