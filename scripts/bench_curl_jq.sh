#!/usr/bin/env bash
# The shell baseline a user would write instead of screens-pipe: a `curl | jq -c` loop making
# the same JSON-WS batch requests (pages of 1000, the row count asked with page 0) and writing
# the same JSON lines.
#
#     bash scripts/bench_curl_jq.sh http://127.0.0.1:8080 OUT.jsonl [PAGE_SIZE]
set -euo pipefail
base=$1 out=$2 size=${3:-1000}
rows=/bookmarks.bookmarksentry/get-entries count=/bookmarks.bookmarksentry/get-entries-count
params='"groupId":20143,"folderId":1000000'
invoke() { curl -sf -u test@liferay.com:test -H 'Content-Type: application/json' "$base/api/jsonws/invoke" -d "$1"; }

first=$(invoke "[{\"$rows\":{$params,\"start\":0,\"end\":$size}},{\"$count\":{$params}}]")
total=$(jq '.[1]' <<<"$first")
jq -c '.[0][]' <<<"$first" >"$out"
for ((start = size; start < total; start += size)); do
  invoke "[{\"$rows\":{$params,\"start\":$start,\"end\":$((start + size))}}]" | jq -c '.[0][]' >>"$out"
done
