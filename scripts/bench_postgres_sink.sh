#!/usr/bin/env bash
# Rows per second into PostgreSQL through the postgres sink: a file source of N generated
# bookmark rows (no network in the way), upserted into a fresh table of a throwaway cluster
# (scripts/pg-test-cluster.sh), then upserted again over the full table (the rerun case).
# The same rows to /dev/null through the stdout sink give the cost of everything but the sink.
#
#   scripts/bench_postgres_sink.sh [--bin DIR] [--rows N] [--batch-size B] [--columns auto|jsonb]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release rows=100000 batch=500 columns=auto
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --rows) rows=$2; shift 2 ;;
        --batch-size) batch=$2; shift 2 ;;
        --columns) columns=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$bin/screens-pipe" ] || { echo "no $bin/screens-pipe: build it first (make release)" >&2; exit 1; }
work=$(mktemp -d)
eval "$(scripts/pg-test-cluster.sh start)"
trap 'scripts/pg-test-cluster.sh stop "${SCREENS_PIPE_TEST_POSTGRES_DIR:-}"; rm -rf "$work"' EXIT
[ -n "${SCREENS_PIPE_TEST_POSTGRES_URL:-}" ] || { echo "no PostgreSQL server could start" >&2; exit 1; }

python3 - "$rows" > "$work/rows.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps([{"entryId": 9007199254740993 + i, "groupId": 20143, "folderId": 0, "name": f"bookmark {i}",
                   "url": f"https://example.com/{i}", "description": "x" * 40, "visits": i % 97,
                   "createDate": "2024-01-01T00:00:00Z"} for i in range(n)]))
PY
cat > "$work/to-postgres.yaml" <<YAML
name: bench
source: { type: file, path: $work/rows.json, pagination: { page-size: 1000 } }
sink: { type: postgres, url: "$SCREENS_PIPE_TEST_POSTGRES_URL", tls: disable, table: bench, key: entryId, columns: $columns, batch-size: $batch }
YAML
sed "s/batch-size: $batch }/batch-size: $batch, mode: mirror }/" "$work/to-postgres.yaml" > "$work/to-mirror.yaml"
cat > "$work/to-null.yaml" <<YAML
name: bench
source: { type: file, path: $work/rows.json, pagination: { page-size: 1000 } }
sink: { type: stdout, format: items }
YAML

seconds() { python3 -c 'import sys, time; print(time.monotonic())'; }
measure() {  # label, command...
    local label=$1 start end; shift
    start=$(seconds); "$@" > /dev/null; end=$(seconds)
    python3 -c "import sys; r, s = int(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]); print(f'{sys.argv[4]:<28} {r} rows in {s:6.2f} s = {r / s:10,.0f} rows/s')" "$rows" "$start" "$end" "$label"
}
export SCREENS_PIPE_CACHE_DIR="$work/cache"
measure "stdout sink (baseline)" "$bin/screens-pipe" run "$work/to-null.yaml"
measure "postgres sink, new table" "$bin/screens-pipe" run "$work/to-postgres.yaml"
measure "postgres sink, upsert again" "$bin/screens-pipe" run "$work/to-postgres.yaml"
measure "postgres sink, mirror rerun" "$bin/screens-pipe" run "$work/to-mirror.yaml"
stored=$(psql -At "$SCREENS_PIPE_TEST_POSTGRES_URL" -c 'SELECT count(*) FROM bench')
echo "rows in the table: $stored (batch-size $batch, columns $columns)"
[ "$stored" = "$rows" ]
