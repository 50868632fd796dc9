package probe

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/probe/client"
)

// codec is how one part of a cursor is written; forgeries keep it, so that a server
// that decodes its cursors before it checks them decodes the forgeries too.
type codec struct {
	name string
	dec  func(string) ([]byte, error)
	enc  func([]byte) string
}

var codecs = []codec{
	{"hex", hex.DecodeString, hex.EncodeToString},
	{"base64url", base64.RawURLEncoding.DecodeString, base64.RawURLEncoding.EncodeToString},
	{"padded base64url", base64.URLEncoding.DecodeString, base64.URLEncoding.EncodeToString},
	{"base64", base64.RawStdEncoding.DecodeString, base64.RawStdEncoding.EncodeToString},
	{"padded base64", base64.StdEncoding.DecodeString, base64.StdEncoding.EncodeToString},
}

// text is a part no codec reads back exactly: its characters are its bytes.
var text = codec{"text", func(s string) ([]byte, error) { return []byte(s), nil }, func(b []byte) string { return string(b) }}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// codecOf finds the encoding a cursor part is written in: the first that decodes it
// and writes it back as it was.
func codecOf(part string) codec {
	for _, c := range codecs {
		if b, err := c.dec(part); err == nil && len(b) > 0 && c.enc(b) == part {
			return c
		}
	}
	return text
}

// randomLike is random bytes written as part is: as many, in its encoding.
func randomLike(part string) string {
	c := codecOf(part)
	b, _ := c.dec(part)
	_, _ = rand.Read(b)
	if c.name == text.name {
		for i := range b {
			b[i] = alnum[int(b[i])%len(alnum)]
		}
	}
	return c.enc(b)
}

// altered is part with one byte, in its middle, changed: a low bit flipped, which keeps
// a digit a digit and a letter a letter, so a position written in the cursor still
// parses.
func altered(part string) string {
	c := codecOf(part)
	b, _ := c.dec(part)
	if len(b) == 0 {
		return part + "A"
	}
	i := len(b) / 2
	b[i] ^= 1
	if c.name == text.name && !strings.ContainsRune(alnum, rune(b[i])) {
		b[i] = 'A' + (b[i]^1)%26
	}
	return c.enc(b)
}

// forgery is a cursor the server never issued to the caller, and what it is.
type forgery struct{ cursor, what string }

// forgeries derive from a cursor the server issued: random bytes in its shape ('.'
// separated parts each in its own encoding), and it with one byte of each part changed.
func forgeries(issued string) []forgery {
	parts := strings.Split(issued, ".")
	random := make([]string, len(parts))
	var shape []string
	for i, p := range parts {
		random[i] = randomLike(p)
		shape = append(shape, codecOf(p).name)
	}
	out := []forgery{{strings.Join(random, "."), fmt.Sprintf("random bytes in the shape of the issued cursor %q (%s)", clip(issued, 80), strings.Join(shape, "."))}}
	for i, p := range parts {
		alt := append([]string(nil), parts...)
		alt[i] = altered(p)
		out = append(out, forgery{strings.Join(alt, "."), fmt.Sprintf("the issued cursor %q with one byte of part %d of %d (%s) changed", clip(issued, 80), i+1, len(parts), codecOf(p).name)})
	}
	return out
}

const wantInvalidCursor = `-32602 (2025-11-25: "Invalid or nonexistent cursor in tasks/list: -32602 (Invalid params)")`

// checkForged (V-LIST-1): every forgery derived from the first principal's cursor is
// -32602 to it; its cursor is -32602 to another principal (another session, where the
// server tells no principals apart), and to another session of its own principal it is
// -32602 or the next page of its own tasks.
func (r *eraRun) checkForged(ctx context.Context, issued string, own map[string]bool) error {
	for _, f := range forgeries(issued) {
		res, err := r.owner.call(ctx, "tasks/list", map[string]any{"cursor": f.cursor}, true)
		if err != nil {
			return err
		}
		if res.Error == nil || res.Error.Code != jsonrpc.CodeInvalidParams {
			return faultf(fmt.Sprintf("tasks/list by %s with the cursor %q: %s, never issued", r.owner.name, clip(f.cursor, 120), f.what), wantInvalidCursor, answer(res))
		}
	}
	if r.stdio {
		r.note("the cursor was not tried by another caller: over stdio each principal is a server process of its own")
		return nil
	}
	if len(r.others) > 0 {
		res, err := r.others[0].call(ctx, "tasks/list", map[string]any{"cursor": issued}, true)
		if err != nil {
			return err
		}
		if res.Error == nil || res.Error.Code != jsonrpc.CodeInvalidParams {
			return faultf(fmt.Sprintf("%s tasks/list with the cursor %q issued to %s (another session)", who(r.others[0].name), clip(issued, 120), r.owner.name),
				wantInvalidCursor+": a position in a listing this caller never had", answer(res))
		}
	}
	if !r.authenticates || r.owner.conn.SessionID() == "" {
		return nil
	}
	// The same principal in a session of its own: the same requestor, where tasks are
	// bound to principals; either way never the first page or a task not its own.
	fresh, err := dial(ctx, r.cfg, r.cfg.Principals[0], r.era)
	if err != nil {
		return fmt.Errorf("%w: a new session as %s: %w", errSetup, r.owner.name, err)
	}
	res, err := fresh.call(ctx, "tasks/list", map[string]any{"cursor": issued}, true)
	if err != nil {
		return err
	}
	in := fmt.Sprintf("tasks/list in a new session of %s with the cursor %q its other session was issued", r.owner.name, clip(issued, 120))
	if res.Error != nil {
		if res.Error.Code != jsonrpc.CodeInvalidParams {
			return faultf(in, wantInvalidCursor+", or the next page of its tasks", answer(res))
		}
		return nil
	}
	first, err := r.owner.call(ctx, "tasks/list", nil, true)
	if err != nil {
		return err
	}
	page, _ := listPage(res)
	firstPage, _ := listPage(first)
	for i, t := range page.Tasks {
		if !own[t.TaskID] || i == 0 && len(firstPage.Tasks) > 0 && firstPage.Tasks[0].TaskID == t.TaskID {
			return faultf(in, wantInvalidCursor+", or the next page of its own tasks", answer(res))
		}
	}
	return nil
}

// listed is one tasks/list page.
type listed struct {
	Tasks      []struct{ TaskID string } `json:"tasks"`
	NextCursor *string                   `json:"nextCursor"`
}

func listPage(res *client.Response) (listed, bool) {
	var out listed
	return out, res.Error == nil && json.Unmarshal(res.Result, &out) == nil
}

// maxBoundaryTasks bounds the tasks the page-boundary walks make: a page size past it is
// not walked to its edge.
const maxBoundaryTasks = 50

// checkBoundaries (V-LIST-1) walks the first principal's listing when its task count is
// one fewer than a multiple of the page size the server revealed (the first page's
// length, when that page had a nextCursor), exactly that multiple, and one more:
// nextCursor must come on every page that more tasks follow ("Receivers MUST include a
// nextCursor in the response if more tasks are available"), and a nextCursor on the
// last page must lead to an empty page that ends the listing (7.1: allowed, not asked
// for), never to tasks again. known are the tasks a walk listed before.
func (r *eraRun) checkBoundaries(ctx context.Context, known map[string]bool, size int) error {
	if size <= 0 {
		r.note("no page boundary walked: the first page had no nextCursor, so the server revealed no page size")
		return nil
	}
	n := len(known)
	multiple := (n/size + 1) * size // the least multiple above n: its count one fewer is reachable
	if multiple-1-n+2 > maxBoundaryTasks {
		r.note(fmt.Sprintf("no page boundary walked: reaching a multiple of the page size %d takes %d tasks more (at most %d are made)", size, multiple-1-n+2, maxBoundaryTasks))
		return nil
	}
	expect := map[string]bool{}
	for id := range known {
		expect[id] = true
	}
	more := multiple - 1 - n
	for _, count := range []int{multiple - 1, multiple, multiple + 1} {
		for range more {
			id, err := r.owner.createEnded(ctx, r.tools.Quick, r.tools.QuickArgs)
			if err != nil {
				return fmt.Errorf("%w: %w", errSetup, err)
			}
			expect[id] = true
		}
		more = 1
		if err := r.walk(ctx, expect, fmt.Sprintf("%d tasks, the page size %d revealed", count, size)); err != nil {
			return err
		}
	}
	return nil
}

// walk pages the first principal's tasks/list from the first page to the last, and
// judges it: no task twice, every task of expect listed (that tasks/get still finds),
// and an issued cursor never refused.
func (r *eraRun) walk(ctx context.Context, expect map[string]bool, what string) error {
	seen := map[string]int{}
	var lens []int
	params := map[string]any{}
	in := func() string {
		return fmt.Sprintf("tasks/list by %s from the first page to the last, %s (pages of %v)", r.owner.name, what, lens)
	}
	for page := 1; ; page++ {
		if page > 1000 {
			return faultf(in(), "a last page (one without nextCursor)", "a nextCursor on each of 1000 pages")
		}
		res, err := r.owner.call(ctx, "tasks/list", params, true)
		if err != nil {
			return err
		}
		out, ok := listPage(res)
		if !ok {
			return faultf(fmt.Sprintf("%s: page %d", in(), page), "a page of tasks (the server issued the cursor)", answer(res))
		}
		lens = append(lens, len(out.Tasks))
		for i, t := range out.Tasks {
			if seen[t.TaskID] > 0 {
				return faultf(in(), `each task once ("no task skipped or repeated": the pages are one listing)`,
					fmt.Sprintf("task %s on page %d (its task %d) again, after page %d's nextCursor", t.TaskID, page, i+1, page-1))
			}
			seen[t.TaskID] = page
		}
		if out.NextCursor == nil || *out.NextCursor == "" {
			if page > 1 && len(out.Tasks) == 0 {
				r.note(fmt.Sprintf("%s: the last page with tasks carried a nextCursor that led to an empty page (allowed: nextCursor is asked for when more tasks follow, not forbidden when none do; one request more)", what))
			}
			break
		}
		params = map[string]any{"cursor": *out.NextCursor}
	}
	for id := range expect {
		if seen[id] > 0 {
			continue
		}
		_, rpcErr, err := r.owner.task(ctx, id)
		if err != nil {
			return err
		}
		if rpcErr == nil {
			return faultf(in(), `every task tasks/get finds listed ("Receivers MUST include a nextCursor in the response if more tasks are available"; "If a task is retrievable via tasks/get for a requestor, it MUST be retrievable via tasks/list")`,
				fmt.Sprintf("task %s, which tasks/get finds, on no page", id))
		}
	}
	return nil
}
