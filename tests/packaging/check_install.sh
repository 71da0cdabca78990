#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR SCRATCH
# The CMake package of idforge, tried from outside as an embedder would:
#  1. install BUILD_DIR into a prefix; build examples/embed (find_package and pkg-config), the
#     C ABI's consumer with pkg-config, and a consumer of each installed part
#     (tests/packaging/consumer); run them;
#  2. move the prefix to another folder: no installed CMake file names the old place or a
#     library by absolute path; build and run the consumers again;
#  3. build and run the consumers with idforge added as a subdirectory;
#  4. build idforge with core alone: no header of a left-out part is installed, a core
#     consumer builds, and asking for a left-out part fails at configure time with a message.
set -euo pipefail
# Two cores shared with other builds: at most two compilers at a time.
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
build="$1" src="$2" scratch="$3"
consumer_src="$src/tests/packaging/consumer"
rm -rf "$scratch" && mkdir -p "$scratch"
# The C consumer's fixed node keeps its lock and mark here, not in the caller's folder.
export IDFORGE_LEASE_DIR="$scratch/leases"
quiet() { "$@" >"$scratch/last.log" 2>&1 || { cat "$scratch/last.log" >&2; return 1; }; }

# Builds the consumers of the given parts with extra cmake arguments, then runs each.
build_and_run_consumers() {
  local tag="$1" parts="$2"
  shift 2
  local dir="$scratch/consumer-$tag"
  quiet cmake -S "$consumer_src" -B "$dir" -G Ninja "-DIDFORGE_PARTS=$parts" "$@"
  quiet cmake --build "$dir"
  local part out
  for part in ${parts//;/ }; do
    mkdir -p "$dir/run-$part"
    out=$("$dir/consumer_$part" "$dir/run-$part")
    echo "  $tag: $out"
    grep -q "^$part: " <<<"$out"
  done
}

installed_parts() {  # the parts whose library is in prefix $1, as a CMake list
  local p parts=()
  for p in core coord ticket lab server; do
    ls "$1"/lib*/libidforge_"$p".* >/dev/null 2>&1 && parts+=("$p")
  done
  ls "$1"/lib*/libidforge.so.1 >/dev/null 2>&1 && parts+=(c)  # the C ABI
  (IFS=';'; echo "${parts[*]}")
}

echo "1. installed prefix"
prefix="$scratch/prefix"
quiet cmake --install "$build" --prefix "$prefix"
parts=$(installed_parts "$prefix")
echo "  parts: $parts"
for p in coord ticket lab server; do
  if [[ ";$parts;" == *";$p;"* ]]; then
    test -d "$prefix/include/idforge/$p" || { echo "headers of $p missing" >&2; exit 1; }
  fi
done
# The SQLite extension, where it was built: installed beside the libraries and loadable from there.
if [ -f "$build/extensions/sqlite/libidforge_sqlite.so" ]; then
  ext=$(ls "$prefix"/lib*/libidforge_sqlite.so)
  [ "$(sqlite3 -batch :memory: ".load ${ext%.so}" "SELECT length(uuid7())")" = 36 ] ||
    { echo "installed SQLite extension $ext does not load" >&2; exit 1; }
  echo "  sqlite extension: $ext"
fi
quiet cmake -S "$src/examples/embed" -B "$scratch/embed" -G Ninja -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$scratch/embed"
"$scratch/embed/embed_example" | grep -q "node 42"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig"
# shellcheck disable=SC2046
g++ -O2 -o "$scratch/embed_pc" "$src/examples/embed/main.cpp" $(pkg-config --cflags --libs idforge)
"$scratch/embed_pc" | grep -q "uuid7 "
if [[ ";$parts;" == *";c;"* ]]; then  # the C ABI through its own pkg-config module
  # shellcheck disable=SC2046
  gcc -O2 -o "$scratch/c_pc" "$consumer_src/c.c" $(pkg-config --cflags --libs idforge-c) \
    -Wl,-rpath,"$(pkg-config --variable=libdir idforge-c)"
  "$scratch/c_pc" | grep -q "^c: uuid7 "
fi
unset PKG_CONFIG_PATH
build_and_run_consumers installed "$parts" -DCMAKE_PREFIX_PATH="$prefix"

echo "2. relocated prefix"
moved="$scratch/elsewhere/idforge"
mkdir -p "$(dirname "$moved")"
mv "$prefix" "$moved"
if grep -rlE "$prefix|\"/usr/lib|;/usr/lib" "$moved"/lib*/cmake/idforge; then
  echo "the installed CMake files above name the old prefix or a library by absolute path" >&2
  exit 1
fi
build_and_run_consumers relocated "$parts" -DCMAKE_PREFIX_PATH="$moved"

echo "3. add_subdirectory"
build_and_run_consumers subdirectory "$parts" -DIDFORGE_SOURCE_DIR="$src"

echo "4. core alone"
quiet cmake -S "$src" -B "$scratch/core-build" -G Ninja -DIDFORGE_BUILD_COORD=OFF -DIDFORGE_BUILD_TICKET=OFF \
  -DIDFORGE_BUILD_LAB=OFF -DIDFORGE_BUILD_SERVER=OFF -DIDFORGE_BUILD_CLI=OFF -DIDFORGE_BUILD_TESTS=OFF \
  -DIDFORGE_BUILD_BENCH=OFF -DIDFORGE_BUILD_PG_EXTENSION=OFF
quiet cmake --build "$scratch/core-build"
core_prefix="$scratch/core-prefix"
quiet cmake --install "$scratch/core-build" --prefix "$core_prefix"
for p in coord ticket lab server; do
  if [ -e "$core_prefix/include/idforge/$p" ]; then
    echo "headers of $p installed by a build without it" >&2
    exit 1
  fi
done
test "$(installed_parts "$core_prefix")" = core
build_and_run_consumers core-only core -DCMAKE_PREFIX_PATH="$core_prefix"
if cmake -S "$consumer_src" -B "$scratch/consumer-missing" -G Ninja -DIDFORGE_PARTS=ticket \
  -DCMAKE_PREFIX_PATH="$core_prefix" >"$scratch/missing.log" 2>&1; then
  echo "find_package(idforge COMPONENTS ticket) succeeded against a core-only install" >&2
  exit 1
fi
grep -q "installed with the parts: core" "$scratch/missing.log" || { cat "$scratch/missing.log" >&2; exit 1; }
echo "packaging: every part links and runs from an installed, a relocated and a subdirectory idforge; core alone installs alone"
