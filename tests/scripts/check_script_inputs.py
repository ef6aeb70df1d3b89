#!/usr/bin/env python3
"""Every script under scripts/, and the code checks of tests/layout/ that take paths, refuse an
input they cannot read as one: run on a missing path, a FIFO and a folder where it reads a file
(and, where it reads a folder, on a folder holding a FIFO or a folder named like the files it
reads), each must exit 2 with one line on stderr, `NAME: error: ...`, within a few seconds (a FIFO
opened as a file would wait for a writer for ever). Each script says how it takes its inputs in
SCRIPTS below, by its path in the repository; a script under scripts/ that is not there fails
this check, so a new one is tried too. Every script that reads a file opens it through
scripts/lib/script_input.py, which also lets a reader that stops early (`| head`) end the script
quietly: a script printing a million lines into one that reads one must end by SIGPIPE with
nothing on stderr.

  check_script_inputs.py REPO_ROOT
"""
import glob
import os
import signal
import subprocess
import sys
import tempfile

# How each script takes what it reads: "file": its arguments, INPUT where a file goes; "folder":
# its arguments with INPUT where a folder goes, and the names of files it reads in that folder.
# None: it reads no file.
SCRIPTS = {
    "scripts/bench/ab-summary.py": {
        "folder": (["INPUT"], ["prev-staged-new-1.json", "blocks-ab-new-1.json"])},
    "scripts/bench/engine-bench-json.py": {
        "folder": (["INPUT", "new"], ["torch-new.txt", "torch-plain.txt", "python-new.txt"])},
    "scripts/bench/engine-timeline.py": {"file": ["INPUT"]},
    "scripts/bench/fleet-bench.py": {"file": ["INPUT", "OUT", "2"]},
    "scripts/bench/gen-nsys-trace.py": None,  # writes a made-up export; reads nothing
    "scripts/bench/squeeze-runs.py": {"folder": (["INPUT", "OUT"], ["a.json", "b.txt"])},
    "scripts/lib/script_input.py": None,  # how the scripts open what they read; no command
    "scripts/lib/number_arg.py": None,  # how the scripts read the counts they take; no command
    "tests/layout/check_function_lengths.py": {"file": ["INPUT"], "folder": (["INPUT"], ["a.cpp"])},
    "tests/layout/check_raw_key_reads.py": {"file": ["INPUT"], "folder": (["INPUT"], ["a.cpp"])},
}
TIMEOUT_S = 20


def run(root, script, args, work):
    """(exit status, stderr lines), or None when the script did not end in time."""
    argv = [sys.executable, os.path.join(root, script)]
    argv += [os.path.join(work, "out") if a == "OUT" else a for a in args]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S,
                           stdin=subprocess.DEVNULL, cwd=work)
    except subprocess.TimeoutExpired:
        return None
    return r.returncode, r.stderr.splitlines()


def tries(work, how):
    """(what is tried, the script's arguments) for each input to try: where the script reads a
    file, a missing path, a FIFO and a folder there; where it reads a folder, a missing path and
    a FIFO there, and folders holding FIFOs, then folders, named like the files it reads."""
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    folder = os.path.join(work, "folder")
    os.mkdir(folder)
    missing = os.path.join(work, "missing")

    def given(args, path):
        return [path if a == "INPUT" else a for a in args]

    out = []
    if "file" in how:
        args = how["file"]
        out += [("a missing file", given(args, missing)), ("a FIFO", given(args, fifo)),
                ("a folder", given(args, folder))]
    if "folder" in how:
        args, names = how["folder"]
        out += [("a missing folder", given(args, missing)),
                ("a FIFO for a folder", given(args, fifo))]
        for kind, make in (("FIFOs", os.mkfifo), ("folders", os.mkdir)):
            holder = os.path.join(work, "holds-" + kind)
            os.mkdir(holder)
            for name in names:
                make(os.path.join(holder, name))
            out.append(("a folder whose %s are %s" % (", ".join(names), kind),
                        given(args, holder)))
    return out


def quiet_when_the_reader_goes(root):
    """A problem, or None: a script that imports script_input and prints a million lines into a
    reader that takes one must end by SIGPIPE, within the timeout, with nothing on stderr."""
    lib = os.path.join(root, "scripts", "lib")
    code = ("import sys; sys.path.insert(0, %r); import script_input\n"
            "for i in range(1000000): print('line', i)\n" % lib)
    writer = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    writer.stdout.readline()
    writer.stdout.close()
    try:
        _, err = writer.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        writer.kill()
        return "a script whose reader went: still running after %d s" % TIMEOUT_S
    if writer.returncode != -signal.SIGPIPE or err.strip():
        return ("a script whose reader went: exit %d, stderr %r (want SIGPIPE, nothing said)"
                % (writer.returncode, err.decode(errors="replace")[-300:]))
    return None


def main():
    root = os.path.abspath(sys.argv[1])
    problems = []
    broken_pipe = quiet_when_the_reader_goes(root)
    if broken_pipe:
        problems.append(broken_pipe)
    found = {os.path.relpath(p, root)
             for p in glob.glob(os.path.join(root, "scripts", "**", "*.py"), recursive=True)}
    for script in sorted(found | set(SCRIPTS)):
        path = os.path.join(root, script)
        if script not in SCRIPTS:
            problems.append("%s: not in %s's SCRIPTS: say how it takes what it reads"
                            % (script, os.path.basename(__file__)))
            continue
        if not os.path.isfile(path):
            problems.append("%s: in SCRIPTS but not in the repository" % script)
            continue
        how = SCRIPTS[script]
        if how is None:
            continue
        with open(path, encoding="utf-8") as f:
            if "from script_input import" not in f.read():
                problems.append("%s reads files but not through scripts/lib/script_input.py" % script)
        with tempfile.TemporaryDirectory() as work:
            for what, args in tries(work, how):
                result = run(root, script, args, work)
                if result is None:
                    problems.append("%s on %s: still running after %d s"
                                    % (script, what, TIMEOUT_S))
                    continue
                code, lines = result
                name = os.path.basename(script)
                if code != 2 or len(lines) != 1 or not lines[0].startswith(name + ": error: "):
                    problems.append("%s on %s: exit %d, stderr %r"
                                    % (script, what, code, "\n".join(lines)[-300:]))
    for p in problems:
        print(p)
    print("script inputs: %d script(s), %d problem(s)" % (len(SCRIPTS), len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
