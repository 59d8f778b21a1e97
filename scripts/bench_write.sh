#!/usr/bin/env bash
# Rows per second written to a portal through JSON-WS bookmark batches of 1, 25 and 100:
# N generated bookmark rows from a file (--input), each batch size against a fresh
# `screens-pipe sandbox` on loopback, journal on (its own cache directory).
#
#   scripts/bench_write.sh [--bin DIR] [--rows N]      (DIR: .build/debug or .build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release rows=2000
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --rows) rows=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$bin/screens-pipe" ] || { echo "no $bin/screens-pipe: build it first" >&2; exit 1; }
work=$(mktemp -d)
sandbox=
cleanup() {
    if [ -n "$sandbox" ]; then kill "$sandbox" 2> /dev/null || true; wait "$sandbox" 2> /dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
export SCREENS_PIPE_CACHE_DIR="$work/cache"

python3 - "$rows" > "$work/rows.jsonl" <<'PY'
import json, sys
for i in range(int(sys.argv[1])):
    print(json.dumps({"name": f"bookmark {i}", "url": f"https://example.com/bench/{i}", "description": "x" * 40}))
PY

seconds() { python3 -c 'import time; print(time.monotonic())'; }
for batch in 1 25 100; do
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$bin/screens-pipe" sandbox --port "$port" 2> "$work/sandbox.log" &
    sandbox=$!
    for _ in $(seq 100); do
        python3 -c "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 0.2)" "$port" 2> /dev/null && break
        sleep 0.1
    done
    cat > "$work/write.yaml" <<YAML
name: bench-write-$batch
sink:
  type: liferay
  server: http://127.0.0.1:$port
  auth: { basic: { username: test@liferay.com, password: test } }
  service: bookmark
  group-id: 20143
  folder-id: 20201
  batch-size: $batch
YAML
    start=$(seconds)
    "$bin/screens-pipe" write "$work/write.yaml" --input "$work/rows.jsonl" --rejects "$work/rejects.jsonl" --quiet > /dev/null
    end=$(seconds)
    python3 -c "import sys; r, s = int(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]); print(f'batch-size {sys.argv[4]:>3}: {r} rows in {s:6.2f} s = {r / s:8,.0f} rows/s')" "$rows" "$start" "$end" "$batch"
    kill "$sandbox"; wait "$sandbox" 2> /dev/null || true; sandbox=
done
