package reference

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestGenerateID(t *testing.T) {
	const n = 100_000
	seen := make(map[string]struct{}, n)
	prefixes := make(map[string]string, n)
	ascending := 0
	prev := ""
	var perPos [22]map[rune]int
	for i := range perPos {
		perPos[i] = map[rune]int{}
	}
	for i := range n {
		id := GenerateID()
		if len(id) != 22 {
			t.Fatalf("S-ID-1: GenerateID() = %q: want 22 characters, got %d", id, len(id))
		}
		for i, r := range id {
			perPos[i][r]++
			if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
				t.Fatalf("S-ID-1: GenerateID() = %q: character %q is not in [A-Za-z0-9_-]", id, r)
			}
		}
		if b, err := base64.RawURLEncoding.DecodeString(id); err != nil || len(b) != 16 {
			t.Fatalf("S-ID-1: GenerateID() = %q: want 16 bytes of base64url, got %d bytes, err %v", id, len(b), err)
		}
		if _, dup := seen[id]; dup {
			t.Fatalf("S-ID-1: GenerateID() repeated %q after %d ids", id, i)
		}
		seen[id] = struct{}{}
		// 48 random bits: a shared 8-character prefix among 100 000 ids has odds ~2e-5.
		if other, dup := prefixes[id[:8]]; dup {
			t.Fatalf("S-ID-1: ids %q and %q share the prefix %q", other, id, id[:8])
		}
		prefixes[id[:8]] = id
		if prev != "" && id > prev {
			ascending++
		}
		prev = id
	}
	// 128 random bits fill 21 characters with 6 bits each and the last with 2: every
	// position must show all its values, each about equally often (no fixed or counting
	// part). Expected count per value at positions 0..20 is 100000/64 ≈ 1563, σ ≈ 39.
	for i, counts := range perPos {
		want := 64
		if i == 21 {
			want = 4
		}
		if len(counts) != want {
			t.Errorf("S-ID-1: position %d of 100 000 ids shows %d distinct characters, want %d", i, len(counts), want)
		}
		for r, c := range counts {
			if exp := n / want; c < exp*3/4 || c > exp*5/4 {
				t.Errorf("S-ID-1: position %d holds %q in %d of 100 000 ids, want about %d", i, r, c, exp)
			}
		}
	}
	// Random ids ascend about half the time; a counter or a clock prefix ascends always.
	if frac := float64(ascending) / (n - 1); frac < 0.45 || frac > 0.55 {
		t.Errorf("S-ID-1: %.3f of consecutive ids ascend: want about 0.5 (a monotonic pattern?)", frac)
	}
}

func TestValidateID(t *testing.T) {
	valid := []string{
		"a", "a:b", "{a}", "a%", "a_", "a*", " padded ", "UPPER", "ünïcödé", "😀", "a/b\\c",
		strings.Repeat("x", MaxIDBytes), strings.Repeat("é", MaxIDBytes/2), "tab\there", "$1", ".*",
	}
	for _, id := range valid {
		if err := ValidateID(id); err != nil {
			t.Errorf("S-ID-2: ValidateID(%q) (%d bytes): want nil, got %v", id, len(id), err)
		}
	}
	invalid := []string{
		"", strings.Repeat("x", MaxIDBytes+1), strings.Repeat("é", MaxIDBytes/2) + "x",
		"a\x00b", "\x00", "\xff", "a\xc3", string([]byte{0xed, 0xa0, 0x80}),
	}
	for _, id := range invalid {
		err := ValidateID(id)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("S-ID-2: ValidateID(%q) (%d bytes): want an error wrapping ErrInvalid, got %v", id, len(id), err)
		}
	}
}
