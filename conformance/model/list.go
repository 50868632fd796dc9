package model

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// ScopeCaller is the caller whose view a List owner scope is: any is the system,
// anonymous is anonymous, a principal is itself. With it, Visible is also the scope
// rule of L-LIST-3.
func ScopeCaller(s legacy.OwnerScope) reference.Caller {
	switch {
	case s.IsAny():
		return reference.System()
	case s.IsAnonymous():
		return reference.Anonymous()
	}
	id, _ := s.Principal()
	return reference.Principal(id)
}

// OwnedRow is a row a list check created: its owner as LegacyOwner reads it and its
// status.
type OwnedRow struct{ Owner, Status string }

// ListAnswer is one answer of List(opts) read against L-LIST-4's either/or, over the rows
// the check created (ours): it honours Owner and Limit (only rows in scope, at most Limit
// of them, and none of the scope's starved) or ignores both (every row of ours matching
// Status). Rows that are not ours belong to the backend (B-ISO-1): they take places under
// Limit and are otherwise not judged here.
type ListAnswer struct {
	Honours bool
	Ignores bool
	// Tells is whether the two readings differ for this call, so that the answer shows
	// which one the store chose.
	Tells bool

	opts     legacy.ListOptions
	ours     map[string]OwnedRow
	returned map[string]bool // ours among the rows
	matching map[string]bool // ours matching Status
	admitted map[string]bool // ours matching Status and in scope
	others   int             // rows that are not ours
}

// ReadList reads rows, the answer of List(opts), against ours.
func ReadList(opts legacy.ListOptions, ours map[string]OwnedRow, rows []legacy.Task) ListAnswer {
	a := ListAnswer{opts: opts, ours: ours, returned: map[string]bool{}, matching: map[string]bool{}, admitted: map[string]bool{}}
	scope := ScopeCaller(opts.Owner)
	for id, r := range ours {
		if opts.Status != nil && r.Status != *opts.Status {
			continue
		}
		a.matching[id] = true
		if Visible(r.Owner, scope, opts.RequireOwner) {
			a.admitted[id] = true
		}
	}
	for _, r := range rows {
		if _, ok := ours[r.ID()]; ok {
			a.returned[r.ID()] = true
		} else {
			a.others++
		}
	}
	inScope := subsetOf(a.returned, a.admitted)
	switch {
	case opts.Limit == nil:
		a.Honours = inScope && len(a.returned) == len(a.admitted)
	case *opts.Limit <= 0:
		a.Honours = len(rows) == 0
	default:
		n := *opts.Limit
		a.Honours = inScope && len(rows) <= n && len(a.returned) >= min(n-a.others, len(a.admitted))
	}
	a.Ignores = subsetOf(a.matching, a.returned)
	limited := opts.Limit != nil && (*opts.Limit <= 0 || *opts.Limit < len(a.matching))
	a.Tells = len(a.admitted) != len(a.matching) || limited
	return a
}

// Broken is the rule an answer that neither honours nor ignores Owner and Limit breaks,
// read on its own: rows out of scope while Limit is honoured are L-LIST-4, without a
// limit L-LIST-3; too many rows L-LIST-2; rows in scope missing L-LIST-3 (L-LIST-1 when
// the scope is any).
func (a ListAnswer) Broken() string {
	rows := len(a.returned) + a.others
	limited := a.opts.Limit != nil
	switch {
	case !subsetOf(a.returned, a.admitted) && limited:
		return "L-LIST-4"
	case !subsetOf(a.returned, a.admitted):
		return "L-LIST-3"
	case limited && rows > max(*a.opts.Limit, 0):
		return "L-LIST-2"
	case a.opts.Owner.IsAny():
		return "L-LIST-1"
	}
	return "L-LIST-3"
}

// Want says what either reading expected of this call.
func (a ListAnswer) Want() string {
	return fmt.Sprintf("either the rows in scope %s (%s), or every row matching Status, %d of this check's (Owner and Limit both ignored, L-LIST-4)",
		ShowScope(a.opts.Owner), a.honourDesc(), len(a.matching))
}

// honourDesc says what honouring Owner and Limit means for one call.
func (a ListAnswer) honourDesc() string {
	switch {
	case a.opts.Limit == nil:
		return fmt.Sprintf("exactly %d of this check's rows", len(a.admitted))
	case *a.opts.Limit <= 0:
		return "no rows: the limit is " + fmt.Sprint(*a.opts.Limit)
	}
	n := *a.opts.Limit
	return fmt.Sprintf("%d of them: %d are in scope and the limit is %d", min(n, len(a.admitted)), len(a.admitted), n)
}

// Got renders the answer against the rows in scope: counts, then the first rows outside
// the scope and the first rows in scope that are missing, sorted, so that one store gives
// one message (B-REPRO-1) and a failure fits a screen.
func (a ListAnswer) Got() string {
	var extra, missing []string
	for id := range a.returned {
		if !a.admitted[id] {
			extra = append(extra, a.describe(id))
		}
	}
	for id := range a.admitted {
		if !a.returned[id] {
			missing = append(missing, a.describe(id))
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	s := fmt.Sprintf("%d rows of this check's: %d outside the scope", len(a.returned), len(extra))
	if len(extra) > 0 {
		s += ", first " + FirstIDs(extra)
	}
	if a.opts.Limit != nil {
		return s + fmt.Sprintf("; %d rows in scope not returned", len(missing))
	}
	s += fmt.Sprintf("; %d rows in scope missing", len(missing))
	if len(missing) > 0 {
		s += ", first " + FirstIDs(missing)
	}
	return s
}

// describe renders one of our rows with its owner.
func (a ListAnswer) describe(id string) string {
	owner := a.ours[id].Owner
	switch owner {
	case "":
		return ShortID(id) + " (unowned)"
	case NotStringOwner:
		return ShortID(id) + " (owner not a string)"
	}
	return fmt.Sprintf("%s (owner %s)", ShortID(id), ShowOwner(owner))
}

func subsetOf(s, o map[string]bool) bool {
	for id := range s {
		if !o[id] {
			return false
		}
	}
	return true
}

// ShowScope renders a scope with a long principal cut short.
func ShowScope(s legacy.OwnerScope) string {
	if id, ok := s.Principal(); ok {
		return "principal " + ShowOwner(id)
	}
	return s.String()
}

// ShowOwner quotes an owner; one longer than 40 bytes shows its start, its end and its
// length, which is what tells two long owners apart.
func ShowOwner(o string) string {
	const most = 40
	if len(o) <= most {
		return fmt.Sprintf("%q", o)
	}
	head, tail := cutRunes(o, 16, true), cutRunes(o, 12, false)
	return fmt.Sprintf("%q…%q (%d bytes)", head, tail, len(o))
}

// cutRunes keeps about n bytes from the start (or the end) of s without splitting a
// character.
func cutRunes(s string, n int, fromStart bool) string {
	if fromStart {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		return s[:i]
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// ShortID cuts a long id for messages the same way.
func ShortID(id string) string {
	if len(id) <= 40 {
		return fmt.Sprintf("%q", id)
	}
	return ShowOwner(id)
}

// FirstIDs renders the first few of a sorted list, with how many there are in all.
func FirstIDs(items []string) string {
	const most = 5
	if len(items) <= most {
		return "[" + strings.Join(items, ", ") + "]"
	}
	return fmt.Sprintf("[%s, … %d more]", strings.Join(items[:most], ", "), len(items)-most)
}
