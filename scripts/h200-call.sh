#!/usr/bin/env bash
# One device call for the engine, accel and block issues (the night of 2026-12-03), run from the
# repository root on the GPU machine with the binaries in .gpu/ (.gpu/old: the build to compare
# with; .gpu/nvbandwidth where there is one). Everything lands in ONE file, $OUT/all.tgz: the
# device tool brings back at most eight files per call. About 8 minutes.
#   OUT=dir scripts/h200-call.sh [engine] [accel] [blocks]   (default: all three)
set -uo pipefail
final=${OUT:?OUT must name the folder that comes back}
d=$(mktemp -d)
parts=${*:-engine accel blocks}
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; ldd --version | head -1
  python3 -c "import cupy, torch; print('cupy', cupy.__version__, 'torch', torch.__version__)"
) >"$d/machine.txt" 2>&1
case " $parts " in *" engine "*)
  OUT=$d timeout 330 bash scripts/engine-h200.sh .gpu .gpu/old >"$d/engine-run.txt" 2>&1
  timeout 90 .gpu/pinbench_gpu_tests --gtest_filter='GpuStaged*:GpuPipeline*' >"$d/gpu-tests.log" 2>&1
  for t in 13 8; do
    timeout 40 .gpu/pinbench staged --methods staged,staged-back-to-back,pinned --sizes 64MiB,256MiB \
      --odd-sizes none --iterations 10 --h2d-threads $t --d2h-threads $t \
      --json "$d/staged-threads$t.json" >"$d/staged-threads$t.txt" 2>&1
  done ;;
esac
case " $parts " in *" accel "*)
  timeout 150 .gpu/pinbench_accel_gpu_tests >"$d/accel-gpu-tests.log" 2>&1
  timeout 40 .gpu/accel_seed_copies >"$d/seed-plain.txt" 2>&1
  timeout 40 .gpu/pinbench accel --json "$d/accel-seed.json" -- .gpu/accel_seed_copies \
    >"$d/seed-accel.txt" 2>"$d/seed-accel.report.txt"
  timeout 50 python3 tests/python/accel_cupy.py >"$d/cupy-plain.txt" 2>&1
  timeout 50 .gpu/pinbench accel --json "$d/accel-cupy.json" -- python3 tests/python/accel_cupy.py \
    >"$d/cupy-accel.txt" 2>"$d/cupy-accel.report.txt"
  PINBENCH_BINARY=.gpu/pinbench timeout 80 python3 tests/python/test_accel_gpu.py -v \
    >"$d/python-accel-gpu.log" 2>&1 ;;
esac
case " $parts " in *" blocks "*)
  timeout 150 .gpu/pinbench_gpu_tests --gtest_filter='GpuBlockCopier*:GpuBlocks*:GpuStagedBlocks.*' \
    >"$d/gpu-blocks-tests.log" 2>&1
  for k in compute memory gemm; do
    timeout 60 .gpu/pinbench blocks --beside $k --json "$d/blocks-beside-$k.json" \
      >"$d/blocks-beside-$k.txt" 2>&1
  done
  PYTHONPATH=python PINBENCH_LIBRARY=.gpu/libpinbench_c.so timeout 120 python3 tests/python/test_gpu.py -v \
    >"$d/python-gpu.log" 2>&1 ;;
esac
tar czf "$final/all.tgz" -C "$d" .
grep -hE "^\[  (PASSED|FAILED)|FAILED  \]|^(OK|FAILED)" "$d"/*.log 2>/dev/null | head -30
