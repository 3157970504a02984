// Package jsondec decodes the JSON the hook reads on every event (the
// event itself, the session file and its header) without encoding/json's
// reflection, which builds each struct type's decoder on first use, once
// per process: 5 % of a hook process's CPU samples at 50 skills (perf
// record of 200 prompt events). It reads a plain form only: valid JSON,
// each known key spelt exactly and once, each known field of its own
// type and not null. On anything else (a key that differs from a known
// one in case alone, an escape inside a key, a number that does not fit
// its field) the decoder gives up, having decided nothing, and its caller
// decodes with encoding/json, which gives the same value or its error.
// Each decoder's fuzz test holds it to that.
package jsondec

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// Decoder reads one JSON value from data. A value outside the plain form
// makes it fail: every later read returns a zero value, and Done reports
// false.
type Decoder struct {
	data   []byte
	i      int
	failed bool
	depth  int
}

// New returns a decoder of data.
func New(data []byte) *Decoder { return &Decoder{data: data} }

// Done reports whether the whole input was read, in the plain form, with
// nothing but white space after the value.
func (d *Decoder) Done() bool {
	d.space()
	return !d.failed && d.i == len(d.data)
}

// Fail gives up on the input: a value its caller leaves to encoding/json.
func (d *Decoder) Fail() { d.failed = true }

func (d *Decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the first byte of the next value, 0 at the end or after a
// failure.
func (d *Decoder) peek() byte {
	d.space()
	if d.failed || d.i >= len(d.data) {
		return 0
	}
	return d.data[d.i]
}

// Object reads the keys of an object, known being the keys its caller
// reads the values of: see Object.Next.
func (d *Decoder) Object(known ...string) *Object {
	if d.peek() != '{' {
		d.Fail()
	}
	d.i++
	return &Object{d: d, known: known, first: true}
}

// Object is an object being read.
type Object struct {
	d     *Decoder
	known []string
	seen  uint64
	first bool
}

// Next returns the index in known of the next key, the decoder then at
// its value, which the caller must read; the values of other keys are
// skipped. It returns false at the object's end or on a failure: a key
// seen twice, a key with an escape, or one that only case tells from a
// known one (encoding/json matches keys regardless of case).
func (o *Object) Next() (int, bool) {
	d := o.d
	for {
		c := d.peek()
		if c == '}' {
			d.i++
			return 0, false
		}
		if !o.first {
			if c != ',' {
				d.Fail()
				return 0, false
			}
			d.i++
			c = d.peek()
		}
		o.first = false
		if c != '"' {
			d.Fail()
			return 0, false
		}
		start, end, plain := d.scanString()
		if d.peek() != ':' || !plain {
			d.Fail()
			return 0, false
		}
		d.i++
		key := d.data[start+1 : end-1]
		for k, name := range o.known {
			if string(key) == name {
				if o.seen&(1<<k) != 0 {
					d.Fail()
					return 0, false
				}
				o.seen |= 1 << k
				return k, true
			}
			if bytes.EqualFold(key, []byte(name)) {
				d.Fail()
				return 0, false
			}
		}
		d.Skip()
		if d.failed {
			return 0, false
		}
	}
}

// scanString reads a string at d.i (its opening quote), checking its
// escapes, and returns where it starts and ends (quotes included) and
// whether it is plain: no escape, no invalid UTF-8, so that its bytes
// are its value.
func (d *Decoder) scanString() (start, end int, plain bool) {
	start, plain = d.i, true
	i := d.i + 1
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.i = i + 1
			return start, d.i, plain
		case c < 0x20:
			d.Fail()
			return start, start + 1, false
		case c == '\\':
			plain = false
			if i+1 >= len(d.data) {
				d.Fail()
				return start, start + 1, false
			}
			switch d.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d.data) {
					d.Fail()
					return start, start + 1, false
				}
				for _, h := range d.data[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						d.Fail()
						return start, start + 1, false
					}
				}
				i += 6
			default:
				d.Fail()
				return start, start + 1, false
			}
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			i += size
		}
	}
	d.Fail()
	return start, start + 1, false
}

// String reads a string; one with escapes or invalid UTF-8 is unquoted by
// encoding/json (into a string: no struct type to reflect on).
func (d *Decoder) String() string {
	if d.peek() != '"' {
		d.Fail()
		return ""
	}
	start, end, plain := d.scanString()
	if d.failed {
		return ""
	}
	if plain {
		return string(d.data[start+1 : end-1])
	}
	var s string
	if json.Unmarshal(d.data[start:end], &s) != nil {
		d.Fail()
	}
	return s
}

// Strings reads a list of strings: null is nil, [] an empty list, as
// encoding/json decodes them into a nil slice.
func (d *Decoder) Strings() []string {
	if d.null() {
		return nil
	}
	out := []string{}
	d.list(func() { out = append(out, d.String()) })
	return out
}

// List reads the elements of a list, each by read (a null is no list:
// Null reads it).
func (d *Decoder) List(read func()) { d.list(read) }

// Null reads a null, if that is what comes next, and reports whether it
// was.
func (d *Decoder) Null() bool { return d.null() }

func (d *Decoder) null() bool {
	if d.peek() == 'n' && bytes.HasPrefix(d.data[d.i:], []byte("null")) {
		d.i += 4
		return true
	}
	return false
}

// list reads a list, each element by read.
func (d *Decoder) list(read func()) {
	if d.peek() != '[' {
		d.Fail()
		return
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return
	}
	for !d.failed {
		read()
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return
		default:
			d.Fail()
		}
	}
}

// number reads a number as JSON writes one, and returns its text.
func (d *Decoder) number() string {
	d.space()
	start, i := d.i, d.i
	digits := func() bool {
		j := i
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	switch {
	case i < len(d.data) && d.data[i] == '0':
		i++
	case !digits():
		d.Fail()
		return ""
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if !digits() {
			d.Fail()
			return ""
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if !digits() {
			d.Fail()
			return ""
		}
	}
	d.i = i
	return string(d.data[start:i])
}

// Float64 reads a number into a float64, as encoding/json parses it.
func (d *Decoder) Float64() float64 {
	f, err := strconv.ParseFloat(d.number(), 64)
	if err != nil {
		d.Fail()
	}
	return f
}

// Float32 reads a number into a float32, as encoding/json parses it.
func (d *Decoder) Float32() float32 {
	f, err := strconv.ParseFloat(d.number(), 32)
	if err != nil {
		d.Fail()
	}
	return float32(f)
}

// Int reads an integer (a number with a fraction or an exponent fails,
// as encoding/json refuses it).
func (d *Decoder) Int() int64 {
	n, err := strconv.ParseInt(d.number(), 10, 64)
	if err != nil {
		d.Fail()
	}
	return n
}

// Uint reads an unsigned integer.
func (d *Decoder) Uint() uint64 {
	n, err := strconv.ParseUint(d.number(), 10, 64)
	if err != nil {
		d.Fail()
	}
	return n
}

// Bool reads true or false.
func (d *Decoder) Bool() bool {
	switch {
	case d.peek() == 't' && bytes.HasPrefix(d.data[d.i:], []byte("true")):
		d.i += 4
		return true
	case d.peek() == 'f' && bytes.HasPrefix(d.data[d.i:], []byte("false")):
		d.i += 5
		return false
	}
	d.Fail()
	return false
}

// Time reads a time as its UnmarshalJSON does, from a string.
func (d *Decoder) Time() time.Time {
	var t time.Time
	if d.peek() != '"' {
		d.Fail()
		return t
	}
	start, end, _ := d.scanString()
	if d.failed || t.UnmarshalJSON(d.data[start:end]) != nil {
		d.Fail()
	}
	return t
}

// Raw reads any value and returns its bytes, as json.RawMessage holds
// them.
func (d *Decoder) Raw() json.RawMessage {
	d.space()
	start := d.i
	d.Skip()
	if d.failed {
		return nil
	}
	return append(json.RawMessage(nil), d.data[start:d.i]...)
}

// maxDepth bounds the nesting Skip follows; deeper input is left to
// encoding/json (which allows 10,000).
const maxDepth = 64

// Skip reads any value, checking that it is JSON.
func (d *Decoder) Skip() {
	switch c := d.peek(); {
	case c == '"':
		d.scanString()
	case c == '{':
		if d.depth++; d.depth > maxDepth {
			d.Fail()
			return
		}
		o := d.Object()
		for _, ok := o.Next(); ok; _, ok = o.Next() {
		}
		d.depth--
	case c == '[':
		if d.depth++; d.depth > maxDepth {
			d.Fail()
			return
		}
		d.list(d.Skip)
		d.depth--
	case c == 't' || c == 'f':
		d.Bool()
	case c == 'n':
		if !d.null() {
			d.Fail()
		}
	default:
		d.number()
	}
}
