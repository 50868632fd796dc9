package sdkspecs

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/storecheck/storecheck/reference"
)

// TestIDEntropy: the P-ID-1 estimate passes the SDKs' ids (16 random bytes in hex,
// base64url, UUID v4) and fails guessable ones (counters, timestamps, short random).
func TestIDEntropy(t *testing.T) {
	gen := func(f func(i int) string) []string {
		ids := make([]string, idSamples)
		for i := range ids {
			ids[i] = f(i)
		}
		return ids
	}
	random := func(n int) string {
		b := make([]byte, n)
		_, _ = rand.Read(b)
		return hex.EncodeToString(b)
	}
	uuid4 := func(int) string {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		h := hex.EncodeToString(b)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	for _, c := range []struct {
		name string
		ids  []string
		pass bool
	}{
		{"32 hex characters (TypeScript SDK)", gen(func(int) string { return random(16) }), true},
		{"base64url of 16 bytes (reference.GenerateID)", gen(func(int) string { return reference.GenerateID() }), true},
		{"UUID v4 (C# SDK)", gen(uuid4), true},
		{"prefixed random", gen(func(int) string { return "task_" + random(16) }), true},
		{"a counter", gen(func(i int) string { return fmt.Sprintf("task-%d", i+1) }), false},
		{"a timestamp and a counter", gen(func(i int) string { return fmt.Sprintf("1764400000%06d", i) }), false},
		{"8 random bytes", gen(func(int) string { return random(8) }), false},
	} {
		bits := idEntropy(c.ids)
		if (bits >= minIDBits) != c.pass {
			t.Errorf("%s: %.1f bits; want pass=%v at %d", c.name, bits, c.pass, minIDBits)
		}
	}
}
