package sdkspecs

import (
	"encoding/base64"
	"testing"
)

// TestDeriveCursorsCorruptsEachPart: a cursor's parts are found (base64 around JSON,
// fields between '.', ':' or '|') and each is corrupted in turn, the others kept: a date
// is made one that does not exist, an id one never issued.
func TestDeriveCursorsCorruptsEachPart(t *testing.T) {
	enc := base64.RawURLEncoding
	issued := enc.EncodeToString([]byte(`{"after":"task-17","at":"2025-11-29T07:06:40.000Z"}`))
	want := map[string]bool{
		enc.EncodeToString([]byte(`{"after":"task-17","at":"2025-13-45T99:99:99.999Z"}`)):               false,
		enc.EncodeToString([]byte(`{"after":"storecheck-no-such-id","at":"2025-11-29T07:06:40.000Z"}`)): false,
		"1764400000000|storecheck-no-such-id":                                                           false,
		"2025-13-45T99:99:99.999Z|task-17":                                                              false,
		"1764400000000.task-18":                                                                         false,
	}
	for _, c := range []string{issued, "1764400000000|task-17", "1764400000000.task-17"} {
		for _, f := range deriveCursors(c) {
			if f.cursor == c {
				t.Errorf("deriveCursors(%q) returned the issued cursor itself (%s)", c, f.what)
			}
			if _, ok := want[f.cursor]; ok {
				want[f.cursor] = true
			}
		}
	}
	for c, found := range want {
		if !found {
			t.Errorf("no forgery %q", c)
		}
	}
	// A millisecond date between separators is a date too.
	found := false
	for _, f := range deriveCursors("1764400000000|task-17") {
		found = found || f.cursor == "2025-13-45T99:99:99.999Z|task-17"
	}
	if !found {
		t.Errorf("the millisecond date of %q was not corrupted as a date", "1764400000000|task-17")
	}
}
