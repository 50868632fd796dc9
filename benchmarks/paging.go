package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/storecheck/storecheck/reference/sdk"
)

// The paging benchmark of the SDK task-store profile: list every task of one session,
// page by page through the cursor, for N tasks, N = 1k…64k. A store whose page costs
// O(page) lists N tasks in time linear in N (the time doubles with N); one that scans
// every task per page is quadratic (it quadruples). P-LIST-3 is the rule; this measures
// the curve.

// PagingSizes are the N the benchmark lists by default: 1k to 64k, doubling.
var PagingSizes = []int{1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16}

// PagingSubject is one store the paging benchmark lists.
type PagingSubject struct {
	// Name labels the store in the table and the chart.
	Name string
	// Open returns a fresh, empty store and a function releasing it.
	Open func(ctx context.Context) (sdk.Store, func(context.Context) error, error)
}

// PagingOptions configure Paging.
type PagingOptions struct {
	// Sizes are the N to list, ascending; nil means PagingSizes.
	Sizes []int
	// Budget caps one listing: a subject whose listing of N took longer is not listed
	// at larger N (the cap is noted). 0 means 60 s.
	Budget time.Duration
	// Count is how many times each N is listed (the median is kept); 0 means 1. A
	// listing that takes over a sixth of Budget is not repeated.
	Count int
	// Fastest keeps the fastest of the Count listings instead of the median (a busy
	// machine only adds time: the fastest is the store's cost, for a test to compare).
	Fastest bool
	// Seeders create the tasks concurrently (pipelined over the wire); 0 means 8.
	Seeders int
	// Progress, when set, receives a line per listing.
	Progress io.Writer
}

// PagingPoint is one measured listing.
type PagingPoint struct {
	Subject string
	N       int
	// Pages is how many ListTasks calls the listing took.
	Pages int
	// Listing is the median wall time of listing all N tasks (the fastest with
	// PagingOptions.Fastest).
	Listing time.Duration
}

// PagingResult is the benchmark's outcome.
type PagingResult struct {
	Subjects []string
	Points   []PagingPoint
	// Notes say where a subject was capped, and why.
	Notes []string
}

// pagingSession is the session every benchmark task belongs to.
const pagingSession = "storecheck-paging"

// Paging seeds each subject's store up to every N in turn (one store per subject, grown
// from one N to the next) and times listing it whole. A listing that does not return
// every task exactly once is an error: its time would measure something else.
func Paging(ctx context.Context, subjects []PagingSubject, opts PagingOptions) (PagingResult, error) {
	sizes := opts.Sizes
	if sizes == nil {
		sizes = PagingSizes
	}
	if !slices.IsSorted(sizes) {
		return PagingResult{}, errors.New("paging: sizes must be ascending")
	}
	if opts.Budget <= 0 {
		opts.Budget = 60 * time.Second
	}
	opts.Count = max(opts.Count, 1)
	if opts.Seeders <= 0 {
		opts.Seeders = 8
	}
	var res PagingResult
	for i, subj := range subjects {
		for _, o := range subjects[:i] {
			if o.Name == subj.Name {
				return res, fmt.Errorf("paging: two stores are named %q", subj.Name)
			}
		}
	}
	for _, subj := range subjects {
		res.Subjects = append(res.Subjects, subj.Name)
		points, note, err := pagingSubject(ctx, subj, sizes, opts)
		res.Points = append(res.Points, points...)
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
		if err != nil {
			return res, fmt.Errorf("paging %s: %w", subj.Name, err)
		}
	}
	return res, nil
}

func pagingSubject(ctx context.Context, subj PagingSubject, sizes []int, opts PagingOptions) (points []PagingPoint, note string, err error) {
	st, release, err := subj.Open(ctx)
	if err != nil {
		return nil, "", err
	}
	defer func() {
		if rerr := release(context.WithoutCancel(ctx)); err == nil && rerr != nil {
			err = rerr
		}
	}()
	ids := map[string]bool{}
	for _, n := range sizes {
		if err := seedPaging(ctx, st, n-len(ids), opts.Seeders, ids); err != nil {
			return points, "", fmt.Errorf("seeding %d tasks: %w", n, err)
		}
		var runs []time.Duration
		pages := 0
		for range opts.Count {
			d, p, err := listAll(ctx, st, ids)
			if err != nil {
				return points, "", fmt.Errorf("listing %d tasks: %w", n, err)
			}
			runs, pages = append(runs, d), p
			if d > opts.Budget/6 {
				break
			}
		}
		slices.Sort(runs)
		pt := PagingPoint{Subject: subj.Name, N: n, Pages: pages, Listing: runs[len(runs)/2]}
		if opts.Fastest {
			pt.Listing = runs[0]
		}
		points = append(points, pt)
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "paging: %s: %d tasks listed in %d pages, %s\n", subj.Name, n, pages, pt.Listing.Round(time.Microsecond))
		}
		if pt.Listing > opts.Budget && n != sizes[len(sizes)-1] {
			return points, fmt.Sprintf("%s: capped at N = %d: listing %d tasks took %s, over the %s budget", subj.Name, n, n, pt.Listing.Round(time.Millisecond), opts.Budget), nil
		}
	}
	return points, "", nil
}

// seedPaging creates n more tasks of pagingSession with `seeders` concurrent callers
// and adds their ids to ids.
func seedPaging(ctx context.Context, st sdk.Store, n, seeders int, ids map[string]bool) error {
	if n <= 0 {
		return nil
	}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
		next     int
	)
	for range min(seeders, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next == n || firstErr != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				t, err := st.CreateTask(ctx, pagingSession, sdk.CreateParams{})
				mu.Lock()
				switch {
				case err != nil && firstErr == nil:
					firstErr = err
				case err == nil && ids[t.TaskID]:
					firstErr = fmt.Errorf("CreateTask returned the id %s twice", t.TaskID)
				case err == nil:
					ids[t.TaskID] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// listAll lists every page and checks that it returned exactly the tasks of ids.
func listAll(ctx context.Context, st sdk.Store, ids map[string]bool) (time.Duration, int, error) {
	seen := make(map[string]bool, len(ids))
	cursor, pages := "", 0
	start := time.Now()
	for {
		p, err := st.ListTasks(ctx, pagingSession, cursor)
		if err != nil {
			return 0, pages, fmt.Errorf("page %d: %w", pages+1, err)
		}
		pages++
		for _, t := range p.Tasks {
			if !ids[t.TaskID] || seen[t.TaskID] {
				return 0, pages, fmt.Errorf("page %d lists %s, which is not a task of the listing or was listed before", pages, t.TaskID)
			}
			seen[t.TaskID] = true
		}
		if p.NextCursor == "" {
			break
		}
		if len(p.Tasks) == 0 {
			return 0, pages, fmt.Errorf("page %d is empty but names a next cursor", pages)
		}
		cursor = p.NextCursor
	}
	d := time.Since(start)
	if len(seen) != len(ids) {
		return 0, pages, fmt.Errorf("the listing returned %d of %d tasks", len(seen), len(ids))
	}
	return d, pages, nil
}

// point finds the point of subject at n.
func (r PagingResult) point(subject string, n int) (PagingPoint, bool) {
	for _, p := range r.Points {
		if p.Subject == subject && p.N == n {
			return p, true
		}
	}
	return PagingPoint{}, false
}

func (r PagingResult) sizes() []int {
	var ns []int
	for _, p := range r.Points {
		if !slices.Contains(ns, p.N) {
			ns = append(ns, p.N)
		}
	}
	slices.Sort(ns)
	return ns
}

// Growth is the ratio of a subject's listing time at n to its time at n/2 (2 for a
// linear store, 4 for a quadratic one), or 0 when either is missing.
func (r PagingResult) Growth(subject string, n int) float64 {
	a, ok1 := r.point(subject, n/2)
	b, ok2 := r.point(subject, n)
	if !ok1 || !ok2 || a.Listing <= 0 {
		return 0
	}
	return float64(b.Listing) / float64(a.Listing)
}

// WritePagingTable writes one row per N: for every subject the listing time, the time per
// task and the growth from N/2.
func WritePagingTable(w io.Writer, r PagingResult) error {
	header := []string{"N"}
	for _, s := range r.Subjects {
		header = append(header, s, "µs/task", "×N/2")
	}
	t := [][]string{header}
	for _, n := range r.sizes() {
		row := []string{fmt.Sprint(n)}
		for _, s := range r.Subjects {
			p, ok := r.point(s, n)
			if !ok {
				row = append(row, "—", "—", "—")
				continue
			}
			g := "—"
			if x := r.Growth(s, n); x > 0 {
				g = fmt.Sprintf("%.1f×", x)
			}
			row = append(row, fmtDuration(p.Listing)+fmt.Sprintf(" (%d pages)", p.Pages),
				fmt.Sprintf("%.2f", float64(p.Listing.Nanoseconds())/1e3/float64(n)), g)
		}
		t = append(t, row)
	}
	var b strings.Builder
	writeColumns(&b, t, 0)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0fµs", float64(d)/1e3)
}

// pagingColors are the chart's line colours, one per subject in order.
var pagingColors = []string{"#3b6fb6", "#6aa84f", "#cc4125", "#8e7cc3", "#e69138"}

// WritePagingSVG draws the listing time against N on log-log axes, one line per subject:
// a linear store's line rises one decade per decade of N, a quadratic one's two.
func WritePagingSVG(w io.Writer, title string, r PagingResult) error {
	const (
		left, top, plotW, plotH, right, bottom = 70.0, 70.0, 560.0, 340.0, 20.0, 60.0
	)
	ns := r.sizes()
	if len(ns) == 0 {
		return errors.New("paging: no points to draw")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range r.Points {
		v := float64(p.Listing.Nanoseconds())
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	lo = math.Pow(10, math.Floor(math.Log10(math.Max(lo, 1))))
	hi = math.Pow(10, math.Ceil(math.Log10(math.Max(hi, 1))))
	if hi <= lo {
		hi = lo * 10
	}
	nlo, nhi := math.Log2(float64(ns[0])), math.Log2(float64(ns[len(ns)-1]))
	if nhi == nlo {
		nhi = nlo + 1
	}
	x := func(n int) float64 { return left + plotW*(math.Log2(float64(n))-nlo)/(nhi-nlo) }
	y := func(ns float64) float64 {
		return top + plotH - plotH*(math.Log10(ns)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	width, height := left+plotW+right, top+plotH+bottom+16*float64(len(r.Notes))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", esc(title))
	fmt.Fprintf(&b, `<text x="10" y="34" fill="#555">time to list N tasks page by page, log-log: linear rises one decade per decade of N, quadratic two</text>`+"\n")
	lx := left
	for i, s := range r.Subjects {
		c := pagingColors[i%len(pagingColors)]
		fmt.Fprintf(&b, `<rect x="%.0f" y="44" width="10" height="10" fill="%s"/><text x="%.0f" y="53">%s</text>`, lx, c, lx+14, esc(s))
		lx += 24 + 6.2*float64(len([]rune(s)))
	}
	b.WriteString("\n")
	for d := lo; d <= hi*1.0001; d *= 10 {
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#e4e4e4"/><text x="%.0f" y="%.1f" text-anchor="end" fill="#777">%s</text>`+"\n",
			left, y(d), left+plotW, y(d), left-6, y(d)+4, fmtDecade(d))
	}
	for _, n := range ns {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#f0f0f0"/><text x="%.1f" y="%.0f" text-anchor="middle" fill="#777">%s</text>`+"\n",
			x(n), top, x(n), top+plotH, x(n), top+plotH+16, fmtN(n))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle" fill="#555">N (tasks listed)</text>`+"\n", left+plotW/2, top+plotH+34)
	for i, s := range r.Subjects {
		c := pagingColors[i%len(pagingColors)]
		var pts []string
		for _, n := range ns {
			if p, ok := r.point(s, n); ok {
				v := math.Max(float64(p.Listing.Nanoseconds()), 1)
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(n), y(v)))
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %d tasks in %s (%d pages)</title></circle>`,
					x(n), y(v), c, esc(s), n, fmtDuration(p.Listing), p.Pages)
			}
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), c)
		}
		if len(pts) > 0 {
			last := ns[0]
			for _, n := range ns {
				if _, ok := r.point(s, n); ok {
					last = n
				}
			}
			p, _ := r.point(s, last)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="%s">%s</text>`, x(last)-6, y(math.Max(float64(p.Listing.Nanoseconds()), 1))-6, c, fmtDuration(p.Listing))
		}
		b.WriteString("\n")
	}
	for i, n := range r.Notes {
		fmt.Fprintf(&b, `<text x="10" y="%.0f" fill="#555">note: %s</text>`+"\n", top+plotH+bottom+float64(i)*16, esc(n))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtN(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return fmt.Sprintf("%dk", n/1024)
	}
	return fmt.Sprint(n)
}
