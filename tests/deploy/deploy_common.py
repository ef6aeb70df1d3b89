"""What the deploy/ tests share: skipping where a package is missing, check records crafted from
the committed H200 check, free loopback ports, and daemons started in a temporary folder and
stopped by the test, with nothing of them left afterwards (no process, no file)."""

import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = "pinbench-deploy: SKIP:"
SOURCE = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(SOURCE, "deploy")
CHECK_RECORD = os.path.join(SOURCE, "data", "runs", "check-h200-2026-12-01T095735Z.json")


def skip(why):
    """One line saying why, then exit 0: CTest reads the line as a skip."""
    print(f"{SKIP} {why}")
    sys.exit(0)


def need(program, package):
    path = shutil.which(program) or next(
        (p for p in (f"/usr/sbin/{program}", f"/usr/bin/{program}") if os.access(p, os.X_OK)), None)
    if path is None:
        skip(f"{program} is not installed (Debian package {package}; make test installs it)")
    return path


def need_module(name, package):
    try:
        return __import__(name)
    except ImportError:
        skip(f"the Python module {name} is not installed (Debian package {package})")


def utc(seconds_ago=0.0):
    moment = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=seconds_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def check_record(host, *, failing=False, seconds_ago=0.0):
    """The committed H200 check as host `host` made it `seconds_ago`; `failing`: judged by a pinned
    h2d floor of 60 GB/s, which its 55.33 GB/s fails."""
    with open(CHECK_RECORD, encoding="utf-8") as f:
        record = json.load(f)
    record["machine"]["hostname"] = host
    record["created_utc"] = utc(seconds_ago)
    if failing:
        record["config"]["floors"]["pinned_h2d_gb_per_s"] = 60.0
    return record


def write_json(path, value):
    """Written whole, then renamed into place, as pinbench writes its files."""
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(value, f)
    os.replace(path + ".tmp", path)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, probe, seconds):
    """probe() until it returns something true; AssertionError naming `what` after `seconds`."""
    end = time.monotonic() + seconds
    last = None
    while time.monotonic() < end:
        try:
            last = probe()
        except Exception as e:  # a daemon not up yet: its socket refuses, its file is missing
            last = e
        if last and not isinstance(last, Exception):
            return last
        time.sleep(0.2)
    raise AssertionError(f"waited {seconds} s for {what}; last saw: {last!r}")


class Daemons:
    """A temporary folder and the daemons a test starts in it. On leaving: every daemon is stopped
    (its stop command, else SIGTERM, then SIGKILL after 10 s), then the test checks that no
    process names the folder and removes it."""

    def __init__(self, name):
        self.dir = tempfile.mkdtemp(prefix=f"pinbench-{name}-")
        os.chmod(self.dir, 0o700)
        self.started = []  # (name, Popen, log path)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def start(self, name, argv, env=None):
        log = self.path(f"{name}.log")
        with open(log, "wb") as out:
            p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
        self.started.append((name, p, log))
        return p

    def log(self, name):
        for n, _, log in self.started:
            if n == name:
                with open(log, encoding="utf-8", errors="replace") as f:
                    return f.read()
        return ""

    def alive(self, name):
        for n, p, _ in self.started:
            if n == name:
                return p.poll() is None
        return False

    def __enter__(self):
        return self

    def stop(self, name, argv=None):
        for n, p, _ in self.started:
            if n != name or p.poll() is not None:
                continue
            if argv:
                subprocess.run(argv, capture_output=True, timeout=20)
            else:
                os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=10)

    def __exit__(self, kind, value, trace):
        for name, _, _ in reversed(self.started):
            self.stop(name)
        # A daemon that forked (it should not: each runs in the foreground) is found by the folder
        # its command line names.
        left = subprocess.run(["pgrep", "-a", "-f", self.dir], capture_output=True, text=True).stdout
        if kind is not None:
            for name, _, log in self.started:
                print(f"--- {name}'s log, last lines:")
                with open(log, encoding="utf-8", errors="replace") as f:
                    print("".join(f.readlines()[-25:]))
        shutil.rmtree(self.dir, ignore_errors=True)
        assert not left.strip(), f"processes left behind: {left}"
        assert not os.path.exists(self.dir), f"{self.dir} left behind"
        return False
