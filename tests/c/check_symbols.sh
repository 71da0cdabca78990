#!/usr/bin/env bash
# check_symbols.sh LIBRARY EXPECTED
# The ABI check: the dynamic symbols LIBRARY defines (name@version, sorted) must equal the
# committed list EXPECTED. A function added or removed, or one that leaks from the C++ core,
# shows as a diff. After a deliberate change: update EXPECTED with the command below.
set -euo pipefail
lib="${1:?usage: check_symbols.sh LIBRARY EXPECTED}"
expected="${2:?usage: check_symbols.sh LIBRARY EXPECTED}"
command -v nm >/dev/null || { echo "check_symbols: nm (binutils) is missing" >&2; exit 1; }
actual="$(nm -D --defined-only --format=just-symbols "$lib" | LC_ALL=C sort)"
if ! diff -u "$expected" <(printf '%s\n' "$actual"); then
  echo "check_symbols: the exported symbols of $lib differ from $expected (above)." >&2
  echo "If the change is meant, regenerate: nm -D --defined-only --format=just-symbols $lib | LC_ALL=C sort > $expected" >&2
  exit 1
fi
echo "check_symbols: $(printf '%s\n' "$actual" | wc -l) symbols as committed"
