#!/usr/bin/env bash
# Installs the Debian packages named in the given list files when they are missing (as root), or
# prints the exact command to run (otherwise). Checks that a CUDA toolkit with nvcc is present.
#   scripts/build/ensure-deps.sh [LIST...]    default: scripts/build/debian-packages.txt
# A list has one package per line; '#' starts a comment line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lists=("$@")
[ ${#lists[@]} -gt 0 ] || lists=("$here/debian-packages.txt")

wanted=()
for list in "${lists[@]}"; do
  if [ ! -r "$list" ]; then
    echo "pinbench: no package list at $list" >&2
    exit 1
  fi
  mapfile -t -O "${#wanted[@]}" wanted < <(grep -v '^\s*#' "$list" | grep -v '^\s*$')
done

missing=()
for p in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "pinbench: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "pinbench: missing Debian packages; run:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "pinbench: no CUDA toolkit found (nvcc); install CUDA 13 from NVIDIA into /usr/local/cuda" >&2
  exit 1
fi
