#!/usr/bin/env bash
# Benchmark parts on a GPU machine, run from the repository root: the GPU tests, and A/B runs of
# a build against others, alternating so that the machine's drift falls on both. The builds are
# in one folder, BUILDS (the bundle of `make gpu-bundle`: pinbench, its libraries and tests):
# BUILDS itself is the build under test (`new`); BUILDS/old, BUILDS/prev, BUILDS/alt and
# BUILDS/alt2 are builds to compare with (each its pinbench, libraries and python/), used where
# they are there; BUILDS/nvbandwidth is NVIDIA's nvbandwidth, used where it is there. Parts, each
# within its own time limit:
#   tests    every GPU test (scripts/bench/gpu-tests.sh), about 5.5 minutes
#   beside   pinbench blocks --beside compute, memory and gemm, a small grid, 3 minutes at most
#   copier   BlockCopier's goals (pinbench_block_copier_bench), calibrated afresh, ROUNDS times
#            (alternating with BUILDS/alt's, a variant, where there is one)
#   engine   scripts/bench/engine-bench.sh with BUILDS and BUILDS/old, 5.5 minutes at most
#   prev     pinbench staged (64 and 256 MiB) and pipeline with BUILDS and BUILDS/prev/pinbench
#            (the build of the last change, where the one before it is BUILDS/old),
#            alternating, ROUNDS times, about 25 seconds a round (H200, 2026-12-03)
#   threads  the engine's default pool against `--host-threads 8` and against BUILDS/old (or the
#            settings THREADS_SETTINGS names, prev for BUILDS/prev/pinbench among them): staged
#            (64 and 256 MiB), pipeline and the blocks batch to the device, alternating, ROUNDS
#            times; then a traced 64 MiB copy each way by each, about 2.5 minutes
#   fresh    copies to the host into fresh memory: pinbench staged's staged-fresh (64 MiB to 1 GiB)
#            by BUILDS and BUILDS/prev/pinbench, and PyTorch's .cpu() under BUILDS's and
#            BUILDS/old's accel, alternating, ROUNDS times, about 1 minute a round; the kernel's
#            counts of huge-page faults and compaction (/proc/vmstat) around each staged run
#   steady   pinbench pipeline by BUILDS and BUILDS/prev/pinbench, alternating, ROUNDS times
#   blocks   the blocks batch through the engine (pageable, both ways) by BUILDS, BUILDS/alt and
#            BUILDS/alt2 (variants, where there are), BUILDS/prev and BUILDS/old, alternating,
#            ROUNDS times, a few seconds a round
#   compare  PyTorch without accel once, then under each build's accel, each build's Python
#            engine and blocks batch, alternating new and old, ROUNDS times, about 1.5 minutes
#            (2026-12-03); `scripts/bench/engine-bench-json.py DIR new 1 2 ...` (and old)
#            makes the JSON that results.md's bench markers read
# Usage:
#   OUT=DIR scripts/bench/ab-bench.sh PART...
# Exit status 2, with one line on stderr: no pinbench in BUILDS, a TIME_SCALE that is not a
# whole number from 1, or a THREADS_SETTINGS name it does not know.
# Settings, from the environment (default in brackets):
#   OUT               the folder the results go to (required)
#   BUILDS            the folder of the builds [.gpu]
#   ROUNDS            rounds of each alternating part [2]
#   THREADS_SETTINGS  the threads part's settings, among default pool8 old prev [default pool8 old]
#   TIME_SCALE        a whole number each part's time limit is multiplied by, for a slower
#                     machine or larger builds [1]
#   ARCHIVE           a file name: the results packed into OUT/ARCHIVE (tar.gz), for a machine
#                     whose results are copied back as few files [none: the files in OUT]
#   WORK              the folder the parts write into [OUT, or a new temporary one with ARCHIVE]
#   DOCTOR, TORCH_PLAIN   0 leaves out doctor's GPU tests, PyTorch without accel [1]
# scripts/bench/ab-summary.py DIR... prints the prev and blocks parts' A/B tables;
# scripts/bench/squeeze-runs.py keeps what the docs cite of DIR under data/evidence/.
set -uo pipefail
final=${OUT:?OUT must name the folder the results go to}
builds=${BUILDS:-.gpu}
parts=${*:?name the parts: tests beside copier prev threads engine fresh steady blocks compare}
[ -x "$builds/pinbench" ] || { echo "ab-bench.sh: error: no pinbench in $builds (BUILDS)" >&2; exit 2; }
case ${TIME_SCALE:-1} in
  '' | *[!0-9]* | 0 | 0*) echo "ab-bench.sh: error: TIME_SCALE '$TIME_SCALE' is not a whole number from 1" >&2
    exit 2 ;;
esac
# A part's time limit in seconds, scaled by TIME_SCALE.
limit() { echo $(($1 * ${TIME_SCALE:-1})); }
mkdir -p "$final"
# WORK names the folder the parts write into, so a caller whose own limit may cut the run short
# can still pack what was written.
if [ -n "${ARCHIVE:-}" ]; then d=${WORK:-$(mktemp -d)}; else d=${WORK:-$final}; fi
mkdir -p "$d"
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; ldd --version | head -1
  python3 -c "import cupy, torch; print('cupy', cupy.__version__, 'torch', torch.__version__)"
) >"$d/machine.txt" 2>&1
log() { echo "$(date +%T) $*" >>"$d/timeline.txt"; }
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
# A build's folder by its name: new (BUILDS), or old, prev, alt, alt2 (BUILDS/NAME).
dir_of() { if [ "$1" = new ]; then echo "$builds"; else echo "$builds/$1"; fi; }
# The kernel's huge-page and compaction counts, under a heading, into fresh-vmstat.txt.
vmstat_counts() {
  { echo "$*"; grep -E "^(thp_fault|compact_)" /proc/vmstat; } >>"$d/fresh-vmstat.txt"
}
if has tests; then
  log tests
  BUILDS=$builds OUT=$d/tests timeout "$(limit 380)" bash scripts/bench/gpu-tests.sh >"$d/tests-summary.txt" 2>&1
fi
if has beside; then
  for k in compute memory gemm; do
    log "beside $k"
    timeout "$(limit 60)" "$builds/pinbench" blocks --beside $k --sizes 4KiB,64KiB,1MiB --counts 1,64,1024 \
      --sms 0,16 --json "$d/blocks-beside-$k.json" >"$d/blocks-beside-$k.txt" 2>&1
  done
fi
if has copier; then
  # With BUILDS/alt/pinbench_block_copier_bench (a variant of the copier), the two alternate.
  copiers=("$builds")
  [ -x "$builds/alt/pinbench_block_copier_bench" ] && copiers+=("$builds/alt")
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for c in "${copiers[@]}"; do
      tag=$r
      [ "$c" = "$builds/alt" ] && tag=alt-$r
      log "copier $tag"
      timeout "$(limit 90)" "$c/pinbench_block_copier_bench" --no-cache >"$d/copier-$tag.txt" 2>&1
      echo "exit status $?" >>"$d/copier-$tag.txt"
    done
  done
fi
# `pinbench staged` (64 and 256 MiB) and `pinbench pipeline` by one build and setting, into
# $d/PREFIX-staged-TAG.* and $d/PREFIX-pipeline-TAG.*:  staged_and_pipeline PREFIX TAG BIN [FLAG...]
staged_and_pipeline() {
  local prefix=$1 tag=$2 bin=$3
  shift 3
  log "$prefix: $tag"
  timeout "$(limit 60)" "$bin" staged "$@" --methods staged,staged-back-to-back,pinned \
    --sizes 64MiB,256MiB --odd-sizes none --iterations 10 \
    --json "$d/$prefix-staged-$tag.json" >"$d/$prefix-staged-$tag.txt" 2>&1
  timeout "$(limit 30)" "$bin" pipeline "$@" --streams 2 --json "$d/$prefix-pipeline-$tag.json" \
    >"$d/$prefix-pipeline-$tag.txt" 2>&1
}
if has prev; then
  for r in $(seq 1 "${ROUNDS:-2}"); do
    staged_and_pipeline prev "new-$r" "$builds/pinbench"
    staged_and_pipeline prev "prev-$r" "$builds/prev/pinbench"
  done
fi
if has threads; then
  # The threads part's settings: the binary and flags of each.
  # THREADS_SETTINGS picks among them (default: default pool8 old); prev is BUILDS/prev/pinbench.
  setting() {
    bin=$builds/pinbench flags=()
    [ "$1" = pool8 ] && flags=(--host-threads 8)
    [ "$1" = old ] && bin=$builds/old/pinbench
    [ "$1" = prev ] && bin=$builds/prev/pinbench
  }
  settings=${THREADS_SETTINGS:-default pool8 old}
  for b in $settings; do
    case $b in
      default | pool8 | old | prev) ;;
      *) echo "ab-bench.sh: error: THREADS_SETTINGS: unknown setting '$b' (default, pool8, old, prev)" >&2
        exit 2 ;;
    esac
  done
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for b in $settings; do
      setting "$b"
      staged_and_pipeline threads "$b-$r" "$bin" "${flags[@]}"
      [ "$b" = pool8 ] && continue  # blocks takes no engine flags
      timeout "$(limit 30)" "$bin" blocks --methods staged --memory pageable --directions h2d \
        --sizes 4KiB,64KiB --counts 16,256,4096 --json "$d/threads-blocks-$b-$r.json" \
        >"$d/threads-blocks-$b-$r.txt" 2>&1
    done
  done
  for b in $settings; do
    setting "$b"
    log "threads: trace $b"
    timeout "$(limit 40)" "$bin" staged "${flags[@]}" --methods staged-back-to-back,pinned --sizes 64MiB \
      --odd-sizes none --iterations 8 --trace "$d/threads-$b.trace.json" \
      --json "$d/threads-traced-$b.json" >"$d/threads-traced-$b.txt" 2>&1
  done
fi
if has engine; then
  log engine
  OUT=$d timeout "$(limit 330)" bash scripts/bench/engine-bench.sh "$builds" "$builds/old" \
    >"$d/engine-run.txt" 2>&1
fi
if has fresh; then
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for b in new prev; do
      log "fresh staged $b $r"
      vmstat_counts "before $b $r"
      timeout "$(limit 60)" "$(dir_of $b)/pinbench" staged --methods staged-fresh,pinned \
        --sizes 64MiB,256MiB,1GiB --odd-sizes none --iterations 10 \
        --json "$d/fresh-staged-$b-$r.json" >"$d/fresh-staged-$b-$r.txt" 2>&1
      vmstat_counts "after $b $r"
    done
    for b in new old; do
      log "fresh cpu() $b $r"
      timeout "$(limit 60)" "$(dir_of $b)/pinbench" accel --json "$d/fresh-accel-$b-$r.json" -- python3 \
        tests/python/accel_torch.py --paths '.cpu()' --sizes 64MiB,256MiB,1GiB --reps 5 \
        >"$d/fresh-cpu-$b-$r.txt" 2>"$d/fresh-cpu-$b-$r.report.txt"
    done
  done
fi
if has steady; then
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for b in new prev; do
      log "steady pipeline $b $r"
      timeout "$(limit 30)" "$(dir_of $b)/pinbench" pipeline --streams 2 \
        --json "$d/steady-pipeline-$b-$r.json" >"$d/steady-pipeline-$b-$r.txt" 2>&1
    done
  done
fi
if has blocks; then
  builds=(new)
  for b in alt alt2 prev old; do [ -x "$(dir_of $b)/pinbench" ] && builds+=("$b"); done
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for b in "${builds[@]}"; do
      log "blocks $b $r"
      timeout "$(limit 40)" "$(dir_of $b)/pinbench" blocks --methods staged --memory pageable \
        --sizes 4KiB,64KiB,1MiB --counts 16,256,4096 --json "$d/blocks-ab-$b-$r.json" \
        >"$d/blocks-ab-$b-$r.txt" 2>&1
    done
  done
fi
if has compare; then
  torch_paths=(python3 tests/python/accel_torch.py --sizes 64MiB,256MiB,1GiB --reps 5)
  # PyTorch without accel once, so scripts/bench/engine-bench-json.py can make the rounds' JSON.
  if [ ! -f "$d/torch-plain.txt" ]; then
    log "torch plain"
    timeout "$(limit 150)" "${torch_paths[@]}" >"$d/torch-plain.txt" 2>&1
  fi
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for b in new old; do
      dir=$builds pkg=python
      [ "$b" = old ] && dir=$builds/old pkg=$builds/old/python
      log "torch $b $r"
      timeout "$(limit 100)" "$dir/pinbench" accel --json "$d/accel-torch-$b-$r.json" -- "${torch_paths[@]}" \
        >"$d/torch-$b-$r.txt" 2>"$d/torch-$b-$r.report.txt"
      log "python $b $r"
      PYTHONPATH=$pkg:tests/bench PINBENCH_LIBRARY=$dir/libpinbench_c.so timeout "$(limit 60)" python3 tests/bench/engine_rates.py >"$d/python-$b-$r.txt" 2>&1
      log "blocks $b $r"
      timeout "$(limit 40)" "$dir/pinbench" blocks --methods staged --memory pageable --sizes 4KiB,64KiB,1MiB \
        --counts 16,256,4096 --json "$d/blocks-$b-$r.json" >"$d/blocks-$b-$r.txt" 2>&1
    done
  done
fi
log end
[ -n "${ARCHIVE:-}" ] && tar czf "$final/$ARCHIVE" -C "$d" .
cat "$d/tests-summary.txt" 2>/dev/null
cat "$d/timeline.txt"
