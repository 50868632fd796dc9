package servermutants

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/server"
)

// transportMutants are the defects of the transport: what a stdio server reads, a server that dies.
var transportMutants = []mutant.Mutant[Build]{
	{
		Name:   "stdio-drops-malformed",
		Breaks: []string{"V-BAD-1"},
		Defect: "a stdio server that drops a line that is not JSON without a word (no -32700) " +
			"and goes on serving the next line: its silence is its answer",
		Build: Build{
			Input:     dropMalformed,
			StdioOnly: true,
		},
	},
	{
		Name: "stdio-late-parse-error",
		Defect: "a stdio server that reads a line that is not JSON 100 ms after the line that " +
			"follows it (JSON-RPC lets answers come in any order): the -32700 comes after the " +
			"probe's ping is answered, and V-BAD-1 still passes",
		Build: Build{
			Honest:    true,
			Input:     holdMalformed,
			StdioOnly: true,
		},
	},
	{
		Name:   "dies-on-cancel",
		Breaks: []string{"V-DENY-1"},
		Defect: "the server dies on its first tasks/cancel, before answering it, as one whose " +
			"cancel path throws an unhandled rejection would; the first tasks/cancel the " +
			"probe sends is V-DENY-1's, another principal's cancel of an id never issued",
		Build: Build{
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
	},
}

// dropMalformed passes on the lines of in that are JSON (or blank) and drops the others.
func dropMalformed(in io.Reader) io.Reader {
	return relines(in, func(line []byte, write func([]byte) error) error {
		if malformed(line) {
			return nil
		}
		return write(line)
	})
}

// lateBy is how long after the line that follows it stdio-late-parse-error reads a line
// that is not JSON: long enough for the answer to the next line to be written first.
const lateBy = 100 * time.Millisecond

// holdMalformed passes on a line that is not JSON lateBy after the line that follows it.
func holdMalformed(in io.Reader) io.Reader {
	var held [][]byte
	return relines(in, func(line []byte, write func([]byte) error) error {
		if malformed(line) {
			held = append(held, line)
			return nil
		}
		if err := write(line); err != nil || len(held) == 0 {
			return err
		}
		time.Sleep(lateBy)
		for _, h := range held {
			if err := write(h); err != nil {
				return err
			}
		}
		held = nil
		return nil
	})
}

func malformed(line []byte) bool { return len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) }

// relines reads in line by line and passes on what step writes of each line.
func relines(in io.Reader, step func(line []byte, write func([]byte) error) error) io.Reader {
	pr, pw := io.Pipe()
	write := func(line []byte) error {
		_, err := pw.Write(append(line, '\n'))
		return err
	}
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			if err := step(bytes.Clone(sc.Bytes()), write); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}
