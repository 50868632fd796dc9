// Package cluster is what the instances of the reference MCP server (mcp/server) share
// beyond their store when several of them serve one store: signals that a task changed,
// so that each instance tells its own listeners, and leases on the work an instance runs,
// so that the work of an instance that died is ended by another. Backends implement it
// beside their stores (Postgres LISTEN/NOTIFY and a lease table, Redis pub/sub and a
// sorted set); Memory is the implementation for instances in one process.
package cluster

import (
	"context"
	"errors"
	"time"
)

// ErrClosed is the error of a call on a closed backend.
var ErrClosed = errors.New("cluster: closed")

// Signals carries messages from any instance to every instance, the sender included.
// Delivery is at most once and may lose messages (a slow subscriber, a reconnect): what a
// signal announces must also be readable from the store.
type Signals interface {
	// Publish sends msg to every subscription of every instance.
	Publish(ctx context.Context, msg []byte) error
	// Subscribe delivers what any instance publishes from its return until ctx ends,
	// when the channel is closed.
	Subscribe(ctx context.Context) (<-chan []byte, error)
}

// Leases records which work is held by a live instance: the holder renews its lease
// before it ends; a lease not renewed in time is claimed by one instance, which ends the
// work in its stead.
type Leases interface {
	// Hold leases key until until; holding it again moves its end.
	Hold(ctx context.Context, key string, until time.Time) error
	// Drop ends key's lease (nothing when it has none).
	Drop(ctx context.Context, key string) error
	// Expired claims the leases whose end is before now by moving their end to until:
	// each is returned to one caller only, across every instance, which drops it once
	// it has ended the work (a claimer that does not is claimed after in turn).
	Expired(ctx context.Context, now, until time.Time) ([]string, error)
}

// Backend is a store backend's Signals and Leases, with what closes them.
type Backend interface {
	Signals
	Leases
	Close() error
}
