#!/usr/bin/env python3
"""Runs every example command of README.md and the pages under docs/, as a user would type it.

An example is a fenced block whose info string is `console`. In it, a line starting with `$ ` is
a command (a line ending in a backslash continues it); the lines after it, up to the next command,
are an excerpt of what it prints (standard output and standard error as a terminal shows them).
The excerpt must match the output line for line, from its first line; a line `...` stands for
any number of lines left out (at the start, between, or at the end). A command with no excerpt
lines is checked only for its exit status. The status must be 0 unless an HTML comment
`<!-- exit N -->` stands on the line just before the block's fence.

A block's commands run in one bash, in order (an `export` holds for the commands after it), in a
new temporary folder of the block's own, where `data`, `examples` and `python` are links
to the repository's own (the committed records), with `pinbench` on PATH from an install of the
build into ~/.local (cmake --install), as the README tells a user to do, under a HOME of its own. Nothing may
land in the repository: `git status` is read before and after, and a difference fails the test.
Blocks fenced as `sh` are commands for a GPU machine or set-up steps, and are not run.

Usage: check_docs_commands.py REPO_ROOT BUILD_DIR [FILE.md ...]
Exit status: 0 all held, 1 a command failed or its excerpt differs, 2 bad usage.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TIMEOUT_S = 120  # per command
MARK = "@@pinbench-docs-status "


def blocks_of(path):
    """Yields (line number, expected exit, [(command, [excerpt lines])]) for each console block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            expected = 0
            if i > 0:
                m = re.fullmatch(r"\s*<!-- exit (\d+) -->\s*", lines[i - 1])
                if m:
                    expected = int(m.group(1))
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            if j == len(lines):
                raise SystemExit(f"{path}:{i + 1}: a console block is never closed")
            commands = []
            k = start
            while k < j:
                line = lines[k]
                if line.startswith("$ "):
                    command = line[2:]
                    while command.endswith("\\") and k + 1 < j:
                        k += 1
                        command = command[:-1] + "\n" + lines[k]
                    commands.append((command, []))
                elif commands:
                    commands[-1][1].append(line.rstrip())
                elif line.strip():
                    raise SystemExit(f"{path}:{k + 1}: a console block must start with '$ '")
                k += 1
            yield i + 1, expected, commands
            i = j + 1
        else:
            i += 1


def excerpt_matches(excerpt, output):
    """Whether `excerpt` (with '...' for lines left out) matches `output`, line for line."""
    out = [line.rstrip() for line in output.rstrip("\n").split("\n")] if output.strip() else []
    ex = [line.rstrip() for line in excerpt]
    while ex and ex[-1] == "":
        ex.pop()

    # A small matcher: '...' matches any run of lines (greedy search with backtracking).
    def match(e, o):
        if e == len(ex):
            return o == len(out)
        if ex[e] == "...":
            return any(match(e + 1, k) for k in range(o, len(out) + 1))
        return o < len(out) and out[o] == ex[e] and match(e + 1, o + 1)

    return match(0, 0)


def git_status(repo):
    r = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--ignored=no"],
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    repo, build = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    files = argv[3:] or ["README.md"] + sorted(
        os.path.relpath(os.path.join(d, f), repo)
        for d, _, names in os.walk(os.path.join(repo, "docs")) for f in names if f.endswith(".md"))
    before = git_status(repo)
    work = tempfile.mkdtemp(prefix="pinbench-docs-")
    failures = 0
    ran = 0
    try:
        # The README installs with --prefix ~/.local: the same here, under a HOME of the test's.
        home = os.path.join(work, "home")
        prefix = os.path.join(home, ".local")
        r = subprocess.run(["cmake", "--install", build, "--prefix", prefix],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"docs commands: cmake --install failed:\n{r.stderr}", file=sys.stderr)
            return 1
        env = dict(os.environ)
        env.update({"PATH": os.path.join(prefix, "bin") + os.pathsep + env.get("PATH", ""),
                    "HOME": home, "COLUMNS": "100", "LC_ALL": "C.UTF-8"})
        for name in ("PINBENCH_DATA_DIR", "PINBENCH_PYTHON_DIR", "PINBENCH_LIBRARY", "PYTHONPATH"):
            env.pop(name, None)
        for path in files:
            for line, expected, commands in blocks_of(os.path.join(repo, path)):
                # Each block in a folder of its own: what one writes, another does not see.
                cwd = tempfile.mkdtemp(dir=work, prefix="block-")
                for linked in ("data", "examples", "python"):
                    os.symlink(os.path.join(repo, linked), os.path.join(cwd, linked))
                # The block's commands run in one shell, in order, as a user types them into
                # one terminal (an `export` holds for the commands after it); a marker line
                # after each carries its exit status.
                script = "set -o pipefail\n" + "".join(
                    f"{command}\nprintf '%s\\n' \"{MARK}$?@@\"\n" for command, _ in commands)
                try:
                    r = subprocess.run(["bash", "-c", script], cwd=cwd, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, timeout=TIMEOUT_S * len(commands),
                                       errors="replace")
                    parts = re.split(re.escape(MARK) + r"(\d+)@@\n", r.stdout)
                except subprocess.TimeoutExpired:
                    parts = [f"(still running after {TIMEOUT_S * len(commands)} s)"]
                for n, (command, excerpt) in enumerate(commands):
                    ran += 1
                    if 2 * n + 1 < len(parts):
                        output, code = parts[2 * n], int(parts[2 * n + 1])
                    else:
                        output, code = (parts[-1] if len(parts) == 2 * n + 1 else ""), None
                    where = f"{path}:{line}: $ {command}"
                    if code != expected:
                        failures += 1
                        print(f"FAILED {where}\n  exit {code}, expected {expected}; it printed:\n"
                              + "\n".join("  | " + l for l in output.splitlines()[-15:]))
                    elif excerpt and not excerpt_matches(excerpt, output):
                        failures += 1
                        print(f"FAILED {where}\n  its excerpt differs from what it printed "
                              "(mark lines left out with '...'); it printed:\n"
                              + "\n".join("  | " + l for l in output.splitlines()[:40]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    after = git_status(repo)
    if before is not None and after != before:
        failures += 1
        print("FAILED the commands changed the repository: git status before\n"
              f"{before}\nand after\n{after}")
    print(f"docs commands: {ran} run from {len(files)} files, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
