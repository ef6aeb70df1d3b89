"""pinbench's staged copy engine and pinned arena from Python, and its run records as rows.

    import pinbench
    copier = pinbench.StagedCopier()              # pins its staging rings once
    copier.to_device(gpu_tensor, numpy_array)     # returns when the data is there
    c = copier.to_host_async(numpy_array, gpu_tensor, stream=torch.cuda.current_stream())
    c.wait()                                      # or raises pinbench.CudaError
    rows = pinbench.read_rows("staged-h200.json") # a list of dicts: pandas.DataFrame(rows)
    buf = pinbench.pinned_empty(64 << 30)         # page-locked in chunks, the size asked exactly

Host ends: NumPy arrays, torch CPU tensors (pageable or pinned), anything with
__array_interface__, DLPack or the buffer protocol. Device ends: torch CUDA tensors, CuPy arrays,
anything with __cuda_array_interface__ or a CUDA DLPack export. Both ends must be contiguous and
of one dtype and shape. A stream is None (the legacy default stream), an int handle, a torch or
CuPy stream, or anything with __cuda_stream__. The engine is a C++ library (libpinbench_c.so,
docs/python.md); this package is a thin layer over it, with ctypes, for every Python 3.
"""

import json
import threading

from . import _arrays, _checks
from ._lib import (
    ArgumentError,
    Block as _Block,
    BlockOptions as _BlockOptions,
    CudaError,
    Error,
    NoGpuError,
    Options,
    RecordError,
    lib as _load,
    raise_for as _raise_for,
)

import ctypes as _ct

__all__ = [
    "ArenaStats",
    "ArgumentError",
    "BlockCopier",
    "Copy",
    "CudaError",
    "Error",
    "NoGpuError",
    "PinnedArena",
    "RecordError",
    "StagedCopier",
    "arena_of",
    "copy",
    "copy_async",
    "device_count",
    "library_version",
    "pinned_empty",
    "read_record",
    "read_rows",
    "to_device",
    "to_device_async",
    "to_host",
    "to_host_async",
]

__version__ = "0.1.0"

_OPTION_NAMES = [name for name, _ in Options._fields_]
_OPTION_TYPES = dict(Options._fields_)  # each field's C type: a C int, or a size_t


def library_version():
    """The version of the loaded libpinbench_c.so."""
    return _load().pinbench_version().decode()


def device_count():
    """Usable CUDA devices; 0 where there are none (no device, no driver)."""
    n = _ct.c_int(0)
    _raise_for(_load().pinbench_device_count(_ct.byref(n)))
    return n.value


def _no_gpu_reason():
    n = _ct.c_int(0)
    L = _load()
    L.pinbench_device_count(_ct.byref(n))
    return (L.pinbench_last_error() or b"").decode("utf-8", "replace")


def stream_handle(stream):
    """The cudaStream_t of `stream` as an int: None is 0 (the legacy default stream)."""
    if stream is None:
        return 0
    if isinstance(stream, bool) or isinstance(stream, float):
        raise ArgumentError(f"pinbench: a stream cannot be a {type(stream).__name__}")
    if isinstance(stream, int):
        handle = stream
    elif hasattr(stream, "__cuda_stream__"):  # the CUDA stream protocol: (version, handle)
        handle = stream.__cuda_stream__()[1]
    elif hasattr(stream, "cuda_stream"):  # torch.cuda.Stream, torch.cuda.ExternalStream
        handle = stream.cuda_stream
    elif hasattr(stream, "ptr") and not hasattr(stream, "__array_interface__"):  # cupy
        handle = stream.ptr
    else:
        raise ArgumentError(
            f"pinbench: a stream must be None, an int (a cudaStream_t), a torch.cuda.Stream or "
            f"a cupy.cuda.Stream, not a {type(stream).__name__}"
        )
    if not isinstance(handle, int) or isinstance(handle, bool):
        raise ArgumentError(f"pinbench: the stream's handle is a {type(handle).__name__}, not an int")
    if handle < 0 or handle > _checks.largest(_ct.c_size_t):
        raise ArgumentError(f"pinbench: stream handle {handle} is not a cudaStream_t")
    return handle


def _stream_device(stream):
    """The device a torch stream says it belongs to, or None when it does not say."""
    dev = getattr(stream, "device", None)
    index = getattr(dev, "index", None)
    if isinstance(index, int):
        return index
    dev_id = getattr(stream, "device_id", None)  # cupy
    return dev_id if isinstance(dev_id, int) else None


def _plan(dst, src, to_device):
    """Checks the two ends of a copy (raising ArgumentError) and returns their Sides."""
    d = _arrays.describe("destination", dst)
    s = _arrays.describe("source", src)
    direction = "to_device" if to_device else "to_host"
    want_gpu = ("destination", d) if to_device else ("source", s)
    want_host = ("source", s) if to_device else ("destination", d)
    if not want_gpu[1].on_gpu:
        raise ArgumentError(
            f"pinbench: {direction}: the {want_gpu[0]} is host memory (read through "
            f"{want_gpu[1].what}); it must be GPU memory (a torch CUDA tensor, a CuPy array)"
        )
    if want_host[1].on_gpu:
        raise ArgumentError(
            f"pinbench: {direction}: the {want_host[0]} is GPU memory (read through "
            f"{want_host[1].what}); it must be host memory (a NumPy array, a CPU tensor)"
        )
    if d.readonly:
        raise ArgumentError(f"pinbench: {direction}: the destination is read-only")
    if d.dtype != s.dtype:
        raise ArgumentError(
            f"pinbench: {direction}: the destination's dtype {d.dtype} is not the source's "
            f"{s.dtype}"
        )
    if d.shape != s.shape:
        raise ArgumentError(
            f"pinbench: {direction}: the destination's shape {d.shape} is not the source's "
            f"{s.shape}"
        )
    if d.nbytes != s.nbytes:  # same dtype and shape, so only an exporter's error gets here
        raise ArgumentError(
            f"pinbench: {direction}: the destination holds {d.nbytes} bytes, the source {s.nbytes}"
        )
    return d, s


class Copy:
    """A copy in flight (from the *_async calls). Keeps both ends alive until it completes."""

    def __init__(self, handle, nbytes, keep):
        self._handle = handle
        self._keep = keep
        self.nbytes = nbytes

    def wait(self):
        """Blocks until the copy is complete; raises CudaError if it failed. Idempotent."""
        if self._handle is None:
            return
        _raise_for(_load().pinbench_copy_wait(self._handle))

    def done(self):
        """Whether the copy is complete (successfully or not); never blocks."""
        if self._handle is None:
            return True
        flag = _ct.c_int(0)
        _raise_for(_load().pinbench_copy_done(self._handle, _ct.byref(flag)))
        return bool(flag.value)

    def stream_wait(self, stream):
        """Makes `stream` wait on the device for this copy's device work (see the engine's
        StagedCopy::stream_wait): later work there sees the data of a copy to the device."""
        if self._handle is None:
            return
        _raise_for(_load().pinbench_copy_stream_wait(self._handle, stream_handle(stream)))

    @property
    def staged(self):
        """False when the copy went straight to cudaMemcpyAsync (small, or pinned memory)."""
        if self._handle is None:
            return False
        flag = _ct.c_int(0)
        _raise_for(_load().pinbench_copy_staged(self._handle, _ct.byref(flag)))
        return bool(flag.value)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is None:
            return
        try:
            L = _load()
            # Never free the memory of a copy still running: wait first, whatever it says.
            L.pinbench_copy_wait(handle)
            L.pinbench_copy_free(handle)
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


class StagedCopier:
    """pinbench::StagedCopier: staging rings pinned once, host threads that move pageable
    memory through them. Keyword options are StagedCopyOptions' (h2d_chunk_bytes, h2d_depth,
    h2d_threads, h2d_direct_below_bytes, d2h_chunk_bytes, d2h_depth, d2h_threads,
    d2h_direct_below_bytes, edge_chunk_bytes, max_staging_bytes, streaming_drain,
    streaming_fill_edges, caller_copies, caller_drives, host_threads, prefault_from_bytes,
    fresh_huge_pages); `device` is the CUDA ordinal (None: the current device). Raises
    NoGpuError without a usable GPU."""

    def __init__(self, device=None, **options):
        # Every argument is checked before the library is loaded or CUDA is called.
        given = {}
        for name, value in options.items():
            if name not in _OPTION_NAMES or name == "device":
                raise ArgumentError(
                    f"pinbench: StagedCopier has no option {name!r}; it has "
                    + ", ".join(n for n in _OPTION_NAMES if n != "device")
                )
            if isinstance(value, bool):  # the switches (streaming_drain, ...) take True and False
                value = int(value)
            given[name] = _checks.whole(value, f"StagedCopier option {name}", _OPTION_TYPES[name])
        if device is not None:
            device = _checks.whole(device, "device", _ct.c_int, noun="a CUDA ordinal")
        L = _load()
        o = Options()
        L.pinbench_default_options(_ct.byref(o))
        for name, value in given.items():
            setattr(o, name, value)
        if device is not None:
            o.device = device
        handle = _ct.c_void_p()
        _raise_for(L.pinbench_copier_create(_ct.byref(o), _ct.byref(handle)))
        self._handle = handle
        dev = _ct.c_int(0)
        _raise_for(L.pinbench_copier_device(handle, _ct.byref(dev)))
        self.device = dev.value

    @property
    def staging_bytes(self):
        """Page-locked bytes held for staging, fixed at construction."""
        n = _ct.c_size_t(0)
        _raise_for(_load().pinbench_copier_staging_bytes(self._handle, _ct.byref(n)))
        return n.value

    def close(self):
        """Completes every submitted copy and frees the engine (also on garbage collection)."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None:
            _load().pinbench_copier_destroy(handle)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _submit(self, dst, src, stream, to_device, wait):
        if self._handle is None:
            raise ArgumentError("pinbench: this StagedCopier is closed")
        d, s = _plan(dst, src, to_device)
        handle = stream_handle(stream)
        sdev = _stream_device(stream)
        if sdev is not None and sdev != self.device:
            raise ArgumentError(
                f"pinbench: the stream belongs to device {sdev}, the engine to device {self.device}"
            )
        L = _load()
        args = (self._handle, _ct.c_void_p(d.ptr), _ct.c_void_p(s.ptr), d.nbytes, handle)
        if d.nbytes == 0:
            return None if wait else Copy(None, 0, None)
        if wait:
            f = L.pinbench_copy_to_device if to_device else L.pinbench_copy_to_host
            _raise_for(f(*args))
            return None
        f = L.pinbench_copy_to_device_async if to_device else L.pinbench_copy_to_host_async
        out = _ct.c_void_p()
        _raise_for(f(*args, _ct.byref(out)))
        return Copy(out, d.nbytes, (d.keep, s.keep))

    def to_device(self, dst, src, stream=None):
        """Host `src` -> GPU `dst`; returns when the data is on the device."""
        self._submit(dst, src, stream, True, True)

    def to_host(self, dst, src, stream=None):
        """GPU `src` -> host `dst`; returns when the data is in `dst`."""
        self._submit(dst, src, stream, False, True)

    def to_device_async(self, dst, src, stream=None):
        """As to_device, returning a Copy at once; leave both ends alone until its wait()."""
        return self._submit(dst, src, stream, True, False)

    def to_host_async(self, dst, src, stream=None):
        """As to_host, returning a Copy at once."""
        return self._submit(dst, src, stream, False, False)

    def copy(self, dst, src, stream=None):
        """to_device or to_host, whichever the two ends call for."""
        self._submit(dst, src, stream, _arrays.describe("destination", dst).on_gpu, True)

    def copy_async(self, dst, src, stream=None):
        return self._submit(dst, src, stream, _arrays.describe("destination", dst).on_gpu, False)


_defaults = {}
_defaults_lock = threading.Lock()


def _default_copier(gpu_side):
    """One engine per device, made on first use: the device of the copy's GPU end."""
    dev = _ct.c_int(-1)
    status = _load().pinbench_pointer_device(_ct.c_void_p(gpu_side.ptr), _ct.byref(dev))
    _raise_for(status)
    device = dev.value if dev.value >= 0 else None
    with _defaults_lock:
        key = device if device is not None else -1
        if key not in _defaults:
            _defaults[key] = StagedCopier(device=device)
        return _defaults[key]


def _module_submit(dst, src, stream, to_device, wait):
    d, s = _plan(dst, src, to_device)
    stream_handle(stream)  # a bad stream is refused before any CUDA call
    if not device_count():
        raise NoGpuError(_no_gpu_reason())
    copier = _default_copier(d if to_device else s)
    return copier._submit(dst, src, stream, to_device, wait)


def to_device(dst, src, stream=None):
    """StagedCopier.to_device on a shared engine for the device of `dst`."""
    _module_submit(dst, src, stream, True, True)


def to_host(dst, src, stream=None):
    """StagedCopier.to_host on a shared engine for the device of `src`."""
    _module_submit(dst, src, stream, False, True)


def to_device_async(dst, src, stream=None):
    return _module_submit(dst, src, stream, True, False)


def to_host_async(dst, src, stream=None):
    return _module_submit(dst, src, stream, False, False)


def copy(dst, src, stream=None):
    """to_device or to_host, whichever the two ends call for."""
    _module_submit(dst, src, stream, _arrays.describe("destination", dst).on_gpu, True)


def copy_async(dst, src, stream=None):
    return _module_submit(dst, src, stream, _arrays.describe("destination", dst).on_gpu, False)


def _record_text(function, path):
    # C reads a path up to its first NUL: "a.json\0b" would read a.json, another file.
    encoded = _checks.path(path, "the path", RecordError)
    out = _ct.c_void_p()
    L = _load()
    _raise_for(getattr(L, function)(encoded, _ct.byref(out)))
    try:
        return _ct.string_at(out.value).decode("utf-8")
    finally:
        L.pinbench_free(out)


def read_rows(path):
    """The run record at `path`, validated as every pinbench reader does, as a list of flat
    dicts, one per case (the columns of `pinbench report --csv`, typed; see docs/python.md).
    Raises RecordError with pinbench's one-line reason for a file that is not a valid record."""
    return json.loads(_record_text("pinbench_record_rows", path))


def read_record(path):
    """The whole run record at `path` as a dict (validated; docs/record-schema.md)."""
    return json.loads(_record_text("pinbench_record_json", path))


_BLOCK_METHODS = ["batch-stream", "batch-overlap", "loop", "staged", "kernel"]


def _block(i, b):
    """Block i's (host_offset, device_offset, nbytes), each an exact int a size_t holds."""
    try:
        parts = tuple(b)
    except TypeError:
        parts = ()
    if len(parts) != 3:
        raise ArgumentError(
            f"pinbench: block {i} must be (host_offset, device_offset, nbytes), not {b!r}"
        )
    names = ("host offset", "device offset", "size")
    return tuple(
        _checks.whole(v, f"block {i}'s {name}", _ct.c_size_t, noun="a whole number of bytes")
        for v, name in zip(parts, names)
    )


class BlockCopier:
    """pinbench::BlockCopier: many blocks between a host arena and a device arena, moved by the
    method fastest for their shape on this device, chosen from a calibration it measures on first
    use and caches (or from a `pinbench blocks --recommend` file, `rules_file`). Every method
    keeps the stream order of a cudaMemcpyAsync on the stream given. docs/blocks.md.

        copier = pinbench.BlockCopier()
        copier.copy("h2d", host_arena, gpu_arena, [(host_off, dev_off, nbytes), ...], stream)
        copier.stats()["last"]["reason"]

    Arenas: a host array or tensor (NumPy, torch CPU, pinned or not) and a GPU one (torch CUDA,
    CuPy), contiguous; offsets and sizes are in bytes."""

    def __init__(
        self,
        device=None,
        rules_file=None,
        cache_dir=None,
        use_cache=True,
        max_slowdown_pct=None,
        kernel_sms=0,
    ):
        # Every argument is checked, by the one checker, before the library is loaded.
        if device is not None:
            device = _checks.whole(device, "device", _ct.c_int, noun="a CUDA ordinal")
        texts = {}  # kept alive while the library reads them
        for name, value in (("rules_file", rules_file), ("cache_dir", cache_dir)):
            if value is not None:
                texts[name] = _checks.path(value, name)
        if max_slowdown_pct is not None:
            # A slowdown budget: 0 to the most a slowdown can be (base/slowdown_range.hpp).
            max_slowdown_pct = _checks.real(max_slowdown_pct, "max_slowdown_pct", 0, "a percentage",
                                            maximum=10000)
        kernel_sms = _checks.whole(kernel_sms, "kernel_sms", _ct.c_uint)
        L = _load()
        o = _BlockOptions()
        L.pinbench_block_default_options(_ct.byref(o))
        if device is not None:
            o.device = device
        self._texts = list(texts.values())
        for name, encoded in texts.items():
            setattr(o, name, encoded)
        o.use_cache = 1 if use_cache else 0
        if max_slowdown_pct is not None:
            o.max_slowdown_pct = max_slowdown_pct
        o.kernel_sms = kernel_sms
        handle = _ct.c_void_p()
        _raise_for(L.pinbench_block_copier_create(_ct.byref(o), _ct.byref(handle)))
        self._handle = handle

    def close(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None:
            _load().pinbench_block_copier_destroy(handle)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def calibrate(self):
        """Reads the cache or the rules, or measures, now rather than on the first copy."""
        self._open()
        _raise_for(_load().pinbench_block_copier_calibrate(self._handle))

    def _open(self):
        if self._handle is None:
            raise ArgumentError("pinbench: this BlockCopier is closed")

    def copy(self, direction, host_arena, device_arena, blocks, stream=None, method=None):
        """Moves `blocks` ((host_offset, device_offset, nbytes) each) between the arenas:
        direction "h2d" or "d2h". `method` names one ("batch-stream", "batch-overlap", "loop",
        "staged", "kernel") instead of the copier's choice. Every block must lie inside both
        arenas."""
        self._open()
        if direction not in ("h2d", "d2h"):
            raise ArgumentError(f"pinbench: direction must be 'h2d' or 'd2h', not {direction!r}")
        if method is None:
            m = -1
        elif method in _BLOCK_METHODS:
            m = _BLOCK_METHODS.index(method)
        else:
            raise ArgumentError(
                f"pinbench: method {method!r} is not one of " + ", ".join(_BLOCK_METHODS)
            )
        h = _arrays.describe("host arena", host_arena)
        d = _arrays.describe("device arena", device_arena)
        if h.on_gpu:
            raise ArgumentError("pinbench: the host arena is GPU memory")
        if not d.on_gpu:
            raise ArgumentError("pinbench: the device arena is not GPU memory")
        if direction == "d2h" and h.readonly:
            raise ArgumentError("pinbench: the host arena is read-only")
        blocks = list(blocks)
        table = (_Block * max(1, len(blocks)))()
        for i, b in enumerate(blocks):
            ho, do, n = _block(i, b)
            if ho < 0 or do < 0 or n <= 0 or ho + n > h.nbytes or do + n > d.nbytes:
                raise ArgumentError(
                    f"pinbench: block {i} ({ho}, {do}, {n}) does not lie inside the arenas "
                    f"({h.nbytes} and {d.nbytes} bytes)"
                )
            table[i] = _Block(ho, do, n)
        _raise_for(
            _load().pinbench_block_copy(
                self._handle,
                0 if direction == "h2d" else 1,
                _ct.c_void_p(h.ptr),
                _ct.c_void_p(d.ptr),
                table,
                len(blocks),
                stream_handle(stream),
                m,
            )
        )

    def stats(self):
        """What the copier chose and why, where its choices come from, and its counts, as a
        dict (docs/blocks.md)."""
        self._open()
        out = _ct.c_void_p()
        L = _load()
        _raise_for(L.pinbench_block_copier_stats(self._handle, _ct.byref(out)))
        try:
            return json.loads(_ct.string_at(out.value).decode("utf-8"))
        finally:
            L.pinbench_free(out)


# Last: the arena's module reads stream_handle from this one.
from ._arena import ArenaStats, PinnedArena, arena_of, pinned_empty  # noqa: E402
