#!/usr/bin/env bash
# Installs what is missing, builds, starts the servers the tests use (on 127.0.0.1, under
# .data/), runs every test, and stops what it started.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
bash scripts/build.sh
trap 'bash scripts/services.sh stop' EXIT
bash scripts/services.sh start
set -a
# shellcheck disable=SC1091
. .data/services.env
set +a
# Tests that need a server fail (rather than skip) when its variables are missing.
export IDFORGE_REQUIRE_SERVICES=1
ctest --test-dir build --output-on-failure -j "${IDFORGE_TEST_JOBS:-2}" --timeout 600
