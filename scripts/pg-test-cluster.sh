#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: initdb in a temporary directory, a server on a
# free loopback port, no system service, run as an unprivileged user (root gets `postgres`).
#
#   scripts/pg-test-cluster.sh start      prints `export SCREENS_PIPE_TEST_POSTGRES_URL=...`
#                                          and `export SCREENS_PIPE_TEST_POSTGRES_DIR=...`;
#                                          with openssl, also SCREENS_PIPE_TEST_POSTGRES_CA (the
#                                          CA of the server's certificate) and ..._OTHER_CA (one
#                                          that did not sign it)
#   scripts/pg-test-cluster.sh stop DIR   stops the server and removes DIR
#   scripts/pg-test-cluster.sh run CMD... starts, runs CMD with the URL exported, always stops
#
# TLS: when openssl is there, the server runs with ssl=on and a certificate for 127.0.0.1 and
# localhost signed by a throwaway CA; plain connections keep working, except for the role
# `screens_tls`, which pg_hba admits over TLS only (hostssl), so tests can check both ways.
#
# When PostgreSQL is not installed or cannot start, `start` prints nothing on stdout and says
# why on stderr (exit 0): the tests that need it are then skipped and counted.
set -euo pipefail

pg_bin() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
    done
    command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
    return 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Makes $dir/tls: ca.pem, server.crt and server.key (owned by the server's user, 0600), and
# other-ca.pem. Returns non-zero when openssl is missing or fails.
make_certificates() {
    local dir=$1 tls=$1/tls
    command -v openssl >/dev/null 2>&1 || return 1
    mkdir -p "$tls"
    (
        cd "$tls"
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=screens-pipe test CA" \
            -keyout ca.key -out ca.pem
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=screens-pipe other CA" \
            -keyout other-ca.key -out other-ca.pem
        openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr
        printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
            "keyUsage=digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
            -extfile server.ext -out server.crt
    ) >"$dir/openssl.log" 2>&1 || return 1
    chmod 0600 "$tls/server.key"
    [ "$(id -u)" = 0 ] && chown postgres "$tls/server.key" "$tls/server.crt"
    return 0
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
    local bin dir port
    if ! bin=$(pg_bin); then
        echo "pg-test-cluster: PostgreSQL is not installed (make setup installs it)" >&2
        return 0
    fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "pg-test-cluster: running as root and there is no 'postgres' user to run the server as" >&2
        return 0
    fi
    dir=$(mktemp -d /tmp/screens-pipe-pg.XXXXXX)
    chmod 0755 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    if ! as_owner "$bin/initdb" -D "$dir/data" -U screens -A trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1; then
        echo "pg-test-cluster: initdb failed:" >&2; tail -5 "$dir/initdb.log" >&2
        rm -rf "$dir"; return 0
    fi
    # The test role connects without a password; every other role needs its password, so
    # the tests can check a wrong one.
    printf '%s\n' "local all screens trust" "host all screens 127.0.0.1/32 trust" \
        "hostnossl all screens_tls 127.0.0.1/32 reject" "hostssl all screens_tls 127.0.0.1/32 trust" \
        "host all all 127.0.0.1/32 scram-sha-256" | as_owner tee "$dir/data/pg_hba.conf" >/dev/null
    local tls_options="" tls_exports=""
    if make_certificates "$dir"; then
        tls_options="-c ssl=on -c ssl_cert_file=$dir/tls/server.crt -c ssl_key_file=$dir/tls/server.key"
        tls_exports="export SCREENS_PIPE_TEST_POSTGRES_CA=$dir/tls/ca.pem
export SCREENS_PIPE_TEST_POSTGRES_OTHER_CA=$dir/tls/other-ca.pem"
    else
        echo "pg-test-cluster: no TLS (openssl is missing or failed); the TLS tests will be skipped" >&2
    fi
    port=$(free_port)
    # Loopback only, sockets in the cluster's own directory, no durability (a test cluster).
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
        -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 $tls_options" \
        >/dev/null 2>&1; then
        echo "pg-test-cluster: the server did not start:" >&2; tail -5 "$dir/server.log" >&2
        rm -rf "$dir"; return 0
    fi
    echo "export SCREENS_PIPE_TEST_POSTGRES_URL=postgres://screens@127.0.0.1:$port/postgres"
    echo "export SCREENS_PIPE_TEST_POSTGRES_DIR=$dir"
    [ -z "$tls_exports" ] || echo "$tls_exports"
    # The role that may only connect over TLS (pg_hba: hostssl).
    as_owner "$bin/psql" -h "$dir" -p "$port" -U screens -d postgres -qAt -c "CREATE ROLE screens_tls LOGIN SUPERUSER" >/dev/null 2>&1 || true
}

stop() {
    local dir=${1:-} bin
    [ -n "$dir" ] && [ -d "$dir" ] || return 0
    if bin=$(pg_bin) && [ -d "$dir/data" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    run)
        shift
        eval "$(start)"
        trap 'stop "${SCREENS_PIPE_TEST_POSTGRES_DIR:-}"' EXIT INT TERM
        "$@"
        ;;
    *) echo "usage: $0 start | stop DIR | run COMMAND..." >&2; exit 2 ;;
esac
