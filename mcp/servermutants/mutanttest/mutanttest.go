// Package mutanttest serves the reference MCP server with a deliberate defect on a
// loopback HTTP listener for the length of a test.
package mutanttest

import (
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/servermutants"
)

// Start serves server.New(cfg) with the defect of m on an httptest server; both are
// closed when the test ends. A defect that crashes the server closes the listener and
// every connection, as a process that died would. Its endpoint is the returned server's
// URL + "/mcp".
func Start(t testing.TB, cfg server.Config, m mutant.Mutant[servermutants.Build]) *httptest.Server {
	t.Helper()
	var hs *httptest.Server
	var once sync.Once
	die := func() {
		once.Do(func() {
			hs.Listener.Close()
			hs.CloseClientConnections()
		})
	}
	srv, err := server.New(m.Build.Configure(cfg, die))
	if err != nil {
		t.Fatal(err)
	}
	hs = httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs
}
