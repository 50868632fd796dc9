package wire

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/storecheck/storecheck/reference/modern"
)

// FuzzDecodeAnswer feeds arbitrary child output through every decoder the client
// applies to it: the line framing, then the ok value read as each op's answer. Nothing
// may panic; a line is either a well-formed answer (exactly one of ok and error) or an
// ErrProtocol error; a modern task that decodes survives a round trip through its wire
// form. Seeds live in testdata/fuzz/FuzzDecodeAnswer.
func FuzzDecodeAnswer(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"ok":null}`,
		`{"id":2,"error":{"code":"not_found","message":"task not found: t1"}}`,
		`{"id":3,"ok":{"protocol":1,"name":"demo","eras":["legacy"],"legacy":{"cancel":true},"clock":true}}`,
		`{"id":4,"ok":[{"task_id":"t","n":9223372036854775807,"f":1e-7}]}`,
		`{"id":5,"ok":{"task_id":"t","owner":null,"status":"working","status_message":"","created_at_ms":1,"last_updated_at_ms":1,"ttl_ms":null,"poll_interval_ms":5,"result":null,"error":null,"input_requests":{},"staged_responses":{},"input_responses":{},"issued_keys":["k"],"version":1}}`,
		`{"id":6,"ok":3}`,
		`{"id":7,"ok":1,"error":{"code":"x"}}`,
		`{"id":8}`,
		`{"id":"9","ok":1}`,
		`{"id":1e400,"ok":1}`,
		`{"id":10,"error":{"code":7}}`,
		`[1,2]`,
		`null`,
		"{\"id\":11,\"ok\":\"\xff\"}",
		`{"id":12,"ok":{}}` + "\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		a, err := DecodeAnswer(line)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("DecodeAnswer error %q does not wrap ErrProtocol", err)
			}
			return
		}
		if (a.OK == nil) == (a.Err == nil) {
			t.Fatalf("DecodeAnswer(%q) = %+v: want exactly one of ok and error", line, a)
		}
		if a.Err != nil {
			_ = a.Err.Error()
			return
		}
		if !json.Valid(a.OK) {
			t.Fatalf("ok value %q is not valid JSON", a.OK)
		}
		_, _ = parseHello(a.OK)
		_, _ = decodeLegacyTask(a.OK)
		_, _ = decodeLegacyList(a.OK)
		_, _ = decodeCount(a.OK)
		task, err := decodeModernTask(a.OK)
		if err != nil {
			return
		}
		raw, err := encodeModernTask(task)
		if err != nil {
			return // e.g. a string JSON could only carry as U+FFFD
		}
		again, err := decodeModernTask(raw)
		if err != nil || !modern.Equal(task, again) {
			t.Fatalf("modern task %q: round trip through %s gave %+v, %v", a.OK, raw, again, err)
		}
	})
}

func TestDecodeAnswerIDs(t *testing.T) {
	for line, want := range map[string]int64{`{"id":7,"ok":1}`: 7, `{"id":7.0,"ok":1}`: 7, `{"id":-2,"ok":1}`: -2} {
		if a, err := DecodeAnswer([]byte(line)); err != nil || a.ID != want {
			t.Errorf("DecodeAnswer(%s) = id %d, %v; want id %d", line, a.ID, err, want)
		}
	}
	for _, line := range []string{`{"id":"7","ok":1}`, `{"id":7.5,"ok":1}`, `{"id":null,"ok":1}`, `{"id":1e30,"ok":1}`, `{"ok":1}`} {
		if _, err := DecodeAnswer([]byte(line)); !errors.Is(err, ErrProtocol) {
			t.Errorf("DecodeAnswer(%s) = %v, want ErrProtocol", line, err)
		}
	}
}
