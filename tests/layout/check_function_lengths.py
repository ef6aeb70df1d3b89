#!/usr/bin/env python3
"""Every function longer than a limit in C++ and CUDA sources, by matching braces:

    check_function_lengths.py src --most 120     # exit 1, naming each, if any is longer
    check_function_lengths.py src --top 10       # the ten longest, whatever their length
    check_function_lengths.py src --allow src/DIR/NAME.cpp:FUNCTION   # FUNCTION may be longer, for now

A function's length is its lines from the first of its signature (its template line included)
to its closing brace. Comments, string and character literals and preprocessor lines are blanked
first, so a brace inside them counts for nothing. A brace at file, namespace or class scope
opens a function when what precedes it has a parameter list and is no class, enum or
initializer; the braces inside a function (blocks, lambdas, local classes) belong to it. The
files read: *.cpp, *.hpp, *.cu, *.cuh, *.h under each path given.
"""
import argparse
import os
import re
import sys

# The C++ lexer every checker shares (comments, literals, directives): cpp_text.py, beside this;
# and how every script opens what it reads, and reads the counts it takes: scripts/lib/.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "scripts", "lib")]
from cpp_text import blank  # noqa: E402
import number_arg  # noqa: E402
from script_input import fail, input_file_or_folder, open_input  # noqa: E402

EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh", ".h")


def strip_templates(header):
    """The header without its leading template<...> clauses."""
    while True:
        m = re.match(r"\s*template\s*<", header)
        if not m:
            return header
        depth, j = 1, m.end()
        while j < len(header) and depth > 0:
            depth += {"<": 1, ">": -1}.get(header[j], 0)
            j += 1
        header = header[j:]


def top_level(header):
    """The header with everything inside parentheses and brackets removed."""
    out, depth = [], 0
    for c in header:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def classify(header):
    """What a brace at file, namespace or class scope opens, from the text before it."""
    h = strip_templates(header).strip()
    words = top_level(h)
    if re.match(r"(inline\s+)?namespace\b", h) or re.match(r'extern\s*"\s*"', h) or h == "":
        return "scope", None
    if re.search(r"\b(class|struct|union)\b", words) and "(" not in h.split(":")[0]:
        return "scope", None
    if re.search(r"\benum\b", words):
        return "data", None
    # A constructor's member initialised with braces (`K() : a_{1}, b_(2) {`): its body is yet
    # to come.
    if re.search(r"\)[^;]*?(?<!:):(?!:)", h) and re.search(r"[\w>]\s*$", h):
        return "member", None
    if "(" not in h:
        return "data", None
    # An initializer (`x = {`, `f = [](...) {`) or an aggregate, not a function body.
    if re.search(r"(?<![=!<>+\-*/%&|^])=(?!=)", words) and "operator" not in h:
        return "data", None
    m = re.search(r"((?:[A-Za-z_~][\w]*\s*::\s*)*(?:operator\s*[^\s(]*(?:\(\))?|~?[A-Za-z_]\w*))"
                  r"\s*(?:<[^()]*>)?\s*\(", h)
    return "function", re.sub(r"\s+", "", m.group(1)) if m else "?"


def functions(path):
    """(name, first line, length in lines) of every function in the file."""
    with open_input(path, encoding="utf-8", errors="replace") as f:
        text = blank(f.read())
    found = []
    stack = []  # per open brace: (what it opens, function name, first line)
    header_start = 0
    line = 1
    line_at = [1] * (len(text) + 1)
    for i, c in enumerate(text):
        line_at[i] = line
        if c == "\n":
            line += 1
    for i, c in enumerate(text):
        inside = bool(stack) and stack[-1][0] != "scope"
        if c == "{":
            if inside:
                stack.append(("inner", None, 0))
                continue
            header = text[header_start:i]
            kind, name = classify(header)
            start = header_start + (len(header) - len(header.lstrip()))
            stack.append((kind, name, line_at[start]))
            if kind != "member":
                header_start = i + 1
        elif c == "}":
            if not stack:
                fail("%s:%d: a closing brace with none open" % (path, line_at[i]))
            kind, name, first = stack.pop()
            if kind == "function":
                found.append((name, first, line_at[i] - first + 1))
            if kind not in ("inner", "member"):
                header_start = i + 1
        elif c == ";" and not inside:
            header_start = i + 1
        elif c == ":" and not inside and re.search(r"\b(public|private|protected)\s*$",
                                                   text[header_start:i]):
            header_start = i + 1
    if stack:
        fail("%s: %d braces left open" % (path, len(stack)))
    return found


def sources(paths):
    """Every C++ and CUDA file under `paths` (files or folders), in order. A path that is neither,
    a folder that cannot be read, or paths that hold no such file are exit 2, one line: a check
    over nothing would pass."""
    found = 0
    for root in paths:
        input_file_or_folder(root, "path")
        if not os.path.isdir(root):
            found += 1
            yield root
            continue

        def unreadable(e):
            fail("cannot read folder %s: %s" % (e.filename, e.strerror))

        for folder, dirs, files in os.walk(root, onerror=unreadable):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(EXTENSIONS):
                    found += 1
                    yield os.path.join(folder, name)
    if found == 0:
        fail("no C++ or CUDA file (%s) under %s" % (" ".join(EXTENSIONS), " ".join(paths)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="files or folders to read")
    parser.add_argument("--most", type=number_arg.argparse_whole(1), default=120,
                        help="the most lines a function may have (default 120)")
    parser.add_argument("--top", type=number_arg.argparse_whole(1), help="list the N longest functions and exit 0")
    parser.add_argument("--allow", action="append", default=[], metavar="FILE:FUNCTION",
                        help="a function that may be longer for now: its file (as printed, or the "
                             "end of its path) and name; "
                             "reported, but not a failure; may be given again")
    args = parser.parse_args()
    every = []
    for path in sources(args.paths):
        for name, first, length in functions(path):
            every.append((length, path, first, name))
    if args.top is not None:
        for length, path, first, name in sorted(every, key=lambda f: (-f[0], f[1], f[2]))[:args.top]:
            print("%s:%d: %s: %d lines" % (path, first, name, length))
        return 0
    def excused(path, name):
        # An entry names the file as printed, or its path's end: "experiments/x/y.cpp:run_y".
        named = "%s:%s" % (os.path.normpath(path), name)
        return any(named == a or named.endswith("/" + a) for a in map(os.path.normpath, args.allow))

    over = sorted((f for f in every if f[0] > args.most), key=lambda f: (f[1], f[2]))
    long_ones = [f for f in over if not excused(f[1], f[3])]
    for length, path, first, name in over:
        print("%s:%d: %s: %d lines, over the %d allowed%s" %
              (path, first, name, length, args.most, " (allowed for now: --allow)" if excused(path, name) else ""))
    print("%d function%s in %d file%s; %d over %d lines%s" %
          (len(every), "" if len(every) == 1 else "s", len({f[1] for f in every}),
           "" if len({f[1] for f in every}) == 1 else "s", len(long_ones), args.most,
           ", %d more allowed for now" % (len(over) - len(long_ones)) if len(over) > len(long_ones)
           else ""))
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main())
