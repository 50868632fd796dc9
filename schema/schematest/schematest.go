// Package schematest validates the reports storecheck's tests write against the schemas
// of package schema, so that a report and its published schema cannot drift apart. It is
// for tests: the validator it links stays out of the storecheck binary.
package schematest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/storecheck/storecheck/schema"
)

var (
	// ErrUnknownSchema: the report names no schema of package schema.
	ErrUnknownSchema = errors.New("the report names no known schema")
	// ErrInvalid: the report does not conform to the schema it names.
	ErrInvalid = errors.New("the report does not conform to its schema")
)

// compiled holds every schema of package schema by identifier, compiled once.
var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	files, err := fs.Glob(schema.Files, "*.json")
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, name := range files {
		b, err := schema.Files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		if err := c.AddResource(id, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ids = append(ids, id)
	}
	out := map[string]*jsonschema.Schema{}
	for _, id := range ids {
		if out[id], err = c.Compile(id); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// Validate checks data, a JSON report, against the schema its "schema" field names.
func Validate(data []byte) error {
	schemas, err := compiled()
	if err != nil {
		return fmt.Errorf("compiling the schemas: %w", err)
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("%w: not a JSON object: %v", ErrInvalid, err)
	}
	sch, ok := schemas[head.Schema]
	if !ok || schema.File(head.Schema) == "" {
		return fmt.Errorf("%w: schema %q", ErrUnknownSchema, head.Schema)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("%w %s: %v", ErrInvalid, schema.File(head.Schema), err)
	}
	return nil
}

// Check fails t when the report data does not conform to the schema it names.
func Check(t testing.TB, data []byte) {
	t.Helper()
	if err := Validate(data); err != nil {
		t.Errorf("the JSON report storecheck wrote does not conform to its schema: %v\nreport:\n%s", err, clip(data))
	}
}

// CheckFile is Check of the report in the file at path.
func CheckFile(t testing.TB, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("reading the JSON report to check its schema: %v", err)
		return
	}
	Check(t, data)
}

// Edit is the JSON report data with change applied to it as an object: a test's way to
// make a report the schema must refuse.
func Edit(t testing.TB, data []byte, change func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// clip keeps a long report's head in a failure message.
func clip(data []byte) []byte {
	const limit = 4000
	if len(data) > limit {
		return append(data[:limit:limit], "…"...)
	}
	return data
}
