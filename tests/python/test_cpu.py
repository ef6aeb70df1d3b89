"""The Python package on a machine without a GPU: it loads, refuses every bad argument with one
clear message before any CUDA call, says why there is no GPU, keeps a pinned arena's memory as
long as an array over it lives, and reads run records through the C++ reader. Runs anywhere
(CTest label python); the NumPy cases skip without NumPy."""

import gc
import json
import os
import subprocess
import sys
import tempfile
import unittest
import weakref

import pinbench

try:
    import numpy as np
except ImportError:  # Debian: python3-numpy (scripts/build/debian-packages-test.txt)
    np = None

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("PINBENCH_DATA_DIR", os.path.join(HERE, os.pardir, os.pardir, "data"))
STAGED = os.path.join(DATA, "runs", "staged-h200-2026-12-01T075638Z.json")


class FakeCuda:
    """A GPU array as CuPy and torch describe theirs, at an address no one owns: enough for every
    check made before the engine is asked to copy."""

    def __init__(self, shape=(16,), typestr="|u1", strides=None, readonly=False, ptr=0x7F0000000000):
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": typestr,
            "data": (ptr, readonly),
            "strides": strides,
            "version": 3,
        }


class DLPackOnly:
    """Something that speaks only DLPack (as a torch CPU tensor does)."""

    def __init__(self, array):
        self._a = array

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def no_gpu():
    return pinbench.device_count() == 0


class Loading(unittest.TestCase):
    def test_library_is_this_build(self):
        self.assertEqual(pinbench.library_version(), pinbench.__version__)

    def test_device_count_is_a_number(self):
        self.assertGreaterEqual(pinbench.device_count(), 0)

    def test_errors_are_python_families(self):
        self.assertTrue(issubclass(pinbench.ArgumentError, ValueError))
        self.assertTrue(issubclass(pinbench.CudaError, RuntimeError))
        self.assertTrue(issubclass(pinbench.NoGpuError, pinbench.CudaError))
        self.assertTrue(issubclass(pinbench.RecordError, pinbench.Error))


@unittest.skipUnless(no_gpu(), "a GPU is present: the no-GPU errors cannot happen here")
class WithoutGpu(unittest.TestCase):
    def test_engine_says_why(self):
        with self.assertRaises(pinbench.NoGpuError) as cm:
            pinbench.StagedCopier()
        msg = str(cm.exception)
        self.assertTrue(msg.startswith("pinbench: cudaGetDeviceCount failed: cudaError"), msg)
        self.assertNotEqual(cm.exception.cuda_error, 0)

    def test_copy_of_valid_arguments_says_why(self):
        with self.assertRaises(pinbench.NoGpuError) as cm:
            pinbench.to_device(FakeCuda(), bytearray(16))
        self.assertIn("no usable CUDA device", str(cm.exception))

    def test_block_copier_says_why(self):
        with self.assertRaises(pinbench.NoGpuError):
            pinbench.BlockCopier(use_cache=False)


def message(test, f, *args, **kw):
    with test.assertRaises(pinbench.ArgumentError) as cm:
        f(*args, **kw)
    return str(cm.exception)


class Arguments(unittest.TestCase):
    """Each refused before any CUDA call, so the same on a machine with a GPU or without."""

    def test_direction(self):
        m = message(self, pinbench.to_device, bytearray(16), bytearray(16))
        self.assertEqual(
            m,
            "pinbench: to_device: the destination is host memory (read through buffer); it must "
            "be GPU memory (a torch CUDA tensor, a CuPy array)",
        )
        m = message(self, pinbench.to_host, FakeCuda(), FakeCuda())
        self.assertIn("to_host: the destination is GPU memory", m)
        m = message(self, pinbench.to_device, FakeCuda(), FakeCuda())
        self.assertIn("to_device: the source is GPU memory", m)

    def test_unreadable_types(self):
        for bad in ("text", 3, [1, 2, 3], None):
            m = message(self, pinbench.to_device, FakeCuda(), bad)
            self.assertIn("pinbench cannot read", m)
            self.assertIn(type(bad).__name__, m)

    def test_size(self):
        m = message(self, pinbench.to_device, FakeCuda(shape=(16,)), bytearray(15))
        self.assertEqual(
            m, "pinbench: to_device: the destination's shape (16,) is not the source's (15,)"
        )

    def test_dtype_of_buffer(self):
        import array

        m = message(self, pinbench.to_device, FakeCuda(shape=(4,), typestr="<f4"), array.array("i", [0] * 4))
        self.assertEqual(m, "pinbench: to_device: the destination's dtype f4 is not the source's i4")

    def test_readonly_destination(self):
        m = message(self, pinbench.to_host, bytes(16), FakeCuda())
        self.assertEqual(m, "pinbench: to_host: the destination is read-only")
        m = message(self, pinbench.to_device, FakeCuda(readonly=True), bytes(16))
        self.assertEqual(m, "pinbench: to_device: the destination is read-only")

    def test_gpu_side_not_contiguous(self):
        m = message(self, pinbench.to_host, bytearray(32), FakeCuda(shape=(4, 8), strides=(16, 1)))
        self.assertIn("is not contiguous", m)
        self.assertIn("strides (16, 1)", m)

    def test_masked(self):
        f = FakeCuda()
        f.__cuda_array_interface__["mask"] = object()
        self.assertIn("is masked", message(self, pinbench.to_host, bytearray(16), f))

    def test_streams(self):
        for bad, words in [
            ("0", "not a str"),
            (1.0, "cannot be a float"),
            (True, "cannot be a bool"),
            (-1, "stream handle -1 is not a cudaStream_t"),
            (1 << 64, "is not a cudaStream_t"),
            (object(), "not a object"),
        ]:
            m = message(self, pinbench.to_device, FakeCuda(), bytearray(16), stream=bad)
            self.assertIn(words, m)

    def test_stream_objects(self):
        class TorchLike:
            cuda_stream = 1234

        class CupyLike:
            ptr = 99

        class Protocol:
            def __cuda_stream__(self):
                return (0, 77)

        self.assertEqual(pinbench.stream_handle(None), 0)
        self.assertEqual(pinbench.stream_handle(2), 2)
        self.assertEqual(pinbench.stream_handle(TorchLike()), 1234)
        self.assertEqual(pinbench.stream_handle(CupyLike()), 99)
        self.assertEqual(pinbench.stream_handle(Protocol()), 77)

    def test_block_copier_options(self):
        self.assertIn(
            "must be a CUDA ordinal", message(self, pinbench.BlockCopier, device=-3)
        )
        self.assertIn(
            "max_slowdown_pct must be a percentage",
            message(self, pinbench.BlockCopier, max_slowdown_pct=-1),
        )
        self.assertIn("kernel_sms must be a count", message(self, pinbench.BlockCopier, kernel_sms=-1))

    def test_copier_options(self):
        m = message(self, pinbench.StagedCopier, chunk=4)
        self.assertIn("StagedCopier has no option 'chunk'", m)
        self.assertIn("h2d_chunk_bytes", m)
        self.assertIn("must be a count >= 0", message(self, pinbench.StagedCopier, h2d_depth=-1))
        self.assertIn("must be a CUDA ordinal", message(self, pinbench.StagedCopier, device=-3))
        # A C int holds at most 2**31 - 1: more was cut to its low 32 bits without a word.
        m = message(self, pinbench.StagedCopier, host_threads=2**32 + 1)
        self.assertIn("host_threads is 4294967297, more than its largest, 2147483647", m)
        self.assertIn("more than its largest", message(self, pinbench.StagedCopier, h2d_chunk_bytes=2**64))


@unittest.skipIf(np is None, "NumPy is not installed")
class NumpyArguments(unittest.TestCase):
    def test_dtype(self):
        m = message(self, pinbench.to_device, FakeCuda(shape=(4,), typestr="<f4"), np.zeros(4, np.float64))
        self.assertEqual(m, "pinbench: to_device: the destination's dtype f4 is not the source's f8")
        m = message(self, pinbench.to_host, np.zeros(4, ">f4"), FakeCuda(shape=(4,), typestr="<f4"))
        self.assertIn("dtype >f4 is not the source's f4", m)

    def test_shape(self):
        m = message(self, pinbench.to_device, FakeCuda(shape=(4, 4)), np.zeros(16, np.uint8))
        self.assertIn("shape (4, 4) is not the source's (16,)", m)

    def test_not_contiguous(self):
        a = np.zeros((4, 8), np.uint8)[:, ::2]
        m = message(self, pinbench.to_device, FakeCuda(shape=(4, 4)), a)
        self.assertIn("the source (numpy.ndarray of shape (4, 4), strides (8, 2)) is not contiguous", m)
        m = message(self, pinbench.to_device, FakeCuda(shape=(4, 4)), np.zeros((4, 4), np.uint8, order="F"))
        self.assertIn("is not contiguous", m)

    def test_objects(self):
        m = message(self, pinbench.to_device, FakeCuda(shape=(2,), typestr="|O8"), np.array([1, "a"], object))
        self.assertIn("holds Python objects", m)
        # NumPy's own object array as the end read first: its typestr "|O" has no size.
        m = message(self, pinbench.to_host, np.array([1, "a"], object), FakeCuda(shape=(2,)))
        self.assertEqual(
            m, "pinbench: the destination (numpy.ndarray) holds Python objects, not bytes to copy"
        )

    def test_masked_array(self):
        a = np.ma.array(np.zeros(16, np.uint8), mask=[0, 1] * 8)
        m = message(self, pinbench.to_device, FakeCuda(), a)
        self.assertIn("the source (numpy.ma.core.MaskedArray) is masked", m)
        # Even with no value masked: its interface would show the data alone.
        m = message(self, pinbench.to_host, np.ma.array(np.zeros(16, np.uint8)), FakeCuda())
        self.assertIn("the destination (numpy.ma.core.MaskedArray) is masked", m)

    def test_readonly(self):
        a = np.zeros(16, np.uint8)
        a.flags.writeable = False
        self.assertEqual(
            message(self, pinbench.to_host, a, FakeCuda()), "pinbench: to_host: the destination is read-only"
        )

    def test_dlpack_is_read(self):
        a = np.arange(16, dtype=np.uint8)
        side = pinbench._arrays.describe("source", DLPackOnly(a))
        self.assertEqual(side.what, "DLPack")
        self.assertEqual(side.ptr, a.ctypes.data)
        self.assertEqual((side.nbytes, side.dtype, side.shape, side.on_gpu), (16, "u1", (16,), False))
        b = np.zeros((4, 8), np.float32)[:, ::2]
        self.assertIn("is not contiguous", message(self, pinbench._arrays.describe, "source", DLPackOnly(b)))

    def test_sides_agree_on_address(self):
        a = np.arange(64, dtype=np.uint16).reshape(8, 8)[2:]
        side = pinbench._arrays.describe("source", a)
        self.assertEqual((side.ptr, side.nbytes, side.dtype, side.shape), (a.ctypes.data, 96, "u2", (6, 8)))
        view = pinbench._arrays.describe("source", memoryview(a))
        self.assertEqual((view.ptr, view.nbytes, view.dtype, view.shape), (a.ctypes.data, 96, "u2", (6, 8)))


MiB = 1 << 20


def vm_size():
    """The process's virtual size in bytes (/proc/self/status), to see a mapping go."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize in /proc/self/status")


class ArenaArguments(unittest.TestCase):
    """PinnedArena and pinned_empty refuse every bad argument, through the one checker, before
    the library is asked for anything."""

    def test_sizes(self):
        for bad in (0, -1, 1.5, 1.0, True, "4096", None):
            self.assertIn("nbytes must be a number of bytes >= 1", message(self, pinbench.PinnedArena, bad))
            self.assertIn("nbytes must be a number of bytes >= 1", message(self, pinbench.pinned_empty, bad))
        self.assertIn("nbytes is 18446744073709551616, more than its largest",
                      message(self, pinbench.PinnedArena, 2**64))
        for bad in (0, 2.0, -4):
            self.assertIn("chunk_bytes must be a number of bytes >= 1",
                          message(self, pinbench.PinnedArena, MiB, chunk_bytes=bad))

    def test_threads_device_and_switches(self):
        self.assertIn("threads must be a count >= 1", message(self, pinbench.PinnedArena, MiB, threads=0))
        self.assertIn("threads is 4294967296, more than its largest, 4294967295",
                      message(self, pinbench.PinnedArena, MiB, threads=2**32))
        self.assertIn("device must be a CUDA ordinal", message(self, pinbench.PinnedArena, MiB, device=-1))
        self.assertIn("device is 2147483648, more than its largest",
                      message(self, pinbench.PinnedArena, MiB, device=2**31))
        for name in ("huge_pages", "portable"):
            self.assertIn(f"{name} must be True or False, not 1",
                          message(self, pinbench.PinnedArena, MiB, **{name: 1}))
        self.assertIn("wait must be True or False", message(self, pinbench.pinned_empty, MiB, wait=None))
        self.assertIn("like must be 'numpy' or 'torch', not 'cupy'",
                      message(self, pinbench.pinned_empty, MiB, like="cupy"))

    @unittest.skipIf(np is None, "NumPy is not installed")
    def test_dtypes(self):
        self.assertIn("nbytes 10 is not a whole number of float32 items (4 bytes each)",
                      message(self, pinbench.pinned_empty, 10, "float32"))
        self.assertIn("holds no fixed number of bytes", message(self, pinbench.pinned_empty, 16, object))
        self.assertIn("is not a NumPy dtype", message(self, pinbench.pinned_empty, 16, "no-such-type"))

    def test_a_size_past_a_limit_is_refused_naming_it(self):
        # device=0 leaves out cudaGetDevice: the limits are read with or without a GPU. No host
        # has 1 EiB to give, so one limit or another is crossed, named with its value.
        for make in (pinbench.PinnedArena, pinbench.pinned_empty):
            m = message(self, make, 1 << 60, device=0)
            self.assertTrue(m.startswith("pinbench: pinned arena: refused, never attempted: "), m)
            self.assertRegex(m, r"crosses (the .+ \(.+\)|vm\.max_map_count)")

    def test_library_refusals_are_argument_errors(self):
        m = message(self, pinbench.PinnedArena, MiB, chunk_bytes=1 << 63, device=0)
        self.assertEqual(m, "pinbench: pinned arena: chunk_bytes is past 2^62")


@unittest.skipUnless(no_gpu(), "a GPU is present: the no-GPU errors cannot happen here")
class ArenaWithoutGpu(unittest.TestCase):
    """Without a GPU an arena fails with one NoGpuError that says which CUDA call failed: at
    creation where it looks for the current device, at wait() and the copies where the threads
    could not register (on the device named); never a crash, at the call or at exit."""

    def test_creation_says_why(self):
        for make in (pinbench.PinnedArena, pinbench.pinned_empty):
            with self.assertRaises(pinbench.NoGpuError) as cm:
                make(MiB)
            m = str(cm.exception)
            self.assertTrue(m.startswith("pinbench: pinned arena: cudaGetDevice: cudaError"), m)
            self.assertNotEqual(cm.exception.cuda_error, 0)

    def test_named_device_fails_at_wait_and_copies(self):
        arena = pinbench.PinnedArena(4 * MiB, chunk_bytes=2 * MiB, device=0)
        self.assertEqual((arena.nbytes, arena.chunk_bytes, arena.device), (4 * MiB, 2 * MiB, 0))
        with self.assertRaises(pinbench.NoGpuError) as cm:
            arena.wait()
        self.assertIn("pinbench: pinned arena: cudaSetDevice: cudaError", str(cm.exception))
        self.assertFalse(arena.ready())
        with self.assertRaises(pinbench.NoGpuError):
            arena.copy_to_device(0x7F0000000000, 0, 16)
        with self.assertRaises(pinbench.NoGpuError):
            arena.copy_from_device(FakeCuda(shape=(16,)), offset=64)
        self.assertEqual(arena.stats().chunks_pinned, 0)
        if np is not None:
            with self.assertRaises(pinbench.NoGpuError):
                pinbench.pinned_empty(MiB, device=0)

    def test_no_crash_in_a_process_of_its_own(self):
        # The arena's threads and its destruction at interpreter exit, left to the runtime.
        code = (
            "import pinbench\n"
            "try:\n    pinbench.PinnedArena(1 << 20)\n"
            "except pinbench.NoGpuError as e:\n    print('NoGpuError', e)\n"
            "a = pinbench.PinnedArena(8 << 20, chunk_bytes=2 << 20, device=0)\n"
        )
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("NoGpuError pinbench: pinned arena: cudaGetDevice"), r.stdout)
        self.assertEqual(r.stderr, "")


class ArenaRanges(unittest.TestCase):
    """What needs no registration, on device 0 named: chunk sizes, pieces, ranges past the end,
    stats. Runs with or without a GPU."""

    def setUp(self):
        self.arena = pinbench.PinnedArena(10 * MiB + 5, chunk_bytes=3 * MiB, device=0)

    def tearDown(self):
        self.arena.close()

    def test_sizes_and_pieces(self):
        a = self.arena
        self.assertEqual(a.nbytes, 10 * MiB + 5)  # exactly the size asked
        self.assertEqual(a.chunk_bytes, 4 * MiB)  # rounded up to 2 MiB
        self.assertEqual(a.piece_bytes(0), 4 * MiB)
        self.assertEqual(a.piece_bytes(4 * MiB - 1, 100), 1)
        self.assertEqual(a.piece_bytes(8 * MiB), 2 * MiB + 5)
        self.assertEqual(a.piece_bytes(5, 7), 7)
        s = a.stats()
        self.assertIsInstance(s, pinbench.ArenaStats)
        self.assertEqual((s.bytes, s.chunk_bytes, s.chunks), (10 * MiB + 4096, 4 * MiB, 3))
        self.assertGreaterEqual(s.threads, 1)

    def test_ranges_past_the_end(self):
        a = self.arena
        for f in (a.ready, a.wait, a.piece_bytes):
            self.assertIn("is past its 10485765 bytes", message(self, f, 10 * MiB, MiB))
        self.assertIn("offset must be a byte offset", message(self, a.wait, -1))
        self.assertIn("nbytes must be a number of bytes", message(self, a.wait, 0, 0.5))

    def test_copy_ends(self):
        a = self.arena
        m = message(self, a.copy_to_device, bytearray(16))
        self.assertIn("copy_to_device: the destination is host memory", m)
        m = message(self, a.copy_to_device, 0x7F0000000000)
        self.assertEqual(m, "pinbench: copy_to_device: nbytes is needed with a raw destination pointer")
        m = message(self, a.copy_to_device, FakeCuda(shape=(16,)), 0, 17)
        self.assertIn("the destination holds 16 bytes, fewer than the 17 asked", m)
        self.assertIn("is read-only", message(self, a.copy_to_device, FakeCuda(readonly=True)))
        m = message(self, a.copy_from_device, FakeCuda(shape=(16,)), stream=1.0)
        self.assertIn("cannot be a float", m)
        m = message(self, a.copy_to_device, -5, 0, 16)
        self.assertIn("the destination pointer must be an address", m)

    def test_closed(self):
        a = self.arena
        a.close()
        self.assertTrue(a.closed)
        for f in (a.wait, a.stats, lambda: a.data_ptr):
            self.assertEqual(message(self, f), "pinbench: this PinnedArena is closed")


@unittest.skipIf(np is None, "NumPy is not installed")
class ArenaLifetime(unittest.TestCase):
    """The memory lives as long as the arena object or any array over it, whichever is last, and
    is unmapped once both are gone. Runs with or without a GPU (device 0 named: the memory is
    mapped whether or not it could be registered)."""

    def test_the_array_outlives_the_arena(self):
        before = vm_size()
        arena = pinbench.PinnedArena(64 * MiB, chunk_bytes=8 * MiB, device=0)
        a = arena.array("uint32")
        self.assertEqual((a.shape, a.dtype, a.nbytes), ((16 * MiB,), np.uint32, 64 * MiB))
        self.assertEqual(a.ctypes.data, arena.data_ptr)
        self.assertFalse(a.any())  # the bytes start as zero
        self.assertIs(pinbench.arena_of(a[5:]), arena)
        self.assertEqual(arena.offset_of(a[5:]), 20)
        memory = weakref.ref(arena._memory)
        arena_ref = weakref.ref(arena)
        # The threads done (pinned, or failed without a GPU): whatever CUDA maps for itself on
        # the way is mapped before the measure, not between it and the one after the free.
        try:
            arena.wait()
        except pinbench.NoGpuError:
            self.assertTrue(no_gpu())
        mapped = vm_size()
        self.assertGreaterEqual(mapped - before, 64 * MiB)
        del arena
        gc.collect()
        self.assertIsNotNone(memory())
        a[:] = 0xA5A5A5A5  # every byte written, and read back
        self.assertTrue((a == 0xA5A5A5A5).all())
        view = a[MiB : 2 * MiB]
        del a
        gc.collect()
        self.assertIsNotNone(memory())  # a slice holds it too
        view[:] = 7
        self.assertEqual(int(view.sum()), 7 * MiB)
        del view
        gc.collect()
        self.assertIsNone(memory())
        self.assertIsNone(arena_ref())
        self.assertLessEqual(vm_size(), mapped - 64 * MiB)

    def test_close_with_an_array_alive(self):
        arena = pinbench.PinnedArena(8 * MiB, device=0)
        memory = weakref.ref(arena._memory)
        x = arena.array()
        arena.close()
        self.assertIsNone(pinbench.arena_of(x))  # closed: no longer found
        gc.collect()
        self.assertIsNotNone(memory())
        x[:] = 3
        self.assertEqual(int(x[-1]), 3)
        del x
        gc.collect()
        self.assertIsNone(memory())
        with pinbench.PinnedArena(MiB, device=0) as arena:
            memory = weakref.ref(arena._memory)
        gc.collect()
        self.assertIsNone(memory())  # no array: freed at the with block's end


class Records(unittest.TestCase):
    def test_rows_of_a_real_record(self):
        rows = pinbench.read_rows(STAGED)
        with open(STAGED) as f:
            raw = json.load(f)
        self.assertEqual(len(rows), len(raw["cases"]))
        for row, case in zip(rows, raw["cases"]):
            self.assertEqual(row["experiment"], "staged")
            self.assertEqual(row["method"], case["method"])
            self.assertEqual(row["bytes"], case["bytes"])
            self.assertEqual(row["samples_ms"], case["samples_ms"])
            self.assertEqual(row["verified"], case["verified"])
            if row["verified"]:
                med = sorted(case["samples_ms"])
                n = len(med)
                median = med[n // 2] if n % 2 else (med[n // 2 - 1] + med[n // 2]) / 2
                self.assertAlmostEqual(row["median_ms"], median, places=12)
                self.assertAlmostEqual(row["gb_per_s"], case["bytes"] / median / 1e6, places=9)
                self.assertLessEqual(row["median_lo_ms"], row["median_ms"])
                self.assertGreaterEqual(row["median_hi_ms"], row["median_ms"])
            for key, value in case.get("extra", {}).items():
                self.assertEqual(row["extra." + key], value)
        self.assertEqual(list(rows[0])[:6], ["experiment", "created_utc", "pinbench_version",
                                             "device", "record_incomplete", "part"])

    def test_whole_record(self):
        r = pinbench.read_record(STAGED)
        self.assertEqual(r["schema"], "pinbench.run")
        self.assertEqual(r["experiment"], "staged")

    def test_bad_records_carry_the_readers_line(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(pinbench.RecordError) as cm:
                pinbench.read_rows(os.path.join(d, "absent.json"))
            self.assertEqual(str(cm.exception), f"cannot open run record '{d}/absent.json'")
            p = os.path.join(d, "cut.json")
            with open(p, "w") as f:
                f.write('{"schema": "pinbench.run", ')
            with self.assertRaises(pinbench.RecordError) as cm:
                pinbench.read_rows(p)
            self.assertIn("is not valid JSON (truncated?)", str(cm.exception))
            with open(STAGED) as f:
                raw = json.load(f)
            raw["cases"][3]["bytes"] = -1
            with open(p, "w") as f:
                json.dump(raw, f)
            with self.assertRaises(pinbench.RecordError) as cm:
                pinbench.read_rows(p)
            self.assertIn("'cases[3].bytes' is -1", str(cm.exception))
            with self.assertRaises(pinbench.RecordError):
                pinbench.read_rows(d)


if __name__ == "__main__":
    unittest.main()
