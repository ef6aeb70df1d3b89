#!/usr/bin/env python3
"""scripts/bench/squeeze-runs.py on a made-up folder of runs: it keeps exactly the files a page
cites (by name and by glob) and those --keep names, each as it was (a record as the same JSON
value, a text as the same text), counts what it left out, and with --rewrite points the page's
citations at the squeezed file, leaving alone a folder whose name only begins the same. A
citation that matches no file is one line on stderr and exit 2, with nothing written.

  check_squeeze_runs.py REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

PAGE = """Figures: 1.5 GB/s<!-- gbps @runs/set-a/r1.json gate=x --> and `runs/set-a/call2-*`;
the whole set (`runs/set-a/`), its notes (runs/set-a/README.md), and its neighbour
`runs/set-a-b/x.json`, which is another set.
"""
REWRITTEN = """Figures: 1.5 GB/s<!-- gbps @evidence/set-a.json#r1.json gate=x --> and `evidence/set-a.json#call2-*`;
the whole set (`evidence/set-a.json`), its notes (evidence/set-a.json#README.md), and its neighbour
`runs/set-a-b/x.json`, which is another set.
"""
RECORD = {"experiment": "staged", "cases": [{"samples_ms": [0.1, 1e-7, 3.0000000000000004]}],
          "note": "µs and ünïcode"}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    root = os.path.abspath(sys.argv[1])
    script = os.path.join(root, "scripts", "bench", "squeeze-runs.py")
    problems = []
    with tempfile.TemporaryDirectory() as work:
        write(os.path.join(work, "runs/set-a/r1.json"), json.dumps(RECORD, indent=1))
        write(os.path.join(work, "runs/set-a/r2.json"), json.dumps(RECORD))
        write(os.path.join(work, "runs/set-a/call2-x.txt"), "x\n")
        write(os.path.join(work, "runs/set-a/call2-y.txt"), "y\n")
        write(os.path.join(work, "runs/set-a/call3-z.log"), "a log, dropped\n")
        write(os.path.join(work, "runs/set-a/README.md"), "# notes\n")
        write(os.path.join(work, "runs/set-a-b/x.json"), "{}")
        write(os.path.join(work, "page.md"), PAGE)
        os.makedirs(os.path.join(work, "evidence"))

        def squeeze(*args):
            return subprocess.run([sys.executable, script, *args], cwd=work,
                                  capture_output=True, text=True)

        r = squeeze("runs/set-a", "evidence/set-a.json", "--cited-by", "page.md", "--rewrite")
        if r.returncode != 0:
            problems.append("squeeze: exit %d, %s" % (r.returncode, r.stderr))
        else:
            with open(os.path.join(work, "evidence/set-a.json"), encoding="utf-8") as f:
                squeezed = json.load(f)
            files = squeezed["files"]
            if sorted(files) != ["README.md", "call2-x.txt", "call2-y.txt", "r1.json"]:
                problems.append("kept %s" % sorted(files))
            if files.get("r1.json") != RECORD:
                problems.append("the record changed: %r" % files.get("r1.json"))
            if files.get("call2-x.txt") != "x\n" or files.get("README.md") != "# notes\n":
                problems.append("a text changed")
            left = squeezed["left_out"]
            want = sum(os.path.getsize(os.path.join(work, "runs/set-a", n))
                       for n in ("r2.json", "call3-z.log"))
            if left != {"files": 2, "bytes": want}:
                problems.append("left_out %r, not 2 files of %d bytes" % (left, want))
            if squeezed["squeezed_from"] != "runs/set-a" or "squeeze-runs.py" not in \
                    squeezed["made_by"]:
                problems.append("squeezed_from or made_by: %r" % squeezed)
            with open(os.path.join(work, "page.md"), encoding="utf-8") as f:
                page = f.read()
            if page != REWRITTEN:
                problems.append("the page was rewritten as:\n" + page)
        write(os.path.join(work, "bad.md"), "`runs/set-a/r9.json`\n")
        r = squeeze("runs/set-a", "evidence/bad.json", "--cited-by", "bad.md")
        lines = r.stderr.splitlines()
        if r.returncode != 2 or len(lines) != 1 or "matches no file" not in lines[0] or \
                os.path.exists(os.path.join(work, "evidence/bad.json")):
            problems.append("a citation of no file: exit %d, %r" % (r.returncode, r.stderr))
    for p in problems:
        print(p)
    print("squeeze-runs: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
