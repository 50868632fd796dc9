package load

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
)

// Stub is an MCP endpoint that answers every request at once, in both eras, with tasks
// that are born completed: load against it measures the generator's own ceiling, so
// that a server's figure is known not to be the generator's. It keeps nothing and
// isolates nobody: run it Unjudged.
func Stub() http.Handler {
	var next atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TaskID string `json:"taskId"`
			} `json:"params"`
		}
		if err := json.NewDecoder(req.Body).Decode(&msg); err != nil || msg.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		modern := req.Header.Get("Mcp-Method") != ""
		var result any
		switch msg.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "stub")
			result = map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "stub", "version": "1"},
				"capabilities": map[string]any{"tasks": map[string]any{"list": map[string]any{}, "cancel": map[string]any{}}}}
		case "tools/call":
			t := map[string]any{"taskId": "t" + strconv.FormatInt(next.Add(1), 10), "status": "completed"}
			result = map[string]any{"task": t}
			if modern {
				t["resultType"] = "task"
				result = t
			}
		case "tasks/get", "tasks/cancel":
			result = map[string]any{"taskId": msg.Params.TaskID, "status": "completed"}
		case "tasks/list":
			result = map[string]any{"tasks": []any{}}
		default:
			result = map[string]any{"content": []any{}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	})
}
