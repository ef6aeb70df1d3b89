#!/usr/bin/env python3
"""Fails, naming each, where a comment names a file that does not exist: the comments of src/,
include/, python/ and tests/ (C and C++ comments, Python's comments and docstrings, the '#'
comments of CMake and shell files) and the code spans and links of docs/*.md and README.md.
A file moves or is renamed, and the comments that sent a reader to it go on sending them
nowhere; this check holds every one, so the next rename fixes its comments too.

A name counts as a file's where it ends in a source or document extension (.cpp, .hpp, .h, .cu,
.cuh, .c, .py, .md, .cmake, .def, .help, .sh, .in; `.*` for "the .hpp and .cpp": render/text.*).
It exists where it is a path from the repository's root, from src/ or include/ (as #include
names them), from the commenting file's folder, or the end of one ("doctor/trace.hpp"); a bare
name where any file has it; a file the build makes where CMakeLists.txt names it under
${CMAKE_BINARY_DIR}. Not names of files: a name in double quotes (an example of output:
"loop.py:12 in step"), one with a placeholder in capitals (NAME.help, RUN.json), and the few
files outside the repository that comments name (EXTERNAL, below).

Usage: check_comment_paths.py ROOT   (exit 1 naming each stale name, 0 when none)"""
import fnmatch
import io
import os
import re
import sys
import tokenize

# The C++ lexer every checker shares (comments, literals, directives): tests/layout/cpp_text.py,
# beside this file.
from cpp_text import lex  # noqa: E402

EXTENSIONS = "cpp|hpp|h|c|cu|cuh|py|md|cmake|def|help|sh|in"
NAME = re.compile(r"(?<![\w./*$-])((?:[\w.+-]+/)*[\w+-][\w.+-]*\.(?:" + EXTENSIONS +
                  r"|\*))(?![\w/*(-])")
# Files outside the repository that comments name: system and vendor headers.
EXTERNAL = {"dlfcn.h", "dlpack.h", "cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "cupti.h",
            "nvtx3/nvToolsExt.h", "nvToolsExt.h", "mpi.h", "numa.h", "numaif.h", "spawn.h",
            "cublas_v2.h", "Python.h", "torch/extension.h", "link.h", "elf.h", "execinfo.h"}
# Folders never read: build outputs, and the planted stale comment this check must find
# (tests/layout/stale_comment/, run as a root of its own by its CTest).
# A build folder is skipped at the root only (build/, build-sanitize/, ...): scripts/build/ is
# the repository's own.
SKIPPED_DIRS = {"__pycache__", ".git", "node_modules"}
PLANTED = os.path.join("tests", "layout", "stale_comment")
# The planted untidy tree of layout.tree_finds_breaches names files it lacks on purpose.
PLANTED_TREE = os.path.join("tests", "layout", "untidy_tree")
C_LIKE = (".cpp", ".hpp", ".h", ".c", ".cu", ".cuh", ".def", ".in", ".inc")
HASH = (".cmake", ".sh", ".toml", ".cfg", ".yaml", ".yml")


def c_comments(text):
    """(line, comment) of every // and /* */ comment, through the lexer every checker shares."""
    tokens, _ = lex(text)
    for kind, start, end, _, _ in tokens:
        if kind in ("comment", "block comment"):
            yield text.count("\n", 0, start) + 1, text[start:end]


def python_comments(text):
    """Python's comments and docstrings (strings that stand alone as statements)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return
    before = tokenize.NEWLINE
    for t in tokens:
        if t.type == tokenize.COMMENT:
            yield t.start[0], t.string
        elif t.type == tokenize.STRING and before in (tokenize.NEWLINE, tokenize.INDENT,
                                                      tokenize.DEDENT, tokenize.NL):
            yield t.start[0], t.string
        if t.type not in (tokenize.COMMENT, tokenize.NL):
            before = t.type


def hash_comments(text):
    for number, line in enumerate(text.split("\n"), 1):
        k = line.find("#")
        if k >= 0 and not line.lstrip().startswith("#!"):
            yield number, line[k:]


def markdown_spans(text):
    """Code spans and link targets, outside fenced blocks (a shell session shows commands)."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in re.finditer(r"`([^`]+)`|\]\(([^)#\s]+)", line):
            yield number, m.group(1) or m.group(2)


def comments_of(path, text):
    name = os.path.basename(path)
    if name.endswith(".py"):
        return python_comments(text)
    if name.endswith(".md"):
        return markdown_spans(text)
    if name.endswith(C_LIKE):
        return c_comments(text)
    if name.endswith(HASH) or name == "CMakeLists.txt":
        return hash_comments(text)
    return iter(())


def walk(root, top):
    for folder, dirs, names in os.walk(os.path.join(root, top)):
        at = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and
                         not (at == "." and d.startswith("build")) and
                         os.path.relpath(os.path.join(folder, d), root) not in (PLANTED, PLANTED_TREE))
        for name in sorted(names):
            yield os.path.relpath(os.path.join(folder, name), root)


class Tree:
    def __init__(self, root):
        self.files = set(walk(root, "."))
        self.names = {os.path.basename(f) for f in self.files}
        # Every path's ends: "doctor/trace.hpp" of src/experiments/doctor/trace.hpp.
        self.tails = set()
        for f in self.files:
            parts = f.split(os.sep)
            self.tails.update("/".join(parts[k:]) for k in range(len(parts)))
        # The files the build and the install write ("${CMAKE_BINARY_DIR}/generated/version.hpp",
        # "${_dir}/_paths.py"), named by CMakeLists.txt and cmake/*.cmake.
        self.built = set()
        for f in self.files:
            if f == "CMakeLists.txt" or (f.startswith("cmake" + os.sep) and f.endswith(".cmake")):
                text = open(os.path.join(root, f), encoding="utf-8").read()
                for made in re.findall(r"\}/([\w./+-]+\.\w+)", text):
                    self.built.update({made, os.path.basename(made)})

    def has(self, name, folder):
        if name in EXTERNAL or name in self.built:
            return True
        if "*" not in name:
            if "/" not in name:
                return name in self.names
            return name in self.tails or os.path.normpath(os.path.join(folder, name)) in self.files
        if "/" not in name:
            return any(fnmatch.fnmatch(n, name) for n in self.names)
        return any(fnmatch.fnmatch(f, name) or fnmatch.fnmatch(f, "*/" + name)
                   for f in self.tails)


def placeholder(name):
    """NAME.help, data/runs/X.json, DIR/a.csv: a part in capitals stands for any name. And not a
    file at all: a test filter (OutputWidth.*) or a record's keys (trace.prediction4.*)."""
    if any(re.fullmatch(r"[A-Z][A-Z0-9_]*", part.split(".")[0]) for part in name.split("/")):
        return True
    stem = name.rsplit("/", 1)[-1]
    return name.endswith(".*") and (stem[0].isupper() or stem.count(".") > 1)


def unquoted(comment):
    """The comment less what it quotes in double quotes (examples of output)."""
    return re.sub(r'"[^"\n]*"', '""', comment)


def stale_names(root, counted):
    tree = Tree(root)
    tops = ["src", "include", "python", "tests"]
    files = [f for top in tops for f in walk(root, top)]
    files += sorted(f for f in tree.files if os.path.dirname(f) == "docs" and f.endswith(".md"))
    files += [f for f in ("README.md",) if f in tree.files]
    for path in files:
        try:
            text = open(os.path.join(root, path), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for line, comment in comments_of(path, text):
            for m in NAME.finditer(unquoted(comment)):
                name = m.group(1)
                if name.startswith("./"):
                    name = name[2:]
                if placeholder(name):
                    continue
                counted.append(name)
                if tree.has(name, os.path.dirname(path)):
                    continue
                yield f"{path}:{line}: names {name}, which does not exist"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_comment_paths.py ROOT")
    counted = []
    stale = list(stale_names(sys.argv[1], counted))
    for s in stale:
        print(s)
    if stale:
        print(f"{len(stale)} names of files that do not exist, in comments: fix each comment "
              f"to name the file as it is now")
        sys.exit(1)
    print(f"every file a comment names exists ({len(counted)} names)")


if __name__ == "__main__":
    main()
