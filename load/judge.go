package load

import (
	"fmt"
	"sync"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
)

// Violation is an answer its caller may not have had: the rule it breaks (docs/spec.md
// section 7; 7.1 reads them under load), what was checked, the request, the caller and
// what came back.
type Violation struct {
	Rule    string `json:"rule"`
	Check   string `json:"check"`
	Request string `json:"request"`
	Caller  string `json:"caller"`
	Answer  string `json:"answer"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s (%s): %s as %s answered %s", v.Rule, v.Check, v.Request, v.Caller, v.Answer)
}

// task is what the judge knows of one task acknowledged to its creator.
type task struct {
	owner     string // the creator's principal; "" anonymous
	client    int    // the client that made it (an anonymous task's notifications go to its session only)
	cancelled bool   // its owner sent tasks/cancel
}

// judge keeps every task acknowledged and the violations found.
type judge struct {
	mu         sync.Mutex
	tasks      map[string]*task
	ids        []string // in the order acknowledged, to pick a foreign task from
	violations []Violation
	max        int // violations kept (the count goes on)
	count      int
}

func newJudge() *judge { return &judge{tasks: map[string]*task{}, max: 100} }

func (j *judge) fail(v Violation) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.count++
	if len(j.violations) < j.max {
		j.violations = append(j.violations, v)
	}
}

// acknowledged records a task the server acknowledged to its creator; an id already
// acknowledged is a task duplicated.
func (j *judge) acknowledged(id string, t *task) (dup bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.tasks[id]; ok {
		return true
	}
	j.tasks[id] = t
	j.ids = append(j.ids, id)
	return false
}

// cancelling records that the owner cancels its task.
func (j *judge) cancelling(id string) {
	j.mu.Lock()
	if t := j.tasks[id]; t != nil {
		t.cancelled = true
	}
	j.mu.Unlock()
}

// lookup returns a copy of what the judge knows of the task id.
func (j *judge) lookup(id string) (task, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	t, ok := j.tasks[id]
	if !ok {
		return task{}, false
	}
	return *t, true
}

// foreign returns a task owned by a principal other than caller ("" when none is
// found in a few tries), picked by pick(n) in [0, n).
func (j *judge) foreign(caller string, pick func(n int) int) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	for range 8 {
		if len(j.ids) == 0 {
			return ""
		}
		id := j.ids[pick(len(j.ids))]
		if t := j.tasks[id]; t.owner != "" && t.owner != caller {
			return id
		}
	}
	return ""
}

// recentForeign returns one of the tasks acknowledged last that a principal other than
// caller owns ("" when none): one likely still to change.
func (j *judge) recentForeign(caller string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := len(j.ids) - 1; i >= max(0, len(j.ids)-32); i-- {
		if t := j.tasks[j.ids[i]]; t.owner != "" && t.owner != caller {
			return j.ids[i]
		}
	}
	return ""
}

// mayRead reports whether caller (client c) may see task t: a principal's task its
// owner only; an anonymous task everyone (docs/spec.md V-AUTH-1).
func mayRead(caller string, t task) bool { return t.owner == "" || t.owner == caller }

// mayHear reports whether client c of caller may be notified about task t: the
// sessions of its owner; an anonymous task's, the session that made it (V-NOTIFY-1).
func mayHear(caller string, c int, t task) bool {
	if t.owner == "" {
		return t.client == c
	}
	return t.owner == caller
}

// allowedCode reports whether code is an error the spec allows a server to answer: the
// JSON-RPC codes of the spec and the range it leaves to implementations.
func allowedCode(code int) bool {
	switch code {
	case jsonrpc.CodeParse, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams, jsonrpc.CodeInternal:
		return true
	}
	return code >= -32099 && code <= -32000
}
