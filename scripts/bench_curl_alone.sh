#!/usr/bin/env bash
# The transport alone, as the floor every contender stands on: one curl process making the
# same JSON-WS batch requests (pages of 1000 over one keep-alive connection, through a
# config file of `next`-separated transfers), writing the raw bodies, parsing nothing.
#
#     bash scripts/bench_curl_alone.sh http://127.0.0.1:8080 OUT.bodies ROWS [PAGE_SIZE]
set -euo pipefail
base=$1 out=$2 rows=$3 size=${4:-1000}
service=/bookmarks.bookmarksentry/get-entries
config=$(mktemp)
trap 'rm -f "$config"' EXIT
for ((start = 0; start < rows; start += size)); do
  ((start == 0)) || echo next
  echo "url = \"$base/api/jsonws/invoke\""
  echo 'user = "test@liferay.com:test"'
  echo 'header = "Content-Type: application/json"'
  echo "data = \"[{\\\"$service\\\":{\\\"groupId\\\":20143,\\\"folderId\\\":1000000,\\\"start\\\":$start,\\\"end\\\":$((start + size))}}]\""
  echo fail
  echo silent
done >"$config"
curl -K "$config" >"$out"
