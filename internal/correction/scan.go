package correction

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one run of letters and digits in the text.
type token struct {
	start, end int32
	upper      bool // holds an uppercase letter (or a non-ASCII rune that may lower)
	digits     bool // only ASCII digits
}

func (t token) s() int { return int(t.start) }
func (t token) e() int { return int(t.end) }

// scanner holds the tokens of one text and scratch space for lookups.
type scanner struct {
	text string
	toks []token
	buf  []byte
}

func (sc *scanner) reset(text string) {
	sc.text = text
	if want := len(text)/4 + 16; cap(sc.toks) < want && text != "" {
		sc.toks = make([]token, 0, want)
	}
	sc.toks = tokenize(text, sc.toks[:0])
}

// wordByte classifies an ASCII byte: 0 for a separator, 1 for a
// lowercase letter or digit, 2 for an uppercase letter.
func wordByte(c byte) uint8 {
	switch {
	case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		return 1
	case 'A' <= c && c <= 'Z':
		return 2
	}
	return 0
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// tokenize appends the word tokens of text to toks.
func tokenize(text string, toks []token) []token {
	n := len(text)
	i := 0
	for i < n {
		c := text[i]
		if c < utf8.RuneSelf {
			if wordByte(c) == 0 {
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				i += size
				continue
			}
		}
		t := token{start: int32(i), digits: true}
		for i < n {
			c := text[i]
			if c < utf8.RuneSelf {
				w := wordByte(c)
				if w == 0 {
					break
				}
				if w == 2 {
					t.upper = true
				}
				if c > '9' {
					t.digits = false
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			t.digits = false
			if unicode.ToLower(r) != r {
				t.upper = true
			}
			i += size
		}
		t.end = int32(i)
		toks = append(toks, t)
	}
	return toks
}

// str returns the text of token i.
func (sc *scanner) str(i int) string {
	t := sc.toks[i]
	return sc.text[t.s():t.e()]
}

// lower returns the lowercased text of token i. The result may alias
// the scanner's scratch buffer and is valid until the next call.
func (sc *scanner) lowerBytes(i int) []byte {
	t := sc.toks[i]
	sc.buf = appendLower(sc.buf[:0], sc.text[t.s():t.e()])
	return sc.buf
}

// lookup finds token i in m without allocating.
func lookup[V any](sc *scanner, m map[string]V, i int) (V, bool) {
	t := sc.toks[i]
	if !t.upper {
		v, ok := m[sc.text[t.s():t.e()]]
		return v, ok
	}
	b := sc.lowerBytes(i)
	v, ok := m[string(b)]
	return v, ok
}

// is reports whether token i equals the lowercase ASCII word w, ignoring case.
func (sc *scanner) is(i int, w string) bool {
	if i < 0 || i >= len(sc.toks) {
		return false
	}
	t := sc.toks[i]
	return t.e()-t.s() == len(w) && strings.EqualFold(sc.text[t.s():t.e()], w)
}

// isAny reports whether token i is one of the words ws.
func (sc *scanner) isAny(i int, ws ...string) bool {
	for _, w := range ws {
		if sc.is(i, w) {
			return true
		}
	}
	return false
}

// firstUpper reports whether token i starts with an uppercase letter.
func (sc *scanner) firstUpper(i int) bool {
	t := sc.toks[i]
	r, _ := utf8.DecodeRuneInString(sc.text[t.s():t.e()])
	return unicode.IsUpper(r)
}

// allUpper reports whether the text between byte offsets s and e has
// at least two letters and no lowercase letter.
func allUpper(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2
}

// nameGap reports whether tokens i and i+1 are separated only as the words
// of one name can be: spaces, a hyphen or an abbreviating period.
func (sc *scanner) nameGap(i int) bool {
	if i+1 >= len(sc.toks) {
		return false
	}
	g := sc.text[sc.toks[i].e():sc.toks[i+1].s()]
	if len(g) == 0 || len(g) > 3 {
		return false
	}
	dots, dashes := 0, 0
	for j := 0; j < len(g); j++ {
		switch g[j] {
		case ' ', '\t':
		case '.':
			dots++
		case '-':
			dashes++
		default:
			return false
		}
	}
	return dots <= 1 && dashes <= 1 && !(dots == 1 && dashes == 1)
}

// gapInfo describes the bytes between two tokens inside a reference.
type gapInfo struct {
	ok, colon, dash, comma, period bool
}

// refGap inspects the separator between tokens i and i+1 of a reference.
func (sc *scanner) refGap(i int) gapInfo {
	if i+1 >= len(sc.toks) {
		return gapInfo{}
	}
	g := sc.text[sc.toks[i].e():sc.toks[i+1].s()]
	if len(g) == 0 || len(g) > 6 {
		return gapInfo{}
	}
	gi := gapInfo{ok: true}
	nl := 0
	for j := 0; j < len(g); {
		c := g[j]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
		case c == '\n':
			nl++
		case c == ':':
			if gi.colon {
				return gapInfo{}
			}
			gi.colon = true
		case c == '-':
			gi.dash = true
		case c == ',':
			gi.comma = true
		case c == '.':
			gi.period = true
		case strings.HasPrefix(g[j:], "–") || strings.HasPrefix(g[j:], "—"):
			gi.dash = true
			j += 3
			continue
		default:
			return gapInfo{}
		}
		j++
	}
	if nl > 1 {
		return gapInfo{}
	}
	return gi
}

// sentenceStart reports whether token i begins a sentence or a line.
func (sc *scanner) sentenceStart(i int) bool {
	s := sc.toks[i].s()
	for j := s - 1; j >= 0; j-- {
		switch c := sc.text[j]; c {
		case ' ', '\t', '"', '\'', '(', '[':
			continue
		case '.', '!', '?', '\n', ':':
			return true
		default:
			return false
		}
	}
	return true
}

// appendLower appends the lowercase form of s to b.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += size
	}
	return b
}

// splitKey returns the lowercase word tokens of s.
func splitKey(s string) []string {
	var out []string
	for _, t := range tokenize(s, nil) {
		out = append(out, string(appendLower(nil, s[t.s():t.e()])))
	}
	return out
}
