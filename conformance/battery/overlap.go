package battery

import (
	"encoding/json"
	"iter"
	"sort"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/report"
)

// How much a concurrent check really overlapped. A race check only has power when its
// clients' calls were at the store at the same time: a fast store on few cores can
// serve a "concurrent" history almost serially, and a transport that sends one request
// at a time makes any store look linearizable. So every concurrent check measures its
// overlap, reports it, and calls itself inconclusive (never passed) below the
// thresholds.

const (
	// MinOverlapping is how many of a check's calls must have overlapped another
	// client's call on the same task for the check to count: each is a meeting of two
	// clients at the store in which a race could show. A count rather than a share, so
	// that a long check on a busy machine, where two of its threads are seldom on the
	// CPU at once, can earn it by running more rounds (OverlapMeter.rounds). Measured on
	// two cores: memstore in process reaches it in its base rounds when the machine is
	// quiet (10-20 % of calls overlap), in its extension rounds under load; stores over
	// the wire overlap in more than 90 % of calls; clients that cannot overlap in none.
	MinOverlapping = 64
	// MinInFlight is the least peak of calls at the store at once.
	MinInFlight = 2
)

// Span is one call as the battery saw it: who made it, on which task, and when it was
// made and returned (nanoseconds on the history's clock).
type Span struct {
	Client    int
	Task      string
	Call, Ret int64
}

// Timeline records the spans of a check's calls from concurrent clients.
type Timeline struct {
	mu    sync.Mutex
	start time.Time
	spans []Span
}

func NewTimeline() *Timeline { return &Timeline{start: time.Now()} }

// Do records fn as a call of client on task.
func (t *Timeline) Do(client int, task string, fn func()) {
	c := time.Since(t.start).Nanoseconds()
	fn()
	r := time.Since(t.start).Nanoseconds()
	t.mu.Lock()
	t.spans = append(t.spans, Span{client, task, c, r})
	t.mu.Unlock()
}

func (t *Timeline) Take() []Span {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.spans
	t.spans = nil
	return s
}

// Overlapping counts the spans that intersect a span of another client on the same
// task.
func Overlapping(spans []Span) int {
	byTask := map[string][]Span{}
	for _, s := range spans {
		byTask[s.Task] = append(byTask[s.Task], s)
	}
	n := 0
	for _, ss := range byTask {
		sort.Slice(ss, func(i, j int) bool { return ss[i].Call < ss[j].Call })
		hit := make([]bool, len(ss))
		for i := range ss {
			for j := i + 1; j < len(ss) && ss[j].Call < ss[i].Ret; j++ {
				if ss[j].Client != ss[i].Client {
					hit[i], hit[j] = true, true
				}
			}
		}
		for _, h := range hit {
			if h {
				n++
			}
		}
	}
	return n
}

// PeakOf is the most spans open at one instant. A fanned-out call (one span per task)
// counts once.
func PeakOf(spans []Span) int {
	type edge struct {
		t     int64
		delta int
	}
	seen := map[[3]int64]bool{}
	var edges []edge
	for _, s := range spans {
		k := [3]int64{int64(s.Client), s.Call, s.Ret}
		if seen[k] {
			continue
		}
		seen[k] = true
		edges = append(edges, edge{s.Call, 1}, edge{s.Ret, -1})
	}
	// At equal times a return comes before a call: touching intervals do not overlap.
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].t != edges[j].t {
			return edges[i].t < edges[j].t
		}
		return edges[i].delta < edges[j].delta
	})
	cur, peak := 0, 0
	for _, e := range edges {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}

// OverlapMeter sums the overlap of a check's histories.
type OverlapMeter struct {
	// Env is the spec the check runs in: its options, harness, faults and report.
	Env   *Env
	gauge harness.InFlightGauge
	stats report.OverlapStats
}

// Meter starts measuring a concurrent check. When the harness counts the requests in
// flight at its store, the count starts afresh here.
func (e *Env) Meter() *OverlapMeter {
	m := &OverlapMeter{Env: e, stats: report.OverlapStats{MinOverlapping: MinOverlapping, MinInFlight: MinInFlight}}
	if g, ok := e.Harness.(harness.InFlightGauge); ok {
		m.gauge = g
		g.PeakInFlight()
	}
	return m
}

// Add counts one history.
func (m *OverlapMeter) Add(spans []Span) {
	if len(spans) == 0 {
		return
	}
	m.stats.Histories++
	m.stats.Ops += len(spans)
	m.stats.OverlappingOps += Overlapping(spans)
	m.stats.Share = float64(m.stats.OverlappingOps) / float64(m.stats.Ops)
	if m.gauge == nil {
		m.stats.PeakInFlight = max(m.stats.PeakInFlight, PeakOf(spans))
	}
}

// MinRaceRounds is how many rounds a race check runs, and BudgetOverlapping how many
// of its calls must have overlapped, before its time budget (Budget.RaceTime) may stop
// it. A store whose calls rarely meet (in process, on a loaded machine) never reaches
// BudgetOverlapping early and runs every planned round; one whose calls take long
// (across a network) meets in most of them. A store over the wire protocol (a harness
// with an InFlightGauge) has no budget: its calls overlap at the client while the
// child may serve them one after another, so their count says nothing of the meetings
// inside the store.
const (
	MinRaceRounds     = 32
	BudgetOverlapping = 4 * MinOverlapping
)

const (
	// ExtendRounds bounds how far rounds extends a check, as a multiple of its base, and
	// extendAtLeast in rounds: on a loaded machine a fast store's calls of one round
	// (one call per client) may meet once in thousands of rounds, which cost
	// microseconds each; a slow store is bounded by extendFor first.
	ExtendRounds  = 64
	extendAtLeast = 64
	// extendFor bounds, in wall time, how long rounds extends a check past its base.
	extendFor = 15 * time.Second
)

// Rounds yields the round numbers of a check: its base rounds, then more while the check
// has neither overlapped enough to count nor found a fault, up to ExtendRounds times the
// base or extendFor. A fast store on a busy machine may serve most rounds serially; more
// rounds give its clients more chances to meet, so that the check ends conclusive where
// the store allows it rather than inconclusive by bad luck. A store whose calls cannot
// overlap (one request at a time) stays inconclusive after the extension.
//
// Over the wire protocol a check runs more, within the same bounds, while it has found
// no fault, until Budget.WireRaceTime has passed since it began (wireRounds).
func (m *OverlapMeter) Rounds(base int) iter.Seq[int] {
	return func(yield func(int) bool) {
		var deadline time.Time
		start, budget := time.Now(), m.Env.Opts.Budget.RaceTime
		wire := m.wireMinimum(start)
		defer m.Env.extending.Store(false)
		for r := 0; ; r++ {
			// The rounds that ran are judged, conclusive or not (Env.TimeShort).
			if r > 0 && m.Env.TimeShort() {
				return
			}
			if m.gauge == nil && r >= MinRaceRounds && r < base && m.Env.Opts.Budget.RaceTime > 0 && m.spent(start, budget) {
				m.stats.PlannedRounds = base
				return
			}
			if r >= base {
				if deadline.IsZero() {
					deadline = time.Now().Add(extendFor)
				}
				if m.Env.Ctx.Err() != nil || len(m.Env.Faults()) > 0 || r >= max(base*ExtendRounds, extendAtLeast) || time.Now().After(deadline) {
					return
				}
				if m.sample(); m.stats.Conclusive() && wire.met() {
					return
				}
				m.Env.extending.Store(true)
			}
			if !yield(r) {
				return
			}
		}
	}
}

// WireRaceCPUShare is the share of Budget.WireRaceTime that a race check over the wire
// protocol gives the child in processor time, besides the wall time itself, where the
// harness tells the child's processor time (harness.CPUGauge). On a quiet machine a
// child serving eight racing clients has it within the wall-time minimum; on a loaded
// one the child gets a fraction of a processor, and the check runs on until it has had
// as many rounds' worth of processor time (within extendFor), so that a defect's window
// inside the child meets as many rounds as on a quiet machine.
const WireRaceCPUShare = 0.5

// wireMin is when a race check over the wire protocol has run its minimum.
type wireMin struct {
	g             harness.CPUGauge // nil: wall time alone
	until         time.Time        // the wall-time minimum
	cpu0, cpuNeed time.Duration    // the child's processor time at the start, and what it must have had since
	checked       time.Time        // the last read of the child's processor time
	done          bool
}

// wireMinimum is the minimum of a check started at start: over the wire protocol,
// Budget.WireRaceTime of wall time and WireRaceCPUShare of it in the child's processor
// time; else none. The child starts a round's requests one after another as it reads
// them off its pipe, so a defect whose window inside a fast child is a few hundred
// nanoseconds is met in a few of its rounds, not in every run.
func (m *OverlapMeter) wireMinimum(start time.Time) *wireMin {
	if m.gauge == nil {
		return &wireMin{done: true}
	}
	w := &wireMin{until: start.Add(m.Env.Opts.Budget.WireRaceTime)}
	if g, ok := m.Env.Harness.(harness.CPUGauge); ok {
		if cpu, ok := g.StoreCPU(); ok {
			w.g, w.cpu0 = g, cpu
			w.cpuNeed = time.Duration(float64(m.Env.Opts.Budget.WireRaceTime) * WireRaceCPUShare)
		}
	}
	return w
}

// met reports whether the minimum has run. The child's processor time is read from
// the system at most every 20 ms: a round takes microseconds.
func (w *wireMin) met() bool {
	if w.done {
		return true
	}
	now := time.Now()
	if now.Before(w.until) {
		return false
	}
	if w.g == nil {
		w.done = true
		return true
	}
	if now.Sub(w.checked) < 20*time.Millisecond {
		return false
	}
	w.checked = now
	cpu, ok := w.g.StoreCPU()
	w.done = !ok || cpu-w.cpu0 >= w.cpuNeed
	return w.done
}

// spent reports whether a check started at start has used its time budget: it has
// seen BudgetOverlapping overlapping calls, enough to count, and has run for budget; or
// its calls met in nearly every round (MeetingShare: the calls of a backend across a
// network, milliseconds long) and MeetingOverlapping of them overlapped. The second is a
// count, not a time: a slow backend's rounds each race every client against the others,
// so what a check needs of it is meetings, which a loaded machine does not make rarer,
// while seconds of them only repeat races that already met.
func (m *OverlapMeter) spent(start time.Time, budget time.Duration) bool {
	m.sample()
	if !m.stats.Conclusive() || m.stats.OverlappingOps < BudgetOverlapping {
		return false
	}
	if m.stats.Share >= MeetingShare && m.stats.OverlappingOps >= MeetingOverlapping {
		return true
	}
	return time.Since(start) >= budget
}

// MeetingShare is the share of overlapping calls from which a check's calls meet in
// nearly every round, and MeetingOverlapping how many such calls end it: with eight
// clients, 128 rounds in which every client raced the others.
const (
	MeetingShare       = 0.8
	MeetingOverlapping = 4 * BudgetOverlapping
)

// sample folds the harness's count of requests in flight into the stats.
func (m *OverlapMeter) sample() {
	if m.gauge != nil {
		m.stats.PeakInFlight = max(m.stats.PeakInFlight, m.gauge.PeakInFlight())
	}
}

// Done attaches the stats to the spec and, when the check found no fault but did not
// overlap enough to have found one, marks it inconclusive.
func (m *OverlapMeter) Done() report.OverlapStats {
	m.sample()
	m.Env.Overlap(m.stats)
	if !m.stats.Conclusive() && len(m.Env.Faults()) == 0 {
		m.Env.Inconclusive("the concurrent clients did not overlap enough for this check to show a race: " + m.stats.String())
	}
	return m.stats
}

// EntryOverlap carries a concurrent check's OverlapStats as JSON.
const EntryOverlap = "storecheck.overlap"

// Overlap attaches a concurrent check's measured overlap to the spec (report entry
// "storecheck.overlap", the stats as JSON).
func (e *Env) Overlap(stats report.OverlapStats) {
	e.mu.Lock()
	e.Overlaps = append(e.Overlaps, stats)
	e.mu.Unlock()
	if e.InSpec { // a test may drive an Env outside Ginkgo
		b, _ := json.Marshal(stats)
		ginkgo.AddReportEntry(EntryOverlap, string(b))
	}
}
