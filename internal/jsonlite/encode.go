// Package jsonlite reads and writes JSON without reflection, byte for
// byte as encoding/json does, for the few fixed types the hook reads and
// writes on every prompt (the event, the session file, the decision and
// trajectory lines).
//
// encoding/json works out each struct type's fields by reflection the
// first time it meets the type (typeFields), and a hook process meets
// every type for the first time: that was 10 % of a hook process's CPU
// samples at 50 skills (perf record of 200 prompt events), the JSON work
// proper a few percent more. The types' own MarshalJSON and UnmarshalJSON
// methods, written with this package, skip it; their tests hold them to
// encoding/json's output and results on every field (Fill, and fuzzing).
package jsonlite

import (
	"errors"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// ErrUnsupported reports a float that JSON cannot hold (NaN, ±Inf), as
// encoding/json refuses it.
var ErrUnsupported = errors.New("jsonlite: unsupported value")

// Object appends a JSON object's members to a buffer, each once: Begin,
// then one call per member in the order they are to appear, then End.
// The first error (a NaN) is kept and returned by End.
type Object struct {
	buf   []byte
	empty bool
	err   error
}

// Begin starts an object at the end of b.
func Begin(b []byte) *Object { return &Object{buf: append(b, '{'), empty: true} }

// End closes the object and returns the buffer, or the first error.
func (o *Object) End() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	return append(o.buf, '}'), nil
}

// Key starts a member whose value the caller appends itself (Raw); name
// is a plain ASCII name that needs no escaping.
func (o *Object) Key(name string) {
	if !o.empty {
		o.buf = append(o.buf, ',')
	}
	o.empty = false
	o.buf = append(append(append(o.buf, '"'), name...), '"', ':')
}

// Raw appends JSON the caller encoded, as the current member's value.
func (o *Object) Raw(v []byte) { o.buf = append(o.buf, v...) }

// Buffer returns the buffer, for an Append function to write the
// current member's value to (then SetBuffer).
func (o *Object) Buffer() []byte { return o.buf }

// SetBuffer takes back the buffer Buffer handed out, and err, the
// appending's error if any.
func (o *Object) SetBuffer(b []byte, err error) {
	o.buf = b
	if err != nil && o.err == nil {
		o.err = err
	}
}

// String appends a string member.
func (o *Object) String(name, v string) {
	o.Key(name)
	o.buf = AppendString(o.buf, v)
}

// StringOmit appends a string member unless it is empty (omitempty).
func (o *Object) StringOmit(name, v string) {
	if v != "" {
		o.String(name, v)
	}
}

// Strings appends a list of strings; nil is null, as encoding/json
// writes a nil slice.
func (o *Object) Strings(name string, v []string) {
	o.Key(name)
	o.buf = AppendStrings(o.buf, v)
}

// StringsOmit appends a list of strings unless it is empty (omitempty).
func (o *Object) StringsOmit(name string, v []string) {
	if len(v) > 0 {
		o.Strings(name, v)
	}
}

// Float appends a float64 member.
func (o *Object) Float(name string, v float64) {
	o.Key(name)
	o.SetBuffer(AppendFloat(o.buf, v, 64))
}

// Float32 appends a float32 member.
func (o *Object) Float32(name string, v float32) {
	o.Key(name)
	o.SetBuffer(AppendFloat(o.buf, float64(v), 32))
}

// FloatOmit appends a float64 member unless it is zero (omitempty).
func (o *Object) FloatOmit(name string, v float64) {
	if v != 0 {
		o.Float(name, v)
	}
}

// Int appends an integer member.
func (o *Object) Int(name string, v int64) {
	o.Key(name)
	o.buf = strconv.AppendInt(o.buf, v, 10)
}

// Uint appends an unsigned integer member.
func (o *Object) Uint(name string, v uint64) {
	o.Key(name)
	o.buf = strconv.AppendUint(o.buf, v, 10)
}

// IntOmit appends an integer member unless it is zero (omitempty).
func (o *Object) IntOmit(name string, v int64) {
	if v != 0 {
		o.Int(name, v)
	}
}

// Bool appends a boolean member.
func (o *Object) Bool(name string, v bool) {
	o.Key(name)
	o.buf = strconv.AppendBool(o.buf, v)
}

// BoolOmit appends a boolean member unless it is false (omitempty).
func (o *Object) BoolOmit(name string, v bool) {
	if v {
		o.Bool(name, v)
	}
}

// Time appends a time member as time.Time.MarshalJSON writes it.
func (o *Object) Time(name string, v time.Time) {
	o.Key(name)
	o.SetBuffer(AppendTime(o.buf, v))
}

// AppendStrings appends a list of strings; nil is null.
func AppendStrings(b []byte, v []string) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendTime appends t as time.Time.MarshalJSON writes it (RFC 3339 with
// nanoseconds, quoted), or fails as it does (a year outside 0–9999).
func AppendTime(b []byte, t time.Time) ([]byte, error) {
	data, err := t.MarshalJSON()
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

// AppendFloat appends f as encoding/json writes a float of the given bit
// size (32 or 64): the shortest decimal that reads back as f, in
// exponent form below 1e-6 and from 1e21 up, its exponent without a
// leading zero. NaN and infinities are ErrUnsupported.
func AppendFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, ErrUnsupported
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 is written e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as encoding/json quotes a string: the
// quote and backslash escaped, control characters as \n, \r, \t, \b, \f
// or \u00XX, <, > and & as \u003c, \u003e and \u0026 (HTML-safe), U+2028
// and U+2029 escaped, and each byte of invalid UTF-8 as \ufffd.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
