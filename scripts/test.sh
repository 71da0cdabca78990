#!/usr/bin/env bash
# Installs what is missing, builds, starts the servers the tests use (on 127.0.0.1, under
# .data/), runs every test, and stops what it started.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
bash scripts/build.sh
if [ -x scripts/services.sh ]; then
  trap 'bash scripts/services.sh stop' EXIT
  bash scripts/services.sh start
fi
ctest --test-dir build --output-on-failure -j "${IDFORGE_TEST_JOBS:-2}" --timeout 600
