package wire_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// fakeEnv makes this test binary a fake child (see fakeChild) instead of running tests.
const fakeEnv = "STORECHECK_WIRE_FAKE_CHILD"

// migrateMillis is how long the modes migrate-at-hello and migrate-at-reset take over
// their schema migration.
const migrateMillis = 600

// holdMillis is how long the mode holds-one holds its request back.
const holdMillis = 900

const helloOK = `{"protocol":1,"name":"fake","eras":["legacy","modern"],"legacy":{"cancel":true},"clock":true}`

// fakeChild is a tiny store process that misbehaves in one way, chosen by mode. It
// answers hello honestly (unless the mode is about hello) and every request with a
// plausible answer, except the requests its mode is about.
func fakeChild(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		_ = out.Flush() // a parent that stopped reading ends the fake child anyway
	}
	var sendMu sync.Mutex // for mode "holds-one", which answers from two goroutines
	sendLocked := func(format string, args ...any) {
		sendMu.Lock()
		defer sendMu.Unlock()
		send(format, args...)
	}
	var held []int64 // for mode "reverse"
	for in.Scan() {
		var req struct {
			ID   int64          `json:"id"`
			Op   string         `json:"op"`
			Args map[string]any `json:"args"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "fake: bad request:", err)
			os.Exit(2)
		}
		if req.Op == "hello" {
			if mode == "migrate-at-hello" {
				time.Sleep(migrateMillis * time.Millisecond) // a schema migration before the first answer
			}
			switch mode {
			case "protocol4":
				send(`{"id":%d,"ok":{"protocol":4,"eras":["legacy"]}}`, req.ID)
			case "v1-strict":
				// A version 1 shim that refuses any other offer, as docs/wire.md version 1 let it.
				if v, _ := req.Args["protocol"].(float64); v != 1 {
					send(`{"id":%d,"error":{"code":"unsupported","message":"this store speaks protocol 1"}}`, req.ID)
				} else {
					send(`{"id":%d,"ok":%s}`, req.ID, helloOK)
				}
			case "v2-layers-bad":
				send(`{"id":%d,"ok":{"protocol":2,"eras":["legacy"],"layers":["store","cache"]}}`, req.ID)
			case "noeras":
				send(`{"id":%d,"ok":{"protocol":1,"eras":[]}}`, req.ID)
			case "hello-garbage":
				send(`hello there`)
			case "sdk-undeclared":
				send(`{"id":%d,"ok":{"protocol":3,"eras":[],"profiles":["sdk"]}}`, req.ID)
			case "sdk-bad-policy":
				send(`{"id":%d,"ok":{"protocol":3,"eras":[],"profiles":["sdk"],"sdk":{"sessionless":"open","ttl_from":"creation"}}}`, req.ID)
			case "sdk-none":
				send(`{"id":%d,"ok":{"protocol":3,"eras":[],"profiles":[]}}`, req.ID)
			case "sdk-no-ttl", "sdk-float-ttl", "sdk-bad-page", "sdk-wait-null":
				send(`{"id":%d,"ok":{"protocol":3,"eras":[],"profiles":["sdk"],"sdk":{"sessionless":"unrestricted","ttl_from":"creation","wait":true}}}`, req.ID)
			case "echo-owner":
				send(`{"id":%d,"ok":{"protocol":2,"eras":["legacy","modern"],"layers":["store","facade"]}}`, req.ID)
			case "legacy-only":
				send(`{"id":%d,"ok":{"protocol":1,"eras":["legacy"],"legacy":{"cleanup":true,"conditional_update":true}}}`, req.ID)
			default:
				send(`{"id":%d,"ok":%s}`, req.ID, helloOK)
			}
			if mode == "deaf" {
				time.Sleep(time.Hour) // answered hello, reads nothing more
			}
			continue
		}
		if req.Op == "reset" && mode == "migrate-at-reset" {
			time.Sleep(migrateMillis * time.Millisecond)
		}
		if req.Op == "reset" || req.Op == "clock" {
			send(`{"id":%d,"ok":null}`, req.ID)
			continue
		}
		id, _ := req.Args["task_id"].(string)
		task := fmt.Sprintf(`{"task_id":%q,"status":"working","created_at":1}`, id)
		switch mode {
		case "honest", "v1-strict", "migrate-at-hello", "migrate-at-reset":
			if req.Op == "legacy.list" {
				send(`{"id":%d,"ok":[%s]}`, req.ID, task)
			} else {
				send(`{"id":%d,"ok":%s}`, req.ID, task)
			}
		case "echo-owner":
			// Answers a facade create with the owner argument exactly as it came.
			if opts, ok := req.Args["options"].(map[string]any); ok {
				req.Args = opts
			}
			owner, _ := json.Marshal(req.Args["owner"])
			switch req.Op {
			case "facade.configure":
				send(`{"id":%d,"ok":null}`, req.ID)
			case "legacy.tasks.create":
				send(`{"id":%d,"ok":{"task_id":"t","status":"working","created_at":1,"seen_owner":%s}}`, req.ID, owner)
			default:
				send(`{"id":%d,"error":{"code":"invalid","message":%q}}`, req.ID, "seen owner "+string(owner))
			}
		case "echo-clock":
			// Answers with the last clock it was told, to show clock forwarding.
			send(`{"id":%d,"ok":{"seen":%q}}`, req.ID, os.Getenv("X"))
		case "malformed":
			send(`{"id":%d,"ok":`, req.ID)
		case "unknown-id":
			send(`{"id":%d,"ok":%s}`, req.ID+1000, task)
		case "both":
			send(`{"id":%d,"ok":%s,"error":{"code":"not_found","message":"x"}}`, req.ID, task)
		case "neither":
			send(`{"id":%d}`, req.ID)
		case "unknown-code":
			send(`{"id":%d,"error":{"code":"gone_fishing","message":"out"}}`, req.ID)
		case "not-found":
			send(`{"id":%d,"error":{"code":"not_found","message":"task not found: %s"}}`, req.ID, req.Args["task_id"])
		case "bad-task":
			send(`{"id":%d,"ok":[1,2]}`, req.ID)
		case "bad-list":
			send(`{"id":%d,"ok":[%s, 7]}`, req.ID, task)
		case "sdk-no-ttl":
			send(`{"id":%d,"ok":{"taskId":"t","status":"working","createdAt":"2026-01-01T00:00:00.000Z","lastUpdatedAt":"2026-01-01T00:00:00.000Z"}}`, req.ID)
		case "sdk-float-ttl":
			send(`{"id":%d,"ok":{"taskId":"t","status":"working","createdAt":"2026-01-01T00:00:00.000Z","lastUpdatedAt":"2026-01-01T00:00:00.000Z","ttl":1.5}}`, req.ID)
		case "sdk-bad-page":
			send(`{"id":%d,"ok":{"tasks":[{"taskId":7}]}}`, req.ID)
		case "sdk-wait-null":
			send(`{"id":%d,"ok":null}`, req.ID)
		case "bad-modern":
			send(`{"id":%d,"ok":{"task_id":"x","version":1}}`, req.ID)
		case "die":
			for i := range 300 {
				fmt.Fprintf(os.Stderr, "fake log line %d\n", i)
			}
			fmt.Fprintln(os.Stderr, "fake: panic: the store fell over")
			os.Exit(3)
		case "hang":
			// Reads on, answers nothing.
		case "slow":
			time.Sleep(300 * time.Millisecond)
			send(`{"id":%d,"ok":%s}`, req.ID, task)
		case "holds-one":
			// Answers the request for task "held" after holdMillis, from a goroutine,
			// and every other request at once meanwhile: busy, not hung.
			if id != "held" {
				sendLocked(`{"id":%d,"ok":%s}`, req.ID, task)
				break
			}
			go func(id int64, task string) {
				time.Sleep(holdMillis * time.Millisecond)
				sendLocked(`{"id":%d,"ok":%s}`, id, task)
			}(req.ID, task)
		case "reverse":
			// Holds two requests, then answers them newest first.
			held = append(held, req.ID)
			if len(held) == 2 {
				for i := len(held) - 1; i >= 0; i-- {
					send(`{"id":%d,"ok":{"task_id":"answer-to-%d"}}`, held[i], held[i])
				}
				held = held[:0]
			}
		case "exit-on-close":
			send(`{"id":%d,"ok":%s}`, req.ID, task)
		default:
			fmt.Fprintln(os.Stderr, "fake: unknown mode", mode)
			os.Exit(2)
		}
	}
	if mode == "exit-on-close" {
		fmt.Fprintln(os.Stderr, "fake: exiting 4 on purpose")
		os.Exit(4)
	}
	if strings.HasPrefix(mode, "linger") {
		time.Sleep(time.Hour)
	}
}
