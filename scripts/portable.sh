#!/usr/bin/env bash
# portable.sh
# Builds the core with -DIDFORGE_TEXT_SCALAR_ONLY=ON into build-portable/: the UUID and ULID
# text code without its x86-64 vector paths, as every other CPU gets it. Then runs the core
# unit tests on it (the codec tests among them), so the portable build cannot rot unseen.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Paths relative to the checkout in ccache keys: a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
build="$root/build-portable"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIDFORGE_TEXT_SCALAR_ONLY=ON \
    -DIDFORGE_BUILD_BENCH=OFF -DIDFORGE_BUILD_CLI=OFF -DIDFORGE_BUILD_SERVER=OFF -DIDFORGE_BUILD_LAB=OFF \
    -DIDFORGE_BUILD_TICKET=OFF -DIDFORGE_BUILD_COORD=OFF -DIDFORGE_BUILD_PG_EXTENSION=OFF \
    -DIDFORGE_BUILD_SQLITE_EXTENSION=OFF -DIDFORGE_INSTALL=OFF >/dev/null
fi
cmake --build "$build" -j "${IDFORGE_JOBS:-$(nproc)}" --target idforge_core_tests
bin=$(find "$build/tests" -name idforge_core_tests -type f -perm -u+x | head -1)
# The portable build must have the scalar path alone; the vector suites skip themselves.
"$bin" --gtest_brief=1
echo "portable: core tests passed with IDFORGE_TEXT_SCALAR_ONLY"
