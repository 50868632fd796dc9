package load

import (
	"sort"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in microseconds, from 1 µs to a minute, to three significant
// digits: HdrHistogram keeps every percentile within 0.1% at a fixed size.
const (
	minLatency = 1
	maxLatency = int64(time.Minute / time.Microsecond)
	sigDigits  = 3
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(minLatency, maxLatency, sigDigits) }

// meter is one client's measures, merged at the end: clients record without locks.
type meter struct {
	ops     map[string]*hdrhistogram.Histogram // by method
	errors  map[string]int                     // by method and code
	listens Listens
}

func newMeter() *meter {
	return &meter{ops: map[string]*hdrhistogram.Histogram{}, errors: map[string]int{}}
}

func (m *meter) record(method string, d time.Duration) {
	h := m.ops[method]
	if h == nil {
		h = newHist()
		m.ops[method] = h
	}
	_ = h.RecordValue(max(d.Microseconds(), minLatency)) // past a minute: clamped by the histogram's error
}

func (m *meter) merge(o *meter) {
	for k, h := range o.ops {
		if m.ops[k] == nil {
			m.ops[k] = newHist()
		}
		m.ops[k].Merge(h)
	}
	for k, n := range o.errors {
		m.errors[k] += n
	}
	m.listens.add(o.listens)
}

// timeline is the run second by second: tasks ended and every operation's latency.
type timeline struct {
	mu    sync.Mutex
	start time.Time
	secs  []second
}

type second struct {
	tasks int
	hist  *hdrhistogram.Histogram
}

func (t *timeline) at(now time.Time) *second {
	i := int(now.Sub(t.start) / time.Second)
	for len(t.secs) <= i {
		t.secs = append(t.secs, second{hist: newHist()})
	}
	return &t.secs[i]
}

func (t *timeline) record(now time.Time, d time.Duration) {
	t.mu.Lock()
	_ = t.at(now).hist.RecordValue(max(d.Microseconds(), minLatency))
	t.mu.Unlock()
}

func (t *timeline) ended(now time.Time) {
	t.mu.Lock()
	t.at(now).tasks++
	t.mu.Unlock()
}

// Op is one operation's figures, in milliseconds.
type Op struct {
	Method string `json:"method"`
	Count  int64  `json:"count"`
	// Mean, with Count and the run's length, gives the requests in flight on average
	// (Little's law): what a closed loop's latencies depend on.
	Mean float64 `json:"mean_ms"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	Max  float64 `json:"max_ms"`
}

// Point is one second of the run.
type Point struct {
	Second int     `json:"second"`
	Tasks  int     `json:"tasks"`
	P99    float64 `json:"p99_ms"`
}

func ms(us int64) float64 { return float64(us) / 1000 }

func (m *meter) figures() []Op {
	var out []Op
	for k, h := range m.ops {
		out = append(out, Op{Method: k, Count: h.TotalCount(), Mean: h.Mean() / 1000, P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
			P99: ms(h.ValueAtQuantile(99)), Max: ms(h.Max())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Method < out[j].Method })
	return out
}

func (t *timeline) points() []Point {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Point, len(t.secs))
	for i, s := range t.secs {
		out[i] = Point{Second: i, Tasks: s.tasks, P99: ms(s.hist.ValueAtQuantile(99))}
	}
	return out
}
