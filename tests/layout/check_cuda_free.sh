#!/usr/bin/env bash
# Fails, naming the lines, when src/core or src/report include a CUDA, CUPTI or NVTX header or
# pinbench's own CUDA layer (src/cuda, src/experiments).
set -u
src=${1:?usage: check_cuda_free.sh SRC_DIR}
hits=$(grep -rnE '#[[:space:]]*include[[:space:]]*[<"](cuda|cupti|nvtx|nvToolsExt|driver_types|vector_types|experiments/)' \
  "$src/core" "$src/report")
if [ -n "$hits" ]; then
  echo "core and report must stay CUDA-free:"
  echo "$hits"
  exit 1
fi
echo "core and report include no CUDA header"
