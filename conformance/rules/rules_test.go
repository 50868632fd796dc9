package rules

import (
	"encoding/json"
	"testing"
)

// storecheck list --json writes the catalogue: each field under its own name.
func TestRuleJSONNamesEachField(t *testing.T) {
	r, ok := ByID("L-LIST-4")
	if !ok {
		t.Fatal("L-LIST-4 is not in the catalogue")
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"ID": "L-LIST-4", "Level": string(r.Level), "Part": "legacy", "Area": "list", "Text": r.Text}
	if len(got) != len(want) {
		t.Errorf("json.Marshal(rule L-LIST-4) = %s, want exactly the keys ID, Level, Part, Area, Text", b)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("json.Marshal(rule L-LIST-4) key %q = %v, want %v (in %s)", k, got[k], v, b)
		}
	}
}
