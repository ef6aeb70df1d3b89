"""CuPy's own copy paths, timed and checked byte for byte: the program that `pinbench accel` runs
to measure what it does for CuPy (whose copies reach the driver through its entry points, not
the shared runtime's). Each path is run WARM times, then timed REPS times from the call to the
device's synchronization, and its result is compared with the source.

    python3 accel_cupy.py [--sizes 64MiB,256MiB,1GiB] [--reps 5]

Paths: `asarray` (cupy.asarray of a pageable NumPy array: to the device), `get-into` (.get(out=)
into an existing NumPy array: to the host), `get` (.get() into a new array). Prints one JSON
object per line: {"path", "bytes", "gb_per_s" (median), "samples_ms", "ok"}. Exit 1 when a byte
is wrong.
"""
import argparse
import json
import statistics
import sys
import time

import cupy
import numpy

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
WARM = 2


def parse_size(text):
    for unit, scale in UNITS.items():
        if text.endswith(unit):
            return int(text[: -len(unit)]) * scale
    return int(text)


def timed(fn, reps):
    for _ in range(WARM):
        fn()
    cupy.cuda.Device().synchronize()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        cupy.cuda.Device().synchronize()
        samples.append((time.perf_counter() - t0) * 1e3)
    return samples


def report(path, nbytes, samples, ok):
    median = statistics.median(samples)
    print(json.dumps({"path": path, "bytes": nbytes, "gb_per_s": nbytes / (median * 1e6),
                      "samples_ms": samples, "ok": bool(ok)}), flush=True)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64MiB,256MiB,1GiB")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    good = True
    for nbytes in (parse_size(s) for s in args.sizes.split(",")):
        n = nbytes // 4
        source = (numpy.arange(n, dtype=numpy.uint32) * 2654435761).astype(numpy.uint32)
        box = {}

        def to_device():
            box["g"] = cupy.asarray(source)

        samples = timed(to_device, args.reps)
        g = box["g"]
        back = numpy.empty_like(source)
        cupy.cuda.runtime.memcpy(back.ctypes.data, g.data.ptr, nbytes,
                                 cupy.cuda.runtime.memcpyDeviceToHost)
        good &= report("asarray", nbytes, samples, numpy.array_equal(back, source))

        into = numpy.empty_like(source)
        samples = timed(lambda: g.get(out=into), args.reps)
        good &= report("get-into", nbytes, samples, numpy.array_equal(into, source))

        samples = timed(lambda: box.__setitem__("h", g.get()), args.reps)
        good &= report("get", nbytes, samples, numpy.array_equal(box["h"], source))
        del g, box
        cupy.get_default_memory_pool().free_all_blocks()
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
