#!/usr/bin/env bash
# One device call, run from the repository root on the GPU machine with the bundle of
# `make gpu-bundle` in .gpu/ (.gpu/old: a build to compare with, its pinbench, libraries and
# python/; .gpu/nvbandwidth where there is one). Everything lands in ONE file, $OUT/all.tgz: the
# device tool brings back at most eight files per call. Parts, each within its own time limit:
#   tests    every GPU test (scripts/gpu-tests.sh), about 4 minutes
#   beside   pinbench blocks --beside compute, memory and gemm, a small grid, 3 minutes at most
#   engine   scripts/engine-h200.sh with .gpu and .gpu/old, 5.5 minutes at most
#   compare  PyTorch under each build's accel, each build's Python engine and blocks batch,
#            alternating new and old, ROUNDS times (default 2), about 4 minutes
#   OUT=dir scripts/h200-call.sh PART...
set -uo pipefail
final=${OUT:?OUT must name the folder that comes back}
d=$(mktemp -d)
parts=${*:?name the parts: tests beside engine compare}
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; ldd --version | head -1
  python3 -c "import cupy, torch; print('cupy', cupy.__version__, 'torch', torch.__version__)"
) >"$d/machine.txt" 2>&1
log() { echo "$(date +%T) $*" >>"$d/timeline.txt"; }
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
if has tests; then
  log tests
  OUT=$d/tests timeout 330 bash scripts/gpu-tests.sh >"$d/tests-summary.txt" 2>&1
fi
if has beside; then
  for k in compute memory gemm; do
    log "beside $k"
    timeout 60 .gpu/pinbench blocks --beside $k --sizes 4KiB,64KiB,1MiB --counts 1,64,1024 \
      --sms 0,16 --json "$d/blocks-beside-$k.json" >"$d/blocks-beside-$k.txt" 2>&1
  done
fi
if has engine; then
  log engine
  OUT=$d timeout 330 bash scripts/engine-h200.sh .gpu .gpu/old >"$d/engine-run.txt" 2>&1
fi
if has compare; then
  torch_paths=(python3 tests/python/accel_torch.py --sizes 64MiB,256MiB,1GiB --reps 5)
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for b in new old; do
      dir=.gpu pkg=python
      [ "$b" = old ] && dir=.gpu/old pkg=.gpu/old/python
      log "torch $b $r"
      timeout 100 "$dir/pinbench" accel --json "$d/accel-torch-$b-$r.json" -- "${torch_paths[@]}" \
        >"$d/torch-$b-$r.txt" 2>"$d/torch-$b-$r.report.txt"
      log "python $b $r"
      PYTHONPATH=$pkg:tests/bench PINBENCH_LIBRARY=$dir/libpinbench_c.so timeout 60 python3 tests/bench/engine_rates.py >"$d/python-$b-$r.txt" 2>&1
      log "blocks $b $r"
      timeout 40 "$dir/pinbench" blocks --methods staged --memory pageable --sizes 4KiB,64KiB,1MiB \
        --counts 16,256,4096 --json "$d/blocks-$b-$r.json" >"$d/blocks-$b-$r.txt" 2>&1
    done
  done
fi
log end
tar czf "$final/all.tgz" -C "$d" .
cat "$d/tests-summary.txt" 2>/dev/null
cat "$d/timeline.txt"
