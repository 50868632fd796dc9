package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
)

// router is the load balancer of a routed deployment (ShapeRouted), run by the probe on
// loopback: a request naming a task (Mcp-Name, 2026-07-28) goes to the instance that
// answered the task's creation, one naming a session (Mcp-Session-Id, 2025-11-25) to the
// instance that made the session, and one naming neither to the next instance in turn.
// It learns both from the answers that pass through it, as a balancer with sticky
// routing would.
type router struct {
	url      string
	backends []*url.URL
	srv      *http.Server

	mu       sync.Mutex
	next     int
	tasks    map[string]int // task id -> instance
	sessions map[string]int // session id -> instance
	down     map[int]bool   // instances its health check found dead
}

// instanceKey carries the chosen instance from the director to the answer's reader.
type instanceKey struct{}

// startRouter listens on a loopback port and routes to the instances at urls.
func startRouter(urls []string) (*router, error) {
	r := &router{tasks: map[string]int{}, sessions: map[string]int{}, down: map[int]bool{}}
	for _, u := range urls {
		b, err := url.Parse(u)
		if err != nil {
			return nil, err
		}
		r.backends = append(r.backends, b)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	proxy := &httputil.ReverseProxy{
		Rewrite:        r.rewrite,
		ModifyResponse: r.learn,
		FlushInterval:  -1, // SSE streams pass as they come
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "storecheck router: the instance did not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	r.srv = &http.Server{Handler: proxy}
	r.url = "http://" + ln.Addr().String() + "/mcp"
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *router) close() { _ = r.srv.Close() }

// pick is the instance a request goes to, by its routing headers.
func (r *router) pick(h http.Header) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.tasks[h.Get("Mcp-Name")]; ok && !r.down[i] {
		return i
	}
	if i, ok := r.sessions[h.Get("Mcp-Session-Id")]; ok && !r.down[i] {
		return i
	}
	// Nothing to route by, or its instance is dead: the next live one, as a balancer
	// fails over.
	for range len(r.backends) {
		i := r.next % len(r.backends)
		r.next++
		if !r.down[i] {
			return i
		}
	}
	return 0
}

// setDown marks instance i dead or alive again, as a balancer's health check would.
func (r *router) setDown(i int, down bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down[i] = down
}

// holder is the instance that answered task id's creation, or -1.
func (r *router) holder(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.tasks[id]; ok {
		return i
	}
	return -1
}

func (r *router) rewrite(pr *httputil.ProxyRequest) {
	i := r.pick(pr.In.Header)
	b := r.backends[i]
	pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path = b.Scheme, b.Host, b.Path
	pr.Out.Host = b.Host
	pr.Out = pr.Out.WithContext(context.WithValue(pr.Out.Context(), instanceKey{}, i))
}

// instanceOf is the instance rewrite sent req to.
func instanceOf(req *http.Request) int {
	i, _ := req.Context().Value(instanceKey{}).(int)
	return i
}

// learn records the session an answer opens and the tasks it creates, by the instance
// that gave it.
func (r *router) learn(res *http.Response) error {
	i := instanceOf(res.Request)
	if s := res.Header.Get("Mcp-Session-Id"); s != "" {
		r.mu.Lock()
		if _, ok := r.sessions[s]; !ok {
			r.sessions[s] = i
		}
		r.mu.Unlock()
	}
	if res.Request.Method != http.MethodPost {
		return nil
	}
	res.Body = &taskSniffer{r: bufio.NewReader(res.Body), c: res.Body, found: func(id string) {
		r.mu.Lock()
		r.tasks[id] = i
		r.mu.Unlock()
	}}
	return nil
}

// taskSniffer passes an answer's body on unchanged, reading each JSON line or SSE data
// line for a created task's id (2025-11-25 result.task.taskId, 2026-07-28 a result
// of resultType "task").
type taskSniffer struct {
	r     *bufio.Reader
	c     io.Closer
	found func(string)
	buf   bytes.Buffer
}

func (s *taskSniffer) Read(p []byte) (int, error) {
	if s.buf.Len() == 0 {
		line, err := s.r.ReadBytes('\n')
		s.sniff(line)
		s.buf.Write(line)
		if len(line) == 0 {
			return 0, err
		}
	}
	return s.buf.Read(p)
}

func (s *taskSniffer) Close() error { return s.c.Close() }

func (s *taskSniffer) sniff(line []byte) {
	text := strings.TrimSpace(strings.TrimPrefix(string(line), "data:"))
	if !strings.Contains(text, "taskId") {
		return
	}
	var m struct {
		Result struct {
			ResultType string `json:"resultType"`
			TaskID     string `json:"taskId"`
			Task       struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(text), &m) != nil {
		return
	}
	switch {
	case m.Result.Task.TaskID != "":
		s.found(m.Result.Task.TaskID)
	case m.Result.ResultType == "task" && m.Result.TaskID != "":
		s.found(m.Result.TaskID)
	}
}
