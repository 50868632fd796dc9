package sdkspecs

import (
	"encoding/base64"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Cursors forged from one the store issued: each part the battery can find in it
// (base64 around JSON, fields separated by '.', ':' or '|', a date, an id) corrupted in
// turn, the rest kept, so that the forgery keeps the issued cursor's shape and reaches
// the store's parser past its first check.

// forgedCursor is a forgery and what was changed in it.
type forgedCursor struct{ cursor, what string }

// separators are the characters a cursor's fields are joined with.
var separators = []string{".", ":", "|"}

// b64 are the encodings a cursor is tried in, most specific first.
var b64 = []struct {
	name string
	enc  *base64.Encoding
}{
	{"base64url", base64.RawURLEncoding}, {"base64url", base64.URLEncoding},
	{"base64", base64.RawStdEncoding}, {"base64", base64.StdEncoding},
}

// deriveCursors returns forgeries of issued, each with one part corrupted.
func deriveCursors(issued string) []forgedCursor {
	var out []forgedCursor
	add := func(c, what string) {
		if c != issued && c != "" {
			out = append(out, forgedCursor{c, what})
		}
	}
	// The whole cursor: one byte changed at each end, one cut off, one added.
	add(flip(issued[:len(issued)-1])+issued[len(issued)-1:], "its first bytes changed")
	add(issued[:len(issued)-1]+string(flipRune(rune(issued[len(issued)-1]))), "its last byte changed")
	add(issued[:len(issued)-1], "its last byte cut off")
	add(issued+"A", "a byte added")
	// base64 around JSON: each field of the decoded object corrupted, encoded back alike.
	for _, b := range b64 {
		raw, err := b.enc.DecodeString(issued)
		if err != nil {
			continue
		}
		for _, f := range derivePlain(string(raw)) {
			add(b.enc.EncodeToString([]byte(f.cursor)), b.name+" of "+f.what)
		}
		add(b.enc.EncodeToString(append(raw[:len(raw):len(raw)], 0xff)), b.name+" of its bytes and one more")
		break
	}
	for _, f := range derivePlain(issued) {
		add(f.cursor, f.what)
	}
	return out
}

// derivePlain corrupts each part of a decoded cursor in turn: each field of a JSON
// object, or each field between separators.
func derivePlain(s string) []forgedCursor {
	var out []forgedCursor
	var obj map[string]any
	if json.Unmarshal([]byte(s), &obj) == nil && len(obj) > 0 {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, bad := range corruptValue(obj[k]) {
				c := map[string]any{}
				for k2, v := range obj {
					c[k2] = v
				}
				c[k] = bad.v
				b, _ := json.Marshal(c)
				out = append(out, forgedCursor{string(b), "its JSON field " + k + " " + bad.what})
			}
		}
		return out
	}
	for _, sep := range separators {
		parts := strings.Split(s, sep)
		if len(parts) < 2 {
			continue
		}
		for i, p := range parts {
			for _, bad := range corruptText(p) {
				c := append([]string(nil), parts...)
				c[i] = bad.v.(string)
				out = append(out, forgedCursor{strings.Join(c, sep), "its part " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(parts)) + " (split at " + sep + ") " + bad.what})
			}
		}
	}
	return out
}

type badValue struct {
	v    any
	what string
}

// corruptValue are wrong values for a JSON field: text corrupted as text, a number
// made negative and made text.
func corruptValue(v any) []badValue {
	switch x := v.(type) {
	case string:
		return corruptText(x)
	case float64:
		return []badValue{{-x - 1, "made negative"}, {"x", "made text"}}
	}
	return []badValue{{"x", "replaced by text"}}
}

// corruptText are wrong values for a text part: a date that is no date and one moved
// to another valid instant; an id changed in its last character and one never issued.
func corruptText(s string) []badValue {
	if looksLikeDate(s) {
		return []badValue{
			{"2025-13-45T99:99:99.999Z", "made a date that does not exist"},
			{"2001-02-03T04:05:06.007Z", "moved to another valid date"},
		}
	}
	if s == "" {
		return []badValue{{"x", "filled"}}
	}
	return []badValue{
		{s[:len(s)-1] + string(flipRune(rune(s[len(s)-1]))), "changed in its last character"},
		{"storecheck-no-such-id", "replaced by an id never issued"},
	}
}

// looksLikeDate reports whether s is an ISO 8601 instant or a number of milliseconds
// of this century.
func looksLikeDate(s string) bool {
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return true
	}
	if len(s) == 13 && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		return s >= "0946684800000" && s < "4102444800000"
	}
	return false
}

// flip changes the first character of s.
func flip(s string) string {
	if s == "" {
		return s
	}
	return string(flipRune(rune(s[0]))) + s[1:]
}

// flipRune is another character of the same class (digit, letter, other).
func flipRune(r rune) rune {
	switch {
	case r >= '0' && r <= '8', r >= 'a' && r <= 'y', r >= 'A' && r <= 'Y':
		return r + 1
	case r == '9':
		return '0'
	case r == 'z':
		return 'a'
	case r == 'Z':
		return 'A'
	}
	return 'x'
}
