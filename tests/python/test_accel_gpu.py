"""PyTorch under `pinbench accel` on a GPU (CTest labels python and gpu): accel_torch.py's copy
paths (.to(non_blocking), copy_ both ways, .cpu()) at sizes on both sides of the engine's
thresholds, and a DataLoader(pin_memory=False) loop, every byte checked by the script; the record
must show copies both ways routed through the engine and none failed. PINBENCH_BINARY names
pinbench (else ./pinbench beside this folder's parent, as in a GPU bundle). Without a usable GPU
or without torch it prints the SKIP line CTest looks for."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import torch

    HAVE = torch.cuda.is_available()
except ImportError:
    HAVE = False


def pinbench_binary():
    given = os.environ.get("PINBENCH_BINARY")
    return given if given else os.path.join(HERE, os.pardir, "pinbench")


@unittest.skipUnless(HAVE, "torch with a usable GPU is not here")
class AccelTorch(unittest.TestCase):
    def test_torch_copies_are_routed_and_every_byte_is_right(self):
        with tempfile.TemporaryDirectory() as tmp:
            record = os.path.join(tmp, "accel.json")
            done = subprocess.run(
                [pinbench_binary(), "accel", "--json", record, "--", sys.executable,
                 os.path.join(HERE, "accel_torch.py"), "--sizes", "4KiB,1MiB,64MiB",
                 "--reps", "2", "--warm", "1", "--loop"],
                capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            rows = [json.loads(l) for l in done.stdout.splitlines() if l.startswith("{")]
            self.assertEqual(len(rows), 13)
            self.assertTrue(all(r["ok"] for r in rows), rows)
            with open(record) as f:
                accel = json.load(f)["accel"]
            tally = {}
            for p in accel["processes"]:
                for o in p["outcomes"]:
                    key = (o["direction"], o["outcome"])
                    tally[key] = tally.get(key, 0) + o["copies"]
            self.assertGreater(tally.get(("h2d", "routed"), 0), 0, tally)
            self.assertGreater(tally.get(("d2h", "routed"), 0), 0, tally)
            self.assertGreater(tally.get(("h2d", "small"), 0), 0, tally)
            self.assertEqual(sum(v for (d, o), v in tally.items() if o == "failed"), 0)


try:
    import cupy

    HAVE_CUPY = HAVE and cupy.cuda.runtime.getDeviceCount() > 0
except Exception:
    HAVE_CUPY = False


@unittest.skipUnless(HAVE_CUPY, "CuPy with a usable GPU is not here")
class AccelCupy(unittest.TestCase):
    def test_cupy_copies_reach_accel_through_the_driver(self):
        # CuPy reaches the driver without the shared runtime's copy entry points: accel sees
        # its copies at the driver's, and the bytes come back equal.
        code = ("import numpy, cupy; a = numpy.arange(1 << 22, dtype=numpy.float32) * 3 + 1; "
                "g = cupy.asarray(a); b = numpy.empty_like(a); g.get(out=b); "
                "assert (b == a).all() and (g.get() == a).all()")
        with tempfile.TemporaryDirectory() as tmp:
            record = os.path.join(tmp, "accel.json")
            done = subprocess.run([pinbench_binary(), "accel", "--json", record, "--",
                                   sys.executable, "-c", code], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(record) as f:
                processes = json.load(f)["accel"]["processes"]
            reached = [p for p in processes if p["called"]]
            self.assertTrue(any(p.get("via_driver") for p in reached), done.stderr)
            seen = {(o["direction"], o["outcome"]): o["copies"] for p in reached
                    for o in p["outcomes"]}
            # .get() copies to pageable memory: routed. cupy.asarray stages the array in CuPy's
            # own page-locked buffers first, so its copy to the device is page-locked (the H200,
            # 2026-12-03): nothing for the engine to take.
            self.assertGreaterEqual(seen.get(("d2h", "routed"), 0), 1, done.stderr)
            self.assertGreaterEqual(seen.get(("h2d", "page-locked"), 0), 1, done.stderr)


if __name__ == "__main__":
    if not HAVE:
        print("pinbench-python: SKIP: torch with a usable GPU is not here")
        sys.exit(0)
    unittest.main()
