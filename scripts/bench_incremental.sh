#!/usr/bin/env bash
# An incremental run against a full run over a large list: the sandbox serves ROWS bookmarks
# (REST, offset paging, pages of 500), 100 of them are modified through POST
# /_sandbox/changes, then a full run and an incremental run (the cursor pushed as
# ?modified-since=) are timed, with the pages each one asked for.
#
#     bash scripts/bench_incremental.sh [ROWS]        # default 200000
set -euo pipefail
rows=${1:-200000}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SCREENS_PIPE_BIN:-$root/.build/release/screens-pipe}
[ -x "$bin" ] || bin=$root/.build/debug/screens-pipe
work=$(mktemp -d)
trap 'kill "$sandbox" 2>/dev/null || true; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))

# The bundled data, with the Guest site's root bookmarks folder grown to ROWS rows.
cp -r "$root/Sources/Sandbox/Data" "$work/data"
python3 - "$work/data/bookmarks-entries.json" "$rows" <<'PY'
import json, sys
path, count = sys.argv[1], int(sys.argv[2])
rows = json.load(open(path))
template = next(r for r in rows if r["groupId"] == 20143 and r["folderId"] == 0)
others = [r for r in rows if not (r["groupId"] == 20143 and r["folderId"] == 0)]
big = []
for i in range(count):
    row = dict(template)
    row.update(entryId=100000000 + i, uuid="00000000-0000-4000-8000-%012x" % i, name="Bookmark %d" % i,
               url="https://example.com/%d" % i, createDate=1704067200000 + i * 1000, modifiedDate=1704067200000 + i * 1000)
    big.append(row)
json.dump(others + big, open(path, "w"))
PY

"$bin" sandbox --port "$port" --data "$work/data" >/dev/null 2>&1 &
sandbox=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.5; done

cat >"$work/bench.yaml" <<YAML
name: bench-incremental
source:
  type: rest
  server: http://127.0.0.1:$port
  url: /rest/bookmarks/offset
  records: data.records
  total: meta.total
  query: { modified-since: "{cursor}" }
  paginate: offset
  pagination: { first-page-size: 500, page-size: 500, prefetch: 4 }
cache: { policy: remote-only, path: $work/cache.sqlite }
incremental: { cursor: modifiedDate, type: date }
YAML

pages() { awk '/^screens_pipe_pages_total/ { sum += $NF } END { print sum + 0 }' "$1"; }
timed() {  # label, extra arguments...
  local label=$1; shift
  local start end
  start=$(date +%s.%N)
  "$bin" run "$work/bench.yaml" -q -o "$work/$label.jsonl" --metrics-file "$work/$label.prom" "$@"
  end=$(date +%s.%N)
  printf '%-12s %8.2f s  %6d pages  %8d rows\n' "$label" "$(echo "$end - $start" | bc)" "$(pages "$work/$label.prom")" "$(wc -l <"$work/$label.jsonl")"
}

echo "rows: $rows"
timed full --full-refresh
curl -sf -X POST "http://127.0.0.1:$port/_sandbox/changes?list=bookmarks&seed=7&modify=100" >/dev/null
timed incremental
timed full-again --full-refresh
