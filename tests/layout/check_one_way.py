#!/usr/bin/env python3
"""Fails, naming each place, where src/ does one of these jobs a second way:

  sigpipe      SIGPIPE is ignored in one place, cli/signals.cpp (install_signal_handlers, first
               thing in main), which the output policy relies on.
  run record   a record's field is refused by one function, refuse_field
               (framework/json_fields.cpp), which alone writes "run record: '...'": a refusal
               written by hand elsewhere is a second JSON checker.
  runner       a user's program is run by one runner: run_program (cli/program.cpp) is called only
               by run_with_library (cli/program_command.cpp), so doctor's and accel's signal and
               wait handling cannot differ; only the runner becomes a subreaper.
  enum names   an enum's names are one table (base/enum_names.hpp) read both ways, never a
               switch of `case E::kX: return "name";`.

Usage: check_one_way.py ROOT   (exit 1 naming each place, 0 when there is none)"""
import os
import re
import sys

# The C++ lexer every checker shares (comments, literals, directives): tests/layout/cpp_text.py,
# beside this file.
from cpp_text import strip  # noqa: E402

SOURCES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".inc")
SIGPIPE_IGNORED = re.compile(r"SIGPIPE[^;\n]*SIG_IGN|SIG_IGN[^;\n]*SIGPIPE")
RUNNER_CALL = re.compile(r"\brun_program\s*\(")
SUBREAPER = re.compile(r"\bPR_SET_CHILD_SUBREAPER\b")
NAME_CASE = re.compile(r"\bcase\s+[\w:]*::k\w+\s*:\s*(?:\{\s*)?return\s+\"\"\s*;")

# Each job's one place, relative to the root.
ONE_PLACE = {
    "sigpipe": {"src/cli/signals.cpp"},
    "run record": {"src/framework/json_fields.cpp"},
    "runner": {"src/cli/program.hpp", "src/cli/program.cpp", "src/cli/program_command.cpp"},
    "subreaper": {"src/cli/program.cpp"},
}


def places(root):
    top = os.path.join(root, "src")
    for folder, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(SOURCES):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, root).replace(os.sep, "/"), path


def line_of(code, at):
    return code.count("\n", 0, at) + 1


def second_ways(root):
    for rel, path in places(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            code, literals = strip(f.read())
        if rel not in ONE_PLACE["sigpipe"]:
            for m in SIGPIPE_IGNORED.finditer(code):
                yield (f"{rel}:{line_of(code, m.start())}: sigpipe: ignores SIGPIPE; "
                       f"cli/signals.cpp does, once")
        if rel not in ONE_PLACE["run record"]:
            for line, text in literals:
                if text.startswith("run record: "):
                    yield (f"{rel}:{line}: run record: refuses a field by hand; call "
                           f"refuse_field (framework/json_fields.hpp)")
        if rel not in ONE_PLACE["runner"]:
            for m in RUNNER_CALL.finditer(code):
                yield (f"{rel}:{line_of(code, m.start())}: runner: calls run_program; run a "
                       f"program with run_with_library (cli/program_command.hpp)")
        if rel not in ONE_PLACE["subreaper"]:
            for m in SUBREAPER.finditer(code):
                yield (f"{rel}:{line_of(code, m.start())}: runner: becomes a subreaper; "
                       f"cli/program.cpp's runner does")
        cases = list(NAME_CASE.finditer(code))
        if len(cases) >= 2:
            yield (f"{rel}:{line_of(code, cases[0].start())}: enum names: a switch returns "
                   f"names; write the enum's table (base/enum_names.hpp)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_one_way.py ROOT")
    found = list(second_ways(sys.argv[1]))
    for f in found:
        print(f)
    if found:
        print(f"{len(found)} places do a job a second way")
        sys.exit(1)
    print("each job is done one way: SIGPIPE, a record's refusals, the program runner, enum "
          "names")


if __name__ == "__main__":
    main()
