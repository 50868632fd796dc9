package servermutants

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/storecheck/storecheck/mcp/server"
)

// transportMutants are the defects of the transport: what a stdio server reads, a server that dies.
var transportMutants = []Mutant{
	{
		Name:   "stdio-drops-malformed",
		Breaks: []string{"V-BAD-1"},
		Doc: "a stdio server that drops a line that is not JSON without a word (no -32700) " +
			"and goes on serving the next line: its silence is its answer",
		Input:     dropMalformed,
		StdioOnly: true,
	},
	{
		Name:   "stdio-late-parse-error",
		Honest: true,
		Doc: "a stdio server that answers a line that is not JSON after the line that follows " +
			"it (JSON-RPC lets answers come in any order): the -32700 comes after the probe's " +
			"ping is answered, and V-BAD-1 still passes",
		Input:     holdMalformed,
		StdioOnly: true,
	},
	{
		Name:   "dies-on-cancel",
		Breaks: []string{"V-DENY-1"},
		Doc: "the server dies on its first tasks/cancel, before answering it, as one whose " +
			"cancel path throws an unhandled rejection would; the first tasks/cancel the " +
			"probe sends is V-DENY-1's, another principal's cancel of an id never issued",
		Wrap: func(next server.Handler, die func()) server.Handler {
			return func(ctx context.Context, r *server.Request) (any, *server.Error) {
				if r.Method() == "tasks/cancel" {
					die()
					return nil, nil
				}
				return next(ctx, r)
			}
		},
	},
}

// dropMalformed passes on the lines of in that are JSON (or blank) and drops the others.
func dropMalformed(in io.Reader) io.Reader {
	return relines(in, func(line []byte, held [][]byte) (out, hold [][]byte) {
		if malformed(line) {
			return nil, nil
		}
		return [][]byte{line}, nil
	})
}

// holdMalformed passes on a line that is not JSON after the line that follows it.
func holdMalformed(in io.Reader) io.Reader {
	return relines(in, func(line []byte, held [][]byte) (out, hold [][]byte) {
		if malformed(line) {
			return nil, append(held, line)
		}
		return append([][]byte{line}, held...), nil
	})
}

func malformed(line []byte) bool { return len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) }

// relines reads in line by line and passes on what step makes of each line, given the
// lines it held back before.
func relines(in io.Reader, step func(line []byte, held [][]byte) (out, hold [][]byte)) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		var held [][]byte
		for sc.Scan() {
			var out [][]byte
			out, held = step(bytes.Clone(sc.Bytes()), held)
			for _, l := range out {
				if _, err := pw.Write(append(l, '\n')); err != nil {
					return
				}
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}
