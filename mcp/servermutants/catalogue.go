// Package servermutants holds the reference MCP server's deliberate defects as wrappers
// around the honest server: a Handler put around its dispatch (server.Config.Wrap), or a
// filter on what a stdio server reads. The probe must fail each on exactly the rules it
// declares (storecheck's proof that its server checks bite), and pass each honest twin.
//
// The defects still switched on by server.Config.Mutant are listed here too, so that
// every runner (the probe's tests, storecheck mutants --server) reads one catalogue.
package servermutants

import (
	"io"
	"slices"
	"strings"

	"github.com/storecheck/storecheck/mcp/server"
)

// Mutant is one deliberate defect of the reference server.
type Mutant struct {
	Name string
	// Breaks are the rules the probe must fail, and only those; none for an honest twin.
	Breaks []string
	// Honest marks a twin that serves differently but breaks nothing: it must pass.
	Honest bool
	// Empty marks a server that serves nothing the probe checks (no tasks): it is killed
	// when the probe exercises no rule, so that such a run cannot pass.
	Empty bool
	Doc   string
	// Wrap puts the defect around the server's dispatch; die ends the server as a crash
	// would (the process exits, or the endpoint stops taking connections). nil: none.
	Wrap func(next server.Handler, die func()) server.Handler
	// Input filters what a stdio server reads. nil: none.
	Input func(io.Reader) io.Reader
	// StdioOnly marks a defect only a stdio server has (an Input filter): over HTTP it is
	// the honest server, so the HTTP runners leave it to the probe's stdio tests.
	StdioOnly bool
	// switched is the server.Config.Mutant name of a defect not yet a wrapper.
	switched string
}

// Configure returns cfg serving with the defect; die is how the server crashes.
func (m Mutant) Configure(cfg server.Config, die func()) server.Config {
	if m.switched != "" {
		cfg.Mutant = m.switched
	}
	if m.Wrap != nil {
		inner := cfg.Wrap
		cfg.Wrap = func(next server.Handler) server.Handler {
			if inner != nil {
				next = inner(next)
			}
			return m.Wrap(next, die)
		}
	}
	return cfg
}

// Stdin is what a stdio server with the defect reads of in.
func (m Mutant) Stdin(in io.Reader) io.Reader {
	if m.Input == nil {
		return in
	}
	return m.Input(in)
}

// wrapped are the defects built as wrappers, by the family of rules they bite.
var wrapped = slices.Concat(transportMutants, capabilityMutants, inputMutants)

// Catalogue lists every server mutant, by name.
func Catalogue() []Mutant {
	out := slices.Clone(wrapped)
	for name, rules := range server.Mutants {
		out = append(out, Mutant{Name: name, Breaks: strings.Fields(rules), switched: name})
	}
	slices.SortFunc(out, func(a, b Mutant) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ByName finds a mutant of the catalogue.
func ByName(name string) (Mutant, bool) {
	i := slices.IndexFunc(Catalogue(), func(m Mutant) bool { return m.Name == name })
	if i < 0 {
		return Mutant{}, false
	}
	return Catalogue()[i], true
}
