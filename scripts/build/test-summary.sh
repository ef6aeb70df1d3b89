#!/usr/bin/env bash
# The last line of `make test`: how many tests passed, how many were skipped, how many failed,
# read from the log ctest wrote (ctest --output-log). Skipped is not passed: a GPU test skips
# where there is no GPU. The skipped tests' names go to a file beside the log (named on the
# line), so the line stays short; the failed ones, few and urgent, are named on lines above it.
set -euo pipefail
log=${1:?usage: test-summary.sh CTEST_LOG}
[ -r "$log" ] || { echo "test-summary: cannot read $log" >&2; exit 2; }
skipped_file="$(dirname "$log")/ctest-skipped.txt"
passed=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed ' "$log" || true)
grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$log" |
  sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .*/\1/' | sort >"$skipped_file" || true
skipped=$(grep -c . "$skipped_file" || true)
failed_names=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*(Failed|Timeout|Exception)|Not Run)' \
  "$log" | sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .*/\1/' || true)
failed=$(printf '%s' "$failed_names" | grep -c . || true)
[ "$failed" -gt 0 ] && printf 'failed: %s\n' $failed_names
line="make test: $passed passed, $skipped skipped, $failed failed"
[ "$skipped" -gt 0 ] && line+=" (skipped tests: $skipped_file)"
echo "$line"
