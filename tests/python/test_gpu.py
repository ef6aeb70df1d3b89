"""The Python package on a GPU (CTest labels python and gpu): round trips through the engine
with NumPy arrays, torch CPU (pageable and pinned) and CUDA tensors and CuPy arrays, synchronous
and asynchronous, on the default, torch and CuPy streams, each checked byte for byte; argument
errors that need real GPU memory; pinned_empty and PinnedArena's copies across chunk boundaries,
every byte checked, and torch's own copy of a slice inside one chunk (and across two). Without a usable GPU it prints the SKIP line CTest looks for;
without torch or CuPy their cases skip."""

import gc
import os
import sys
import tempfile
import unittest
import weakref

import pinbench

try:
    import numpy as np
except ImportError:
    np = None
try:
    import torch

    if not torch.cuda.is_available():
        torch = None
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None

HAVE_GPU = pinbench.device_count() > 0
# Sizes on both of the engine's paths (direct below a few hundred KiB, staged above), odd lengths.
SIZES = [4096 + 3, (64 << 20) + 5]
ARENA = 1 << 20  # the BlockCopier tests' arenas


def pattern(n, seed):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


@unittest.skipUnless(HAVE_GPU and np is not None, "no usable GPU, or no NumPy")
class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.copier = pinbench.StagedCopier(device=0)

    @classmethod
    def tearDownClass(cls):
        cls.copier.close()


@unittest.skipUnless(torch is not None, "torch with CUDA is not installed")
class Torch(Base):
    def round_trip(self, n, pinned, use_async, stream):
        src = torch.from_numpy(pattern(n, n))
        if pinned:
            src = src.pin_memory()
        dev = torch.zeros(n, dtype=torch.uint8, device="cuda")
        back = torch.zeros(n, dtype=torch.uint8, pin_memory=pinned)
        s = stream() if stream else None
        if use_async:
            c = self.copier.to_device_async(dev, src, stream=s)
            c.wait()
            self.assertTrue(c.done())
            self.assertEqual(c.staged, not pinned and n >= (2 << 20))
        else:
            self.copier.to_device(dev, src, stream=s)
        # Checked on the device, by torch, on its own stream: the pointers are shared.
        ref = src.to("cuda")
        self.assertTrue(torch.equal(dev, ref))
        if use_async:
            c = self.copier.to_host_async(back, dev, stream=s)
            c.wait()
        else:
            self.copier.to_host(back, dev, stream=s)
        self.assertEqual(back.numpy().tobytes(), src.numpy().tobytes())

    def test_round_trips(self):
        side = torch.cuda.Stream()
        for n in SIZES:
            for pinned in (False, True):
                for use_async in (False, True):
                    for stream in (None, lambda: side, lambda: torch.cuda.current_stream()):
                        with self.subTest(n=n, pinned=pinned, use_async=use_async,
                                          stream=stream and stream()):
                            self.round_trip(n, pinned, use_async, stream)

    def test_float_tensor_and_module_functions(self):
        src = torch.randn(1 << 20, 3)  # 12 MiB, staged
        dev = torch.empty_like(src, device="cuda")
        pinbench.to_device(dev, src)
        self.assertTrue(torch.equal(dev.cpu(), src))
        back = torch.empty_like(src)
        c = pinbench.to_host_async(back, dev, stream=torch.cuda.current_stream())
        c.wait()
        self.assertTrue(torch.equal(back, src))

    def test_bfloat16_through_dlpack(self):
        src = torch.randn(4096, dtype=torch.bfloat16)
        dev = torch.empty_like(src, device="cuda")
        self.copier.to_device(dev, src)
        self.assertTrue(torch.equal(dev.cpu(), src))

    def test_stream_order_after_torch_work(self):
        # A kernel queued on a torch stream before the copy writes the source on the device;
        # the copy back on that stream sees its result.
        s = torch.cuda.Stream()
        n = 8 << 20
        dev = torch.zeros(n, dtype=torch.uint8, device="cuda")
        with torch.cuda.stream(s):
            dev.fill_(7)
        back = np.zeros(n, np.uint8)
        self.copier.to_host(back, dev, stream=s)
        self.assertTrue((back == 7).all())

    def test_errors_on_real_tensors(self):
        dev = torch.zeros(64, 64, dtype=torch.float32, device="cuda")
        with self.assertRaisesRegex(pinbench.ArgumentError, "not contiguous"):
            self.copier.to_host(np.zeros((64, 32), np.float32), dev[:, ::2])
        with self.assertRaisesRegex(pinbench.ArgumentError, "dtype f4 is not the source's f8"):
            self.copier.to_device(dev, np.zeros((64, 64), np.float64))
        with self.assertRaisesRegex(pinbench.ArgumentError, "the destination is host memory"):
            self.copier.to_device(torch.zeros(64, 64), torch.zeros(64, 64))
        grad = torch.zeros(64, 64, requires_grad=True, device="cuda")
        with self.assertRaises(pinbench.ArgumentError):
            self.copier.to_host(np.zeros((64, 64), np.float32), grad)
        # The engine's own check: a host address passed off as device memory.
        host = torch.zeros(4096, dtype=torch.uint8)

        class Lie:
            __cuda_array_interface__ = {"shape": (4096,), "typestr": "|u1",
                                        "data": (host.data_ptr(), False), "version": 3}

        with self.assertRaises(pinbench.ArgumentError) as cm:
            self.copier.to_device(Lie(), np.zeros(4096, np.uint8))
        self.assertTrue(str(cm.exception).startswith("pinbench: "), str(cm.exception))


@unittest.skipUnless(cupy is not None, "CuPy is not installed")
class Cupy(Base):
    def test_round_trips(self):
        s = cupy.cuda.Stream(non_blocking=True)
        for n in SIZES:
            for use_async in (False, True):
                for stream in (None, s, s.ptr):
                    with self.subTest(n=n, use_async=use_async, stream=stream):
                        src = pattern(n, n + 1)
                        dev = cupy.zeros(n, dtype=cupy.uint8)
                        back = np.zeros(n, np.uint8)
                        if use_async:
                            self.copier.to_device_async(dev, src, stream=stream).wait()
                            self.copier.to_host_async(back, dev, stream=stream).wait()
                        else:
                            self.copier.to_device(dev, src, stream=stream)
                            self.copier.to_host(back, dev, stream=stream)
                        self.assertEqual(cupy.asnumpy(dev).tobytes(), src.tobytes())
                        self.assertEqual(back.tobytes(), src.tobytes())


@unittest.skipUnless(HAVE_GPU and np is not None, "no usable GPU, or no NumPy")
class Async(Base):
    def test_many_in_flight_and_dropped_handles(self):
        if cupy is None and torch is None:
            self.skipTest("neither torch nor CuPy for device memory")
        n = 24 << 20
        srcs = [pattern(n, i) for i in range(4)]
        if cupy is not None:
            devs = [cupy.zeros(n, cupy.uint8) for _ in srcs]
        else:
            devs = [torch.zeros(n, dtype=torch.uint8, device="cuda") for _ in srcs]
        copies = [self.copier.to_device_async(d, s) for d, s in zip(devs, srcs)]
        for c in copies:
            c.wait()
            c.wait()  # idempotent
        backs = [np.zeros(n, np.uint8) for _ in srcs]
        for b, d in zip(backs, devs):
            self.copier.to_host_async(b, d)  # dropped at once: its __del__ waits
        for b, s in zip(backs, srcs):
            self.assertEqual(b.tobytes(), s.tobytes())


@unittest.skipUnless(HAVE_GPU and np is not None, "no usable GPU, or no NumPy")
class Blocks(unittest.TestCase):
    """pinbench.BlockCopier with torch and CuPy arenas: every method by name and the copier's
    own choice, both ways, blocks at odd offsets, every byte of the destination checked."""

    def blocks(self, n, size):
        slot = size + 64
        rng = np.random.default_rng(n)
        hs = rng.permutation(ARENA // slot)[:n]
        ds = rng.permutation(ARENA // slot)[:n]
        return [(int(h) * slot + 3, int(d) * slot + 5, size) for h, d in zip(hs, ds)]

    def check(self, host, dev_bytes, blocks, direction, src):
        want = np.zeros(ARENA, np.uint8)
        for h, d, n in blocks:
            if direction == "h2d":
                want[d : d + n] = src[h : h + n]
            else:
                want[h : h + n] = src[d : d + n]
        got = dev_bytes() if direction == "h2d" else np.asarray(host).copy()
        self.assertEqual(got.tobytes(), want.tobytes())

    def run_all(self, make_host, make_dev, dev_bytes, dev_fill, stream, sync):
        """`stream`: a torch or CuPy stream that is not the legacy default one (the batch methods
        cannot be queued there)."""
        with tempfile.TemporaryDirectory() as cache:
            copier = pinbench.BlockCopier(cache_dir=cache)
            blocks = self.blocks(33, 4096 + 16)
            for direction in ("h2d", "d2h"):
                for method in [None] + list(pinbench._BLOCK_METHODS):
                    src = pattern(ARENA, 7)
                    host = make_host()
                    dev = make_dev()
                    if direction == "h2d":
                        np.asarray(host)[:] = src
                    else:
                        dev_fill(dev, src)
                    sync()  # the arenas' set-up, on the library's own streams, is done
                    try:
                        copier.copy(direction, host, dev, blocks, stream=stream, method=method)
                    except pinbench.ArgumentError as e:
                        # staged from page-locked memory, the kernel where pageable memory is out
                        # of the device's reach
                        self.assertIn(method, ("staged", "kernel"), str(e))
                        continue
                    stream.synchronize()
                    self.check(host, lambda: dev_bytes(dev), blocks, direction, src)
            s = copier.stats()
            self.assertGreater(s["calls"], 0)
            self.assertIn(s["source"], ("measured", "cache"))
            self.assertTrue(s["last"]["reason"])
            copier.close()

    @unittest.skipUnless(torch is not None, "torch with CUDA is not installed")
    def test_torch_arenas(self):
        for pinned in (False, True):
            self.run_all(
                lambda: torch.zeros(ARENA, dtype=torch.uint8, pin_memory=pinned),
                lambda: torch.zeros(ARENA, dtype=torch.uint8, device="cuda"),
                lambda d: d.cpu().numpy(),
                lambda d, src: d.copy_(torch.from_numpy(src).to("cuda")),
                torch.cuda.Stream(),
                torch.cuda.synchronize,
            )

    @unittest.skipUnless(cupy is not None, "CuPy is not installed")
    def test_cupy_arenas(self):
        s = cupy.cuda.Stream(non_blocking=True)
        self.run_all(
            lambda: np.zeros(ARENA, np.uint8),
            lambda: cupy.zeros(ARENA, cupy.uint8),
            lambda d: cupy.asnumpy(d),
            lambda d, src: d.set(src),
            s,
            lambda: cupy.cuda.Device().synchronize(),
        )


MiB = 1 << 20
ARENA_BYTES, ARENA_CHUNK = 96 * MiB, 32 * MiB
# (offset, bytes): the whole arena; a range across both boundaries at odd ends; one inside a chunk.
ARENA_RANGES = [(0, ARENA_BYTES), (ARENA_CHUNK - 4093, 2 * ARENA_CHUNK + 4092), (5, 31 * MiB)]


class DeviceBytes:
    """`n` bytes of device memory from torch or CuPy, zeroed, with what the tests do to them."""

    def __init__(self, kind, n):
        self.kind = kind
        if kind == "torch":
            self.mem = torch.zeros(n, dtype=torch.uint8, device="cuda")
            self.ptr = self.mem.data_ptr()
        else:
            self.mem = cupy.zeros(n, cupy.uint8)
            self.ptr = self.mem.data.ptr

    def numpy(self):
        self.sync()
        return self.mem.cpu().numpy() if self.kind == "torch" else cupy.asnumpy(self.mem)

    def fill(self, src):
        if self.kind == "torch":
            self.mem.copy_(torch.from_numpy(src).to("cuda"))
        else:
            self.mem.set(src)
        self.sync()

    def sync(self):
        if self.kind == "torch":
            torch.cuda.synchronize()
        else:
            cupy.cuda.Device().synchronize()


DEVICE_KINDS = [k for k, m in (("torch", torch), ("cupy", cupy)) if m is not None]


@unittest.skipUnless(HAVE_GPU and np is not None and DEVICE_KINDS,
                     "no usable GPU, no NumPy, or neither torch nor CuPy")
class Arena(unittest.TestCase):
    """pinned_empty and PinnedArena: 96 MiB in 32 MiB chunks, every byte written, copied to the
    device and back across chunk boundaries by the arena's split copies, every byte compared."""

    def check_copies(self, host, arena, src):
        for kind in DEVICE_KINDS:
            for off, n in ARENA_RANGES:
                with self.subTest(kind=kind, offset=off, nbytes=n):
                    host[:] = src
                    d = DeviceBytes(kind, n)
                    arena.copy_to_device(d.mem, offset=off)  # nbytes: the destination's
                    self.assertEqual(d.numpy().tobytes(), src[off : off + n].tobytes())
                    other = pattern(n, off + 1)
                    d.fill(other)
                    arena.copy_from_device(d.mem, offset=off)
                    d.sync()
                    want = src.copy()
                    want[off : off + n] = other
                    self.assertEqual(host.tobytes(), want.tobytes())
            # A raw device address, with the size given.
            host[:] = src
            d = DeviceBytes(kind, 2 * ARENA_CHUNK)
            arena.copy_to_device(d.ptr, ARENA_CHUNK // 2, 2 * ARENA_CHUNK)
            self.assertEqual(d.numpy().tobytes(), src[ARENA_CHUNK // 2 : 5 * ARENA_CHUNK // 2].tobytes())

    def check_pinned(self, arena):
        self.assertTrue(arena.ready())
        s = arena.stats()
        self.assertEqual((s.bytes, s.chunk_bytes, s.chunks, s.chunks_pinned), (ARENA_BYTES, ARENA_CHUNK, 3, 3))
        self.assertGreater(s.first_chunk_ms, 0)
        self.assertGreaterEqual(s.pinned_ms, s.first_chunk_ms)
        self.assertGreater(s.longest_call_ms, 0)
        self.assertEqual(arena.piece_bytes(ARENA_CHUNK - 3, 100), 3)

    def test_numpy(self):
        x = pinbench.pinned_empty(ARENA_BYTES, chunk_bytes=ARENA_CHUNK)
        self.assertIsInstance(x, np.ndarray)
        self.assertEqual((x.dtype, x.nbytes), (np.uint8, ARENA_BYTES))  # exactly the size asked
        self.assertFalse(x.any())
        arena = pinbench.arena_of(x)
        self.check_pinned(arena)
        self.check_copies(x, arena, pattern(ARENA_BYTES, 11))

    def test_arena_waited_range_by_range(self):
        with pinbench.PinnedArena(ARENA_BYTES, ARENA_CHUNK, threads=2) as arena:
            arena.wait(0, 1)  # the first chunk, whatever the others are doing
            self.assertTrue(arena.ready(0, ARENA_CHUNK))
            arena.wait()
            x = arena.array()
            self.check_pinned(arena)
            self.check_copies(x, arena, pattern(ARENA_BYTES, 12))

    @unittest.skipUnless(torch is not None, "torch with CUDA is not installed")
    def test_torch(self):
        t = pinbench.pinned_empty(ARENA_BYTES, like="torch", chunk_bytes=ARENA_CHUNK)
        self.assertEqual((t.dtype, t.numel(), t.device.type), (torch.uint8, ARENA_BYTES, "cpu"))
        self.assertTrue(t.is_pinned())
        arena = pinbench.arena_of(t)
        self.check_pinned(arena)
        src = pattern(ARENA_BYTES, 13)
        self.check_copies(t.numpy(), arena, src)
        t.copy_(torch.from_numpy(src))
        # torch's own copy of a slice inside one chunk: page-locked, asynchronous, whole.
        a, b = ARENA_CHUNK + 7, 2 * ARENA_CHUNK - 9
        inside = t[a:b]
        self.assertTrue(inside.is_pinned())
        g = inside.to("cuda", non_blocking=True)
        torch.cuda.synchronize()
        self.assertEqual(g.cpu().numpy().tobytes(), src[a:b].tobytes())
        # Across two chunks (two registrations), one cudaMemcpyAsync is refused by the driver:
        # what the arena's split copies are for (docs/python.md).
        with self.assertRaisesRegex(RuntimeError, "invalid argument"):
            t[ARENA_CHUNK - MiB : ARENA_CHUNK + MiB].to("cuda", non_blocking=True)
            torch.cuda.synchronize()

    @unittest.skipUnless(torch is not None, "torch with CUDA is not installed")
    def test_torch_dtypes_and_lifetime(self):
        b = pinbench.pinned_empty(MiB, torch.bfloat16, like="torch")
        self.assertEqual((b.dtype, b.numel()), (torch.bfloat16, MiB // 2))
        f = pinbench.pinned_empty(MiB, "float32", like="torch")
        self.assertEqual((f.dtype, f.numel()), (torch.float32, MiB // 4))
        self.assertTrue(b.is_pinned() and f.is_pinned())
        memory = weakref.ref(pinbench.arena_of(f)._memory)
        tail = f[1:]
        del f
        gc.collect()
        self.assertIsNotNone(memory())  # the slice holds the arena
        tail.fill_(2.0)
        self.assertEqual(float(tail.sum()), 2.0 * (MiB // 4 - 1))
        del tail
        gc.collect()
        self.assertIsNone(memory())


if __name__ == "__main__":
    if not HAVE_GPU:
        print("pinbench-python: SKIP: no usable GPU:", pinbench._no_gpu_reason(), flush=True)
    unittest.main()
