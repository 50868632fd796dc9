// Package wire speaks the storecheck wire protocol (docs/wire.md, version 1): JSON Lines over
// a child process's stdin and stdout, so that a task store written in any language can be
// checked by the same battery.
//
// The client side (Start, Client, NewHarness) starts the child, does the hello handshake
// and exposes the child as legacy.Store and modern.Store values, with the optional legacy
// interfaces only when the child advertises them, and with clock control when it does.
// Requests are pipelined: concurrent calls are in flight at once and answers may come
// back in any order.
//
// Every protocol violation (a line that is not a JSON object, an answer to an unknown id,
// an answer with both or neither of ok/error, a child that dies or stops answering) fails
// every pending and later call with an error that names the operation and quotes the
// line; an unknown error code or an answer of the wrong shape fails its own call. Nothing
// a child sends can make the client hang or panic.
//
// The server side (Serve) exposes any Go store over stdio; `storecheck serve` uses it.
package wire
