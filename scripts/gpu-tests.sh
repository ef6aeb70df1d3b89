#!/usr/bin/env bash
# On a GPU machine, over a copy of this tree with the binaries of `make gpu-bundle` in .gpu/: puts
# them where the test binaries look (the build tree's paths are compiled into the tests, so the
# tree is also reachable at the path it was built from), then runs every GPU test and writes
# each log to OUT (default: ./gpu-out).
set -uo pipefail
root=$(pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out" build/tests
built_at=${1:-}
if [ -n "$built_at" ] && [ "$built_at" != "$root" ] && [ ! -e "$built_at" ]; then
  mkdir -p "$(dirname "$built_at")" && ln -s "$root" "$built_at"
fi
cp .gpu/pinbench .gpu/libpinbench_doctor_inject.so .gpu/libpinbench_c.so .gpu/doctor_pitfalls build/
cp .gpu/pinbench_gpu_tests .gpu/pinbench_doctor_gpu_tests build/tests/
status=0
build/tests/pinbench_gpu_tests >"$out/gpu-tests.log" 2>&1 || status=1
tail -4 "$out/gpu-tests.log"
build/tests/pinbench_doctor_gpu_tests >"$out/doctor-gpu-tests.log" 2>&1 || status=1
tail -4 "$out/doctor-gpu-tests.log"
PYTHONPATH=python PINBENCH_LIBRARY=build/libpinbench_c.so PINBENCH_DATA_DIR=data \
  PYTHONDONTWRITEBYTECODE=1 python3 tests/python/test_gpu.py -v >"$out/python-gpu.log" 2>&1 || status=1
tail -3 "$out/python-gpu.log"
exit $status
