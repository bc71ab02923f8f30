# politecrawl: build, test, benchmark and fuzz. `make test` is what CI runs.
GO        ?= go
BIN       ?= bin/politecrawl
FUZZTIME  ?= 10s
BENCHTIME ?= 1s
WARCIO    := crawler/archive/archivetest/warcio

.PHONY: all build test lint bench fuzz clean deps compare

all: build

VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/politecrawl

# The race detector is on for every package: most of them are concurrent.
# cmd/politecrawl runs after the others, not beside them: its end-to-end
# tests start crawls of several processes (cluster nodes, a NATS server),
# and that load beside the other packages' timing tests (gaps measured at
# loopback servers) made those fail on a 2-core machine.
test: lint
	$(GO) test -race -count=1 -timeout 10m $$($(GO) list ./... | grep -v '/cmd/politecrawl$$')
	$(GO) test -race -count=1 -timeout 10m ./cmd/politecrawl

lint:
	@unformatted=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# politecrawl and colly v2 crawl the same loopback test web in one process,
# alternately, and each prints pages/s (crawler/crawltest/collybench, a separate
# module: the product does not depend on colly). The default web is 50 hosts x
# 400 pages with 1 ms server latency; COMPARE_FLAGS="-pages 200 -latency 0" is
# BenchmarkCrawl's. `go run . -h` there lists the flags.
COMPARE_FLAGS ?=
compare:
	cd crawler/crawltest/collybench && $(GO) run . $(COMPARE_FLAGS)

# Runs every fuzz target (func FuzzXxx in a _test.go file) for FUZZTIME each.
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' .); do \
		dir=$$(dirname $$f); \
		for t in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | sed 's/^func //'); do \
			echo "== $$dir $$t ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$dir; \
		done; \
	done

# Installs what the WARC tests check our files with: Webrecorder's warcio.js
# (pinned in $(WARCIO)/package-lock.json) under $(WARCIO)/node_modules, beside
# crawler/archive/archivetest, the package that runs it.
# Needs node and npm (Debian: apt-get install nodejs npm). Without them the
# WARC cross-checks skip when run by hand; under CI=true they fail.
deps:
	@command -v node >/dev/null && command -v npm >/dev/null || \
		{ echo "make deps: node and npm are needed (Debian: apt-get install -y nodejs npm)"; exit 1; }
	cd $(WARCIO) && npm ci --no-audit --no-fund

clean:
	rm -rf bin
