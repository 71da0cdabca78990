#!/usr/bin/env bash
# The masking functions' keys on a PostgreSQL 15 of its own (not preloaded: masking needs no
# shared memory): no key at all, the postmaster's environment, a missing, unreadable or
# malformed key file, a wrong or retired key, a rotation by reload within one session, the
# setting out of other roles' reach, and parallel workers reading the same keyring.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PGI_NAME=mask PGI_PORT=$((15454 + ${IDFORGE_PORT_OFFSET:-0}))
# shellcheck source=pg_instance.sh
. "$here/pg_instance.sh"
pgi_need_installed
trap 'pgi_stop immediate' EXIT
fails=0
check() {  # name condition...
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name" >&2; fails=$((fails + 1)); fi
}
contains() { grep -qF -- "$2" <<<"$1"; }
lacks() { ! grep -qF -- "$2" <<<"$1"; }
sql() { pgi_psql -d postgres -c "$1" 2>&1 || true; }
reload() { pgi_psql -d postgres -c "SELECT pg_reload_conf()" >/dev/null; sleep 0.3; }
# The regress test's fixed keys: key 2 gives 4001 the public ID 5oP7xDtLY9So2RTp, key 1 gives
# it BuHxLsmXrRBr9bcj (as `idforge mask 4001` with the same keyring).
secret2=93ab5c7e1f0d2b4a6c8e9f1a3b5d7c9e0f2a4b6c8d0e1f3a5b7c9d1e2f4a6b82
secret1=6f1c2a9e4b7d3f8a0c5e1b9d7a3f6c2e8b4d0a7f3c9e5b1d8a6f2c4e0b7d9a31
other=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
keys="$pgi_dir/keys"
keyfile() {  # name, then the file's text on stdin; owned by the server's user, 0600
  as_pg tee "$keys/$1" >/dev/null
  chmod 0600 "$keys/$1"
}

pgi_init </dev/null
mkdir -p "$keys"
chown postgres:postgres "$keys"

# 1. No setting and no environment: every function says how to give a key.
pgi_start || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
pgi_psql -d postgres -c "CREATE EXTENSION idforge" >/dev/null
out="$(sql "SELECT idforge_mask(4001)")"
check "no key: names the setting and the variables ($out)" \
  contains "$out" "idforge_mask(): no mask key: idforge.mask_key_file is empty and the server's environment sets neither IDFORGE_MASK_KEY_FILE nor IDFORGE_MASK_KEYS"
check "no key: the hint says how" contains "$out" "pg_reload_conf()"
out="$(sql "SELECT idforge_unmask_raw(5)")"
check "no key: unmask too" contains "$out" "idforge_unmask_raw(): no mask key"
pgi_stop fast

# 2. The postmaster's environment: IDFORGE_MASK_KEYS, then IDFORGE_MASK_KEY_FILE (a file wins).
pgi_start IDFORGE_MASK_KEYS="2:$secret2" || { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
check "environment IDFORGE_MASK_KEYS: the known answer" \
  test "$(sql "SELECT idforge_mask(4001)")" = 5oP7xDtLY9So2RTp
check "environment: idforge_mask_keys() names it" \
  test "$(sql "SELECT idforge_mask_keys()")" = "IDFORGE_MASK_KEYS: keys 2"
pgi_stop fast
keyfile env.keys <<<"1:$secret1"
pgi_start IDFORGE_MASK_KEYS="2:$secret2" IDFORGE_MASK_KEY_FILE="$keys/env.keys" ||
  { tail -20 "$pgi_dir/server.log" >&2; exit 1; }
check "environment IDFORGE_MASK_KEY_FILE wins over IDFORGE_MASK_KEYS" \
  test "$(sql "SELECT idforge_mask(4001)")" = BuHxLsmXrRBr9bcj

# 3. The setting wins over the environment; a missing, unreadable or malformed file is
# named with the setting, never with a secret, and the next call after a fix works.
keyfile main.keys <<<"2:$secret2"
pgi_conf "idforge.mask_key_file = '$keys/main.keys'"
reload
check "setting: the known answer" test "$(sql "SELECT idforge_mask(4001)")" = 5oP7xDtLY9So2RTp
pgi_conf "idforge.mask_key_file = '$keys/missing.keys'"
reload
out="$(sql "SELECT idforge_mask(4001)")"
check "missing file: names the setting and the file ($out)" \
  contains "$out" "idforge_mask(): idforge.mask_key_file = '$keys/missing.keys': mask key file '$keys/missing.keys' cannot be read"
check "missing file: the hint" contains "$out" "The server's user must be able to read the file"
keyfile locked.keys <<<"2:$secret2"
chown root:root "$keys/locked.keys"
pgi_conf "idforge.mask_key_file = '$keys/locked.keys'"
reload
out="$(sql "SELECT idforge_unmask('5oP7xDtLY9So2RTp')")"
check "unreadable file: named ($out)" contains "$out" "mask key file '$keys/locked.keys' cannot be read"
chown postgres:postgres "$keys/locked.keys"
check "unreadable file made readable: works without a reload" \
  test "$(sql "SELECT idforge_unmask('5oP7xDtLY9So2RTp')")" = 4001
keyfile bad.keys <<<"2:${secret2:0:60}"
pgi_conf "idforge.mask_key_file = '$keys/bad.keys'"
reload
out="$(sql "SELECT idforge_mask_raw(4001)")"
check "malformed file: names the entry and the rule ($out)" contains "$out" "the secret has 60 characters; it must be 64 hex digits"
check "malformed file: never the secret" lacks "$out" "${secret2:0:60}"

# 4. A wrong secret under the same key ID: not ours. A retired key: named as unknown.
keyfile wrong.keys <<<"2:$other"
pgi_conf "idforge.mask_key_file = '$keys/wrong.keys'"
reload
out="$(sql "SELECT idforge_unmask('5oP7xDtLY9So2RTp')")"
check "wrong key: not made with key 2 ($out)" contains "$out" "idforge_unmask(): public ID '5oP7xDtLY9So2RTp' was not made with mask key 2"
check "wrong key: never the secret" lacks "$out" "$other"
keyfile three.keys <<<"3:$other"
pgi_conf "idforge.mask_key_file = '$keys/three.keys'"
reload
out="$(sql "SELECT idforge_unmask('5oP7xDtLY9So2RTp')")"
check "retired key: names key 2 and the keyring's keys ($out)" contains "$out" "mask key 2"
check "retired key: the keyring holds 3" contains "$out" "3"

# 5. Rotation in one session: the file rewritten with a new primary first, then a reload;
# the same backend masks with the new key and still unmasks the old IDs.
keyfile rotate.keys <<<"2:$secret2"
pgi_conf "idforge.mask_key_file = '$keys/rotate.keys'"
reload
out="$(pgi_psql -d postgres 2>&1 <<SQL || true
SELECT 'before ' || idforge_mask(4001);
\! printf '1:$secret1\n2:$secret2\n' > '$keys/rotate.keys'
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SELECT 'after ' || idforge_mask(4001);
SELECT 'old ' || idforge_unmask('5oP7xDtLY9So2RTp');
SELECT 'keys ' || idforge_mask_keys();
SQL
)"
check "rotation: before, key 2" contains "$out" "before 5oP7xDtLY9So2RTp"
check "rotation: after a reload, the same session masks with key 1 ($out)" contains "$out" "after BuHxLsmXrRBr9bcj"
check "rotation: the old public ID still resolves" contains "$out" "old 4001"
check "rotation: both keys held" contains "$out" "keys 1, 2"

# 6. Other roles may mask, but never choose the key file: not with SET (before the module is
# loaded, PostgreSQL keeps such a value as a placeholder, and drops it with a warning when the
# module defines the setting), not with ALTER SYSTEM. Parallel workers use the same keys.
pgi_psql -d postgres -c "CREATE ROLE app LOGIN" >/dev/null
out="$(pgi_psql -d postgres -U app 2>&1 <<SQL || true
SET idforge.mask_key_file = '$keys/wrong.keys';
SELECT 'masked ' || idforge_mask(4001);
SQL
)"
check "SET before the module loads: dropped, the configured keys used ($out)" contains "$out" "masked BuHxLsmXrRBr9bcj"
out="$(pgi_psql -d postgres -U app 2>&1 <<SQL || true
SELECT idforge_mask_keys();
SET idforge.mask_key_file = '$keys/wrong.keys';
SQL
)"
check "SET once the module is loaded: refused ($out)" contains "$out" "parameter \"idforge.mask_key_file\" cannot be changed now"
out="$(pgi_psql -d postgres -U app -c "ALTER SYSTEM SET idforge.mask_key_file = '$keys/wrong.keys'" 2>&1 || true)"
check "ALTER SYSTEM by another role: refused ($out)" contains "$out" "permission denied to set parameter"
check "other roles unmask" test "$(pgi_psql -d postgres -U app -c "SELECT idforge_unmask('BuHxLsmXrRBr9bcj')")" = 4001
out="$(pgi_psql -d postgres 2>&1 <<'SQL' || true
CREATE TABLE n AS SELECT g AS id FROM generate_series(1, 200000) g;
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT 'workers ' || count(*) FROM n WHERE idforge_unmask(idforge_mask(id)) = id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM n WHERE idforge_unmask(idforge_mask(id)) = id;
SQL
)"
check "parallel workers: every round trip ($out)" contains "$out" "workers 200000"
check "parallel workers: the plan is parallel" contains "$out" "Workers Planned"
pgi_stop fast

[ "$fails" = 0 ] || { echo "$fails check(s) failed" >&2; exit 1; }
echo "all masking key paths behave"
