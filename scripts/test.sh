#!/usr/bin/env bash
# Installs what is missing, builds, starts the servers the tests use (on 127.0.0.1, under
# .data/), runs every test (unit, CLI, wing, service, browser, stress), the portable and
# sanitizer builds and a short fuzzing run, and stops what it started.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
# Every C and C++ file as the root .clang-format writes it (checked first: it takes seconds).
bash scripts/format.sh --check
bash scripts/build.sh
# The PostgreSQL extension into the server's folders (as root): its tests start a server of
# their own with it preloaded, and fail under IDFORGE_REQUIRE_SERVICES=1 without it.
if [ "$(id -u)" = 0 ]; then
  cmake --install build --component pg_extension
else
  echo "test: not root: the PostgreSQL extension is not installed (its tests will fail)" >&2
fi
trap 'bash scripts/services.sh stop' EXIT
bash scripts/services.sh start
set -a
# shellcheck disable=SC1091
. .data/services.env
set +a
# Tests that need a server fail (rather than skip) when its variables are missing.
export IDFORGE_REQUIRE_SERVICES=1
ctest --test-dir build --output-on-failure -j "${IDFORGE_TEST_JOBS:-2}" --timeout 900
# The portable build: the text codecs without their x86-64 vector paths, core tests on it.
bash scripts/portable.sh
# The reliability checks: unit and stress tests under ASan+UBSan and under TSan, and every
# parser fuzzed briefly (the long runs are documented in docs/RELIABILITY.md).
bash scripts/sanitize.sh asan
bash scripts/sanitize.sh tsan
# A fixed number of inputs from a fixed seed: the same run every time (a time-bounded run
# is for hunting: bash scripts/fuzz.sh 600).
bash scripts/fuzz.sh --runs "${IDFORGE_FUZZ_RUNS:-100000}"
