#!/usr/bin/env bash
# 4 KiB copies: plain, accel's library preloaded alone, and under pinbench accel, alternating.
# Run from a GPU bundle (make gpu-bundle): .gpu/, with tests-python/ beside pinbench.
cd "${1:-.gpu}"
for r in 1 2 3; do
  printf 'plain %s: ' $r; python3 tests-python/accel_torch.py --sizes 4KiB --reps 400 | python3 -c "import sys,json;print(' '.join('%.3f'%json.loads(l)['gb_per_s'] for l in sys.stdin))"
  printf 'preload %s: ' $r; LD_PRELOAD=$PWD/libpinbench_accel.so python3 tests-python/accel_torch.py --sizes 4KiB --reps 400 | python3 -c "import sys,json;print(' '.join('%.3f'%json.loads(l)['gb_per_s'] for l in sys.stdin))"
  printf 'accel %s: ' $r; ./pinbench accel -- python3 tests-python/accel_torch.py --sizes 4KiB --reps 400 2>/dev/null | python3 -c "import sys,json;print(' '.join('%.3f'%json.loads(l)['gb_per_s'] for l in sys.stdin))"
done
