package hook

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/internal/jsonlite/jsontest"
)

// The types without their JSON methods: what encoding/json makes of them
// by reflection.
type (
	eventFields    Event
	decisionFields Decision
	sessionFields  SessionFile
)

// The hand-written JSON of the event, the decision line and the session
// file is encoding/json's: every field (jsontest.Fill sets them all, so
// that a field added to a type and not to its codec fails here) encodes
// to the same bytes and decodes to the same value.
func TestJSONAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		var ev Event
		jsontest.Fill(&ev, rng)
		data, err := json.Marshal(ev)
		require.NoError(t, err)
		var want, got Event
		require.NoError(t, json.Unmarshal(data, (*eventFields)(&want)))
		require.NoError(t, got.UnmarshalJSON(data))
		assert.Equal(t, want, got)

		var d Decision
		jsontest.Fill(&d, rng)
		wantLine, err := json.Marshal(decisionFields(d))
		require.NoError(t, err)
		line, err := json.Marshal(d)
		require.NoError(t, err)
		assert.Equal(t, string(wantLine), string(line))

		var f SessionFile
		jsontest.Fill(&f, rng)
		wantData, err := json.Marshal(sessionFields(f))
		require.NoError(t, err)
		data, err = json.Marshal(f)
		require.NoError(t, err)
		assert.Equal(t, string(wantData), string(data))
		var wantBack, back SessionFile
		require.NoError(t, json.Unmarshal(data, (*sessionFields)(&wantBack)))
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, wantBack, back)
	}
	// The cases a filled value does not reach: omitted members, nil and
	// empty lists, no last decision.
	for _, f := range []SessionFile{{}, {Last: &LastDecision{}}} {
		want, err := json.Marshal(sessionFields(f))
		require.NoError(t, err)
		data, err := json.Marshal(f)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(data))
	}
}

// sessionDocuments are session files as written, by this version and by
// hand, and damaged.
var sessionDocuments = []string{
	`{"id":"bench","recent":null,"updated":"2026-12-02T01:57:37.210223246Z","project":["go"],"project_dir":"/work/main","project_at":"2026-12-02T01:57:36.349861309Z","last":{"id":"e0982b5c1e33c7aa","query":"React 页面加载慢","query_hash":"171c13a45a8c0649","skill":"performance-expert","confidence":0.769,"time":"2026-12-02T01:57:37.210223246Z","cost":40,"terms":[{"h":571538271842179746,"w":0.44222566},{"h":3721046533479070594,"w":0.31791976}]}}`,
	`{"ID":"s","Recent":["a","b"],"LAST":null,"unknown":{"x":[1]}}`,
	`{"recent":[],"last":{"terms":[],"answered":true,"cost":3}}`,
	`{"last":{"terms":[null,{"h":1}]}}`,
	`{"recent":"not a list"}`, `{"last":{"cost":1.5}}`, `{"last":{"terms":[{"h":-1}]}}`, `{"updated":"yesterday"}`,
	`{"last":{"terms":[{"w":1e39}]}}`, `[1]`, `null`, `{"id":"x"`, `{"id":"x"} {}`,
}

// Session files and events decode as encoding/json decodes them into the
// struct, or fail where it fails.
func FuzzSessionJSON(f *testing.F) {
	for _, doc := range sessionDocuments {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want sessionFields
		wantErr := json.Unmarshal(data, &want)
		var got SessionFile
		err := got.UnmarshalJSON(data)
		if wantErr != nil {
			require.Error(t, err, "encoding/json: %v", wantErr)
			return
		}
		require.NoError(t, err)
		require.Equal(t, SessionFile(want), got)
	})
}

var eventDocuments = []string{
	`{"session_id":"bench","hook_event_name":"UserPromptSubmit","cwd":".","prompt":"React 页面加载慢，首屏要 4 秒"}`,
	`{"hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"x"},"tool_response":null,"Tool_Use_ID":"t1"}`,
	`{"prompt":"a\u00e9\ud83d\ude80\\\"","tool_input":[1, 2 ,3],"extra":{"deep":[{"a":null}]}}`,
	`{"prompt":1}`, `{"tool_input":}`, `"x"`, ``, `{"session_id":"a","session_id":"b"}`,
}

func FuzzEventJSON(f *testing.F) {
	for _, doc := range eventDocuments {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want eventFields
		wantErr := json.Unmarshal(data, &want)
		var got Event
		err := got.UnmarshalJSON(data)
		if wantErr != nil {
			require.Error(t, err, "encoding/json: %v", wantErr)
			return
		}
		require.NoError(t, err)
		require.Equal(t, Event(want), got)
	})
}
