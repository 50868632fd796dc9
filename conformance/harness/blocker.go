package harness

import "context"

// Blocker is the optional side of a Namespace whose backend can be held busy from outside
// the store under test: another connection holding a lock on the task's row or table, a
// paused server, a store process that sleeps before it answers. S-CTX-1 finds it by
// interface assertion and ends the context of a call while the call waits on the hold;
// without it that part of S-CTX-1 is reported "not exercised", never passed.
type Blocker interface {
	// Block holds back the next call the namespace's stores make on task id of era until
	// the hold is released, and returns once the hold is in place. With reads false the
	// writes of the task must wait (legacy Update, modern Swap: a row lock held by
	// another transaction); with reads true its reads (Get) must wait as well. A backend
	// that cannot hold back what is asked answers an error wrapping
	// reference.ErrUnsupported, and that part of S-CTX-1 is not exercised.
	//
	// The battery makes exactly one call on the store between Block and Release.
	Block(ctx context.Context, era Era, id string, reads bool) (Hold, error)
}

// Hold is a block in place.
type Hold struct {
	// How says what holds the call back, for the report: "SELECT ... FOR UPDATE on
	// another connection", "CLIENT PAUSE WRITE".
	How string
	// Release lets the held calls through and returns once the backend serves again
	// (a hold that ends by itself, like a timed pause, waits for its end).
	Release func(ctx context.Context) error
}
