// Package probe checks a live MCP server's tasks from the outside, over the protocol, in
// both eras (2025-11-25 tasks and the 2026-07-28 tasks extension), with two or more
// principals: the server-level rules of docs/spec.md section 7 (V-*). It reports exactly
// as the battery does (conformance.Report): one row per rule and era.
//
// checks.go is the table of contents (every check and its rule); peer.go is one
// principal's connection in one era; package client speaks the wire.
package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/probe/client"
)

// Principal is a credential the probe calls with.
type Principal struct {
	Name  string // how the report names it
	Token string // a bearer token
}

// Config is one probe run.
type Config struct {
	// URL is the server's Streamable HTTP endpoint; or
	URL string
	// Exec is the command line of a server speaking MCP over stdio (newline-delimited
	// JSON-RPC on its stdin and stdout). Each principal gets a child of its own: stdio
	// carries no credentials, so a principal is a process (a connection), with its token,
	// when TokenEnv names a variable, in the child's environment.
	Exec     []string
	TokenEnv string
	// Principals are at least two (with Exec, none given means two children without
	// tokens).
	Principals []Principal
	Tools      Tools // a role without a tool: its DefaultTools entry
	Eras       []conformance.Era
	Rules      []string // nil: every rule
	Strict     bool
	// Wait bounds how long a task may take to end (0: 10 s).
	Wait time.Duration
	// Timeout bounds the wait for any one answer of the server (0: 10 s); tasks/result,
	// which blocks until its task ends, gets Wait more.
	Timeout time.Duration
	// LimitTasks bounds the tasks the limit check (V-LIMIT-1) makes as the first
	// principal before it calls the server's limit not met (0: 64).
	LimitTasks int
	// Progress, when set, gets a line per check.
	Progress io.Writer
	// Deployment, when it names instances (in place of URL and Exec), is a server of
	// several instances: the ordinary checks go to its first instance (ShapeAny) or
	// through the probe's router (ShapeRouted), the V-X* checks spread their calls
	// across the instances.
	Deployment Deployment

	deploy *deployment // the running deployment, once Run has started it

	noElicit bool // the 2025-11-25 handshake declares no elicitation (V-INPUT-2's second session)
}

// ErrConfig is a configuration the probe cannot run with.
var ErrConfig = errors.New("probe: bad configuration")

// Run probes the server and returns the report.
func Run(ctx context.Context, cfg Config) (*conformance.Report, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	started := time.Now()
	subject := cfg.URL
	if len(cfg.Exec) > 0 {
		subject = "stdio: " + strings.Join(cfg.Exec, " ")
	}
	if cfg.deployed() {
		if cfg.deploy, err = startDeployment(ctx, cfg.Deployment); err != nil {
			return nil, err
		}
		defer cfg.deploy.stop()
		cfg.URL, subject = cfg.deploy.entry(), cfg.deploy.String()
	}
	meta := conformance.Report{Store: subject, Eras: cfg.Eras, Strict: cfg.Strict, Started: started}
	var results []conformance.RuleResult
	// A server that dies is told once, in the report's findings; the check in flight
	// fails and every later one is aborted pointing at it. A server the probe started
	// (stdio) is started again for the next era.
	var dead *death
	served := false
	for _, era := range cfg.Eras {
		if len(cfg.Exec) > 0 {
			dead = nil
		}
		var er *eraRun
		var setupErr error
		if dead == nil {
			er, setupErr = connect(ctx, cfg, era)
			if dead = diedConnecting(ctx, cfg, era, setupErr, served); dead != nil {
				meta.Findings = append(meta.Findings, dead.line)
			}
			served = served || setupErr == nil
		}
		for _, c := range checks {
			if !slices.Contains(c.eras, era) || len(cfg.Rules) > 0 && !slices.Contains(cfg.Rules, c.rule) {
				continue
			}
			checkStarted := time.Now()
			rr, died := runCheck(ctx, cfg, c, era, er, setupErr, dead)
			if died != nil {
				dead = died
				meta.Findings = append(meta.Findings, died.line)
			}
			if cfg.Progress != nil {
				fmt.Fprintf(cfg.Progress, "probe: %-11s %-6s %-13s %s (at %s)\n", rr.ID, era, rr.Outcome,
					time.Since(checkStarted).Round(time.Millisecond), time.Since(started).Round(100*time.Millisecond))
			}
			results = append(results, rr)
		}
		if er != nil {
			er.close()
		}
	}
	meta.Duration = time.Since(started)
	return conformance.NewReport(meta, results), nil
}

// resolve checks the configuration and fills in its defaults: two principals for a
// server the probe starts, the default tools, the waits, the task limit, both eras.
func (cfg Config) resolve() (Config, error) {
	if given := btoi(cfg.URL != "") + btoi(len(cfg.Exec) > 0) + btoi(cfg.deployed()); given != 1 {
		return cfg, fmt.Errorf("%w: give the server's URL, or for stdio its command (--exec), or a deployment's instances: one of them", ErrConfig)
	}
	if len(cfg.Exec) > 0 {
		if _, err := exec.LookPath(cfg.Exec[0]); err != nil {
			return cfg, fmt.Errorf("%w: --exec: %w", ErrConfig, err)
		}
		if len(cfg.Principals) == 0 {
			cfg.Principals = []Principal{{Name: "first"}, {Name: "second"}}
		}
	}
	if len(cfg.Principals) < 2 {
		return cfg, fmt.Errorf("%w: give at least two principals (--principal NAME=TOKEN), to see whether one sees the other's tasks", ErrConfig)
	}
	for _, role := range Roles {
		name, args := cfg.Tools.Tool(role)
		if name == "" {
			name, args = DefaultTools.Tool(role)
		}
		cfg.Tools.SetTool(role, name, args)
	}
	if cfg.Wait <= 0 {
		cfg.Wait = 10 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.LimitTasks <= 0 {
		cfg.LimitTasks = 64
	}
	if len(cfg.Eras) == 0 {
		cfg.Eras = bothEras
	}
	for _, id := range cfg.Rules {
		if r, ok := conformance.RuleByID(id); !ok || r.Part != rules.PartServer {
			return cfg, fmt.Errorf("%w: %s is not a server rule (storecheck list shows the V-* rules)", ErrConfig, id)
		}
	}
	return cfg, nil
}

// runCheck is check c's row for era: aborted when the server has died (dead), setup
// refused when the era's peers could not connect (setupErr), else c's verdict against
// er. died is the server's death during the check, if it died then: the row fails the
// rule that killed it, or is aborted.
func runCheck(ctx context.Context, cfg Config, c check, era conformance.Era, er *eraRun, setupErr error, dead *death) (rr conformance.RuleResult, died *death) {
	rule, _ := conformance.RuleByID(c.rule)
	rr = conformance.RuleResult{ID: rule.ID, Level: rule.Level, Era: era, Area: rule.Area, Text: rule.Text,
		Subject: conformance.SubjectServer, Specs: []string{c.name}}
	switch {
	case dead != nil:
		rr.Outcome, rr.Reasons = conformance.Aborted, []string{dead.pointer()}
	case setupErr != nil:
		rr.Outcome, rr.Reasons = refusedEntry(setupErr)
	default:
		er.notes = nil
		since := time.Now()
		rr.Outcome, rr.Reasons = judge(ctx, c, er, cfg.Strict)
		for _, n := range er.notes {
			rr.Notes = append(rr.Notes, "note: "+n)
		}
		if died = er.died(ctx, c.rule, since); died != nil {
			if died.rule != "" {
				deathRow(&rr, died, rule)
			} else {
				rr.Outcome, rr.Reasons = conformance.Aborted, []string{died.pointer()}
			}
		}
	}
	return rr, died
}

// connect makes the era's peers: every principal, and a caller without credentials when
// the server lets one in.
func connect(ctx context.Context, cfg Config, era conformance.Era) (*eraRun, error) {
	er := &eraRun{era: era, tools: cfg.Tools, stdio: len(cfg.Exec) > 0, cfg: cfg}
	for i, p := range cfg.Principals {
		pe, err := dial(ctx, cfg, p, era)
		er.track(pe)
		if err != nil {
			er.close()
			return nil, err
		}
		if i == 0 {
			er.owner = pe
		} else {
			er.others = append(er.others, pe)
		}
	}
	if er.stdio && cfg.TokenEnv == "" {
		// Every child is a caller without credentials already.
		return er, nil
	}
	anon, err := dial(ctx, cfg, Principal{}, era)
	er.track(anon)
	if err == nil {
		er.anon = anon
	}
	if er.stdio {
		return er, nil // a token a child does not know shows in no answer
	}
	// An unknown token refused means tokens are principals to the server.
	_, err = dial(ctx, cfg, Principal{Name: "stranger", Token: unknownToken}, era)
	er.strangerErr = err
	var refused *client.HTTPError
	er.authenticates = errors.As(err, &refused) && (refused.StatusCode == 401 || refused.StatusCode == 403)
	return er, nil
}

// refusedEntry is the outcome of every rule of an era whose principals could not connect:
// credentials refused is setup refused; no usable answer is aborted, its cause named; a
// server that answers but does not serve the era leaves its rules not exercised.
func refusedEntry(err error) (conformance.Outcome, []string) {
	var refused *client.HTTPError
	switch {
	case errors.As(err, &refused) && (refused.StatusCode == 401 || refused.StatusCode == 403):
		return conformance.SetupRefused, []string{"the server refused the principal's credentials: " + err.Error()}
	case errors.Is(err, ErrNoAnswer):
		return conformance.Aborted, []string{err.Error()}
	}
	return conformance.NotExercised, []string{"the server did not let the probe in: " + err.Error()}
}

// judge runs one check and says what it found.
func judge(ctx context.Context, c check, er *eraRun, strict bool) (conformance.Outcome, []string) {
	err := er.needTools(ctx, c.uses)
	if err == nil {
		err = c.run(ctx, er)
	}
	var f *fault
	rule, _ := conformance.RuleByID(c.rule)
	switch {
	case err == nil:
		return conformance.Passed, nil
	case errors.As(err, &f) && (rule.Level == conformance.Should || f.should) && !strict:
		return conformance.Warned, []string{verdict(rule, er.era, f)}
	case errors.As(err, &f):
		return conformance.Failed, []string{verdict(rule, er.era, f)}
	case errors.Is(err, ErrNoAnswer):
		// Before errSetup: a setup step that got no answer is the server's silence, not
		// its refusal.
		return conformance.Aborted, []string{err.Error()}
	case errors.Is(err, errSetup):
		return conformance.SetupRefused, []string{err.Error()}
	case errors.Is(err, errInconclusive):
		return conformance.Inconclusive, []string{err.Error()}
	case errors.Is(err, errNone):
		return conformance.NotExercised, []string{err.Error()}
	}
	return conformance.Aborted, []string{"the transport failed: " + err.Error()}
}

// verdict is the reason of a failed or warned row: the rule, the era, and the fault.
func verdict(rule conformance.Rule, era conformance.Era, f *fault) string {
	return fmt.Sprintf("%s\n  server: %s era\n  %s", rule, era, f.Error())
}
