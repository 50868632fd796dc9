package wire_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

// serveEnv makes this test binary a child serving memstore over the wire protocol, for
// the layer=wire benchmark. It is checked in init, before TestMain and the fake child.
const serveEnv = "STORECHECK_WIRE_SERVE_MEMSTORE"

// echoEnv makes this test binary a child that echoes each line of its stdin, read with
// blocking read(2) (exec's pipe as it is), for the layer=echo benchmark.
const echoEnv = "STORECHECK_WIRE_ECHO"

func init() {
	if mode := os.Getenv(echoEnv); mode != "" {
		var in io.Reader = os.Stdin
		if mode == "spin" {
			if in = spinReader(os.Stdin); in == nil {
				os.Exit(3)
			}
		}
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				os.Exit(0)
			}
			if _, err := os.Stdout.Write(line); err != nil {
				os.Exit(1)
			}
		}
	}
	if os.Getenv(serveEnv) == "" {
		return
	}
	// STORECHECK_WIRE_SERVE_CPUPROFILE=file profiles the serving child, for the server's
	// half of a round trip (go tool pprof file).
	stop := func() {}
	if path := os.Getenv("STORECHECK_WIRE_SERVE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			stop = func() { pprof.StopCPUProfile(); f.Close() }
		}
	}
	code := 0
	if err := wire.Serve(context.Background(), os.Stdin, os.Stdout, memharness.Harness(), wire.ServeOptions{Log: os.Stderr}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	stop()
	os.Exit(code)
}

// BenchmarkLayers splits one modern Get over the wire into its layers, so that a slow
// round trip can be put where it belongs:
//
//	layer=store   memstore's Get in process (what the child's store does)
//	layer=encode  the client's request line and the server's answer line
//	layer=decode  the server taking the request apart and the client the answer
//	layer=pipe    the transport alone: the answer line through `cat` (a child process
//	              echoing its stdin) and back, the floor no JSON-over-stdio store beats
//	layer=echo    the same through this binary as the echoing child, both ends reading
//	              with blocking read(2) as Client and Serve do on Linux: the floor for
//	              two Go processes
//	layer=echo-spin  the same with both ends reading as the wire's readers do on Linux
//	              while calls come one at a time: spinning up to $STORECHECK_WIRE_SPIN
//	              (50 µs) before they block
//	layer=wire    the whole round trip: a Client and this binary serving memstore
//
// wire − (store + encode + decode + pipe) is what the client and server add on top:
// goroutine hand-offs and the scheduling of two processes. On a loaded machine pipe and
// wire both grow with the load; compare them to each other, in the same run.
func BenchmarkLayers(b *testing.B) {
	ctx := context.Background()
	st := memstore.New().Modern()
	now := time.Now().UnixMilli()
	task, err := st.Create(ctx, modern.Task{TaskID: "layer-task-1", Status: reference.StatusWorking, CreatedAt: now, LastUpdatedAt: now,
		StatusMessage: "queued", TTL: new(int64(86_400_000)), PollInterval: new(int64(1000))})
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"task_id": task.TaskID, "caller": wire.CallerArg(reference.System())}
	rawArgs, _ := json.Marshal(args)
	reqLine := wire.AppendRequest(nil, 7, "modern.get", rawArgs)
	ansLine := wire.AppendAnswer(nil, 7, task, nil)

	b.Run("layer=store", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.Get(ctx, task.TaskID, reference.System()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("layer=encode", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			// What the client does: the args appended (json.Marshal's bytes), then framed.
			var argBuf [256]byte
			raw, err := wire.AppendArgs(argBuf[:0], map[string]any{"task_id": task.TaskID, "caller": wire.CallerArg(reference.System())})
			if err != nil {
				b.Fatal(err)
			}
			buf = wire.AppendRequest(buf[:0], 7, "modern.get", raw)
			buf = wire.AppendAnswer(buf[:0], 7, task, nil)
		}
	})
	b.Run("layer=decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, _, bad, err := wire.DecodeRequest(reqLine[:len(reqLine)-1]); bad != "" || err != nil {
				b.Fatal(bad, err)
			}
			a, err := wire.DecodeAnswer(ansLine[:len(ansLine)-1])
			if err != nil {
				b.Fatal(err)
			}
			if _, err := wire.DecodeModernTask(a.OK); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("layer=pipe", func(b *testing.B) {
		cat, err := exec.LookPath("cat")
		if err != nil {
			b.Skip("no cat to echo lines")
		}
		cmd := exec.Command(cat)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Skip(err)
		}
		defer func() { in.Close(); _ = cmd.Wait() }()
		// One round trip of the longer line: the bytes hardly matter at this size.
		echoRoundTrips(b, in, out, ansLine)
	})
	b.Run("layer=echo", func(b *testing.B) { echoLayer(b, "1", ansLine) })
	b.Run("layer=echo-spin", func(b *testing.B) {
		if spinReader == nil {
			b.Skip("the wire's readers spin on Linux only")
		}
		echoLayer(b, "spin", ansLine)
	})
	b.Run("layer=wire", func(b *testing.B) {
		c, err := wire.Start(ctx, []string{os.Args[0]}, wire.Options{Env: append(os.Environ(), serveEnv+"=1"), Timeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		m := c.Modern()
		if _, err := m.Create(ctx, task); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.Get(ctx, task.TaskID, reference.System()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// echoLayer times line through this binary as the echoing child (mode "1": blocking
// read(2); "spin": spinReader's) and back, read the same way. Our own pipes, not exec's
// StdoutPipe (which the runtime's poller reads).
func echoLayer(b *testing.B, mode string, line []byte) {
	inR, in, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	out, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	out.Fd() // Fd puts the read end in blocking mode: read(2), not the poller
	var rd io.Reader = out
	if mode == "spin" {
		if rd = spinReader(out); rd == nil {
			b.Fatal("spinReader refused the benchmark's pipe")
		}
		if c, ok := rd.(io.Closer); ok {
			defer c.Close()
		}
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), echoEnv+"="+mode)
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	inR.Close()
	outW.Close()
	defer func() { in.Close(); _ = cmd.Wait(); out.Close() }()
	echoRoundTrips(b, in, rd, line)
}

// echoRoundTrips times line written to in and read back from out, once per op: the
// layers whose child only echoes.
func echoRoundTrips(b *testing.B, in io.Writer, out io.Reader, line []byte) {
	br := bufio.NewReader(out)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}
