#!/usr/bin/env python3
"""Draws a `screens-pipe run --trace` file as an SVG timeline: one row per lane (requests in
flight, convert, publish), one box per span, time along the x axis. For a quick look where no
trace viewer is at hand; Perfetto (ui.perfetto.dev) and chrome://tracing open the same file.

    python3 scripts/trace_svg.py run.trace.json > run.trace.svg
    python3 scripts/trace_svg.py run.trace.json --title "bookmarks, prefetch 4" -o run.svg

Standard library only.
"""
import argparse
import json
import sys
from html import escape

COLOURS = {"request": "#4e79a7", "retry": "#e15759", "convert": "#59a14f", "publish": "#f28e2b"}
LANE_HEIGHT = 26
LEFT = 110
RIGHT = 20
TOP = 40
WIDTH = 900


def load(path):
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    events = data["traceEvents"] if isinstance(data, dict) else data
    if not isinstance(events, list):
        raise ValueError("not a Chrome trace: expected a list of events or {\"traceEvents\": [...]}")
    return events


def lanes_and_spans(events):
    names = {}
    spans = []
    for event in events:
        if not isinstance(event, dict):
            continue
        if event.get("ph") == "M" and event.get("name") == "thread_name":
            names[event.get("tid")] = str(event.get("args", {}).get("name", event.get("tid")))
        elif event.get("ph") == "X" and isinstance(event.get("ts"), (int, float)) and isinstance(event.get("dur"), (int, float)):
            spans.append(event)
    tids = sorted({span.get("tid") for span in spans} | set(names), key=lambda tid: (str(type(tid)), tid))
    # Requests first (the prefetch window reads top-down), then convert and publish.
    tids.sort(key=lambda tid: (0 if names.get(tid, "").startswith("request") else 1, str(names.get(tid, tid))))
    return [(tid, names.get(tid, str(tid))) for tid in tids], spans


def render(events, title):
    lanes, spans = lanes_and_spans(events)
    if not spans:
        raise ValueError("the trace has no complete spans (\"ph\": \"X\")")
    start = min(span["ts"] for span in spans)
    end = max(span["ts"] + span["dur"] for span in spans)
    total = max(end - start, 1)
    scale = (WIDTH - LEFT - RIGHT) / total
    row = {tid: index for index, (tid, _) in enumerate(lanes)}
    height = TOP + LANE_HEIGHT * len(lanes) + 40
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        f'<text x="{LEFT}" y="20" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]
    for tid, name in lanes:
        y = TOP + row[tid] * LANE_HEIGHT
        out.append(f'<text x="{LEFT - 8}" y="{y + 16}" text-anchor="end">{escape(name)}</text>')
        out.append(f'<line x1="{LEFT}" y1="{y + LANE_HEIGHT}" x2="{WIDTH - RIGHT}" y2="{y + LANE_HEIGHT}" stroke="#eee"/>')
    for span in spans:
        y = TOP + row[span.get("tid")] * LANE_HEIGHT + 3
        x = LEFT + (span["ts"] - start) * scale
        width = max(span["dur"] * scale, 1)
        colour = COLOURS.get(span.get("cat"), "#999")
        label = str(span.get("name", ""))
        milliseconds = span["dur"] / 1000
        out.append(
            f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{LANE_HEIGHT - 6}" fill="{colour}" rx="2">'
            f"<title>{escape(label)}: {milliseconds:.1f} ms</title></rect>")
        page = span.get("args", {}).get("page")
        if width > 28 and page is not None:
            out.append(f'<text x="{x + 4:.1f}" y="{y + 14}" fill="white">p{escape(str(page))}</text>')
    axis_y = TOP + LANE_HEIGHT * len(lanes) + 16
    for step in range(0, 6):
        at = total * step / 5
        x = LEFT + at * scale
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{axis_y - 10}" stroke="#ddd" stroke-dasharray="2,3"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y}" text-anchor="middle">{at / 1000:.0f} ms</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description="Draw a screens-pipe --trace file as an SVG timeline.")
    parser.add_argument("trace")
    parser.add_argument("--title", default=None)
    parser.add_argument("-o", "--output", default="-")
    arguments = parser.parse_args()
    try:
        svg = render(load(arguments.trace), arguments.title or arguments.trace)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"trace_svg: {arguments.trace}: {error}", file=sys.stderr)
        return 1
    if arguments.output == "-":
        sys.stdout.write(svg)
    else:
        with open(arguments.output, "w", encoding="utf-8") as handle:
            handle.write(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
