#!/usr/bin/env python3
"""Fails, naming the files, where two source files of one unity-built library (pinbench_core,
pinbench_cli: CMakeLists.txt, PINBENCH_UNITY) define the same name at the top of an anonymous
namespace: a function, a type, a constant or an alias. Such files compile alone, and also in one
batch until a file added elsewhere shifts the batches and puts them together, when the build
breaks far from the change. The check holds every pair, batched together or not, so the next
file cannot break a build that passed.

Usage: check_unity_names.py SOURCE_ROOT"""
import os
import re
import sys
from collections import defaultdict

DECLARATIONS = [
    re.compile(r"^(?:struct|class|enum class|enum|union)\s+(\w+)\b(?!\s*;)"),
    re.compile(r"^using\s+(\w+)\s*="),
    re.compile(r"^(?:static\s+|inline\s+)*(?:constexpr|const)\b[^=(;]*?\b(\w+)\s*(?:=|\{|\[)"),
    # A function: a return type, then the name and its parameters, at the start of a line.
    re.compile(r"^(?!return\b|else\b|namespace\b|using\b|typedef\b|template\b|#)"
               r"[\w:<>,*&\s]+?[\s*&>](~?\w+)\s*\("),
]


def strip(text):
    """The text without comments and string or character literals (each keeps its lines)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parameter_types(rest):
    """The parameters' types of a function whose text from its '(' on is `rest`: each
    parameter without its default and its name ("const std::string&,int"), so overloads, which
    may share a translation unit, differ; None where the list does not close."""
    depth, end = 0, None
    for k, ch in enumerate(rest):
        depth += ch in "(<[{"
        depth -= ch in ")>]}"
        if depth == 0:
            end = k
            break
    if end is None:
        return None
    params, depth, cur = [], 0, ""
    for ch in rest[1:end] + ",":
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
            continue
        depth += ch in "(<[{"
        depth -= ch in ")>]}"
        cur += ch
    types = []
    for p in params:
        p = " ".join(p.split("=")[0].split())
        if p and p != "void":
            p = re.sub(r"\s*\b\w+$", "", p) if re.search(r"[\w>&*]\s+\w+$", p) else p
        types.append(p.replace(" ", ""))
    return ",".join(t for t in types if t)


def anonymous_names(path):
    """What the file defines at the top level of its anonymous namespaces: a type, constant or
    alias by its name, a function by its name and parameters' types."""
    text = strip(open(path, encoding="utf-8", errors="replace").read())
    names = set()
    depth, anonymous_at = 0, []
    lines = text.split("\n")
    for at, line in enumerate(lines):
        stripped = line.strip()
        at_top = bool(anonymous_at) and depth == anonymous_at[-1] and line[:1] not in (" ", "\t")
        if at_top and stripped:
            for kind, pattern in enumerate(DECLARATIONS):
                m = pattern.match(stripped)
                if not m or m.group(1) == "operator":
                    continue
                if kind == len(DECLARATIONS) - 1:  # a function: its signature
                    rest = stripped[m.end(1):].lstrip() + " " + " ".join(lines[at + 1:at + 8])
                    types = parameter_types(rest)
                    if types is not None:
                        names.add(f"{m.group(1)}({types})")
                else:
                    names.add(m.group(1))
                break
        for k, ch in enumerate(line):
            if ch == "{":
                depth += 1
                if re.search(r"\bnamespace\s*$", line[:k]):
                    anonymous_at.append(depth)
            elif ch == "}":
                if anonymous_at and anonymous_at[-1] == depth:
                    anonymous_at.pop()
                depth -= 1
    return names


def unity_sources(root):
    """The .cpp files of the unity-built libraries: the framework, each experiment's CUDA-free
    files and commands, cli/, compare/ and the registry (every .cpp outside a MEASURE list and a
    run-time library's folder)."""
    src = os.path.join(root, "src")
    found = []
    for sub in ("framework", "cli", "compare"):
        for dirpath, _, files in os.walk(os.path.join(src, sub)):
            found += [os.path.join(dirpath, f) for f in files if f.endswith(".cpp")]
    experiments = os.path.join(src, "experiments")
    for name in sorted(os.listdir(experiments)) if os.path.isdir(experiments) else []:
        cmake = os.path.join(experiments, name, "experiment.cmake")
        if not os.path.exists(cmake):
            continue
        text = open(cmake, encoding="utf-8").read()
        m = re.search(r"pinbench_experiment\((.*?)\)", text, re.S)
        kind = None
        for word in (m.group(1).split() if m else []):
            if word in ("CUDA_FREE", "MEASURE", "COMMAND"):
                kind = word
            elif kind in ("CUDA_FREE", "COMMAND") and word.endswith(".cpp"):
                found.append(os.path.join(experiments, name, word))
    return sorted(found)


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    where = defaultdict(list)
    for path in unity_sources(root):
        for name in anonymous_names(path):
            where[name].append(os.path.relpath(path, root))
    clashes = {n: files for n, files in where.items() if len(files) > 1}
    for name, files in sorted(clashes.items()):
        print(f"'{name}' at the top of an anonymous namespace in {len(files)} files of one "
              f"unity-built library: {', '.join(files)}")
    if clashes:
        print(f"{len(clashes)} names clash; rename each to say what it does where it is, or move "
              "a shared one into a header of its folder")
        return 1
    print(f"no clash among the anonymous names of {len(unity_sources(root))} unity-built files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
