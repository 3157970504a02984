// Package jsonenc appends JSON exactly as encoding/json's Marshal writes
// it (strings escaped the same, HTML characters included; numbers and
// times formatted the same), for the records the hook writes on every
// prompt: its decision line, its trajectory line and the session file.
// encoding/json builds each struct type's encoder by reflection on first
// use, once per process, and a hook process is all first uses: that was
// 7.6 % of a hook process's CPU samples at 50 skills (perf record of 200
// prompt events). Each record's tests compare its bytes with
// json.Marshal's for values with every field set, odd strings among them.
package jsonenc

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
)

// Buf is JSON being appended. A value json.Marshal refuses (a NaN or
// infinite number, a time outside years 0-9999) makes Bytes fail, with
// the error json.Marshal gives.
type Buf struct {
	b   []byte
	err error
}

// Bytes returns the JSON appended, or the first error.
func (e *Buf) Bytes() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// Raw appends s as it is: punctuation and keys, as `{"id":` or `,"skill":`.
func (e *Buf) Raw(s string) { e.b = append(e.b, s...) }

// String appends s quoted.
func (e *Buf) String(s string) { e.b = AppendString(e.b, s) }

// Strings appends a list of strings: null for a nil one, as json.Marshal.
func (e *Buf) Strings(ss []string) {
	if ss == nil {
		e.Raw("null")
		return
	}
	e.List(len(ss), func(i int) { e.String(ss[i]) })
}

// List appends an array of n items, each appended by item(i).
func (e *Buf) List(n int, item func(i int)) {
	e.b = append(e.b, '[')
	for i := range n {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		item(i)
	}
	e.b = append(e.b, ']')
}

// Int appends an integer.
func (e *Buf) Int(i int64) { e.b = strconv.AppendInt(e.b, i, 10) }

// Uint appends an unsigned integer.
func (e *Buf) Uint(u uint64) { e.b = strconv.AppendUint(e.b, u, 10) }

// Bool appends true or false.
func (e *Buf) Bool(v bool) { e.b = strconv.AppendBool(e.b, v) }

// Float64 appends a float64 as json.Marshal formats it.
func (e *Buf) Float64(f float64) { e.float(f, 64) }

// Float32 appends a float32 as json.Marshal formats it (the shortest
// decimal that reads back as the same float32).
func (e *Buf) Float32(f float32) { e.float(float64(f), 32) }

// float is encoding/json's floatEncoder: ES6's number formatting, an
// exponent below 1e-6 and from 1e21 on, without its padding zero.
func (e *Buf) float(f float64, bits int) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.fail(&json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, bits)})
		e.b = append(e.b, '0') // the output is dropped; keep it JSON-shaped
		return
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, bits)
	if format == 'e' {
		if n := len(e.b); n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

// Time appends a time as its MarshalJSON does (RFC 3339 with
// nanoseconds).
func (e *Buf) Time(t time.Time) {
	data, err := t.MarshalJSON()
	if err != nil {
		e.fail(&json.MarshalerError{Type: reflect.TypeFor[time.Time](), Err: err})
		data = []byte(`""`)
	}
	e.b = append(e.b, data...)
}

func (e *Buf) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

const hex = "0123456789abcdef"

// AppendString appends s quoted as json.Marshal quotes a string: `"` and
// `\` escaped, control characters as \n, \t … or \u00XX, the HTML
// characters <, > and & as \u003c, \u003e and \u0026, U+2028 and U+2029
// escaped, and each byte of invalid UTF-8 as \ufffd.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
