"""Loading libpinbench_c.so (include/pinbench/pinbench_c.h) with ctypes, and its errors as
Python exceptions. ctypes releases the GIL around every call, so a copy never holds it."""

import ctypes
import os
import threading

ABI_VERSION = 5  # PINBENCH_C_ABI_VERSION this package was written for

OK, INVALID_ARGUMENT, NO_GPU, CUDA_ERROR, INPUT_ERROR, INTERNAL_ERROR = range(6)


class Error(Exception):
    """Every error pinbench raises."""


class ArgumentError(Error, ValueError):
    """An argument the engine cannot take (type, dtype, shape, size, contiguity, device or
    stream); nothing was copied."""


class CudaError(Error, RuntimeError):
    """A CUDA call failed. `cuda_error` is CUDA's code; `bytes_done` how long a prefix of the
    destination is known to hold the copied bytes."""

    def __init__(self, message, cuda_error=0, bytes_done=0):
        super().__init__(message)
        self.cuda_error = cuda_error
        self.bytes_done = bytes_done


class NoGpuError(CudaError):
    """No usable CUDA device or driver."""


class RecordError(Error, ValueError):
    """A run record that cannot be read or is not a valid record."""


class Options(ctypes.Structure):
    _fields_ = [
        ("h2d_chunk_bytes", ctypes.c_size_t),
        ("h2d_depth", ctypes.c_int),
        ("h2d_threads", ctypes.c_int),
        ("d2h_chunk_bytes", ctypes.c_size_t),
        ("d2h_depth", ctypes.c_int),
        ("d2h_threads", ctypes.c_int),
        ("edge_chunk_bytes", ctypes.c_size_t),
        ("h2d_direct_below_bytes", ctypes.c_size_t),
        ("d2h_direct_below_bytes", ctypes.c_size_t),
        ("max_staging_bytes", ctypes.c_size_t),
        ("streaming_drain", ctypes.c_int),
        ("caller_copies", ctypes.c_int),
        ("device", ctypes.c_int),
        ("streaming_fill_edges", ctypes.c_int),
        ("caller_drives", ctypes.c_int),
        ("host_threads", ctypes.c_int),
        ("prefault_from_bytes", ctypes.c_size_t),
        ("fresh_huge_pages", ctypes.c_int),
    ]


class BlockOptions(ctypes.Structure):
    _fields_ = [
        ("device", ctypes.c_int),
        ("rules_file", ctypes.c_char_p),
        ("cache_dir", ctypes.c_char_p),
        ("use_cache", ctypes.c_int),
        ("max_slowdown_pct", ctypes.c_double),
        ("kernel_sms", ctypes.c_uint),
    ]


class Block(ctypes.Structure):
    _fields_ = [
        ("host_offset", ctypes.c_size_t),
        ("device_offset", ctypes.c_size_t),
        ("bytes", ctypes.c_size_t),
    ]


class ArenaStats(ctypes.Structure):
    _fields_ = [
        ("bytes", ctypes.c_size_t),
        ("chunk_bytes", ctypes.c_size_t),
        ("chunks", ctypes.c_size_t),
        ("threads", ctypes.c_uint),
        ("chunks_pinned", ctypes.c_size_t),
        ("first_chunk_ms", ctypes.c_double),
        ("pinned_ms", ctypes.c_double),
        ("longest_call_ms", ctypes.c_double),
    ]


_NAME = "libpinbench_c.so"


def candidates():
    """Where the library is looked for, in order (docs/python.md)."""
    out = []
    env = os.environ.get("PINBENCH_LIBRARY")
    if env:
        out.append(env)
    here = os.path.dirname(os.path.abspath(__file__))
    out.append(os.path.join(here, _NAME))  # copied into the package (pip install, bundles)
    try:
        from . import _paths  # written by cmake --install

        out.append(_paths.LIBRARY)
    except ImportError:
        pass
    # The source tree: python/pinbench beside build/ (cmake --preset default).
    out.append(os.path.join(here, os.pardir, os.pardir, "build", _NAME))
    out.append(_NAME)  # the dynamic loader's own search: LD_LIBRARY_PATH, ldconfig
    return out


_lib = None
_lock = threading.Lock()


def _declare(lib):
    c = ctypes
    P = c.c_void_p
    st = c.c_int
    sigs = {
        "pinbench_abi_version": (c.c_int, []),
        "pinbench_version": (c.c_char_p, []),
        "pinbench_last_error": (c.c_char_p, []),
        "pinbench_last_cuda_error": (c.c_int, []),
        "pinbench_last_bytes_done": (c.c_size_t, []),
        "pinbench_default_options": (None, [c.POINTER(Options)]),
        "pinbench_device_count": (st, [c.POINTER(c.c_int)]),
        "pinbench_pointer_device": (st, [P, c.POINTER(c.c_int)]),
        "pinbench_copier_create": (st, [c.POINTER(Options), c.POINTER(P)]),
        "pinbench_copier_destroy": (None, [P]),
        "pinbench_copier_device": (st, [P, c.POINTER(c.c_int)]),
        "pinbench_copier_staging_bytes": (st, [P, c.POINTER(c.c_size_t)]),
        "pinbench_copy_to_device": (st, [P, P, P, c.c_size_t, c.c_size_t]),
        "pinbench_copy_to_host": (st, [P, P, P, c.c_size_t, c.c_size_t]),
        "pinbench_copy_to_device_async": (st, [P, P, P, c.c_size_t, c.c_size_t, c.POINTER(P)]),
        "pinbench_copy_to_host_async": (st, [P, P, P, c.c_size_t, c.c_size_t, c.POINTER(P)]),
        "pinbench_copy_wait": (st, [P]),
        "pinbench_copy_stream_wait": (st, [P, c.c_size_t]),
        "pinbench_copy_done": (st, [P, c.POINTER(c.c_int)]),
        "pinbench_copy_staged": (st, [P, c.POINTER(c.c_int)]),
        "pinbench_copy_free": (None, [P]),
        "pinbench_record_rows": (st, [c.c_char_p, c.POINTER(c.c_void_p)]),
        "pinbench_record_json": (st, [c.c_char_p, c.POINTER(c.c_void_p)]),
        "pinbench_free": (None, [c.c_void_p]),
        "pinbench_block_default_options": (None, [c.POINTER(BlockOptions)]),
        "pinbench_block_copier_create": (st, [c.POINTER(BlockOptions), c.POINTER(P)]),
        "pinbench_block_copier_destroy": (None, [P]),
        "pinbench_block_copier_calibrate": (st, [P]),
        "pinbench_block_copy": (
            st,
            [P, c.c_int, P, P, c.POINTER(Block), c.c_size_t, c.c_size_t, c.c_int],
        ),
        "pinbench_block_copier_stats": (st, [P, c.POINTER(c.c_void_p)]),
        "pinbench_arena_create": (
            st, [c.c_size_t, c.c_size_t, c.c_uint, c.c_uint, c.c_int, c.POINTER(P)]
        ),
        "pinbench_arena_destroy": (None, [P]),
        "pinbench_arena_data": (st, [P, c.POINTER(P)]),
        "pinbench_arena_size": (st, [P, c.POINTER(c.c_size_t)]),
        "pinbench_arena_device": (st, [P, c.POINTER(c.c_int)]),
        "pinbench_arena_chunk_bytes": (st, [P, c.POINTER(c.c_size_t)]),
        "pinbench_arena_ready": (st, [P, c.c_size_t, c.c_size_t, c.POINTER(c.c_int)]),
        "pinbench_arena_wait": (st, [P, c.c_size_t, c.c_size_t]),
        "pinbench_arena_piece_bytes": (st, [P, c.c_size_t, c.c_size_t, c.POINTER(c.c_size_t)]),
        "pinbench_arena_copy_to_device": (st, [P, P, c.c_size_t, c.c_size_t, c.c_size_t]),
        "pinbench_arena_copy_from_device": (st, [P, c.c_size_t, P, c.c_size_t, c.c_size_t]),
        "pinbench_arena_get_stats": (st, [P, c.POINTER(ArenaStats)]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


def lib():
    """The loaded library; raises Error naming every place looked in when it is not found."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        env = os.environ.get("PINBENCH_LIBRARY")
        if env and not os.path.exists(env):
            # Asked for by name: another library found elsewhere would not be the one meant.
            raise Error(f"pinbench: PINBENCH_LIBRARY names {env}, which does not exist")
        for path in candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append(path + " (absent)")
                continue
            try:
                loaded = ctypes.CDLL(path)
                _declare(loaded)
            except (OSError, AttributeError) as e:
                if env and path == env:
                    # Asked for by name: a file that is not this library is an error, not a name
                    # skipped on the way to another library.
                    raise Error(
                        f"pinbench: PINBENCH_LIBRARY names {env}, which is not a pinbench "
                        f"library that can be loaded: {e}"
                    ) from None
                tried.append(f"{path} ({e})")
                continue
            abi = loaded.pinbench_abi_version()
            if abi != ABI_VERSION:
                raise Error(
                    f"pinbench: {path} has C ABI version {abi}, this package needs "
                    f"{ABI_VERSION}: install the library and the package from one build"
                )
            _lib = loaded
            return _lib
        raise Error(
            "pinbench: cannot find libpinbench_c.so (make run builds only the CLI); build it "
            "with `cmake --build build --target pinbench_c` in the source tree, or set "
            "PINBENCH_LIBRARY to its path (docs/python.md). Tried: " + "; ".join(tried)
        )


def raise_for(status):
    """Raises the exception of a failed call, with the engine's message; returns on OK."""
    if status == OK:
        return
    L = lib()
    message = (L.pinbench_last_error() or b"").decode("utf-8", "replace")
    if status == INVALID_ARGUMENT:
        raise ArgumentError(message)
    if status == INPUT_ERROR:
        raise RecordError(message)
    if status in (NO_GPU, CUDA_ERROR):
        cls = NoGpuError if status == NO_GPU else CudaError
        raise cls(message, L.pinbench_last_cuda_error(), L.pinbench_last_bytes_done())
    raise Error(message)
