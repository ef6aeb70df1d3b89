#!/usr/bin/env bash
# Runs each libFuzzer target for a short while (default 30 s each) from a seed corpus: the
# hand-made nsys exports for the CSV reader, nothing but its own findings for the trace writer,
# and the committed run records for the record reader (those over 64 KiB cut to their first
# cases, so every seed fits the target's input size and still passes validation).
# A crash, a sanitizer report or a timeout fails the run and leaves the input under
# build-fuzz/findings/ for `./build-fuzz/pinbench_fuzz_<name> <file>` to replay.
#   scripts/build/run-fuzz.sh [BUILD_DIR] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
seconds=${2:-30}

mkdir -p "$build/corpus/csv" "$build/corpus/trace_writer" "$build/corpus/record" "$build/findings"
for f in tests/data/nsys/*/*.csv; do
  cp "$f" "$build/corpus/csv/$(basename "$(dirname "$f")")-$(basename "$f")"
done
record_max_len=65536
for f in data/runs/*.json data/reference/*.json; do
  case "$f" in *.trace.json) continue ;; esac
  seed="$build/corpus/record/seed-$(basename "$f")"
  if [ "$(stat -c %s "$f")" -le "$record_max_len" ]; then
    cp "$f" "$seed"
  elif command -v python3 >/dev/null; then
    # The first four cases, their gates and any failed one, five samples each.
    python3 - "$f" "$seed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["cases"] = r["cases"][:4]
for c in r["cases"]:
    for k in ("samples_ms", "call_ms"):
        if k in c:
            c[k] = c[k][:5]
names = {c["gate"] for c in r["cases"]}
r["gates"] = [g for g in r["gates"] if g["name"] in names or not g["passed"]]
json.dump(r, open(sys.argv[2], "w"), separators=(",", ":"))
PY
  fi
done

status=0
for name in csv trace_writer record; do
  max_len=16384
  [ "$name" = record ] && max_len=$record_max_len
  echo "fuzz: pinbench_fuzz_$name for ${seconds} s"
  if ! "$build/pinbench_fuzz_$name" "$build/corpus/$name" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
      -artifact_prefix="$build/findings/${name}-" >"$build/fuzz-$name.log" 2>&1; then
    echo "fuzz: pinbench_fuzz_$name found a failure; the log is $build/fuzz-$name.log:" >&2
    tail -n 40 "$build/fuzz-$name.log" >&2
    status=1
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$build/fuzz-$name.log" |
      sed "s/^/fuzz: $name: /"
  fi
done
exit $status
