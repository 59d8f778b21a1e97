#!/usr/bin/env python3
"""The baseline a user would write instead of screens-pipe: a plain Python loop that makes the
same JSON-WS batch requests (stdlib http.client, one keep-alive connection, pages of 1000,
the row count asked with page 0) and writes the same JSON lines.

    python3 scripts/bench_python_loop.py http://127.0.0.1:8080 OUT.jsonl [PAGE_SIZE]
"""
import base64
import http.client
import json
import sys
import urllib.parse

ROWS = "/bookmarks.bookmarksentry/get-entries"
COUNT = "/bookmarks.bookmarksentry/get-entries-count"
PARAMS = {"groupId": 20143, "folderId": 1000000}


def main():
    base, out_path = sys.argv[1], sys.argv[2]
    page_size = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port)
    headers = {
        "Content-Type": "application/json",
        "Authorization": "Basic " + base64.b64encode(b"test@liferay.com:test").decode(),
    }

    def invoke(commands):
        connection.request("POST", "/api/jsonws/invoke", json.dumps(commands), headers)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status}: {body[:200]!r}")
        return json.loads(body)

    with open(out_path, "w", encoding="utf-8") as out:
        start = 0
        count = None
        while count is None or start < count:
            rows_command = {ROWS: dict(PARAMS, start=start, end=start + page_size)}
            if count is None:
                rows, count = invoke([rows_command, {COUNT: dict(PARAMS)}])
            else:
                (rows,) = invoke([rows_command])
            for row in rows:
                out.write(json.dumps(row, separators=(",", ":"), ensure_ascii=False))
                out.write("\n")
            start += page_size


if __name__ == "__main__":
    main()
