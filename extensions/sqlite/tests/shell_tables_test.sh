#!/usr/bin/env bash
# shell_tables_test.sh SQLITE3 EXTENSION.so
# The extension through the sqlite3 command line, as a user loads it: `.load`, a table whose
# key defaults to uuid7() and one keyed by snowflake(), 100 000 rows each: every key distinct,
# and the keys in insertion order.
set -euo pipefail
sqlite3="$1" ext="$2"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
db="$scratch/shell.db"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$sqlite3" -bail -batch "$db" <<SQL
.load ${ext%.so}
PRAGMA journal_mode = WAL;
CREATE TABLE events(id TEXT PRIMARY KEY DEFAULT (uuid7()), n INTEGER NOT NULL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000)
INSERT INTO events(n) SELECT x FROM c;
SELECT count(*), count(DISTINCT id) FROM events;
-- ordered: sorting by key gives the insertion order
SELECT count(*) FROM (SELECT n, row_number() OVER (ORDER BY id) AS r FROM events) WHERE n <> r;
SELECT idforge_node(7);
CREATE TABLE orders(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000)
INSERT INTO orders SELECT snowflake(), x FROM c;
SELECT count(*), count(DISTINCT id) FROM orders;
SELECT count(*) FROM (SELECT n, row_number() OVER (ORDER BY id) AS r FROM orders) WHERE n <> r;
SELECT json_extract(idforge_inspect(max(id)), '\$.node') FROM orders;
SELECT uuid_str(uuid_blob(id)) = id FROM events LIMIT 1;
SQL
) || fail "sqlite3 failed: $out"
expected="wal
100000|100000
0
7
100000|100000
0
7
1"
[ "$out" = "$expected" ] || fail "got:
$out
expected:
$expected"

# A connection of the same WAL database without the extension still reads both tables (the
# DEFAULT is resolved only when a row takes it), and only an insert that needs uuid7() fails.
[ "$("$sqlite3" -batch "$db" 'SELECT count(*) FROM orders; SELECT count(*) FROM events')" = "100000
100000" ] || fail "reader without the extension"
err=$("$sqlite3" -batch "$db" "INSERT INTO events(n) VALUES (0)" 2>&1 || true)
grep -q "function: uuid7" <<<"$err" || fail "insert without the extension: $err"
[ "$("$sqlite3" -batch "$db" "INSERT INTO events VALUES ('given', 0); SELECT count(*) FROM events")" = 100001 ] ||
  fail "insert with the key given, without the extension"

# Errors reach the shell as SQL errors, with the rule and the value, and the shell lives on.
err=$("$sqlite3" -batch :memory: ".load ${ext%.so}" "SELECT snowflake();" 2>&1 || true)
grep -q "snowflake(): this connection has no node ID" <<<"$err" || fail "no-node error: $err"
err=$("$sqlite3" -batch :memory: ".load ${ext%.so}" "SELECT uuid_blob('nope');" 2>&1 || true)
grep -q "uuid_blob(): .*nope" <<<"$err" || fail "parse error: $err"
echo "ok: 100000 uuid7() keys and 100000 snowflake() keys, distinct and ordered"
