// Package jsontest holds hand-written JSON codecs (package jsonlite) to
// encoding/json's output: Fill gives a value every field of which is set,
// so that a field a codec forgets shows as a difference, today or when a
// field is added to the type.
package jsontest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"
)

// texts are what Fill puts in strings: quoting's hard cases among them.
var texts = []string{"plain", `a "quoted" <b>&</b>`, "页面加载慢，首屏", "tab\tand\nnewline", "bad \xff utf8", "sep\u2028", "🚀"}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// Fill sets every exported field of the struct v points to, and of the
// structs, slices (two elements) and pointers in it, to a value that is
// not its zero, drawn from rng. It panics on a kind it does not know, so
// that a codec's test fails when a type gains a field of such a kind.
func Fill(v any, rng *rand.Rand) {
	fill(reflect.ValueOf(v).Elem(), rng)
}

func fill(v reflect.Value, rng *rand.Rand) {
	switch {
	case v.Type() == timeType:
		t := time.Date(2020+rng.IntN(10), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.IntN(1e9), time.UTC)
		v.Set(reflect.ValueOf(t))
		return
	case v.Type() == rawType:
		v.SetBytes([]byte(fmt.Sprintf(`{"k":[%d,"v"]}`, rng.IntN(100))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(texts[rng.IntN(len(texts))])
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1 + rng.Int64N(1e6))
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		v.SetUint(1 + rng.Uint64()>>(64-v.Type().Bits()+1))
	case reflect.Float64:
		v.SetFloat((rng.Float64() - 0.25) * 1e3)
	case reflect.Float32:
		v.SetFloat(float64(float32(rng.Float64())))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), rng)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), rng)
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), rng)
			}
		}
	default:
		panic(fmt.Sprintf("jsontest: cannot fill a %v", v.Type()))
	}
}
