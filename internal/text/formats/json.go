package formats

import (
	"errors"
	"fmt"
)

// jsonRole is what a JSON value is to the transcript.
type jsonRole uint8

const (
	jsonOther    jsonRole = iota
	jsonText              // a transcript string
	jsonSegs              // a json3 "segs" array
	jsonSegsElem          // an element of a json3 "segs" array
)

// jsonScanner walks a JSON document, adding transcript strings to b.
type jsonScanner struct {
	src  []byte
	pos  int
	b    *builder
	segs int // number of "segs" arrays met so far
	last int // the "segs" array of the last run, or 0
	// maxDepth bounds the nesting of values.
	maxDepth int
}

// extractJSON takes the string values of the members named "text",
// "transcript" and "content" at any depth (so also Whisper's
// segments[].text) and the "utf8" strings of the elements of "segs" arrays
// (YouTube json3 events[].segs[].utf8). Strings that hold only white space
// are skipped. Keys, other values and the JSON syntax are never changed.
// View.Text holds the decoded strings; runs are separated by "\n", except
// the segs of one event, which are joined without a separator. Escape
// sequences are decoded; Rewrite keeps unchanged ones byte-identical and
// writes replacements with the escapes JSON needs ('"', '\\' and control
// characters), leaving other characters as UTF-8.
func extractJSON(src []byte, lim Limits) (*View, error) {
	s := &jsonScanner{src: src, pos: skipBOM(src), b: newBuilder(src, JSON, lim), maxDepth: lim.MaxDepth}
	s.space()
	if err := s.value(jsonOther, 0, 0); err != nil {
		return nil, err
	}
	s.space()
	if s.pos != len(src) {
		return nil, s.errorf("unexpected data after the top-level value")
	}
	return s.b.view()
}

// validJSON reports whether b is one valid JSON value.
func validJSON(b []byte) bool {
	s := &jsonScanner{src: b, maxDepth: Limits{}.withDefaults().MaxDepth}
	s.space()
	if s.value(jsonOther, 0, 0) != nil {
		return false
	}
	s.space()
	return s.pos == len(b)
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("formats: json: offset %d: %s", s.pos, fmt.Sprintf(format, args...))
}

func (s *jsonScanner) space() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value scans a value. seg numbers the "segs" array the value is in (for
// jsonSegsElem) or whose element holds it (for a "utf8" jsonText).
func (s *jsonScanner) value(role jsonRole, seg, depth int) error {
	if depth > s.maxDepth {
		return tooLarge(JSON, "values nest deeper than %d levels", s.maxDepth)
	}
	if s.b != nil && s.b.full() {
		return s.b.err
	}
	if s.pos >= len(s.src) {
		return s.errorf("unexpected end of input")
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		if role != jsonSegsElem {
			seg = 0
		}
		return s.object(seg, depth)
	case c == '[':
		return s.array(role, depth)
	case c == '"':
		a, z, err := s.str()
		if err != nil || role != jsonText || s.b == nil {
			return err
		}
		s.text(a, z, seg)
		return nil
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(s.src)-s.pos >= len(lit) && string(s.src[s.pos:s.pos+len(lit)]) == lit {
			s.pos += len(lit)
			return nil
		}
	}
	return s.errorf("invalid character %q", s.src[s.pos])
}

// text adds the inside [a, z) of a transcript string as a run; seg is
// its "segs" array or 0.
func (s *jsonScanner) text(a, z, seg int) {
	blank, nl := true, false
	for _, c := range s.src[a:z] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			blank = false
			break
		}
		nl = nl || c == '\n'
	}
	// A blank string is a raw newline, space or tab here; escaped ones
	// ("\n" in json3) are two bytes '\\' 'n'.
	if !blank && z-a == 2 && s.src[a] == '\\' && s.src[a+1] == 'n' {
		blank, nl = true, true
	}
	if blank {
		if seg != 0 && nl {
			s.b.separate("\n")
		} else if seg != 0 {
			s.b.separate(" ")
		}
		return
	}
	if seg == 0 || seg != s.last {
		s.b.separate("\n")
	}
	s.b.add(a, z, encJSON)
	s.last = seg
}

func (s *jsonScanner) object(seg, depth int) error {
	s.pos++
	s.space()
	if s.pos < len(s.src) && s.src[s.pos] == '}' {
		s.pos++
		return nil
	}
	for {
		if s.pos >= len(s.src) || s.src[s.pos] != '"' {
			return s.errorf("expected a string key")
		}
		a, z, err := s.str()
		if err != nil {
			return err
		}
		key, _ := decodeJSON(nil, s.src[a:z])
		s.space()
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return s.errorf("expected ':'")
		}
		s.pos++
		s.space()
		role := jsonOther
		switch string(key) {
		case "text", "transcript", "content":
			role = jsonText
		case "utf8":
			if seg != 0 {
				role = jsonText
			}
		case "segs":
			role = jsonSegs
		}
		if err := s.value(role, seg, depth+1); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(s.src) {
			return s.errorf("unexpected end of input in object")
		}
		if s.src[s.pos] == '}' {
			s.pos++
			return nil
		}
		if s.src[s.pos] != ',' {
			return s.errorf("expected ',' or '}'")
		}
		s.pos++
		s.space()
	}
}

func (s *jsonScanner) array(role jsonRole, depth int) error {
	s.pos++
	elem, seg := jsonOther, 0
	if role == jsonSegs {
		s.segs++
		elem, seg = jsonSegsElem, s.segs
	}
	s.space()
	if s.pos < len(s.src) && s.src[s.pos] == ']' {
		s.pos++
		return nil
	}
	for {
		if err := s.value(elem, seg, depth+1); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(s.src) {
			return s.errorf("unexpected end of input in array")
		}
		if s.src[s.pos] == ']' {
			s.pos++
			return nil
		}
		if s.src[s.pos] != ',' {
			return s.errorf("expected ',' or ']'")
		}
		s.pos++
		s.space()
	}
}

// str scans a string starting at s.pos and returns the range of its inside.
func (s *jsonScanner) str() (a, z int, err error) {
	s.pos++
	a = s.pos
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '"':
			z = s.pos
			s.pos++
			return a, z, nil
		case c == '\\':
			if s.pos+1 >= len(s.src) {
				return 0, 0, s.errorf("unterminated string")
			}
			switch s.src[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if _, ok := hex4(s.src[s.pos+2:]); !ok {
					return 0, 0, s.errorf("invalid \\u escape")
				}
				s.pos += 6
			default:
				return 0, 0, s.errorf("invalid escape")
			}
		case c < 0x20:
			return 0, 0, s.errorf("control character in string")
		default:
			s.pos++
		}
	}
	return 0, 0, errors.New("formats: json: unterminated string")
}

func (s *jsonScanner) number() error {
	start := s.pos
	if s.src[s.pos] == '-' {
		s.pos++
	}
	digits := func() int {
		n := 0
		for s.pos < len(s.src) && s.src[s.pos] >= '0' && s.src[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if digits() == 0 {
		return s.errorf("invalid number")
	}
	if s.src[start] == '0' && s.pos-start > 1 || s.src[start] == '-' && s.pos-start > 2 && s.src[start+1] == '0' {
		return s.errorf("invalid number")
	}
	if s.pos < len(s.src) && s.src[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			return s.errorf("invalid number")
		}
	}
	if s.pos < len(s.src) && (s.src[s.pos] == 'e' || s.src[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.src) && (s.src[s.pos] == '+' || s.src[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			return s.errorf("invalid number")
		}
	}
	return nil
}
