#!/usr/bin/env python3
"""A terminal list over `screens-pipe session`, standard library only.

It drives a list the way a list Screenlet's user does: the first page loads when the list
appears, the next page loads when the cursor comes near the end of the rows shown (an
"in progress" line meanwhile), `r` pulls to refresh, Enter selects a row, `q` quits.

    python3 samples/session-client/session_client.py pipelines/bookmarks.yaml

Without a terminal, or with --script, it runs a list of steps and prints what a user would
see, one line per event, so it can be checked:

    python3 samples/session-client/session_client.py pipelines/bookmarks.yaml \\
        --script "scroll:55,select:52,refresh,close"

The first page loads first (autoLoad). Steps: load, next, page:N, scroll:N (move the cursor N rows down, loading pages as a
scrolling user would), select:I, refresh, close.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

NEAR_END = 3  # rows before the end of the list at which the next page is asked for


class Session:
    """One `screens-pipe session` process: commands in, events out, one command at a time."""

    def __init__(self, binary, pipeline, extra_args):
        self.process = subprocess.Popen(
            [binary, "session", pipeline] + extra_args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.next_id = 0
        self.started = self._read()

    def _read(self):
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("session-client: screens-pipe ended unexpectedly (see its stderr)")
        return json.loads(line)

    def command(self, op, **arguments):
        """Sends a command and returns the events that answer it, in order."""
        self.next_id += 1
        request = {"op": op, "id": self.next_id, **arguments}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        events, remaining = [], None
        while True:
            event = self._read()
            events.append(event)
            kind = event["event"]
            if kind in ("loading", "started"):
                continue
            if kind == "response":
                if event.get("provisional"):
                    continue
                remaining = event.get("following", 0)
            elif kind == "row" or (kind == "error" and remaining):
                remaining -= 1
            else:
                return events
            if remaining == 0:
                return events

    def close(self):
        events = self.command("close") if self.process.poll() is None else []
        self.process.stdin.close()
        self.process.wait()
        return events


class ListModel:
    """The rows shown so far, and what the user did with them."""

    def __init__(self, session, field, say):
        self.session, self.field, self.say = session, field, say
        self.rows = []       # (row index, label)
        self.items = {}      # row index -> item
        self.last_page = None
        self.asked = -1      # the last page asked for
        self.ended = False   # the last page of the list is shown
        self.cursor = 0

    def label(self, item):
        value = item.get(self.field) if isinstance(item, dict) else None
        return str(value) if value is not None else json.dumps(item)

    def apply(self, events):
        for event in events:
            kind = event["event"]
            if kind == "loading":
                self.say(f"loading page {event['page']} ...")
            elif kind == "response" and not event.get("provisional"):
                self.last_page = event["page"]
                self.ended = bool(event.get("last"))
                total = event.get("rowCount")
                self.say(f"page {event['page']}: {event['rows']} rows from row {event['startRow']}"
                         + (f" of {total}" if total is not None else "") + (" (last page)" if self.ended else ""))
            elif kind == "row":
                if event["row"] not in self.items:
                    self.rows.append((event["row"], self.label(event["item"])))
                self.items[event["row"]] = event["item"]
                self.say(f"  [{event['row']}] {self.label(event['item'])}")
            elif kind == "selected":
                self.say(f"selected row {event['row']}: {json.dumps(event['item'], sort_keys=True)}")
            elif kind == "error":
                self.say(f"error: {event['message']}")
            elif kind == "finished":
                self.say(f"finished: {event['pages']} pages, {event['rows']} rows, "
                         f"{event['selected']} selected, {event['errors']} errors")

    def ask(self, op, **arguments):
        if op in ("load", "refresh"):
            if op == "refresh":
                self.rows, self.items, self.cursor, self.ended = [], {}, 0, False
            self.asked = 0
        elif op == "next":
            self.asked += 1
        elif op == "page":
            self.asked = arguments["page"]
        self.apply(self.session.command(op, **arguments))

    def scroll(self, by):
        """Moves the cursor; near the end of the rows shown, asks for the next page."""
        for _ in range(by):
            if self.cursor + 1 < len(self.rows):
                self.cursor += 1
            while not self.ended and self.cursor >= len(self.rows) - NEAR_END:
                shown = len(self.rows)
                self.ask("next")
                if len(self.rows) == shown and not self.ended:
                    break  # a page failed or held no rows: stop instead of asking forever

    def select(self):
        if self.rows:
            self.ask("select", row=self.rows[self.cursor][0])


def run_script(model, steps):
    model.ask("load")  # autoLoad: the list loads when it appears
    for step in [s.strip() for s in steps.split(",") if s.strip()]:
        name, _, value = step.partition(":")
        if name in ("load", "next", "refresh"):
            model.ask(name)
        elif name == "page":
            model.ask("page", page=int(value))
        elif name == "scroll":
            model.scroll(int(value))
        elif name == "select":
            model.ask("select", row=int(value))
        elif name == "close":
            break
        else:
            raise SystemExit(f"session-client: unknown step '{step}'")
    model.apply(model.session.close())


def run_terminal(model):
    import curses

    def draw(screen, status):
        screen.erase()
        height, width = screen.getmaxyx()
        top = max(0, model.cursor - (height - 3))
        for line, (row, label) in enumerate(model.rows[top:top + height - 2]):
            attribute = curses.A_REVERSE if top + line == model.cursor else curses.A_NORMAL
            screen.addnstr(line, 0, f"{row:>6}  {label}", width - 1, attribute)
        if not model.ended and len(model.rows) - top < height - 2:
            screen.addnstr(len(model.rows) - top, 0, "        Loading...", width - 1)
        screen.addnstr(height - 1, 0, status, width - 1, curses.A_BOLD)
        screen.refresh()

    def main(screen):
        curses.curs_set(0)
        status = "up/down scroll, Enter select, r refresh, q quit"
        model.say = lambda text: None
        model.ask("load")
        messages = []
        model.say = messages.append
        while True:
            draw(screen, status)
            key = screen.getch()
            messages.clear()
            if key in (ord("q"), 27):
                return
            if key in (curses.KEY_DOWN, ord("j")):
                model.scroll(1)
            elif key in (curses.KEY_UP, ord("k")):
                model.cursor = max(0, model.cursor - 1)
            elif key in (curses.KEY_NPAGE, ord(" ")):
                model.scroll(screen.getmaxyx()[0] - 2)
            elif key == ord("r"):
                draw(screen, "refreshing ...")
                model.ask("refresh")
            elif key in (curses.KEY_ENTER, 10, 13):
                model.select()
            chosen = [m for m in messages if m.startswith(("selected", "error"))]
            status = chosen[-1] if chosen else status

    curses.wrapper(main)
    model.session.close()


def main():
    parser = argparse.ArgumentParser(description="A terminal list over screens-pipe session.")
    parser.add_argument("pipeline", help="the pipeline file")
    parser.add_argument("--bin", default=os.environ.get("SCREENS_PIPE_BIN") or shutil.which("screens-pipe"),
                        help="the screens-pipe binary (default: $SCREENS_PIPE_BIN, else from PATH)")
    parser.add_argument("--field", default="name", help="the item field each line shows (default: name)")
    parser.add_argument("--script", help="run these comma-separated steps instead of the terminal UI")
    parser.epilog = "Arguments after -- go to screens-pipe session (--prefetch 1, --set key=value, --policy ...)."
    arguments = sys.argv[1:]
    split = arguments.index("--") if "--" in arguments else len(arguments)
    options = parser.parse_args(arguments[:split])
    extra = arguments[split + 1:]
    if not options.bin:
        raise SystemExit("session-client: no screens-pipe binary: pass --bin or set SCREENS_PIPE_BIN")
    session = Session(options.bin, options.pipeline, extra)
    model = ListModel(session, options.field, lambda text: print(text, flush=True))
    if options.script is not None or not sys.stdout.isatty():
        run_script(model, options.script or "")
    else:
        run_terminal(model)


if __name__ == "__main__":
    main()
