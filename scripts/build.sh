#!/usr/bin/env bash
# Configures and builds idforge into build/ (incremental; ccache when present).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Paths relative to the checkout in ccache keys: a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
build="${IDFORGE_BUILD_DIR:-$root/build}"
jobs="${IDFORGE_JOBS:-$(nproc)}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${IDFORGE_BUILD_TYPE:-Release}" "$@"
fi
cmake --build "$build" -j "$jobs"
