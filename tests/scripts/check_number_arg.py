#!/usr/bin/env python3
"""The scripts' counts read by one reader (scripts/lib/number_arg.py): decimal digits only, never
below the script's minimum, so HOSTS=-1 and ROWS=-5 are refused with one line on stderr and exit
2, as are 0x10, inf, nan, 1e3, 1_000 and ''; 010 is ten. Each script that takes a count is run
with each bad one; nothing is written.

  check_number_arg.py REPO_ROOT
"""
import os
import subprocess
import sys
import tempfile

BAD = ["-1", "-5", "0x10", "inf", "nan", "1e3", "1_000", "", " 5", "+5", "\u0663", "1.5"]


def run(root, script, *args, env=None):
    return subprocess.run([sys.executable, os.path.join(root, script), *args],
                          capture_output=True, text=True, env=env)


def one_line(r, script, words):
    lines = r.stderr.splitlines()
    name = os.path.basename(script)
    if r.returncode != 2 or len(lines) != 1 or not lines[0].startswith(name + ": ") or \
            words not in lines[0]:
        return f"{script}: exit {r.returncode}, stderr {r.stderr!r} (wanted one line with {words!r})"
    return None


def main():
    root = sys.argv[1]
    sys.path.insert(0, os.path.join(root, "scripts", "lib"))
    import number_arg

    problems = []
    if number_arg.check("010", "N") != 10:
        problems.append("010 is not ten")
    for text in BAD:
        try:
            number_arg.check(text, "N")
            problems.append(f"{text!r} was read as a count")
        except ValueError:
            pass
    record = os.path.join(root, "data", "runs")  # never opened: the count is read first
    with tempfile.TemporaryDirectory() as out:
        for bad in BAD:
            for script, args, name in (
                ("scripts/bench/fleet-bench.py", [record, out, bad], "HOSTS"),
                ("scripts/bench/fleet-bench.py", [record, out, "2", bad], "GPUS_PER_HOST"),
                ("scripts/bench/gen-nsys-trace.py", [bad, out], "ROWS"),
            ):
                p = one_line(run(root, script, *args), script, name)
                if p:
                    problems.append(p)
        if os.listdir(out):
            problems.append("a refused count still wrote " + ", ".join(os.listdir(out)))
        for script in ("tests/layout/check_function_lengths.py",
                       "tests/layout/check_raw_key_reads.py"):
            r = run(root, script, "--most", "-1", os.path.join(root, "scripts"))
            if r.returncode != 2 or "decimal digits" not in r.stderr and "below" not in r.stderr:
                problems.append(f"{script} --most -1: exit {r.returncode}, {r.stderr!r}")
        env = dict(os.environ, PINBENCH_TEST_COUNT="-1")
        code = ("import sys; sys.path.insert(0, %r); import number_arg; "
                "number_arg.from_env('PINBENCH_TEST_COUNT', 3)" % os.path.join(root, "scripts", "lib"))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        if r.returncode != 2 or "PINBENCH_TEST_COUNT '-1' is below 0" not in r.stderr:
            problems.append(f"an environment count of -1: exit {r.returncode}, {r.stderr!r}")
    for p in problems:
        print(p)
    print("number_arg: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
