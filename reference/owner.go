package reference

// callerKind tells the three kinds of caller apart; the zero value is the system caller
// so that a zero Caller never narrows what the framework itself sees.
type callerKind uint8

const (
	kindSystem callerKind = iota
	kindAnonymous
	kindPrincipal
)

// Caller is who is asking: the system (a worker or the framework: unscoped), an anonymous
// client (no principal), or a principal with a stable id.
type Caller struct {
	kind callerKind
	id   string
}

// System is the unscoped caller: it sees every task.
func System() Caller { return Caller{kind: kindSystem} }

// Anonymous is a caller without a principal.
func Anonymous() Caller { return Caller{kind: kindAnonymous} }

// Principal is the caller with principal id. The empty string is never an owner, so
// Principal("") is Anonymous().
func Principal(id string) Caller {
	if id == "" {
		return Anonymous()
	}
	return Caller{kind: kindPrincipal, id: id}
}

// IsSystem reports whether c is the system caller.
func (c Caller) IsSystem() bool { return c.kind == kindSystem }

// IsAnonymous reports whether c has no principal.
func (c Caller) IsAnonymous() bool { return c.kind == kindAnonymous }

// PrincipalID returns the principal's id, and false for the system and anonymous callers.
func (c Caller) PrincipalID() (string, bool) { return c.id, c.kind == kindPrincipal }

func (c Caller) String() string {
	switch c.kind {
	case kindAnonymous:
		return "anonymous"
	case kindPrincipal:
		return "principal " + quote(c.id)
	}
	return "system"
}

// CanSee applies the owner truth table (S-OWN-1, S-OWN-3). owner is the task's owner, ""
// for none. Comparison is byte for byte: no folding, no normalisation, no wildcards.
//
//	task owner | caller          | default | requireOwner
//	none       | anonymous       | allow   | deny
//	none       | principal X     | allow   | deny
//	Y          | anonymous       | deny    | deny
//	Y          | principal Y     | allow   | allow
//	Y          | principal X ≠ Y | deny    | deny
//
// The system caller sees every task in both settings.
func CanSee(owner string, c Caller, requireOwner bool) bool {
	switch {
	case c.kind == kindSystem:
		return true
	case owner == "":
		return !requireOwner
	default:
		return c.kind == kindPrincipal && c.id == owner
	}
}

func quote(s string) string {
	const hex = "0123456789abcdef"
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"' || ch == '\\':
			b = append(b, '\\', ch)
		case ch < 0x20 || ch == 0x7f:
			b = append(b, '\\', 'x', hex[ch>>4], hex[ch&15])
		default:
			b = append(b, ch)
		}
	}
	return string(append(b, '"'))
}
