package probe

import (
	"context"
	"fmt"

	"github.com/storecheck/storecheck/conformance"
)

// capability is a part of tasks a check needs the server to declare.
type capability int

const (
	capTasks  capability = iota // any task support (the 2025-11-25 capabilities.tasks)
	capCall                     // task-augmented tools/call
	capList                     // tasks/list
	capCancel                   // tasks/cancel
)

// taskCaps is what a server declared of tasks: in 2025-11-25 its initialize's
// capabilities.tasks, each method on a key of its own; in 2026-07-28 the tasks
// extension in server/discover's capabilities.extensions, which brings every method.
type taskCaps struct {
	modern                    bool
	ext                       bool // 2026-07-28: the extension declared
	tasks, list, cancel, call bool // 2025-11-25
}

// legacyCaps reads an initialize result's capabilities.
func legacyCaps(caps map[string]any) taskCaps {
	t, ok := caps["tasks"].(map[string]any)
	if !ok {
		return taskCaps{}
	}
	reqs, _ := t["requests"].(map[string]any)
	tools, _ := reqs["tools"].(map[string]any)
	return taskCaps{tasks: true, list: t["list"] != nil, cancel: t["cancel"] != nil, call: tools["call"] != nil}
}

// need is nil when the server declared each capability, and otherwise the cause of a
// check not exercised (lack).
func (c taskCaps) need(caps ...capability) error {
	if why := c.lack(caps...); why != "" {
		return fmt.Errorf("%w: %s", errNone, why)
	}
	return nil
}

// lack names the first of caps the server did not declare and the text that makes the
// declaration decide ("" when it declared them all).
func (c taskCaps) lack(caps ...capability) string {
	if c.modern {
		if !c.ext {
			return fmt.Sprintf("the server declares no tasks extension: server/discover's capabilities.extensions has no %q, so no tasks/* method is offered (2026-07-28)", tasksExtension)
		}
		return ""
	}
	if !c.tasks {
		return `the server declares no tasks capability: initialize's capabilities has no "tasks" (2025-11-25: "Servers and clients that support task-augmented requests MUST declare a tasks capability during initialization")`
	}
	for _, want := range caps {
		switch {
		case want == capCall && !c.call:
			return `the server declares no capabilities.tasks.requests.tools.call: task-augmented tools/call is not offered (2025-11-25: "The set of capabilities in capabilities.tasks.requests is exhaustive. If a request type is not present, it does not support task-augmentation")`
		case want == capList && !c.list:
			return `the server declares no capabilities.tasks.list: tasks/list is not offered (2025-11-25: "capabilities.tasks.list controls if the tasks/list operation is supported by the party")`
		case want == capCancel && !c.cancel:
			return `the server declares no capabilities.tasks.cancel: tasks/cancel is not offered (2025-11-25: "capabilities.tasks.cancel controls if the tasks/cancel operation is supported by the party")`
		}
	}
	return ""
}

// declared is the text a failure adds when the server declared the method it did not
// serve.
func (c taskCaps) declared(method string) string {
	switch {
	case c.modern:
		return fmt.Sprintf("(the server declares the tasks extension, which has %s)", method)
	case method == "tasks/list":
		return "(the server declares capabilities.tasks.list)"
	case method == "tasks/cancel":
		return "(the server declares capabilities.tasks.cancel)"
	}
	return "(the server declares capabilities.tasks)"
}

// needs runs check only when the server declared each capability (the first
// principal's declaration); otherwise the check is not exercised, its cause named.
func needs(run func(context.Context, *eraRun) error, caps ...capability) func(context.Context, *eraRun) error {
	return func(ctx context.Context, r *eraRun) error {
		if err := r.owner.caps.need(caps...); err != nil {
			return err
		}
		return run(ctx, r)
	}
}

// taskMethods are the methods on one task the era offers and the server declared (in
// 2025-11-25 tasks/cancel only with capabilities.tasks.cancel); a method left out is
// noted.
func (r *eraRun) taskMethods() []string {
	if r.era == conformance.EraModern {
		return []string{"tasks/get", "tasks/cancel", "tasks/update"}
	}
	if !r.owner.caps.cancel {
		r.note("tasks/cancel not tried: " + r.owner.caps.lack(capCancel))
		return []string{"tasks/get", "tasks/result"}
	}
	return []string{"tasks/get", "tasks/cancel", "tasks/result"}
}
