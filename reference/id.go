package reference

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// MaxIDBytes is the longest id every store must accept (S-ID-2).
const MaxIDBytes = 512

// GenerateID returns a new task id: 16 bytes from a CSPRNG, base64url without padding,
// 22 characters of [A-Za-z0-9_-] (S-ID-1). Ids are bearer tokens, so they must be
// unguessable, not merely unique.
func GenerateID() string {
	var b [16]byte
	// crypto/rand.Read never returns an error since Go 1.24; it crashes the program
	// rather than hand out a predictable id.
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ValidateID accepts any id of 1..512 bytes of valid UTF-8 without a NUL and wraps
// ErrInvalid otherwise (S-ID-2). Ids are opaque: nothing else is checked.
func ValidateID(id string) error {
	switch {
	case id == "":
		return ErrorFor(ErrInvalid, "empty task id")
	case len(id) > MaxIDBytes:
		return ErrorFor(ErrInvalid, "task id longer than 512 bytes")
	case !utf8.ValidString(id):
		return ErrorFor(ErrInvalid, "task id is not valid UTF-8")
	case strings.IndexByte(id, 0) >= 0:
		return ErrorFor(ErrInvalid, "task id contains NUL")
	}
	return nil
}
