#!/usr/bin/env python3
"""Reads of JSON members by a string key in C++ code, file by file:

    check_raw_key_reads.py src/experiments              # per-file counts and the total
    check_raw_key_reads.py src/experiments --most 30    # the same, and exit 1 when the total is over
    check_raw_key_reads.py src/experiments --list       # each read as file:line: key

A record is written as types; this counts the places that read it back by string instead of
through a struct. It reads code, not comments (blanked by tests/layout/cpp_text.py, as
check_function_lengths.py reads it), and counts, where the key is a string literal:

- `.value("k", ...)`, `.at("k")`, `.contains("k")`, and `.find("k")` with the key its one
  argument and its result not held against `npos` or a number (that is a search in a string);
- `["k"]` unless it is written: followed (after any further subscripts) by `=` (not `==`), or by
  `.push_back(` or `.emplace_back(`;
- the helpers that take a key: the case extra's `extra_u64(c, "k")` and `extra_int(c, "k")`, and
  JsonFields' `has`, `text`, `text_or`, `whole`, `whole_or`, `flag_or`, `array`,
  `texts_or_none`, `hex`, `one_of`, `one_of_list`, and its readers of a field for what it means,
  `figure`, `figure_or_none`, `rate`, `ms`, `ms_or`, `percent`, `count`, `count_or`, `bytes`,
  `bytes_or`, `ns`, `pid`, `pid_or`, `exit_status`, `timestamp` (framework/json_fields.hpp).

Not counted: any of these inside a struct's reader, a function named `from_json`, `*_from_json` or
`*_from` (`lesson_config_from`, `doctor_trace_from_json`): that is the one place where a struct's
keys are listed and checked, the typed way, and what analyses and printers then read is the
struct. A key in a struct's list of fields (`field("k", &LessonConfig::member, kind)`, the lesson's
`fields()`) is a declaration, no read, and is not counted. A key is a literal that could name a member: a letter or `_`, then letters, digits,
`_` and `-` (so `out.text("0x")`, a writer's, is no read). The script cannot tell a JSON object
from a std::map looked up by a literal (`t.find("pinned")`): those count too, as what a struct
would name.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "scripts", "lib")]
import check_function_lengths as function_lengths  # noqa: E402
from cpp_text import blank  # noqa: E402
import number_arg  # noqa: E402
from script_input import open_input  # noqa: E402

HELPERS = ("has", "text", "text_or", "whole", "whole_or", "flag_or", "array",
           "texts_or_none", "hex", "one_of", "one_of_list",
           # the readers of a field for what it means
           "figure", "figure_or_none", "rate", "ms", "ms_or", "percent", "count", "count_or",
           "bytes", "bytes_or", "ns", "pid", "pid_or", "exit_status", "timestamp")
# In the blanked text a literal is `"` + spaces + `"`, so the patterns match its place, and the
# key is read from the same place in the original text.
LITERAL = r'"( *)"'
METHOD = re.compile(r"\.\s*(value|at|contains|" + "|".join(HELPERS) + r")\s*\(\s*" + LITERAL +
                    r"\s*[,)]")
FIND = re.compile(r"\.\s*(find)\s*\(\s*" + LITERAL + r"\s*\)")
SEARCH = re.compile(r"[^;{}]*?(npos|[!=]=\s*\d)")
KEY = re.compile(r"[A-Za-z_][\w-]*$")
EXTRA = re.compile(r"\b(extra_u64|extra_int)\s*\([^,()]*,\s*" + LITERAL)
SUBSCRIPT = re.compile(r"\[\s*" + LITERAL + r"\s*\]")
WRITTEN_AFTER = re.compile(r"(?:\s*\[[^\]]*\])*\s*(?:=(?!=)|\.\s*(?:push_back|emplace_back)\s*\()")
READER = re.compile(r"(^|::)(from_json|\w+_from_json|\w+_from)$")


def reads(path):
    """(line, key) of every counted read in the file."""
    with open_input(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    blanked = blank(text)
    line_at = [1]
    for c in blanked:
        line_at.append(line_at[-1] + (c == "\n"))
    readers = [(first, first + length - 1)
               for name, first, length in function_lengths.functions(path)
               if READER.search(name)]

    found = []
    for pattern in (METHOD, EXTRA):
        for m in pattern.finditer(blanked):
            found.append((m.start(), m.start(2)))
    for m in FIND.finditer(blanked):
        rest = blanked[m.end():blanked.find(";", m.end()) + 1]
        if SEARCH.match(rest):
            continue
        found.append((m.start(), m.start(2)))
    for m in SUBSCRIPT.finditer(blanked):
        if WRITTEN_AFTER.match(blanked, m.end()):
            continue
        found.append((m.start(), m.start(1)))
    out = []
    for at, key_start in sorted(found):
        line = line_at[at]
        if any(lo <= line <= hi for lo, hi in readers):
            continue
        end = text.find('"', key_start)
        if KEY.match(text[key_start:end]):
            out.append((line, text[key_start:end]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="files or folders to read")
    parser.add_argument("--most", type=number_arg.argparse_whole(0), help="exit 1 when the total is over N")
    parser.add_argument("--list", action="store_true", help="each read, as file:line: key")
    args = parser.parse_args()
    total = 0
    counts = []
    for path in function_lengths.sources(args.paths):
        found = reads(path)
        if not found:
            continue
        total += len(found)
        counts.append((len(found), path))
        if args.list:
            for line, key in found:
                print("%s:%d: %s" % (path, line, key))
    for n, path in sorted(counts, key=lambda c: (-c[0], c[1])):
        print("%5d  %s" % (n, path))
    print("%5d  total" % total)
    if args.most is not None and total > args.most:
        print("over %d: %d raw key reads" % (args.most, total), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
