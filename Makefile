# cortex-tui: every target a developer or CI needs. `make run` and `make test` are all a new
# machine needs; tools beyond the Go toolchain are installed into .tools/ by the targets that use them.

BIN        := bin/cortex-tui
GO         ?= go
TOOLS      := $(CURDIR)/.tools
STATICCHECK_VERSION := v0.8.2
FREEZE_VERSION      := v0.2.2
SCENARIO   ?= black-friday
# Packages that must stay free of any UI library (Charm, ntcharts).
CORE_PKGS  := ./engine/... ./sim/... ./strategy/... ./scenarios/... ./source/...

.PHONY: all build run test fmt-check vet check-imports unit bench lint golden screenshots bench-table clean

all: build

build:
	$(GO) build -o $(BIN) .

run: build
	./$(BIN) run --scenario $(SCENARIO)

test: fmt-check vet check-imports unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The engine may import the standard library only; the core packages nothing from a UI library.
check-imports:
	@bad=$$($(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./engine/... | grep -v '^github.com/cortex-tui/cortex-tui/engine' || true); \
	if [ -n "$$bad" ]; then echo "engine imports non-standard packages:"; echo "$$bad"; exit 1; fi
	@bad=$$($(GO) list -deps -f '{{.ImportPath}}' $(CORE_PKGS) | grep -E 'charmbracelet|NimbleMarkets|muesli|lipgloss' || true); \
	if [ -n "$$bad" ]; then echo "core packages import UI libraries:"; echo "$$bad"; exit 1; fi
	@echo "check-imports: ok"

unit:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@test -x $(TOOLS)/staticcheck || GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(TOOLS)/staticcheck ./...

# Regenerate the TUI golden files (only ./tui/... imports the golden helper).
golden:
	$(GO) test ./tui/... -update

# The benchmark table in README.md, as printed by the program itself.
bench-table: build
	./$(BIN) bench --format markdown

clean:
	rm -rf bin .tools
