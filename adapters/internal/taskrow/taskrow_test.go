package taskrow

import (
	"reflect"
	"testing"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// slowFill is FillModern as it was: encoding/json into the struct.
func slowFill(body string) (modern.Task, error) {
	var b modernBody
	if err := DecodeJSON(body, &b); err != nil {
		return modern.Task{}, err
	}
	return modern.Task{Status: b.Status, StatusMessage: b.StatusMessage, LastUpdatedAt: b.LastUpdatedAt,
		PollInterval: b.PollInterval, Result: b.Result, Error: b.Error, InputRequests: b.InputRequests,
		StagedResponses: b.StagedResponses, InputResponses: b.InputResponses, IssuedKeys: b.IssuedKeys}, nil
}

var modernSeeds = []string{
	`{"status":"working","status_message":"","last_updated_at":1,"poll_interval":null,"result":null,"error":null,"input_requests":null,"staged_responses":null,"input_responses":null,"issued_keys":null}`,
	`{"status":"completed","status_message":"done <&>","last_updated_at":-9223372036854775808,"poll_interval":1000,"result":{"n":1.5e300,"s":"\u0000é","a":[1,null,true,{"x":{}}]},"error":{},"input_requests":{"k":{"q":"?"}},"staged_responses":{},"input_responses":{"k":"v"},"issued_keys":["k","",null]}`,
	`{"status":null,"status_message":null,"last_updated_at":null,"issued_keys":[]}`,
	`{"Status":"working"}`,                    // another case: encoding/json matches it, the fast path does not
	`{"status":"working","extra":1}`,          // unknown key: ignored by encoding/json
	`{"last_updated_at":1.0}`,                 // not an int64 literal: an error
	`{"last_updated_at":9223372036854775808}`, // out of range: an error
	`{"poll_interval":"5"}`,                   // wrong type: an error
	`{"result":[1]}`,                          // wrong type: an error
	`{"issued_keys":[1]}`,                     // wrong element type: an error
	`{"status":"a","status":"b","poll_interval":1,"poll_interval":null}`, // duplicates: the last wins
	`{"status":"a","status":null,"result":{"a":1},"result":{"b":2}}`,     // encoding/json merges the maps
	`{"result":{"a":1,"a":2}}`,
	`{"status":"w\u00e9"}`, "{\"st\\u0061tus\":\"w\"}",
	`[]`, `null`, `{"status":"working"`, ``,
}

// TestFillModernMatchesEncodingJSON: FillModern gives what encoding/json gave, task and
// error alike, and takes the fast path for what NewModern writes.
func TestFillModernMatchesEncodingJSON(t *testing.T) {
	for _, body := range modernSeeds {
		checkFill(t, body)
	}
	row, err := NewModern(modern.Task{TaskID: "t", Status: reference.StatusInputRequired, StatusMessage: "m",
		LastUpdatedAt: 5, PollInterval: new(int64(7)), Result: map[string]any{"x": "y"}, IssuedKeys: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	checkFill(t, row.Body)
	var b modernBody
	if !b.fill(row.Body) {
		t.Errorf("the fast path refused what NewModern wrote: %s", row.Body)
	}
}

func FuzzFillModern(f *testing.F) {
	for _, s := range modernSeeds {
		f.Add(s)
	}
	f.Fuzz(checkFill)
}

func checkFill(t *testing.T, body string) {
	t.Helper()
	want, wantErr := slowFill(body)
	var got modern.Task
	gotErr := FillModern(&got, body)
	if (wantErr == nil) != (gotErr == nil) || (wantErr == nil && !reflect.DeepEqual(got, want)) {
		t.Errorf("FillModern(%q) = %#v, %v\nencoding/json gave %#v, %v", body, got, gotErr, want, wantErr)
	}
}

// BenchmarkFillModern: a modern row's body decoded, through FillModern and through
// encoding/json as before (path=slow).
func BenchmarkFillModern(b *testing.B) {
	row, err := NewModern(modern.Task{TaskID: "t", Status: reference.StatusWorking, StatusMessage: "queued",
		LastUpdatedAt: 1764633600000, PollInterval: new(int64(1000)), Result: map[string]any{"n": 1}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("path=fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var t modern.Task
			if err := FillModern(&t, row.Body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("path=slow", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := slowFill(row.Body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
