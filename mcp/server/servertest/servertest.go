// Package servertest serves the reference MCP server on a loopback HTTP listener for the
// length of a test.
package servertest

import (
	"net/http/httptest"
	"testing"

	"github.com/storecheck/storecheck/mcp/server"
)

// Start serves server.New(cfg) on an httptest server; both are closed when the test
// ends. Its endpoint is the returned server's URL + "/mcp".
func Start(t testing.TB, cfg server.Config) *httptest.Server {
	t.Helper()
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs
}
