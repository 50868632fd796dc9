package load_test

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/storecheck/storecheck/load"
)

// TestRatePacesTasks: under Config.Rate the clients together begin no more tasks a
// second than the rate, however fast the server answers (the stub answers at once, and
// unpaced runs thousands a second against it); a negative rate is a configuration error.
func TestRatePacesTasks(t *testing.T) {
	stub := httptest.NewServer(load.Stub())
	defer stub.Close()
	cfg := load.Config{URLs: []string{stub.URL + "/mcp"}, Principals: principals, Anonymous: true, Unjudged: true,
		Clients: 16, Duration: 2 * time.Second, Rate: 40, Wait: 3 * time.Second, Timeout: 5 * time.Second}
	r, err := load.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A burst of one: at most 40 a second over two seconds, plus the first at once.
	if r.Tasks > 81 || r.Tasks < 40 {
		t.Errorf("load --rate 40 for 2s against a stub that answers at once: %d tasks; want 40 to 81", r.Tasks)
	}
	cfg.Rate = -1
	if _, err := load.Run(t.Context(), cfg); !errors.Is(err, load.ErrConfig) {
		t.Errorf("load with Rate -1: error %v; want ErrConfig", err)
	}
}
