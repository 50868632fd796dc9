// Package elixirstore runs the whole battery against the Elixir example store
// (shim.exs: an ETS table behind each era's Store behaviour, the way ConduitMCP's
// EtsStore keeps tasks, and each era's facade over it) over the wire protocol, as
// `storecheck run --exec` does.
//
// It needs elixir on PATH (Debian's package is enough: the example has no
// dependencies). Without it the test skips, except under CI=true, where it fails.
package elixirstore
