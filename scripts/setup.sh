#!/usr/bin/env bash
# Installs what idforge needs on Debian 12 and skips what is present. Idempotent and
# non-interactive; run as root (or with sudo available).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$here/packages.txt" | grep -v '^$')
missing=()
for pkg in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all ${#wanted[@]} Debian packages present"
fi

# npm packages for the cross-checks and browser tests, when the project declares any.
if [ -f "$root/tests/npm/package.json" ]; then
  # Debian's nodejs comes without npm; NodeSource's nodejs bundles it and conflicts with
  # Debian's npm package, so install that only where no npm command exists.
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup: installing npm"
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends npm >/dev/null
  fi
  if [ ! -d "$root/tests/npm/node_modules" ] || [ "$root/tests/npm/package.json" -nt "$root/tests/npm/node_modules" ]; then
    echo "setup: npm packages for tests/npm"
    (cd "$root/tests/npm" && npm install --no-audit --no-fund --loglevel=error && touch node_modules)
  fi
fi
