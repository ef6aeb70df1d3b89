"""How the scripts under scripts/ take what they read: a file only when it is a regular file (or a
link to one), a folder only when it is a folder; anything else (missing, unreadable, a FIFO, a
device, a socket, a folder where a file is read, a file that is not the JSON it should be) is
one line on stderr, `NAME: error: ...`, and exit status 2. A FIFO is refused without waiting for
a writer: the file is opened without blocking and looked at before a byte is read.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from script_input import fail, input_folder, load_json, open_input, squeezed_files

A script's output piped into a reader that stops early (`| head`) ends it as it ends any Unix
tool: quietly, by SIGPIPE, never with a BrokenPipeError traceback. Importing this module is what
sets that, so every script that reads an input (all of them but the generators) has it.

tests/scripts/check_script_inputs.py runs every script under scripts/ on a missing path, a FIFO
and a folder, and a script's output into a reader that stops.
"""
import fcntl
import json
import os
import signal
import stat
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def fail(message):
    """One line on stderr, `NAME: error: MESSAGE`, and exit status 2."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "script"
    line = " ".join(str(message).split())
    print("%s: error: %s" % (name, line), file=sys.stderr)
    sys.exit(2)


def _kind(mode):
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_input(path, mode="r", what="input", **kwargs):
    """`path` opened for reading (mode "r" or "rb", and open()'s other arguments) when it is a
    regular file; else exit 2 naming what it is."""
    if mode not in ("r", "rb", "rt"):
        raise ValueError("open_input reads: mode %r" % mode)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        fail("%s %s does not exist" % (what, path))
    except OSError as e:
        fail("cannot read %s %s: %s" % (what, path, e.strerror))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            fail("%s %s is %s, not a regular file" % (what, path, _kind(st.st_mode)))
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        return os.fdopen(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise


def read_text(path, what="input"):
    """The whole text of a regular file (UTF-8), or exit 2."""
    with open_input(path, "rb", what) as f:
        data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s %s is not UTF-8 text (byte %d)" % (what, path, e.start))


def load_json(path, what="input"):
    """The JSON document in a regular file, or exit 2 saying why not."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except ValueError as e:
        fail("%s %s is not JSON: %s" % (what, path, e))


def _stat(path, what):
    """os.stat of `path`; exit 2 when it is missing or cannot be read."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        fail("%s %s does not exist" % (what, path))
    except OSError as e:
        fail("cannot read %s %s: %s" % (what, path, e.strerror))


def input_folder(path, what="folder"):
    """`path` when it is a folder (or a link to one); else exit 2 naming what it is."""
    st = _stat(path, what)
    if not stat.S_ISDIR(st.st_mode):
        fail("%s %s is %s, not a folder" % (what, path, "a file" if stat.S_ISREG(st.st_mode)
                                            else _kind(st.st_mode)))
    return path


def input_file_or_folder(path, what="input"):
    """`path` when it is a folder or a regular file; else exit 2 naming what it is."""
    st = _stat(path, what)
    if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        fail("%s %s is %s, not a file or a folder" % (what, path, _kind(st.st_mode)))
    return path


def squeezed_files(spec, what="set of runs"):
    """The files of a set of runs squeezed into one JSON file by scripts/bench/squeeze-runs.py, as
    {NAME: content} (a .json file's JSON value, any other file's text). SPEC is SET.json, or
    SET.json#FOLDER for the files in FOLDER of it only, named relative to FOLDER; exit 2 when
    SET.json cannot be read, is no such file, or holds no file in FOLDER."""
    path, _, folder = spec.partition("#")
    squeezed = load_json(path, what)
    files = squeezed.get("files") if isinstance(squeezed, dict) else None
    if not isinstance(files, dict):
        fail("%s %s holds no \"files\" (scripts/bench/squeeze-runs.py writes them)" % (what, path))
    if not folder:
        return files
    prefix = folder.rstrip("/") + "/"
    out = {name[len(prefix):]: value for name, value in files.items() if name.startswith(prefix)}
    if not out:
        fail("%s %s holds no file in %s" % (what, path, folder))
    return out
