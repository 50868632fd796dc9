package mutants

import (
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK profile's ttl defects: when a task expires and what Cleanup sweeps (hooks:
// both are judged under the store's lock, row by row).

// sdkTTLMutants are the SDK profile's ttl and cleanup defects.
var sdkTTLMutants = []mutant.Mutant[Build]{
	{Name: "sdk-ttl-removes-working", Breaks: []string{"P-TTL-1"}, Defect: "(TS) the ttl removes a task whatever its status, working ones included", Build: Build{sdkOnly, sdkHooked(sdkHooks{expired: expiresWorking})}},
	{Name: "sdk-ttl-restarts-at-completion", Breaks: []string{"P-TTL-2"}, Defect: "(TS) the ttl is counted again from the terminal status while the store declares it counts from creation", Build: Build{sdkOnly, sdkHooked(sdkHooks{expired: expiresFromTerminal})}},
	{Name: "sdk-ttl-zero-kept", Breaks: []string{"P-TTL-3"}, Defect: "(TS) a task reports ttl 0 and never expires (if (ttl) is false for 0)", Build: Build{sdkOnly, sdkHooked(sdkHooks{expired: zeroTTLKept})}},
	{Name: "sdk-ttl-timer-overflow", Breaks: []string{"P-TTL-2", "P-CLEAN-1"}, Defect: "(TS) a ttl past 2^31-1 ms expires 1 ms after the task ends (Node's setTimeout runs a longer delay at once), so a Cleanup sweeps it too", Build: Build{sdkOnly, sdkHooked(sdkHooks{expired: timerOverflows})}},
	{Name: "sdk-ttl-restarts-declared", Breaks: []string{"P-TTL-4"}, Defect: "the ttl counts from creation and starts again when the task becomes terminal, declared as ttl_from completion (P-TTL-2 holds; MCP's creation does not)", Build: Build{sdkOnly, &wrapper{sdk: func(st sdkStore, _ *wrapState) sdk.Store {
		st.h.expired = expiresFromTerminal
		return ttlFromCompletion{st}
	}}}},
	{Name: "sdk-cleanup-ttl-int32", Breaks: []string{"P-CLEAN-1"}, Defect: "Cleanup passes the ttl as a 32-bit integer: a task kept 2^31 ms or more is swept at once", Build: Build{sdkOnly, sdkHooked(sdkHooks{swept: sweptInt32})}},
	{Name: "sdk-cleanup-removes-terminal", Breaks: []string{"P-CLEAN-1"}, Defect: "Cleanup removes every terminal task with a ttl, expired or not", Build: Build{sdkOnly, sdkHooked(sdkHooks{swept: sweptTerminal})}},
}

// expiresWorking: the ttl removes a task whatever its status.
func expiresWorking(r *sdkRow, now int64) bool {
	return r.task.TTL != nil && now >= r.createdMs+*r.task.TTL
}

// expiresFromTerminal counts the ttl again from the terminal status.
func expiresFromTerminal(r *sdkRow, now int64) bool {
	if r.task.TTL == nil || !r.task.Status.Terminal() {
		return false
	}
	from := r.createdMs
	if r.terminalMs != 0 {
		from = r.terminalMs
	}
	return now >= from+*r.task.TTL
}

// zeroTTLKept never expires a ttl of 0 (if (ttl) { schedule cleanup }: 0 is false).
func zeroTTLKept(r *sdkRow, now int64) bool {
	return (r.task.TTL == nil || *r.task.TTL != 0) && sdkExpired(r, now)
}

// timerOverflows runs a ttl past 2^31-1 ms after 1 ms, as setTimeout does.
func timerOverflows(r *sdkRow, now int64) bool {
	if r.task.TTL != nil && *r.task.TTL > 1<<31-1 {
		return r.task.Status.Terminal() && now >= r.createdMs+1
	}
	return sdkExpired(r, now)
}

// sweptInt32 passes the sweep's ttl as a 32-bit integer.
func sweptInt32(r *sdkRow, now int64) bool {
	return (r.task.TTL != nil && r.task.Status.Terminal() && now >= r.createdMs+int64(int32(*r.task.TTL))) || sdkExpired(r, now)
}

// sweptTerminal sweeps every terminal task with a ttl, expired or not.
func sweptTerminal(r *sdkRow, now int64) bool {
	return sdkExpired(r, now) || (r.task.TTL != nil && r.task.Status.Terminal())
}

// ttlFromCompletion declares its ttl counted from completion.
type ttlFromCompletion struct{ sdkStore }

func (ttlFromCompletion) Policy() sdk.Policy {
	return sdk.Policy{Sessionless: sdk.SessionlessIsolated, TTLFrom: sdk.TTLFromCompletion}
}
