# Pipe: the two set-up commands are `make demo` and `make test` (README.md).
SWIFT ?= swift
PROJECT_KEY := $(shell printf %s "$(CURDIR)" | cksum | cut -d' ' -f1)
MAC_STATE ?= /tmp/pipe-mac-$(shell id -u)-$(PROJECT_KEY)/mac-1
# The demo host runs the example's tests for real (canned mode replays recorded results instead).
MAC_MODE ?= real
FORMAT_PATHS := Package.swift Sources Plugins Tests examples/reader-app examples/haptics-app

.PHONY: deps build release dist lint test demo mac-up mac-down bench clean

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

# The Swift runtime and Foundation linked in: the binaries run on a Linux machine without the toolchain, and each
# process starts in about 24 ms instead of 36 (`pipe --version`, docs/performance.md). Linked by the toolchain's
# lld: gold and GNU ld print glibc's link-time warning about a `mktemp` call inside Foundation's static library.
# `pipe --version` names the commit, whether the tree was dirty, and when it was built (read by Package.swift).
BUILD_INFO = PIPE_BUILD_COMMIT=$$(git rev-parse HEAD 2>/dev/null) \
	PIPE_BUILD_DIRTY=$$(git diff --quiet HEAD -- 2>/dev/null && echo 0 || echo 1) \
	PIPE_BUILD_DATE=$$(date -u +%Y-%m-%dT%H:%M:%SZ)
release: deps
	$(BUILD_INFO) $(SWIFT) build -c release --static-swift-stdlib -Xswiftc -use-ld=lld

# The release tarball and .deb (docs/operations.md); lintian checks the .deb (its kept warnings: packaging/debian).
dist: release
	scripts/package --binary .build/release/pipe --out dist
	lintian --fail-on error,warning dist/pipe_$$(cat VERSION)_$$(dpkg --print-architecture).deb

lint:
	@out=$$($(SWIFT) format lint --strict -r $(FORMAT_PATHS) 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; echo "swift format lint: fix the findings above (swift format format -i -r <path>)"; exit 1; fi

# The whole suite. Compiler warnings are errors (Package.swift), and so are formatting findings.
test: deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Starts the emulated Mac host (idempotent) and writes the default hosts file .pipe/hosts.yml.
mac-up: release
	@scripts/mac-host up --state "$(MAC_STATE)" --mode $(MAC_MODE) --emulator .build/release/pipe-mac-emulator \
		--hosts-file .pipe/hosts.yml >/dev/null
	@echo "emulated Mac host running ($(MAC_MODE) mode, state $(MAC_STATE)); hosts file: .pipe/hosts.yml"

mac-down:
	@scripts/mac-host down --state "$(MAC_STATE)"

demo: mac-up
	.build/release/pipe run pipelines/app-intents.yml

# Not part of `make test`: each script prints its figures beside the targets and exits 1 when one is missed.
bench: release
	@status=0; bench/run || status=1; bench/wan || status=1; bench/chatops-latency || status=1; bench/controller || status=1; bench/layers || status=1; bench/forge-intake || status=1; bench/warm-builds || status=1; exit $$status

clean:
	$(SWIFT) package clean
