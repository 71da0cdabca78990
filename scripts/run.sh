#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: `idforge serve` with the
# embedded defaults (127.0.0.1:8080, Twitter layout, node ID leased under .data/leases). It prints its URL
# once listening; Ctrl-C stops it. Extra arguments go to `idforge serve` (--port 0, ...).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
bash scripts/build.sh
echo "run: try  curl -s 'http://127.0.0.1:8080/v1/ids/snowflake?count=3'  (options: build/src/cli/idforge serve --help)"
exec "$root/build/src/cli/idforge" serve "$@"
