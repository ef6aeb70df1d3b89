#!/usr/bin/env python3
"""One place asks experiments: below the command line, only src/framework/by_experiment.cpp calls
an Experiment (docs/architecture.md, "One place asks experiments"). Record validation, analysis,
the terminal text and timeline, and the trace's range gates are asked for there; the record's
reader, the report model's common part, the printers and the trace gates are given what they need
of an experiment as data (its descriptor's fields, or the model), so none of them can reach back
up to an experiment, through a pointer or the registry.

Below the command line is every room under src/cli/ in the include table: src/framework/,
src/capi/, src/measure/, src/cuda/, src/transfer/, src/base/ and include/. In their C++ files it
refuses:

  1. an include of the experiment interface (framework/experiment.hpp) anywhere but the asker,
     its header (by_experiment.hpp) and the interface's own experiment.cpp;
  2. an include of the asker's header (framework/by_experiment.hpp) by another file of
     src/framework/: the asker is the top of the framework, and nothing in it looks up;
  3. in code (comments are prose, and are not read), the names of the interface and the
     registry: `Experiment` (a forward declaration is a way back up too), `experiment_for`,
     `all_experiments`, `generic_experiment`, anywhere but the asker and the interface's header,
     which declares them; the interface's experiment.cpp defines `Experiment`'s defaults and
     `generic_experiment`, and asks the registry nothing.

    check_one_asker.py ROOT    # exit 1, naming each place, file:line
"""
import os
import re
import sys

# The C++ lexer every checker shares (comments, literals, directives): tests/layout/cpp_text.py,
# beside this file.
from cpp_text import strip  # noqa: E402

BELOW_CLI = ["src/framework", "src/capi", "src/measure", "src/cuda", "src/transfer", "src/base",
             "include"]
ASKER = "src/framework/by_experiment.cpp"
ASKER_HEADER = "src/framework/by_experiment.hpp"

# Who may include the interface, and which of its and the registry's names a file may use.
MAY_INCLUDE_INTERFACE = {ASKER, ASKER_HEADER, "src/framework/experiment.cpp"}
NAMES = {"Experiment", "experiment_for", "all_experiments", "generic_experiment"}
MAY_NAME = {ASKER: NAMES, "src/framework/experiment.hpp": NAMES,
            "src/framework/experiment.cpp": {"Experiment", "generic_experiment"}}

SOURCE = re.compile(r"\.(cpp|hpp|cc|h|cu|cuh|def|inc)$")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def places(root):
    """Every file below the command line, and each place that breaks a rule."""
    bad = []
    files = 0
    for top in BELOW_CLI:
        for folder, _, entries in os.walk(os.path.join(root, top)):
            for n in sorted(entries):
                if not SOURCE.search(n):
                    continue
                files += 1
                path = os.path.join(folder, n)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                with open(path, errors="replace") as f:
                    text = f.read()
                for m in INCLUDE.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    name = os.path.basename(m.group(1))
                    if name == "experiment.hpp" and rel not in MAY_INCLUDE_INTERFACE:
                        bad.append(f"{rel}:{line}: includes the experiment interface")
                    if (name == "by_experiment.hpp" and rel.startswith("src/framework/") and
                            rel not in (ASKER, ASKER_HEADER)):
                        bad.append(f"{rel}:{line}: includes the asker, the top of the framework")
                code = strip(text)[0]
                refused = NAMES - MAY_NAME.get(rel, set())
                for number, line in enumerate(code.split("\n"), 1):
                    for token in sorted(set(IDENTIFIER.findall(line)) & refused):
                        bad.append(f"{rel}:{number}: names {token}")
    return files, bad


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    root = argv[1]
    if not os.path.isfile(os.path.join(root, ASKER)):
        print(f"check_one_asker: {ASKER} is missing: the one place that asks experiments")
        return 1
    files, bad = places(root)
    last = (f"check_one_asker: {len(bad)} places below the command line ask experiments outside "
            f"{ASKER} (docs/architecture.md, \"One place asks experiments\")" if bad else
            f"check_one_asker: of {files} files below the command line, {ASKER} alone asks "
            f"experiments")
    print("\n".join(bad + [last]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
