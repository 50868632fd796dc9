package servermutants

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
)

// listMutants are the defects of 2025-11-25 tasks/list paging.
var listMutants = []mutant.Mutant[Build]{
	{Name: "cursor-unchecked", Breaks: []string{"V-LIST-1"},
		Defect: "a tasks/list cursor that does not verify lists from the start",
		Build:  Build{Wrap: cursorUnchecked}},
	{Name: "list-offset-global", Breaks: []string{"V-LIST-1"},
		Defect: "tasks/list pages every principal's tasks newest first by an offset, filtering each page for the caller: a task created by anyone between two pages repeats one",
		Build:  Build{Setup: listOffsetGlobal}},
}

func cursorUnchecked(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		res, e := next(ctx, r)
		if legacyList(r) && e != nil && e.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(e.Message, "Invalid cursor") {
			delete(r.Params(), "cursor")
			return next(ctx, r)
		}
		return res, e
	}
}

// offsetCursor is a position list-offset-global issued, for the principal it issued it
// to.
type offsetCursor struct {
	principal string
	offset    int
}

// listOffsetGlobal answers tasks/list from every task the system lists, newest first, a
// page cut at an offset and then filtered for the caller (the tasks/get it is answered);
// the offset is in the cursor. It pages right while nobody creates a task; a task
// created by anyone between two pages shifts the list under the offset, and the caller
// is shown some of its tasks twice.
func listOffsetGlobal(cfg server.Config, _ func()) server.Config {
	size := cfg.PageSize
	if size <= 0 {
		size = 10 // the server's own default
	}
	var mu sync.Mutex
	issued := map[string]offsetCursor{}
	around(&cfg, func(next server.Handler) server.Handler { return offsetPages(next, size, &mu, issued) })
	return cfg
}

func offsetPages(next server.Handler, size int, mu *sync.Mutex, issued map[string]offsetCursor) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if !legacyList(r) {
			return next(ctx, r)
		}
		off := 0
		if raw, ok := r.Params()["cursor"]; ok && raw != nil {
			c, _ := raw.(string)
			mu.Lock()
			pos, ok := issued[c]
			mu.Unlock()
			if !ok || pos.principal != r.Principal() {
				return nil, &server.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid cursor: not issued to this caller"}
			}
			off = pos.offset
		}
		rows, e := listAll(ctx, next, r)
		if e != nil {
			return nil, e
		}
		slices.SortFunc(rows, func(a, b map[string]any) int {
			ca, _ := millis(a["createdAt"])
			cb, _ := millis(b["createdAt"])
			ia, _ := a["taskId"].(string)
			ib, _ := b["taskId"].(string)
			return -cmp.Or(cmp.Compare(ca, cb), strings.Compare(ia, ib))
		})
		end := min(off+size, len(rows))
		page := []any{}
		for _, t := range rows[min(off, end):end] {
			q := server.NewRequest(r, "tasks/get", map[string]any{"taskId": t["taskId"]})
			if _, e := next(ctx, q); e == nil {
				page = append(page, t)
			}
		}
		out := map[string]any{"tasks": page}
		if end < len(rows) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			c := hex.EncodeToString(b[:])
			mu.Lock()
			issued[c] = offsetCursor{principal: r.Principal(), offset: end}
			mu.Unlock()
			out["nextCursor"] = c
		}
		return out, nil
	}
}

// listAll is every task the system lists, following the server's pages.
func listAll(ctx context.Context, next server.Handler, r *server.Request) ([]map[string]any, *server.Error) {
	var rows []map[string]any
	q := server.NewRequest(r, "tasks/list", map[string]any{})
	q.SetCaller(system)
	for {
		res, e := next(ctx, q)
		if e != nil {
			return nil, e
		}
		m, _ := res.(map[string]any)
		tasks, _ := m["tasks"].([]any)
		for _, t := range tasks {
			if t, ok := t.(map[string]any); ok {
				rows = append(rows, t)
			}
		}
		c, more := m["nextCursor"].(string)
		if !more {
			return rows, nil
		}
		q = server.NewRequest(q, "tasks/list", map[string]any{"cursor": c})
	}
}
