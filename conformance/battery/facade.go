package battery

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Whose facade the facade rules judge (harness.Capabilities.Facade): storecheck's
// reference facades over the store, the store's own facades (a store process speaking
// wire protocol 2 with a facade layer), or none, when the store's real facade is out of
// reach and the reference facade would only judge storecheck's own code.

// reasonReferenceFacade is why the facade rules do not run against a store whose own
// facade storecheck cannot reach.
const reasonReferenceFacade = "storecheck's reference facade: the store process serves no facade of its own " +
	"(wire protocol 2, facade layer), and running storecheck's facade would judge only storecheck's code"

// isFacadeRule reports whether rule is one of the facade rules (L-F-*, M-F-*).
func isFacadeRule(rule rules.Rule) bool {
	return strings.HasPrefix(rule.ID, "L-F-") || strings.HasPrefix(rule.ID, "M-F-")
}

// gateFacade skips a facade spec, before it opens a namespace, when the store's facade
// is unreachable.
func gateFacade(caps harness.Capabilities, rule rules.Rule) {
	if isFacadeRule(rule) && caps.Facade == harness.FacadeUnreachable {
		ginkgo.AddReportEntry(EntryNotExercised, reasonReferenceFacade)
		ginkgo.Skip("not exercised: " + reasonReferenceFacade)
	}
}

// ForeignFacade reports whether the facade specs run against the store's own facades.
func (e *Env) ForeignFacade() bool { return e.Caps.Facade == harness.FacadeOwn }

// ReferenceFacadeOnly skips the rest of a spec that judges how storecheck's reference
// facade drives a store (its fallbacks over stores without optional methods, its
// re-checks over adversarial store wrappers, its in-process hooks) when the facade
// under test is the store's own: there is no reference facade in play to judge.
func (e *Env) ReferenceFacadeOnly(why string) {
	if e.ForeignFacade() {
		e.NotExercised(why + " (a property of storecheck's reference facade; the store's own facade is judged by the other specs of this rule)")
	}
}

// facades returns the namespace's own facades, failing the spec when the harness
// declared FacadeOwn without providing them.
func (e *Env) facades() harness.Facades {
	f, ok := e.Namespace.(harness.Facades)
	if !ok {
		e.BringUp("the store's facades", fmt.Errorf("the harness declares its own facade, but its namespace %T does not implement harness.Facades", e.Namespace))
	}
	return f
}

// facadeBringUp skips the spec when the store's facade cannot take the configuration
// the spec needs (it declared no such setting), and fails it on any other error.
func (e *Env) facadeBringUp(era string, err error) {
	if errors.Is(err, reference.ErrUnsupported) {
		e.NotExercised(err.Error())
	}
	e.BringUp("the store's "+era+" facade", err)
	// The verdict is about the store's own code, not storecheck's facade.
	e.DecidedBy(rules.SubjectStore)
}

// LegacyFacade is the legacy facade the specs judge: the store's own when it has one,
// otherwise the reference facade over st.
func LegacyFacade(e *Env, st legacy.Store, requireOwner bool) legacy.Facade {
	if e.ForeignFacade() {
		f, err := e.facades().LegacyFacade(e.Ctx, harness.FacadeConfig{RequireOwner: requireOwner})
		e.facadeBringUp("legacy", err)
		return f
	}
	return legacy.New(st, legacy.WithRequireOwner(requireOwner))
}

// ModernFacade is the modern facade the specs judge: the reference facade over the spec's
// store configured by tune, or the store's own facade configured the same way. A tune
// that needs the reference facade (a notifier, a wrapped store) skips the spec against
// a foreign facade.
func ModernFacade(e *Env, tune ...func(*modern.Config)) modern.Facade {
	if e.ForeignFacade() {
		var cfg modern.Config
		for _, f := range tune {
			f(&cfg)
		}
		if cfg.Notifier != nil {
			e.ReferenceFacadeOnly("the notifier is an in-process hook that the wire protocol does not carry")
		}
		if cfg.Store != nil {
			e.ReferenceFacadeOnly("the facade runs over a store wrapper of the battery's")
		}
		f, err := e.facades().ModernFacade(e.Ctx, harness.FacadeConfig{RequireOwner: cfg.RequireOwner, DefaultTTL: cfg.DefaultTTL, MaxTTL: cfg.MaxTTL})
		e.facadeBringUp("modern", err)
		return f
	}
	cfg := modern.Config{
		Store:  e.Modern(),
		Clock:  e.Clock(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for _, f := range tune {
		f(&cfg)
	}
	return modern.New(cfg)
}
