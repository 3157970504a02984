package jsondec_test

import (
	"encoding/json"
	"testing"

	"github.com/skillroute/skillroute/internal/jsondec"
)

var values = []string{
	`{"a":[1,-0.5e+3,true,false,null,"s\u00e9\n"],"b":{}}`, `[]`, `"x"`, ` 12 `, `{"a":1,}`, `[1,]`, `[,1]`, `01`,
	`{"a" 1}`, `{"a":}`, `"\x"`, "\"a\x01\"", `"\ud800"`, `tru`, `{"a":[{"b":[[]]}]}`, `1.`, `-`, `1e`, `[1 2]`,
	`{"a":1}}`, `{"a":1 "b":2}`, `"` + "\xff" + `"`, ``, ` `, `nul`, `{"é":"ü"}`,
}

// check holds Skip to json.Valid: what it reads as one whole value is
// JSON, and the plain values the hook's files hold are read.
func check(t *testing.T, data []byte) bool {
	d := jsondec.New(data)
	d.Skip()
	ok := d.Done()
	if ok && !json.Valid(data) {
		t.Errorf("%q: read as JSON, which it is not", data)
	}
	return ok
}

func TestSkipAsValid(t *testing.T) {
	for _, s := range values {
		if got := check(t, []byte(s)); got != json.Valid([]byte(s)) {
			t.Errorf("%q: read %v, json.Valid %v", s, got, !got)
		}
	}
}

// FuzzSkipAsValid holds Skip to json.Valid on any input.
func FuzzSkipAsValid(f *testing.F) {
	for _, s := range values {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { check(t, data) })
}
