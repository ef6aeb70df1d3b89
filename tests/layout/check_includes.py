#!/usr/bin/env python3
"""What may include what: the table of docs/architecture.md ("What may include what"), enforced.

Every `#include "..."` of every C++ and CUDA file under src/ and include/pinbench/ is checked
against the row of the room its file is in. The rows are RULES below; docs/architecture.md shows
them as a table, and this script fails when that table is not the one `--table` prints, so the
page and the check cannot drift apart. An experiment's files are the rooms its experiment.cmake
names (CUDA_FREE, MEASURE, COMMAND; a header goes with its .cpp or .cu); the files of its folder
that experiment.cmake does not name, in a subfolder, are its run-time libraries. No experiment's
file includes another experiment's: "its own" in a row is its own folder.

    check_includes.py ROOT            # exit 1, naming each include the table does not allow
    check_includes.py ROOT --table    # the table, as docs/architecture.md holds it
"""
import os
import re
import sys

# The rows, top down: a room, then what it may include (a folder of src/ also its own files). A
# token is a folder of src/ ("cli/"), a file ("cuda/device.hpp", "pinbench/staged_options.hpp"),
# the engine's public headers ("pinbench/"), or, for an experiment's files, "own:KIND" (its own
# folder's files of that kind; "own:*" any).
RULES = [
    ("`main.cpp`", "main", ["cli/", "compare/command.hpp", "framework/", "experiments/registry.def",
                          "version.hpp"]),
    ("`experiments/registry.cpp`", "registry", ["framework/", "experiments/registry.def"]),
    ("`experiments/registry.def`", "registry.def", []),
    ("an experiment's commands (`COMMAND`)", "exp:COMMAND",
     ["own:*", "cli/", "measure/", "framework/", "cuda/device.hpp", "cuda/cupti_trace.hpp"]),
    ("an experiment's measurement (`MEASURE`)", "exp:MEASURE",
     ["own:MEASURE", "own:CUDA_FREE", "measure/", "cuda/", "transfer/", "base/", "framework/",
      "pinbench/"]),
    ("an experiment's CUDA-free files (`CUDA_FREE`)", "exp:CUDA_FREE",
     ["own:CUDA_FREE", "framework/", "base/", "pinbench/staged_options.hpp", "version.hpp"]),
    ("an experiment's run-time libraries (doctor's `inject/`, accel's `interpose/`, check's "
     "`mpi/`)", "exp:RUNTIME",
     ["own:RUNTIME", "own:CUDA_FREE", "cuda/cupti_api.hpp", "cuda/driver_watch.hpp", "transfer/",
      "pinbench/"]),
    ("`compare/command.*`", "compare-command", ["compare/", "cli/", "framework/"]),
    ("`compare/`", "compare/", ["framework/"]),
    ("`cli/`", "cli/",
     ["framework/", "cuda/device.hpp", "cuda/cupti_trace.hpp", "pinbench/staged_copy.hpp",
      "pinbench/staged_options.hpp"]),
    ("`capi/`", "capi/", ["framework/", "pinbench/", "version.hpp"]),
    ("`measure/`", "measure/", ["cuda/", "transfer/", "base/", "framework/", "pinbench/",
                                "version.hpp"]),
    ("`cuda/`", "cuda/", ["base/", "framework/"]),
    ("`transfer/`", "transfer/", ["base/", "pinbench/"]),
    ("`base/`", "base/", ["pinbench/staged_options.hpp", "pinbench/block_choice.hpp"]),
    ("`framework/`", "framework/", ["base/", "pinbench/staged_options.hpp"]),
    ("the engine's public headers (`include/pinbench/`)", "pinbench/", []),
]

WORDS = {
    "own:*": "its own files",
    "own:MEASURE": "its own measurement",
    "own:CUDA_FREE": "its own CUDA-free files",
    "own:RUNTIME": "its library's own files",
    "pinbench/": "the engine's public headers (`pinbench/`)",
}

SOURCE = re.compile(r"\.(cpp|hpp|cu|cuh|h|def)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
KINDS = ("CUDA_FREE", "MEASURE", "COMMAND")


def table():
    lines = ["| room | may include |", "|---|---|"]
    for room, _, may in RULES:
        cell = ", ".join(WORDS.get(t, f"`{t}`") for t in may) or "nothing else"
        lines.append(f"| {room} | {cell} |")
    return "\n".join(lines) + "\n"


class Layout:
    def __init__(self, root):
        self.root = root
        self.src = os.path.join(root, "src")
        self.lists = {}

    def experiment_kinds(self, name):
        """{file: kind} from src/experiments/NAME/experiment.cmake's pinbench_experiment()."""
        if name not in self.lists:
            path = os.path.join(self.src, "experiments", name, "experiment.cmake")
            kinds = {}
            if os.path.exists(path):
                with open(path) as f:
                    m = re.search(r"pinbench_experiment\((.*?)\)", f.read(), re.S)
                kind = None
                for word in (m.group(1).split() if m else []):
                    if word in KINDS:
                        kind = word
                    elif kind:
                        kinds[word] = kind
            self.lists[name] = kinds
        return self.lists[name]

    def room(self, rel):
        """(room, experiment) of a path as an include names it ("cli/outputs.hpp",
        "pinbench/staged_copy.hpp"); room None where the layout has none."""
        parts = rel.split("/")
        if rel == "main.cpp":
            return "main", None
        if rel == "version.hpp":
            return "version.hpp", None
        if parts[0] == "pinbench":
            return "pinbench/", None
        if rel == "experiments/registry.cpp":
            return "registry", None
        if rel == "experiments/registry.def":
            return "registry.def", None
        if rel in ("compare/command.cpp", "compare/command.hpp"):
            return "compare-command", None
        if parts[0] == "experiments" and len(parts) > 2:
            name, inside = parts[1], "/".join(parts[2:])
            kinds = self.experiment_kinds(name)
            stem = os.path.splitext(inside)[0]
            for listed in (inside, stem + ".cpp", stem + ".cu"):
                if listed in kinds:
                    return "exp:" + kinds[listed], name
            if "/" in inside:
                return "exp:RUNTIME", name
            return None, name
        if len(parts) > 1 and parts[0] in ("cli", "compare", "capi", "measure", "cuda",
                                           "transfer", "base", "framework"):
            return parts[0] + "/", None
        return None, None

    def files(self):
        for top, prefix in ((self.src, ""), (os.path.join(self.root, "include", "pinbench"),
                                             "pinbench/")):
            for folder, _, names in os.walk(top):
                for n in sorted(names):
                    if SOURCE.search(n):
                        path = os.path.join(folder, n)
                        yield path, prefix + os.path.relpath(path, top)

    def allows(self, room, experiment, target):
        """Whether `room` (of `experiment`, for an experiment's file) may include `target`."""
        to_room, to_experiment = self.room(target)
        if to_room is None:
            return False
        if to_experiment is not None and to_experiment != experiment:
            return False  # another experiment's file: no row allows it
        if room.endswith("/") and to_room == room:
            return True  # a folder's own files
        may = next(r[2] for r in RULES if r[1] == room)
        for token in may:
            if token.startswith("own:"):
                if to_experiment == experiment and (token == "own:*" or to_room == "exp:" +
                                                    token[4:]):
                    return True
            elif token.endswith("/"):
                if target.startswith(token):
                    return True
            elif target == token:
                return True
        return False


def check_doc(root):
    doc = os.path.join(root, "docs", "architecture.md")
    with open(doc) as f:
        text = f.read()
    if table() not in text:
        return [f"docs/architecture.md: its include table is not the one enforced; put in this "
                f"one (tests/layout/check_includes.py --table):\n{table()}"]
    return []


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    if "--table" in argv[2:]:
        sys.stdout.write(table())
        return 0
    layout = Layout(root)
    bad = check_doc(root)
    files = includes = 0
    for path, rel in layout.files():
        room, experiment = layout.room(rel)
        if room is None:
            bad.append(f"{rel}: in no room of the table (an experiment's file that its "
                       f"experiment.cmake does not name?)")
            continue
        files += 1
        with open(path, errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                includes += 1
                target = m.group(1)
                if layout.allows(room, experiment, target):
                    continue
                to_room, to_experiment = layout.room(target)
                if to_experiment is not None and experiment is not None and \
                        to_experiment != experiment:
                    why = (f"experiments/{experiment}/ includes experiments/{to_experiment}/: "
                           f"no experiment includes another's")
                else:
                    row = next(r[0] for r in RULES if r[1] == room)
                    why = f"not in the row of {row}"
                shown = ("include/" if rel.startswith("pinbench/") else "src/") + rel
                bad.append(f"{shown}:{number}: #include \"{target}\": {why}")
    if bad:
        print("includes that docs/architecture.md's table (What may include what) does not allow:")
        for b in bad:
            print("  " + b)
        return 1
    print(f"{files} files, {includes} includes: each as docs/architecture.md's table allows, "
          f"and no experiment includes another's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
