#!/usr/bin/env bash
# run_crosscheck.sh IDFORGE_BINARY: runs crosscheck.mjs against the npm packages that
# scripts/setup.sh installs into tests/npm/node_modules. Without node or the packages it
# fails when IDFORGE_REQUIRE_SERVICES=1 (scripts/test.sh, CI) and skips (exit 77) otherwise.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
missing=""
if ! command -v node >/dev/null 2>&1; then
  missing=" node (Debian package nodejs)"
else
  for pkg in uuid ulid typeid-js ksuid; do
    [ -f "$here/node_modules/$pkg/package.json" ] || missing="$missing npm:$pkg"
  done
fi
if [ -n "$missing" ]; then
  msg="npm cross-check needs$missing; run scripts/setup.sh"
  if [ "${IDFORGE_REQUIRE_SERVICES:-0}" = "1" ]; then
    echo "FAIL: $msg" >&2
    exit 1
  fi
  echo "SKIP: $msg"
  exit 77
fi
cd "$here"
exec node crosscheck.mjs "$1"
