#!/usr/bin/env bash
# fuzz.sh [SECONDS_PER_TARGET]  (default 10; the long run is 600)
# fuzz.sh --runs N              (CI: the same N inputs on every run)
# Builds every libFuzzer target with clang, ASan and UBSan into build-fuzz/, the libraries
# with libFuzzer's coverage instrumentation too (so that it is guided by the code under test,
# not by the harness alone), and runs each on a copy of its committed seed corpus
# (fuzz/corpus/NAME): for the given time, keeping what it finds in build-fuzz/corpus for the
# next run (a hunt), or with --runs for a fixed number of inputs from a fixed seed on a
# fresh copy of the corpus, so that CI fails only for a reason (a new input found by chance
# in a time-bounded run would fail one submission and not the next). Fails on the first
# crash, leak, sanitizer report or broken round trip.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Paths relative to the checkout in ccache keys: a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
seconds=10
runs=""
if [ "${1:-}" = "--runs" ]; then
  runs="${2:?usage: fuzz.sh --runs N}"
elif [ -n "${1:-}" ]; then
  seconds="$1"
fi
build="$root/build-fuzz"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DIDFORGE_BUILD_FUZZERS=ON -DIDFORGE_BUILD_TESTS=OFF -DIDFORGE_BUILD_BENCH=OFF -DIDFORGE_BUILD_CLI=OFF \
    -DIDFORGE_INSTALL=OFF -DIDFORGE_BUILD_C=OFF -DIDFORGE_BUILD_PG_EXTENSION=OFF -DIDFORGE_BUILD_SQLITE_EXTENSION=OFF -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
cmake --build "$build" -j "${IDFORGE_JOBS:-$(nproc)}"
# Targets run IDFORGE_FUZZ_PARALLEL at a time (default 1); each writes its own log.
run_one() {
  local bin="$1" name work limit done_runs
  name="$(basename "$bin" _fuzz)"
  if [ -n "$runs" ]; then
    work="$(mktemp -d)"  # the committed corpus alone: nothing an earlier run found
    limit=(-runs="$runs" -seed=1)
  else
    work="$build/corpus/$name"
    limit=(-max_total_time="$seconds")
  fi
  mkdir -p "$work" "$build/artifacts"
  [ -d "$root/fuzz/corpus/$name" ] && cp -n "$root/fuzz/corpus/$name"/* "$work"/ 2>/dev/null || true
  if "$bin" "$work" "${limit[@]}" -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" \
      >"$build/$name.log" 2>&1; then
    done_runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$name.log" | grep -o '[0-9]*$' || echo 0)
    if [ -n "$runs" ]; then
      echo "fuzz: $name ok, $done_runs inputs (seed 1)"
      rm -rf "$work"
    else
      echo "fuzz: $name ok, $done_runs inputs in ${seconds}s"
    fi
  else
    echo "fuzz: $name FAILED"; tail -30 "$build/$name.log"; return 1
  fi
}
export -f run_one
export build root seconds runs
if ls "$build"/fuzz/*_fuzz | xargs -n 1 -P "${IDFORGE_FUZZ_PARALLEL:-1}" bash -c 'run_one "$0"'; then
  exit 0
fi
exit 1
