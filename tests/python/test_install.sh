#!/usr/bin/env bash
# `pip install ./python` as a user runs it: a fresh venv of this python3, no network (--no-index),
# nothing but pip in it. The wheel must be built by pinbench's own backend, hold the library,
# and import from outside the source tree with no environment help. The venv is thrown away.
set -euo pipefail
python=${1:?usage: test_install.sh PYTHON SOURCE_DIR LIBRARY}
source=${2:?}
library=${3:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
PINBENCH_LIBRARY="$library" "$work/venv/bin/pip" install --no-index --no-cache-dir \
  --disable-pip-version-check -q "$source/python"
cd "$work"
env -u PINBENCH_LIBRARY -u PYTHONPATH "$work/venv/bin/python" -c '
import os, sys
import pinbench, pinbench._lib as l
loaded = l.lib()._name
inside = os.path.dirname(pinbench.__file__)
assert loaded == os.path.join(inside, "libpinbench_c.so"), loaded
assert inside.startswith(sys.argv[1]), inside
print("pip install ./python: pinbench", pinbench.library_version(), "loads", loaded)
' "$work/venv/"
