#!/usr/bin/env bash
# bench_boost_user.sh BOOST_UUID_GIT [RUNS]
# UUID to_chars and parse as a user of the installed library sees them, beside Boost.UUID's
# development head (BOOST_UUID_GIT's HEAD, a git clone of github.com/boostorg/uuid) at default
# flags, in one program: idforge is installed from build/ into a scratch prefix and linked
# from there (its Release libidforge_core.a and headers, as `find_package(idforge)` would),
# bench/peers/boost_user_cmp.cpp is compiled with -O3 and run RUNS times (default 3), each a
# median of 5 repetitions. Each row is read through a sink (DoNotOptimize after every call)
# through a checksum folded over the output, and over the whole pool in an inner loop (see
# the source). Prints a Markdown table:
# CPU ns per call, median over runs, and the median of per-run ratios (Boost's time over
# idforge's; above 1 idforge is faster). Nothing of Boost's head enters the project.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${IDFORGE_BUILD_DIR:-$root/build}"
boost_git="${1:?usage: bench_boost_user.sh BOOST_UUID_GIT [RUNS]}"
runs="${2:-3}"
command -v python3 >/dev/null || { echo "bench_boost_user.sh: python3 is needed for the table" >&2; exit 1; }
[[ -f "$build/build.ninja" ]] || bash "$root/scripts/build.sh" >/dev/null
cmake --build "$build" --target idforge_core >/dev/null

scratch="$(mktemp -d /tmp/idforge-boost-user.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
lib="$(find "$scratch/prefix" -name libidforge_core.a | head -1)"
[[ -f "$lib" ]] || { echo "bench_boost_user.sh: the install holds no libidforge_core.a" >&2; exit 1; }
mkdir -p "$scratch/head"
git -C "$boost_git" archive HEAD include | tar -x -C "$scratch/head"
head_commit="$(git -C "$boost_git" rev-parse --short HEAD)"
g++ -std=c++20 -O3 -DNDEBUG -I"$scratch/head/include" -I"$scratch/prefix/include" \
  "$root/bench/peers/boost_user_cmp.cpp" -o "$scratch/user_cmp" "$lib" -lbenchmark -lpthread

for ((r = 1; r <= runs; ++r)); do
  echo "run $r/$runs" >&2
  "$scratch/user_cmp" --benchmark_repetitions=5 --benchmark_min_time=0.2 \
    --benchmark_report_aggregates_only=true --benchmark_out="$scratch/run.$r.json" \
    --benchmark_out_format=json >/dev/null
done

model="$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
clock="$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
python3 - "$scratch" "$runs" "$model" "$clock" "$head_commit" <<'EOF'
import json, statistics, sys
scratch, runs, model, clock, head = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
per_run = []
path = "?"
for r in range(1, runs + 1):
    data = json.load(open(f"{scratch}/run.{r}.json"))
    path = data["context"].get("idforge_text_path", "?")
    # Loop rows time 1,024 UUIDs an iteration: per UUID.
    per_run.append({b["run_name"]: b["cpu_time"] / (1024 if b["run_name"].endswith("_loop") else 1)
                    for b in data["benchmarks"] if b.get("aggregate_name") == "median"})
print(f"{model}, clock source {clock}; Boost.UUID head {head}, both at default flags; "
      f"{runs} runs, each a median of 5 repetitions; idforge's text path on this CPU: {path}")
print()
print("| row | read through | Boost ns | idforge ns (installed library) | Boost / idforge |")
print("|---|---|---:|---:|---:|")
for op in ("to_chars", "parse"):
    for how in ("sink", "checksum", "loop"):
        b = [run[f"boost_{op}_{how}"] for run in per_run]
        i = [run[f"idforge_{op}_{how}"] for run in per_run]
        ratio = statistics.median(x / y for x, y in zip(b, i))
        print(f"| UUID {op} | {how} | {statistics.median(b):.2f} | {statistics.median(i):.2f} | "
              f"**{ratio:.2f}x** |")
EOF
