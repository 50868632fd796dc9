package load_test

import (
	"bytes"
	"errors"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/load"
)

// TestSubjectsReadAndRefused: --subject's NAME=URL[,URL...] and a subjects file read as
// given; a file with an unknown key, a subject without a name, a name given twice, a
// subject with both URLs and a command, or fewer than two subjects is ErrConfig, the
// message naming what is wrong.
func TestSubjectsReadAndRefused(t *testing.T) {
	s, err := load.ParseSubject("pg3=http://127.0.0.1:1/mcp, http://127.0.0.1:2/mcp")
	if err != nil || s.Name != "pg3" || len(s.URLs) != 2 || s.URLs[1] != "http://127.0.0.1:2/mcp" {
		t.Errorf(`ParseSubject("pg3=URL, URL") = %+v, %v; want pg3 with both URLs`, s, err)
	}
	subs, err := load.DecodeSubjects([]byte(`[{"name": "mem", "urls": ["http://127.0.0.1:1/mcp"]},
		{"name": "x3", "exec": "storecheck serve --mcp 127.0.0.1:{port}", "instances": 3, "eras": ["modern"]},
		{"name": "stdio", "exec": ["node", "server.js"]}]`))
	if err != nil || len(subs) != 3 || subs[1].Instances != 3 || len(subs[1].Exec) != 4 || subs[1].Exec[3] != "127.0.0.1:{port}" ||
		subs[1].Eras[0] != "modern" || len(subs[2].Exec) != 2 {
		t.Errorf("DecodeSubjects(three subjects) = %+v, %v; want them as written, the command string split in words", subs, err)
	}
	for _, c := range []struct{ in, want string }{
		{`nourl`, "want NAME=URL"},
		{`=http://127.0.0.1:1/mcp`, "a subject without a name"},
		{`a=`, `subject "a" has no URL`},
		{`a=ftp://x`, "is not an http(s) URL"},
	} {
		if _, err := load.ParseSubject(c.in); !errors.Is(err, load.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSubject(%q): error %v; want ErrConfig naming %q", c.in, err, c.want)
		}
	}
	u := `"urls": ["http://127.0.0.1:1/mcp"]`
	for _, c := range []struct{ in, want string }{
		{`[{"name": "a", ` + u + `, "colour": "red"}, {"name": "b", ` + u + `}]`, `unknown field "colour"`},
		{`[{"name": "", ` + u + `}, {"name": "b", ` + u + `}]`, "a subject without a name"},
		{`[{"name": "a", ` + u + `}, {"name": "a", ` + u + `}]`, `subject "a" is named twice`},
		{`[{"name": "a", ` + u + `, "exec": "x {port}"}, {"name": "b", ` + u + `}]`, `subject "a" has both URLs and a command`},
		{`[{"name": "a", ` + u + `}]`, "1 subjects: a comparison needs two or more"},
		{`[{"name": "a", "exec": "x", "instances": 2}, {"name": "b", ` + u + `}]`, "names no {port}"},
		{`[{"name": "a", ` + u + `, "eras": ["future"]}, {"name": "b", ` + u + `}]`, `era "future"`},
		{`{"name": "a"}`, "want a JSON array"},
	} {
		if _, err := load.DecodeSubjects([]byte(c.in)); !errors.Is(err, load.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeSubjects(%s): error %v; want ErrConfig naming %q", c.in, err, c.want)
		}
	}
}

// TestComparisonTable: the table has a column a subject, its ratios against the first
// (above 1: the first ahead, for a rate and for a latency alike), and a subject that
// could not be reached named as such with dashes for its figures.
func TestComparisonTable(t *testing.T) {
	a := &load.Result{Subject: "http://a/mcp", TasksPerSec: 1000, Tasks: 10,
		Ops: []load.Op{{Method: "tasks/get", P50: 2, P99: 10}, {Method: "tools/call", P50: 4, P99: 20}}}
	b := &load.Result{Subject: "http://b/mcp", TasksPerSec: 250, Tasks: 5, ViolationCount: 2,
		Ops: []load.Op{{Method: "tasks/get", P50: 1, P99: 40}, {Method: "tasks/list", P50: 3, P99: 9}}}
	c := &load.Comparison{Direction: load.Direction, Subjects: []load.Compared{
		{Name: "mem", Verdict: "passed", Result: a},
		{Name: "pg", Verdict: "failed", Why: "2 violations", Result: b},
		{Name: "gone", Verdict: "unreachable", Why: "unreachable: http://c/mcp: connection refused"},
	}}
	var out bytes.Buffer
	if err := load.WriteComparison(&out, c); err != nil {
		t.Fatal(err)
	}
	want := `compared; (N×) is how far mem is ahead of the subject: above 1 mem is ahead (more tasks a second, shorter latency)
  mem: http://a/mcp
  pg: http://b/mcp
  gone: unreachable: http://c/mcp: connection refused
             figure     mem             pg         gone
            verdict  passed         failed  unreachable
         violations       0              2            -
            tasks/s    1000    250 (4.00×)            -
   tasks/get p50 ms    2.00   1.00 (0.50×)            -
   tasks/get p99 ms   10.00  40.00 (4.00×)            -
  tasks/list p50 ms       -           3.00            -
  tasks/list p99 ms       -           9.00            -
  tools/call p50 ms    4.00              -            -
  tools/call p99 ms   20.00              -            -
`
	if got := out.String(); got != want {
		t.Errorf("WriteComparison(mem, pg, gone):\n%s\nwant:\n%s", got, want)
	}
}

// TestCompareRunsEverySubject: the same bounded load runs against each subject in turn;
// one that cannot be reached is named unreachable, the others still run, and the
// comparison does not pass; the ratios are against the first.
func TestCompareRunsEverySubject(t *testing.T) {
	one, two := httptest.NewServer(load.Stub()), httptest.NewServer(load.Stub())
	defer one.Close()
	defer two.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nobody listens there now
	cfg := load.Config{Principals: principals, Anonymous: true, Unjudged: true, Clients: 4, Tasks: 100,
		Wait: 3 * time.Second, Timeout: 5 * time.Second}
	subs := []load.Subject{{Name: "one", URLs: []string{one.URL + "/mcp"}}, {Name: "gone", URLs: []string{gone}},
		{Name: "two", URLs: []string{two.URL + "/mcp"}}}
	var seen []string
	c, err := load.Compare(t.Context(), cfg, subs, func(s load.Compared) { seen = append(seen, s.Name) })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range c.Subjects {
		got[s.Name] = s.Verdict
	}
	if strings.Join(seen, " ") != "one gone two" || got["one"] != "passed" || got["gone"] != "unreachable" || got["two"] != "passed" || c.Passed() {
		t.Errorf("Compare(one, gone, two): told of %v, verdicts %v, passed %v; want each in turn, gone unreachable, the others passed, the comparison not passed",
			seen, got, c.Passed())
	}
	if r := c.Subjects[2]; r.Result == nil || r.Result.Tasks != 100 || r.FirstAheadBy["tasks/s"] == 0 || c.Subjects[0].FirstAheadBy != nil {
		t.Errorf("Compare: the third subject %+v; want its 100 tasks and its ratios against the first (none for the first)", r)
	}
	if _, err := load.Compare(t.Context(), cfg, subs[:1], nil); !errors.Is(err, load.ErrConfig) {
		t.Errorf("Compare(one subject): error %v; want ErrConfig", err)
	}
}
