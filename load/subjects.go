package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// Subject is one server of a comparison: the URLs of a server or a deployment already
// running, or a command started for the subject's run alone. A command that names
// {port} serves Streamable HTTP and is started Instances times (1 when not given), each
// on a port of its own; one that does not speaks stdio, a child a client.
type Subject struct {
	Name      string   `json:"name"`
	URLs      []string `json:"urls,omitempty"`
	Exec      Command  `json:"exec,omitempty"`
	Instances int      `json:"instances,omitempty"`
	// Shape is how a deployment of several is reached: "any" (the default) or "routed"
	// (probe.Shape).
	Shape string `json:"shape,omitempty"`
	// Eras, when given, replace the run's for this subject (a server of one era).
	Eras []string `json:"eras,omitempty"`
}

// Command is a command line: a JSON array of words, or a string split as a shell
// splits words.
type Command []string

// UnmarshalJSON reads the array or the string.
func (c *Command) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		words, err := wire.SplitCommand(s)
		*c = words
		return err
	}
	return json.Unmarshal(b, (*[]string)(c))
}

// ParseSubject reads NAME=URL[,URL...]: a server, or the instances of a deployment.
func ParseSubject(s string) (Subject, error) {
	name, urls, ok := strings.Cut(s, "=")
	if !ok {
		return Subject{}, fmt.Errorf("%w: subject %q: want NAME=URL[,URL...]", ErrConfig, s)
	}
	sub := Subject{Name: strings.TrimSpace(name)}
	for u := range strings.SplitSeq(urls, ",") {
		if u = strings.TrimSpace(u); u != "" {
			sub.URLs = append(sub.URLs, u)
		}
	}
	return sub, sub.check()
}

// DecodeSubjects reads a subjects file: a JSON array of Subject, each named once.
func DecodeSubjects(data []byte) ([]Subject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var subs []Subject
	if err := dec.Decode(&subs); err != nil {
		return nil, fmt.Errorf("%w: subjects: %v (want a JSON array of {\"name\", \"urls\" | \"exec\", \"instances\", \"shape\", \"eras\"})", ErrConfig, err)
	}
	for _, s := range subs {
		if err := s.check(); err != nil {
			return nil, err
		}
	}
	return subs, CheckSubjects(subs)
}

// CheckSubjects: two subjects or more, each named once.
func CheckSubjects(subs []Subject) error {
	if len(subs) < 2 {
		return fmt.Errorf("%w: %d subjects: a comparison needs two or more", ErrConfig, len(subs))
	}
	seen := map[string]bool{}
	for _, s := range subs {
		if seen[s.Name] {
			return fmt.Errorf("%w: subject %q is named twice", ErrConfig, s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

func (s Subject) check() error {
	served := strings.Contains(strings.Join(s.Exec, " "), "{port}")
	switch {
	case s.Name == "":
		return fmt.Errorf("%w: a subject without a name (%v)", ErrConfig, s.where())
	case len(s.URLs) > 0 && len(s.Exec) > 0:
		return fmt.Errorf("%w: subject %q has both URLs and a command: give one", ErrConfig, s.Name)
	case len(s.URLs) == 0 && len(s.Exec) == 0:
		return fmt.Errorf("%w: subject %q has no URL and no command", ErrConfig, s.Name)
	case s.Instances < 0 || s.Instances > 0 && !served:
		return fmt.Errorf("%w: subject %q: %d instances of a command that names no {port} (its HTTP port)", ErrConfig, s.Name, s.Instances)
	case s.Shape != "" && s.Shape != string(probe.ShapeAny) && s.Shape != string(probe.ShapeRouted):
		return fmt.Errorf("%w: subject %q: shape %q: want any or routed", ErrConfig, s.Name, s.Shape)
	}
	for _, u := range s.URLs {
		if p, err := url.Parse(u); err != nil || p.Scheme != "http" && p.Scheme != "https" || p.Host == "" {
			return fmt.Errorf("%w: subject %q: %q is not an http(s) URL", ErrConfig, s.Name, u)
		}
	}
	for _, e := range s.Eras {
		if e != string(conformance.EraLegacy) && e != string(conformance.EraModern) {
			return fmt.Errorf("%w: subject %q: era %q: want legacy or modern", ErrConfig, s.Name, e)
		}
	}
	return nil
}

func (s Subject) where() string {
	if len(s.URLs) > 0 {
		return strings.Join(s.URLs, ",")
	}
	return strings.Join(s.Exec, " ")
}

// errUnreachable: a subject's server could not be reached or started; its run is not made.
var errUnreachable = errors.New("unreachable")

// start brings the subject up for its run: cfg with its endpoints and eras, and how to
// stop what was started.
func (s Subject) start(ctx context.Context, cfg Config) (Config, func(), error) {
	cfg.URLs, cfg.Exec = s.URLs, nil
	if len(s.Eras) > 0 {
		cfg.Eras = nil
		for _, e := range s.Eras {
			cfg.Eras = append(cfg.Eras, conformance.Era(e))
		}
	}
	stop := func() {}
	switch {
	case len(s.Exec) > 0 && !strings.Contains(strings.Join(s.Exec, " "), "{port}"):
		cfg.Exec = s.Exec // stdio: each client's child is started by the run
		return cfg, stop, nil
	case len(s.Exec) > 0 || len(s.URLs) > 1:
		dep := probe.Deployment{Command: s.Exec, Copies: max(s.Instances, 1), Shape: probe.Shape(s.Shape)}
		if len(s.Exec) == 0 {
			dep = probe.Deployment{URLs: s.URLs, Shape: probe.Shape(s.Shape)}
		}
		urls, stopDep, err := dep.Start(ctx)
		if err != nil {
			return cfg, stop, fmt.Errorf("%w: not started: %w", errUnreachable, err)
		}
		cfg.URLs, stop = urls, stopDep
	}
	for _, u := range cfg.URLs {
		if err := dial(ctx, u); err != nil {
			stop()
			return cfg, func() {}, fmt.Errorf("%w: %s: %w", errUnreachable, u, err)
		}
	}
	return cfg, stop, nil
}

// dial checks that the URL's host takes connections.
func dial(ctx context.Context, u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	host := p.Host
	if p.Port() == "" {
		host = net.JoinHostPort(p.Hostname(), map[bool]string{true: "443", false: "80"}[p.Scheme == "https"])
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return err
	}
	return c.Close()
}
