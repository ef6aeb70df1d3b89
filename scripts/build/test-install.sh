#!/usr/bin/env bash
# Installs pinbench's transfer library from build/ into a temporary prefix, then configures and
# builds examples/staged_consumer against it with find_package, once with the shared CUDA runtime
# and once with the static one: the check that another project can consume the installed
# package. `make test` runs it after the test suite; it needs a configured and built build/.
set -euo pipefail
cd "$(dirname "$0")/../.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install build --prefix "$work/prefix" >/dev/null
# The fleet's deployment files, with their scripts executable.
for script in slurm/pinbench-healthcheck kubernetes/pinbench-check.sh; do
  [ -x "$work/prefix/share/pinbench/deploy/$script" ] ||
    { echo "install test: share/pinbench/deploy/$script is missing or not executable" >&2; exit 1; }
done
for runtime in shared static; do
  static=OFF
  [[ $runtime == static ]] && static=ON
  cmake -S examples/staged_consumer -B "$work/consumer-$runtime" -G Ninja \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DPINBENCH_CUDART_STATIC=$static >/dev/null
  cmake --build "$work/consumer-$runtime" >/dev/null
  echo "install test: examples/staged_consumer built against the installed package ($runtime CUDA runtime)"
done

# The Python package from the same install: it must find the installed libpinbench_c.so through
# the _paths.py the install wrote, with no environment help, run from outside the source tree.
if command -v python3 >/dev/null; then
  (cd "$work" && env -u PINBENCH_LIBRARY PYTHONPATH="$work/prefix/lib/pinbench/python" python3 -c '
import pinbench, pinbench._lib as l, sys
loaded = l.lib()._name
assert loaded.startswith(sys.argv[1]), loaded
print("install test: import pinbench", pinbench.library_version(), "loads", loaded)
' "$work/prefix/")
fi
