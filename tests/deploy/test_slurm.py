"""Slurm from Debian's packages: MUNGE, slurmctld and slurmd for one node, started on loopback with
a minimal slurm.conf in a temporary folder, deploy/slurm/pinbench-healthcheck as the node's
HealthCheckProgram (every 2 s), and a replayed check record standing in for the GPU. A passing
record leaves the node idle; a failing one drains it with the check's own line as the reason,
naming the GPU and the check; a passing record again resumes nothing. After the operator resumes
it, settings the check refuses (exit 2) drain nothing, and a node drained for another reason
keeps that reason when the check fails. Then every daemon stops and nothing of them is left.

    test_slurm.py PINBENCH_BINARY"""

import os
import socket
import subprocess
import sys
import time

from deploy_common import (DEPLOY, Daemons, check_record, free_port, need, skip, wait_until,
                           write_json)


def main():
    pinbench = os.path.realpath(sys.argv[1])
    munged = need("munged", "munge")
    slurmctld = need("slurmctld", "slurmctld")
    slurmd = need("slurmd", "slurmd")
    need("scontrol", "slurm-client")
    need("sinfo", "slurm-client")
    if os.geteuid() != 0:
        skip("slurmd runs as root (SlurmdUser=root), and this test is not root")
    node = socket.gethostname().split(".")[0]
    began = time.monotonic()
    with Daemons("slurm") as d:
        env = dict(os.environ, SLURM_CONF=d.path("slurm.conf"))
        # MUNGE with its own key and socket.
        os.mkdir(d.path("munge"), 0o700)
        with open(d.path("munge", "munge.key"), "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(d.path("munge", "munge.key"), 0o400)
        socket_path = d.path("munge", "munge.socket")
        d.start("munged", [munged, "--foreground", "--force", f"--socket={socket_path}",
                           f"--key-file={d.path('munge', 'munge.key')}",
                           f"--pid-file={d.path('munge', 'munged.pid')}",
                           f"--seed-file={d.path('munge', 'munged.seed')}",
                           f"--log-file={d.path('munge', 'munged.log')}"])
        wait_until("MUNGE's socket", lambda: os.path.exists(socket_path), 10)

        # The health check as an operator installs it, its settings in the file it reads.
        record = d.path("check.json")
        write_json(record, check_record(node))

        def settings(check_args):
            with open(d.path("healthcheck.conf"), "w", encoding="utf-8") as f:
                f.write(f"PINBENCH={pinbench}\n"
                        f"PINBENCH_CHECK_ARGS='{check_args}'\n"
                        f"PINBENCH_HEALTHCHECK_LOG={d.path('healthcheck.log')}\n"
                        f"export SLURM_CONF={d.path('slurm.conf')}\n")

        settings(f"--replay {record}")
        with open(d.path("healthcheck"), "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\nPINBENCH_HEALTHCHECK_CONF={d.path('healthcheck.conf')} exec "
                    f"{os.path.join(DEPLOY, 'slurm', 'pinbench-healthcheck')}\n")
        os.chmod(d.path("healthcheck"), 0o755)
        for folder in ("state", "spool"):
            os.mkdir(d.path(folder))
        with open(d.path("slurm.conf"), "w", encoding="utf-8") as f:
            f.write(f"""ClusterName=pinbench
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={socket_path}
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d.path('state')}
SlurmdSpoolDir={d.path('spool')}
SlurmctldPidFile={d.path('slurmctld.pid')}
SlurmdPidFile={d.path('slurmd.pid')}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
SchedulerType=sched/builtin
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
HealthCheckProgram={d.path('healthcheck')}
HealthCheckInterval=2
HealthCheckNodeState=ANY
NodeName={node} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
        conf = d.path("slurm.conf")
        d.start("slurmctld", [slurmctld, "-D", "-f", conf], env=env)
        d.start("slurmd", [slurmd, "-D", "-f", conf], env=env)

        def node_state():
            out = subprocess.run(["sinfo", "--noheader", "--Node", f"--nodes={node}",
                                  "--format=%T|%E"], capture_output=True, text=True, env=env,
                                 timeout=10).stdout.strip()
            return out.split("|", 1) if "|" in out else None

        def checks_run():
            try:
                with open(d.path("healthcheck.log"), encoding="utf-8") as f:
                    return f.read().splitlines()
            except FileNotFoundError:
                return []

        def after_more_checks(n):
            seen = len(checks_run())
            wait_until(f"{n} more health checks", lambda: len(checks_run()) >= seen + n, 30)

        # Passing: idle, checked, not drained.
        wait_until("the node idle", lambda: (node_state() or [""])[0] == "idle", 40)
        after_more_checks(2)
        state = node_state()
        assert state[0] == "idle", state
        assert checks_run()[-1].endswith("exit 0: pinbench: 1 GPU passed"), checks_run()

        # Failing: drained, the check's line the reason.
        write_json(record, check_record(node, failing=True))
        state = wait_until("the node drained",
                           lambda: (s := node_state()) and s[0] in ("drained", "draining") and s, 30)
        reason = state[1]
        assert reason.startswith("pinbench: GPU 0 pinned h2d 55.33 GB/s, not at least 60.00 GB/s "
                                 "(GPU-"), reason
        shown = subprocess.run(["scontrol", "show", "node", node], capture_output=True, text=True,
                               env=env).stdout
        assert f"Reason={reason}" in shown, shown

        # Passing again: still drained, by the same reason, until an operator resumes it.
        write_json(record, check_record(node))
        after_more_checks(2)
        state = node_state()
        assert state == ["drained", reason], state

        def scontrol_update(*words):
            subprocess.run(["scontrol", "update", f"nodename={node}", *words], check=True,
                           capture_output=True, env=env, timeout=10)

        # The operator resumes it; settings the check refuses (exit 2) then drain nothing.
        scontrol_update("state=resume")
        wait_until("the node idle again", lambda: (node_state() or [""])[0] == "idle", 30)
        settings("--no-such-option")
        after_more_checks(2)
        state = node_state()
        assert state[0] == "idle", state
        assert " exit 2: " in checks_run()[-1], checks_run()

        # A node drained for another reason keeps it: a failing check does not write over it.
        theirs = "maintenance: PSU swap"
        scontrol_update("state=drain", f"reason={theirs}")
        settings(f"--replay {record}")
        write_json(record, check_record(node, failing=True))
        after_more_checks(2)
        state = node_state()
        assert state[0] in ("drained", "draining") and state[1] == theirs, state
        assert " exit 1: pinbench: GPU 0 " in checks_run()[-1], checks_run()

        d.stop("slurmd")
        d.stop("slurmctld")
        d.stop("munged")
    print(f"slurm: a passing check left the node idle, a failing one drained it with the check's "
          f"reason ('{reason}'), a passing one resumed nothing; bad settings (exit 2) drained "
          f"nothing; another's drain reason was kept; every daemon stopped, nothing left "
          f"({time.monotonic() - began:.1f} s)")


if __name__ == "__main__":
    main()
