// Package typescriptsdk checks the TypeScript MCP SDK's real InMemoryTaskStore (npm
// @modelcontextprotocol/sdk, the version pinned in package.json and package-lock.json)
// against the SDK task-store profile, through shim.mjs over the wire protocol.
//
// shim_test.go checks the shim itself: that it maps every sdk.* operation to one call of
// the store and back without losing or changing anything (so no verdict is the
// mapping's). verdicts_test.go runs the profile and compares each rule's outcome with
// the verdict pinned for the pinned SDK version, so that a new SDK version that changes
// behaviour fails `make test` until the pins (and docs/sdk.md's compatibility table) are
// updated. probes.mjs reproduces each finding by hand, without storecheck.
//
// The store needs node 20 or later and `npm ci` in this directory (make node-deps). Without
// them the tests skip, except under CI=true, where they fail.
package typescriptsdk
