#!/usr/bin/env bash
# The staged engine's steadiness on a GPU machine, side by side in one run
# (docs/history/results.md, "A steady engine"): five pipelines back to back from each of two
# builds, alternating, then the staged benchmark of each at the sizes the goals name, and a copy
# to the device at 64 MiB after a pause. vmstat runs beside it all. Usage, over a copy of the
# tree holding both binaries:
#   OUT=DIR scripts/bench/engine-steadiness.sh NEW_PINBENCH [OLD_PINBENCH]
# OUT is the folder the results go to [.]; with ARCHIVE (a file name) they are packed into
# OUT/ARCHIVE (tar.gz) instead, for a machine whose results are copied back as few files.
set -uo pipefail
new=${1:?usage: engine-steadiness.sh NEW_PINBENCH [OLD_PINBENCH]}
old=${2:-}
final=${OUT:-.}
mkdir -p "$final"
if [ -n "${ARCHIVE:-}" ]; then out=$(mktemp -d); else out=$final; fi
vmstat 1 >"$out/vmstat.txt" 2>&1 &
vm=$!
builds=(new)
[ -n "$old" ] && builds+=(old)
bin() { if [ "$1" = new ]; then echo "$new"; else echo "$old"; fi; }
for i in 1 2 3 4 5; do
  for b in "${builds[@]}"; do
    echo "$(date +%T) pipeline $b $i" >>"$out/timeline.txt"
    "$(bin "$b")" pipeline --json "$out/pipeline-$b-$i.json" >"$out/pipeline-$b-$i.txt" 2>&1
  done
done
for b in "${builds[@]}"; do
  echo "$(date +%T) staged $b" >>"$out/timeline.txt"
  "$(bin "$b")" staged --methods staged,pinned --sizes 64MiB,256MiB,1GiB --odd-sizes none \
    --json "$out/staged-$b.json" >"$out/staged-$b.txt" 2>&1
  sleep 5  # a pause, then one copy size to the device
  echo "$(date +%T) after-pause $b" >>"$out/timeline.txt"
  "$(bin "$b")" staged --methods staged,pinned --sizes 64MiB --odd-sizes none --directions h2d \
    --json "$out/after-pause-$b.json" >"$out/after-pause-$b.txt" 2>&1
done
kill "$vm" 2>/dev/null
for b in "${builds[@]}"; do
  for i in 1 2 3 4 5; do
    printf '%s %s: ' "$b" "$i"
    grep -E "^  staged +2 " "$out/pipeline-$b-$i.txt" | awk '{print $(NF-1)}'
  done
done
[ -n "${ARCHIVE:-}" ] && tar czf "$final/$ARCHIVE" -C "$out" .
