"""deploy/prometheus: promtool checks the rules and runs their unit tests; every metric that
`check --prometheus` or `fleet --prometheus` writes (the names in src/experiments/check/
prometheus.cpp, so a metric added there without a rule fails here) is read by an alert; every
alert has a unit test case where it fires and one where it does not; and the stale alert's age
fits the systemd timer's period.

    test_rules.py"""

import os
import re
import subprocess

from deploy_common import DEPLOY, SOURCE, need, need_module

yaml = need_module("yaml", "python3-yaml")

RULES = os.path.join(DEPLOY, "prometheus", "pinbench-rules.yml")
TESTS = os.path.join(DEPLOY, "prometheus", "pinbench-rules.test.yml")


def written_metrics():
    with open(os.path.join(SOURCE, "src", "experiments", "check", "prometheus.cpp"),
              encoding="utf-8") as f:
        text = f.read()
    names = set(re.findall(r'"(pinbench_[a-z_]+)', text))
    assert len(names) >= 10, names  # the reader itself still finds them
    return names


def main():
    promtool = need("promtool", "prometheus")
    for argv in ([promtool, "check", "rules", RULES], [promtool, "test", "rules", TESTS]):
        r = subprocess.run(argv, capture_output=True, text=True, cwd=os.path.dirname(RULES))
        assert r.returncode == 0, f"{' '.join(argv)}:\n{r.stdout}{r.stderr}"

    with open(RULES, encoding="utf-8") as f:
        groups = yaml.safe_load(f)["groups"]
    alerts = {r["alert"]: r for g in groups for r in g["rules"] if "alert" in r}
    records = {r["record"]: r for g in groups for r in g["rules"] if "record" in r}
    read = " ".join(r["expr"] for r in list(alerts.values()) + list(records.values()))
    alert_exprs = " ".join(r["expr"] for r in alerts.values())
    # Each metric read by an alert, itself or through a recording rule an alert reads.
    for metric in sorted(written_metrics()):
        via = [name for name, r in records.items() if metric in r["expr"]]
        assert metric in alert_exprs or any(v in alert_exprs for v in via), \
            f"no alert reads {metric}"
    for alert, rule in alerts.items():
        assert rule.get("labels", {}).get("severity"), f"{alert} has no severity"
        assert rule.get("annotations", {}).get("summary"), f"{alert} has no summary"

    with open(TESTS, encoding="utf-8") as f:
        tests = yaml.safe_load(f)["tests"]
    fires, quiet = set(), set()
    for t in tests:
        for case in t.get("alert_rule_test", []):
            (fires if case.get("exp_alerts") else quiet).add(case["alertname"])
    for alert in alerts:
        assert alert in fires, f"{alert} has no case where it fires"
        assert alert in quiet, f"{alert} has no case where it does not fire"
    tested = {c["expr"] for t in tests for c in t.get("promql_expr_test", [])}
    for record in records:
        assert record in tested, f"the recording rule {record} has no test"

    # Stale after the timer's period and its randomised delay, and before two periods pass.
    stale = re.search(r"time\(\) - pinbench_check_timestamp_seconds > (\d+)",
                      alerts["PinbenchCheckStale"]["expr"])
    stale = int(stale.group(1))
    with open(os.path.join(DEPLOY, "systemd", "pinbench-check.timer"), encoding="utf-8") as f:
        timer = f.read()
    assert "OnCalendar=hourly" in timer, timer
    delay = int(re.search(r"RandomizedDelaySec=(\d+)min", timer).group(1)) * 60
    assert 3600 + delay < stale < 2 * 3600, (stale, delay)
    print(f"rules: promtool passed {len(tests)} test groups; {len(alerts)} alerts each fire and "
          f"stay quiet in a case; {len(written_metrics())} metrics each read by an alert")


if __name__ == "__main__":
    main()
