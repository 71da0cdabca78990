#!/usr/bin/env bash
# services.sh start|stop|status [NAME...]
# Starts the real servers the tests and demos use: each scripts/services/NAME.sh knows how
# to start, stop and describe one server, always on 127.0.0.1 on a non-default port with
# its data under .data/NAME. What a started server offers is written as shell variables
# (IDFORGE_<NAME>_...) to .data/services.env, which the test command sources.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export IDFORGE_DATA="${IDFORGE_DATA:-$root/.data}"
mkdir -p "$IDFORGE_DATA"
action="${1:-}"
shift || true
names=("$@")
if [ "${#names[@]}" -eq 0 ]; then
  for f in "$root"/scripts/services/*.sh; do [ -e "$f" ] && names+=("$(basename "$f" .sh)"); done
fi
env_file="$IDFORGE_DATA/services.env"
case "$action" in
  start)
    : >"$env_file"
    for n in "${names[@]}"; do
      echo "services: starting $n"
      bash "$root/scripts/services/$n.sh" start >>"$env_file"
    done
    ;;
  stop)
    # Stop in reverse order; keep going if one fails so nothing is left running.
    for ((i = ${#names[@]} - 1; i >= 0; i--)); do
      bash "$root/scripts/services/${names[$i]}.sh" stop || echo "services: stopping ${names[$i]} failed" >&2
    done
    ;;
  status)
    for n in "${names[@]}"; do bash "$root/scripts/services/$n.sh" status || true; done
    ;;
  *)
    echo "usage: services.sh start|stop|status [NAME...]" >&2
    exit 2
    ;;
esac
