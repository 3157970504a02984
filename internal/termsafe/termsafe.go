// Package termsafe keeps text read from files from driving the terminal
// it is printed on. A skill folder can be named, and a SKILL.md can hold,
// anything: an ANSI escape sequence (ESC [ ... ) that recolours, moves the
// cursor, retitles the window or, on some terminals, answers back with
// input of its own; a carriage return that overprints a line; a Unicode
// direction override that shows text in another order than it is. The
// command's text output passes through a Writer, which prints each such
// character as a \uXXXX escape instead.
//
// The escape is JSON's own, so that JSON output passing through a Writer
// stays valid and means the same: encoding/json already escapes C0
// controls, and a DEL, C1 control or override it leaves raw becomes the
// escape of the same character.
package termsafe

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Unsafe reports whether a character must not reach a terminal raw: C0
// controls but newline and tab, DEL, C1 controls (U+0080 to U+009F; U+009B
// starts a control sequence as ESC [ does), and the bidirectional
// embeddings, overrides and isolates.
func Unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// String returns s with every Unsafe character escaped as \uXXXX.
// Invalid UTF-8 is left as it is: a terminal shows it as a replacement
// character.
func String(s string) string {
	for _, r := range s {
		if Unsafe(r) {
			return string(appendSafe(nil, []byte(s)))
		}
	}
	return s
}

func appendSafe(dst, p []byte) []byte {
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		if r != utf8.RuneError && Unsafe(r) {
			dst = fmt.Appendf(dst, `\u%04x`, r)
		} else {
			dst = append(dst, p[:n]...)
		}
		p = p[n:]
	}
	return dst
}

// Writer passes text on with every Unsafe character escaped. A character
// split between two writes is held back until the next one completes it;
// Flush passes on what is held at the end.
type Writer struct {
	w     io.Writer
	carry []byte
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it. It reports len(p) when the escaped text
// was written whole.
func (w *Writer) Write(p []byte) (int, error) {
	buf := append(w.carry, p...)
	w.carry = nil
	// Hold back an incomplete character at the end (at most 3 bytes).
	end := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				end = i
			}
			break
		}
	}
	w.carry = append([]byte(nil), buf[end:]...)
	if _, err := w.w.Write(appendSafe(nil, buf[:end])); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what an incomplete character held back.
func (w *Writer) Flush() error {
	if len(w.carry) == 0 {
		return nil
	}
	_, err := w.w.Write(appendSafe(nil, w.carry))
	w.carry = nil
	return err
}
