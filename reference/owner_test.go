package reference

import "testing"

// truthTable is the owner truth table of docs/spec.md section 0, one row per line.
var truthTable = []struct {
	owner        string
	caller       Caller
	def, require bool
}{
	{"", Anonymous(), true, false},
	{"", Principal("X"), true, false},
	{"Y", Anonymous(), false, false},
	{"Y", Principal("Y"), true, true},
	{"Y", Principal("X"), false, false},
}

func TestCanSeeTruthTable(t *testing.T) {
	for _, row := range truthTable {
		for _, req := range []bool{false, true} {
			want := row.def
			if req {
				want = row.require
			}
			if got := CanSee(row.owner, row.caller, req); got != want {
				t.Errorf("S-OWN-1: CanSee(owner %q, %s, require_owner=%v): want %v, got %v", row.owner, row.caller, req, want, got)
			}
		}
	}
	for _, owner := range []string{"", "Y"} {
		for _, req := range []bool{false, true} {
			if !CanSee(owner, System(), req) {
				t.Errorf("S-OWN-1: the system caller must see every task: CanSee(%q, system, %v) = false", owner, req)
			}
		}
	}
}

// TestCanSeeExact checks S-OWN-3: no folding, trimming, normalisation or wildcards.
func TestCanSeeExact(t *testing.T) {
	pairs := [][2]string{
		{"alice", "Alice"}, {"alice", "alice "}, {"alice", " alice"}, {"alice", "alic\u0435"},
		{"1", "1.0"}, {"caf\u00e9", "cafe\u0301"}, {"a", "%"}, {"ab", "a_"}, {"abc", "*"},
		{"a", "?"}, {"a", "$1"}, {"a:b", "a:"}, {"{a}", "{}"}, {"anything", ".*"},
	}
	for _, p := range pairs {
		for _, req := range []bool{false, true} {
			if CanSee(p[0], Principal(p[1]), req) || CanSee(p[1], Principal(p[0]), req) {
				t.Errorf("S-OWN-3: owners %q and %q must be distinct (require_owner=%v)", p[0], p[1], req)
			}
			if !CanSee(p[0], Principal(p[0]), req) {
				t.Errorf("S-OWN-3: principal %q must see its own task", p[0])
			}
		}
	}
}

func TestCallerKinds(t *testing.T) {
	var zero Caller
	if !zero.IsSystem() {
		t.Errorf("the zero Caller must be the system caller, got %s", zero)
	}
	if c := Principal(""); !c.IsAnonymous() || c.IsSystem() {
		t.Errorf("Principal(\"\") must be anonymous, got %s", c)
	}
	if id, ok := Principal("bob").PrincipalID(); !ok || id != "bob" {
		t.Errorf("Principal(\"bob\").PrincipalID(): want (bob, true), got (%q, %v)", id, ok)
	}
	for _, c := range []Caller{System(), Anonymous()} {
		if id, ok := c.PrincipalID(); ok || id != "" {
			t.Errorf("%s.PrincipalID(): want (\"\", false), got (%q, %v)", c, id, ok)
		}
	}
	if got, want := Principal("a\"b\n").String(), `principal "a\"b\x0a"`; got != want {
		t.Errorf("Caller.String(): want %s, got %s", want, got)
	}
}
