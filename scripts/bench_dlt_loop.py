#!/usr/bin/env python3
"""dlt's RESTClient as a peer of screens-pipe: the sandbox's generated list through its REST
offset endpoint (`/rest/generated/offset`, the paging dlt's OffsetPaginator speaks natively,
pages of 1000, the total from `meta.total`), written as the same JSON lines.

    .build/bench-venv/bin/python3 scripts/bench_dlt_loop.py http://127.0.0.1:8080 OUT.jsonl [PAGE_SIZE]
"""
import json
import sys

from dlt.sources.helpers.rest_client import RESTClient
from dlt.sources.helpers.rest_client.auth import HttpBasicAuth
from dlt.sources.helpers.rest_client.paginators import OffsetPaginator


def main():
    base, out_path = sys.argv[1], sys.argv[2]
    page_size = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    client = RESTClient(
        base_url=base,
        auth=HttpBasicAuth("test@liferay.com", "test"),
        paginator=OffsetPaginator(limit=page_size, total_path="meta.total"),
        data_selector="data.records",
    )
    with open(out_path, "w", encoding="utf-8") as out:
        for page in client.paginate("/rest/generated/offset"):
            for row in page:
                out.write(json.dumps(row, separators=(",", ":"), ensure_ascii=False))
                out.write("\n")


if __name__ == "__main__":
    main()
