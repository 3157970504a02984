package store

import (
	"testing"

	"github.com/skillroute/skillroute/internal/jsonenc/jsontest"
)

var oddFrames = []string{
	`{"skillroute":"session","version":1,"data":{"id":"s","recent":null}}`, `{"version":2,"skill":{"b":1}}`,
	`{"skillroute":"weights","version":2,"da`, `{"skillroute":"weights","version":2}`, `{"skillroute":null,"version":1,"data":{}}`,
	`{"skillroute":"s","version":1.5,"data":{}}`, `{"skillroute":"s","version":1,"data":null}`, `{"Version":3,"data":1}`,
	`{"skillroute":"s","skillroute":"t","version":1,"data":[]}`, `[1,2]`, `null`, `{"skillroute":"s\u0022","version":-0,"data":"x"}`,
	` {"skillroute":"session","version":1,"data":{}} `, `{"skillroute":"session","version":1,"data":{}}}`,
}

// sameAsUnmarshal holds frame.decode to json.Unmarshal on one input.
func sameAsUnmarshal(t *testing.T, data []byte) bool {
	t.Helper()
	return jsontest.DecodesAsUnmarshal(t, data, func(data []byte, f *frame) bool { return f.decode(data) })
}

// TestFrameAsUnmarshal: a Codec file's header as written takes the
// decoder without reflection; odd ones (legacy files without a header,
// damaged ones) are decoded as json.Unmarshal decodes them or left to it.
func TestFrameAsUnmarshal(t *testing.T) {
	for _, c := range []Codec{{Kind: "session", Version: 1}, {Kind: "weights", Version: 2, Indent: true}} {
		data, err := c.Marshal(map[string]any{"a": []int{1}, "b": "x<y"})
		if err != nil {
			t.Fatal(err)
		}
		if !sameAsUnmarshal(t, data) {
			t.Errorf("%s: left to encoding/json", data)
		}
	}
	for _, s := range oddFrames {
		sameAsUnmarshal(t, []byte(s))
	}
}

// FuzzFrameAsUnmarshal holds the header decoder to json.Unmarshal on any
// input.
func FuzzFrameAsUnmarshal(f *testing.F) {
	for _, s := range oddFrames {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsUnmarshal(t, data) })
}
