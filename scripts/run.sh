#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: a short tour of the CLI.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
bash scripts/build.sh
idf="$root/build/src/cli/idforge"
echo "== idforge gen snowflake -n 3 --datacenter 1 --worker 5"
mapfile -t ids < <("$idf" gen snowflake -n 3 --datacenter 1 --worker 5)
printf '%s\n' "${ids[@]}"
echo "== idforge inspect ${ids[0]}"
"$idf" inspect "${ids[0]}"
echo "== idforge layout twitter"
"$idf" layout twitter
