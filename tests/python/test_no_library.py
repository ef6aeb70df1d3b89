"""The Python package's own checks, which come before the C library is loaded: they run on any
machine, with no library built (CTest label cpu). Every class goes through one argument checker
(pinbench/_checks.py): an int past its C field's width is refused (ctypes cut it silently: a
device of 2**32 was device 0), a path with a NUL byte is refused (C would read the file named by
what comes before it), a block offset is an exact int (0.9 was truncated to 0), and a
PINBENCH_LIBRARY that names no file, or a file that is no pinbench library, is an error, not a
name skipped on the way to another library. The pinned arena's arguments are checked with the
library out of reach."""

import os
import subprocess
import sys
import tempfile
import unittest

import pinbench


class FakeCuda:
    """A GPU array as CuPy describes one, at an address no one owns."""

    def __init__(self, nbytes=64):
        self.__cuda_array_interface__ = {
            "shape": (nbytes,), "typestr": "|u1", "data": (0x7F0000000000, False), "version": 3,
        }


def refused(test, f, *args, **kw):
    with test.assertRaises(pinbench.ArgumentError) as cm:
        f(*args, **kw)
    return str(cm.exception)


class BeforeTheLibrary(unittest.TestCase):
    def test_options_past_their_fields_width(self):
        with self.assertRaises(pinbench.ArgumentError) as cm:
            pinbench.StagedCopier(host_threads=2**32 + 1)
        self.assertIn("host_threads is 4294967297, more than its largest, 2147483647",
                      str(cm.exception))
        with self.assertRaises(pinbench.ArgumentError):
            pinbench.StagedCopier(h2d_chunk_bytes=2**64)
        with self.assertRaises(pinbench.ArgumentError):
            pinbench.StagedCopier(device=2**31)

    def test_block_copier_ints_within_their_c_types(self):
        # A C int and a C unsigned: 2**32 was device 0, 2**32 + 16 SMs were 16.
        self.assertIn("device is 4294967296, more than its largest, 2147483647",
                      refused(self, pinbench.BlockCopier, device=2**32))
        self.assertIn("kernel_sms is 4294967312, more than its largest, 4294967295",
                      refused(self, pinbench.BlockCopier, kernel_sms=2**32 + 16))
        for bad in (True, 1.0, 0.9, "3", None):
            self.assertIn("kernel_sms must be a count", refused(self, pinbench.BlockCopier,
                                                                 kernel_sms=bad))
        for bad in (-3, True, 1.5, "0"):
            self.assertIn("device must be a CUDA ordinal", refused(self, pinbench.BlockCopier,
                                                                   device=bad))

    def test_staged_copier_ints_within_their_c_types(self):
        self.assertIn("device is 4294967296", refused(self, pinbench.StagedCopier, device=2**32))
        self.assertIn("must be a count >= 0", refused(self, pinbench.StagedCopier, h2d_depth=2.0))
        self.assertIn("must be a count >= 0", refused(self, pinbench.StagedCopier, h2d_depth=-1))

    def test_max_slowdown_is_a_budget_from_0_to_10000_percent(self):
        for bad in (-1, 10000.5, 1e308, float("nan"), float("inf"), True, "5"):
            self.assertIn("max_slowdown_pct must be a percentage from 0 to 10000",
                          refused(self, pinbench.BlockCopier, max_slowdown_pct=bad))

    def test_block_copier_paths_without_a_nul(self):
        for name in ("rules_file", "cache_dir"):
            m = refused(self, pinbench.BlockCopier, **{name: "rules.json\0other.json"})
            self.assertIn(name + " 'rules.json\\x00other.json' holds a NUL byte", m)
            m = refused(self, pinbench.BlockCopier, **{name: 3})
            self.assertIn(name + " must be a path, not a int", m)

    def test_block_offsets_are_exact_ints(self):
        # Checked before any library call, on a copier whose engine is never asked.
        copier = pinbench.BlockCopier.__new__(pinbench.BlockCopier)
        copier._handle = object()
        try:
            host, dev = bytearray(64), FakeCuda(64)
            for block, words in [
                ((0.9, 0, 16), "block 0's host offset must be a whole number of bytes >= 0, not 0.9"),
                ((0, 1.0, 16), "block 0's device offset must be a whole number of bytes >= 0"),
                ((0, 0, True), "block 0's size must be a whole number of bytes"),
                ((0, 0, 2**64), "block 0's size is 18446744073709551616, more than its largest"),
                ((0, 0), "block 0 must be (host_offset, device_offset, nbytes)"),
                (7, "block 0 must be (host_offset, device_offset, nbytes)"),
                ((0, 0, 65), "block 0 (0, 0, 65) does not lie inside the arenas"),
            ]:
                self.assertIn(words, refused(self, copier.copy, "h2d", host, dev, [block]))
        finally:
            copier._handle = None

    def test_arena_arguments_before_the_library(self):
        # The library is not to be asked: any call to it fails the test.
        import pinbench._arena as arena_module

        def no_library():
            raise AssertionError("the library was loaded before the arguments were checked")

        saved, arena_module._load = arena_module._load, no_library
        try:
            for bad in (0, 0.9, True, 2**64):
                self.assertIn("nbytes", refused(self, pinbench.PinnedArena, bad))
                self.assertIn("nbytes", refused(self, pinbench.pinned_empty, bad))
            self.assertIn("chunk_bytes is 18446744073709551616, more than its largest",
                          refused(self, pinbench.PinnedArena, 4096, chunk_bytes=2**64))
            self.assertIn("threads is 4294967296, more than its largest, 4294967295",
                          refused(self, pinbench.PinnedArena, 4096, threads=2**32))
            self.assertIn("device is 4294967296, more than its largest",
                          refused(self, pinbench.PinnedArena, 4096, device=2**32))
            self.assertIn("portable must be True or False",
                          refused(self, pinbench.PinnedArena, 4096, portable="yes"))
            self.assertIn("like must be", refused(self, pinbench.pinned_empty, 4096, like="jax"))
        finally:
            arena_module._load = saved

    def test_a_path_with_a_nul(self):
        with self.assertRaises(pinbench.RecordError) as cm:
            pinbench.read_rows("a.json\0b.json")
        self.assertIn("holds a NUL byte", str(cm.exception))

    def test_a_library_named_but_missing(self):
        env = dict(os.environ, PINBENCH_LIBRARY="/nonexistent/libpinbench_c.so")
        code = "import pinbench; pinbench.library_version()"
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("PINBENCH_LIBRARY names /nonexistent/libpinbench_c.so, which does not exist",
                      r.stderr)

    def test_a_library_named_that_is_no_library(self):
        with tempfile.NamedTemporaryFile(suffix=".so") as f:
            f.write(b"not a shared object\n")
            f.flush()
            env = dict(os.environ, PINBENCH_LIBRARY=f.name)
            code = "import pinbench; pinbench.library_version()"
            r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                               text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"PINBENCH_LIBRARY names {f.name}, which is not a pinbench library", r.stderr)

    def test_no_library_says_how_to_build_it(self):
        env = dict(os.environ)
        env.pop("PINBENCH_LIBRARY", None)
        code = ("import pinbench._lib as l; l.candidates = lambda: ['/nonexistent/x.so']; "
                "l.lib()")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertIn("cmake --build build --target pinbench_c", r.stderr)


if __name__ == "__main__":
    unittest.main()
