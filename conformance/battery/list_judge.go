package battery

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference/legacy"
)

// ListJudge judges every answer of the store's List in one spec against L-LIST-4's
// either/or: an answer either honours Owner and Limit (only rows in scope, at most Limit
// of them, and none of the caller's rows starved) or ignores both (every row matching
// Status). Which of the two a store does is never taken from a probe: each answer must
// be one of them, and one store must give the same one on every call, so a store that
// honours the scope for some callers and not for others fails.
type ListJudge struct {
	e    *Env
	rule string // the rule the judged answers belong to, for messages
	rows OwnedRows
	// Status of each row, for the Status filter; a row missing here is "working".
	Status map[string]string

	honoured string // the first call whose answer showed the scope honoured
	ignored  string // the first call whose answer showed the scope ignored
	faults   int
	hidden   int
}

// listJudgeShown bounds the faults a judge records in full: one broken pushdown tends
// to break every call, and a screenful says as much as a hundred.
const listJudgeShown = 4

func NewListJudge(e *Env, rule string, rows OwnedRows) *ListJudge {
	return &ListJudge{e: e, rule: rule, rows: rows, Status: map[string]string{}}
}

// List calls List and judges the answer; a call that fails is a fault of the spec.
func (j *ListJudge) List(st legacy.Store, opts legacy.ListOptions) {
	input := "List(" + showOptsShort(opts) + ")"
	got, err := st.List(j.e.Ctx, opts)
	if err != nil {
		j.fault(input, "success", DescribeErr(err))
		return
	}
	j.judge(input, opts, got)
}

// judge judges one answer of List(opts).
func (j *ListJudge) judge(input string, opts legacy.ListOptions, got []legacy.Task) {
	sc := scopeOf(opts.Owner)
	mine := j.rows.Ids()
	matching, admitted := IDSet{}, IDSet{}
	for id, owner := range j.rows {
		if opts.Status != nil && j.statusOf(id) != *opts.Status {
			continue
		}
		matching[id] = true
		if sc.Admits(owner, opts.RequireOwner) {
			admitted[id] = true
		}
	}
	ids := RowIDs(got, mine)
	if dup := DuplicateIDs(got); len(dup) > 0 {
		sort.Strings(dup)
		j.fault(input, "each task once", fmt.Sprintf("%d repeated rows, first %s", len(dup), firstIDs(dup)))
	}
	if opts.Status != nil {
		var wrong []string
		for _, r := range got {
			if StatusOf(r) != *opts.Status {
				wrong = append(wrong, fmt.Sprintf("%s (status %q)", shortID(r.ID()), StatusOf(r)))
			}
		}
		if len(wrong) > 0 {
			sort.Strings(wrong)
			j.fault(input, "only rows whose status is exactly "+Q(*opts.Status),
				fmt.Sprintf("%d rows with another status, first %s", len(wrong), firstIDs(wrong)))
		}
	}

	inScope := ids.subsetOf(admitted)
	var honours bool
	switch {
	case opts.Limit == nil:
		honours = inScope && ids.Equal(admitted)
	case *opts.Limit <= 0:
		honours = len(got) == 0
	default:
		n := *opts.Limit
		honours = inScope && len(got) <= n && len(ids) >= min(n, len(admitted))
	}
	ignores := matching.subsetOf(ids)
	// An answer tells which one the store does only when the two differ for this call.
	limited := opts.Limit != nil && (*opts.Limit <= 0 || *opts.Limit < len(matching))
	tells := !admitted.Equal(matching) || limited

	switch {
	case honours && ignores && !tells:
	case honours:
		if j.ignored != "" {
			j.inconsistent(input, "honoured Owner and Limit", j.ignored, "ignored them")
		}
		if j.honoured == "" {
			j.honoured = input
		}
	case ignores:
		if j.honoured != "" {
			j.inconsistent(input, "ignored Owner and Limit", j.honoured, "honoured them")
		}
		if j.ignored == "" {
			j.ignored = input
		}
	default:
		want := fmt.Sprintf("either the rows in scope %s (%s), or every row matching Status, %d of this spec's (Owner and Limit both ignored, L-LIST-4)",
			showScope(opts.Owner), j.honourDesc(opts, admitted), len(matching))
		j.fault(input, want, j.diff(admitted, ids, opts.Limit != nil))
	}
}

// honourDesc says what honouring Owner and Limit means for one call.
func (j *ListJudge) honourDesc(opts legacy.ListOptions, admitted IDSet) string {
	switch {
	case opts.Limit == nil:
		return fmt.Sprintf("exactly %d of this spec's rows", len(admitted))
	case *opts.Limit <= 0:
		return "no rows: the limit is " + fmt.Sprint(*opts.Limit)
	}
	n := *opts.Limit
	return fmt.Sprintf("%d of them: %d are in scope and the limit is %d", min(n, len(admitted)), len(admitted), n)
}

// diff renders an answer against the rows in scope: counts, then the first rows
// outside the scope and the first rows in scope that are missing, sorted, so that one
// store gives one message (B-REPRO-1) and a failure fits a screen.
func (j *ListJudge) diff(want, got IDSet, limited bool) string {
	var extra, missing []string
	for id := range got {
		if !want[id] {
			extra = append(extra, j.describe(id))
		}
	}
	for id := range want {
		if !got[id] {
			missing = append(missing, j.describe(id))
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	s := fmt.Sprintf("%d rows of this spec's: %d outside the scope", len(got), len(extra))
	if len(extra) > 0 {
		s += ", first " + firstIDs(extra)
	}
	if limited {
		return s + fmt.Sprintf("; %d rows in scope not returned", len(missing))
	}
	s += fmt.Sprintf("; %d rows in scope missing", len(missing))
	if len(missing) > 0 {
		s += ", first " + firstIDs(missing)
	}
	return s
}

// describe renders one of the spec's rows with its owner.
func (j *ListJudge) describe(id string) string {
	owner := j.rows[id]
	switch {
	case owner == "":
		return shortID(id) + " (unowned)"
	case owner == notStringOwner:
		return shortID(id) + " (owner not a string)"
	}
	return fmt.Sprintf("%s (owner %s)", shortID(id), ShowOwner(owner))
}

func (j *ListJudge) inconsistent(input, this, other, that string) {
	j.fault(input, fmt.Sprintf("the same choice of L-LIST-4 on every call: %s %s", other, that),
		fmt.Sprintf("this call %s (a store must honour the scope for every caller, or ignore Owner and Limit for every caller)", this))
}

func (j *ListJudge) statusOf(id string) string {
	if s, ok := j.Status[id]; ok {
		return s
	}
	return "working"
}

func (j *ListJudge) fault(input string, want, got any) {
	j.faults++
	if j.faults > listJudgeShown {
		j.hidden++
		return
	}
	j.e.Check(false, input, want, got)
}

// Finish reports how many faults were not shown in full.
func (j *ListJudge) Finish() {
	if j.hidden > 0 {
		j.e.Errorf("%s: %d more List answers were wrong (not shown)", j.rule, j.hidden)
	}
}

// notStringOwner marks a row whose owner is present but not a string: no principal
// owns it (L-LIST-3), so no scope but any admits it.
const notStringOwner = model.NotStringOwner

// scopeOf is the battery's ScopeCase for a store scope.
func scopeOf(s legacy.OwnerScope) ScopeCase {
	switch {
	case s.IsAny():
		return anyScope()
	case s.IsAnonymous():
		return AnonymousScope()
	}
	id, _ := s.Principal()
	return PrincipalScope(id)
}

// showScope renders a scope with a long principal cut short.
func showScope(s legacy.OwnerScope) string {
	if id, ok := s.Principal(); ok {
		return "principal " + ShowOwner(id)
	}
	return s.String()
}

// showOptsShort is ShowOpts with a long principal cut short.
func showOptsShort(o legacy.ListOptions) string { return showOpts(o, showScope(o.Owner)) }

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

// shortID cuts a long id for messages the same way.
func shortID(id string) string {
	if len(id) <= 40 {
		return fmt.Sprintf("%q", id)
	}
	return ShowOwner(id)
}

// firstIDs renders the first few of a sorted list, with how many there are in all.
func firstIDs(items []string) string {
	const most = 5
	if len(items) <= most {
		return "[" + strings.Join(items, ", ") + "]"
	}
	return fmt.Sprintf("[%s, … %d more]", strings.Join(items[:most], ", "), len(items)-most)
}

// subsetOf reports whether every id of s is in o.
func (s IDSet) subsetOf(o IDSet) bool {
	for id := range s {
		if !o[id] {
			return false
		}
	}
	return true
}

// ScopeCase is an owner scope of List with the battery's own idea of what it admits
// (L-LIST-3), written out rather than taken from legacy.OwnerScope.Admits.
type ScopeCase struct {
	scope     legacy.OwnerScope
	any       bool
	principal string // "" for the anonymous scope
}

func anyScope() ScopeCase { return ScopeCase{scope: legacy.AnyOwner(), any: true} }

func AnonymousScope() ScopeCase { return ScopeCase{scope: legacy.AnonymousOwner()} }

func PrincipalScope(id string) ScopeCase {
	return ScopeCase{scope: legacy.PrincipalOwner(id), principal: id}
}

// OwnedRows is a set of tasks a list spec created, with their owners ("" for none).
type OwnedRows map[string]string

func (o OwnedRows) Ids() IDSet {
	s := IDSet{}
	for id := range o {
		s[id] = true
	}
	return s
}

// admitted is the subset of o that c admits.
func (o OwnedRows) admitted(c ScopeCase, requireOwner bool) IDSet {
	s := IDSet{}
	for id, owner := range o {
		if c.Admits(owner, requireOwner) {
			s[id] = true
		}
	}
	return s
}

// RowOwner is the owner of a row as the battery reads it: "" when owner is absent or
// null (L-LIST-3), the string otherwise, and a marker no principal matches for any other
// value.
func RowOwner(t legacy.Task) string { return model.LegacyOwner(t) }

// Admits: any admits every row; anonymous admits unowned rows; principal X admits X's
// rows and unowned ones; RequireOwner drops unowned rows from the last two.
func (c ScopeCase) Admits(owner string, requireOwner bool) bool {
	switch {
	case c.any:
		return true
	case owner == "":
		return !requireOwner
	default:
		return c.principal != "" && owner == c.principal
	}
}
