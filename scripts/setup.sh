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

# npm packages the project declares: tests/npm (cross-checks, browser tests) and bindings/node
# (node-addon-api to build the addon; the benchmark peers).
npm_dirs=()
for d in tests/npm bindings/node; do
  [ -f "$root/$d/package.json" ] && npm_dirs+=("$d")
done
if [ "${#npm_dirs[@]}" -gt 0 ]; then
  # Debian's nodejs comes without npm; NodeSource's nodejs bundles it and conflicts with
  # Debian's npm package, so install that only where no npm command exists.
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup: installing npm"
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends npm >/dev/null
  fi
  for d in "${npm_dirs[@]}"; do
    if [ ! -d "$root/$d/node_modules" ] || [ "$root/$d/package.json" -nt "$root/$d/node_modules" ]; then
      echo "setup: npm packages for $d"
      (cd "$root/$d" && npm install --no-audit --no-fund --loglevel=error && touch node_modules)
    fi
  done
fi
