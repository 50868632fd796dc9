package cli

import (
	"strings"
	"testing"
)

// TestRedisAdaptersRegistered: both Redis adapters exist, take no argument, and refuse a
// malformed URL with an error naming the flag.
func TestRedisAdaptersRegistered(t *testing.T) {
	c := newApp(t.Context(), nil, nil)
	for _, name := range []string{"redis", "redis-cluster"} {
		if _, _, err := c.lookupAdapter(name); err != nil {
			t.Errorf("lookupAdapter(%q): %v", name, err)
		}
		if _, _, err := c.lookupAdapter(name + ":x"); err == nil {
			t.Errorf("lookupAdapter(%q): want an error, the adapter takes no argument", name+":x")
		}
	}
	if _, _, err := openRedis(t.Context(), "http://not-redis"); err == nil || !strings.Contains(err.Error(), "--redis-url") {
		t.Errorf("openRedis with an http URL: want an error naming --redis-url, got %v", err)
	}
	if _, _, err := openCluster(t.Context(), "http://not-redis"); err == nil || !strings.Contains(err.Error(), "--redis-cluster-url") {
		t.Errorf("openCluster with an http URL: want an error naming --redis-cluster-url, got %v", err)
	}
	opts, stop, err := openRedis(t.Context(), "redis://127.0.0.1:6399/2")
	if err != nil || stop != nil || opts.Addr != "127.0.0.1:6399" || opts.DB != 2 || !opts.ContextTimeoutEnabled {
		t.Errorf("openRedis(redis://127.0.0.1:6399/2) = %+v, stop %v, %v; want that address, db 2, context timeouts on, nothing to stop", opts, stop != nil, err)
	}
}
