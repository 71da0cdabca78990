#!/usr/bin/env bash
# bench_uuid.sh [extra Google Benchmark flags]
# Builds and runs bench/uuid_bench.cpp (idforge's UUID, ULID, TypeID and KSUID beside the
# floors, libuuid and Boost 1.81), then tests/npm/bench_uuid.mjs (the npm packages), and
# prints one Markdown table with the ratios and the targets. Medians of 5 repetitions.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${IDFORGE_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" >/dev/null
cmake --build "$build" --target idforge_bench_uuid >/dev/null
out="$(mktemp --suffix=.json)"
trap 'rm -f "$out"' EXIT
"$build/bench/idforge_bench_uuid" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out" --benchmark_out_format=json "$@" >&2
cd "$root/tests/npm"
node bench_uuid.mjs --table "$out"
