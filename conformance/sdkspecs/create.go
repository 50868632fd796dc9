package sdkspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

func Create(s *battery.Suite) {
	s.It("P-CREATE-1", "a created task is working, stamped now, with the ttl requested or kept, and reads back unchanged", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "create")
		for _, ttl := range []*int64{i64(ttl(e)), nil} {
			p := params(ttl)
			p.PollInterval = i64(750)
			before := e.NowMillis()
			t, err := st.CreateTask(e.Ctx, session, p)
			after := e.NowMillis()
			in := createCall(session, p)
			if !e.CheckErr(err, nil, in) {
				continue
			}
			e.Check(t.TaskID != "", in+": taskId", "a generated id", battery.Literal(t.TaskID))
			e.Check(t.Status == reference.StatusWorking, in+": status", "working", string(t.Status))
			e.Check(t.StatusMessage == "", in+": statusMessage", "none", battery.Literal(t.StatusMessage))
			created, ok1 := millis(e, in, "createdAt", t.CreatedAt)
			updated, ok2 := millis(e, in, "lastUpdatedAt", t.LastUpdatedAt)
			if ok1 {
				slack := int64(0)
				if !e.HasClock() {
					slack = 5 // the store's millisecond may round the other way
				}
				e.Check(created >= before-slack && created <= after+slack, in+": createdAt",
					fmt.Sprintf("the store's clock at the call, %s..%s", sdk.FormatTime(before), sdk.FormatTime(after)), battery.Literal(t.CreatedAt))
			}
			if ok1 && ok2 {
				e.Check(created == updated, in+": lastUpdatedAt", "createdAt "+battery.Literal(t.CreatedAt), battery.Literal(t.LastUpdatedAt))
			}
			switch {
			case t.TTL != nil && *t.TTL < 0:
				e.Check(false, in+": ttl", "the ttl requested, another the store keeps, or null", fmt.Sprint(*t.TTL))
			case ttl != nil && (t.TTL == nil || *t.TTL != *ttl):
				e.Note("%s: the store keeps ttl %s instead of the %d requested", in, show(t.TTL), *ttl)
			}
			if got, err := st.GetTask(e.Ctx, session, t.TaskID); e.CheckErr(err, nil, fmt.Sprintf("GetTask(%s, %s) after %s", whoOf(session), battery.Literal(t.TaskID), in)) {
				checkTask(e, fmt.Sprintf("GetTask(%s, %s) after %s", whoOf(session), battery.Literal(t.TaskID), in), t, got)
			}
		}
	})
}
