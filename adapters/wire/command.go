package wire

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits the --exec command line into argv the way a POSIX shell splits
// words, without running a shell: blanks separate words; 'single quotes' keep
// everything literally; "double quotes" keep everything but \" \\ \$ \` and
// backslash-newline, which are unescaped; outside quotes a backslash keeps the next
// character literally. There is no expansion of any kind ($VAR, ~, globs) and no
// operators (|, ;, &&, >): for those, run a shell explicitly, as in
// `sh -c 'cd store && exec ./run'`.
func SplitCommand(s string) ([]string, error) {
	var (
		args    []string
		cur     strings.Builder
		inWord  bool
		quote   byte // 0, '\'' or '"'
		escaped bool
	)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case escaped:
			escaped = false
			if quote == '"' && !strings.ContainsRune("\"\\$`\n", rune(ch)) {
				cur.WriteByte('\\') // inside double quotes only these are escapable
			}
			if ch != '\n' { // backslash-newline is a line continuation
				cur.WriteByte(ch)
			}
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case quote == '"':
			switch ch {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteByte(ch)
			}
		case ch == '\\':
			escaped, inWord = true, true
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	switch {
	case escaped && quote == 0:
		return nil, fmt.Errorf("command %q ends with a lone backslash", s)
	case quote != 0 || escaped:
		return nil, fmt.Errorf("command %q has an unterminated %c quote", s, quote)
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}
