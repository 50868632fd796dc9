package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/storecheck/storecheck/schema"
)

var (
	// ErrNotReport: the input is not a JSON object.
	ErrNotReport = errors.New("not a storecheck JSON report")
	// ErrSchema: the report names no schema this storecheck reads (none, a version it
	// does not know, or another kind of report).
	ErrSchema = errors.New("a report schema this storecheck does not read")
)

// Read reads a report JSON wrote (storecheck run or probe --json). A report of another
// kind (faults, mutants) or of a schema version this storecheck does not know is
// ErrSchema, saying which it is.
func Read(r io.Reader) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("%w: not JSON (it begins %q)", ErrNotReport, clipBytes(data, 40))
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: JSON, but not an object (it begins %q)", ErrNotReport, clipBytes(data, 40))
	}
	switch {
	case head.Schema == nil:
		return nil, fmt.Errorf("%w: it names no schema (a report written before %s, or not storecheck's)", ErrSchema, schema.Report)
	case *head.Schema == schema.Report:
	case schema.File(*head.Schema) != "":
		return nil, fmt.Errorf("%w: %s is the schema of another kind of report; run and probe reports are %s", ErrSchema, *head.Schema, schema.Report)
	default:
		return nil, fmt.Errorf("%w: schema %q (this storecheck reads %s; a newer storecheck may read it)", ErrSchema, *head.Schema, schema.Report)
	}
	f := &File{Report: &Report{}}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotReport, err)
	}
	return f, nil
}

// clipBytes is the first n bytes of b, for an error message.
func clipBytes(b []byte, n int) string {
	return truncate(strings.TrimSpace(string(b[:min(len(b), 4*n)])), n)
}
