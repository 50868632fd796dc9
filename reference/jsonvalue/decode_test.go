package jsonvalue

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/reference/jsonscan"
)

// decodeSeeds are values the fast path must decode exactly as encoding/json does, or
// leave to it: escapes, invalid UTF-8, repeated keys, deep nesting, exact numbers,
// malformed text.
var decodeSeeds = []string{
	`{"task_id":"t-1","status":"working","created_at":1764400000000,"owner":null,"meta":{"a":[1,2.5,-0,1e-7,true,false,null]}}`,
	`9223372036854775807`, `18446744073709551616`, `-1.5E+300`, `0`, `-0`, `"plain"`, `""`, `[]`, `{}`, ` {"a" : [ ] } `,
	`"esc\"aped\\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud800"`, "\"bad\xffutf8\"", `{"k\u0041":1}`, `{"a":1,"a":2}`,
	`{"a":{"b":{"c":{"d":[[[[["deep"]]]]]}}}}`, strings.Repeat("[", 70) + strings.Repeat("]", 70),
	`{"a":1,}`, `[1,2,]`, `01`, `1.`, `1e`, `-`, `tru`, `nul`, `"\x"`, `"\u12"`, "\"ctl\x01\"", `{"a" 1}`,
	`{"a":1} {"b":2}`, `1 2`, ``, ` `, `{"a":"x"`, `[1`, "\xef\xbb\xbf{}",
}

// FuzzDecode checks Decode's fast path against encoding/json: whatever jsonscan takes,
// decodeSlow takes with the same value; whatever jsonscan.SkipValue validates is JSON.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecode)
}

func TestDecodeSeeds(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecode(t, []byte(s))
	}
	// And the fast path is taken for the common rows (or this test proves nothing).
	if _, ok := jsonscan.Decode([]byte(decodeSeeds[0])); !ok {
		t.Errorf("jsonscan.Decode refuses a plain task row: Decode always takes the slow path")
	}
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	if i := jsonscan.SkipWS(data, 0); jsonscan.SkipValue(data, i) >= 0 {
		if end := jsonscan.SkipValue(data, i); !json.Valid(data[i:end]) {
			t.Fatalf("SkipValue accepts %q, encoding/json does not", data[i:end])
		}
	}
	fast, ok := jsonscan.Decode(data)
	slow, err := decodeSlow(data)
	if ok && (err != nil || !reflect.DeepEqual(fast, slow)) {
		t.Fatalf("jsonscan.Decode(%q) = %#v; encoding/json = %#v, %v", data, fast, slow, err)
	}
	got, gerr := Decode(data)
	if (gerr == nil) != (err == nil) || err == nil && !reflect.DeepEqual(got, slow) {
		t.Fatalf("Decode(%q) = %#v, %v; encoding/json = %#v, %v", data, got, gerr, slow, err)
	}
}

// BenchmarkDecode: a task row through Decode (the fast path) and through encoding/json.
func BenchmarkDecode(b *testing.B) {
	row := []byte(decodeSeeds[0])
	for _, c := range []struct {
		name string
		f    func([]byte) (any, error)
	}{{"path=fast", Decode}, {"path=encoding-json", decodeSlow}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.f(row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
