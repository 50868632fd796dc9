package builtin

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/cli"
)

// TestRedisAdaptersRegistered: both Redis adapters exist, take no argument, and refuse a
// malformed URL with an error naming the flag.
func TestRedisAdaptersRegistered(t *testing.T) {
	var out bytes.Buffer
	cli.Run(t.Context(), []string{"help"}, &out, &out, Adapters())
	for _, name := range []string{"redis", "redis-cluster"} {
		if !strings.Contains(out.String(), "\n  "+name+" ") {
			t.Errorf("storecheck help does not list %s:\n%s", name, out.String())
		}
		var errOut bytes.Buffer
		code := cli.Run(t.Context(), []string{"run", "--adapter", name + ":x"}, &errOut, &errOut, Adapters())
		if code != 2 || !strings.Contains(errOut.String(), "takes no argument") {
			t.Errorf("run --adapter %s:x: exit %d, %q; want 2 and \"takes no argument\"", name, code, errOut.String())
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

func cliRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Run(context.Background(), args, &out, &errOut, Adapters())
	return code, out.String(), errOut.String()
}
