#!/usr/bin/env bash
# The staged engine's goals on a GPU machine, in one run (docs/history/results.md, "The engine
# at the host's bound"): nvbandwidth for the physical reference; five `pinbench staged` and five
# `pinbench pipeline` runs back to back (records staged-N.json, pipeline-N.json); the build
# before the change beside it on the same sizes; PyTorch's copy paths without accel and under
# each build's accel; each build's engine from its Python package; each build's blocks batch
# through the engine; and the timeline traces of one 64 MiB copy each way and of the pipeline
# (scripts/bench/engine-timeline.py reads them). vmstat runs beside it all. Usage:
#   OUT=DIR scripts/bench/engine-bench.sh NEW_DIR [OLD_DIR]
# Each DIR holds pinbench, libpinbench_accel.so and libpinbench_c.so; OLD_DIR also python/ (its
# build's Python package) and NEW_DIR nvbandwidth, where there is one. Settings, from the
# environment (default in brackets): OUT, the folder the results go to [.]; ARCHIVE, a file name:
# the results packed into OUT/ARCHIVE (tar.gz) rather than left as files, for a machine whose
# results are copied back as few files [none]; ITERATIONS, the staged runs' samples per case
# [10]; TORCH_PLAIN=0 leaves out PyTorch without accel [1].
set -uo pipefail
new=${1:?usage: engine-bench.sh NEW_DIR [OLD_DIR]}
old=${2:-}
final=${OUT:-.}
mkdir -p "$final"
if [ -n "${ARCHIVE:-}" ]; then out=$(mktemp -d); else out=$final; fi
vmstat 1 >"$out/vmstat.txt" 2>&1 &
vm=$!
log() { echo "$(date +%T) $*" >>"$out/timeline.txt"; }
sizes="--sizes 64MiB,256MiB,1GiB --odd-sizes none"
engine_methods="--methods staged,staged-back-to-back,staged-fresh,pinned --iterations ${ITERATIONS:-10}"
nproc >"$out/machine.txt"
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag \
  >>"$out/machine.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current \
  --format=csv >>"$out/machine.txt" 2>&1

if [ -x "$new/nvbandwidth" ]; then
  log nvbandwidth
  "$new/nvbandwidth" -t host_to_device_memcpy_ce device_to_host_memcpy_ce >"$out/nvbandwidth.txt" 2>&1
fi

for i in 1 2 3 4 5; do
  log "staged $i"
  "$new/pinbench" staged $engine_methods $sizes --json "$out/staged-$i.json" >"$out/staged-$i.txt" 2>&1
  log "pipeline $i"
  "$new/pinbench" pipeline --streams 2 --json "$out/pipeline-$i.json" >"$out/pipeline-$i.txt" 2>&1
done

if [ -n "$old" ]; then
  log "old staged"
  "$old/pinbench" staged --methods staged,staged-back-to-back,pinned --iterations ${ITERATIONS:-10} \
    $sizes \
    --json "$out/old-staged.json" >"$out/old-staged.txt" 2>&1
  for i in 1 2; do
    log "old pipeline $i"
    "$old/pinbench" pipeline --streams 2 --json "$out/old-pipeline-$i.json" \
      >"$out/old-pipeline-$i.txt" 2>&1
  done
fi

# PyTorch's own copy paths: without accel, then under each build's accel.
torch_paths=(python3 tests/python/accel_torch.py --sizes 64MiB,256MiB,1GiB --reps 5)
if [ "${TORCH_PLAIN:-1}" != 0 ]; then
  log "torch plain"
  timeout 150 "${torch_paths[@]}" >"$out/torch-plain.txt" 2>&1
fi
for b in new old; do
  dir=$new
  [ "$b" = old ] && dir=$old
  [ -z "$dir" ] && continue
  log "torch $b"
  timeout 150 "$dir/pinbench" accel --json "$out/accel-torch-$b.json" -- "${torch_paths[@]}" \
    >"$out/torch-$b.txt" 2>"$out/torch-$b.report.txt"
done

# Each build's engine from its Python package, into existing tensors (accel_bench's figure).
for b in new old; do
  dir=$new
  pkg=python
  [ "$b" = old ] && dir=$old && pkg=$old/python
  [ -z "$dir" ] && continue
  log "python $b"
  PYTHONPATH=$pkg:tests/bench PINBENCH_LIBRARY=$dir/libpinbench_c.so timeout 120 python3 tests/bench/engine_rates.py >"$out/python-$b.txt" 2>&1
done

# The blocks batch through the engine, pageable memory.
for b in new old; do
  dir=$new
  [ "$b" = old ] && dir=$old
  [ -z "$dir" ] && continue
  log "blocks $b"
  "$dir/pinbench" blocks --methods staged --memory pageable --sizes 4KiB,64KiB,1MiB \
    --counts 16,256,4096 --json "$out/blocks-$b.json" >"$out/blocks-$b.txt" 2>&1
done

log "traces"
"$new/pinbench" staged --methods staged,staged-back-to-back,staged-fresh,pinned --sizes 64MiB \
  --odd-sizes none --iterations 8 --trace "$out/staged64.trace.json" \
  --json "$out/staged64-traced.json" >"$out/staged64-traced.txt" 2>&1
"$new/pinbench" pipeline --streams 2 --iterations 3 --trace "$out/pipeline.trace.json" \
  --json "$out/pipeline-traced.json" >"$out/pipeline-traced.txt" 2>&1
log end
kill "$vm" 2>/dev/null

for i in 1 2 3 4 5; do
  printf 'pipeline %s: ' "$i"
  grep -E "^  (pinned|staged) +2 " "$out/pipeline-$i.txt" | awk '{printf "%s %s ms  ", $1, $5}'
  echo
done
grep -h "^SUM" "$out/nvbandwidth.txt" 2>/dev/null
here=$(dirname "$0")
for b in new old; do
  [ -f "$out/torch-$b.txt" ] && [ -f "$out/torch-plain.txt" ] &&
    python3 "$here/engine-bench-json.py" "$out" "$b"
done
[ -n "${ARCHIVE:-}" ] && tar czf "$final/$ARCHIVE" -C "$out" .
