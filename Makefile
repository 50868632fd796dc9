# storecheck. `make test` is the README's test command and what .ci/run calls.
GO ?= go

.PHONY: test test-faults mutants check race vet fmt bench bench-paging env node-deps compat dist

# The TypeScript SDK's pinned store (examples/typescript-sdk: npm ci from its lockfile),
# which the SDK profile's compatibility test runs. Without npm the test skips, except
# under CI=true, where it fails.
TS_SDK := examples/typescript-sdk
# The official MCP conformance suite (mcp/officialsuite), pinned the same way; its tasks
# scenarios run against storecheck's reference MCP server.
OFFICIAL := mcp/officialsuite
node-deps: $(TS_SDK)/node_modules/.package-lock.json $(OFFICIAL)/node_modules/.package-lock.json

# npm ci of the directory of the target's lockfile; without npm a skip, or a failure in CI.
%/node_modules/.package-lock.json: %/package.json %/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix $* --no-audit --no-fund; \
	elif [ "$$CI" = true ]; then \
		echo "node-deps: npm is missing; CI needs node 20 or later and npm"; exit 1; \
	else \
		echo "node-deps: npm is missing: the tests that need $* will skip"; \
	fi

# Every test: units, the battery against every adapter (Postgres and Redis in containers),
# the SDK profile against the TypeScript SDK's store (node-deps).
# The Redis Cluster failover check runs without -race (go-redis races in its own cluster
# state reload: see adapters/redisstore/clustertest/faults_test.go).
# go test shows nothing of a passing package's output, so the fault checks append one
# line per fault (acknowledged writes lost of those checked, every F-rule's outcome) to
# $STORECHECK_FAULTS_SUMMARY, printed at the end whether the tests passed or not.
# Packages tested without the race detector: River on SQLite, a C library translated to
# Go that the detector slows about tenfold; the same adapter code runs under the detector
# against Postgres (adapters/riverstore/postgrestest).
NORACE := github.com/storecheck/storecheck/adapters/riverstore

test: vet node-deps
	@sum=$$(mktemp); export STORECHECK_FAULTS_SUMMARY=$$sum; \
	echo "$(GO) test -race -count=1 -timeout 40m ./... (but $(NORACE))"; \
	$(GO) test -race -count=1 -timeout 40m $$($(GO) list ./... | grep -v -x -F '$(NORACE)'); code=$$?; \
	echo "$(GO) test -count=1 -timeout 20m $(NORACE)"; \
	$(GO) test -count=1 -timeout 20m $(NORACE) || code=1; \
	echo "$(GO) test -count=1 -timeout 10m -run 'TestFaultsFailover' ./adapters/redisstore/clustertest/"; \
	$(GO) test -count=1 -timeout 10m -run 'TestFaultsFailover' ./adapters/redisstore/clustertest/ || code=1; \
	echo "fault checks (docs/spec.md 5):"; cat $$sum; rm -f $$sum; exit $$code

# The mutant catalogue at full strength (B-POWER-1): every mutant against the whole
# battery, in process and over the wire, and the natural race mutants (killed only when
# the battery's racers land in their window) 20 times each in both.
# make test judges each mutant by the rules it breaks (storecheck mutants --declared).
mutants:
	@bin=$$(mktemp -d)/storecheck && $(GO) build -o $$bin ./cmd/storecheck && \
	$$bin mutants && $$bin mutants --wire && \
	$$bin mutants --runs 20 --natural-races && \
	$$bin mutants --wire --runs 20 --natural-races && \
	$$bin mutants --server

# The fault checks alone (also part of test): Postgres and Redis paused, killed and
# restarted, a Redis Cluster primary killed, and the fault mutants (Docker needed):
# TestFaults*, TestFaultMutantsAreKilled, TestFaultableConfig and the in-process
# TestRunHonestGate, TestMutantsKilledOnGate, TestJudge*.
FAULT_TESTS := Fault|MutantsKilledOnGate|HonestGate|Judge
test-faults:
	@sum=$$(mktemp); export STORECHECK_FAULTS_SUMMARY=$$sum; \
	echo "$(GO) test -count=1 -timeout 20m -run '$(FAULT_TESTS)' ..."; \
	$(GO) test -count=1 -timeout 20m -run '$(FAULT_TESTS)' ./adapters/postgres/ ./adapters/redisstore/ ./adapters/redisstore/rediscontainer/ ./adapters/redisstore/clustertest/ ./conformance/faults/ ./cli/; code=$$?; \
	echo "fault checks (docs/spec.md 5):"; cat $$sum; rm -f $$sum; exit $$code

# A release into dist/ (release/cmd/dist, docs/release.md): static binaries for linux,
# darwin and windows on amd64 and arm64, their archives and SHA256SUMS, the image
# (FROM scratch, no pull) and the npm packages with their npm pack tarballs. The same
# commit gives the same archives and sums; SOURCE_DATE_EPOCH, else the commit's time,
# dates their files. Without docker or npm their part is skipped, except under CI=true.
dist:
	$(GO) run ./release/cmd/dist -o dist

# The compatibility table (scripts/compat): every store's battery and every server's probe
# run again into docs/compatibility/reports (containers as make test starts them; about
# half an hour), then docs/compatibility.md and .json from them. make test only checks
# that the committed table is what the committed reports give.
compat: node-deps
	$(GO) run ./scripts/compat -refresh

# The main job: the battery against the embedded in-memory store, no services needed.
check:
	$(GO) run ./cmd/storecheck

# go vet, gofmt, and golangci-lint (.golangci.yml) pinned in tools/go.mod: go tool builds
# it from the module proxy on first use (a few minutes), then from the build cache.
vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1)
	$(GO) tool -modfile=tools/go.mod golangci-lint run ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

# Benchmarks (not part of test): every adapter against its baseline, measured in the same
# run (storecheck bench). Each adapter writes a table, benchstat input and an SVG chart to
# $(BENCH_OUT). An adapter whose backend cannot be brought up (no Docker) is skipped.
# Then the battery's own wall time, per adapter and per area (storecheck bench --battery),
# to battery-NAME.{table,txt}. Every table ends with the peak RSS of its run (which fails
# above 1 GiB) and the load average: numbers from a shared machine mean little without it.
BENCH_OUT ?= benchmarks/results
BENCH_ADAPTERS ?= memstore ets-like wire postgres redis redis-cluster river-sqlite river-postgres
BENCH_BATTERY ?= memstore postgres redis
BENCHTIME ?= 200ms
BENCHCOUNT ?= 5
BATTERYCOUNT ?= 3

bench: bench-paging
	@mkdir -p $(BENCH_OUT)
	@bin=$$(mktemp -d)/storecheck && $(GO) build -o $$bin ./cmd/storecheck && \
	for a in $(BENCH_ADAPTERS); do \
		$$bin bench --adapter $$a --benchtime $(BENCHTIME) --count $(BENCHCOUNT) \
			-o $(BENCH_OUT)/$$a.txt --svg $(BENCH_OUT)/$$a.svg > $(BENCH_OUT)/$$a.table 2> $(BENCH_OUT)/$$a.log; \
		code=$$?; cat $(BENCH_OUT)/$$a.table; echo; \
		if [ $$code -eq 2 ]; then echo "bench: $$a skipped: $$(tail -1 $(BENCH_OUT)/$$a.log)"; \
		elif [ $$code -ne 0 ]; then tail -5 $(BENCH_OUT)/$$a.log; rm -rf $$(dirname $$bin); exit $$code; fi; \
	done; \
	for a in $(BENCH_BATTERY); do \
		$$bin bench --battery --adapter $$a --count $(BATTERYCOUNT) \
			-o $(BENCH_OUT)/battery-$$a.txt > $(BENCH_OUT)/battery-$$a.table 2> $(BENCH_OUT)/battery-$$a.log; \
		code=$$?; cat $(BENCH_OUT)/battery-$$a.table; echo; \
		if [ $$code -eq 2 ]; then echo "bench: battery on $$a skipped: $$(tail -1 $(BENCH_OUT)/battery-$$a.log)"; \
		elif [ $$code -ne 0 ]; then tail -5 $(BENCH_OUT)/battery-$$a.log; rm -rf $$(dirname $$bin); exit $$code; fi; \
	done; rm -rf $$(dirname $$bin)

# The SDK profile's paging benchmark (also part of bench): list N = 1k..64k tasks of one
# session page by page through memstore's SDK store in process and over the wire, and the
# TypeScript SDK's store (node-deps) through --exec, to $(BENCH_OUT)/paging.{table,txt,svg}.
# The table's first lines say when, with what command and under what load it ran. The
# TypeScript store pages in O(tasks), so its 64k listing alone takes minutes: the budget
# is raised so that it is still listed (a listing over a sixth of it is not repeated).
PAGINGCOUNT ?= 3
PAGINGBUDGET ?= 6m
PAGING_CMD = bench --paging --paging-budget $(PAGINGBUDGET) --count $(PAGINGCOUNT) --exec 'node $(TS_SDK)/shim.mjs' \
	-o $(BENCH_OUT)/paging.txt --svg $(BENCH_OUT)/paging.svg

bench-paging: node-deps
	@mkdir -p $(BENCH_OUT)
	@bin=$$(mktemp -d)/storecheck && $(GO) build -o $$bin ./cmd/storecheck && \
	{ echo "# $$(date -u '+%Y-%m-%d %H:%M UTC'); storecheck $(PAGING_CMD)"; \
	  echo "# uptime at start: $$(uptime)"; echo; } > $(BENCH_OUT)/paging.table && \
	$$bin $(PAGING_CMD) >> $(BENCH_OUT)/paging.table 2> $(BENCH_OUT)/paging.log; \
	code=$$?; echo "# uptime at end: $$(uptime)" >> $(BENCH_OUT)/paging.table; \
	cat $(BENCH_OUT)/paging.table; rm -rf $$(dirname $$bin); \
	if [ $$code -ne 0 ]; then tail -5 $(BENCH_OUT)/paging.log; exit $$code; fi
