#!/usr/bin/env bash
# `make install` into a temporary prefix, checked as a user would use it: the installed
# binary runs a pipeline against the bundled sandbox (its resource bundle found beside it,
# from another directory), `man -l` shows the page, and the completion scripts load (bash;
# zsh and fish are checked for syntax when installed). Uses the debug build `make test`
# has just made (INSTALL_CONFIG=debug), so it adds seconds, not a release build.
# Usage: scripts/test-install.sh [make arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "test-install: FAILED: $*" >&2; exit 1; }

make --no-print-directory install PREFIX="$prefix" INSTALL_CONFIG="${INSTALL_CONFIG:-debug}" "$@" >"$prefix/make.log" 2>&1 \
  || { tail -20 "$prefix/make.log" >&2; fail "make install PREFIX=$prefix"; }

bin="$prefix/bin/screens-pipe"
[ -x "$bin" ] || fail "no executable at $bin"
"$bin" --version | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+' || fail "$bin --version"

# From another directory, with a cache of its own: the sandbox's data comes from the
# bundle installed beside the binary, not from the build tree.
work=$(mktemp -d -p "$prefix")
cp "$root/pipelines/bookmarks.yaml" "$work/"
rows=$(cd "$work" && SCREENS_PIPE_CACHE_DIR="$work/cache" "$bin" run bookmarks.yaml 2>"$prefix/run.log" | wc -l) \
  || { cat "$prefix/run.log" >&2; fail "the installed binary did not run pipelines/bookmarks.yaml"; }
[ "$rows" -gt 0 ] || { cat "$prefix/run.log" >&2; fail "the installed binary wrote no row"; }

page="$prefix/share/man/man1/screens-pipe.1"
[ -s "$page" ] || fail "no man page at $page"
# Into a file, then read: `man | grep -q` fails under pipefail when grep's early exit
# leaves man a SIGPIPE. (make setup installs man-db.)
MANPAGER=cat MANWIDTH=80 man -l "$page" >"$prefix/man.txt" 2>"$prefix/man.log" \
  || { cat "$prefix/man.log" >&2; fail "man -l $page failed"; }
grep -q 'screens-pipe' "$prefix/man.txt" || fail "man -l $page shows nothing"

completion="$prefix/share/bash-completion/completions/screens-pipe"
bash -c 'source "$1" && complete -p screens-pipe' _ "$completion" >/dev/null 2>"$prefix/bash.log" \
  || { cat "$prefix/bash.log" >&2; fail "the bash completion does not load"; }
# The completion offers the subcommands for `screens-pipe r<TAB>`.
words=$(bash -c 'source "$1"; fn=$(complete -p screens-pipe | sed -E "s/.*-F ([^ ]+).*/\1/");
  COMP_WORDS=(screens-pipe r); COMP_CWORD=1; COMP_LINE="screens-pipe r"; COMP_POINT=${#COMP_LINE};
  "$fn" screens-pipe r screens-pipe; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" 2>/dev/null || true)
echo "$words" | grep -qx 'run' || fail "the bash completion does not offer 'run' for 'screens-pipe r' (got: $(echo $words))"
if command -v zsh >/dev/null; then zsh -n "$prefix/share/zsh/site-functions/_screens-pipe" || fail "zsh completion syntax"; fi
if command -v fish >/dev/null; then fish -n "$prefix/share/fish/vendor_completions.d/screens-pipe.fish" || fail "fish completion syntax"; fi

echo "test-install: make install PREFIX=<tmp> ran, its binary wrote $rows rows, man -l shows the page, the bash completion loads"
