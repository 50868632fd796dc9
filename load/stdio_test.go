package load_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/storecheck/storecheck/load"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// asStdio makes the test binary the reference server over stdio; tokenEnv carries its
// client's token.
const (
	asStdio  = "STORECHECK_LOAD_TEST_STDIO"
	tokenEnv = "STORECHECK_LOAD_TEST_TOKEN"
)

func TestMain(m *testing.M) {
	if os.Getenv(asStdio) == "1" {
		os.Exit(serveStdio())
	}
	os.Exit(m.Run())
}

// serveStdio serves the reference server over memstore on stdin and stdout, as the
// principal whose token is in tokenEnv (none: anonymous).
func serveStdio() int {
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	srv, err := server.New(server.Config{Legacy: st.Legacy(), Modern: st.Modern()})
	if err != nil {
		return 2
	}
	principal := ""
	for _, p := range principals {
		if p.Token == os.Getenv(tokenEnv) {
			principal = p.Name
		}
	}
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout, principal); err != nil {
		return 1
	}
	return 0
}

// TestStdioLoad: over stdio each client is a child of its own; the load runs and is
// judged as over HTTP.
func TestStdioLoad(t *testing.T) {
	t.Setenv(asStdio, "1")
	r, err := load.Run(t.Context(), load.Config{Exec: []string{os.Args[0]}, TokenEnv: tokenEnv, Principals: principals, Anonymous: true,
		Clients: 5, Tasks: 300, Duration: 3 * time.Second, Wait: 3 * time.Second, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range r.Violations {
		t.Errorf("the reference server over stdio: %s", v)
	}
	if !r.Passed() || r.Tasks < 100 {
		t.Errorf("the reference server over stdio: %d tasks ended, passed %v, errors %v; want at least 100 and a pass", r.Tasks, r.Passed(), r.Errors)
	}
}
