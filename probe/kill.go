package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/probe/client"
)

// killWhy is what an instance's death may not do to the tasks it answered for.
const killWhy = `no acknowledged task lost, none left working past the deployment's lease ("A server MUST NOT return CreateTaskResult until the task is durably created"; a task's status tells its requestor of the request: working is "The request is currently being processed")`

// leaseGrace is how long past the lease the probe keeps reading before a task still
// working from before the kill fails: the deployment's own check of leases runs on an
// interval.
const leaseGrace = 2 * time.Second

// victimTask is a task the probe made before it killed an instance.
type victimTask struct {
	id, what string
	maker    member // the connection that made it: a task of a live instance is read there
	before   any    // lastUpdatedAt before the kill
	onVictim bool   // made through the instance killed
	settled  bool
}

// checkCrossKill (V-XKILL-1, a deployment the probe started): a task of the long tool is
// made through every instance and a task of the quick tool through the one about to die,
// which ends; that instance is killed (SIGKILL). Through another instance every task is
// then found: the dead instance's long task ended or taken up again (its lastUpdatedAt
// moved) within the lease, the others as before. Behind the router the dead instance's
// tasks may go with it, as a deployment that keeps tasks on their instance says: noted.
// The instance is started again after.
func checkCrossKill(ctx context.Context, r *eraRun) error {
	ms, err := r.spread(ctx)
	if err != nil {
		return err
	}
	d := r.cfg.deploy
	if !d.started() {
		return fmt.Errorf("%w: the probe did not start the instances (give the server's command with --instances N): it kills none it did not start", errNone)
	}
	victim := len(d.instances) - 1
	tasks, err := r.killTasks(ctx, ms, &victim)
	reader := ms[0]
	defer func() {
		for _, t := range tasks {
			_, _ = reader.p.call(context.WithoutCancel(ctx), "tasks/cancel", map[string]any{"taskId": t.id}, true)
		}
	}()
	if err != nil {
		return err
	}
	d.instances[victim].kill()
	if d.router != nil {
		d.router.setDown(victim, true)
	}
	killed := time.Now()
	defer func() {
		if err := d.instances[victim].start(context.WithoutCancel(ctx)); err != nil {
			r.note(fmt.Sprintf("instance %d could not be started again after the kill: %v", victim+1, err))
		} else if d.router != nil {
			d.router.setDown(victim, false)
		}
	}()
	return r.afterKill(ctx, reader, tasks, victim, killed)
}

// killTasks makes the tasks checkCrossKill watches and picks the instance to kill
// (victim): behind the router, the one holding the last long task.
func (r *eraRun) killTasks(ctx context.Context, ms []member, victim *int) ([]*victimTask, error) {
	var tasks []*victimTask
	for i, m := range ms {
		id, err := m.p.create(ctx, r.tools.Long, r.tools.LongArgs)
		if err != nil {
			return tasks, fmt.Errorf("%w: %w", errSetup, err)
		}
		tasks = append(tasks, &victimTask{id: id, maker: m, what: fmt.Sprintf("the working task %s of %s made on %s", id, r.tools.Long, r.where(m, id))})
		if rt := r.cfg.deploy.router; rt != nil && i == len(ms)-1 && rt.holder(id) >= 0 {
			*victim = rt.holder(id)
		}
	}
	on := ms[*victim]
	if r.cfg.deploy.router != nil {
		on = ms[len(ms)-1] // the router sends its next task where it will
	}
	id, err := on.p.createEnded(ctx, r.tools.Quick, r.tools.QuickArgs)
	if err != nil {
		return tasks, fmt.Errorf("%w: %w", errSetup, err)
	}
	tasks = append(tasks, &victimTask{id: id, maker: on, what: fmt.Sprintf("the ended task %s of %s made on %s", id, r.tools.Quick, r.where(on, id))})
	for i, t := range tasks {
		if rt := r.cfg.deploy.router; rt != nil {
			t.onVictim = rt.holder(t.id) == *victim
		} else {
			t.onVictim = i == *victim || t.id == id
		}
		via := r.killReader(t, ms[0])
		got, rpcErr, err := via.p.task(ctx, t.id)
		if err != nil {
			return tasks, err
		}
		if rpcErr != nil {
			// Not found before any kill: a loss after it would say nothing of the kill.
			return tasks, fmt.Errorf("%w: tasks/get on %s of %s before any kill: %s (V-XREAD-1 judges that)", errNone, via.name, t.what, rpcText(rpcErr))
		}
		t.before = got["lastUpdatedAt"]
	}
	return tasks, nil
}

// killReader is where task t is read before and after the kill: a task of the
// instance to die through reader (a live instance), any other through the connection
// that made it; behind the router always through that connection, which the router
// sends to the task's instance while it lives and to the next live one after.
func (r *eraRun) killReader(t *victimTask, reader member) member {
	if t.onVictim && r.cfg.deploy.router == nil {
		return reader
	}
	return t.maker
}

// afterKill reads every task through reader until each is settled: found ended, found
// taken up again, found on a live instance, or (behind the router) gone with its
// instance; a task lost, or still working untouched past the lease, is the fault.
func (r *eraRun) afterKill(ctx context.Context, reader member, tasks []*victimTask, victim int, killed time.Time) error {
	lease := r.cfg.deploy.lease
	deadline := killed.Add(lease + leaseGrace)
	dead := fmt.Sprintf("instance %d", victim+1)
	for {
		open := 0
		for _, t := range tasks {
			if t.settled {
				continue
			}
			via := r.killReader(t, reader)
			got, rpcErr, err := via.p.task(ctx, t.id)
			var refused *client.HTTPError
			if errors.As(err, &refused) && t.onVictim && r.cfg.deploy.router != nil {
				// The dead instance's session is gone with it: the balancer's next
				// instance does not know it.
				rpcErr, err = &client.Error{Code: refused.StatusCode, Message: refused.Status}, nil
			}
			if err != nil {
				return err
			}
			if err := r.settle(t, got, rpcErr, via.name, dead, killed, deadline); err != nil {
				return err
			}
			if !t.settled {
				open++
			}
		}
		if open == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// settle judges one read of task t after the kill.
func (r *eraRun) settle(t *victimTask, got map[string]any, rpcErr *client.Error, reader, dead string, killed, deadline time.Time) error {
	since := time.Since(killed).Round(time.Millisecond)
	in := fmt.Sprintf("tasks/get on %s of %s, %v after %s was killed (SIGKILL)", reader, t.what, since, dead)
	switch {
	case rpcErr != nil && t.onVictim && r.cfg.deploy.router != nil:
		r.note(fmt.Sprintf("%s went with %s (%s): behind a router a deployment that keeps tasks on their instance loses them with it", t.what, dead, rpcText(rpcErr)))
		t.settled = true
	case rpcErr != nil:
		return faultf(in, "the task ("+killWhy+")", fmt.Sprintf("acknowledged task lost: created before the kill, %s answered: %s", reader, rpcText(rpcErr)))
	case terminalStatus(got["status"]) || !t.onVictim:
		t.settled = true
	case got["lastUpdatedAt"] != t.before:
		r.note(fmt.Sprintf("%s was taken up again: %v, lastUpdatedAt %v (before the kill %v)", t.what, got["status"], got["lastUpdatedAt"], t.before))
		t.settled = true
	case time.Now().After(deadline):
		return faultf(in, fmt.Sprintf("the task ended or taken up again within the lease of %v (%s)", r.cfg.deploy.lease, killWhy),
			fmt.Sprintf("still %v, untouched since before the kill (lastUpdatedAt %v)", got["status"], t.before))
	}
	return nil
}
