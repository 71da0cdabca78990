#!/usr/bin/env bash
# pg_regress over extensions/postgres/sql against a PostgreSQL 15 of its own, started with
# shared_preload_libraries = 'idforge', idforge.node = 5.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PGI_NAME=regress PGI_PORT=$((15450 + ${IDFORGE_PORT_OFFSET:-0}))
# shellcheck source=pg_instance.sh
. "$here/pg_instance.sh"
pgi_need_installed
trap 'pgi_stop fast' EXIT
pgi_init <<CONF
shared_preload_libraries = 'idforge'
idforge.node = 5
CONF
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres -c "CREATE DATABASE idforge_regression" >/dev/null
regress="$(dirname "$(pg_config --pgxs)")/../test/regress/pg_regress"
out="$pgi_dir/out"
mkdir -p "$out"
"$regress" --use-existing --host=127.0.0.1 --port="$PGI_PORT" --user=postgres \
  --dbname=idforge_regression --inputdir="$here/.." --outputdir="$out" \
  --bindir="$pg_bin" idforge || {
  cat "$out/regression.diffs" >&2; exit 1; }
