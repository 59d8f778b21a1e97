#!/usr/bin/env python3
"""A small OTLP/HTTP trace receiver for the tests: runs a command with
OTEL_EXPORTER_OTLP_ENDPOINT pointing at itself, decodes every export with the official
OpenTelemetry protobuf definitions (PyPI's `opentelemetry-proto`), and writes what it got.

    otlp_receiver.py --out spans.jsonl -- screens-pipe run pipelines/fan-out.yaml
    otlp_receiver.py --tree spans.jsonl          # the spans as a tree, children indented

--out gets one JSON object per span (trace_id, span_id, parent_span_id, name, kind,
status, attributes, resource); OUT.raw gets every request body as received (after gzip),
so a test can look for secrets in the whole export, not only in what was decoded.
The receiver exits with the command's status, once the command has exited (the exporter
flushes before the process ends).
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

MAX_BODY = 64 << 20


def value_of(any_value):
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    value = getattr(any_value, kind)
    if kind == "array_value":
        return [value_of(v) for v in value.values]
    if kind == "kvlist_value":
        return {kv.key: value_of(kv.value) for kv in value.values}
    if kind == "bytes_value":
        return value.hex()
    return value


def attributes(key_values):
    return {kv.key: value_of(kv.value) for kv in key_values}


class Receiver(BaseHTTPRequestHandler):
    spans = []
    raw = []
    lock = threading.Lock()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if self.path != "/v1/traces" or length > MAX_BODY:
            self.send_error(404 if self.path != "/v1/traces" else 413)
            return
        body = self.rfile.read(length)
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            body = gzip.decompress(body)
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        decoded = []
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    decoded.append({
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_span_id": span.parent_span_id.hex() or None,
                        "name": span.name,
                        "kind": trace_pb2.Span.SpanKind.Name(span.kind),
                        "status": {"code": trace_pb2.Status.StatusCode.Name(span.status.code), "message": span.status.message},
                        "attributes": attributes(span.attributes),
                        "start": span.start_time_unix_nano,
                        "resource": resource,
                    })
        with Receiver.lock:
            Receiver.spans.extend(decoded)
            Receiver.raw.append(body)
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def receive(out, command):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    environment = dict(os.environ)
    # Only this receiver, whatever the caller's environment says: variables that would send
    # the spans elsewhere, in another protocol, or nowhere are removed.
    for name in ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SDK_DISABLED",
                 "OTEL_TRACES_EXPORTER"):
        environment.pop(name, None)
    environment["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:%d" % server.server_address[1]
    environment["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
    # Export each batch at once, so the test does not wait for the exporter's schedule.
    environment.setdefault("OTEL_BSP_SCHEDULE_DELAY", "100")
    status = subprocess.call(command, env=environment)
    server.shutdown()
    with Receiver.lock, open(out, "w") as spans, open(out + ".raw", "wb") as raw:
        for span in Receiver.spans:
            spans.write(json.dumps(span, sort_keys=True) + "\n")
        for body in Receiver.raw:
            raw.write(body)
    print("otlp_receiver: %d spans in %d exports" % (len(Receiver.spans), len(Receiver.raw)), file=sys.stderr)
    return status


def tree(path):
    spans = [json.loads(line) for line in open(path)]
    by_parent = {}
    ids = {span["span_id"] for span in spans}
    for span in spans:
        parent = span["parent_span_id"] if span["parent_span_id"] in ids else None
        by_parent.setdefault(parent, []).append(span)
    shown = ["screens_pipe.pipeline", "screens_pipe.parent", "screens_pipe.page.index", "screens_pipe.rows",
             "http.response.status_code", "http.request.resend_count", "error.type", "url.full"]

    def show(span, depth):
        details = " ".join("%s=%s" % (key.split(".")[-1] if key != "url.full" else "url", span["attributes"][key])
                           for key in shown if key in span["attributes"])
        status = "" if span["status"]["code"] == "STATUS_CODE_UNSET" else " [%s]" % span["status"]["code"][12:]
        print("%s%s%s  %s" % ("  " * depth, span["name"], status, details))
        for child in sorted(by_parent.get(span["span_id"], []), key=lambda s: s["start"]):
            show(child, depth + 1)

    for root in sorted(by_parent.get(None, []), key=lambda s: s["start"]):
        show(root, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="where to write the decoded spans (JSON lines)")
    parser.add_argument("--tree", help="print the spans of this file as a tree")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    arguments = parser.parse_args()
    if arguments.tree:
        tree(arguments.tree)
        return 0
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not arguments.out or not command:
        parser.error("--out FILE -- COMMAND... (or --tree FILE)")
    return receive(arguments.out, command)


if __name__ == "__main__":
    sys.exit(main())
