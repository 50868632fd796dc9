package sdk

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/storecheck/storecheck/reference"
)

func TestVisible(t *testing.T) {
	for _, c := range []struct {
		policy        Sessionless
		owner, caller string
		want          bool
	}{
		{SessionlessIsolated, "a", "a", true},
		{SessionlessIsolated, "a", "b", false},
		{SessionlessIsolated, "a", "A", false},
		{SessionlessIsolated, "a", NoSession, false},
		{SessionlessIsolated, NoSession, NoSession, true},
		{SessionlessIsolated, NoSession, "a", false},
		{SessionlessRefused, NoSession, NoSession, false},
		{SessionlessRefused, "a", NoSession, false},
		{SessionlessRefused, "a", "a", true},
		{SessionlessUnrestricted, "a", NoSession, true},
		{SessionlessUnrestricted, "a", "b", false},
		{SessionlessUnrestricted, NoSession, NoSession, true},
	} {
		if got := c.policy.Visible(c.owner, c.caller); got != c.want {
			t.Errorf("%s.Visible(owner %q, caller %q) = %v, want %v", c.policy, c.owner, c.caller, got, c.want)
		}
	}
	if SessionlessUnrestricted.FailsClosed() || !SessionlessIsolated.FailsClosed() || !SessionlessRefused.FailsClosed() {
		t.Error("FailsClosed: want isolated and refused only")
	}
}

func TestPolicyValidate(t *testing.T) {
	if err := (Policy{SessionlessIsolated, TTLFromCreation}).Validate(); err != nil {
		t.Errorf("a valid policy: %v", err)
	}
	for _, p := range []Policy{{"open", TTLFromCreation}, {SessionlessIsolated, "forever"}, {}} {
		if err := p.Validate(); !errors.Is(err, reference.ErrInvalid) {
			t.Errorf("Validate(%+v) = %v, want ErrInvalid", p, err)
		}
	}
}

func TestTimes(t *testing.T) {
	const ms = 1_764_400_000_123
	s := FormatTime(ms)
	if s != "2025-11-29T07:06:40.123Z" {
		t.Errorf("FormatTime(%d) = %q, want JavaScript's toISOString form", ms, s)
	}
	for _, in := range []string{s, "2025-11-29T08:06:40.123+01:00", "2025-11-29T07:06:40.123456Z"} {
		if got, err := ParseTime(in); err != nil || got != ms {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", in, got, err, ms)
		}
	}
	if _, err := ParseTime("1764400000123"); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("ParseTime of epoch milliseconds: %v, want ErrInvalid", err)
	}
}

// TestTaskJSON: the Task's JSON is MCP's: camelCase, ttl always present (null when
// unlimited), optional fields left out.
func TestTaskJSON(t *testing.T) {
	b, err := json.Marshal(Task{TaskID: "t", Status: reference.StatusWorking, CreatedAt: "c", LastUpdatedAt: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u","ttl":null}`; string(b) != want {
		t.Errorf("Task JSON = %s, want %s", b, want)
	}
	ttl, poll := int64(5), int64(7)
	orig := Task{TaskID: "t", TTL: &ttl, PollInterval: &poll}
	c := orig.Clone()
	*c.TTL, *c.PollInterval = 1, 1
	if *orig.TTL != 5 || *orig.PollInterval != 7 {
		t.Error("Clone shares the ttl or poll interval with the original")
	}
}
