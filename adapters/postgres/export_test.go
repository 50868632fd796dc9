package postgres

// IdlePools is how many pools of closed namespaces wait for the next ones.
func IdlePools(h *Harness) int {
	h.pools.mu.Lock()
	defer h.pools.mu.Unlock()
	return len(h.pools.idle)
}
