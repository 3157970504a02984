//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// mockLifetime bounds the mock server: should a test hang, the server
// closes on its own long after any run of the suite (about a minute).
const mockLifetime = 10 * time.Minute

// request is one logged call to the mock.
type request struct {
	Path string
	Body map[string]any
}

// toolCall is a tool call the mock answers with.
type toolCall struct {
	name  string
	input map[string]any
}

// mockAPI speaks enough of the Anthropic Messages API for `claude -p`:
// POST /v1/messages, streamed as server-sent events or answered whole,
// and /v1/messages/count_tokens. It answers every request "OK.", or, when
// a skill is set, the first request of a turn that offers the Skill tool
// with a call of it; once the tool's result is in, it answers "Done.".
// Every request is logged, in order, for the test to read.
type mockAPI struct {
	srv *httptest.Server
	log *os.File

	mu       sync.Mutex
	requests []request
	skill    string // the skill the next turn's answer calls, "" for text
}

func startMock(t *testing.T) *mockAPI {
	t.Helper()
	m := &mockAPI{}
	var err error
	m.log, err = os.Create(t.TempDir() + "/requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve)) // 127.0.0.1, a free port
	stop := time.AfterFunc(mockLifetime, m.srv.Close)
	t.Cleanup(func() {
		stop.Stop()
		m.srv.Close()
		m.log.Close()
	})
	return m
}

// URL is the base URL to give Claude Code as ANTHROPIC_BASE_URL.
func (m *mockAPI) URL() string { return m.srv.URL }

// answerWithSkill makes the next turns' answer call the Skill tool with
// the skill ("" for plain text).
func (m *mockAPI) answerWithSkill(skill string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.skill = skill
}

// since returns the requests logged from index from on, and the count.
func (m *mockAPI) since(from int) ([]request, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]request(nil), m.requests[from:]...), len(m.requests)
}

func (m *mockAPI) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

func (m *mockAPI) serve(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	m.mu.Lock()
	m.requests = append(m.requests, request{Path: r.URL.Path, Body: body})
	fmt.Fprintf(m.log, "%s %s %s\n", r.Method, r.URL, data)
	skill := m.skill
	m.mu.Unlock()

	switch {
	case r.Method != http.MethodPost:
		http.NotFound(w, r)
	case r.URL.Path == "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens": 1000}`)
	case r.URL.Path == "/v1/messages":
		var call *toolCall
		if skill != "" && offersTool(body, "Skill") && !lastTurnHasToolResult(body) {
			call = &toolCall{name: "Skill", input: map[string]any{"skill": skill}}
		}
		text := "OK."
		if lastTurnHasToolResult(body) {
			text = "Done."
		}
		model, _ := body["model"].(string)
		if stream, _ := body["stream"].(bool); stream {
			m.stream(w, model, text, call)
		} else {
			m.whole(w, model, text, call)
		}
	default:
		http.NotFound(w, r)
	}
}

// stream answers as the API streams: message_start, one content block,
// message_delta with the stop reason, message_stop.
func (m *mockAPI) stream(w http.ResponseWriter, model, text string, call *toolCall) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(event string, v map[string]any) {
		v["type"] = event
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
	}
	send("message_start", map[string]any{"message": map[string]any{
		"id": "msg_e2e", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 1000, "output_tokens": 1}}})
	stop := "end_turn"
	if call != nil {
		input, _ := json.Marshal(call.input)
		send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": "toolu_e2e", "name": call.name, "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		stop = "tool_use"
	} else {
		send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	}
	send("content_block_stop", map[string]any{"index": 0})
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{})
}

// whole answers a request that did not ask for a stream.
func (m *mockAPI) whole(w http.ResponseWriter, model, text string, call *toolCall) {
	content := []any{map[string]any{"type": "text", "text": text}}
	stop := "end_turn"
	if call != nil {
		content = []any{map[string]any{"type": "tool_use", "id": "toolu_e2e", "name": call.name, "input": call.input}}
		stop = "tool_use"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "msg_e2e", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1000, "output_tokens": 5}})
}

func offersTool(body map[string]any, name string) bool {
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		if tm, ok := t.(map[string]any); ok && tm["name"] == name {
			return true
		}
	}
	return false
}

// lastTurnHasToolResult reports whether the last message returns a tool's
// result: the model's tool call of this turn has been answered.
func lastTurnHasToolResult(body map[string]any) bool {
	msgs, _ := body["messages"].([]any)
	if len(msgs) == 0 {
		return false
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	blocks, _ := last["content"].([]any)
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok && bm["type"] == "tool_result" {
			return true
		}
	}
	return false
}

// texts gathers every string of a request body (system prompt, messages,
// tool results): what the model reads.
func texts(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				if k != "tools" { // tool schemas are not the conversation
					walk(e)
				}
			}
		}
	}
	walk(v)
	return b.String()
}
