package servermutants

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/server"
)

// Deployment lists the defects of a server scaled out over a shared store: every
// instance of a deployment is built with the defect, and only calls spread across
// instances (the probe's V-X* rules) can tell; one instance alone serves as the honest
// server does. They are not in Catalogue, whose runs probe one server.
func Deployment() []mutant.Mutant[Build] { return slices.Clone(deploymentMutants) }

// DeploymentByName finds a mutant of Deployment.
func DeploymentByName(name string) (mutant.Mutant[Build], bool) {
	i := slices.IndexFunc(deploymentMutants, func(m mutant.Mutant[Build]) bool { return m.Name == name })
	if i < 0 {
		return mutant.Mutant[Build]{}, false
	}
	return deploymentMutants[i], true
}

// lagFor is how long a task made by an instance with the create-before-visible defect
// stays unseen by the others.
const lagFor = 200 * time.Millisecond

var deploymentMutants = []mutant.Mutant[Build]{
	{Name: "cancel-in-process", Breaks: []string{"V-XCANCEL-1"},
		Defect: "tasks/cancel signals the work in the instance's own memory only: a task whose work another instance runs is answered as taken (2025-11-25: shown cancelled) and keeps working",
		Build:  Build{Wrap: inProcessOnly("tasks/cancel")}},
	{Name: "input-in-process", Breaks: []string{"V-XINPUT-1"},
		Defect: "tasks/update hands its answers to the work in the instance's own memory only: answers to a task another instance runs are acknowledged and never reach it",
		Build:  Build{Wrap: inProcessOnly("tasks/update")}},
	{Name: "create-before-visible", Breaks: []string{"V-XREAD-1"},
		Defect: "tools/call answers CreateTaskResult before its write reaches the other instances: for its first 200 ms a task is found only on the instance that made it",
		Build:  Build{Wrap: createBeforeVisible}},
	{Name: "dead-left-working", Breaks: []string{"V-XKILL-1"},
		Defect: "no instance takes up the leases of one that died: its working tasks stay working",
		Build:  Build{Setup: func(cfg server.Config, _ func()) server.Config { cfg.Leases = nil; return cfg }}},
}

// made is the tasks created through one instance: the ones its own memory knows.
type made struct{ ids sync.Map }

// track records the task a tools/call answer created.
func (m *made) track(r *server.Request, res any) {
	if r.Method() == "tools/call" {
		if id := createdID(r.Modern(), res); id != "" {
			m.ids.Store(id, struct{}{})
		}
	}
}

func (m *made) has(id string) bool { _, ok := m.ids.Load(id); return ok }

// inProcessOnly answers method for a task another instance made as if it were taken,
// without passing it on: the instance tells only the work it runs itself.
func inProcessOnly(method string) func(server.Handler, func()) server.Handler {
	return func(next server.Handler, _ func()) server.Handler {
		mine := &made{}
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			if r.Method() != method || mine.has(taskOf(r)) {
				res, e := next(ctx, r)
				mine.track(r, res)
				return res, e
			}
			t, e := getTask(ctx, next, r, nil)
			switch {
			case e != nil:
				return nil, e
			case r.Modern():
				return map[string]any{"resultType": "complete"}, nil
			}
			if !terminal(t) {
				t["status"] = "cancelled"
			}
			return t, nil
		}
	}
}

// createBeforeVisible hides from tasks/get, for lagFor after its creation, a task
// another instance made: that instance answered before the write reached this one.
func createBeforeVisible(next server.Handler, _ func()) server.Handler {
	mine := &made{}
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		res, e := next(ctx, r)
		mine.track(r, res)
		if r.Method() != "tasks/get" || e != nil || mine.has(taskOf(r)) {
			return res, e
		}
		t, _ := res.(map[string]any)
		created, _ := t["createdAt"].(string)
		if at, err := time.Parse(time.RFC3339Nano, created); err == nil && time.Since(at) < lagFor {
			return nil, taskNotFound(taskOf(r))
		}
		return res, e
	}
}
