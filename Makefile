# screens-pipe — common tasks. `make demo` and `make test` work on a fresh clone (as root,
# or with sudo): they install the missing system libraries first.

SWIFT        ?= swift
DEB_PACKAGES := libcurl4-openssl-dev libyaml-dev libsqlite3-dev jq curl python3-jsonschema python3-yaml
BIN_DIR       = $(shell $(SWIFT) build --show-bin-path)
RELEASE_DIR   = $(shell $(SWIFT) build -c release --show-bin-path)

.PHONY: setup build release test demo docs bench fuzz soak clean

setup:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release

EMBED_SAMPLE  = samples/embed
EMBED_SCRATCH = $(EMBED_SAMPLE)/.build

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) build --package-path $(EMBED_SAMPLE) --scratch-path $(EMBED_SCRATCH)
	"$(EMBED_SCRATCH)/debug/embed-sample" pipelines/bookmarks.yaml | head -3
	SCREENS_PIPE_BIN="$(BIN_DIR)/screens-pipe" SCREENS_PIPE_EMBED_BIN="$(EMBED_SCRATCH)/debug/embed-sample" \
	  $(SWIFT) test --skip-build

demo: build
	@echo "# screens-pipe run pipelines/bookmarks.yaml  (the bundled sandbox portal, in-process)" >&2
	"$(BIN_DIR)/screens-pipe" run pipelines/bookmarks.yaml

# The DocC documentation (articles and API reference) of each library, as static sites
# under .build/docs/<Module>/ (open index.html through any static file server).
DOC_TARGETS = ScreensPipe ScreensBus ScreensPipeService ScreensPipeTesting
docs: setup
	@rm -rf .build/docs; mkdir -p .build/docs; for target in $(DOC_TARGETS); do \
	  $(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target $$target \
	    --output-path .build/docs/$$target --transform-for-static-hosting || exit 1; \
	done
	@echo "docs: .build/docs/{$$(echo $(DOC_TARGETS) | tr ' ' ',')}/index.html" >&2

# Release build, then screens-pipe vs a Python loop and curl|jq on the sandbox (BENCH_FLAGS=--quick: 100k rows).
bench: setup
	$(SWIFT) build -c release
	python3 scripts/bench.py --bin "$(RELEASE_DIR)" $(BENCH_FLAGS)

# libFuzzer on every parser of untrusted input (scripts/fuzz.sh lists them), FUZZ_SECONDS each (default 60).
fuzz: setup
	bash scripts/fuzz.sh

# The long fault soak (thousands of pages); `make test` runs the short one.
soak: setup
	$(SWIFT) build --build-tests
	SCREENS_PIPE_SOAK=1 SCREENS_PIPE_BIN="$(BIN_DIR)/screens-pipe" $(SWIFT) test --skip-build --filter Soak

clean:
	rm -rf .build
