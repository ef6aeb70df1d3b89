#!/usr/bin/env python3
"""Squeezes a folder of runs (the records, outputs and notes that one set of GPU runs wrote) into
one JSON file that keeps only what the docs and tests read, so that data/ holds what is cited
rather than every log of the runs:

  squeeze-runs.py FOLDER OUT.json [--cited-by PAGE...] [--keep GLOB...] [--rewrite]

A file of FOLDER is kept when a PAGE names it (FOLDER/NAME, or a glob such as FOLDER/call2-*)
or when its name (relative to FOLDER) matches a --keep GLOB (`README.md`, `call1/*.json`); with
neither option every file is kept. A page that names only FOLDER, or a folder in it, keeps
nothing by that. A PAGE may be a folder: its .md, .cpp, .hpp, .py and .sh files are read. With
--rewrite the pages' citations then change: FOLDER/NAME becomes OUT.json#NAME and FOLDER/ alone
OUT.json, the form docs/results.md's figure markers use (tests/cpu/test_results_doc.cpp reads a
record, a benchmark's JSON or a text as OUT.json#NAME).

OUT.json holds {"squeezed_from": FOLDER, "made_by": the command, "left_out": {"files": N,
"bytes": N}, "files": {NAME: content}}: a .json file as its JSON value (a run record stays a
record), any other file as its UTF-8 text; one file to a line, by name. Everything else of FOLDER
is left out; delete FOLDER afterwards.

Exit status 2, with one line on stderr (scripts/lib/script_input.py): FOLDER missing or not a
folder, a page that cannot be read, a citation of FOLDER that matches no file, a kept file that is
not a regular file, not UTF-8 text or (named .json) not JSON, or nothing to keep.
"""
import argparse
import fnmatch
import json
import os
import re
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_input import (fail, input_file_or_folder, input_folder, load_json,  # noqa: E402
                          read_text)

PAGE_TYPES = (".md", ".cpp", ".hpp", ".py", ".sh")


def files_of(folder):
    """Every file under `folder`, as a path relative to it, sorted; links are not followed."""
    out = []
    for top, dirs, names in os.walk(folder):
        dirs.sort()
        for name in names:
            out.append(os.path.relpath(os.path.join(top, name), folder).replace(os.sep, "/"))
    return sorted(out)


def pages_of(paths):
    """The files to read citations from: each PAGE, or the text files under a folder PAGE."""
    out = []
    for p in paths:
        input_file_or_folder(p, "page")
        if os.path.isdir(p):
            for top, dirs, names in os.walk(p):
                dirs.sort()
                out += [os.path.join(top, n) for n in sorted(names) if n.endswith(PAGE_TYPES)]
        else:
            out.append(p)
    return out


def citation(folder):
    """A pattern of FOLDER cited in a page: group 1 is the name after FOLDER/ (maybe empty)."""
    return re.compile(r"(?<![\w./-])" + re.escape(folder)
                      + r"(?:/([^\s`'\"()<>,;|\]]*)|(?![\w-]|\.\w))")


def cited_name(match):
    """The name a citation gives (a file, a glob, or "" for FOLDER or a folder in it)."""
    return (match.group(1) or "").rstrip(".:")


def kept_files(folder, files, pages, keep):
    """The names of FOLDER's files to keep: those the pages cite and those --keep matches."""
    if not pages and not keep:
        return list(files)
    wanted = set()
    pattern = citation(folder)
    for page in pages:
        for m in pattern.finditer(read_text(page, "page")):
            name = cited_name(m)
            if not name or name.endswith("/") or os.path.isdir(os.path.join(folder, name)):
                continue
            hits = [f for f in files if fnmatch.fnmatchcase(f, name)]
            if not hits:
                fail("%s cites %s/%s, which matches no file" % (page, folder, name))
            wanted.update(hits)
    for glob in keep:
        hits = [f for f in files if fnmatch.fnmatchcase(f, glob)]
        if not hits:
            fail("--keep %s matches no file of %s" % (glob, folder))
        wanted.update(hits)
    return sorted(wanted)


def content(path, name):
    if name.endswith(".json"):
        return load_json(path, "file")
    return read_text(path, "file")


def write_bundle(out, folder, kept, left_out, made_by):
    lines = ['{"squeezed_from": %s,' % json.dumps(folder),
             ' "made_by": %s,' % json.dumps(made_by, ensure_ascii=False),
             ' "left_out": %s,' % json.dumps(left_out),
             ' "files": {']
    body = ["  %s: %s" % (json.dumps(name, ensure_ascii=False),
                          json.dumps(value, ensure_ascii=False, separators=(",", ":")))
            for name, value in kept]
    text = "\n".join(lines) + "\n" + ",\n".join(body) + "\n}}\n"
    where = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(where):
        fail("cannot write %s: no folder %s" % (out, where))
    fd, tmp = tempfile.mkstemp(dir=where, prefix=".squeeze-")
    os.fchmod(fd, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)


def rewrite(pages, folder, out):
    """Every citation of FOLDER in the pages, pointed at OUT."""
    pattern = citation(folder)

    def repl(m):
        raw = m.group(1)
        if raw is None:
            return out
        name = cited_name(m)
        return out + ("#" + name if name else "") + raw[len(name):]

    for page in pages:
        text = read_text(page, "page")
        new = pattern.sub(repl, text)
        if new != text:
            with open(page, "w", encoding="utf-8") as f:
                f.write(new)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folder", help="the folder of runs to squeeze")
    p.add_argument("out", help="the JSON file to write (OUT.json)")
    p.add_argument("--cited-by", nargs="+", default=[], metavar="PAGE",
                   help="pages (or folders of them) whose citations of FOLDER say what to keep")
    p.add_argument("--keep", nargs="+", default=[], metavar="GLOB",
                   help="names (relative to FOLDER) to keep as well")
    p.add_argument("--rewrite", action="store_true",
                   help="point the pages' citations of FOLDER at OUT.json")
    a = p.parse_args()
    folder = os.path.normpath(a.folder)
    input_folder(folder)
    files = files_of(folder)
    pages = pages_of(a.cited_by)
    names = kept_files(folder, files, pages, a.keep)
    if not names:
        fail("nothing of %s to keep" % folder)
    kept = [(n, content(os.path.join(folder, n), n)) for n in names]
    left = [f for f in files if f not in set(names)]
    left_out = {"files": len(left),
                "bytes": sum(os.path.getsize(os.path.join(folder, f)) for f in left)}
    made_by = " ".join(shlex.quote(w) for w in ["scripts/bench/squeeze-runs.py"] + sys.argv[1:])
    write_bundle(a.out, folder, kept, left_out, made_by)
    if a.rewrite:
        rewrite(pages, folder, a.out)
    print("%s: %d of %d files kept, %d bytes left out" % (a.out, len(kept), len(files),
                                                        left_out["bytes"]))


if __name__ == "__main__":
    main()
