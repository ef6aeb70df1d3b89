#!/usr/bin/env python3
"""Fails, naming each place, where a namespace of src/ or include/ does not follow its folder:

  include/pinbench/                pinbench              the public API
  src/base/, src/framework/,       pinbench              the vocabulary every layer shares
  src/measure/
  src/cli/                         pinbench::cli
  src/compare/                     pinbench::compare
  src/cuda/                        pinbench::cuda
  src/transfer/                    pinbench::transfer    and pinbench in a file that defines
                                                         what include/pinbench/ declares (a file
                                                         named after its public header)
  src/experiments/NAME/            pinbench::experiments::NAME
  src/experiments/registry.cpp     pinbench              the registry the framework declares
  src/capi/, src/main.cpp          none named            extern "C" and file-local code only

A namespace is read by the code it holds itself: `namespace pinbench { namespace cli {` holds its
code in pinbench::cli. One nested in a folder's own (pinbench::experiments::doctor::findings)
follows it; an anonymous namespace is allowed anywhere; an alias (`namespace a = b;`) is code of
the namespace it is in. A namespace opened inside a macro's definition is not read (the
registry's declarations of every experiment's `kinds()`, in main.cpp and registry.cpp).

Usage: check_namespaces.py ROOT   (exit 1 naming each place, 0 when there is none)"""
import os
import re
import sys

# The C++ lexer every checker shares (comments, literals, directives): tests/layout/cpp_text.py,
# beside this file.
from cpp_text import blank  # noqa: E402

SOURCES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".inc")
TOKEN = re.compile(r"\bnamespace\b\s*([\w:]*)\s*([{=])|[{}]")

# (folder or file relative to the root, the namespaces its code may be in), longest first wins.
RULES = [
    ("include/pinbench/", ["pinbench"]),
    ("src/base/", ["pinbench"]),
    ("src/framework/", ["pinbench"]),
    ("src/measure/", ["pinbench"]),
    ("src/cli/", ["pinbench::cli"]),
    ("src/compare/", ["pinbench::compare"]),
    ("src/cuda/", ["pinbench::cuda"]),
    ("src/transfer/", ["pinbench::transfer"]),
    ("src/experiments/registry.cpp", ["pinbench"]),
    ("src/capi/", []),
    ("src/main.cpp", []),
]


def allowed(root, rel):
    """The namespaces the file at `rel` may open, or None where no rule speaks of it."""
    parts = rel.split("/")
    if rel.startswith("src/experiments/") and len(parts) > 3:
        return [f"pinbench::experiments::{parts[2]}"]
    best = None
    for prefix, names in RULES:
        if rel == prefix or (prefix.endswith("/") and rel.startswith(prefix)):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, names)
    if best is None:
        return None
    names = list(best[1])
    stem = os.path.splitext(parts[-1])[0]
    if best[0] == "src/transfer/" and os.path.exists(
            os.path.join(root, "include", "pinbench", stem + ".hpp")):
        names.append("pinbench")
    return names


def follows(name, names):
    return any(name == n or name.startswith(n + "::") for n in names)


def astray(text, names):
    """(line, namespace) for each named namespace whose own code (not only the namespaces nested
    in it) is outside `names`: `namespace pinbench { namespace cli {` holds its code in
    pinbench::cli, as `namespace pinbench::cli {` does."""
    code = blank(text)
    # The open braces: a namespace's [qualified name, line, holds code] or None for any block.
    stack, found = [], []

    def close(frame):
        if frame is not None and frame[2] and not follows(frame[0], names):
            found.append((frame[1], frame[0]))

    at = 0
    for m in TOKEN.finditer(code):
        inner = stack[-1] if stack else None
        if inner is not None and code[at:m.start()].strip():
            inner[2] = True
        at = m.end()
        if m.group(0) == "{":
            if inner is not None:
                inner[2] = True
            stack.append(None)
        elif m.group(0) == "}":
            if stack:
                close(stack.pop())
        elif m.group(2) == "{":
            outer = next((s[0] for s in reversed(stack) if s is not None), "")
            own = m.group(1)
            if not own:  # anonymous: file-local code, allowed anywhere
                if inner is not None:
                    inner[2] = True
                stack.append(None)
                continue
            stack.append(["::".join(p for p in (outer, own) if p),
                          code.count("\n", 0, m.start()) + 1, False])
        elif inner is not None:  # an alias, `namespace a = b;`, is code of the namespace it is in
            inner[2] = True
    while stack:
        close(stack.pop())
    return sorted(found)


def places(root):
    out = []
    for top in ("src", "include"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith(SOURCES):
                    continue
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                names = allowed(root, rel)
                if names is None:
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for line, name in astray(text, names):
                    where = " or ".join(names) if names else "no named namespace"
                    out.append(f"{rel}:{line}: namespace {name}, "
                               f"where its folder's code is in {where}")
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[-1].strip(), file=sys.stderr)
        return 2
    found = places(sys.argv[1])
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} namespaces do not follow their folders "
              "(tests/layout/check_namespaces.py)")
        return 1
    print("every namespace follows its folder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
