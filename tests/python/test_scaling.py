"""read_rows and read_record are linear: a record of every kind a registered experiment makes,
grown from a committed one by pinbench_grown_record (tests/scaling/record_growth.cpp) to N and 8N
units, is read by each, and the CPU time per unit at 8N must stay within MOST_RATIO of that at N
(a reader that looks each case up among the others costs 8x per case at 8N; a linear one about
1x). CPU time of this process, which runs the C library too: a busy machine slows both sizes
alike. Runs anywhere (CTest label python); PINBENCH_GROWN_RECORD names the generator."""

import gc
import os
import subprocess
import tempfile
import time
import unittest

import pinbench

GROWN_RECORD = os.environ.get("PINBENCH_GROWN_RECORD", "")
MOST_RATIO = 3.0
FACTOR = 8


def kinds():
    """(kind, unit, N) for every registered record kind; unit "-" for one without a growth."""
    out = subprocess.run([GROWN_RECORD, "--kinds"], capture_output=True, text=True, check=True)
    return [(k, u, int(n)) for k, u, n in (line.split() for line in out.stdout.splitlines())]


def cpu_seconds(read, path):
    """The CPU time one read of `path` took, or the mean of several where one is under 10 ms. The
    garbage of earlier reads is collected first, so each starts from the same heap."""
    gc.collect()
    start = time.process_time()
    runs = 0
    while True:
        read(path)
        runs += 1
        spent = time.process_time() - start
        if spent >= 0.01 or runs >= 1000:
            return spent / runs


def growth(read, small, large):
    """(seconds at N, seconds at 8N, ratio per unit): the lesser of two runs at N and one at 8N;
    a ratio past the bound is measured again, up to twice more (the least of each size kept),
    before it counts: a busy moment does not fail the test, a reader that grows does each time."""
    s = min(cpu_seconds(read, small), cpu_seconds(read, small))
    g = cpu_seconds(read, large)
    for _ in range(2):
        if g / (FACTOR * max(s, 1e-4)) < MOST_RATIO:
            break
        s = min(s, cpu_seconds(read, small))
        g = min(g, cpu_seconds(read, large))
    return s, g, g / (FACTOR * max(s, 1e-4))


@unittest.skipUnless(os.access(GROWN_RECORD, os.X_OK), "PINBENCH_GROWN_RECORD names no program")
class Scaling(unittest.TestCase):
    def test_every_kind_grows(self):
        missing = [k for k, unit, _ in kinds() if unit == "-"]
        self.assertEqual(missing, [], "record kinds without a growth in "
                         "tests/scaling/record_growth.cpp")

    def test_read_rows_and_read_record_are_linear(self):
        with tempfile.TemporaryDirectory() as folder:
            for kind, unit, base in kinds():
                if unit == "-":
                    continue
                # Half the C++ test's N: the library's own steps are timed there, one by one; here
                # what Python adds (its ctypes call and json.loads) is timed with them.
                n = max(base // 2, 1)
                paths = []
                for units in (n, n * FACTOR):
                    path = os.path.join(folder, "%s-%d.json" % (kind, units))
                    subprocess.run([GROWN_RECORD, kind, str(units), path], check=True)
                    paths.append(path)
                for read in (pinbench.read_rows, pinbench.read_record):
                    with self.subTest(kind=kind, read=read.__name__):
                        s, g, ratio = growth(read, *paths)
                        print("  %-14s %-12s %6d %-9s %7.3f s   x%d: %7.3f s   per unit x%.2f"
                              % (kind, read.__name__, n, unit, s, FACTOR, g, ratio))
                        self.assertLess(ratio, MOST_RATIO, "%s of a %s record: %.3f s for %d %s, "
                                        "%.3f s for %d: the time per unit grows %.2fx"
                                        % (read.__name__, kind, s, n, unit, g, n * FACTOR,
                                           ratio))
                for path in paths:
                    os.remove(path)


if __name__ == "__main__":
    unittest.main()
