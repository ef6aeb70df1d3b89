"""pinbench::PinnedArena from Python (docs/python.md, "Page-locked memory"): host memory of exactly
the size asked, page-locked in chunks on background threads, and pinned_empty(), a NumPy array or
torch tensor backed by one.

    buf = pinbench.pinned_empty(64 << 30, like="torch")   # 64 GiB, page-locked, no rounding up
    buf[:n].to("cuda", non_blocking=True)                  # inside one chunk: see below

    with pinbench.PinnedArena(64 << 30) as arena:          # returns at once; threads pin
        arena.wait(0, 1 << 30)                             # the first GiB is page-locked
        arena.copy_to_device(gpu_tensor, offset=0, stream=torch.cuda.current_stream())

One copy, one chunk. Each chunk (32 MiB unless chunk_bytes says otherwise) is its own
registration with the driver, and one cudaMemcpyAsync that spans two of them fails: a torch
`t[a:b].to("cuda", non_blocking=True)` of a slice that crosses a chunk boundary raises CUDA's
invalid-argument error. Blocks whose size divides chunk_bytes, at offsets that are multiples of
it, never cross; PinnedArena.copy_to_device and copy_from_device split a range where chunks meet
for you, and piece_bytes() says how far one copy of your own may reach.

Lifetime: the memory lives as long as the PinnedArena (until close()) or any array or tensor made
from it, whichever is last: an array's base object holds it. It is freed (after the device's
queued work is done) when the last of them goes."""

import ctypes as _ct
import dataclasses
import weakref

from . import _arrays, _checks
from ._lib import ArenaStats as _CStats
from ._lib import ArgumentError, Error
from ._lib import lib as _load
from ._lib import raise_for as _raise_for

_NO_HUGE_PAGES, _PORTABLE = 1, 2  # PINBENCH_ARENA_* in pinbench_c.h

_arenas = weakref.WeakSet()  # every PinnedArena alive, for arena_of()


@dataclasses.dataclass(frozen=True)
class ArenaStats:
    """PinnedArenaStats: how the arena was pinned so far."""

    bytes: int  # the size asked, rounded up to a 4 KiB page
    chunk_bytes: int  # the last chunk may be shorter
    chunks: int
    threads: int
    chunks_pinned: int
    first_chunk_ms: float  # from the start to the first chunk page-locked
    pinned_ms: float  # to the last one; 0 while chunks remain
    longest_call_ms: float  # the longest cudaHostRegister of one chunk


class _Memory:
    """Owns the C arena. Held by the PinnedArena until close() and by every array made from it;
    the arena is destroyed when the last holder lets go."""

    def __init__(self, handle):
        self.handle = handle

    def __del__(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle is None:
            return
        try:
            _load().pinbench_arena_destroy(handle)
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


class _View:
    """The base object of an array made from an arena: its bytes through __array_interface__,
    and the references that keep them mapped and page-locked while the array lives (the memory)
    and the arena findable (arena_of)."""

    def __init__(self, arena, memory, ptr, count, dtype):
        self._arena = arena
        self._memory = memory
        self.__array_interface__ = {
            "version": 3,
            "shape": (count,),
            "typestr": dtype.str,
            "descr": dtype.descr,
            "data": (ptr, False),
        }


def _numpy(what):
    try:
        import numpy
    except ImportError:
        raise Error(f"pinbench: {what} needs NumPy, which is not installed") from None
    return numpy


def _dtype(np, dtype):
    try:
        d = np.dtype(dtype)
    except TypeError as e:
        raise ArgumentError(f"pinbench: dtype {dtype!r} is not a NumPy dtype: {e}") from None
    if d.hasobject or d.itemsize == 0:
        raise ArgumentError(f"pinbench: dtype {d} holds no fixed number of bytes per item")
    return d


def _device_end(function, name, obj, nbytes, writes):
    """The address and size of a copy's device end: a raw pointer (an int; then `nbytes` is
    needed) or anything the module reads (torch CUDA tensor, CuPy array, ...)."""
    if isinstance(obj, int) and not isinstance(obj, bool):
        ptr = _checks.whole(obj, f"{function}: the {name} pointer", _ct.c_size_t, noun="an address")
        if nbytes is None:
            raise ArgumentError(f"pinbench: {function}: nbytes is needed with a raw {name} pointer")
        return ptr, None
    side = _arrays.describe(name, obj)
    if not side.on_gpu:
        raise ArgumentError(
            f"pinbench: {function}: the {name} is host memory (read through {side.what}); it must "
            f"be GPU memory (a torch CUDA tensor, a CuPy array) or a device address"
        )
    if writes and side.readonly:
        raise ArgumentError(f"pinbench: {function}: the {name} is read-only")
    return side.ptr, side


class PinnedArena:
    """pinbench::PinnedArena: `nbytes` of page-locked host memory (exactly that, no rounding up
    to a power of two), pinned in chunks of `chunk_bytes` (None: 32 MiB; rounded up to a multiple
    of 2 MiB) on `threads` background threads (None: half the CPUs this process may use, at most
    16), each chunk usable as soon as it is pinned. The constructor returns at once; wait() for
    a range before relying on it being page-locked (the copies here wait for you). The bytes
    start as zero.

    `huge_pages`: transparent huge pages (faster to fault in and to register); `portable`:
    page-locked for every device; `device`: the CUDA ordinal it registers on (None: the current
    device). A size past one of the host's limits (the memory this process may use, its cgroup's
    limit, the kernel's and the driver's per-call limits, vm.max_map_count) is refused with an
    ArgumentError that names the limit and its value, never attempted. NoGpuError without a
    usable GPU; CudaError (from wait() and the copies) where a chunk's registration failed.

    One copy, one chunk: a single cudaMemcpyAsync (a torch `.to("cuda", non_blocking=True)` of a
    slice) must stay inside one chunk; across a boundary CUDA answers with an invalid-argument
    error. Blocks whose size divides chunk_bytes, at offsets that are multiples of it, never
    cross. copy_to_device and copy_from_device split for you.

    close() (also `with`) lets go of the memory: it is freed then, or when the last array made
    by array() or pinned_empty() goes, whichever is later. Freeing first waits for the work
    queued on the device (a copy still queued never touches freed memory)."""

    def __init__(
        self, nbytes, chunk_bytes=None, threads=None, *, huge_pages=True, portable=False,
        device=None
    ):
        # Every argument is checked, by the one checker, before the library is loaded.
        nbytes = _checks.whole(nbytes, "nbytes", _ct.c_size_t, 1, "a number of bytes")
        chunk = 0
        if chunk_bytes is not None:
            chunk = _checks.whole(chunk_bytes, "chunk_bytes", _ct.c_size_t, 1, "a number of bytes")
        count = 0 if threads is None else _checks.whole(threads, "threads", _ct.c_uint, 1)
        flags = 0 if _checks.switch(huge_pages, "huge_pages") else _NO_HUGE_PAGES
        flags |= _PORTABLE if _checks.switch(portable, "portable") else 0
        ordinal = -1
        if device is not None:
            ordinal = _checks.whole(device, "device", _ct.c_int, noun="a CUDA ordinal")
        L = _load()
        handle = _ct.c_void_p()
        _raise_for(L.pinbench_arena_create(nbytes, chunk, count, flags, ordinal, _ct.byref(handle)))
        self._memory = _Memory(handle)
        data = _ct.c_void_p()
        _raise_for(L.pinbench_arena_data(handle, _ct.byref(data)))
        size = _ct.c_size_t()
        _raise_for(L.pinbench_arena_size(handle, _ct.byref(size)))
        chunk_out = _ct.c_size_t()
        _raise_for(L.pinbench_arena_chunk_bytes(handle, _ct.byref(chunk_out)))
        dev = _ct.c_int()
        _raise_for(L.pinbench_arena_device(handle, _ct.byref(dev)))
        self._ptr = data.value
        self._nbytes = size.value
        self._chunk = chunk_out.value
        self._device = dev.value
        _arenas.add(self)

    @property
    def nbytes(self):
        """The size asked."""
        return self._nbytes

    @property
    def chunk_bytes(self):
        """Bytes per chunk (one registration), after rounding; the last chunk may be shorter."""
        return self._chunk

    @property
    def device(self):
        """The CUDA ordinal the chunks are registered on."""
        return self._device

    @property
    def data_ptr(self):
        """The host address of the first byte."""
        self._open()
        return self._ptr

    @property
    def closed(self):
        return self._memory is None

    def _open(self):
        if getattr(self, "_memory", None) is None:
            raise ArgumentError("pinbench: this PinnedArena is closed")
        return self._memory.handle

    def _range(self, offset, nbytes, what):
        offset = _checks.whole(offset, f"{what}: offset", _ct.c_size_t, noun="a byte offset")
        if nbytes is None:
            nbytes = max(0, self._nbytes - offset)
        nbytes = _checks.whole(nbytes, f"{what}: nbytes", _ct.c_size_t, noun="a number of bytes")
        return offset, nbytes

    def close(self):
        """Lets go of the memory: freed now, or when the last array made from it goes."""
        self._memory = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def ready(self, offset=0, nbytes=None):
        """Whether every chunk of [offset, offset + nbytes) is page-locked (nbytes None: to the
        end). Never blocks."""
        handle = self._open()
        offset, nbytes = self._range(offset, nbytes, "ready")
        flag = _ct.c_int(0)
        _raise_for(_load().pinbench_arena_ready(handle, offset, nbytes, _ct.byref(flag)))
        return bool(flag.value)

    def wait(self, offset=0, nbytes=None):
        """Returns once every chunk of [offset, offset + nbytes) is page-locked (default: the
        whole arena); raises CudaError (NoGpuError without a GPU) if one of them failed. Other
        Python threads run meanwhile."""
        handle = self._open()
        offset, nbytes = self._range(offset, nbytes, "wait")
        _raise_for(_load().pinbench_arena_wait(handle, offset, nbytes))

    def piece_bytes(self, offset, nbytes=None):
        """How many bytes from `offset` (at most `nbytes`; None: to the end) one copy may move:
        up to the end of the chunk that holds `offset`."""
        handle = self._open()
        offset, nbytes = self._range(offset, nbytes, "piece_bytes")
        out = _ct.c_size_t(0)
        _raise_for(_load().pinbench_arena_piece_bytes(handle, offset, nbytes, _ct.byref(out)))
        return out.value

    def _copy(self, to_device, end, offset, nbytes, stream):
        function = "copy_to_device" if to_device else "copy_from_device"
        handle = self._open()
        name = "destination" if to_device else "source"
        ptr, side = _device_end(function, name, end, nbytes, to_device)
        offset = _checks.whole(offset, f"{function}: offset", _ct.c_size_t, noun="a byte offset")
        if nbytes is None:
            nbytes = side.nbytes
        nbytes = _checks.whole(
            nbytes, f"{function}: nbytes", _ct.c_size_t, noun="a number of bytes"
        )
        if side is not None and nbytes > side.nbytes:
            raise ArgumentError(
                f"pinbench: {function}: the {name} holds {side.nbytes} bytes, fewer than the "
                f"{nbytes} asked"
            )
        from . import stream_handle  # the package's one stream reader

        s = stream_handle(stream)
        L = _load()
        if to_device:
            status = L.pinbench_arena_copy_to_device(handle, _ct.c_void_p(ptr), offset, nbytes, s)
        else:
            status = L.pinbench_arena_copy_from_device(handle, offset, _ct.c_void_p(ptr), nbytes, s)
        _raise_for(status)

    def copy_to_device(self, dst, offset=0, nbytes=None, stream=None):
        """The arena's bytes [offset, offset + nbytes) to the device memory `dst` (a torch CUDA
        tensor, a CuPy array, or a device address as an int), split where chunks meet, after
        waiting for the range to be page-locked. `nbytes` None: dst's size. Queued on `stream`
        (None: the legacy default stream) like one cudaMemcpyAsync: synchronize it before relying
        on the data, and keep the arena or an array of it alive until then."""
        self._copy(True, dst, offset, nbytes, stream)

    def copy_from_device(self, src, offset=0, nbytes=None, stream=None):
        """The device memory `src` into the arena's bytes [offset, offset + nbytes), split where
        chunks meet; as copy_to_device."""
        self._copy(False, src, offset, nbytes, stream)

    def offset_of(self, obj):
        """The byte offset in this arena of `obj` (an array or tensor over its memory, or a host
        address); ArgumentError when it lies outside."""
        self._open()
        ptr = _address(obj)
        if ptr is None or not self._ptr <= ptr < self._ptr + self._nbytes:
            raise ArgumentError("pinbench: offset_of: the object does not lie in this arena")
        return ptr - self._ptr

    def stats(self):
        """How the arena was pinned so far, as an ArenaStats."""
        handle = self._open()
        s = _CStats()
        _raise_for(_load().pinbench_arena_get_stats(handle, _ct.byref(s)))
        return ArenaStats(**{name: getattr(s, name) for name, _ in _CStats._fields_})

    def array(self, dtype="uint8"):
        """The whole arena as a one-dimensional NumPy array of `dtype` (its size must be a
        multiple of the dtype's). The array keeps the memory alive after close() or after this
        object is gone. It does not wait: the bytes are usable at once, page-locked chunk by
        chunk (wait() first where that matters)."""
        self._open()
        np = _numpy("PinnedArena.array")
        d = _dtype(np, dtype)
        if self._nbytes % d.itemsize:
            raise ArgumentError(
                f"pinbench: the arena's {self._nbytes} bytes are not a whole number of {d} "
                f"items ({d.itemsize} bytes each)"
            )
        return np.asarray(_View(self, self._memory, self._ptr, self._nbytes // d.itemsize, d))


def _torch_itemsize(torch, dtype):
    return torch.empty((), dtype=dtype).element_size()


def pinned_empty(
    nbytes, dtype="uint8", *, like="numpy", chunk_bytes=None, threads=None, wait=True,
    device=None
):
    """`nbytes` of page-locked host memory as a one-dimensional NumPy array (like="numpy") or
    torch CPU tensor (like="torch", through DLPack) of `dtype` (a NumPy dtype; with torch also a
    torch.dtype, bfloat16 included), backed by a PinnedArena of exactly that size: no rounding up
    to a power of two, pinned in chunks on background threads. `wait`: return once every chunk
    is page-locked (False: at once, the memory usable as it is pinned; arena_of(result).wait(...)
    waits for a range later). The bytes start as zero; the
    memory is freed when the array or tensor (and every view of it) is gone.

    One copy, one chunk: a single copy (a torch `.to("cuda", non_blocking=True)` of a slice) must
    stay inside one chunk of `chunk_bytes` (32 MiB by default); one that spans two fails with
    CUDA's invalid-argument error. Blocks whose size divides chunk_bytes, at offsets that are
    multiples of it, never cross; PinnedArena.copy_to_device splits a range for you. Errors as
    PinnedArena's."""
    if like not in ("numpy", "torch"):
        raise ArgumentError(f"pinbench: like must be 'numpy' or 'torch', not {like!r}")
    nbytes = _checks.whole(nbytes, "nbytes", _ct.c_size_t, 1, "a number of bytes")
    wait = _checks.switch(wait, "wait")
    np = _numpy("pinned_empty")
    torch = None
    torch_dtype = None
    if like == "torch":
        try:
            import torch
        except ImportError:
            raise Error(
                "pinbench: pinned_empty(like='torch') needs torch, which is not installed"
            ) from None
        if isinstance(dtype, torch.dtype):
            torch_dtype = dtype
    if torch_dtype is not None:
        np_dtype = np.dtype("uint8")
        itemsize = _torch_itemsize(torch, torch_dtype)
    else:
        np_dtype = _dtype(np, dtype)
        itemsize = np_dtype.itemsize
    if nbytes % itemsize:
        raise ArgumentError(
            f"pinbench: nbytes {nbytes} is not a whole number of {dtype} items ({itemsize} bytes "
            f"each)"
        )
    arena = PinnedArena(nbytes, chunk_bytes, threads, device=device)
    if wait:
        arena.wait()
    out = arena.array(np_dtype)  # holds the arena and its memory from here on
    if torch is None:
        return out
    t = torch.from_dlpack(out) if hasattr(out, "__dlpack__") else torch.from_numpy(out)
    return t.view(torch_dtype) if torch_dtype is not None else t


def arena_of(obj):
    """The PinnedArena that holds `obj`: an array or tensor from pinned_empty() or
    PinnedArena.array(), any slice or view of one, or a host address (an int). None when no open
    arena holds it. Its copy_to_device and copy_from_device split where chunks meet; the offset
    of a slice `x` is `arena_of(x).offset_of(x)`."""
    ptr = _address(obj)
    if ptr is None:
        return None
    for arena in list(_arenas):
        if not arena.closed and arena._ptr <= ptr < arena._ptr + arena._nbytes:
            return arena
    return None


def _address(obj):
    if isinstance(obj, int) and not isinstance(obj, bool):
        return obj
    side = _arrays.describe("array", obj)
    return None if side.on_gpu else side.ptr
