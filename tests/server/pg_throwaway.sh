# A throwaway PostgreSQL cluster for the cluster tests and the claim benchmark (sourced, POSIX sh):
#   pg_start DIR     initdb + start in DIR/data, listening only on a unix socket in DIR/sock
#                    (listen_addresses = ''); sets PGURL (libpq URI) and PGCONN (psql conninfo)
#   pg_stop | pg_restart | pg_kill
# Debian's postgresql package (scripts/install-deps.sh test) puts initdb and pg_ctl under
# /usr/lib/postgresql/<version>/bin. initdb refuses to run as root: as root the server runs as
# `nobody` (present on every Debian system), which owns DIR/data; the daemons connect over the
# socket as the database superuser "snarkd" (trust authentication: the socket is in a private
# temporary directory).

# pg_bin: sets PGBIN; false (and says so) when Debian's postgresql or psql is not installed.
pg_bin() {
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && PGBIN=$d; done
  [ -n "${PGBIN:-}" ] && command -v psql >/dev/null 2>&1 ||
    { echo "PostgreSQL's initdb/pg_ctl/psql are missing (apt-get install postgresql; scripts/install-deps.sh test)"; return 1; }
}

pg_as() {  # runs a server command as the cluster's owner
  if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

pg_start() {
  PGDIR=$1
  pg_bin || return 1
  mkdir -p "$PGDIR/data" "$PGDIR/sock"
  if [ "$(id -u)" -eq 0 ]; then
    chmod 755 "$PGDIR"
    chown nobody "$PGDIR/data" "$PGDIR/sock"
    d=$PGDIR; while [ "$d" != / ]; do d=$(dirname "$d"); chmod o+x "$d" 2>/dev/null; done
  fi
  pg_as "$PGBIN/initdb" -D "$PGDIR/data" -U snarkd --auth=trust -E UTF8 --no-instructions >"$PGDIR/initdb.log" 2>&1 ||
    { echo "FAIL: initdb"; tail -5 "$PGDIR/initdb.log"; return 1; }
  PGOPTS="-c listen_addresses='' -c unix_socket_directories='$PGDIR/sock' -c unix_socket_permissions=0777 -c max_connections=300"
  pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -o "$PGOPTS" -l "$PGDIR/data/server.log" -w -t 120 start >/dev/null ||
    { echo "FAIL: pg_ctl start"; tail -5 "$PGDIR/data/server.log"; return 1; }
  PGURL="postgresql:///postgres?host=$PGDIR/sock&user=snarkd"
  PGCONN="host=$PGDIR/sock user=snarkd dbname=postgres"
}

pg_stop() { pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast -w -t 120 stop >/dev/null 2>&1; }
pg_restart() { pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -o "$PGOPTS" -l "$PGDIR/data/server.log" -m fast -w -t 120 restart >/dev/null; }
