#!/usr/bin/env bash
# Runs the page's browser tests: a live `idforge serve` on a free loopback port, Debian's
# chromium driven by playwright-core (tests/npm). Without chromium or the npm packages the
# test is skipped (exit 77), and fails when IDFORGE_REQUIRE_SERVICES=1 (the test command).
# Usage: run_browser_tests.sh IDFORGE_BINARY SCREENSHOT_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
binary="$1"
shots="$2"

missing=""
[ -x /usr/bin/chromium ] || missing="/usr/bin/chromium (Debian package chromium)"
[ -d "$root/tests/npm/node_modules/playwright-core" ] ||
  missing="${missing:+$missing, }tests/npm/node_modules/playwright-core (run scripts/setup.sh)"
command -v node > /dev/null || missing="${missing:+$missing, }node (Debian package nodejs)"
if [ -n "$missing" ]; then
  if [ "${IDFORGE_REQUIRE_SERVICES:-0}" = "1" ]; then
    echo "browser tests: missing $missing, and IDFORGE_REQUIRE_SERVICES=1" >&2
    exit 1
  fi
  echo "browser tests skipped: missing $missing"
  exit 77
fi

export IDFORGE_BINARY="$binary"
export IDFORGE_SCREENSHOT_DIR="$shots"
export IDFORGE_WEB_ROOT="$root/web/dist"
exec node --test "$here/page.test.mjs"
