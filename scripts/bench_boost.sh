#!/usr/bin/env bash
# bench_boost.sh BOOST_UUID_GIT [RUNS]
# idforge's UUID and ULID rows beside Debian's Boost 1.81, Boost 1.90.0 and Boost.UUID's
# development head (default flags, -march=x86-64-v2, -march=x86-64-v3), in one go.
#
# BOOST_UUID_GIT is a git clone of github.com/boostorg/uuid; its HEAD is "head" and its tag
# boost-1.90.0 is "1.90". Both are extracted into a scratch folder and compiled there against
# Debian's Boost headers (for boost/config and friends); nothing of them enters the project.
# bench/peers/boost_cmp.cpp is compiled once per Boost build, each beside the same default
# Release libidforge_core.a, and the programs run in turns, RUNS times (default 3), so every
# ratio compares rows of one program run. Prints a Markdown table: CPU time per call, the
# median over runs of each run's median of 5 repetitions, and the median of per-run ratios
# (Boost's time over idforge's).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${IDFORGE_BUILD_DIR:-$root/build}"
boost_git="${1:?usage: bench_boost.sh BOOST_UUID_GIT [RUNS]}"
runs="${2:-3}"
command -v python3 >/dev/null || { echo "bench_boost.sh: python3 is needed for the table" >&2; exit 1; }

bash "$root/scripts/build.sh" >/dev/null
cmake --build "$build" --target idforge_core >/dev/null
lib="$(find "$build/src/core" -name libidforge_core.a | head -1)"
[[ -f "$lib" ]] || { echo "bench_boost.sh: no libidforge_core.a under $build/src/core" >&2; exit 1; }

scratch="$(mktemp -d /tmp/idforge-boost.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
for tree in head:HEAD 1.90:boost-1.90.0; do
  mkdir -p "$scratch/${tree%%:*}"
  git -C "$boost_git" archive "${tree#*:}" include | tar -x -C "$scratch/${tree%%:*}"
done
head_commit="$(git -C "$boost_git" rev-parse --short HEAD)"

# name | include folder ("" = Debian's 1.81) | extra flags
variants=("1.81||" "1.90|$scratch/1.90/include|" "head|$scratch/head/include|"
  "head_v2|$scratch/head/include|-march=x86-64-v2" "head_v3|$scratch/head/include|-march=x86-64-v3")
for v in "${variants[@]}"; do
  IFS='|' read -r name inc flags <<<"$v"
  # shellcheck disable=SC2086 # flags is empty or one word
  g++ -std=c++20 -O3 -DNDEBUG $flags "-DIDF_VARIANT=\"$name\"" ${inc:+-I"$inc"} -I"$root/include" -I"$root/bench" \
    -c "$root/bench/peers/boost_cmp.cpp" -o "$scratch/$name.o"
  g++ -o "$scratch/cmp_$name" "$scratch/$name.o" "$lib" -lbenchmark -lsodium -lpthread
done

for ((r = 1; r <= runs; ++r)); do
  for v in "${variants[@]}"; do
    name="${v%%|*}"
    echo "run $r/$runs: $name" >&2
    "$scratch/cmp_$name" --benchmark_repetitions=5 --benchmark_min_time=0.1 \
      --benchmark_report_aggregates_only=true --benchmark_out="$scratch/$name.$r.json" \
      --benchmark_out_format=json >/dev/null
  done
done

model="$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
clock="$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
python3 - "$scratch" "$runs" "$model" "$clock" "$head_commit" <<'EOF'
import json, statistics, sys
scratch, runs, model, clock, head = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
variants = ["1.81", "1.90", "head", "head_v2", "head_v3"]
# cpu[(variant, run)][row] = median CPU ns of 5 repetitions
cpu = {}
for v in variants:
    for r in range(1, runs + 1):
        rows = {}
        for b in json.load(open(f"{scratch}/{v}.{r}.json"))["benchmarks"]:
            if b.get("aggregate_name") == "median":
                rows[b["run_name"]] = b["cpu_time"]
        cpu[(v, r)] = rows

def med(xs):
    return statistics.median(xs) if xs else None

def per_call(v, r, row):
    x = cpu[(v, r)].get(row)
    if x is None:
        return None
    return x / 256 if "batch" in row else x  # batch rows: one call writes 256 IDs

def both(v, op, idf_row):
    """(Boost ns, idforge ns in the same program, median of per-run ratios) for one build."""
    b = [per_call(v, r, f"boost_{v}/{op}") for r in range(1, runs + 1)]
    i = [per_call(v, r, idf_row) for r in range(1, runs + 1)]
    if None in b or None in i:
        return None
    return med(b), med(i), med([x / y for x, y in zip(b, i)])

print(f"Machine: {model}, clocksource {clock}; Boost head {head}; {runs} runs of each program.")
print("CPU ns per call (median over runs of the median of 5 repetitions; batch rows: per ID of")
print("256 into one buffer). Each cell: Boost | idforge in the same program (the same flags) |")
print("ratio, Boost's time over idforge's, the median of the per-run ratios (> 1: idforge faster).\n")
ops = [("UUID to_chars", "uuid_to_chars", "idforge/uuid_to_chars/best"),
       ("UUID parse", "uuid_parse", "idforge/uuid_parse/best"),
       ("256 UUIDs to text, per ID", "uuid_batch_to_chars", "idforge/uuid_batch_to_chars"),
       ("UUIDv7, one thread", "uuid_v7", "idforge/uuid_v7"),
       ("UUIDv4", "uuid_v4", "idforge/uuid_v4")]
names = {"1.81": "Boost 1.81 (Debian)", "1.90": "Boost 1.90.0", "head": "Boost head, default flags",
         "head_v2": "Boost head, `-march=x86-64-v2`", "head_v3": "Boost head, `-march=x86-64-v3`"}
print("| both built with | " + " | ".join(label for label, _, _ in ops) + " |")
print("|---|" + "---|" * len(ops))
for v in variants:
    cells = []
    for _, op, row in ops:
        t = both(v, op, row)
        cells.append("—" if t is None else f"{t[0]:.2f} \\| {t[1]:.2f} \\| **{t[2]:.2f}×**")
    print(f"| {names[v]} | " + " | ".join(cells) + " |")

# The forced paths mean something only where idforge chooses at run time (no -march).
default_builds = ["1.81", "1.90", "head"]
def idf(row):
    return med([per_call(v, r, row) for v in default_builds for r in range(1, runs + 1)
                if per_call(v, r, row) is not None])

print()
print("| idforge text, default build (ns per call) | chosen path | scalar | ssse3 | avx2 |")
print("|---|---:|---:|---:|---:|")
for label, op in [("UUID to_chars", "uuid_to_chars"), ("UUID parse", "uuid_parse"),
                  ("ULID to_chars", "ulid_to_chars"), ("ULID parse", "ulid_parse")]:
    cells = []
    for p in ["best", "scalar", "ssse3", "avx2"]:
        x = idf(f"idforge/{op}/{p}")
        cells.append("—" if x is None else f"{x:.2f}")
    print(f"| {label} | " + " | ".join(cells) + " |")
print(f"\nfloor: clock_gettime(CLOCK_REALTIME) {idf('floor/clock_gettime'):.2f} ns")
EOF
