#!/usr/bin/env bash
# On a GPU machine, from the repository root with the bundle of `make gpu-bundle` in BUILDS
# (default .gpu): runs every GPU test from the bundle itself, as the README says a user would
# (each finds what it runs beside it and writes only to a temporary folder), writes each log to
# OUT (default ./gpu-out), and lists every skipped test with its reason. DOCTOR=0 leaves out the
# doctor's GPU tests (a minute and a half; for a rerun after a change that does not touch the
# doctor). Exit status 1 when a test failed, 2 when BUILDS holds no bundle.
set -uo pipefail
root=$(pwd)
out=${OUT:-$root/gpu-out}
builds=${BUILDS:-.gpu}
[ -d "$builds" ] || { echo "gpu-tests.sh: error: no bundle in $builds (BUILDS): run make gpu-bundle" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$builds" || exit 2
status=0
./pinbench_gpu_tests >"$out/gpu-tests.log" 2>&1 || status=1
tail -4 "$out/gpu-tests.log"
if [ "${DOCTOR:-1}" != 0 ]; then
  ./pinbench_doctor_gpu_tests >"$out/doctor-gpu-tests.log" 2>&1 || status=1
  tail -4 "$out/doctor-gpu-tests.log"
fi
./pinbench_accel_gpu_tests >"$out/accel-gpu-tests.log" 2>&1 || status=1
tail -4 "$out/accel-gpu-tests.log"
PINBENCH_BINARY=$PWD/pinbench PYTHONDONTWRITEBYTECODE=1 python3 tests-python/test_accel_gpu.py -v \
  >"$out/python-accel-gpu.log" 2>&1 || status=1
tail -3 "$out/python-accel-gpu.log"
PYTHONPATH=python PINBENCH_LIBRARY=$PWD/libpinbench_c.so PINBENCH_DATA_DIR=$root/data \
  PYTHONDONTWRITEBYTECODE=1 python3 tests-python/test_gpu.py -v >"$out/python-gpu.log" 2>&1 ||
  status=1
tail -3 "$out/python-gpu.log"
echo "skipped, with the reason each gave:"
grep -h -B1 "Skipped\|SKIPPED \[\|skipped" "$out"/*.log | grep -v "^--$" | grep -i "skip\|reason\|because\|no " |
  head -20
exit $status
