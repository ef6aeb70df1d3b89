"""The Python package's own checks, which come before the C library is loaded: they run on any
machine, with no library built (CTest label cpu). A StagedCopier option past its C field's width
is refused (ctypes cut it silently), a path with a NUL byte is refused (C would read the file
named by what comes before it), and a PINBENCH_LIBRARY that names no file is an error, not a
name skipped on the way to another library."""

import os
import subprocess
import sys
import unittest

import pinbench


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

    def test_no_library_says_how_to_build_it(self):
        env = dict(os.environ)
        env.pop("PINBENCH_LIBRARY", None)
        code = ("import pinbench._lib as l; l.candidates = lambda: ['/nonexistent/x.so']; "
                "l.lib()")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertIn("cmake --build build --target pinbench_c", r.stderr)


if __name__ == "__main__":
    unittest.main()
