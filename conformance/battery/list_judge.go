package battery

import (
	"fmt"
	"sort"

	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference/legacy"
)

// ListJudge judges every answer of the store's List in one spec against L-LIST-4's
// either/or, as model.ReadList reads an answer (the property checks read it the same
// way): an answer either honours Owner and Limit (only rows in scope, at most Limit of
// them, and none of the caller's rows starved) or ignores both (every row matching
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

// judge judges one answer of List(opts): each row once and matching Status (L-LIST-1),
// then the answer as a whole against L-LIST-4's readings (model.ReadList).
func (j *ListJudge) judge(input string, opts legacy.ListOptions, got []legacy.Task) {
	if dup := DuplicateIDs(got); len(dup) > 0 {
		sort.Strings(dup)
		j.fault(input, "each task once", fmt.Sprintf("%d repeated rows, first %s", len(dup), model.FirstIDs(dup)))
	}
	if opts.Status != nil {
		var wrong []string
		for _, r := range got {
			if StatusOf(r) != *opts.Status {
				wrong = append(wrong, fmt.Sprintf("%s (status %q)", model.ShortID(r.ID()), StatusOf(r)))
			}
		}
		if len(wrong) > 0 {
			sort.Strings(wrong)
			j.fault(input, "only rows whose status is exactly "+Literal(*opts.Status),
				fmt.Sprintf("%d rows with another status, first %s", len(wrong), model.FirstIDs(wrong)))
		}
	}
	ours := map[string]model.OwnedRow{}
	for id, owner := range j.rows {
		ours[id] = model.OwnedRow{Owner: owner, Status: j.statusOf(id)}
	}
	a := model.ReadList(opts, ours, got)
	switch {
	case a.Honours && a.Ignores && !a.Tells:
	case a.Honours:
		if j.ignored != "" {
			j.inconsistent(input, "honoured Owner and Limit", j.ignored, "ignored them")
		}
		if j.honoured == "" {
			j.honoured = input
		}
	case a.Ignores:
		if j.honoured != "" {
			j.inconsistent(input, "ignored Owner and Limit", j.honoured, "honoured them")
		}
		if j.ignored == "" {
			j.ignored = input
		}
	default:
		j.fault(input, a.Want(), a.Got())
	}
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

// showOptsShort is ShowOpts with a long principal cut short.
func showOptsShort(o legacy.ListOptions) string { return showOpts(o, model.ShowScope(o.Owner)) }

// OwnedRows is a set of tasks a list spec created, with their owners ("" for none).
type OwnedRows map[string]string

func (o OwnedRows) Ids() IDSet {
	s := IDSet{}
	for id := range o {
		s[id] = true
	}
	return s
}

// RowOwner is the owner of a row as the battery reads it: "" when owner is absent or
// null (L-LIST-3), the string otherwise, and a marker no principal matches for any other
// value.
func RowOwner(t legacy.Task) string { return model.LegacyOwner(t) }
