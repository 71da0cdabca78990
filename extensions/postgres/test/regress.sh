#!/usr/bin/env bash
# pg_regress over extensions/postgres/sql against a PostgreSQL 15 of its own, started with
# shared_preload_libraries = 'idforge', idforge.node = 5 and a masking keyring of fixed test keys.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PGI_NAME=regress PGI_PORT=$((15450 + ${IDFORGE_PORT_OFFSET:-0}))
# shellcheck source=pg_instance.sh
. "$here/pg_instance.sh"
pgi_need_installed
trap 'pgi_stop fast' EXIT
pgi_init <<CONF
shared_preload_libraries = 'idforge'
idforge.node = 5
idforge.mask_key_file = 'mask.keys'
CONF
# Fixed test keys for the masking functions (the expected output holds their known answers):
# key 2 masks, key 1 is an older one that still unmasks.
as_pg tee "$pgi_data/mask.keys" >/dev/null <<KEYS
2:93ab5c7e1f0d2b4a6c8e9f1a3b5d7c9e0f2a4b6c8d0e1f3a5b7c9d1e2f4a6b82
1:6f1c2a9e4b7d3f8a0c5e1b9d7a3f6c2e8b4d0a7f3c9e5b1d8a6f2c4e0b7d9a31
KEYS
chmod 0600 "$pgi_data/mask.keys"
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres -c "CREATE DATABASE idforge_regression" >/dev/null
regress="$(dirname "$("$pg_bin/pg_config" --pgxs)")/../test/regress/pg_regress"
out="$pgi_dir/out"
mkdir -p "$out"
"$regress" --use-existing --host=127.0.0.1 --port="$PGI_PORT" --user=postgres \
  --dbname=idforge_regression --inputdir="$here/.." --outputdir="$out" \
  --bindir="$pg_bin" idforge || {
  cat "$out/regression.diffs" >&2; exit 1; }
