#!/usr/bin/env python3
"""scripts/bench/ab-summary.py on the committed A/B of 2026-12-03 (night): the tables its README quotes,
and one line on stderr with exit status 2 for a missing folder or one without A/B files
(tests/scripts/check_script_inputs.py tries FIFOs and folders where its files should be).

  check_ab_summary.py REPO_ROOT
"""
import subprocess
import sys


def run(root, *args):
    return subprocess.run([sys.executable, root + "/scripts/bench/ab-summary.py", *args],
                          capture_output=True, text=True)


def main():
    root = sys.argv[1]
    night = root + "/data/evidence/engine-h200-2026-12-03-night.json#"
    problems = []
    good = run(root, night + "call1", night + "call2")
    for line in ("| h2d staged 64 MiB | 0.716 to 0.790 (12) | 0.716 to 0.792 (12) |",
                 "| d2h staged 64 MiB | 17.0%; 5 of 12; 112 ms/GB | 4.2%; 0 of 12; 51 ms/GB |",
                 "pipeline, new: 1.49 to 1.62, median 1.57, over 12 rounds",
                 "| d2h | 4 KiB x 4096 | 6.17 | 4.57 | 4.60 | 1.35 | 1.01 |"):
        if good.returncode != 0 or line not in good.stdout.splitlines():
            problems.append("the night's tables lack: " + line)
    for args, said in (([root + "/no-such-folder"], "does not exist"),
                       ([root + "/data"], "no prev-staged-*, prev-pipeline-* or blocks-ab-*")):
        bad = run(root, *args)
        lines = bad.stderr.splitlines()
        if (bad.returncode != 2 or len(lines) != 1 or not lines[0].startswith("ab-summary.py: error: ")
                or said not in lines[0] or bad.stdout):
            problems.append("%s: exit %d, stderr %r" % (args[0], bad.returncode, bad.stderr))
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
