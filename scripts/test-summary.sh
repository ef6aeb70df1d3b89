#!/usr/bin/env bash
# The last line of `make test`: how many tests passed, how many were skipped (and which), how
# many failed, read from the log ctest wrote (ctest --output-log). Skipped is not passed: a GPU
# test skips where there is no GPU, and the line says so apart.
set -euo pipefail
log=${1:?usage: test-summary.sh CTEST_LOG}
[ -r "$log" ] || { echo "test-summary: cannot read $log" >&2; exit 2; }
passed=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed ' "$log" || true)
skipped_names=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$log" |
  sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .*/\1/' | sort || true)
skipped=$(printf '%s' "$skipped_names" | grep -c . || true)
failed=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)|Not Run' \
  "$log" || true)
line="make test: $passed passed, $skipped skipped, $failed failed"
if [ "$skipped" -gt 0 ]; then
  line+=" (skipped: $(printf '%s' "$skipped_names" | paste -sd, - | sed 's/,/, /g'))"
fi
echo "$line"
