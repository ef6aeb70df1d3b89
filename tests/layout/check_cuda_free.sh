#!/usr/bin/env bash
# Fails, naming the lines, when a file of the CUDA-free library (pinbench_core: the framework,
# every experiment's plan, analysis and printers, the comparison) or a header beside one of them
# includes a CUDA, CUPTI or NVTX header, or a file of pinbench's own that is not CUDA-free: the
# CUDA layer (src/cuda), the measuring kit (src/measure), the engine (src/transfer), an
# experiment's measurement or command. Its arguments: the source root, then the library's files.
set -u
src=${1:?usage: check_cuda_free.sh SRC_DIR FILE...}
shift
declare -A allowed=()
files=()
for f in "$@"; do
  rel=${f#"$src"/}
  allowed[$rel]=1
  files+=("$src/$rel")
  header=${rel%.cpp}.hpp
  if [ -f "$src/$header" ]; then
    allowed[$header]=1
    files+=("$src/$header")
  fi
done
bad=""
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  target=$(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' <<<"${rest#*:}")
  if [ -n "$target" ]; then
    case $target in
      framework/* | base/* | pinbench/staged_options.hpp | version.hpp | experiments/registry.def) continue ;;
    esac
    [ -n "${allowed[$target]+x}" ] && continue
  fi
  bad+="${file#"$src"/}:$line: ${rest#*:}"$'\n'
done < <(grep -nE '#[[:space:]]*include[[:space:]]*("|<(cuda|cupti|nvtx|nvToolsExt|driver_types|vector_types))' \
  "${files[@]}" /dev/null)
if [ -n "$bad" ]; then
  echo "the CUDA-free library may include only CUDA-free files:"
  printf '%s' "$bad"
  exit 1
fi
echo "the CUDA-free library's ${#files[@]} files include nothing of CUDA"
