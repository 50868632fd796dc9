package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe/client"
)

// death is the server's death as the report tells it, once: a finding, the row of the
// check it died during (a valid request that kills a server breaks the rule it
// exercised), and one short cause for every check after it.
type death struct {
	line string // the report's finding
	// rule and era are the check it died during; rule is "" when it died outside a
	// check (as the probe connected, or between checks).
	rule string
	era  conformance.Era
	when string // outside a check: when it died
	last string // the last request sent, and by whom
}

// diedDuring starts the cause of every check aborted by a death during another check.
const diedDuring = "the server died during"

// pointer is the cause of a check aborted by the death.
func (d *death) pointer() string {
	if d.rule != "" {
		return fmt.Sprintf("%s %s %s: see that row", diedDuring, d.rule, d.era)
	}
	return "the server died " + d.when + ": see the report's findings"
}

// DeathOf returns the rule during whose check the server died, when rr is a row
// aborted by that death.
func DeathOf(rr conformance.RuleResult) (rule string, ok bool) {
	if rr.Outcome != conformance.Aborted || len(rr.Reasons) == 0 {
		return "", false
	}
	rest, ok := strings.CutPrefix(rr.Reasons[0], diedDuring+" ")
	if !ok {
		return "", false
	}
	rule, _, _ = strings.Cut(rest, " ")
	return rule, true
}

// how says how a server died, with the last lines of its stderr when it has them.
func how(de *client.DiedError) string {
	s := "it " + de.How
	if len(de.Stderr) > 0 {
		s += "; the last lines of its stderr: " + strings.Join(de.Stderr, " | ")
	}
	return s
}

// diedConnecting is the death of a server that died as the probe connected in an era,
// or nil. Over HTTP, the endpoint is dialled only when it served an earlier era: an
// endpoint that never answered has not died, it was never reached.
func diedConnecting(ctx context.Context, cfg Config, era conformance.Era, err error, served bool) *death {
	var de *client.DiedError
	switch {
	case err == nil:
		return nil
	case len(cfg.Exec) > 0 && errors.As(err, &de):
	case len(cfg.Exec) == 0 && served && errors.Is(err, ErrNoAnswer):
		if !errors.As(client.DialHTTP(cfg.URL, client.HTTPOptions{}).Alive(ctx), &de) {
			return nil
		}
	default:
		return nil
	}
	when := fmt.Sprintf("as the probe connected for the %s era", era)
	return &death{when: when, line: fmt.Sprintf("the server died %s: %s; every check of the era is aborted", when, how(de))}
}

// died checks, after a check, whether the server is still there: a child of the era that
// exited (stdio), or an endpoint that refuses connections (HTTP). It returns the death,
// blamed on the check when the last request was sent during it (after since), or nil.
func (r *eraRun) died(ctx context.Context, rule string, since time.Time) *death {
	var de *client.DiedError
	var by *peer
	if r.stdio {
		for _, p := range r.children {
			if errors.As(p.conn.Alive(ctx), &de) {
				by = p
				break
			}
		}
	} else if r.owner != nil && errors.As(r.owner.conn.Alive(ctx), &de) {
		by = r.lastSender()
	}
	if by == nil {
		return nil
	}
	last, at := by.conn.LastSent()
	last = fmt.Sprintf("%s as %s", cmp.Or(last, "nothing sent"), who(by.name))
	later := "every later check is aborted"
	if r.stdio {
		later = "every later check of the era is aborted (the next era starts children of its own)"
	}
	if at.After(since) {
		return &death{rule: rule, era: r.era, last: last,
			line: fmt.Sprintf("the server died after %s, during %s (%s era): %s; %s", last, rule, r.era, how(de), later)}
	}
	when := fmt.Sprintf("after %s, before %s (%s era)", last, rule, r.era)
	return &death{when: when, last: last, line: fmt.Sprintf("the server died %s: %s; %s", when, how(de), later)}
}

// lastSender is the era's peer that sent the last request.
func (r *eraRun) lastSender() *peer {
	var out *peer
	var latest time.Time
	for _, p := range append(append([]*peer{r.owner, r.anon}, r.others...), r.children...) {
		if p == nil {
			continue
		}
		if _, at := p.conn.LastSent(); out == nil || at.After(latest) {
			out, latest = p, at
		}
	}
	return out
}

// deathRow is the row of the check the server died during: failed, with what it had
// found before kept as notes.
func deathRow(rr *conformance.RuleResult, d *death, rule conformance.Rule) {
	for _, why := range rr.Reasons {
		rr.Notes = append(rr.Notes, "note: before the server died the check read "+string(rr.Outcome)+": "+why)
	}
	rr.Outcome = conformance.Failed
	f := faultf(d.last+" (the last request the probe sent)", "an answer, and the server still serving", d.line)
	rr.Reasons = []string{verdict(rule, d.era, f)}
}
