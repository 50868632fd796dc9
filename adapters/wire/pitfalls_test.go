package wire

import (
	"errors"
	"strings"
	"testing"
)

// TestStrayStdoutLineHint: a blank line or a log line on stdout is named as what it most
// likely is; a broken JSON object is not.
func TestStrayStdoutLineHint(t *testing.T) {
	for _, tc := range []struct {
		line string
		hint bool
	}{
		{"", true},
		{"   ", true},
		{"12:00:00.123 [info] store started", true},
		{"Listening on stdin", true},
		{`{"id": 1, "ok": `, false},
		{`[1, 2]`, false},
	} {
		_, err := DecodeAnswer([]byte(tc.line))
		if !errors.Is(err, ErrProtocol) {
			t.Fatalf("DecodeAnswer(%q) = %v, want ErrProtocol", tc.line, err)
		}
		if got := strings.Contains(err.Error(), "is a logger writing to stdout?"); got != tc.hint {
			t.Errorf("DecodeAnswer(%q): logger hint %v, want %v: %v", tc.line, got, tc.hint, err)
		}
	}
}
