package probe_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// hang answers nothing until the client gives up. It reads the body first: only then
// does the server notice the client leaving.
var hang = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute):
	}
})

// garbage answers 200 with a body that is not JSON-RPC.
var garbage = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, "\x00\x01 this is not {json") // a client gone is no finding here
})

// badRun probes url with short timeouts.
func badRun(t *testing.T, url string) *conformance.Report {
	t.Helper()
	// A short look for a task limit (LimitTasks): the server behind the bad one has
	// none, and each call more is one more chance for a loaded machine to pass the 300 ms.
	return runConfig(t, probe.Config{URL: url, Strict: true, Timeout: 300 * time.Millisecond, Wait: 2 * time.Second, LimitTasks: 4}, 0)
}

// wrapReference serves the honest reference server behind bad: requests whose body
// contains trigger go to bad, the others to the server.
func wrapReference(t *testing.T, trigger string, bad http.Handler) string {
	return wrapReferenceWith(t, trigger, func(http.Handler) http.Handler { return bad })
}

// wrapReferenceWith is wrapReference with a bad handler that may call the server.
func wrapReferenceWith(t *testing.T, trigger string, wrap func(srv http.Handler) http.Handler) string {
	t.Helper()
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	srv, err := server.New(server.Config{Legacy: st.Legacy(), Modern: st.Modern(),
		Principals: map[string]string{"token-a": "alice", "token-b": "bob"}})
	if err != nil {
		t.Fatal(err)
	}
	bad := wrap(srv)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(trigger)) {
			bad.ServeHTTP(w, r)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs.URL + "/mcp"
}

// TestSilentServerAborts: a server that hangs, answers garbage or refuses connections
// leaves every rule aborted with the cause named, never passed or failed, and the run
// fails.
func TestSilentServerAborts(t *testing.T) {
	refused := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr + "/mcp"
	}
	serveWith := func(h http.Handler) string {
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		return hs.URL + "/mcp"
	}
	for _, tc := range []struct {
		name, url, cause string
	}{
		{"hangs", serveWith(hang), "timeout (no answer within 300ms)"},
		{"garbage", serveWith(garbage), "unparsable answer"},
		{"refused", refused(), "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := badRun(t, tc.url)
			if r.OK() || len(r.Rules) < 10 {
				t.Errorf("OK %v with %d rules; want a failed run over every rule", r.OK(), len(r.Rules))
			}
			for _, rr := range r.Rules {
				if rr.Outcome != conformance.Aborted || len(rr.Reasons) == 0 || !strings.Contains(rr.Reasons[0], tc.cause) {
					t.Errorf("%s %s: %s %q; want aborted naming %q", rr.ID, rr.Era, rr.Outcome, rr.Reasons, tc.cause)
				}
			}
		})
	}
}

// TestServerSilentOnTasksGet: a server that serves everything but hangs on, or answers
// garbage to, tasks/get: the rules that need it are aborted with the cause named; none is
// failed or passed on the strength of a missing answer.
func TestServerSilentOnTasksGet(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bad   http.Handler
		cause string
	}{
		{"hangs", hang, "timeout (no answer within 300ms): tasks/get as principal alice"},
		{"garbage", garbage, "unparsable answer: tasks/get as principal alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := badRun(t, wrapReference(t, `"method":"tasks/get"`, tc.bad))
			aborted := map[string]bool{}
			for _, rr := range r.Rules {
				switch rr.Outcome {
				case conformance.Failed, conformance.Warned:
					t.Errorf("%s %s failed on a missing answer: %q", rr.ID, rr.Era, rr.Reasons)
				case conformance.Aborted:
					if !strings.Contains(rr.Reasons[0], tc.cause) {
						t.Errorf("%s %s aborted with %q; want the cause %q", rr.ID, rr.Era, rr.Reasons[0], tc.cause)
					}
					aborted[rr.ID+" "+string(rr.Era)] = true
				}
			}
			// Each of these reads a task with tasks/get before it can judge.
			for _, want := range []string{"V-DENY-1 legacy", "V-FIN-1 legacy", "V-RESULT-1 legacy", "V-DENY-1 modern", "V-FIN-1 modern", "V-EXT-1 modern"} {
				if !aborted[want] {
					t.Errorf("%s not aborted", want)
				}
			}
			if r.OK() {
				t.Error("the run passed")
			}
		})
	}
}
