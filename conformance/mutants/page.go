package mutants

import (
	"context"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Defects of the optional ordered List (L-LIST-5, legacy.Pager): the honest store's List,
// read whole and paged, with one defect in how the page is cut.

// pageMutants are the ListAfter defects.
var pageMutants = []mutant.Mutant[Build]{
	{Name: "page-after-time-only", Breaks: []string{"L-LIST-5"}, Defect: "ListAfter keeps the rows created after the position's millisecond (created_at > c, the id ignored): a page that ends inside a millisecond loses the rest of it", Build: Build{legacyOnly, paged(afterTimeOnly)}},
	{Name: "page-unsorted", Breaks: []string{"L-LIST-5"}, Defect: "ListAfter cuts its page from the rows after the position in the order List finds them, unsorted", Build: Build{legacyOnly, paged(unsorted)}},
}

// paging adds ListAfter to the honest store: its List with the caller's Status and Owner,
// no Limit, then cut.
type paging struct {
	legacyStore
	cut func(rows []legacy.Task, opts legacy.ListOptions, after *legacy.Position) []legacy.Task
}

func paged(cut func([]legacy.Task, legacy.ListOptions, *legacy.Position) []legacy.Task) *wrapper {
	w := legacyLayer(func(st legacyStore) legacy.Store { return paging{st, cut} })
	w.inProcessOnly = "the wire protocol has no ListAfter: over it L-LIST-5 is not implemented"
	return w
}

func (s paging) ListAfter(ctx context.Context, opts legacy.ListOptions, after *legacy.Position) ([]legacy.Task, error) {
	whole := opts
	whole.Limit = nil
	rows, err := s.List(ctx, whole)
	if err != nil {
		return nil, err
	}
	return s.cut(rows, opts, after), nil
}

// afterTimeOnly compares the position's created_at alone.
func afterTimeOnly(rows []legacy.Task, opts legacy.ListOptions, after *legacy.Position) []legacy.Task {
	if after == nil {
		return legacy.Page(rows, opts, nil)
	}
	var later []legacy.Task
	for _, t := range rows {
		if legacy.PositionOf(t).CreatedAt > after.CreatedAt {
			later = append(later, t)
		}
	}
	return legacy.Page(later, opts, nil)
}

// unsorted keeps List's order.
func unsorted(rows []legacy.Task, opts legacy.ListOptions, after *legacy.Position) []legacy.Task {
	out := []legacy.Task{}
	for _, t := range rows {
		if opts.Limit != nil && len(out) >= *opts.Limit {
			break
		}
		if legacy.PositionOf(t).After(after) && opts.Matches(t) {
			out = append(out, t)
		}
	}
	return out
}
