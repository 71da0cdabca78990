# Sourced by the extension's tests: one PostgreSQL 15 instance of their own, run as the
# postgres user (initdb refuses root) on 127.0.0.1, with bounded waits, always stopped.
# Needs: IDFORGE_PG_WORK (a folder for data and logs), PGI_NAME, PGI_PORT. IDFORGE_PG_BINDIR,
# IDFORGE_PG_PKGLIBDIR and IDFORGE_PG_SHAREDIR name another installation than the system's,
# such as a relocated copy with the module built here (docs/DATABASE.md, Tests).
set -euo pipefail
pg_bin="${IDFORGE_PG_BINDIR:-/usr/lib/postgresql/15/bin}"
pgi_dir="$IDFORGE_PG_WORK/$PGI_NAME"
pgi_data="$pgi_dir/data"

as_pg() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

# 77 (ctest: skipped) when the extension is not installed, or FAIL when services are
# required; fails when the installed module is not the one just built.
pgi_need_installed() {
  local so="${IDFORGE_PG_PKGLIBDIR:-/usr/lib/postgresql/15/lib}/idforge.so"
  local ctl="${IDFORGE_PG_SHAREDIR:-/usr/share/postgresql/15}/extension/idforge.control"
  local fix="cmake --install build --component pg_extension (as root)"
  if [ ! -f "$so" ] || [ ! -f "$ctl" ]; then
    if [ "${IDFORGE_REQUIRE_SERVICES:-0}" = 1 ]; then
      echo "FAIL: the idforge extension is not installed ($so, $ctl): run $fix" >&2; exit 1
    fi
    echo "SKIP: the idforge extension is not installed ($so): run $fix" >&2; exit 77
  fi
  if [ -n "${IDFORGE_PG_MODULE:-}" ] && ! cmp -s "$IDFORGE_PG_MODULE" "$so"; then
    echo "FAIL: the installed $so is not the one built ($IDFORGE_PG_MODULE): run $fix" >&2; exit 1
  fi
  # The C ABI it sits on, installed beside it.
  if [ -n "${IDFORGE_C_LIBRARY:-}" ] && ! cmp -s "$IDFORGE_C_LIBRARY" "$(dirname "$so")/libidforge.so.1"; then
    echo "FAIL: the installed $(dirname "$so")/libidforge.so.1 is not the one built ($IDFORGE_C_LIBRARY): run $fix" >&2; exit 1
  fi
  if [ "$(id -u)" != 0 ] && [ "$(id -un)" != postgres ]; then
    echo "SKIP: these tests run PostgreSQL as the postgres user: run them as root" >&2; exit 77
  fi
}

pgi_running() {
  [ -f "$pgi_data/postmaster.pid" ] && kill -0 "$(head -1 "$pgi_data/postmaster.pid")" 2>/dev/null
}

# The postgres user must pass through every folder above the data (see scripts/services/postgres.sh).
pgi_reach() {
  local d="$1"
  while [ "$d" != / ]; do
    as_pg test -x "$d" 2>/dev/null || chmod o+x "$d"
    d="$(dirname "$d")"
  done
}

pgi_init() {  # extra postgresql.conf lines on stdin
  pgi_stop immediate
  rm -rf "$pgi_dir"
  mkdir -p "$pgi_dir"
  pgi_reach "$pgi_dir"
  chown postgres:postgres "$pgi_dir"
  as_pg "$pg_bin/initdb" -D "$pgi_data" -A trust -U postgres --no-sync >"$pgi_dir/initdb.log" 2>&1 || {
    cat "$pgi_dir/initdb.log" >&2; return 1; }
  {
    echo "port = $PGI_PORT"
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$pgi_data'"
    cat
  } | as_pg tee -a "$pgi_data/postgresql.conf" >/dev/null
}

pgi_conf() {  # a line for postgresql.conf (later lines win)
  echo "$1" | as_pg tee -a "$pgi_data/postgresql.conf" >/dev/null
}

# Starts; returns pg_ctl's status (a bad setting makes it fail) with the log in $pgi_dir/server.log.
pgi_start() {  # [env VAR=value ... for the server]
  as_pg env "$@" "$pg_bin/pg_ctl" -D "$pgi_data" -l "$pgi_dir/server.log" -w -t 30 start >/dev/null 2>&1 || return 1
  for _ in $(seq 1 60); do
    "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$PGI_PORT" && return 0
    sleep 0.5
  done
  echo "postgres on port $PGI_PORT does not answer" >&2
  return 1
}

pgi_stop() {  # [fast|immediate]
  if pgi_running; then
    as_pg "$pg_bin/pg_ctl" -D "$pgi_data" -m "${1:-fast}" -w -t 30 stop >/dev/null 2>&1 || true
  fi
}

pgi_psql() {  # psql arguments
  "$pg_bin/psql" -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGI_PORT" -U postgres -At "$@"
}
