// Package servermutants holds the reference MCP server's deliberate defects as wrappers
// around the honest server: a Handler put around its dispatch (server.Config.Wrap), or a
// filter on what a stdio server reads. The probe must fail each on exactly the rules it
// declares (storecheck's proof that its server checks bite), and pass each honest twin.
//
// What no request's dispatch passes through (the HTTP exchange, the stores, the task
// limit, status notifications, a tool's task support) a defect changes through the
// server's general hooks (Setup).
package servermutants

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/server"
)

// Build is how a defect of the reference server is built, and how the probe judges it:
// the probe must fail exactly the mutant's Breaks, pass an honest twin, and find nothing
// to exercise in an empty server.
type Build struct {
	// Honest marks a twin that serves differently but breaks nothing: it must pass.
	Honest bool
	// Empty marks a server that serves nothing the probe checks (no tasks): it is killed
	// when the probe exercises no rule, so that such a run cannot pass.
	Empty bool
	// Wrap puts the defect around the server's dispatch; die ends the server as a crash
	// would (the process exits, or the endpoint stops taking connections). nil: none.
	Wrap func(next server.Handler, die func()) server.Handler
	// Input filters what a stdio server reads. nil: none.
	Input func(io.Reader) io.Reader
	// Setup changes the server's configuration before it is built: the stores it is
	// given, its hooks (Middleware, LimitKey, TaskSupport, Notified), a Wrap that shares
	// state with them (see around). Each server gets its own call. nil: none.
	Setup func(cfg server.Config, die func()) server.Config
	// StdioOnly marks a defect only a stdio server has (an Input filter): over HTTP it is
	// the honest server, so the HTTP runners leave it to the probe's stdio tests.
	StdioOnly bool
	// LoadOnly marks a defect only many clients at once reveal: the probe's sequential
	// checks must pass it, and storecheck load fail it on its Breaks.
	LoadOnly bool
}

// Configure returns cfg serving with the defect; die is how the server crashes.
func (m Build) Configure(cfg server.Config, die func()) server.Config {
	if m.Setup != nil {
		cfg = m.Setup(cfg, die)
	}
	if m.Wrap != nil {
		around(&cfg, func(next server.Handler) server.Handler { return m.Wrap(next, die) })
	}
	return cfg
}

// around puts w around the server's dispatch, outside any Wrap cfg has.
func around(cfg *server.Config, w func(next server.Handler) server.Handler) {
	cfg.Wrap = outside(cfg.Wrap, w)
}

// middleware puts mw around the server's HTTP endpoint, outside any Middleware cfg has.
func middleware(cfg *server.Config, mw func(next http.Handler) http.Handler) {
	cfg.Middleware = outside(cfg.Middleware, mw)
}

// outside composes two decorators: inner (which may be nil) first, then outer around it.
func outside[H any](inner, outer func(next H) H) func(next H) H {
	return func(next H) H {
		if inner != nil {
			next = inner(next)
		}
		return outer(next)
	}
}

// Stdin is what a stdio server with the defect reads of in.
func (m Build) Stdin(in io.Reader) io.Reader {
	if m.Input == nil {
		return in
	}
	return m.Input(in)
}

// catalogue is every defect, by name, gathered from the families' files; built once.
var catalogue = sync.OnceValue(func() []mutant.Mutant[Build] {
	out := slices.Concat(transportMutants, capabilityMutants, inputMutants, accessMutants, lifecycleMutants, listMutants, loadMutants)
	slices.SortFunc(out, func(a, b mutant.Mutant[Build]) int { return strings.Compare(a.Name, b.Name) })
	return out
})

// Catalogue lists every server mutant, by name.
func Catalogue() []mutant.Mutant[Build] { return slices.Clone(catalogue()) }

// ByName finds a mutant of the catalogue.
func ByName(name string) (mutant.Mutant[Build], bool) {
	all := catalogue()
	i := slices.IndexFunc(all, func(m mutant.Mutant[Build]) bool { return m.Name == name })
	if i < 0 {
		return mutant.Mutant[Build]{}, false
	}
	return all[i], true
}
