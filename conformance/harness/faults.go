package harness

import "context"

// FaultInjector is the optional side of a Harness whose backend runs in containers the
// harness started: the fault checks (storecheck run --faults) find it by interface
// assertion and take the backend away while the store's clients write.
//
// Stores opened before a fault are kept across it: after Unpause or Restart the backend
// answers at the addresses those stores were given, so a store that reconnects by itself
// serves again without a new client (the rule F-RECOVER-1 checks exactly that).
type FaultInjector interface {
	// Pause freezes every process of the backend (docker pause): connections stay open
	// and nothing answers until Unpause.
	Pause(ctx context.Context) error
	Unpause(ctx context.Context) error
	// Kill sends SIGKILL to the backend: whatever it had not made durable is gone.
	// The backend stays down until Restart.
	Kill(ctx context.Context) error
	// Restart starts the killed backend again on its own data and returns once it
	// accepts connections at the same addresses.
	Restart(ctx context.Context) error
	// Durability declares what the backend, as configured, keeps across a crash.
	Durability() Durability
}

// Failover is the optional side of a FaultInjector whose backend replicates: a cluster
// that promotes a replica when a primary dies.
type Failover interface {
	// KillPrimary kills (SIGKILL) one primary and returns once a replica has taken
	// over its share of the data (the cluster serves every key again), naming the
	// node it killed.
	KillPrimary(ctx context.Context) (string, error)
	// RestoreKilled starts the killed node again (it rejoins as a replica).
	RestoreKilled(ctx context.Context) error
}

// Durability is a harness's declaration of what its backend keeps across a crash.
type Durability struct {
	// MayLoseOnCrash is true when the backend, as configured, may lose acknowledged
	// writes on a crash (Redis with appendfsync everysec or without AOF, Postgres with
	// synchronous_commit off). Lost writes are then reported as declared, not failed.
	MayLoseOnCrash bool `json:"may_lose_on_crash"`
	// MayLoseOnFailover is MayLoseOnCrash for a primary's death in a replicated backend
	// (Redis Cluster replicates asynchronously).
	MayLoseOnFailover bool `json:"may_lose_on_failover"`
	// Setting names the configuration that decides it, for the report
	// ("appendonly yes, appendfsync always", "synchronous_commit=on").
	Setting string `json:"setting"`
}
