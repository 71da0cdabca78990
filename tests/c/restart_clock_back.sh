#!/usr/bin/env bash
# restart_clock_back.sh C_API_TEST FAKETIME_LIB
# A fixed node of the C ABI restarted with the clock 1 s behind issues none of the first run's
# IDs: its mark in IDFORGE_LEASE_DIR makes the second start wait for the clock (or refuse).
# On 87a909d the second run repeated the first run's IDs (2,330,624 of them in a binding).
set -euo pipefail
bin="${1:?usage: restart_clock_back.sh C_API_TEST FAKETIME_LIB}"
lib="${2:?usage: restart_clock_back.sh C_API_TEST FAKETIME_LIB}"
if [ ! -e "$lib" ]; then
  if [ "${IDFORGE_REQUIRE_SERVICES:-0}" = 1 ]; then
    echo "restart_clock_back: libfaketime ($lib) is missing" >&2
    exit 1
  fi
  echo "restart_clock_back: skipped: libfaketime ($lib) is missing"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export IDFORGE_LEASE_DIR="$work/leases"
# Four IDs a millisecond, so 6,000 IDs span 1.5 s: the second run, 1 s behind, starts inside
# the first run's time and would pass through it again without the mark.
layout="time=51,node=10,seq=2"
"$bin" issue 6000 "$layout" >"$work/first"
# The same node, the clock 1 s behind: it waits the second out (bounded) and then issues.
LD_PRELOAD="$lib" FAKETIME="-1s" "$bin" issue 6000 "$layout" >"$work/second" ||
  echo "restart_clock_back: the second run refused (status $?)"
repeats="$(sort "$work/first" "$work/second" | uniq -d | wc -l)"
echo "restart_clock_back: $(wc -l <"$work/first") + $(wc -l <"$work/second") IDs, $repeats repeated"
[ "$repeats" -eq 0 ]
