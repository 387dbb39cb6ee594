# cortex-tui: every target a developer or CI needs. `make run` and `make test` are all a new
# machine needs; tools beyond the Go toolchain are installed into .tools/ by the targets that use them.

BIN        := bin/cortex-tui
GO         ?= go
TOOLS      := $(CURDIR)/.tools
STATICCHECK_VERSION := v0.8.2
FREEZE_VERSION      := v0.2.2
SCENARIO   ?= black-friday
# Packages that must stay free of any UI library (Charm, ntcharts).
CORE_PKGS  := ./engine/... ./model/... ./sim/... ./strategy/... ./scenarios/... ./source/... ./internal/load/... ./lesson/... ./fleet/... ./tune/...
# The libraries a Go service adopts: no UI library either; and only cortexgrpc links gRPC.
ADOPT_PKGS := ./cortexhttp/... ./cortexgrpc/... ./priority/... ./internal/driver/...

.PHONY: all build run test fmt-check vet check-imports unit bench lint golden screenshots class-screenshots plots bench-table oracle-table speed-table engine-speed-table engine-table tune-table fleet-sizing live-vs-sim hostile-rss hostile-soak clean

all: build

# The version --version prints: git's description of the checkout, stamped at link time, so a
# build with -buildvcs=false (GOFLAGS may set it) still names its commit; "" outside a checkout
# (then --version reads the build info, or says "dev (no VCS info)").
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null)

build:
	$(GO) build $(if $(VERSION),-ldflags "-X github.com/cortex-tui/cortex-tui/cli.Version=$(VERSION)") -o $(BIN) .

run: build
	./$(BIN) run --scenario $(SCENARIO)

test: fmt-check vet check-imports unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The engine may import the standard library only; the core packages and the adoptable
# libraries nothing from a UI library, and none but cortexgrpc anything from gRPC; the simulator
# and package source nothing that words or prints their data.
check-imports:
	@bad=$$($(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./engine/... | grep -v '^github.com/cortex-tui/cortex-tui/engine' || true); \
	if [ -n "$$bad" ]; then echo "engine imports non-standard packages:"; echo "$$bad"; exit 1; fi
	@bad=$$($(GO) list -deps -f '{{.ImportPath}}' $(CORE_PKGS) $(ADOPT_PKGS) | grep -E 'charmbracelet|NimbleMarkets|muesli|lipgloss' || true); \
	if [ -n "$$bad" ]; then echo "core packages import UI libraries:"; echo "$$bad"; exit 1; fi
	@bad=$$($(GO) list -deps -f '{{.ImportPath}}' $(CORE_PKGS) ./cortexhttp/... ./priority/... ./internal/driver/... | grep -E '^google.golang.org/(grpc|protobuf|genproto)' || true); \
	if [ -n "$$bad" ]; then echo "only cortexgrpc may import gRPC (the simulator and cortexhttp's users do not link it), but:"; echo "$$bad" | head -5; exit 1; fi
	@bad=$$($(GO) list -deps ./sim/... ./source/... ./model/... | grep -E '/cortex-tui/(report|tui|cli|keymap)$$' || true); \
	if [ -n "$$bad" ]; then echo "the simulator and source emit data only, but import:"; echo "$$bad"; exit 1; fi
	@echo "check-imports: ok"

# Tests that step whole simulated runs on one goroutine skip themselves under the race
# detector, which has no concurrency to check there and makes them about twenty times slower
# (internal/racedetect.SkipWholeRuns: the oracle's bound, the stories' claims, the simulator's
# and the strategies' whole-run invariants, ...); the second pass runs them, and only them,
# without it: WHOLE_RUNS are the tests whose body calls SkipWholeRuns, found in the test files
# themselves, so that a new one cannot be left out. A package's tests may take 30 minutes under
# the race detector: sim's and tui's took more than go test's default 10 on the 2-core machine
# at a load average of 20.
WHOLE_RUN_FILES := $(shell git ls-files '*_test.go' 2>/dev/null | xargs grep -l 'racedetect[.]SkipWholeRuns' 2>/dev/null)
WHOLE_RUNS      := $(shell awk '/^func (Test|Fuzz)/ { n = $$2; sub(/[^A-Za-z0-9_].*/, "", n) } /racedetect[.]SkipWholeRuns/ { print n }' $(WHOLE_RUN_FILES) /dev/null | sort -u | paste -sd'|')
WHOLE_RUN_PKGS  := $(sort $(addprefix ./,$(dir $(WHOLE_RUN_FILES))))
# The race runtime sleeps atexit_sleep_ms (1 s by default) as each test binary exits, for a race in
# a goroutine still running once main returns: with 52 test binaries, two at a time, that is about
# 26 s of make test's wall time spent asleep. A test's own races fail that test when they happen
# (the testing package checks after each one); what the sleep adds is a race in a goroutine that
# outlives the package's last test, a leak, which the packages of real concurrency check for
# themselves (goleak, waittest.Main: cli, live/..., serve, fleet/..., cortexgrpc, cortexhttp, tui).
# A GORACE of the caller's comes after, so that its atexit_sleep_ms wins.
RACE_ENV := GORACE="atexit_sleep_ms=0 $${GORACE:-}"
# go test's own vet (a subset of go vet's analyzers, run again in each pass) is off when make
# test (or make vet unit) runs: its vet target vets the same packages, test files included, with
# every analyzer.
UNIT_VET := $(if $(filter test vet,$(MAKECMDGOALS)),-vet=off)
unit:
	$(RACE_ENV) $(GO) test -race -count=1 -timeout 30m $(UNIT_VET) ./...
	@test -n '$(WHOLE_RUNS)' || { echo "unit: no test calls racedetect.SkipWholeRuns: the second pass would run nothing"; exit 1; }
	$(GO) test -count=1 -timeout 30m $(UNIT_VET) -run '^($(WHOLE_RUNS))$$' $(WHOLE_RUN_PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@test -x $(TOOLS)/staticcheck || GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(TOOLS)/staticcheck ./...

# Regenerate the TUI golden files: the packages of ./tui/... whose tests import the golden
# helper (go test -update fails in a package whose tests do not define the flag).
golden:
	$(GO) test $$($(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./tui/... | grep 'x/exp/golden' | cut -d' ' -f1) -update

# Screenshots for the README: the dashboard in tmux at a fixed size on $(SCENARIO), captured with
# its colours (tmux capture-pane -e), drawn by charmbracelet/freeze (installed into a temporary
# GOBIN, never added to go.mod), each glyph pinned to its terminal cell by tui/internal/cellsvg
# (a glyph the font lacks would shift its line; freeze also ignores "default background", so it
# is replaced by freeze's own background colour first), converted by rsvg-convert. Needs tmux, rsvg-convert (Debian:
# librsvg2-bin) and a monospace font (SHOT_FONT). Writes docs/dashboard.png and docs/compare.png.
SHOT_W    ?= 140
SHOT_H    ?= 40
SHOT_FONT ?= DejaVu Sans Mono
screenshots: build
	@command -v tmux >/dev/null || { echo "screenshots: tmux is required"; exit 1; }
	@command -v rsvg-convert >/dev/null || { echo "screenshots: rsvg-convert is required (Debian: librsvg2-bin)"; exit 1; }
	@set -e; tmp=$$(mktemp -d); s=cortex-shot-$$$$; \
	trap 'tmux kill-session -t '$$s' 2>/dev/null || true; rm -rf "'$$tmp'"' EXIT; \
	GOBIN=$$tmp $(GO) install github.com/charmbracelet/freeze@$(FREEZE_VERSION); \
	$(GO) build -o $$tmp/cellsvg ./tui/internal/cellsvg; \
	tmux new-session -d -s $$s -x $(SHOT_W) -y $(SHOT_H) "cd $$tmp && $(CURDIR)/$(BIN) run --scenario $(SCENARIO)"; \
	sleep 1; tmux send-keys -t $$s -l '+++'; sleep 11; tmux send-keys -t $$s space; sleep 1; \
	tmux capture-pane -t $$s -e -p > $$tmp/dashboard.ansi; \
	tmux send-keys -t $$s space; tmux send-keys -t $$s -l c; sleep 13; tmux send-keys -t $$s space; sleep 1; \
	tmux capture-pane -t $$s -e -p > $$tmp/compare.ansi; \
	tmux send-keys -t $$s -l q; \
	$(call shots_png,dashboard compare)

# shots_png NAMES: docs/NAME.png from each $$tmp/NAME.ansi (tmux capture-pane -e), with the
# freeze and cellsvg the recipe installed into $$tmp (screenshots, class-screenshots).
shots_png = esc=$$(printf '\033'); \
	for shot in $(1); do \
		sed "s/$$esc\[49m/$$esc[48;2;23;23;23m/g" $$tmp/$$shot.ansi > $$tmp/$$shot.bg.ansi; \
		$$tmp/freeze $$tmp/$$shot.bg.ansi -o $$tmp/$$shot.svg --window=false --font.family "$(SHOT_FONT)" >/dev/null; \
		$$tmp/cellsvg -cell 8.333 < $$tmp/$$shot.svg > $$tmp/$$shot.cells.svg; \
		rsvg-convert -z 2 $$tmp/$$shot.cells.svg -o docs/$$shot.png; \
		echo "wrote docs/$$shot.png"; \
	done

# The README's pictures of a class (Teach a class): cortex-tui serve --class on a free loopback
# port, the teacher and three students (alice, bob, carol) connected with OpenSSH's ssh, each in
# tmux at SHOT_W x SHOT_H, keys made for them in a temporary directory. The teacher opens
# black-friday at x2, bob forks the class run, the teacher pauses at about 50 s; the teacher's
# screen and alice's (following) are captured and drawn as screenshots draws the dashboard.
# Needs ssh and ssh-keygen (Debian: openssh-client) besides what screenshots needs. Writes
# docs/class-teacher.png and docs/class-student.png.
class-screenshots: build
	@for c in tmux rsvg-convert ssh ssh-keygen; do command -v $$c >/dev/null || { echo "class-screenshots: $$c is required"; exit 1; }; done
	@set -e; tmp=$$(mktemp -d); s=cortex-class-$$$$; srv=; \
	trap 'for u in teacher alice bob carol; do tmux kill-session -t '$$s'-$$u 2>/dev/null || true; done; \
		[ -z "$$srv" ] || kill $$srv 2>/dev/null || true; rm -rf "'$$tmp'"' EXIT; \
	GOBIN=$$tmp $(GO) install github.com/charmbracelet/freeze@$(FREEZE_VERSION); \
	$(GO) build -o $$tmp/cellsvg ./tui/internal/cellsvg; \
	for u in teacher alice bob carol; do ssh-keygen -q -t ed25519 -N '' -C $$u -f $$tmp/$$u; done; \
	$(CURDIR)/$(BIN) serve --class --teacher-key $$tmp/teacher.pub --addr 127.0.0.1:0 --data $$tmp/data 2>$$tmp/serve.log & srv=$$!; \
	for i in $$(seq 100); do grep -q 'listening on' $$tmp/serve.log && break; sleep 0.1; done; \
	port=$$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' $$tmp/serve.log); \
	[ -n "$$port" ] || { cat $$tmp/serve.log; exit 1; }; \
	for u in teacher alice bob carol; do \
		tmux new-session -d -s $$s-$$u -x $(SHOT_W) -y $(SHOT_H) "ssh -p $$port -i $$tmp/$$u -o IdentitiesOnly=yes \
			-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o SetEnv=COLORTERM=truecolor $$u@127.0.0.1"; \
	done; \
	sleep 3; tmux send-keys -t $$s-teacher Enter; sleep 1; tmux send-keys -t $$s-teacher -l '+'; sleep 12; \
	tmux send-keys -t $$s-bob -l F; sleep 14; tmux send-keys -t $$s-teacher space; sleep 2; \
	tmux capture-pane -t $$s-teacher -e -p > $$tmp/class-teacher.ansi; \
	tmux capture-pane -t $$s-alice -e -p > $$tmp/class-student.ansi; \
	$(call shots_png,class-teacher class-student)

# The benchmark tables in README.md and docs/engine.md, as printed by the program itself: every
# scenario x every strategy as a matrix of success rates (between the matrix:start and matrix:end
# markers of README.md), the seed scenarios with every strategy in full, each cell the mean over
# seeds 1-10 with its min-max (bench:start and bench:end), and CORTEX against the targets over
# the built-in scenarios, seeds 1-10 (targets:start and targets:end, in both files) and over the
# held-out scenarios of testdata/heldout, seeds 11-30 (heldout:start and heldout:end, in
# docs/engine.md).
SEED_SCENARIOS := black-friday,dns-crash,food-delivery,upi-salary-day,article-benchmark
BENCH_SEEDS    := 1-10
HELDOUT_SEEDS  := 11-30
comma := ,
empty :=
space := $(empty) $(empty)
HELDOUT        := $(subst $(space),$(comma),$(sort $(wildcard testdata/heldout/*.toml)))
# fill FILE: replaces what is between each NAME:start and NAME:end marker of FILE with .bench-NAME.md.
fill = awk '/<!-- (matrix|bench|targets|heldout):start -->/ { print; n = $$0; sub(/.*<!-- /, "", n); sub(/:start.*/, "", n); f = ".bench-" n ".md"; \
	       while ((getline line < f) > 0) print line; close(f); skip = 1; next } \
	     /<!-- (matrix|bench|targets|heldout):end -->/ { skip = 0 } !skip' $(1) > $(1).tmp && mv $(1).tmp $(1)

# The README's picture of a run's charts: black-friday under cortex, naive and backoff on one
# chart, drawn by run --headless --plot (package plots, gonum's plot).
plots: build
	@./$(BIN) run --scenario black-friday --headless --plot docs/plot.png --plot-with naive,backoff --format table > /dev/null

bench-table: build
	@./$(BIN) bench --seeds $(BENCH_SEEDS) --format matrix > .bench-matrix.md
	@./$(BIN) bench --scenario $(SEED_SCENARIOS) --seeds $(BENCH_SEEDS) --format markdown > .bench-bench.md
	@./$(BIN) bench --seeds $(BENCH_SEEDS) --format targets > .bench-targets.md
	@./$(BIN) bench --scenario-file $(HELDOUT) --seeds $(HELDOUT_SEEDS) --format targets > .bench-heldout.md
	@$(call fill,README.md)
	@$(call fill,docs/engine.md)
	@rm -f .bench-matrix.md .bench-bench.md .bench-targets.md .bench-heldout.md
	@echo "README.md, docs/engine.md: benchmark tables regenerated"

# The table of docs/engine.md's "What a client cannot know": cortex against the oracle and the
# oracle with each piece of omniscience a client cannot have removed (sim.OracleWithout), every
# built-in open-loop scenario, means over seeds 1-10 (between oracle-knowledge:start and :end).
oracle-table: build
	@./$(BIN) bench --strategy cortex --seeds $(BENCH_SEEDS) --format knowledge > .oracle-table.md
	@awk '/<!-- oracle-knowledge:start -->/ { print; while ((getline line < ".oracle-table.md") > 0) print line; skip = 1; next } \
	     /<!-- oracle-knowledge:end -->/ { skip = 0 } !skip' docs/engine.md > docs/engine.md.tmp
	@mv docs/engine.md.tmp docs/engine.md; rm -f .oracle-table.md
	@echo "docs/engine.md: the table of what a client cannot know regenerated"

# The simulator's speed in docs/simulator.md, as the program measures it: sim's BenchmarkRun
# (every strategy's storm run alternating with none's, SPEED_RUNS iterations each: attempts and
# arrivals per CPU-second, each with its ratio to none's in the same iterations) writes the table, then GNU
# time times bench --seeds 1-10 over everything (wall and user CPU, with the load average). Run it
# on a quiet machine: the load is printed with the figures. Needs /usr/bin/time.
SPEED_RUNS ?= 8
speed-table: build
	@command -v /usr/bin/time >/dev/null || { echo "speed-table: GNU time (/usr/bin/time) is required"; exit 1; }
	@$(GO) test -c -o .sim.test ./sim
	@SPEED_TABLE_OUT=$(CURDIR)/.speed-table.md ./.sim.test -test.run '^$$' -test.bench 'Run$$' -test.benchtime $(SPEED_RUNS)x > /dev/null
	@load=$$(cut -d' ' -f1 /proc/loadavg); \
	/usr/bin/time -f '%e %U' -o .speed-bench.txt ./$(BIN) bench --seeds 1-10 --format json > /dev/null; \
	read wall user < .speed-bench.txt; \
	printf '\n`bench --seeds 1-10 --format json` (every built-in scenario x every strategy x seeds 1-10, on every core): %s s wall, %s s user CPU; load average %s before, %s after.\n' \
		"$$wall" "$$user" "$$load" "$$(cut -d' ' -f1 /proc/loadavg)" >> .speed-table.md
	@awk '/<!-- speed:start -->/ { print; while ((getline line < ".speed-table.md") > 0) print line; skip = 1; next } \
	     /<!-- speed:end -->/ { skip = 0 } !skip' docs/simulator.md > docs/simulator.md.tmp
	@mv docs/simulator.md.tmp docs/simulator.md; rm -f .speed-table.md .speed-bench.txt .sim.test
	@echo "docs/simulator.md: the speed table regenerated"

# The table of the engine's speed in docs/engine.md (between engine-speed:start and :end):
# every benchmark of package engine, ENGINE_SPEED_RUNS runs each (-count), their median and
# range (internal/benchtable), the decision cycle's ratio to gobreaker's Execute, and the load
# average before and after. Measure on a quiet machine: the ratio is taken within each run, the
# nanoseconds are not.
ENGINE_SPEED_RUNS ?= 3
engine-speed-table:
	@load=$$(cut -d' ' -f1 /proc/loadavg); \
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 200ms -count $(ENGINE_SPEED_RUNS) ./engine > .engine-speed.txt; \
	$(GO) run ./internal/benchtable/cmd x-gobreaker cortex-ns/cycle gobreaker-ns/cycle < .engine-speed.txt > .engine-speed.md; \
	printf '\n`make engine-speed-table`: `go test -bench . -benchmem -benchtime 200ms -count %s ./engine`, GOMAXPROCS %s; load average %s before, %s after.\n' \
		"$(ENGINE_SPEED_RUNS)" "$$(nproc)" "$$load" "$$(cut -d' ' -f1 /proc/loadavg)" >> .engine-speed.md
	@awk '/<!-- engine-speed:start -->/ { print; while ((getline line < ".engine-speed.md") > 0) print line; skip = 1; next } \
	     /<!-- engine-speed:end -->/ { skip = 0 } !skip' docs/engine.md > docs/engine.md.tmp
	@mv docs/engine.md.tmp docs/engine.md; rm -f .engine-speed.txt .engine-speed.md
	@echo "docs/engine.md: the table of the engine's speed regenerated"

# The table of cortex.toml's keys in docs/engine.md (defaults, the article's values, units and
# ranges), from the program: cortex-tui engine --markdown.
engine-table: build
	@./$(BIN) engine --markdown > .engine-table.md
	@awk '/<!-- engine-keys:start -->/ { print; while ((getline line < ".engine-table.md") > 0) print line; skip = 1; next } \
	     /<!-- engine-keys:end -->/ { skip = 0 } !skip' docs/engine.md > docs/engine.md.tmp
	@mv docs/engine.md.tmp docs/engine.md; rm -f .engine-table.md
	@echo "docs/engine.md: the table of cortex.toml's keys regenerated"

# The table of docs/tune.md: each built-in scenario tuned alone (training seeds 1-20, held-out
# 21-30), then the three TUNE_TOGETHER tuned together, each search bounded by TUNE_EVALS
# evaluations (--evals, --time 0) rather than by wall time, so that the table is the same on any
# machine however loaded (the same --seed, the same search); each row states the CPU time and the
# evaluations per CPU-second, and the line under the table the run's wall and CPU time with the
# load average. TUNE_TOGETHER are three scenarios that each gain when tuned alone, so that one
# file can hold on all three. Needs /usr/bin/time.
TUNE_TOGETHER ?= black-friday,spotty-network,slow-ledger
TUNE_EVALS ?= 112
tune-table: build
	@command -v /usr/bin/time >/dev/null || { echo "tune-table: GNU time (/usr/bin/time) is required"; exit 1; }
	@rm -f .tune-rows.md; load=$$(cut -d' ' -f1 /proc/loadavg); start=$$(date +%s); \
	for s in $$(ls scenarios/builtin | sed 's/\.toml$$//'); do \
	  echo "tune-table: $$s" >&2; \
	  ./$(BIN) tune --scenario $$s --evals $(TUNE_EVALS) --time 0 --format markdown --out .tune-$$s.toml >> .tune-rows.md 2>/dev/null; \
	done; rm -f .tune-*.toml; \
	awk 'NR <= 2 || !/^\| scenario \||^\|---/' .tune-rows.md > .tune-table.md; \
	printf '\n`make tune-table` (`--evals %s --time 0` each): %s s wall for the %s scenarios on this 2-core machine; load average %s before, %s after.\n' \
		"$(TUNE_EVALS)" "$$(( $$(date +%s) - start ))" "$$(ls scenarios/builtin | wc -l)" "$$load" "$$(cut -d' ' -f1 /proc/loadavg)" >> .tune-table.md
	@echo "tune-table: $(TUNE_TOGETHER)" >&2; load=$$(cut -d' ' -f1 /proc/loadavg); \
	/usr/bin/time -f '%e' -o .tune-time.txt ./$(BIN) tune --scenario $(TUNE_TOGETHER) --evals $(TUNE_EVALS) --time 0 --format markdown --out .tune-together.toml > .tune-together.md 2>/dev/null; \
	rm -f .tune-together.toml; \
	printf '\n`--scenario %s --evals %s --time 0`: %s s wall; load average %s before, %s after.\n' \
		"$(TUNE_TOGETHER)" "$(TUNE_EVALS)" "$$(tail -1 .tune-time.txt)" "$$load" "$$(cut -d' ' -f1 /proc/loadavg)" >> .tune-together.md
	@awk '/<!-- tune-alone:start -->/ { print; while ((getline line < ".tune-table.md") > 0) print line; skip = 1; next } \
	     /<!-- tune-alone:end -->/ { skip = 0 } \
	     /<!-- tune-together:start -->/ { print; while ((getline line < ".tune-together.md") > 0) print line; skip = 1; next } \
	     /<!-- tune-together:end -->/ { skip = 0 } !skip' docs/tune.md > docs/tune.md.tmp
	@mv docs/tune.md.tmp docs/tune.md; rm -f .tune-rows.md .tune-table.md .tune-together.md .tune-time.txt
	@echo "docs/tune.md: the tables of tune's results regenerated"

# The fleet's sizing table in docs/live.md: BenchmarkFleetScale (fleet/redisstore) runs 10, 100
# and 500 members against one real redis-server for 10 s each (500 also at 100 ms and 500 ms
# intervals), FLEET_SCALE_RUNS times (default 3), and writes the medians' rows; then the
# simulator's shared-budget from 50 and 1,000 instances (bench --instances). Needs redis-server.
FLEET_SCALE_RUNS ?= 3
fleet-sizing: build
	@rm -f .fleet-sizing.md
	FLEET_SCALE_RUNS=$(FLEET_SCALE_RUNS) FLEET_SIZING_OUT=$(CURDIR)/.fleet-sizing.md \
		$(GO) test ./fleet/redisstore -run '^$$' -bench FleetScale -benchtime=1x -timeout 60m
	@./$(BIN) bench --scenario shared-budget --strategy cortex,budget --budget per-client,shared --instances 50,1000 --seeds 1-3 --format markdown > .fleet-instances.md
	@awk '/<!-- (sizing|instances):start -->/ { print; f = ($$0 ~ /sizing/) ? ".fleet-sizing.md" : ".fleet-instances.md"; \
	       while ((getline line < f) > 0) print line; skip = 1; next } \
	     /<!-- (sizing|instances):end -->/ { skip = 0 } !skip' docs/live.md > docs/live.md.tmp
	@mv docs/live.md.tmp docs/live.md; rm -f .fleet-sizing.md .fleet-instances.md
	@echo "docs/live.md: sizing tables regenerated"

# The simulator checked against live traffic: live/testdata/sim-vs-live.toml run in the
# simulator and live (real HTTP against the embedded target, in real time: 45 s per run), same
# seed, for each fault of LIVE_FAULTS (the file's outage, then the same file with that kind) and
# each strategy of LIVE_STRATEGIES: live --compare-sim --format markdown writes one row each of
# the table of README.md and docs/simulator.md (between live-vs-sim:start and :end), then the commit,
# the date and the load average before and after. Live runs are real time: run it on a quiet
# machine.
LIVE_STRATEGIES ?= naive cortex
LIVE_FAULTS     ?= outage blackhole
live-vs-sim: build
	@load=$$(cut -d' ' -f1 /proc/loadavg); rm -f .live-vs-sim.md; \
	for f in $(LIVE_FAULTS); do \
		sed 's/^kind = "outage"/kind = "'$$f'"/' live/testdata/sim-vs-live.toml > .sim-vs-live-$$f.toml; \
		for s in $(LIVE_STRATEGIES); do \
			./$(BIN) live --scenario-file .sim-vs-live-$$f.toml --strategy $$s --compare-sim --format markdown >> .live-vs-sim.md || exit 1; \
		done; rm -f .sim-vs-live-$$f.toml; \
	done; \
	awk '!seen[$$0]++' .live-vs-sim.md > .live-vs-sim.tmp && mv .live-vs-sim.tmp .live-vs-sim.md; \
	printf '\nMeasured at %s on %s, load average %s before, %s after.\n' \
		"$$(git describe --tags --always --dirty 2>/dev/null)" "$$(date -u '+%Y-%m-%d %H:%M UTC')" "$$load" "$$(cut -d' ' -f1 /proc/loadavg)" >> .live-vs-sim.md
	@for f in README.md docs/simulator.md; do \
		awk '/<!-- live-vs-sim:start -->/ { print; while ((getline line < ".live-vs-sim.md") > 0) print line; close(".live-vs-sim.md"); skip = 1; next } \
		     /<!-- live-vs-sim:end -->/ { skip = 0 } !skip' $$f > $$f.tmp && mv $$f.tmp $$f || exit 1; \
	done
	@cat .live-vs-sim.md; rm -f .live-vs-sim.md
	@echo "README.md, docs/simulator.md: the simulator against live traffic regenerated"

# GNU time's maximum RSS and wall time of `live --target` (black-friday at full scale, 15 s) against
# each misbehaving server of internal/hostile (HOSTILE: names, default every one; HOSTILE_BIN: the
# binary measured, default the one just built; HOSTILE_BEFORE: an older build measured first,
# side by side), one markdown row each. Needs /usr/bin/time.
HOSTILE        ?=
HOSTILE_BIN    ?= $(CURDIR)/$(BIN)
HOSTILE_BEFORE ?=
hostile-rss: build
	@test -x /usr/bin/time || { echo "hostile-rss: GNU time (/usr/bin/time) is required (Debian: time)"; exit 1; }
	@RSS_BEFORE=$(HOSTILE_BEFORE) internal/hostile/rss.sh $(HOSTILE_BIN) $(HOSTILE)

# A 300 s memory soak of `live --target` through six faults against `cortex-tui target`
# (live/testdata/soak-six-faults.toml): the resident set every 10 s, then GNU time's maximum.
hostile-soak: build
	@test -x /usr/bin/time || { echo "hostile-soak: GNU time (/usr/bin/time) is required (Debian: time)"; exit 1; }
	@internal/hostile/soak.sh $(HOSTILE_BIN)

clean:
	rm -rf bin .tools
