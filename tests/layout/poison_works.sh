#!/usr/bin/env bash
# Proves the build's guard: with cmake/no-cuda first on the include path (as pinbench_core
# have it), a CUDA header fails with the guard's own message, even when the real CUDA headers
# are on the path too (here /usr/local/cuda/include standing in for /usr/include).
set -u
cxx=${1:?usage: poison_works.sh CXX SOURCE_DIR}
src=${2:?usage: poison_works.sh CXX SOURCE_DIR}
probe="$src/tests/layout/includes_cuda.cpp"
out=$("$cxx" -fsyntax-only -I"$src/cmake/no-cuda" -I/usr/local/cuda/include -x c++ "$probe" 2>&1)
if [ $? -eq 0 ]; then
  echo "a CUDA header compiled with cmake/no-cuda first on the include path"
  exit 1
fi
if ! grep -q "pinbench_core is CUDA-free" <<<"$out"; then
  echo "the probe failed, but not with the guard's message:"
  echo "$out"
  exit 1
fi
echo "the guard stops a CUDA header in pinbench_core"
