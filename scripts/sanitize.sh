#!/usr/bin/env bash
# sanitize.sh asan|tsan
# Builds the core unit tests and the stress tests with AddressSanitizer + UndefinedBehavior-
# Sanitizer (asan) or ThreadSanitizer (tsan) into build-asan/ or build-tsan/ and runs them.
# Any sanitizer report fails the run (halt_on_error, no recovery).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Paths relative to the checkout in ccache keys: a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
kind="${1:?usage: sanitize.sh asan|tsan}"
case "$kind" in
  asan) flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" ;;
  tsan) flags="-fsanitize=thread -fno-omit-frame-pointer" ;;
  *) echo "sanitize.sh: unknown kind '$kind' (asan or tsan)" >&2; exit 2 ;;
esac
build="$root/build-$kind"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIDFORGE_SANITIZER_BUILD=ON \
    -DIDFORGE_BUILD_BENCH=OFF -DIDFORGE_BUILD_CLI=OFF -DIDFORGE_INSTALL=OFF -DIDFORGE_BUILD_C=OFF \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" >/dev/null
fi
targets=(idforge_core_tests)
[ -f "$root/tests/stress/CMakeLists.txt" ] && targets+=(idforge_stress_tests)
cmake --build "$build" -j "${IDFORGE_JOBS:-$(nproc)}" --target "${targets[@]}"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
export IDFORGE_STRESS_PROFILE="${IDFORGE_STRESS_PROFILE:-short}"
for t in "${targets[@]}"; do
  bin=$(find "$build/tests" -name "$t" -type f -perm -u+x | head -1)
  echo "sanitize($kind): $t"
  "$bin" --gtest_brief=1
done
