package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// TestInputRounds: a tool that asks the same key twice gets each question sent again on
// the same tasks/result stream and takes each round's own answer; an answer to the first
// round's request on another stream, arriving during the second round, is ignored.
func TestInputRounds(t *testing.T) {
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	s, err := New(Config{Legacy: st.Legacy()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	id := reference.GenerateID()
	if _, err := s.legacy.Create(ctx, id, nil, "alice"); err != nil {
		t.Fatal(err)
	}
	ask := map[string]inputRequest{"q": {Method: "elicitation/create", Params: elicitParams{Mode: "form", Message: "?"}}}
	answers := make(chan map[string]any, 2)
	go func() {
		w := legacyWork{s, id}
		for range 2 {
			a, err := w.input(ctx, ask)
			if err != nil {
				t.Errorf("input: %v", err)
				close(answers)
				return
			}
			answers <- a
		}
	}()
	ss := &session{elicit: true}
	// stream is one tasks/result stream: the ids of the requests sent on it.
	stream := func(ids *[]string) *inputSender {
		r := &Request{owner: "alice", session: ss, stream: func(v any) error {
			*ids = append(*ids, v.(rpcRequest[elicitParams]).ID)
			return nil
		}}
		return &inputSender{s: s, r: r, sent: map[string]bool{}}
	}
	var sentIDs, otherIDs []string
	is, other := stream(&sentIDs), stream(&otherIDs)
	defer is.close()
	defer other.close()
	// sendRound waits for round n to ask, then sends its requests on the streams.
	sendRound := func(n int64, streams ...*inputSender) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			task, err := s.legacy.Get(ctx, id, reference.System())
			round, _ := intOf(task[keyInputRound])
			if err == nil && task.Status() == reference.StatusInputRequired && round == n {
				for _, st := range streams {
					if err := st.send(task); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d never asked: %v, %v", n, task, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	reply := func(rid string, n int) {
		s.answerInput(ctx, "alice", message{ID: json.RawMessage(`"` + rid + `"`), Result: json.RawMessage(`{"n":` + string(rune('0'+n)) + `}`)})
	}
	sendRound(1, is, other)
	if len(sentIDs) != 1 || len(otherIDs) != 1 {
		t.Fatalf("round 1: %d and %d requests sent on the two streams, want 1 each", len(sentIDs), len(otherIDs))
	}
	reply(sentIDs[0], 1)
	first := <-answers
	sendRound(2, is)
	if len(sentIDs) != 2 {
		t.Fatalf("round 2 asks the same key again: %d requests sent in all on the stream, want 2", len(sentIDs))
	}
	reply(otherIDs[0], 7) // round 1's request on the other stream, answered late: ignored
	time.Sleep(100 * time.Millisecond)
	reply(sentIDs[1], 2)
	second := <-answers
	if n := first["q"].(map[string]any)["n"]; n != json.Number("1") && n != 1.0 {
		t.Errorf("round 1's answer: %v", first)
	}
	if n := second["q"].(map[string]any)["n"]; n != json.Number("2") && n != 2.0 {
		t.Errorf("round 2's answer: %v, want the answer to its own request (n 2), not the late one to round 1", second)
	}
}
