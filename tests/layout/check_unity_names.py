#!/usr/bin/env python3
"""Fails, naming the files, where two source files of one unity-built library (pinbench_core,
pinbench_cli: CMakeLists.txt, PINBENCH_UNITY) define the same name at the top of an anonymous
namespace: a function, a type, a constant or an alias. Such files compile alone, and also in one
batch until a file added elsewhere shifts the batches and puts them together, when the build
breaks far from the change. Also where one of them defines there a name that a header of src/
declares in the same namespace: a file batched after it that looks the name up finds both. The
check holds every pair, batched together or not, so the next file cannot break a build that
passed.

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


def top_names(path, anonymous):
    """What the file declares at the top level of its anonymous namespaces (`anonymous`) or of
    its named ones: each as (the namespace it is in, a type, constant or alias by its name or a
    function by its name and parameters' types)."""
    text = strip(open(path, encoding="utf-8", errors="replace").read())
    names = set()
    depth, opened = 0, []  # opened: (depth, qualified name, anonymous) of each open namespace
    lines = text.split("\n")
    for at, line in enumerate(lines):
        stripped = line.strip()
        at_top = (bool(opened) and depth == opened[-1][0] and opened[-1][2] == anonymous and
                  line[:1] not in (" ", "\t"))
        if at_top and stripped:
            for kind, pattern in enumerate(DECLARATIONS):
                m = pattern.match(stripped)
                if not m or m.group(1) == "operator":
                    continue
                if kind == len(DECLARATIONS) - 1:  # a function: its signature
                    rest = stripped[m.end(1):].lstrip() + " " + " ".join(lines[at + 1:at + 8])
                    types = parameter_types(rest)
                    if types is not None:
                        names.add((opened[-1][1], f"{m.group(1)}({types})"))
                else:
                    names.add((opened[-1][1], m.group(1)))
                break
        for k, ch in enumerate(line):
            if ch == "{":
                depth += 1
                m = re.search(r"\bnamespace\s*([\w:]*)\s*$", line[:k])
                if m:
                    outer = opened[-1][1] if opened else ""
                    own = m.group(1)
                    opened.append((depth, "::".join(p for p in (outer, own) if p), not own))
            elif ch == "}":
                if opened and opened[-1][0] == depth:
                    opened.pop()
                depth -= 1
    return names


def anonymous_names(path):
    """What the file defines at the top level of its anonymous namespaces."""
    return {name for _, name in top_names(path, anonymous=True)}


def header_names(root):
    """(namespace, name) -> the header of src/ that declares it at its namespace's top level."""
    out = {}
    for dirpath, dirs, files in os.walk(os.path.join(root, "src")):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".hpp", ".cuh")):
                path = os.path.join(dirpath, f)
                for key in top_names(path, anonymous=False):
                    out.setdefault(key, os.path.relpath(path, root))
    return out


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
    declared = header_names(root)
    hidden = []
    for path in unity_sources(root):
        rel = os.path.relpath(path, root)
        for namespace, name in sorted(top_names(path, anonymous=True)):
            where[name].append(rel)
            if (namespace, name) in declared:
                hidden.append((rel, name, namespace, declared[(namespace, name)]))
    clashes = {n: files for n, files in where.items() if len(files) > 1}
    for name, files in sorted(clashes.items()):
        print(f"'{name}' at the top of an anonymous namespace in {len(files)} files of one "
              f"unity-built library: {', '.join(files)}")
    # A file-local name that a header declares in the same namespace: the file compiles, but a
    # file after it in one batch that looks the name up finds both.
    for rel, name, namespace, header in hidden:
        print(f"'{name}' at the top of an anonymous namespace in {rel} is also {namespace}'s, "
              f"declared in {header}: a file batched after it finds both")
    if clashes or hidden:
        print(f"{len(clashes) + len(hidden)} names clash; rename each to say what it does where "
              "it is, or use the header's")
        return 1
    print(f"no clash among the anonymous names of {len(unity_sources(root))} unity-built files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
