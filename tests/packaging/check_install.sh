#!/usr/bin/env bash
# check_install.sh BUILD_DIR EXAMPLE_DIR SCRATCH
set -euo pipefail
build="$1" example="$2" scratch="$3"
rm -rf "$scratch" && mkdir -p "$scratch"
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

cmake -S "$example" -B "$scratch/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake-build" >/dev/null
out=$("$scratch/cmake-build/embed_example")
echo "$out"
grep -q "node 42" <<<"$out"
grep -q "uuid7 " <<<"$out"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig"
# shellcheck disable=SC2046
g++ -O2 -o "$scratch/embed_pc" "$example/main.cpp" $(pkg-config --cflags --libs idforge)
"$scratch/embed_pc" | grep -q "uuid7 "
echo "packaging: find_package and pkg-config both build and run"
