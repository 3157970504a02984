package jsonlite

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax reports input that is not JSON; ErrType, a value of another
// type than the field it is read into (a number for a string, a
// fraction for an integer). encoding/json reports both too, and decodes
// nothing into a value when the input is not JSON.
var (
	ErrSyntax = errors.New("jsonlite: invalid JSON")
	ErrType   = errors.New("jsonlite: value of the wrong type")
)

// Decoder reads one JSON value from its input, piece by piece: the
// caller walks the value it expects (Object, Array, String, ...), and
// checks with End that nothing follows.
type Decoder struct {
	data  []byte
	pos   int
	depth int // objects and arrays open
}

// maxDepth bounds nesting, as encoding/json does (10,000): an event of
// 16 MB of "[" must not grow the stack without end.
const maxDepth = 10000

// NewDecoder reads data.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data} }

func (d *Decoder) syntax(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrSyntax, what, d.pos)
}

func (d *Decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the first byte of the next value, 0 at the end (or at a
// NUL byte, which no value starts with either).
func (d *Decoder) peek() byte {
	d.space()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// End checks that only white space follows the value read.
func (d *Decoder) End() error {
	if d.space(); d.pos < len(d.data) {
		return d.syntax("data after the value")
	}
	return nil
}

// Null reads a null if one comes next, and reports whether it did:
// encoding/json leaves a field as it is for null, or sets a pointer, a
// slice or a map to nil.
func (d *Decoder) Null() (bool, error) {
	if d.peek() != 'n' {
		return false, nil
	}
	return true, d.literal("null")
}

func (d *Decoder) literal(word string) error {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(word)) {
		return d.syntax("invalid literal")
	}
	d.pos += len(word)
	return nil
}

// Match reports whether an object's key names a field, as encoding/json
// matches them: exactly, or else without regard to case.
func Match(key []byte, name string) bool {
	return string(key) == name || bytes.EqualFold(key, []byte(name))
}

// Object reads an object (or null, as an empty one), calling member for
// each key, unescaped, with the decoder at its value: member reads the
// value (Skip for a key it does not know). The key's bytes are valid only
// during the call.
func (d *Decoder) Object(member func(key []byte) error) error {
	if null, err := d.Null(); null || err != nil {
		return err
	}
	if d.peek() != '{' {
		return d.mismatch("an object")
	}
	if err := d.open(); err != nil {
		return err
	}
	defer d.close()
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	var buf []byte
	for {
		if d.peek() != '"' {
			return d.syntax("expected a key")
		}
		var err error
		if buf, err = d.appendString(buf[:0], true); err != nil {
			return err
		}
		if d.peek() != ':' {
			return d.syntax("expected a colon")
		}
		d.pos++
		if err := member(buf); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntax("expected a comma or the object's end")
		}
	}
}

// open enters an object or an array.
func (d *Decoder) open() error {
	if d.depth >= maxDepth {
		return d.syntax("nested too deep")
	}
	d.depth++
	d.pos++
	return nil
}

func (d *Decoder) close() { d.depth-- }

// Strings reads a list of strings as encoding/json reads one into a
// []string: null is nil, [] an empty list (not nil), a null element "".
func (d *Decoder) Strings(v *[]string) error {
	if null, err := d.Null(); null || err != nil {
		if null {
			*v = nil
		}
		return err
	}
	list := []string{}
	err := d.Array(func() error {
		var s string
		err := d.String(&s)
		list = append(list, s)
		return err
	})
	if err == nil {
		*v = list
	}
	return err
}

// Array reads an array (or null, as an empty one), calling elem for each
// element with the decoder at it.
func (d *Decoder) Array(elem func() error) error {
	if null, err := d.Null(); null || err != nil {
		return err
	}
	if d.peek() != '[' {
		return d.mismatch("an array")
	}
	if err := d.open(); err != nil {
		return err
	}
	defer d.close()
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.syntax("expected a comma or the array's end")
		}
	}
}

// mismatch is the error for a value that is not what the field holds:
// ErrSyntax if it is not a value at all, else ErrType (the value is
// skipped first, so that a caller collecting errors could go on).
func (d *Decoder) mismatch(want string) error {
	start := d.pos
	if err := d.Skip(); err != nil {
		return err
	}
	return fmt.Errorf("%w: %s where %s was expected, at offset %d", ErrType, kind(d.data[start]), want, start)
}

func kind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// String reads a string, unescaped as encoding/json unescapes it: \uXXXX
// pairs of surrogates joined, a lone surrogate and each byte of invalid
// UTF-8 replaced by U+FFFD. A null leaves v as it was.
func (d *Decoder) String(v *string) error {
	if null, err := d.Null(); null || err != nil {
		return err
	}
	if d.peek() != '"' {
		return d.mismatch("a string")
	}
	// The common case, nothing to unescape: one allocation.
	for i := d.pos + 1; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			*v = string(d.data[d.pos+1 : i])
			d.pos = i + 1
			return nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	b, err := d.appendString(nil, true)
	if err == nil {
		*v = string(b)
	}
	return err
}

// appendString reads the string at the decoder, unescaped, onto b; with
// keep false it only checks it.
func (d *Decoder) appendString(b []byte, keep bool) ([]byte, error) {
	d.pos++ // the opening quote
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return b, nil
		case c < 0x20:
			return b, d.syntax("control character in a string")
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				return b, d.syntax("unfinished escape")
			}
			e := d.data[d.pos+1]
			d.pos += 2
			if !keep && e != 'u' {
				switch e {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					continue
				}
				return b, d.syntax("invalid escape")
			}
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return b, d.syntax("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// Joined with a following \u surrogate if they pair;
					// else U+FFFD, and what follows is read on its own.
					if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
						save := d.pos
						d.pos += 2
						r2, ok := d.hex4()
						if !ok {
							return b, d.syntax("invalid \\u escape")
						}
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							b = utf8.AppendRune(b, pair)
							continue
						}
						d.pos = save
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				return b, d.syntax("invalid escape")
			}
		case !keep:
			d.pos++ // a byte of UTF-8, valid or not, is read on
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d.data[d.pos:d.pos+size]...)
			}
			d.pos += size
		}
	}
	return b, d.syntax("unfinished string")
}

// hex4 reads the four hex digits of a \u escape.
func (d *Decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.pos += 4
	return r, true
}

// number reads a number's literal, checked against JSON's grammar.
func (d *Decoder) number() ([]byte, error) {
	start := d.pos
	p := d.pos
	digits := func() int {
		n := 0
		for p < len(d.data) && '0' <= d.data[p] && d.data[p] <= '9' {
			p++
			n++
		}
		return n
	}
	if p < len(d.data) && d.data[p] == '-' {
		p++
	}
	switch {
	case p < len(d.data) && d.data[p] == '0':
		p++
	case digits() == 0:
		return nil, d.syntax("invalid number")
	}
	if p < len(d.data) && d.data[p] == '.' {
		p++
		if digits() == 0 {
			return nil, d.syntax("invalid number")
		}
	}
	if p < len(d.data) && (d.data[p] == 'e' || d.data[p] == 'E') {
		p++
		if p < len(d.data) && (d.data[p] == '+' || d.data[p] == '-') {
			p++
		}
		if digits() == 0 {
			return nil, d.syntax("invalid number")
		}
	}
	d.pos = p
	return d.data[start:p], nil
}

// numberOf reads a number, or ErrType for another value.
func (d *Decoder) numberOf(want string) ([]byte, error) {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return nil, d.mismatch(want)
	}
	return d.number()
}

// Float reads a number into a float of the given bit size (32 or 64); a
// null leaves v as it was.
func (d *Decoder) Float(v *float64, bits int) error {
	if null, err := d.Null(); null || err != nil {
		return err
	}
	lit, err := d.numberOf("a number")
	if err != nil {
		return err
	}
	f, err := strconv.ParseFloat(string(lit), bits)
	if err != nil {
		return fmt.Errorf("%w: %s does not fit a float%d", ErrType, lit, bits)
	}
	*v = f
	return nil
}

// Int reads an integer (no fraction, no exponent, in range); a null
// leaves v as it was.
func (d *Decoder) Int(v *int64) error {
	if null, err := d.Null(); null || err != nil {
		return err
	}
	lit, err := d.numberOf("an integer")
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %s is not an integer", ErrType, lit)
	}
	*v = n
	return nil
}

// Uint reads an unsigned integer; a null leaves v as it was.
func (d *Decoder) Uint(v *uint64) error {
	if null, err := d.Null(); null || err != nil {
		return err
	}
	lit, err := d.numberOf("an unsigned integer")
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(string(lit), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %s is not an unsigned integer", ErrType, lit)
	}
	*v = n
	return nil
}

// Bool reads a boolean; a null leaves v as it was.
func (d *Decoder) Bool(v *bool) error {
	switch d.peek() {
	case 'n':
		return d.literal("null")
	case 't':
		*v = true
		return d.literal("true")
	case 'f':
		*v = false
		return d.literal("false")
	}
	return d.mismatch("a boolean")
}

// Time reads a time as time.Time.UnmarshalJSON does (a quoted RFC 3339
// time; null leaves v as it was).
func (d *Decoder) Time(v *time.Time) error {
	raw, err := d.Raw()
	if err != nil {
		return err
	}
	if err := v.UnmarshalJSON(raw); err != nil {
		return fmt.Errorf("%w: %v", ErrType, err)
	}
	return nil
}

// Raw reads any value and returns its bytes (in the input: valid while
// the input is), as json.RawMessage holds them.
func (d *Decoder) Raw() ([]byte, error) {
	d.space()
	start := d.pos
	if err := d.Skip(); err != nil {
		return nil, err
	}
	return d.data[start:d.pos], nil
}

// Skip reads any value and drops it, checking its syntax.
func (d *Decoder) Skip() error {
	switch d.peek() {
	case '{':
		return d.Object(func([]byte) error { return d.Skip() })
	case '[':
		return d.Array(d.Skip)
	case '"':
		_, err := d.appendString(nil, false)
		return err
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	case 0:
		return d.syntax("unexpected end")
	}
	_, err := d.number()
	return err
}
