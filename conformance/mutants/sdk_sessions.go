package mutants

import (
	"strings"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK profile's session defects: how a task's session compares with the caller's
// (a hook: the comparison is inside every call's lookup).

// sdkSessionMutants are the SDK profile's session defects.
var sdkSessionMutants = []mutant.Mutant[Build]{
	{Name: "sdk-session-case-insensitive", Breaks: []string{"P-SESS-1"}, Defect: "sessions are compared case-insensitively (session ABC sees session abc's tasks)", Build: Build{sdkOnly, sdkHooked(sdkHooks{sameSession: strings.EqualFold})}},
	{Name: "sdk-sessionless-sees-all", Breaks: []string{"P-SESS-2"}, Defect: "(TS) a caller without a session sees and writes every session's task, while the store declares sessionless callers isolated", Build: Build{sdkOnly, sdkHooked(sdkHooks{sameSession: sessionlessSeesAll})}},
	{Name: "sdk-session-prefix-255", Breaks: []string{"P-SESS-1"}, Defect: "sessions are compared on their first 255 bytes (a VARCHAR(255) column): two sessions that differ after that share their tasks", Build: Build{sdkOnly, sdkHooked(sdkHooks{sameSession: samePrefix255})}},
	{Name: "sdk-session-normalized", Breaks: []string{"P-SESS-1"}, Defect: "sessions are compared after Unicode normalisation: \"café\" composed and decomposed are one session", Build: Build{sdkOnly, sdkHooked(sdkHooks{sameSession: func(row, caller string) bool { return foldAccents(row) == foldAccents(caller) }})}},
	{Name: "sdk-sessions-ignored", Breaks: []string{"P-SESS-1", "P-SESS-3", "P-LIST-1", "P-WAIT-1"}, Defect: "every caller sees every session's task, declared sessionless unrestricted (no policy value says that sessions are ignored for everyone)", Build: Build{sdkOnly, &wrapper{sdk: func(st sdkStore, _ *wrapState) sdk.Store {
		st.h.sameSession = anySession
		return sessionlessUnrestricted{st}
	}}}},
}

// sessionlessSeesAll: a caller without a session matches every session.
func sessionlessSeesAll(row, caller string) bool { return caller == sdk.NoSession || row == caller }

// samePrefix255 compares sessions on their first 255 bytes (a VARCHAR(255) column).
func samePrefix255(row, caller string) bool {
	return row[:min(len(row), 255)] == caller[:min(len(caller), 255)]
}

func anySession(string, string) bool { return true }

// foldAccents is the sdk-session-normalized mutant's comparison: a combining acute accent
// folded into the precomposed letter, as a Unicode normalisation (NFC) would.
func foldAccents(s string) string {
	return strings.NewReplacer("e\u0301", "\u00e9", "a\u0301", "\u00e1").Replace(s)
}

// sessionlessUnrestricted declares sessionless callers unrestricted.
type sessionlessUnrestricted struct{ sdkStore }

func (sessionlessUnrestricted) Policy() sdk.Policy {
	return sdk.Policy{Sessionless: sdk.SessionlessUnrestricted, TTLFrom: sdk.TTLFromCreation}
}
