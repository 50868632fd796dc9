package facadespecs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// The M-F-* specs run the reference facade over the store under test: they check that
// the store carries the lifecycle (the facade's CAS loops) as the spec requires.

// createThrough creates a task through the facade as setup.
func createThrough(e *battery.Env, f modern.Facade, opts modern.CreateOptions) modern.Task {
	t, err := f.Create(e.Ctx, opts, nil)
	e.RequireErr(err, nil, fmt.Sprintf("setup: facade Create(%+v)", opts))
	return t
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)

// createOpts renders CreateOptions for input lines.
func createOpts(o modern.CreateOptions) string {
	d := func(p *time.Duration) string {
		if p == nil {
			return "nil"
		}
		return p.String()
	}
	return fmt.Sprintf("{Owner: %q, TTL: %s, PollInterval: %s, StatusMessage: %q}", o.Owner, d(o.TTL), d(o.PollInterval), o.StatusMessage)
}

func ModernCreate(s *battery.Suite) {
	s.It("M-F-CREATE-1", "generates the id, stamps every field, stores the task as working, and only then calls start", func(e *battery.Env) {
		st := e.Modern()
		f := battery.ModernFacade(e)
		opts := modern.CreateOptions{Owner: "alice", TTL: new(90 * time.Second), PollInterval: new(2 * time.Second), StatusMessage: "starting"}
		call := "facade Create(" + createOpts(opts) + ", start)"
		var (
			calls   int
			startID string
		)
		before := e.NowMillis()
		got, err := f.Create(e.Ctx, opts, func(ctx context.Context, id string) error {
			calls++
			startID = id
			// The worker started here must find its task, stored and working.
			seen, err := f.Status(ctx, id)
			if e.CheckErr(err, nil, fmt.Sprintf("inside start(%s): facade Status(%s)", battery.Literal(id), battery.Literal(id))) {
				e.Check(seen.Status == reference.StatusWorking && seen.Version == 1, fmt.Sprintf("inside start: Status(%s)", battery.Literal(id)), "the task, working, at version 1", seen)
			}
			_, err = st.Get(ctx, id, reference.System())
			e.CheckErr(err, nil, fmt.Sprintf("inside start(%s): store Get(%s, system)", battery.Literal(id), battery.Literal(id)))
			return nil
		})
		after := e.NowMillis()
		e.RequireErr(err, nil, call)
		e.Check(calls == 1 && startID == got.TaskID, call, "start called once, with the new task's id", fmt.Sprintf("%d calls, id %q (task %q)", calls, startID, got.TaskID))
		raw, decErr := base64.RawURLEncoding.DecodeString(got.TaskID)
		e.Check(idPattern.MatchString(got.TaskID) && decErr == nil && len(raw) == 16, call,
			"a task_id of 22 base64url characters (16 bytes)", fmt.Sprintf("%q", got.TaskID))
		e.Check(got.CreatedAt >= before && got.CreatedAt <= after && got.LastUpdatedAt == got.CreatedAt, call,
			fmt.Sprintf("created_at = last_updated_at = now (between %d and %d)", before, after),
			fmt.Sprintf("created_at %d, last_updated_at %d", got.CreatedAt, got.LastUpdatedAt))
		want := modern.Task{
			TaskID: got.TaskID, Owner: "alice", Status: reference.StatusWorking, StatusMessage: "starting",
			CreatedAt: got.CreatedAt, LastUpdatedAt: got.CreatedAt, TTL: modernspecs.MS(90_000), PollInterval: modernspecs.MS(2000), Version: 1,
		}
		modernspecs.CheckTask(e, call+" returned", want, got)
		modernspecs.CheckStored(e, st, want, call)

		// Ids are fresh each time, and a task without owner has none, however "no owner"
		// travelled.
		for _, form := range ownerForms(f) {
			other, err := form.fac.Create(e.Ctx, modern.CreateOptions{}, nil)
			call := "facade Create({}, nil" + form.note() + ")"
			if e.CheckErr(err, nil, call) {
				e.Check(other.TaskID != got.TaskID && idPattern.MatchString(other.TaskID), call, "another fresh 22-character id", other.TaskID)
				e.Check(other.Owner == "" && other.TTL == nil && other.PollInterval == nil && other.Status == reference.StatusWorking,
					call+" without default ttl", "no owner, no ttl, no poll interval, working", other)
				modernspecs.CheckStored(e, st, other, call)
			}
		}
	})

	s.It("M-F-CREATE-1", "applies the default ttl, clamps to the max, and stores the applied value", func(e *battery.Env) {
		st := e.Modern()
		for _, tc := range []struct {
			def, max time.Duration
			req      *time.Duration
			want     *int64
		}{
			{0, 0, nil, nil},
			{0, 0, new(time.Hour), modernspecs.MS(3_600_000)},
			{5 * time.Second, 0, nil, modernspecs.MS(5000)},
			{5 * time.Second, 0, new(3 * time.Second), modernspecs.MS(3000)},
			{5 * time.Second, 0, new(time.Hour), modernspecs.MS(3_600_000)},
			{0, 10 * time.Second, new(time.Hour), modernspecs.MS(10_000)},
			{0, 10 * time.Second, nil, modernspecs.MS(10_000)},
			{time.Hour, 10 * time.Second, nil, modernspecs.MS(10_000)},
			{0, 10 * time.Second, new(10 * time.Second), modernspecs.MS(10_000)},
			{0, 10 * time.Second, new(9999 * time.Millisecond), modernspecs.MS(9999)},
			{2 * time.Second, 10 * time.Second, nil, modernspecs.MS(2000)},
		} {
			f := battery.ModernFacade(e, func(c *modern.Config) { c.DefaultTTL, c.MaxTTL = tc.def, tc.max })
			opts := modern.CreateOptions{TTL: tc.req, PollInterval: new(250 * time.Millisecond)}
			call := fmt.Sprintf("facade{DefaultTTL: %v, MaxTTL: %v}.Create(%s)", tc.def, tc.max, createOpts(opts))
			got, err := f.Create(e.Ctx, opts, nil)
			if !e.CheckErr(err, nil, call) {
				continue
			}
			ms := func(p *int64) string {
				if p == nil {
					return "none"
				}
				return fmt.Sprintf("%d ms", *p)
			}
			e.Check(ptrEq(got.TTL, tc.want) && ptrEq(got.PollInterval, modernspecs.MS(250)), call,
				fmt.Sprintf("ttl %s, poll interval 250 ms", ms(tc.want)), fmt.Sprintf("ttl %s, poll interval %s", ms(got.TTL), ms(got.PollInterval)))
			if stored, ok := modernspecs.Stored(e, st, got.TaskID); e.Check(ok, call+", then store Get", "the task", "ErrNotFound") {
				e.Check(ptrEq(stored.TTL, tc.want), call+", then store Get", "stored ttl "+ms(tc.want), "stored ttl "+ms(stored.TTL))
			}
		}
	})

	s.It("M-F-CREATE-1", "a start failure fails the task with -32603 and Create returns the error", func(e *battery.Env) {
		st := e.Modern()
		f := battery.ModernFacade(e)
		boom := errors.New("worker pool is full")
		opts := modern.CreateOptions{Owner: "alice", StatusMessage: "starting"}
		call := "facade Create(" + createOpts(opts) + ", start returning \"worker pool is full\")"
		started := false
		got, err := f.Create(e.Ctx, opts, func(ctx context.Context, id string) error {
			_, serr := f.Status(ctx, id)
			started = serr == nil
			return boom
		})
		e.Check(errors.Is(err, boom), call, "an error wrapping the start hook's error", err)
		e.Check(started, call, "start called after the task was stored (Status found it)", "start did not find its task")
		e.Check(got.Status == reference.StatusFailed, call+" returned", "a failed task", got)
		e.Check(got.Error != nil && jsonvalue.Equal(got.Error["code"], json.Number("-32603")) && got.Error["message"] == boom.Error(), call+" returned",
			fmt.Sprintf("error {code: -32603, message: %q}", boom.Error()), jsonvalue.Describe(got.Error))
		if got.TaskID != "" {
			modernspecs.CheckStored(e, st, got, call)
			e.Check(got.Version == 2 && got.Owner == "alice", call+" returned", "version 2 (created, then failed), owner alice", got)
		}
	})

	s.It("M-F-CREATE-1", "refuses a ttl or poll interval that is not positive with ErrInvalid, before start", func(e *battery.Env) {
		f := battery.ModernFacade(e, func(c *modern.Config) { c.DefaultTTL = time.Minute; c.MaxTTL = time.Hour })
		for _, opts := range []modern.CreateOptions{
			{TTL: new(time.Duration(0))},
			{TTL: new(-time.Millisecond)},
			{TTL: new(-time.Hour)},
			{PollInterval: new(time.Duration(0))},
			{PollInterval: new(-time.Second)},
			{TTL: new(time.Minute), PollInterval: new(-time.Nanosecond)},
		} {
			call := "facade Create(" + createOpts(opts) + ", start)"
			started := false
			got, err := f.Create(e.Ctx, opts, func(context.Context, string) error { started = true; return nil })
			if !e.CheckErr(err, reference.ErrInvalid, call) && err == nil {
				e.Errorf("  the facade created %s", battery.Show(got))
			}
			e.Check(!started, call, "start not called", "start was called")
		}
	})
}

func ptrEq(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
