"""PyTorch's own ways of moving a tensor between host and GPU, beside pinbench's engine driven
from Python, on the same tensors in one process: what `pinbench staged --torch` runs.

Each method moves the first `bytes` of one pageable host tensor (or its pinned twin) to the GPU,
or one device tensor back, `warmups` untimed then `iterations` timed times. A sample is the host
clock from the call to the copy's completion (torch's current stream synchronized), as every
method of `pinbench staged` is timed, and every sample is checked byte for byte: a device result
against a device copy of the source (torch.equal on uint8), a host result against the source
(NumPy, on this thread: torch's CPU ops leave OpenMP threads spinning that would take the CPUs
the engine copies with). Destinations are zeroed before each sample, and a result torch allocated is zeroed before it
goes back to torch's cache, so a copy that did nothing cannot pass on bytes left by the last.

Methods (host to device): torch-pageable-to  x.to("cuda", non_blocking=True), x pageable
                          torch-pin-memory-to x.pin_memory().to("cuda", non_blocking=True)
                          torch-pinned-to    the same .to() from an already pinned tensor
                          python-staged      pinbench.StagedCopier.to_device(d, x)
         (device to host): torch-cpu         d.cpu() (a new pageable tensor each time)
                          torch-copy-to-pageable  x.copy_(d), x pageable
                          torch-copy-to-pinned    p.copy_(d, non_blocking=True), p pinned
                          python-staged      pinbench.StagedCopier.to_host(x, d)

Prints one JSON object on stdout: torch's and CUDA's versions, the device, and per case the
method, direction, memory, bytes and samples_ms, with the first failure if any. Progress goes
to stderr.

    python3 -m pinbench.torch_paths --sizes 1048576,67108864 --iterations 10
"""

import argparse
import json
import sys
import time


def _log(text):
    print(text, file=sys.stderr, flush=True)


H2D_METHODS = ["torch-pageable-to", "torch-pin-memory-to", "torch-pinned-to", "python-staged"]
D2H_METHODS = ["torch-cpu", "torch-copy-to-pageable", "torch-copy-to-pinned", "python-staged"]

_ENGINE_KEYS = {
    ("to_device", "chunk_bytes"): "h2d_chunk_bytes",
    ("to_device", "depth"): "h2d_depth",
    ("to_device", "threads"): "h2d_threads",
    ("to_device", "direct_below_bytes"): "h2d_direct_below_bytes",
    ("to_host", "chunk_bytes"): "d2h_chunk_bytes",
    ("to_host", "depth"): "d2h_depth",
    ("to_host", "threads"): "d2h_threads",
    ("to_host", "direct_below_bytes"): "d2h_direct_below_bytes",
}


def engine_options(text):
    """StagedCopier keyword options from the JSON of a record's config.engine."""
    if not text:
        return {}
    j = json.loads(text)
    out = {}
    for (ring, field), name in _ENGINE_KEYS.items():
        if ring in j and field in j[ring]:
            out[name] = int(j[ring][field])
    for name in ("edge_chunk_bytes", "max_staging_bytes", "host_threads", "prefault_from_bytes"):
        if name in j:
            out[name] = int(j[name])
    for name in ("streaming_drain", "streaming_fill_edges", "caller_copies", "caller_drives",
                 "fresh_huge_pages"):
        if name in j:
            out[name] = bool(j[name])
    return out


def measure(args):
    import ctypes

    import numpy as np
    import torch

    import pinbench

    dev = torch.device("cuda", args.device)
    torch.cuda.set_device(dev)
    stream = torch.cuda.current_stream(dev)
    largest = max(args.sizes)
    gen = torch.Generator().manual_seed(0x57A6ED)
    src = torch.randint(0, 256, (largest,), dtype=torch.uint8, generator=gen)  # pageable
    pinned_src = src.pin_memory()
    ref = pinned_src.to(dev, non_blocking=True)  # the source's bytes on the device
    dst_dev = torch.empty(largest, dtype=torch.uint8, device=dev)
    dst_host = torch.empty(largest, dtype=torch.uint8)  # pageable
    dst_pinned = torch.empty(largest, dtype=torch.uint8, pin_memory=True)
    stream.synchronize()
    copier = pinbench.StagedCopier(device=args.device, **engine_options(args.engine))
    kinds = {
        "source_pinned": bool(src.is_pinned()),
        "pinned_source_pinned": bool(pinned_src.is_pinned()),
        "host_destination_pinned": bool(dst_host.is_pinned()),
        "pinned_destination_pinned": bool(dst_pinned.is_pinned()),
    }
    kinds_ok = (
        not kinds["source_pinned"]
        and kinds["pinned_source_pinned"]
        and not kinds["host_destination_pinned"]
        and kinds["pinned_destination_pinned"]
    )

    def h2d(method, n):
        x = src[:n]
        if method == "torch-pageable-to":
            return x.to(dev, non_blocking=True)
        if method == "torch-pin-memory-to":
            return x.pin_memory().to(dev, non_blocking=True)
        if method == "torch-pinned-to":
            return pinned_src[:n].to(dev, non_blocking=True)
        d = dst_dev[:n]
        copier.to_device(d, x, stream=stream)
        return d

    def d2h(method, n):
        d = ref[:n]
        if method == "torch-cpu":
            return d.cpu()
        if method == "torch-copy-to-pageable":
            return dst_host[:n].copy_(d)
        if method == "torch-copy-to-pinned":
            return dst_pinned[:n].copy_(d, non_blocking=True)
        h = dst_host[:n]
        copier.to_host(h, d, stream=stream)
        return h

    # Host memory is cleared and compared with memset and NumPy, on this thread alone: torch's
    # own CPU ops (zero_, equal) run on OpenMP threads that keep spinning after they finish, and
    # on a 16-CPU host they would take the CPUs the engine's threads copy with in the next sample.
    src_np = src.numpy()

    def host_zero(t):
        ctypes.memset(t.data_ptr(), 0, t.numel())

    def same(out, expected, to_device):
        if to_device:
            return torch.equal(out, expected)  # on the device, on torch's stream
        return np.array_equal(out.numpy(), expected)

    def first_difference(out, expected, to_device):
        if to_device:
            diff = (out != expected).nonzero()
            return int(diff[0]) if diff.numel() else -1
        diff = np.flatnonzero(out.numpy() != expected)
        return int(diff[0]) if diff.size else -1

    def clear(method, n, to_device):
        if to_device and method == "python-staged":
            dst_dev[:n].zero_()
        elif not to_device and method in ("torch-copy-to-pageable", "python-staged"):
            host_zero(dst_host[:n])
        elif not to_device and method == "torch-copy-to-pinned":
            host_zero(dst_pinned[:n])
        stream.synchronize()

    cases = []
    plan = []
    for direction in args.directions:
        for n in sorted(args.sizes):
            for m in H2D_METHODS if direction == "h2d" else D2H_METHODS:
                plan.append((direction, n, m))
    for i, (direction, n, method) in enumerate(plan):
        to_device = direction == "h2d"
        _log(f"[torch {i + 1}/{len(plan)}] {direction} {method} {n} bytes")
        expected = ref[:n] if to_device else src_np[:n]
        run = h2d if to_device else d2h
        case = {
            "method": method,
            "direction": direction,
            "memory": "pinned" if method in ("torch-pinned-to", "torch-copy-to-pinned") else "pageable",
            "bytes": n,
            "warmups": args.warmups,
            "samples_ms": [],
            "failed": False,
            "detail": "",
        }
        try:
            for w in range(args.warmups):
                out = run(method, n)
                stream.synchronize()
                del out
            for sample in range(args.iterations):
                clear(method, n, to_device)
                t0 = time.perf_counter()
                out = run(method, n)
                stream.synchronize()
                t1 = time.perf_counter()
                case["samples_ms"].append((t1 - t0) * 1e3)
                if not same(out, expected, to_device):
                    first = first_difference(out, expected, to_device)
                    case["failed"] = True
                    case["detail"] = (
                        f"sample {sample}: the first differing byte is at offset {first} of {n}"
                    )
                    break
                if out.data_ptr() not in (dst_dev.data_ptr(), dst_host.data_ptr(),
                                          dst_pinned.data_ptr()):
                    # torch's cached block goes back holding zeros
                    if to_device:
                        out.zero_()
                        stream.synchronize()
                    else:
                        host_zero(out)
                del out
        except Exception as e:  # a CUDA or engine failure is the case's failure
            case["failed"] = True
            case["detail"] = f"{type(e).__name__}: {e}"
        cases.append(case)
    copier.close()
    return {
        "torch_version": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "python": sys.version.split()[0],
        "device": torch.cuda.get_device_name(dev),
        "pinbench_library": pinbench.library_version(),
        "memory_kinds": kinds,
        "memory_kinds_ok": kinds_ok,
        "timing": "host clock from the call to the copy's completion (torch's current stream "
        "synchronized)",
        "cases": cases,
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", required=True, help="bytes, comma-separated")
    p.add_argument("--directions", default="h2d,d2h")
    p.add_argument("--warmups", type=int, default=2)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--engine", default="", help="the engine's options as record JSON")
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    args.directions = [d for d in args.directions.split(",") if d]
    if not args.sizes or any(s <= 0 for s in args.sizes):
        p.error("--sizes needs positive byte counts")
    if any(d not in ("h2d", "d2h") for d in args.directions):
        p.error("--directions takes h2d and d2h")
    if args.iterations < 1 or args.warmups < 0:
        p.error("--iterations must be at least 1 and --warmups at least 0")
    result = measure(args)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
