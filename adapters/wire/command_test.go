package wire_test

import (
	"slices"
	"testing"

	"github.com/storecheck/storecheck/adapters/wire"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"storecheck serve --adapter memstore", []string{"storecheck", "serve", "--adapter", "memstore"}},
		{"  python3\tstore.py  ", []string{"python3", "store.py"}},
		{`python3 "my dir/store.py"`, []string{"python3", "my dir/store.py"}},
		{`sh -c 'cd x && exec ./run "$1"'`, []string{"sh", "-c", `cd x && exec ./run "$1"`}},
		{`a\ b c`, []string{"a b", "c"}},
		{`"a\"b" "c\\d" "e\f" 'g\h'`, []string{`a"b`, `c\d`, `e\f`, `g\h`}},
		{`x"y"'z'`, []string{"xyz"}},
		{`"" ''`, []string{"", ""}},
		{"a \\\nb", []string{"a", "b"}},
		{`$HOME ~ *`, []string{"$HOME", "~", "*"}},
	} {
		got, err := wire.SplitCommand(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", `a "b`, `a 'b`, `a \`, `"a\`} {
		if got, err := wire.SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) = %q, want an error", bad, got)
		}
	}
}
