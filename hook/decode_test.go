package hook

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/internal/jsonenc/jsontest"
)

// oddEvents are inputs the event decoder must leave to encoding/json, or
// decode as it does: keys in another case, escaped, repeated; nulls,
// numbers and lists where strings go; invalid JSON of every kind.
var oddEvents = []string{
	`{"Session_ID":"x","prompt":"p"}`, `{"session_id":null}`, `{"session_id":"a","session_id":"b"}`,
	`{"sess\u0069on_id":"a"}`, `{"session_id":"a\u0062\ud800\n"}`, `{"prompt":"bad ` + "\xff" + `"}`, `{"cwd":1}`,
	`{"tool_input":{"a":[1,2,{"b":null}]},"other":1e400,"x":[[[[]]]]}`, `[1]`, `null`, ` {"prompt":"x"} `,
	`{"prompt":"x"}x`, `{"prompt":"x",}`, `{"prompt":"x"`, `{"prompt":01}`, `{"p":-}`, `{"p":1.}`, `{"p":.5}`,
	`{"p":"\x"}`, `{"p":"\u12"}`, "{\"p\":\"a\tb\"}", `{"hook_event_name":"UserPromptSubmit","ſession_id":"s"}`,
	`{"tool_response":null,"tool_input":"s"}`, `{"p":tru}`, `{"p":nul}`, `{}`, ``, `{"a":{"b":{"c":`,
	`{"prompt":"React 页面加载慢", "session_id" : "s1" , "cwd":"/tmp"}`, `{"x":"\u2028","y":[1,-0.0e+5,3E2]}`,
}

// checkEvent holds decodeEvent to json.Unmarshal on one input.
func checkEvent(t *testing.T, data []byte) bool {
	t.Helper()
	return jsontest.DecodesAsUnmarshal(t, data, decodeEvent)
}

// TestEventDecodedAsUnmarshal: events as Claude Code writes them (every
// field, odd strings) take the decoder without reflection, and come out
// as json.Unmarshal decodes them; odd inputs are decoded the same or
// left to it.
func TestEventDecodedAsUnmarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 2000 {
		var ev Event
		jsontest.Fill(&ev, rng, 1+i%6)
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if !checkEvent(t, data) {
			t.Fatalf("%s: left to encoding/json", data)
		}
	}
	for _, s := range oddEvents {
		checkEvent(t, []byte(s))
	}
}

// FuzzEventAsUnmarshal holds the event decoder to json.Unmarshal on any
// input.
func FuzzEventAsUnmarshal(f *testing.F) {
	for _, s := range oddEvents {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkEvent(t, data) })
}

// checkSession holds SessionFile.DecodeJSON to json.Unmarshal on one
// input, both decoding into a new session as decodeSession makes it.
func checkSession(t *testing.T, data []byte) bool {
	t.Helper()
	fast := &SessionFile{Session: sctx.Session{ID: "given"}}
	slow := &SessionFile{Session: sctx.Session{ID: "given"}}
	ok := fast.DecodeJSON(data)
	err := json.Unmarshal(data, slow)
	if !ok {
		if !reflect.DeepEqual(fast, &SessionFile{Session: sctx.Session{ID: "given"}}) {
			t.Errorf("%q: a decoder that gave up changed the session", data)
		}
		return false
	}
	if err != nil {
		t.Errorf("%q: decoded what json.Unmarshal refuses (%v)", data, err)
	}
	// Times are compared as written: equal times from two parses hold
	// two zones of the same offset, which DeepEqual tells apart.
	a, _ := json.Marshal(fast)
	b, _ := json.Marshal(slow)
	if string(a) != string(b) {
		t.Errorf("%q: decoded %s, json.Unmarshal %s", data, a, b)
	}
	return true
}

var oddSessions = []string{
	`{"id":"s","recent":null,"updated":"2026-12-02T20:39:10.2Z","project_at":"0001-01-01T00:00:00Z"}`,
	`{"id":"s","recent":[],"project":["go"],"last":null}`, `{"recent":["a","b"],"last":{"terms":null,"words":[]}}`,
	`{"last":{"terms":[{"h":18446744073709551615,"w":0.42144012}],"words":[1,2]}}`, `{"last":{"terms":[{"h":-1}]}}`,
	`{"last":{"terms":[{"h":1.5}]}}`, `{"last":{"terms":[{"w":1e39}]}}`, `{"last":{"cost":1.0}}`, `{"last":{"cost":1e2}}`,
	`{"last":{"answered":null}}`, `{"last":{"time":"2026-13-02T20:39:10Z"}}`, `{"last":{"time":null}}`,
	`{"updated":"2026-12-02T20:39:10+08:00"}`, `{"last":{"id":"a"},"last":{"skill":"b"}}`, `{"Last":{}}`,
	`{"last":{"terms":[null]}}`, `{"version":1,"id":"legacy"}`, `{"id":"s","recent":["\u00e9\"\\"]}`,
	`{"id":"s","recent":["a",]}`, `{"id":"s","recent":[,"a"]}`, `{"id":"s","recent":,"a"]}`,
}

// TestSessionDecodedAsUnmarshal: session files as the hook writes them
// take the decoder without reflection and come out as json.Unmarshal
// decodes them; odd ones are decoded the same or left to it.
func TestSessionDecodedAsUnmarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 2000 {
		var f SessionFile
		jsontest.Fill(&f, rng, 1+i%6)
		data, err := marshalSession(&f)
		if err != nil {
			t.Fatal(err)
		}
		if !checkSession(t, data) {
			t.Fatalf("%s: left to encoding/json", data)
		}
	}
	for _, s := range oddSessions {
		checkSession(t, []byte(s))
	}
}

// FuzzSessionAsUnmarshal holds the session decoder to json.Unmarshal on
// any input.
func FuzzSessionAsUnmarshal(f *testing.F) {
	for _, s := range oddSessions {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSession(t, data) })
}
