#!/usr/bin/env bash
# pip_install.sh PYTHON SCRATCH
# `pip install --no-build-isolation ./bindings/python` as docs/BINDINGS.md gives it (into
# SCRATCH rather than the system), then imports the installed package from outside the
# checkout and makes each kind of ID.
set -euo pipefail
python="${1:?usage: pip_install.sh PYTHON SCRATCH}"
scratch="${2:?usage: pip_install.sh PYTHON SCRATCH}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rm -rf "$scratch"
mkdir -p "$scratch"
"$python" -m pip --version >/dev/null || { echo "pip_install: pip is missing (python3-pip)" >&2; exit 1; }
# pip builds in the source folder (build/, *.egg-info): leave nothing behind there.
trap 'rm -rf "$src/build" "$src"/*.egg-info' EXIT
"$python" -m pip install --no-build-isolation --no-index --no-deps --quiet \
  --target "$scratch/site" "$src"
cd "$scratch"
PYTHONPATH="$scratch/site" "$python" -I -c '
import sys
sys.path.insert(0, sys.argv[1])
import idforge, uuid
assert idforge.__file__.startswith(sys.argv[1]), idforge.__file__
assert idforge.uuid7().version == 7 and len(idforge.ulid()) == 26
s = idforge.Snowflake("twitter", node=1)
a, b = s.next(), s.next()
assert b > a and idforge.decompose(b)["node"] == 1
print("pip_install: idforge", idforge.__version__, "from", idforge.__file__)
' "$scratch/site"
