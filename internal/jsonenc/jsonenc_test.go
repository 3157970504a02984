package jsonenc_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/skillroute/skillroute/internal/jsonenc"
	"github.com/skillroute/skillroute/internal/jsonenc/jsontest"
)

func marshal(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestStringAsMarshal: every string the hook writes (a prompt, a skill
// name, a path) is quoted byte for byte as json.Marshal quotes it, odd
// ones included, so that files written before read the same.
func TestStringAsMarshal(t *testing.T) {
	strs := append([]string{}, jsontest.Strings...)
	for b := range 256 {
		strs = append(strs, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for r := rune(0x80); r < 0x3000; r += 7 {
		strs = append(strs, string(r))
	}
	for _, s := range strs {
		if got, want := string(jsonenc.AppendString(nil, s)), marshal(t, s); got != want {
			t.Errorf("%q: got %s, json.Marshal %s", s, got, want)
		}
	}
}

// FuzzString compares the quoting with json.Marshal's on any input.
func FuzzString(f *testing.F) {
	for _, s := range jsontest.Strings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(jsonenc.AppendString(nil, s)), marshal(t, s); got != want {
			t.Errorf("%q: got %s, json.Marshal %s", s, got, want)
		}
	})
}

// TestNumbersAsMarshal: floats (the exponent form's bounds, float32's
// shortest form), integers and times come out as json.Marshal writes
// them.
func TestNumbersAsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	floats := append([]float64{}, jsontest.Floats...)
	for range 5000 {
		floats = append(floats, math.Float64frombits(rng.Uint64()), rng.NormFloat64()*math.Pow(10, float64(rng.IntN(60)-30)))
	}
	for _, f := range floats {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		f32 := float32(f)
		if math.IsInf(float64(f32), 0) {
			f32 = float32(math.Float64frombits(math.Float64bits(f) >> 40))
		}
		var e jsonenc.Buf
		e.Float64(f)
		e.Raw(",")
		e.Float32(f32)
		e.Raw(",")
		e.Int(int64(f))
		e.Raw(",")
		e.Uint(math.Float64bits(f))
		got, err := e.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		want := marshal(t, []any{f, f32, int64(f), math.Float64bits(f)})
		if "["+string(got)+"]" != want {
			t.Errorf("%v: got [%s], json.Marshal %s", f, got, want)
		}
	}
	for _, tm := range []time.Time{{}, time.Unix(1, 5).UTC(), time.Date(2026, 12, 2, 20, 39, 10, 210201315, time.FixedZone("", -3*3600-1800))} {
		var e jsonenc.Buf
		e.Time(tm)
		if got, _ := e.Bytes(); string(got) != marshal(t, tm) {
			t.Errorf("%v: got %s, json.Marshal %s", tm, got, marshal(t, tm))
		}
	}
}

// TestRefusesWhatMarshalRefuses: a NaN or a time past year 9999 fails
// the record, as json.Marshal fails it, rather than writing a file no
// reader can parse.
func TestRefusesWhatMarshalRefuses(t *testing.T) {
	for _, add := range []func(*jsonenc.Buf){
		func(e *jsonenc.Buf) { e.Float64(math.NaN()) },
		func(e *jsonenc.Buf) { e.Float32(float32(math.Inf(-1))) },
		func(e *jsonenc.Buf) { e.Time(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)) },
	} {
		var e jsonenc.Buf
		e.Raw("[")
		add(&e)
		e.Raw("]")
		if data, err := e.Bytes(); err == nil {
			t.Errorf("encoded %s, want an error", data)
		}
	}
}
