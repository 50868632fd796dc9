package load_test

import (
	"bytes"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/storecheck/storecheck/load"
	"github.com/storecheck/storecheck/schema/schematest"
)

// TestReportsConform: a run's JSON report and a comparison's conform to the schemas they
// name (schema/load.v1.json, schema/load-comparison.v1.json), and a field the schema does
// not know is refused, in a run and in a subject's result within a comparison.
func TestReportsConform(t *testing.T) {
	stub := httptest.NewServer(load.Stub())
	defer stub.Close()
	cfg := load.Config{Principals: principals, Anonymous: true, Unjudged: true, Clients: 4, Tasks: 40,
		Wait: 3 * time.Second, Timeout: 5 * time.Second}
	subs := []load.Subject{{Name: "one", URLs: []string{stub.URL + "/mcp"}}, {Name: "two", URLs: []string{stub.URL + "/mcp"}}}
	c, err := load.Compare(t.Context(), cfg, subs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var run, comp bytes.Buffer
	if err := load.WriteJSON(&run, c.Subjects[0].Result); err != nil {
		t.Fatal(err)
	}
	if err := load.WriteComparisonJSON(&comp, c); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, run.Bytes())
	schematest.Check(t, comp.Bytes())
	for _, bad := range []struct {
		name string
		data []byte
	}{
		{"a run with an unknown field", schematest.Edit(t, run.Bytes(), func(m map[string]any) { m["tasks_made"] = 1 })},
		{"a run without its operations", schematest.Edit(t, run.Bytes(), func(m map[string]any) { delete(m, "operations") })},
		{"a comparison whose subject's result has an unknown field", schematest.Edit(t, comp.Bytes(), func(m map[string]any) {
			m["subjects"].([]any)[1].(map[string]any)["result"].(map[string]any)["tasks_made"] = 1
		})},
		{"a comparison with a verdict of no kind", schematest.Edit(t, comp.Bytes(), func(m map[string]any) {
			m["subjects"].([]any)[0].(map[string]any)["verdict"] = "fine"
		})},
	} {
		if err := schematest.Validate(bad.data); err == nil {
			t.Errorf("%s: the schema accepted it; want it refused", bad.name)
		}
	}
}
