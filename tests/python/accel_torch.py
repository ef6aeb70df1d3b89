"""PyTorch's own copy paths, timed and checked byte for byte: the program `pinbench accel` runs in
its Python tests and benchmark (tests/bench/accel_bench.py runs it with and without accel in one
call). Each path is run WARM times, then timed REPS times from the call to torch.cuda.synchronize(),
and its result is compared with the source (through page-locked memory, which accel passes on).

    python3 accel_torch.py [--sizes 64MiB,256MiB,1GiB] [--reps 5] [--paths .cpu()] [--loop]

Prints one JSON object per line: {"path", "bytes", "gb_per_s" (median), "samples_ms", "ok"};
with --loop, a training-style loop over DataLoader(pin_memory=False) and its wall time. Exit 1
when a byte is wrong.
"""
import argparse
import json
import statistics
import sys
import time

import torch

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def parse_size(text):
    for unit, scale in UNITS.items():
        if text.endswith(unit):
            return int(text[: -len(unit)]) * scale
    return int(text)


def same(a, b):
    """Whether two tensors hold the same bytes, compared on the host."""
    host = torch.empty(b.shape, dtype=b.dtype, pin_memory=True)
    host.copy_(b)  # page-locked: accel passes it on
    return torch.equal(a.cpu() if a.is_cuda else a, host)


def timed(fn, warm, reps):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) * 1e3)
    return samples


def report(path, nbytes, samples, ok):
    median = statistics.median(samples)
    print(json.dumps({"path": path, "bytes": nbytes, "gb_per_s": nbytes / (median * 1e6),
                      "samples_ms": samples, "ok": ok}), flush=True)
    return ok


PATHS = ("to(cuda, non_blocking)", "copy_ to device", "copy_ to host", ".cpu()")


def paths_at(nbytes, warm, reps, only=None):
    """Times each path at one size; `only` (a set of path names) leaves out the others."""
    # Small copies take microseconds: many more samples, so their median says something.
    if nbytes < (1 << 20):
        reps = max(reps, 200)
    n = nbytes // 4
    x = torch.randn(n)  # pageable
    g = torch.empty(n, device="cuda")
    y = torch.empty(n)  # an existing pageable tensor
    out = {}

    def to_nb():
        out["t"] = x.to("cuda", non_blocking=True)

    def cpu():
        out["c"] = g.cpu()

    # For each of PATHS, in order: the timed call, and after it whether its result holds the
    # source's bytes.
    calls = [
        (to_nb, lambda: same(x, out["t"])),
        (lambda: g.copy_(x), lambda: same(x, g)),
        (lambda: y.copy_(g), lambda: torch.equal(y, x)),
        (cpu, lambda: torch.equal(out["c"], x)),
    ]
    g.copy_(x)  # the device holds the source's bytes for the paths back to the host
    ok = True
    for name, (fn, check) in zip(PATHS, calls):
        if only is None or name in only:
            ok &= report(name, nbytes, timed(fn, warm, reps), check())
    return ok


def loop(batches, batch_bytes):
    """A training-style loop: a DataLoader without pin_memory feeding a small model."""
    from torch.utils.data import DataLoader, TensorDataset

    rows = batch_bytes // (4 * 1024)
    data = TensorDataset(torch.randn(batches * rows, 1024))
    loader = DataLoader(data, batch_size=rows, pin_memory=False, num_workers=0)
    w = torch.randn(1024, 256, device="cuda")
    total = torch.zeros((), device="cuda")
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for (batch,) in loader:
        b = batch.to("cuda", non_blocking=True)
        total += (b @ w).relu().sum()
    torch.cuda.synchronize()
    wall_ms = (time.perf_counter() - t0) * 1e3
    print(json.dumps({"path": "DataLoader loop", "bytes": batches * rows * 4096,
                      "batches": batches, "wall_ms": wall_ms, "ok": bool(torch.isfinite(total))}),
          flush=True)
    return bool(torch.isfinite(total))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="4KiB,64MiB,256MiB,1GiB")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--warm", type=int, default=2)
    p.add_argument("--loop", action="store_true")
    p.add_argument("--paths", help="only these paths, comma-separated (e.g. '.cpu()'); default all")
    a = p.parse_args()
    only = a.paths.split(",") if a.paths else None
    unknown = sorted(set(only or []) - set(PATHS))
    if unknown:
        p.error(f"--paths: no path named {', '.join(unknown)} (the paths: {', '.join(PATHS)})")
    torch.cuda.init()
    ok = True
    for s in a.sizes.split(","):
        ok &= paths_at(parse_size(s), a.warm, a.reps, only)
    if a.loop:
        ok &= loop(32, 64 << 20)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
