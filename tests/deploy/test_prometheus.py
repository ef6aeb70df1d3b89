"""Prometheus and node_exporter from Debian's packages, started on loopback in a temporary folder:
node_exporter's textfile collector reads what pinbench wrote for three hosts (one passing, one
failing its pinned h2d floor, one whose check is three hours old), Prometheus scrapes it every
second with deploy/prometheus/pinbench-rules.yml loaded, and the test asks Prometheus' HTTP API
until the failing GPU's series is there and its alert fires, and the stale host's alert fires,
and sees none for the passing host. Then both daemons stop and nothing of them is left.

    test_prometheus.py PINBENCH_BINARY"""

import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from deploy_common import DEPLOY, Daemons, check_record, free_port, need, wait_until, write_json


def api(port, path, **query):
    url = f"http://127.0.0.1:{port}/api/v1/{path}"
    if query:
        url += "?" + urllib.parse.urlencode(query)
    with urllib.request.urlopen(url, timeout=5) as r:
        body = json.load(r)
    assert body["status"] == "success", body
    return body["data"]


def firing(port):
    return [a for a in api(port, "alerts")["alerts"] if a["state"] == "firing"]


def main():
    pinbench = sys.argv[1]
    prometheus = need("prometheus", "prometheus")
    exporter = need("prometheus-node-exporter", "prometheus-node-exporter")
    rules = os.path.join(DEPLOY, "prometheus", "pinbench-rules.yml")
    began = time.monotonic()
    with Daemons("prometheus") as d:
        textfile = d.path("textfile")
        os.mkdir(textfile)
        # What each host's check wrote, through pinbench's own writer (a fleet of one host writes
        # the check's series and its fleet flag).
        for host, kw in (("gpu-pass", {}), ("gpu-fail", {"failing": True}),
                         ("gpu-stale", {"seconds_ago": 3 * 3600})):
            record = d.path(f"{host}.json")
            write_json(record, check_record(host, **kw))
            r = subprocess.run([pinbench, "fleet", record, "--prometheus",
                                os.path.join(textfile, f"{host}.prom")],
                               capture_output=True, text=True)
            assert r.returncode in (0, 1), r.stderr
        exporter_port, prometheus_port = free_port(), free_port()
        d.start("node_exporter", [
            exporter, f"--web.listen-address=127.0.0.1:{exporter_port}",
            "--collector.disable-defaults", "--collector.textfile",
            f"--collector.textfile.directory={textfile}"])
        with open(d.path("prometheus.yml"), "w", encoding="utf-8") as f:
            f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {rules}
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:{exporter_port}"]
""")
        d.start("prometheus", [
            prometheus, f"--config.file={d.path('prometheus.yml')}",
            f"--storage.tsdb.path={d.path('data')}",
            f"--web.listen-address=127.0.0.1:{prometheus_port}"])

        # The failing GPU's series, as the textfile collector served it.
        series = wait_until(
            "gpu-fail's pinbench_check_gpu_passed in Prometheus",
            lambda: api(prometheus_port, "query", query='pinbench_check_gpu_passed{host="gpu-fail"}')["result"],
            40)
        assert series[0]["value"][1] == "0", series
        assert series[0]["metric"]["uuid"].startswith("GPU-"), series
        # Its alert, naming the GPU and the check; the stale host's; none for the passing host.
        def alerts_there():
            alerts = firing(prometheus_port)
            names = {(a["labels"]["alertname"], a["labels"].get("host")) for a in alerts}
            if {("PinbenchCheckFailed", "gpu-fail"), ("PinbenchCheckStale", "gpu-stale")} <= names:
                return alerts
            return None
        alerts = wait_until("PinbenchCheckFailed for gpu-fail and PinbenchCheckStale for gpu-stale",
                            alerts_there, 40)
        failed = [a for a in alerts if a["labels"]["alertname"] == "PinbenchCheckFailed"]
        assert len(failed) == 1, failed
        labels = failed[0]["labels"]
        assert (labels["host"], labels["gpu"], labels["check"]) == ("gpu-fail", "0", "pinned h2d"), labels
        assert failed[0]["annotations"]["summary"] == "gpu-fail GPU 0 failed its pinned h2d check"
        assert not [a for a in alerts if a["labels"].get("host") == "gpu-pass"], alerts
        assert not [a for a in alerts if a["labels"].get("host") == "gpu-fail"
                    and a["labels"]["alertname"] == "PinbenchCheckStale"], alerts
        # The rules loaded whole: every group evaluated without an error.
        for group in api(prometheus_port, "rules")["groups"]:
            for rule in group["rules"]:
                assert rule["health"] == "ok", rule
        d.stop("prometheus")
        d.stop("node_exporter")
    print(f"prometheus + node_exporter: the failing GPU's alert and the stale check's fired, none "
          f"for the passing host; both stopped, nothing left ({time.monotonic() - began:.1f} s)")


if __name__ == "__main__":
    main()
