// Package load runs many MCP clients at once against a server or a deployment of
// several instances, across principals and anonymous callers, in each era, and judges
// every answer while it runs: no caller reads, lists, cancels, answers or hears about
// another's task; every task acknowledged reaches a terminal status its owner reads;
// every error is one the spec allows. It measures the server as it goes: tasks a
// second, each operation's latency percentiles, errors by code.
//
// It speaks the wire through the probe's client and maps tools by role as the probe
// does (probe.Tools).
package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// Config is one load run.
type Config struct {
	// URLs are the Streamable HTTP endpoints: one server, or the instances of a
	// deployment over a shared store (clients spread across them in turn).
	URLs []string
	// Exec is, in place of URLs, the command line of a server speaking MCP over stdio:
	// each client starts a child of its own, with its principal's token, when TokenEnv
	// names a variable, in the child's environment.
	Exec     []string
	TokenEnv string
	// Principals are the bearer tokens clients call with, in turn; with Anonymous, every
	// len(Principals)+1-th client calls without credentials.
	Principals []probe.Principal
	Anonymous  bool
	Clients    int
	Eras       []conformance.Era // in turn across clients; nil: both
	Tools      probe.Tools       // a role without a tool: its probe.DefaultTools entry
	// Duration and Tasks bound the run: no task is made past either (0: unbounded;
	// one of them must be given). Every task made is then followed to its end.
	Duration time.Duration
	Tasks    int
	// Rate, when above 0, paces the run: at most Rate tasks begin a second, across all
	// clients. Two servers compared at one rate meet the same offered load, so their
	// latencies compare service, not how deep each one's queue grew in a closed loop.
	Rate float64
	// Mix weighs the kinds of round (zero: DefaultMix).
	Mix Mix
	// Wait bounds how long a task may take to end (0: 30 s); Timeout any one answer (0: 30 s).
	Wait, Timeout time.Duration
	// Unjudged measures without judging (the generator's ceiling against a stub).
	Unjudged bool
	// Progress, when set, gets a line a second.
	Progress io.Writer
	Seed     uint64
}

// ErrConfig is a configuration load cannot run with.
var ErrConfig = errors.New("load: bad configuration")

// Result is a run's figures and violations.
type Result struct {
	Subject     string         `json:"subject"`
	Clients     int            `json:"clients"`
	Principals  int            `json:"principals"`
	Anonymous   bool           `json:"anonymous"`
	Eras        []string       `json:"eras"`
	Seconds     float64        `json:"seconds"`
	Tasks       int64          `json:"tasks"`
	TasksPerSec float64        `json:"tasks_per_second"`
	Ops         []Op           `json:"operations"`
	Errors      map[string]int `json:"errors_by_code"`
	Violations  []Violation    `json:"violations"`
	// ViolationCount counts every violation; Violations keeps the first hundred.
	ViolationCount int     `json:"violation_count"`
	Listens        Listens `json:"listens"`
	Timeline       []Point `json:"timeline"`
}

// Passed reports whether the run followed tasks to their end and found no violation:
// a run that ended no task exercised nothing and does not pass.
func (r *Result) Passed() bool { return r.ViolationCount == 0 && r.Tasks > 0 }

func (cfg Config) resolve() (Config, error) {
	switch {
	case len(cfg.URLs) == 0 && len(cfg.Exec) == 0:
		return cfg, fmt.Errorf("%w: give the server's URL (several for a deployment), or its command for stdio", ErrConfig)
	case cfg.Clients < 1:
		return cfg, fmt.Errorf("%w: %d clients", ErrConfig, cfg.Clients)
	case cfg.Duration <= 0 && cfg.Tasks <= 0:
		return cfg, fmt.Errorf("%w: bound the run by a duration or a task count", ErrConfig)
	case cfg.Rate < 0:
		return cfg, fmt.Errorf("%w: a rate of %g tasks a second", ErrConfig, cfg.Rate)
	case len(cfg.Principals) == 0 && !cfg.Anonymous:
		return cfg, fmt.Errorf("%w: give principals or anonymous callers", ErrConfig)
	}
	if len(cfg.Eras) == 0 {
		cfg.Eras = []conformance.Era{conformance.EraLegacy, conformance.EraModern}
	}
	for _, r := range probe.Roles {
		if name, _ := cfg.Tools.Tool(r); name == "" {
			name, args := probe.DefaultTools.Tool(r)
			cfg.Tools.SetTool(r, name, args)
		}
	}
	if cfg.Mix == (Mix{}) {
		cfg.Mix = DefaultMix
	} else if _, err := ParseMix(cfg.Mix.String()); err != nil {
		return cfg, err
	}
	if cfg.Wait <= 0 {
		cfg.Wait = 30 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return cfg, nil
}

// run is one load run in progress.
type run struct {
	cfg      Config
	judge    *judge
	timeline *timeline
	made     atomic.Int64 // tasks made (acknowledged or not)
	ended    atomic.Int64 // tasks followed to their end
	errs     atomic.Int64
	stop     time.Time     // no task made past it (zero: none)
	pace     *rate.Limiter // Config.Rate's (nil: unpaced)
}

// Run runs the load and returns its figures; the run fails (Result.Passed) on any
// violation. An error is a run that could not start.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	r := &run{cfg: cfg, judge: newJudge(), timeline: &timeline{start: start}}
	if cfg.Duration > 0 {
		r.stop = start.Add(cfg.Duration)
	}
	if cfg.Rate > 0 {
		r.pace = rate.NewLimiter(rate.Limit(cfg.Rate), 1)
	}
	clients := make([]*session, cfg.Clients)
	for i := range clients {
		clients[i] = r.session(i)
	}
	done := make(chan struct{})
	go r.progress(done, start)
	var wg sync.WaitGroup
	for _, s := range clients {
		wg.Go(func() { s.loop(ctx) })
	}
	wg.Wait()
	close(done)
	total := newMeter()
	for _, s := range clients {
		s.finish()
		total.merge(s.meter)
	}
	return r.result(time.Since(start), total), nil
}

// session makes client i: its principal, era and endpoint, in turn.
func (r *run) session(i int) *session {
	slots := len(r.cfg.Principals) + btoi(r.cfg.Anonymous)
	var p probe.Principal
	if k := i % slots; k < len(r.cfg.Principals) {
		p = r.cfg.Principals[k]
	}
	s := &session{id: i, run: r, principal: p, era: r.cfg.Eras[i%len(r.cfg.Eras)],
		meter: newMeter(),
		rand:  rand.New(rand.NewPCG(r.cfg.Seed, uint64(i)))}
	if len(r.cfg.URLs) > 0 {
		s.url = r.cfg.URLs[i%len(r.cfg.URLs)]
	}
	return s
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// more reports whether another task may be made, and counts it; under a pace it first
// waits for the task's turn.
func (r *run) more(ctx context.Context) bool {
	if r.pace != nil {
		wctx := ctx
		if !r.stop.IsZero() {
			var cancel context.CancelFunc
			wctx, cancel = context.WithDeadline(ctx, r.stop)
			defer cancel()
		}
		if r.pace.Wait(wctx) != nil {
			return false
		}
	}
	if !r.stop.IsZero() && time.Now().After(r.stop) {
		return false
	}
	if r.cfg.Tasks > 0 && r.made.Add(1) > int64(r.cfg.Tasks) {
		return false
	}
	return true
}

func (r *run) progress(done <-chan struct{}, start time.Time) {
	if r.cfg.Progress == nil {
		return
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			secs := now.Sub(start).Seconds()
			n := r.ended.Load()
			r.judge.mu.Lock()
			v := r.judge.count
			r.judge.mu.Unlock()
			fmt.Fprintf(r.cfg.Progress, "load: %5.0fs %8d tasks %8.0f tasks/s %6d errors %4d violations\n",
				secs, n, float64(n)/secs, r.errs.Load(), v)
		}
	}
}

func (r *run) result(d time.Duration, m *meter) *Result {
	eras := make([]string, len(r.cfg.Eras))
	for i, e := range r.cfg.Eras {
		eras[i] = string(e)
	}
	subject := "stdio: " + strings.Join(r.cfg.Exec, " ")
	switch {
	case len(r.cfg.URLs) == 1:
		subject = r.cfg.URLs[0]
	case len(r.cfg.URLs) > 1:
		subject = fmt.Sprintf("%d instances: %v", len(r.cfg.URLs), r.cfg.URLs)
	}
	r.judge.mu.Lock()
	defer r.judge.mu.Unlock()
	n := r.ended.Load()
	return &Result{Subject: subject, Clients: r.cfg.Clients, Principals: len(r.cfg.Principals), Anonymous: r.cfg.Anonymous,
		Eras: eras, Seconds: d.Seconds(), Tasks: n, TasksPerSec: float64(n) / d.Seconds(), Ops: m.figures(),
		Errors: m.errors, Listens: m.listens, Violations: r.judge.violations, ViolationCount: r.judge.count, Timeline: r.timeline.points()}
}
