package jsonlite

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// texts are strings that exercise every rule of JSON quoting.
var texts = []string{
	"", "plain", `say "hi"`, `back\slash`, "tab\tnew\nline\rret", "\b\f\x00\x1f\x7f",
	"<b>&amp;</b>", "React 页面加载慢，首屏要 4 秒", "emoji 🚀", "line\u2028sep\u2029par",
	"bad \xff utf8 \xe4\xbd", "\xed\xa0\x80 surrogate bytes", "'single' / slash",
}

// AppendString quotes as json.Marshal quotes a string.
func TestAppendString(t *testing.T) {
	for _, s := range texts {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(AppendString(nil, s)), "%q", s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range texts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendString(nil, s)))
	})
}

var floats = []float64{0, 1, -1, 0.769, 1e-6, 9.99e-7, 1e20, 1e21, 123456789.125, -0.0000012, 5e-324, math.MaxFloat64, 0.44222566, 1.0 / 3}

// AppendFloat writes floats as json.Marshal writes float64 and float32.
func TestAppendFloat(t *testing.T) {
	for _, f := range floats {
		checkFloat(t, f)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := AppendFloat(nil, f, 64)
		assert.ErrorIs(t, err, ErrUnsupported)
		_, err = json.Marshal(f)
		assert.Error(t, err, "encoding/json refuses it too")
	}
}

func checkFloat(t *testing.T, f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return
	}
	want, err := json.Marshal(f)
	require.NoError(t, err)
	got, err := AppendFloat(nil, f, 64)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "%v", f)
	f32 := float32(f)
	if math.IsInf(float64(f32), 0) {
		return
	}
	want, err = json.Marshal(f32)
	require.NoError(t, err)
	got, err = AppendFloat(nil, float64(f32), 32)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "float32 %v", f32)
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range floats {
		f.Add(x)
	}
	f.Fuzz(checkFloat)
}

// An object built member by member is what json.Marshal writes for the
// struct it stands for, omitempty included.
func TestObject(t *testing.T) {
	type row struct {
		S    string    `json:"s"`
		SO   string    `json:"so,omitempty"`
		L    []string  `json:"l"`
		LO   []string  `json:"lo,omitempty"`
		F    float64   `json:"f"`
		FO   float64   `json:"fo,omitempty"`
		I    int       `json:"i"`
		IO   int       `json:"io,omitempty"`
		B    bool      `json:"b"`
		BO   bool      `json:"bo,omitempty"`
		T    time.Time `json:"t"`
		Next *row      `json:"next,omitempty"`
	}
	var encode func(b []byte, r row) ([]byte, error)
	encode = func(b []byte, r row) ([]byte, error) {
		o := Begin(b)
		o.String("s", r.S)
		o.StringOmit("so", r.SO)
		o.Strings("l", r.L)
		o.StringsOmit("lo", r.LO)
		o.Float("f", r.F)
		o.FloatOmit("fo", r.FO)
		o.Int("i", int64(r.I))
		o.IntOmit("io", int64(r.IO))
		o.Bool("b", r.B)
		o.BoolOmit("bo", r.BO)
		o.Time("t", r.T)
		if r.Next != nil {
			o.Key("next")
			o.SetBuffer(encode(o.Buffer(), *r.Next))
		}
		return o.End()
	}
	for _, r := range []row{
		{},
		{S: "a<b", SO: "x", L: []string{}, LO: []string{"y"}, F: 0.5, FO: 2, I: -3, B: true, BO: true,
			T: time.Date(2026, 12, 2, 1, 2, 3, 400, time.UTC), Next: &row{L: []string{"z", ""}}},
	} {
		want, err := json.Marshal(r)
		require.NoError(t, err)
		got, err := encode(nil, r)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	_, err := encode(nil, row{F: math.NaN()})
	assert.ErrorIs(t, err, ErrUnsupported)
}

// decodeAny reads any value as json.Unmarshal reads one into an any:
// objects as maps (the last of a repeated key wins), numbers as float64.
func decodeAny(d *Decoder) (any, error) {
	switch d.peek() {
	case '{':
		m := map[string]any{}
		err := d.Object(func(key []byte) error {
			v, err := decodeAny(d)
			m[string(key)] = v
			return err
		})
		return m, err
	case '[':
		l := []any{}
		err := d.Array(func() error {
			v, err := decodeAny(d)
			l = append(l, v)
			return err
		})
		return l, err
	case '"':
		var s string
		err := d.String(&s)
		return s, err
	case 't', 'f':
		var b bool
		err := d.Bool(&b)
		return b, err
	case 'n':
		_, err := d.Null()
		return nil, err
	}
	var f float64
	err := d.Float(&f, 64)
	return f, err
}

func checkDecode(t *testing.T, data []byte) {
	var want any
	wantErr := json.Unmarshal(data, &want)
	d := NewDecoder(data)
	got, err := decodeAny(d)
	if err == nil {
		err = d.End()
	}
	if wantErr != nil {
		require.Error(t, err, "encoding/json: %v", wantErr)
		return
	}
	require.NoError(t, err)
	require.Equal(t, want, got)
	raw, err := NewDecoder(data).Raw()
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(string(data)), string(raw))
}

var documents = []string{
	`{}`, `[]`, `null`, ` true `, `false`, `0`, `-0.5e+3`, `1E2`, `"x"`,
	`{"a":1,"b":[1,2,{"c":null}],"a":"again"}`,
	`{"s":"\u00e9\ud83d\ude80\ud800\u0041\udc00x\\\"\/\b\f\n\r\t"}`,
	`"\ud83d"`, `"\ud83d\u0041"`, "\"bad \xff utf8\"", `{"k":"React 页面加载慢"}`,
	// Not JSON:
	`{"a":1,}`, `[1,]`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `"\x"`, `"\u12"`, "\"ctl \x01\"",
	`tru`, `nul`, `{"a":1} x`, ``, `   `, `[1 2]`, `{"a":[}`, `"unterminated`, `"\ud800\uZZZZ"`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// The decoder reads what encoding/json reads, into the same values, and
// refuses what it refuses.
func TestDecode(t *testing.T) {
	for _, doc := range documents {
		t.Run("", func(t *testing.T) { checkDecode(t, []byte(doc)) })
	}
}

func FuzzDecode(f *testing.F) {
	for _, doc := range documents {
		f.Add([]byte(doc))
	}
	f.Fuzz(checkDecode)
}

// Typed reads: a value of another type is ErrType, a null leaves the
// value as it was, numbers parse as encoding/json parses them into each
// kind.
func TestDecodeTyped(t *testing.T) {
	var s string = "kept"
	require.NoError(t, NewDecoder([]byte(`null`)).String(&s))
	assert.Equal(t, "kept", s)
	assert.ErrorIs(t, NewDecoder([]byte(`12`)).String(&s), ErrType)

	var i int64
	assert.ErrorIs(t, NewDecoder([]byte(`1.5`)).Int(&i), ErrType)
	assert.ErrorIs(t, NewDecoder([]byte(`1e3`)).Int(&i), ErrType)
	assert.ErrorIs(t, NewDecoder([]byte(`"1"`)).Int(&i), ErrType)
	require.NoError(t, NewDecoder([]byte(`-42`)).Int(&i))
	assert.Equal(t, int64(-42), i)

	var u uint64
	assert.ErrorIs(t, NewDecoder([]byte(`-1`)).Uint(&u), ErrType)
	require.NoError(t, NewDecoder([]byte(`18446744073709551615`)).Uint(&u))
	assert.Equal(t, uint64(math.MaxUint64), u)

	var f float64
	assert.ErrorIs(t, NewDecoder([]byte(`1e400`)).Float(&f, 64), ErrType)
	assert.ErrorIs(t, NewDecoder([]byte(`1e39`)).Float(&f, 32), ErrType)

	var list []string
	require.NoError(t, NewDecoder([]byte(`[]`)).Strings(&list))
	assert.NotNil(t, list, "[] is an empty list, as encoding/json reads it")
	require.NoError(t, NewDecoder([]byte(`null`)).Strings(&list))
	assert.Nil(t, list)
	require.NoError(t, NewDecoder([]byte(`["a",null]`)).Strings(&list))
	assert.Equal(t, []string{"a", ""}, list)

	var tm time.Time
	require.NoError(t, NewDecoder([]byte(`"2026-12-02T01:02:03.0000004Z"`)).Time(&tm))
	assert.Equal(t, time.Date(2026, 12, 2, 1, 2, 3, 400, time.UTC), tm)
	assert.ErrorIs(t, NewDecoder([]byte(`"yesterday"`)).Time(&tm), ErrType)

	var b bool
	assert.ErrorIs(t, NewDecoder([]byte(`"true"`)).Bool(&b), ErrType)

	assert.True(t, Match([]byte("Session_ID"), "session_id"))
	assert.False(t, Match([]byte("session"), "session_id"))
}
