package mutants

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/mutant"
)

// Wire mutants: the honest Go child (the reference facades over the honest store, as
// `storecheck serve --facade` serves them) behind a filter on its requests. A Go
// facade's owner is a string, so a defect in how a shim decodes a facade create's owner
// null cannot live in a Go facade: it lives in the filter, which rewrites what the
// honest server reads. They are not in the catalogue (`storecheck serve` has no such
// filter); a test binary serves them as its own child.

// WireBuild is how a wire mutant is built: the honest Go child with a defect in how it
// reads its requests. A wire mutant (mutant.Mutant[WireBuild]) must fail exactly its
// Breaks.
type WireBuild struct {
	// Input wraps the child's standard input.
	Input func(io.Reader) io.Reader
}

// WireHarness is what a wire mutant's child serves: the honest store under the reference
// facades.
func WireHarness() harness.Harness { return harness.WithReferenceFacades(Honest()) }

// noOwnerRules are the rules whose walks create tasks with "no owner" sent as null.
var noOwnerRules = []string{"L-F-CREATE-1", "L-F-SCOPE-1", "L-F-LIST-1", "M-F-CREATE-1", "M-F-SCOPE-1"}

// WireMutants are the wire mutants.
func WireMutants() []mutant.Mutant[WireBuild] {
	return []mutant.Mutant[WireBuild]{
		{Name: "wire-owner-null-as-principal", Breaks: noOwnerRules,
			Defect: `the child decodes a facade create's owner null as the principal named "null" ("" stays no owner)`,
			Build:  WireBuild{nullOwnerAs("null")}},
		{Name: "wire-owner-null-refused", Breaks: noOwnerRules,
			Defect: `the child's decoder takes a facade create's owner as a string only: owner null is answered invalid ("" stays no owner)`,
			Build:  WireBuild{nullOwnerAs(json.Number("0"))}},
	}
}

// nullOwnerAs rewrites the owner of each facade create whose owner is null to v: the
// value the honest server then decodes. Every other line passes through unchanged.
func nullOwnerAs(v any) func(io.Reader) io.Reader {
	return func(r io.Reader) io.Reader {
		pr, pw := io.Pipe()
		go func() {
			br := bufio.NewReaderSize(r, 64<<10)
			for {
				line, err := br.ReadBytes('\n')
				if len(line) > 0 {
					if _, werr := pw.Write(rewriteNullOwner(line, v)); werr != nil {
						return
					}
				}
				if err != nil {
					pw.CloseWithError(err)
					return
				}
			}
		}()
		return pr
	}
}

// rewriteNullOwner is line with a facade create's owner null replaced by v, or line
// itself when it is no such request. A rewritten line is re-encoded (numbers kept as
// written; strings that were not valid UTF-8 are not, which no owner-null create
// of the battery sends).
func rewriteNullOwner(line []byte, v any) []byte {
	if !bytes.Contains(line, []byte(`"owner":null`)) {
		return line
	}
	var req map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if dec.Decode(&req) != nil {
		return line
	}
	args, _ := req["args"].(map[string]any)
	switch req["op"] {
	case "legacy.tasks.create":
	case "modern.tasks.create":
		args, _ = args["options"].(map[string]any)
	default:
		return line
	}
	if o, ok := args["owner"]; !ok || o != nil {
		return line
	}
	args["owner"] = v
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(req) != nil {
		return line
	}
	return b.Bytes()
}
