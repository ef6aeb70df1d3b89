#!/usr/bin/env bash
# Runs each libFuzzer target for a short while (default 30 s each) from a seed corpus: the
# hand-made nsys exports for the CSV reader, nothing but its own findings for the trace writer.
# A crash, a sanitizer report or a timeout fails the run and leaves the input under
# build-fuzz/findings/ for `./build-fuzz/pinbench_fuzz_<name> <file>` to replay.
#   scripts/run-fuzz.sh [BUILD_DIR] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
seconds=${2:-30}

mkdir -p "$build/corpus/csv" "$build/corpus/trace_writer" "$build/findings"
for f in tests/data/nsys/*/*.csv; do
  cp "$f" "$build/corpus/csv/$(basename "$(dirname "$f")")-$(basename "$f")"
done

status=0
for name in csv trace_writer; do
  echo "fuzz: pinbench_fuzz_$name for ${seconds} s"
  if ! "$build/pinbench_fuzz_$name" "$build/corpus/$name" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
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
