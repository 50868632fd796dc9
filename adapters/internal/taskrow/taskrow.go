// Package taskrow is the row layout shared by the SQL adapters (postgres, river): how a
// task of either era becomes JSON text plus the byte-exact columns the store filters on,
// and back. The layout, and why JSON text rather than jsonb, is explained in
// adapters/postgres/doc.go.
package taskrow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonscan"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// EncodeJSON renders a canonical value as JSON text. It refuses (ErrInvalid) strings that
// are not valid UTF-8, which encoding/json would otherwise alter silently.
func EncodeJSON(v any) (string, error) {
	if err := CheckUTF8(v, "$"); err != nil {
		return "", err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // readable in a SQL shell; '<' and '&' need no escaping in a column
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("%w: %v", reference.ErrInvalid, err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'})), nil
}

// DecodeJSON reads JSON text written by EncodeJSON into dst, keeping numbers exact.
func DecodeJSON(text string, dst any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("%w: stored JSON unreadable: %v", reference.ErrInternal, err)
	}
	return nil
}

// CheckUTF8 refuses a value JSON text cannot carry exactly (jsonvalue.CheckUTF8).
func CheckUTF8(v any, path string) error {
	if err := jsonvalue.CheckUTF8(v); err != nil {
		return fmt.Errorf("%w: %s: %v", reference.ErrInvalid, path, err)
	}
	return nil
}

// OwnerBytes is an owner column value: nil (NULL) for no owner, else the owner's bytes.
func OwnerBytes(owner string) []byte {
	if owner == "" {
		return nil
	}
	return []byte(owner)
}

// AddSat is a + b saturated at the int64 range: an expiry past the range never comes,
// one before it has always passed.
func AddSat(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// Legacy is a legacy task's row: the promoted columns and the JSON body.
type Legacy struct {
	Owner, Status []byte
	CreatedAt     *int64
	Body          string
}

// NewLegacy lays a legacy task out as a row.
func NewLegacy(t legacy.Task) (Legacy, error) {
	body, err := EncodeJSON(map[string]any(t))
	if err != nil {
		return Legacy{}, err
	}
	r := Legacy{
		Owner:  OwnerBytes(t.Owner()),
		Status: append([]byte{}, t.Status()...), // never nil: the column is NOT NULL
		Body:   body,
	}
	if c, ok := t.CreatedAt(); ok {
		r.CreatedAt = &c
	}
	return r, nil
}

// DecodeLegacy reads a legacy body back.
// It goes through jsonvalue.Decode, whose fast path reads a row without reflection (a
// Get or each row of a List decodes one: encoding/json's Decoder was most of the
// client's time in Get, docs/performance.md).
func DecodeLegacy(body string) (legacy.Task, error) {
	v, err := jsonvalue.Decode([]byte(body))
	if err != nil {
		return nil, fmt.Errorf("%w: stored JSON unreadable: %v", reference.ErrInternal, err)
	}
	t, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: stored task is not a JSON object", reference.ErrInternal)
	}
	return legacy.Task(t), nil
}

// CleanupBound is the newest created_at that Cleanup(ttl) at nowMillis removes: the age
// is a whole number of milliseconds, so age > ttl ⇔ age > ⌊ttl⌋ms ⇔
// created_at ≤ now − ⌊ttl⌋ms − 1, computed exactly and clamped to int64. ok is false
// when no created_at is that old.
func CleanupBound(nowMillis int64, ttl time.Duration) (bound int64, ok bool) {
	floor := int64(ttl / time.Millisecond)
	if ttl%time.Millisecond < 0 {
		floor--
	}
	b := new(big.Int).Sub(big.NewInt(nowMillis), big.NewInt(floor))
	b.Sub(b, big.NewInt(1))
	switch {
	case b.Cmp(big.NewInt(math.MinInt64)) < 0:
		return 0, false
	case b.Cmp(big.NewInt(math.MaxInt64)) > 0:
		return math.MaxInt64, true
	}
	return b.Int64(), true
}

// TerminalStatuses are the terminal statuses' bytes, for a Cleanup query.
func TerminalStatuses() [][]byte {
	var out [][]byte
	for _, s := range reference.Statuses() {
		if s.Terminal() {
			out = append(out, []byte(s))
		}
	}
	return out
}

// modernBody is the part of a modern task the store keeps verbatim without reading it.
// Nil and empty maps stay apart (null vs {}), so every field round-trips as written.
type modernBody struct {
	Status          reference.Status `json:"status"`
	StatusMessage   string           `json:"status_message"`
	LastUpdatedAt   int64            `json:"last_updated_at"`
	PollInterval    *int64           `json:"poll_interval"`
	Result          map[string]any   `json:"result"`
	Error           map[string]any   `json:"error"`
	InputRequests   map[string]any   `json:"input_requests"`
	StagedResponses map[string]any   `json:"staged_responses"`
	InputResponses  map[string]any   `json:"input_responses"`
	IssuedKeys      []string         `json:"issued_keys"`
}

// Modern is a modern task's row; task_id, created_at and version are columns of their
// own, written from the task.
type Modern struct {
	Owner     []byte
	TTL       *int64
	ExpiresAt *int64
	Body      string
}

// NewModern lays a modern task out as a row.
func NewModern(t modern.Task) (Modern, error) {
	b := modernBody{
		Status: t.Status, StatusMessage: t.StatusMessage, LastUpdatedAt: t.LastUpdatedAt,
		PollInterval: t.PollInterval, Result: t.Result, Error: t.Error,
		InputRequests: t.InputRequests, StagedResponses: t.StagedResponses,
		InputResponses: t.InputResponses, IssuedKeys: t.IssuedKeys,
	}
	for _, s := range []any{string(b.Status), b.StatusMessage, b.Result, b.Error, b.InputRequests,
		b.StagedResponses, b.InputResponses, b.IssuedKeys} {
		if err := CheckUTF8(s, "task"); err != nil {
			return Modern{}, err
		}
	}
	body, err := EncodeJSON(b)
	if err != nil {
		return Modern{}, err
	}
	r := Modern{Owner: OwnerBytes(t.Owner), TTL: t.TTL, Body: body}
	if t.TTL != nil {
		r.ExpiresAt = new(AddSat(t.CreatedAt, *t.TTL))
	}
	return r, nil
}

// FillModern reads a modern body into t, whose column fields are already set.
func FillModern(t *modern.Task, body string) error {
	var b modernBody
	if !b.fill(body) {
		b = modernBody{}
		if err := DecodeJSON(body, &b); err != nil {
			return err
		}
	}
	t.Status, t.StatusMessage, t.LastUpdatedAt = b.Status, b.StatusMessage, b.LastUpdatedAt
	t.PollInterval, t.Result, t.Error = b.PollInterval, b.Result, b.Error
	t.InputRequests, t.StagedResponses, t.InputResponses = b.InputRequests, b.StagedResponses, b.InputResponses
	t.IssuedKeys = b.IssuedKeys
	return nil
}

// fill is DecodeJSON(body, b) for the bodies NewModern writes, through the wire's
// scanner (reference/jsonscan): a modern Get spent most of its client CPU in
// encoding/json's reflection (docs/performance.md, "decode"). It reports false, leaving
// b to be thrown away, for anything else (a key of another spelling or case, or twice,
// a value of another type, a number an int64 does not hold): DecodeJSON then decides,
// as it did before.
func (b *modernBody) fill(body string) bool {
	var buf [12]jsonscan.Field
	fields, ok := jsonscan.ScanObject([]byte(body), buf[:0]) // refuses repeated and escaped keys
	if !ok {
		return false
	}
	for _, f := range fields {
		x, ok := jsonscan.Value(f.Val)
		if !ok {
			return false
		}
		switch string(f.Key) {
		case "status":
			var st string
			st, ok = as[string](x)
			b.Status = reference.Status(st)
		case "status_message":
			b.StatusMessage, ok = as[string](x)
		case "last_updated_at":
			if x != nil { // null leaves an int64 field as it is, as encoding/json does
				b.LastUpdatedAt, ok = int64Of(x)
			}
		case "poll_interval":
			b.PollInterval = nil
			if x != nil {
				var n int64
				n, ok = int64Of(x)
				b.PollInterval = &n
			}
		case "result":
			b.Result, ok = as[map[string]any](x)
		case "error":
			b.Error, ok = as[map[string]any](x)
		case "input_requests":
			b.InputRequests, ok = as[map[string]any](x)
		case "staged_responses":
			b.StagedResponses, ok = as[map[string]any](x)
		case "input_responses":
			b.InputResponses, ok = as[map[string]any](x)
		case "issued_keys":
			b.IssuedKeys, ok = stringsOf(x)
		default:
			return false
		}
		if !ok {
			return false
		}
	}
	return true
}

// as is x, a decoded JSON value, as encoding/json puts it into a field of type T
// (string, map[string]any) of a fresh struct: null gives T's zero value.
func as[T any](x any) (T, bool) {
	v, ok := x.(T)
	return v, ok || x == nil
}

// stringsOf is x as encoding/json puts it into a []string: null is nil, a null element
// the empty string.
func stringsOf(x any) ([]string, bool) {
	if x == nil {
		return nil, true
	}
	a, ok := x.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(a))
	for i, e := range a {
		if out[i], ok = as[string](e); !ok {
			return nil, false
		}
	}
	return out, true
}

// int64Of is x, a decoded JSON number, as encoding/json puts it into an int64.
func int64Of(x any) (int64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}
