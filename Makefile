# storecheck. `make test` is the README's test command and what .ci/run calls.
GO ?= go

.PHONY: test check race vet fmt bench env

# Every test: units, the battery against every adapter (Postgres and Redis in containers).
test: vet
	$(GO) test -race -count=1 -timeout 40m ./...

# The main job: the battery against the embedded in-memory store, no services needed.
check:
	$(GO) run ./cmd/storecheck

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1)

fmt:
	gofmt -w $$(git ls-files '*.go')
