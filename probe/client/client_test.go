package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"
	"time"

	"github.com/storecheck/storecheck/probe/client"
)

// TestSSEAnswerAmongOtherMessages: an answer inside an SSE stream is found by its id
// among a notification and a request of the server's, which the client answers.
func TestSSEAnswerAmongOtherMessages(t *testing.T) {
	answered := make(chan string, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Accept") != "application/json, text/event-stream" {
			t.Errorf("Accept %q", r.Header.Get("Accept"))
		}
		if string(body) != `{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"t"}}` {
			answered <- string(body) // the client's answer to the server's request
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, ": keep-alive\n\n")
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\"params\":{\"taskId\":\"t\"}}\n\n")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"elicitation/create\",\"params\":{}}\n\n")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"wrong\":true}}\n\n") // a string id is not the answer to 1
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\n")
		fmt.Fprint(w, "data: \"result\":{\"ok\":true}}\n\n") // data split over two lines
	}))
	defer hs.Close()
	c := client.DialHTTP(hs.URL, client.HTTPOptions{})
	res, err := c.Call(context.Background(), "tasks/result", map[string]any{"taskId": "t"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Result) != `{"ok":true}` || !res.Stream || len(res.Others) != 3 {
		t.Errorf("answer %s, stream %v, %d other messages", res.Result, res.Stream, len(res.Others))
	}
	select {
	case got := <-answered:
		if got != `{"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"the probe does not serve elicitation/create"}}` {
			t.Errorf("the client's answer to the server's request: %s", got)
		}
	case <-time.After(5 * time.Second):
		t.Error("the server's request was not answered")
	}
	if n := len(c.Inbox()); n != 3 {
		t.Errorf("inbox has %d messages, want 3", n)
	}
}

// TestHTTPErrorWithoutJSONRPC: an HTTP error page is ErrHTTP, with its status kept.
func TestHTTPErrorWithoutJSONRPC(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>bad</html>", http.StatusBadRequest)
	}))
	defer hs.Close()
	res, err := client.DialHTTP(hs.URL, client.HTTPOptions{}).Call(context.Background(), "ping", nil, nil)
	if !errors.Is(err, client.ErrHTTP) || res == nil || res.HTTPStatus != 400 {
		t.Errorf("got %v, %+v; want ErrHTTP with status 400", err, res)
	}
}

// TestStdio: answers matched by id on a child's stdout, notifications filed, and the
// child's end reported as ErrNoAnswer.
func TestStdio(t *testing.T) {
	script := `read line; echo '{"jsonrpc":"2.0","method":"notifications/x"}'; echo '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}'; read line; exit 0`
	c, err := client.DialStdio(exec.Command("sh", "-c", script))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Call(context.Background(), "ping", nil, nil)
	if err != nil || string(res.Result) != `{"ok":true}` {
		t.Fatalf("got %v %v", res, err)
	}
	if len(c.Inbox()) != 1 {
		t.Errorf("inbox: %v", c.Inbox())
	}
	if _, err := c.Call(context.Background(), "ping", nil, nil); !errors.Is(err, client.ErrNoAnswer) {
		t.Errorf("after the child ended: %v, want ErrNoAnswer", err)
	}
}
