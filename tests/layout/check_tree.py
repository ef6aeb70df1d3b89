#!/usr/bin/env python3
"""The product tree's rules for data/ and scripts/ (data/README.md, scripts/README.md):

data/
  - every folder holds a README.md saying what reads it;
  - no folder is named by a date (YYYY-MM-DD): the runs of one machine and day go into one
    squeezed file under data/evidence/ (scripts/bench/squeeze-runs.py), not a folder of logs;
  - data/evidence/ holds its README.md and squeezed sets only (JSON objects with "files").
scripts/
  - at the top, only README.md and folders (one per role);
  - a command is named in hyphen-case (`ab-summary.py`), a module in lib/ in snake_case
    (`script_input.py`), and a module is imported by some script or test;
  - no name holds a GPU model (h100, h200, a100, ...): a script that runs on any GPU says so
    by its name;
  - no text speaks of how a machine was borrowed ("device call", "brings back", "loan"): a
    script takes its machine's paths and limits as settings;
  - scripts/README.md lists every file under the heading of its folder (`## build/`), and
    every file it lists is there.

  check_tree.py REPO_ROOT     prints each breach, then a count; exit 1 when there is one
"""
import os
import re
import sys

DATED = re.compile(r"\d{4}-\d{2}-\d{2}")
HYPHEN_CASE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\.(sh|py|txt)")
SNAKE_CASE = re.compile(r"[a-z0-9]+(_[a-z0-9]+)*\.py")
GPU_MODEL = re.compile(r"(^|[-_.])(h100|h200|h20|a100|a10|v100|t4|l4|l40s?|b100|b200|gb200)"
                       r"([-_.]|$)", re.IGNORECASE)
BORROWING = re.compile(r"\bdevice (calls?|tools?)\b|\bbrings? back\b|\bloans?\b|"
                       r"\bfiles? per call\b", re.IGNORECASE)
SKIPPED = {"__pycache__"}


def walk(top):
    """(folder, subfolders, files) under `top`, sorted, without caches."""
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        yield folder, dirs, sorted(files)


def check_data(root, problems):
    data = os.path.join(root, "data")
    if not os.path.isdir(data):
        return
    for folder, _, files in walk(data):
        rel = os.path.relpath(folder, root)
        if "README.md" not in files:
            problems.append("%s/ has no README.md saying what reads it" % rel)
        if DATED.search(os.path.basename(folder)):
            problems.append("%s/ is a dated folder of runs: squeeze it into data/evidence/ "
                            "(scripts/bench/squeeze-runs.py)" % rel)
    evidence = os.path.join(data, "evidence")
    if os.path.isdir(evidence):
        for name in sorted(os.listdir(evidence)):
            path = os.path.join(evidence, name)
            if name == "README.md":
                continue
            if not name.endswith(".json") or not os.path.isfile(path):
                problems.append("data/evidence/%s: only squeezed sets (.json) belong there" % name)
                continue
            with open(path, encoding="utf-8") as f:
                head = f.read(4096)
            if '"files": {' not in head:
                problems.append("data/evidence/%s is no squeezed set of runs (no \"files\")" % name)


def readme_listing(path):
    """{folder: [file names]} from the tables under each `## FOLDER/` heading of the README."""
    listed = {}
    folder = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"## ([a-z0-9_-]+)/", line)
            if m:
                folder = m.group(1)
                listed.setdefault(folder, [])
                continue
            m = re.match(r"\| `([^`]+)` \|", line)
            if m and folder:
                listed[folder].append(m.group(1))
    return listed


def imported(root, module):
    """Whether some script or test imports `module`."""
    pattern = re.compile(r"^\s*(import %s\b|from %s import)" % (module, module), re.M)
    for top in ("scripts", "tests"):
        for folder, _, files in walk(os.path.join(root, top)):
            for name in files:
                if name.endswith(".py") and name != module + ".py":
                    with open(os.path.join(folder, name), encoding="utf-8") as f:
                        if pattern.search(f.read()):
                            return True
    return False


def check_scripts(root, problems):
    scripts = os.path.join(root, "scripts")
    if not os.path.isdir(scripts):
        return
    readme = os.path.join(scripts, "README.md")
    listed = readme_listing(readme) if os.path.isfile(readme) else {}
    if not listed:
        problems.append("scripts/README.md lists no folder (## NAME/) and its files")
    for name in sorted(os.listdir(scripts)):
        path = os.path.join(scripts, name)
        if name in SKIPPED or name == "README.md":
            continue
        if not os.path.isdir(path):
            problems.append("scripts/%s: at the top of scripts/, put it in the folder of its role"
                            % name)
    found = {}
    for folder, _, files in walk(scripts):
        rel = os.path.relpath(folder, scripts)
        if rel == ".":
            continue
        for name in files:
            where = "scripts/%s/%s" % (rel, name)
            found.setdefault(rel, []).append(name)
            module = rel == "lib"
            if module and not SNAKE_CASE.fullmatch(name):
                problems.append("%s: a module is named in snake_case (.py)" % where)
            elif not module and not HYPHEN_CASE.fullmatch(name):
                problems.append("%s: a command is named in hyphen-case (.sh, .py, .txt)" % where)
            if module and SNAKE_CASE.fullmatch(name) and not imported(root, name[:-3]):
                problems.append("%s: a module no script imports (a command goes in another "
                                "folder, in hyphen-case)" % where)
            if GPU_MODEL.search(os.path.splitext(name)[0]):
                problems.append("%s: named after a GPU model; name it for what it does" % where)
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = BORROWING.search(line)
                    if m:
                        problems.append("%s:%d: '%s': say what the script needs of its machine "
                                        "(a path, a limit), not how it was borrowed"
                                        % (where, number, m.group(0)))
            if name not in listed.get(rel, []):
                problems.append("%s is not listed under '## %s/' in scripts/README.md"
                                % (where, rel))
    for rel, names in sorted(listed.items()):
        for name in names:
            if name not in found.get(rel, []):
                problems.append("scripts/README.md lists %s/%s, which is not there" % (rel, name))


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: check_tree.py REPO_ROOT", file=sys.stderr)
        return 2
    root = sys.argv[1]
    problems = []
    check_data(root, problems)
    check_scripts(root, problems)
    for p in problems:
        print(p)
    print("tree: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
