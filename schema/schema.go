// Package schema holds the JSON Schemas (draft 2020-12) of the reports storecheck writes,
// one file per report kind and version, and their identifiers. A report names its schema
// in its "schema" field; docs/reports.md says how the format changes (CHANGELOG.md).
package schema

import "embed"

// The identifiers of the schemas: a report's "schema" field and its schema's $id.
const (
	// Report is the report of storecheck run and storecheck probe (--json).
	Report = "https://storecheck.dev/schema/report/v1.json"
	// Faults is the report of storecheck run --faults (--json).
	Faults = "https://storecheck.dev/schema/faults/v1.json"
	// Mutants is the report of storecheck mutants (--json).
	Mutants = "https://storecheck.dev/schema/mutants/v1.json"
	// ServerMutants is the report of storecheck mutants --server (--json).
	ServerMutants = "https://storecheck.dev/schema/server-mutants/v1.json"
	// Load is the report of one storecheck load run (--json).
	Load = "https://storecheck.dev/schema/load/v1.json"
	// LoadComparison is the report of storecheck load against several subjects (--json).
	LoadComparison = "https://storecheck.dev/schema/load-comparison/v1.json"
)

// Files are the schemas, named KIND.vN.json.
//
//go:embed *.json
var Files embed.FS

// File names the file of the schema with identifier id in Files ("" for none).
func File(id string) string {
	return map[string]string{Report: "report.v1.json", Faults: "faults.v1.json",
		Mutants: "mutants.v1.json", ServerMutants: "server-mutants.v1.json",
		Load: "load.v1.json", LoadComparison: "load-comparison.v1.json"}[id]
}
