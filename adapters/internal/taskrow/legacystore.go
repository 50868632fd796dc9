package taskrow

import (
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// NewLegacyRow is the task a legacy Create of id with meta at nowMillis stores
// (legacy.NewRow: a private copy, which the store may return), and its row.
func NewLegacyRow(id string, meta legacy.Task, nowMillis int64) (legacy.Task, Legacy, error) {
	row, err := legacy.NewRow(id, meta, nowMillis)
	if err != nil {
		return nil, Legacy{}, err
	}
	r, err := NewLegacy(row)
	if err != nil {
		return nil, Legacy{}, err
	}
	return row, r, nil
}

// LegacyChanges checks the id and changes of a legacy Update, UpdateIf or Cancel before
// the store reads anything: changes normalized, refused when JSON text cannot carry them.
func LegacyChanges(id string, changes legacy.Task) (legacy.Task, error) {
	if err := reference.ValidateID(id); err != nil {
		return nil, err
	}
	ch, err := legacy.Normalize(changes)
	if err != nil {
		return nil, err
	}
	if err := CheckUTF8(map[string]any(ch), "$"); err != nil {
		return nil, err // refuse before taking a lock
	}
	return ch, nil
}

// MergeLegacy is the merge of a legacy Update, UpdateIf (allowed non-nil) or Cancel of
// task id over its stored body: the task read (cur), the task to write (next) and next's
// row. A status outside allowed is reference.ErrConflict.
func MergeLegacy(id, body string, allowed []reference.Status, ch legacy.Task) (cur, next legacy.Task, r Legacy, err error) {
	cur, err = DecodeLegacy(body)
	if err != nil {
		return nil, nil, Legacy{}, err
	}
	next, err = legacy.MergeIf(id, cur, true, allowed, ch)
	if err != nil {
		return nil, nil, Legacy{}, err
	}
	r, err = NewLegacy(next)
	if err != nil {
		return nil, nil, Legacy{}, err
	}
	return cur, next, r, nil
}

// ListQueries are a SQL store's List queries, one per owner scope (L-LIST-1..4): each
// takes the status filter and the limit, and the principal where the scope names one.
type ListQueries struct {
	Any, Unowned, Principal, PrincipalOnly string
}

// Pick is the query for the owner scope of opts, with the principal argument it takes
// (none for Any and Unowned); ok is false when the scope matches no row (an anonymous
// caller requiring an owner: only unowned rows, and those are excluded).
func (q ListQueries) Pick(opts legacy.ListOptions) (query string, principal []any, ok bool) {
	switch p, isPrincipal := opts.Owner.Principal(); {
	case opts.Owner.IsAny():
		return q.Any, nil, true
	case isPrincipal && opts.RequireOwner:
		return q.PrincipalOnly, []any{[]byte(p)}, true
	case isPrincipal:
		return q.Principal, []any{[]byte(p)}, true
	case opts.RequireOwner:
		return "", nil, false
	default:
		return q.Unowned, nil, true
	}
}

// DecodeLegacies reads the bodies of a List's rows back, in order.
func DecodeLegacies(bodies []string) ([]legacy.Task, error) {
	out := make([]legacy.Task, 0, len(bodies))
	for _, b := range bodies {
		t, err := DecodeLegacy(b)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
