# screens-pipe — common tasks. `make demo` and `make test` work on a fresh clone (as root,
# or with sudo): they install the missing system libraries first.

SWIFT        ?= swift
DEB_PACKAGES := libcurl4-openssl-dev libyaml-dev libsqlite3-dev jq curl python3 python3-jsonschema python3-yaml postgresql \
                tinyproxy nginx-light openssl man-db
BIN_DIR       = $(shell $(SWIFT) build --show-bin-path)
RELEASE_DIR   = $(shell $(SWIFT) build -c release --show-bin-path)

.PHONY: setup build release test test-otlp demo docs bench bench-postgres fuzz soak clean install

setup:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

OTLP_VENV     = .build/otlp-venv
OTLP_PYTHON   = $(OTLP_VENV)/bin/python3

# The OTLP receiver of `make test-otlp` decodes with PyPI's opentelemetry-proto, in a venv of
# its own: made only for that target, so `setup` (and `make test`) never reach for PyPI.
$(OTLP_PYTHON):
	@dpkg-query -W -f='$${Status}' python3-venv 2>/dev/null | grep -q "install ok installed" \
	  || { if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	       $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv; }
	@# A venv whose install failed is removed, so the next run tries again.
	python3 -m venv $(OTLP_VENV) && $(OTLP_VENV)/bin/pip install -q opentelemetry-proto || { rm -rf $(OTLP_VENV); exit 1; }

# The OTLP build (`--traits OTLP`) has a build directory of its own, so that switching
# between it and the default build rebuilds neither.
OTLP_SCRATCH  = .build-otlp

# Package traits to build with: `make build TRAITS=OTLP` adds the OTLP span export
# (swift-otel), which the default build leaves out.
TRAITS ?=
TRAIT_FLAGS = $(if $(TRAITS),--traits $(TRAITS))

build: setup
	$(SWIFT) build $(TRAIT_FLAGS)

release: setup
	$(SWIFT) build -c release $(TRAIT_FLAGS)

# The embed sample (samples/embed) builds as an example target of this package, sharing
# its build of every dependency; samples/embed/Package.swift shows the same code as a
# package of its own. Every test is a Swift Testing test: --disable-xctest leaves out the
# empty XCTest run and its "Executed 0 tests" lines.
# Every run of the tests caches in a directory of its own, removed afterwards: nothing a test
# starts (the embed sample, the binary, the library in process) may touch the user's cache.
# The PostgreSQL tests use a throwaway cluster (scripts/pg-test-cluster.sh), always removed;
# where none can start they are skipped, and the last line says how many. The proxy and TLS
# tests use tinyproxy and nginx the same way (scripts/net-test-servers.sh), skipped and
# counted where they cannot start. A file of the
# user's own cache changed during the run fails it. A failed run ends by repeating the failed
# tests and their issues, so the last lines of a long log name them.
test: setup
	$(SWIFT) build --build-tests
	@cache=$$(mktemp -d); touch "$$cache/started"; eval "$$(scripts/pg-test-cluster.sh start)"; \
	  eval "$$(scripts/net-test-servers.sh start)"; \
	  trap 'rm -rf "$$cache"; scripts/pg-test-cluster.sh stop "$${SCREENS_PIPE_TEST_POSTGRES_DIR:-}"; scripts/net-test-servers.sh stop "$${SCREENS_PIPE_TEST_NET_DIR:-}"' EXIT; set -e; \
	  export SCREENS_PIPE_CACHE_DIR="$$cache/default" SCREENS_PIPE_TEST_CACHE_DIR="$$cache/tests"; \
	  mkdir "$$cache/tmp"; export TMPDIR="$$cache/tmp"; \
	  "$(BIN_DIR)/embed-sample" pipelines/bookmarks.yaml | head -3; \
	  { SCREENS_PIPE_BIN="$(BIN_DIR)/screens-pipe" SCREENS_PIPE_EMBED_BIN="$(BIN_DIR)/embed-sample" \
	    $(SWIFT) test --skip-build --disable-xctest && echo 0 > "$$cache/status" || echo $$? > "$$cache/status"; } 2>&1 | tee "$$cache/test.log"; \
	  status=$$(cat "$$cache/status"); \
	  if [ "$$status" != 0 ]; then echo "FAILED tests (every issue recorded above, repeated here):" >&2; \
	    grep -a -A4 -E '✘ .*(recorded an issue|failed after)' "$$cache/test.log" | head -80 >&2; fi; \
	  skipped=$$(grep -ac 'Test .* skipped: .*needs PostgreSQL' "$$cache/test.log" || true); \
	  if [ -z "$${SCREENS_PIPE_TEST_POSTGRES_URL:-}" ]; then \
	    echo "WARNING: no PostgreSQL server: $$skipped PostgreSQL tests were SKIPPED (see 'needs PostgreSQL' above)" >&2; fi; \
	  netskipped=$$(grep -ac 'Test .* skipped: .*needs the network test servers' "$$cache/test.log" || true); \
	  if [ -z "$${SCREENS_PIPE_TEST_NGINX_URL:-}" ] || [ -z "$${SCREENS_PIPE_TEST_PROXY_URL:-}" ]; then \
	    echo "WARNING: no tinyproxy/nginx: $$netskipped proxy and TLS tests were SKIPPED (see 'needs the network test servers' above)" >&2; fi; \
	  touched=$$(find "$${XDG_CACHE_HOME:-$$HOME/.cache}/screens-pipe" -newer "$$cache/started" 2>/dev/null | head -3); \
	  if [ -n "$$touched" ]; then echo "FAILED: the tests wrote into the user's cache: $$touched" >&2; exit 1; fi; \
	  exit $$status
	@scripts/test-install.sh

# The OTLP export against a real receiver: screens-pipe built with the OTLP trait, run under
# scripts/otlp_receiver.py (which decodes the export with opentelemetry-proto), checked by the
# OTLPExportTests (span tree, attributes, no secret). `make test` leaves these tests skipped.
test-otlp: setup $(OTLP_PYTHON)
	$(SWIFT) build --traits OTLP --scratch-path $(OTLP_SCRATCH) --product screens-pipe
	$(SWIFT) build --build-tests
	@cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	  export SCREENS_PIPE_CACHE_DIR="$$cache/default" SCREENS_PIPE_TEST_CACHE_DIR="$$cache/tests"; \
	  SCREENS_PIPE_OTLP_BIN="$$($(SWIFT) build --scratch-path $(OTLP_SCRATCH) --show-bin-path)/screens-pipe" \
	  SCREENS_PIPE_OTLP_PYTHON="$(OTLP_PYTHON)" $(SWIFT) test --skip-build --disable-xctest --filter OTLPExportTests

# Any sample runs the same way: make demo DEMO=pipelines/bookmark-folder-tree.yaml
# The demo caches in a directory of its own, removed afterwards: the in-process sandbox's
# pages have no place in the user's cache.
DEMO ?= pipelines/bookmarks.yaml
# A pipeline that writes to a portal (sink type liferay) runs with `write`, its rejects file
# in that directory too.
demo: build
	@cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	  if grep -qE '^[[:space:]]+type:[[:space:]]*liferay[[:space:]]*(#.*)?$$' $(DEMO); then \
	    echo "# screens-pipe write $(DEMO)  (the bundled sandbox portal, in-process)" >&2; \
	    SCREENS_PIPE_CACHE_DIR="$$cache" "$(BIN_DIR)/screens-pipe" write $(DEMO) --rejects "$$cache/rejects.jsonl"; \
	  else \
	    echo "# screens-pipe run $(DEMO)  (the bundled sandbox portal, in-process)" >&2; \
	    SCREENS_PIPE_CACHE_DIR="$$cache" "$(BIN_DIR)/screens-pipe" run $(DEMO); \
	  fi

# The DocC documentation (articles and API reference) of each library, as static sites
# under .build/docs/<Module>/ (open index.html through any static file server).
DOC_TARGETS = ScreensJSON ScreensBus ScreensPipeCore ScreensPipeSQLite ScreensPipePostgres ScreensPipe Sandbox ScreensPipeSandbox ScreensPipeService ScreensPipeTesting ScreensPipeOTel screens-pipe
docs: setup
	@rm -rf .build/docs; mkdir -p .build/docs; for target in $(DOC_TARGETS); do \
	  $(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target $$target \
	    --output-path .build/docs/$$target --transform-for-static-hosting || exit 1; \
	done
	@echo "docs: .build/docs/{$$(echo $(DOC_TARGETS) | tr ' ' ',')}/index.html" >&2

# Release build, then screens-pipe vs a Python loop, dlt's RESTClient, curl alone and curl|jq on
# the sandbox: client CPU per 1M rows, peak RSS, cache, file source, prefetch (BENCH_FLAGS=--quick:
# 100k rows; BENCH_LARGE=1 adds 10M-row runs). dlt goes into .build/bench-venv from PyPI; without
# it (offline, or no python3-venv) its row says it was skipped.
bench: setup
	$(SWIFT) build -c release
	@test -x .build/bench-venv/bin/python3 || python3 -m venv .build/bench-venv >/dev/null 2>&1 || true
	@test ! -x .build/bench-venv/bin/pip || .build/bench-venv/bin/python3 -c 'import dlt' 2>/dev/null \
	  || .build/bench-venv/bin/pip install -q dlt >/dev/null 2>&1 || echo "bench: dlt could not be installed from PyPI" >&2
	python3 scripts/bench.py --bin "$(RELEASE_DIR)" --dlt-python .build/bench-venv/bin/python3 $(BENCH_FLAGS)

# Rows per second into PostgreSQL through the postgres sink (a throwaway cluster; BENCH_FLAGS=--rows N).
bench-postgres: setup
	$(SWIFT) build -c release --product screens-pipe
	bash scripts/bench_postgres_sink.sh --bin "$(RELEASE_DIR)" $(BENCH_FLAGS)

# libFuzzer on every parser of untrusted input (scripts/fuzz.sh lists them), FUZZ_SECONDS each (default 60).
fuzz: setup
	bash scripts/fuzz.sh

# The long fault soak (thousands of pages); `make test` runs the short one.
soak: setup
	$(SWIFT) build --build-tests
	@cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	  export SCREENS_PIPE_CACHE_DIR="$$cache/default" SCREENS_PIPE_TEST_CACHE_DIR="$$cache/tests"; \
	  SCREENS_PIPE_SOAK=1 SCREENS_PIPE_BIN="$(BIN_DIR)/screens-pipe" $(SWIFT) test --skip-build --disable-xctest --filter Soak

# A release build installed under PREFIX: the binary with the sandbox's resource bundle
# beside it (where it looks for it), shell completions for bash, zsh and fish, and a man page.
# INSTALL_CONFIG=debug installs the debug build instead (what `make test` checks, fast).
PREFIX ?= /usr/local
INSTALL_CONFIG ?= release
INSTALL_DIR = $(shell $(SWIFT) build -c $(INSTALL_CONFIG) --show-bin-path)
install: setup
	$(SWIFT) build -c $(INSTALL_CONFIG) $(TRAIT_FLAGS)
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 0755 "$(INSTALL_DIR)/screens-pipe" "$(DESTDIR)$(PREFIX)/bin/screens-pipe"
	rm -rf "$(DESTDIR)$(PREFIX)/bin/screens-pipe_Sandbox.resources"
	cp -R "$(INSTALL_DIR)/screens-pipe_Sandbox.resources" "$(DESTDIR)$(PREFIX)/bin/"
	"$(INSTALL_DIR)/screens-pipe" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/screens-pipe"
	"$(INSTALL_DIR)/screens-pipe" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_screens-pipe"
	"$(INSTALL_DIR)/screens-pipe" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/screens-pipe.fish"
	$(SWIFT) package plugin --allow-writing-to-package-directory generate-manual --configuration $(INSTALL_CONFIG)
	install -m 0644 .build/plugins/GenerateManual/outputs/screens-pipe/screens-pipe.1 "$(DESTDIR)$(PREFIX)/share/man/man1/screens-pipe.1"
	@echo "installed screens-pipe under $(DESTDIR)$(PREFIX)" >&2

clean:
	rm -rf .build
