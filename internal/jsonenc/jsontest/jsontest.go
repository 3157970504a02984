// Package jsontest fills values for the tests that compare a hand-written
// encoder (package jsonenc) with json.Marshal: every field of a struct is
// set, by reflection, so that a field added to the struct and not to its
// encoder fails the comparison. It also holds a hand-written decoder
// (package jsondec) to json.Unmarshal (DecodesAsUnmarshal).
package jsontest

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// DecodesAsUnmarshal holds a decoder that may give up to json.Unmarshal
// on one input: one that gave up leaves its value as it was (zero), one
// that decoded gives what json.Unmarshal gives, and only for input
// json.Unmarshal takes. It reports whether the decoder decoded.
func DecodesAsUnmarshal[T any](t testing.TB, data []byte, decode func([]byte, *T) bool) bool {
	t.Helper()
	var fast, slow, zero T
	ok := decode(data, &fast)
	err := json.Unmarshal(data, &slow)
	if !ok {
		if !reflect.DeepEqual(fast, zero) {
			t.Errorf("%q: a decoder that gave up changed the value", data)
		}
		return false
	}
	if err != nil {
		t.Errorf("%q: decoded what json.Unmarshal refuses (%v)", data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%q: decoded %+v, json.Unmarshal %+v", data, fast, slow)
	}
	return true
}

// Strings are the odd strings a filled string may be: quotes, escapes,
// control characters, HTML characters, invalid UTF-8, line separators,
// Chinese, and empty.
var Strings = []string{
	"", "performance-expert", `say "hi" \ there`, "tab\there\nnew\rline\b\f", "\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "bad \xff\xfe utf8 \xc3", "\u2028 and \u2029", "React 页面加载慢，首屏要 4 秒",
	"emoji 🚀 end", "plugin:name", "\xe2\x80", "'single' `back`",
}

// Floats are the numbers a filled float may be: zero, the bounds of
// json.Marshal's exponent form, negative and long ones.
var Floats = []float64{0, 1, -0.5, 0.8072, 1e-6, 9.99e-7, 1e-7, 1e21, 9.99e20, 1.5e300, -2.5e-10, 123456789.125, 0.1 + 0.2, math.SmallestNonzeroFloat64, 5e-324}

// Fill sets every field of the value v points to (recursively, through
// slices and pointers), each left at its zero value one time in zero so
// that omitempty is exercised too.
func Fill(v any, rng *rand.Rand, zero int) {
	fill(reflect.ValueOf(v).Elem(), rng, zero)
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// Raws are the values a filled json.RawMessage may be.
var Raws = []string{`null`, `{"skill":"a"}`, `[1,2.5e-7,{"x":[true,false,null]}]`, `"s\u0041"`, `-0`, `{}`}

func fill(v reflect.Value, rng *rand.Rand, zero int) {
	if zero > 0 && rng.IntN(zero) == 0 {
		v.SetZero()
		return
	}
	if v.Type() == rawType {
		v.SetBytes([]byte(Raws[rng.IntN(len(Raws))]))
		return
	}
	if v.Type() == timeType {
		zones := []*time.Location{time.UTC, time.FixedZone("", 8*3600), time.FixedZone("X", -5*3600-30*60)}
		t := time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)*int64(rng.IntN(2))).In(zones[rng.IntN(len(zones))])
		v.Set(reflect.ValueOf(t))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(Strings[rng.IntN(len(Strings))])
	case reflect.Float64, reflect.Float32:
		f := Floats[rng.IntN(len(Floats))]
		if rng.IntN(2) == 0 {
			f = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		}
		if v.Kind() == reflect.Float32 && math.Abs(f) > math.MaxFloat32 {
			f = math.Copysign(math.MaxFloat32, f)
		}
		v.SetFloat(f)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(rng.Int64N(1<<40) - 1<<39)
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		v.SetUint(rng.Uint64() >> rng.IntN(64))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), rng, zero)
	case reflect.Slice:
		n := rng.IntN(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(s.Index(i), rng, zero)
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), rng, zero)
			}
		}
	default:
		panic("jsontest: cannot fill a " + v.Type().String())
	}
}
