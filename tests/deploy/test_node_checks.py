"""The node checks that need no daemon to test:
- Kubernetes: node-problem-detector is not in Debian, so its side is checked as it reads it: the
  plugin config by the rules node-problem-detector applies when it loads one, the plugin's
  protocol (exit 0 OK, 1 NonOK, 2 Unknown; one line of at most max_output_length bytes on stdout)
  run here on replayed records and on this machine's own GPUs (none here: NonOK, saying so), and
  the manifests as YAML of the kinds kubectl applies, tied together by their names;
- systemd: the service's command run as written (paths moved into a temporary folder); on a
  machine without a usable GPU it exits 3 and writes nothing, so the Prometheus file goes stale.

    test_node_checks.py PINBENCH_BINARY"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from deploy_common import DEPLOY, check_record, need_module, write_json

yaml = need_module("yaml", "python3-yaml")

K8S = os.path.join(DEPLOY, "kubernetes")


def go_duration(text):
    """Seconds of a Go duration such as "1h", "10m", "30s", "1m30s"."""
    parts = re.fullmatch(r"((\d+)h)?((\d+)m)?((\d+)s)?", text)
    assert parts and text, f"not a duration: {text!r}"
    h, m, s = (int(parts.group(i) or 0) for i in (2, 4, 6))
    return h * 3600 + m * 60 + s


def verdict_bytes(pinbench):
    help_text = subprocess.run([pinbench, "check", "--help"], capture_output=True, text=True).stdout
    return int(re.search(r"one line of at most (\d+)\s+bytes", help_text).group(1))


def plugin_config():
    with open(os.path.join(K8S, "pinbench-check.json"), encoding="utf-8") as f:
        c = json.load(f)
    # What node-problem-detector checks when it loads a custom plugin config.
    assert c["plugin"] == "custom", c["plugin"]
    g = c["pluginConfig"]
    timeout = go_duration(g["timeout"])
    assert go_duration(g["invoke_interval"]) >= timeout
    conditions = {cond["type"] for cond in c["conditions"]}
    assert c["rules"], "no rule"
    for rule in c["rules"]:
        assert rule["type"] in ("temporary", "permanent"), rule
        assert go_duration(rule.get("timeout", g["timeout"])) <= timeout, rule
        if rule["type"] == "permanent":
            assert rule["condition"] in conditions, f"{rule['condition']} has no default condition"
    return c


def run_plugin(pinbench, args, max_bytes):
    env = dict(os.environ, PINBENCH=pinbench, PINBENCH_CHECK_ARGS=args)
    r = subprocess.run([os.path.join(K8S, "pinbench-check.sh")], capture_output=True, env=env)
    lines = r.stdout.decode("utf-8").splitlines()
    assert len(lines) == 1, r.stdout
    assert len(lines[0].encode()) <= max_bytes, lines[0]
    return r.returncode, lines[0]


def kubernetes(pinbench):
    config = plugin_config()
    max_bytes = config["pluginConfig"]["max_output_length"]
    assert max_bytes >= verdict_bytes(pinbench), "the verdict would be cut"
    work = tempfile.mkdtemp(prefix="pinbench-k8s-")
    try:
        write_json(f"{work}/pass.json", check_record("gpu-node-1"))
        write_json(f"{work}/fail.json", check_record("gpu-node-2", failing=True))
        assert run_plugin(pinbench, f"--replay {work}/pass.json", max_bytes) == \
            (0, "pinbench: 1 GPU passed")
        status, line = run_plugin(pinbench, f"--replay {work}/fail.json", max_bytes)
        assert status == 1 and line.startswith("pinbench: GPU 0 pinned h2d 55.33 GB/s"), line
        status, line = run_plugin(pinbench, f"--floors {work}/no-such-file", max_bytes)
        assert status == 2 and "no-such-file" in line, (status, line)
        # This machine's own GPUs: where there is none, NonOK, saying so.
        if subprocess.run([pinbench, "info"], capture_output=True).returncode == 3:
            status, line = run_plugin(pinbench, "", max_bytes)
            assert status == 1 and line.startswith("pinbench: check could not run: no usable GPU"), line
    finally:
        shutil.rmtree(work)

    with open(os.path.join(K8S, "kustomization.yaml"), encoding="utf-8") as f:
        kustomization = yaml.safe_load(f)
    assert kustomization["kind"] == "Kustomization"
    docs = []
    for resource in kustomization["resources"]:
        with open(os.path.join(K8S, resource), encoding="utf-8") as f:
            docs += [d for d in yaml.safe_load_all(f) if d]
    by_kind = {}
    for d in docs:
        assert d["apiVersion"] and d["metadata"]["name"], d
        by_kind.setdefault(d["kind"], []).append(d)
    assert sorted(by_kind) == ["ClusterRole", "ClusterRoleBinding", "DaemonSet", "Namespace",
                               "ServiceAccount"], sorted(by_kind)
    (generator,) = kustomization["configMapGenerator"]
    files = generator["files"]
    for name in files:
        assert os.path.exists(os.path.join(K8S, name)), name
    (ds,) = by_kind["DaemonSet"]
    namespace = by_kind["Namespace"][0]["metadata"]["name"]
    assert ds["metadata"]["namespace"] == generator["namespace"] == namespace
    spec = ds["spec"]["template"]["spec"]
    assert ds["spec"]["selector"]["matchLabels"].items() <= \
        ds["spec"]["template"]["metadata"]["labels"].items()
    account = by_kind["ServiceAccount"][0]["metadata"]
    assert spec["serviceAccountName"] == account["name"] and account["namespace"] == namespace
    binding = by_kind["ClusterRoleBinding"][0]
    assert binding["roleRef"]["name"] == by_kind["ClusterRole"][0]["metadata"]["name"]
    assert {"kind": "ServiceAccount", "name": account["name"], "namespace": namespace} in \
        binding["subjects"]
    granted = {(res, verb) for rule in by_kind["ClusterRole"][0]["rules"]
               for res in rule["resources"] for verb in rule["verbs"]}
    assert {("nodes", "get"), ("nodes/status", "patch"), ("events", "create")} <= granted
    (volume,) = [v for v in spec["volumes"] if "configMap" in v]
    assert volume["configMap"]["name"] == generator["name"]
    assert volume["configMap"]["defaultMode"] & 0o111, "the plugin script must be executable"
    (container,) = spec["containers"]
    (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
    mounted = {f"{mount['mountPath']}/{name}" for name in files}
    assert f"--config.custom-plugin-monitor={mount['mountPath']}/pinbench-check.json" in \
        container["command"], container["command"]
    for rule in config["rules"]:
        assert rule["path"] in mounted, rule["path"]
    env = {e["name"]: e for e in container["env"]}
    assert env["NVIDIA_VISIBLE_DEVICES"]["value"] == "all" and "PINBENCH_CHECK_ARGS" in env
    assert "nvidia.com/gpu" not in json.dumps(container.get("resources", {})), \
        "the check must not take a GPU from the scheduler"


def systemd(pinbench):
    with open(os.path.join(DEPLOY, "systemd", "pinbench-check.service"), encoding="utf-8") as f:
        unit = f.read()
    (exec_start,) = re.findall(r"^ExecStart=(.*)$", unit, re.M)
    argv = shlex.split(exec_start)
    assert argv[:2] == ["/usr/local/bin/pinbench", "check"], argv
    assert "SuccessExitStatus=1" in unit
    if subprocess.run([pinbench, "info"], capture_output=True).returncode != 3:
        return  # a GPU is here: the live check is the GPU tests'
    work = tempfile.mkdtemp(prefix="pinbench-systemd-")
    try:
        os.mkdir(f"{work}/textfile")
        moved = [pinbench] + [a.replace("/var/lib/prometheus/node-exporter", f"{work}/textfile")
                              .replace("/var/lib/pinbench", work) for a in argv[1:]]
        r = subprocess.run(moved, capture_output=True, text=True)
        assert r.returncode == 3, (r.returncode, r.stderr)
        assert r.stderr.count("\n") == 1 and "no usable GPU" in r.stderr, r.stderr
        assert os.listdir(f"{work}/textfile") == [] and sorted(os.listdir(work)) == ["textfile"]
    finally:
        shutil.rmtree(work)


def main():
    pinbench = os.path.realpath(sys.argv[1])
    kubernetes(pinbench)
    systemd(pinbench)
    print("node checks: the node-problem-detector plugin's config, protocol and manifests, and "
          "the systemd service's command, hold")


if __name__ == "__main__":
    main()
