#!/usr/bin/env bash
# Throwaway network servers for the transport tests, from Debian's packages (tinyproxy,
# nginx-light, openssl): each runs as the current user (root's workers as nobody) on a free
# loopback port, with its configuration, certificates and logs in one temporary directory.
#
#   scripts/net-test-servers.sh start      prints `export SCREENS_PIPE_TEST_NET_DIR=...` and:
#     SCREENS_PIPE_TEST_PROXY_URL        tinyproxy without authentication (http://127.0.0.1:P)
#     SCREENS_PIPE_TEST_AUTH_PROXY_URL   tinyproxy with BasicAuth (no credentials in the URL)
#     SCREENS_PIPE_TEST_AUTH_PROXY_USER / ..._PASSWORD   the credentials it accepts
#     SCREENS_PIPE_TEST_NGINX_URL        nginx over TLS with HTTP/2 and gzip (https://127.0.0.1:P),
#                                        serving /pages/1.json... (a next-link list of 7 rows)
#     SCREENS_PIPE_TEST_MTLS_URL         the same pages on a server with ssl_verify_client on
#     SCREENS_PIPE_TEST_CA               the CA (PEM) of the servers' and clients' certificates
#     SCREENS_PIPE_TEST_CLIENT_CERT / ..._CLIENT_KEY        a client certificate the CA signed
#     SCREENS_PIPE_TEST_CLIENT_KEY_ENCRYPTED / ..._CLIENT_KEY_PASSPHRASE   its key, encrypted
#     SCREENS_PIPE_TEST_OTHER_KEY        a key that belongs to no certificate here
#   Logs: $SCREENS_PIPE_TEST_NET_DIR/{tinyproxy,tinyproxy-auth}.log, nginx-access.log
#   (protocol, gzip ratio, client certificate, whether an Authorization header came).
#   scripts/net-test-servers.sh stop DIR   stops them and removes DIR
#   scripts/net-test-servers.sh run CMD... starts, runs CMD with the variables, always stops
#
# Whatever cannot start prints nothing on stdout and says why on stderr (exit 0): the tests
# that need it are then skipped and counted, as the PostgreSQL tests are.
set -euo pipefail

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Waits up to 10 s for something to listen on 127.0.0.1:$1.
wait_for_port() {
    local port=$1 i
    for i in $(seq 1 100); do
        python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1',$port)))" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

make_certificates() {
    local tls=$1
    mkdir -p "$tls"
    (
        cd "$tls"
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=screens-pipe net test CA" -keyout ca.key -out ca.pem
        openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr
        printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
            "keyUsage=digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out server.crt
        openssl req -newkey rsa:2048 -nodes -subj "/CN=screens-pipe test client" -keyout client.key -out client.csr
        printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=digitalSignature" "extendedKeyUsage=clientAuth" >client.ext
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile client.ext -out client.crt
        openssl pkey -in client.key -aes256 -passout pass:net-test-passphrase -out client-encrypted.key
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out other.key
    ) >"$tls/../openssl.log" 2>&1
}

# /pages/1.json ... /pages/3.json: 7 rows, 3 per page, each page naming the next.
make_pages() {
    local www=$1/www
    mkdir -p "$www/pages"
    python3 - "$www/pages" <<'PY'
import json, sys
rows = [{"id": i, "title": f"row {i}", "text": "padding that compresses well " * 8} for i in range(1, 8)]
pages = [rows[i:i + 3] for i in range(0, len(rows), 3)]
for n, page in enumerate(pages, 1):
    body = {"items": page, "next": f"/pages/{n + 1}.json" if n < len(pages) else None}
    with open(f"{sys.argv[1]}/{n}.json", "w") as f:
        json.dump(body, f)
PY
}

start_tinyproxy() {
    local dir=$1 name=$2 port=$3 auth=${4:-}
    {
        echo "Port $port"
        echo "Listen 127.0.0.1"
        echo "Timeout 30"
        echo "LogFile \"$dir/$name.log\""
        echo "LogLevel Info"
        echo "PidFile \"$dir/$name.pid\""
        echo "MaxClients 50"
        echo "Allow 127.0.0.1"
        [ -n "$auth" ] && echo "BasicAuth $auth"
        if [ "$(id -u)" = 0 ]; then echo "User nobody"; echo "Group nogroup"; fi
    } >"$dir/$name.conf"
    touch "$dir/$name.log" "$dir/$name.pid"
    [ "$(id -u)" = 0 ] && chown nobody "$dir/$name.log" "$dir/$name.pid"
    tinyproxy -c "$dir/$name.conf" >>"$dir/$name.stderr" 2>&1 || return 1
    wait_for_port "$port"
}

start_nginx() {
    local dir=$1 port=$2 mtls_port=$3 tls=$1/tls
    mkdir -p "$dir/nginx-tmp"
    local user_line=""
    [ "$(id -u)" = 0 ] && user_line="user root;"
    cat >"$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log info;
events { worker_connections 128; }
http {
    client_body_temp_path $dir/nginx-tmp/body;
    proxy_temp_path $dir/nginx-tmp/proxy;
    fastcgi_temp_path $dir/nginx-tmp/fastcgi;
    uwsgi_temp_path $dir/nginx-tmp/uwsgi;
    scgi_temp_path $dir/nginx-tmp/scgi;
    types { application/json json; }
    default_type application/json;
    map \$http_authorization \$authorization_sent { "" no; default yes; }
    log_format probe '\$server_port "\$request" \$status \$server_protocol gzip_ratio=\$gzip_ratio '
                     'client_verify=\$ssl_client_verify client="\$ssl_client_s_dn" authorization=\$authorization_sent';
    access_log $dir/nginx-access.log probe;
    gzip on;
    gzip_types application/json;
    gzip_min_length 20;
    ssl_certificate $tls/server.crt;
    ssl_certificate_key $tls/server.key;
    ssl_client_certificate $tls/ca.pem;
    server {
        listen 127.0.0.1:$port ssl http2;
        root $dir/www;
    }
    server {
        listen 127.0.0.1:$mtls_port ssl http2;
        ssl_verify_client on;
        root $dir/www;
    }
}
CONF
    nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" >>"$dir/nginx.stderr" 2>&1 || return 1
    wait_for_port "$port" && wait_for_port "$mtls_port"
}

start() {
    local dir missing=""
    for tool in tinyproxy nginx openssl python3; do command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"; done
    if [ -n "$missing" ]; then
        echo "net-test-servers: missing:$missing (make setup installs them)" >&2
        return 0
    fi
    dir=$(mktemp -d /tmp/screens-pipe-net.XXXXXX)
    chmod 0755 "$dir"
    if ! make_certificates "$dir/tls"; then
        echo "net-test-servers: openssl failed:" >&2; tail -5 "$dir/openssl.log" >&2
        rm -rf "$dir"; return 0
    fi
    make_pages "$dir"
    local proxy_port auth_port nginx_port mtls_port password
    proxy_port=$(free_port); auth_port=$(free_port); nginx_port=$(free_port); mtls_port=$(free_port)
    password="proxy-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
    local exports="export SCREENS_PIPE_TEST_NET_DIR=$dir
export SCREENS_PIPE_TEST_CA=$dir/tls/ca.pem
export SCREENS_PIPE_TEST_CLIENT_CERT=$dir/tls/client.crt
export SCREENS_PIPE_TEST_CLIENT_KEY=$dir/tls/client.key
export SCREENS_PIPE_TEST_CLIENT_KEY_ENCRYPTED=$dir/tls/client-encrypted.key
export SCREENS_PIPE_TEST_CLIENT_KEY_PASSPHRASE=net-test-passphrase
export SCREENS_PIPE_TEST_OTHER_KEY=$dir/tls/other.key"
    if start_tinyproxy "$dir" tinyproxy "$proxy_port" && start_tinyproxy "$dir" tinyproxy-auth "$auth_port" "screens $password"; then
        exports="$exports
export SCREENS_PIPE_TEST_PROXY_URL=http://127.0.0.1:$proxy_port
export SCREENS_PIPE_TEST_AUTH_PROXY_URL=http://127.0.0.1:$auth_port
export SCREENS_PIPE_TEST_AUTH_PROXY_USER=screens
export SCREENS_PIPE_TEST_AUTH_PROXY_PASSWORD=$password"
    else
        echo "net-test-servers: tinyproxy did not start:" >&2; cat "$dir"/tinyproxy*.stderr "$dir"/tinyproxy*.log 2>/dev/null | tail -5 >&2
    fi
    if start_nginx "$dir" "$nginx_port" "$mtls_port"; then
        exports="$exports
export SCREENS_PIPE_TEST_NGINX_URL=https://127.0.0.1:$nginx_port
export SCREENS_PIPE_TEST_MTLS_URL=https://127.0.0.1:$mtls_port"
    else
        echo "net-test-servers: nginx did not start:" >&2; cat "$dir/nginx.stderr" "$dir/nginx-error.log" 2>/dev/null | tail -5 >&2
    fi
    echo "$exports"
}

stop() {
    local dir=${1:-} pidfile pid
    [ -n "$dir" ] && [ -d "$dir" ] && [ -f "$dir/tls/ca.pem" ] || return 0
    for pidfile in "$dir/tinyproxy.pid" "$dir/tinyproxy-auth.pid" "$dir/nginx.pid"; do
        pid=$(cat "$pidfile" 2>/dev/null || true)
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    sleep 0.2
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    run)
        shift
        eval "$(start)"
        trap 'stop "${SCREENS_PIPE_TEST_NET_DIR:-}"' EXIT INT TERM
        "$@"
        ;;
    *) echo "usage: $0 start | stop DIR | run COMMAND..." >&2; exit 2 ;;
esac
