package correction

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one run of letters and digits in the text.
type token struct {
	start, end int32
	flags      uint8  // tUpper, tDigits, tFull, tFuzzy, tMulti, tNumTry
	h          uint64 // hash of the lowercase word (see dict.find), unless tMulti
}

// Token flags.
const (
	tUpper  = 1 << iota // holds an uppercase letter (or a non-ASCII rune that may lower)
	tDigits             // only ASCII digits
	tFull               // may start a dictionary form: run the full matcher on it
	tFuzzy              // not a dictionary form, but may be a misheard place name
	tMulti              // holds a non-ASCII rune
	tNumTry             // only digits, after a word that may be a misspelled book (see matcher.run)

	// The scanner gathers these bits of a word with its flags (see scan).
	clsDigit  = 1 << 5
	clsLetter = 1 << 6
)

func (t token) s() int       { return int(t.start) }
func (t token) e() int       { return int(t.end) }
func (t token) upper() bool  { return t.flags&tUpper != 0 }
func (t token) digits() bool { return t.flags&tDigits != 0 }

// winSize is the number of tokens the scanner keeps at a time. The
// matcher looks a few tokens back and a bounded number ahead, so the
// window never holds the tokens of the whole text; it grows only if a
// single look-ahead needs more.
const winSize = 256

// scanner tokenizes one text lazily, keeping a window of tokens around
// the matcher's position, and holds scratch space for lookups.
type scanner struct {
	text string
	d    *dict
	pos  int     // byte offset where tokenizing continues
	base int     // index of toks[0] in the text's token sequence
	keep int     // the first token index the matcher may still read
	toks []token // tokens base … base+len(toks)-1
	buf  []byte
	win  [winSize]token
}

func (sc *scanner) init(d *dict, text string) {
	sc.text, sc.d = text, d
	sc.toks = sc.win[:0]
}

// has reports whether token i exists, tokenizing up to it if needed.
func (sc *scanner) has(i int) bool {
	return i-sc.base < len(sc.toks) || sc.fill(i)
}

// tok returns token i, which must exist (see has).
func (sc *scanner) tok(i int) token {
	if i-sc.base >= len(sc.toks) {
		sc.fill(i)
	}
	return sc.toks[i-sc.base]
}

// fill tokenizes until token i is in the window or the text ends and
// reports whether token i exists. It drops the tokens before sc.keep and
// fills the window in one go.
func (sc *scanner) fill(i int) bool {
	for i-sc.base >= len(sc.toks) {
		if sc.pos >= len(sc.text) {
			return false
		}
		if drop := min(sc.keep-sc.base, len(sc.toks)); drop > 0 {
			n := copy(sc.toks, sc.toks[drop:])
			sc.toks = sc.toks[:n]
			sc.base += drop
		}
		if len(sc.toks) == cap(sc.toks) {
			sc.toks = append(sc.toks, token{})[:len(sc.toks)]
		}
		sc.scan()
	}
	return true
}

// The scanner reads the text eight bytes at a time, as a uint64 in
// little-endian order, and classifies the bytes in parallel: a mask has
// 0x80 in each byte of a class. Bytes from 0x80 start a multi-byte rune
// and are decoded one by one.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load8 returns the eight bytes of s from i, with zeros (separators) past
// its end.
func load8(s string, i int) uint64 {
	if i+8 <= len(s) {
		return loadFull(s[i:])
	}
	var v uint64
	for k := 0; i+k < len(s); k++ {
		v |= uint64(s[i+k]) << (8 * k)
	}
	return v
}

// load4 returns the first four bytes of s, which has at least four.
func load4(s string) uint32 {
	s = s[:4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// loadFull returns the first eight bytes of s, which has at least eight.
func loadFull(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// inRange returns the mask of the bytes of x, all below 0x80, that lie
// in [lo, hi].
func inRange(x uint64, lo, hi byte) uint64 {
	return (x + ones*uint64(0x80-lo)) &^ (x + ones*uint64(0x7f-hi)) & highs
}

// lowBytes returns a mask of the k low bytes of a uint64, 1 <= k <= 8.
func lowBytes(k int) uint64 {
	return ^uint64(0) >> (64 - 8*k)
}

// mixWord mixes up to eight lowercase bytes of a word into its hash.
func mixWord(h, v uint64) uint64 {
	return (h ^ v) * 0x9e3779b97f4a7c15
}

// wordKey finishes the hash of a word of n bytes: its high bits are
// well mixed.
func wordKey(h uint64, n int) uint64 {
	return (h ^ uint64(n)) * 0xff51afd7ed558ccd
}

// b2u returns 1 for true and 0 for false; the compiler makes it a
// conditional set, not a branch.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// scan appends tokens to the window until it is full or the text ends.
//
// A word is read from its first byte in chunks of eight bytes; the chunk
// that ends it most often also holds the start of the next word, which is
// then taken from it instead of being searched for again. The flags that
// depend on the previous word are carried from one word to the next.
func (sc *scanner) scan() {
	text, d, toks := sc.text, sc.d, sc.toks
	n := len(text)
	i := sc.pos
	// cue is 1 when the previous word may be a place cue (dict.placeCues);
	// numTry is 1 when a number after it is tried as a reference: the
	// previous word may be a misspelled book (see matcher.run), or there
	// is none in the window and the matcher reads it itself.
	cue, numTry := uint8(0), uint8(1)
	if len(toks) > 0 {
		p := &toks[len(toks)-1]
		cue = d.placeCueBit(p.h)
		numTry = b2u(p.flags&tDigits == 0 && p.end-p.start >= 5)
	}
	atWord := false // i is known to hold an ASCII letter or digit
	for len(toks) < cap(toks) {
		// Skip to the next word: an ASCII letter or digit, or a rune
		// from 0x80 that is a letter, digit or mark.
		for !atWord && i < n {
			var v uint64
			if i+8 <= n {
				v = loadFull(text[i:])
			} else {
				v = load8(text, i)
			}
			x := v &^ highs
			stop := inRange(x|ones*0x20, 'a', 'z') | inRange(x, '0', '9') | v&highs
			if stop == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(stop) >> 3
			if text[i] < utf8.RuneSelf {
				break
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if isWordRune(r) {
				break
			}
			i += size
		}
		if i >= n {
			i = n
			break
		}
		atWord = false
		start := i
		// cls gathers a bit for each class of byte the word holds, in
		// the place of its flag: tUpper, tMulti, clsLetter, clsDigit.
		var h, cls uint64
		end := 0
		for {
			var v uint64
			if i+8 <= n {
				v = loadFull(text[i:])
			} else {
				v = load8(text, i)
			}
			high := v & highs
			x := v &^ highs
			letter := inRange(x|ones*0x20, 'a', 'z') &^ high
			digit := inRange(x, '0', '9') &^ high
			word := letter | digit
			k := bits.TrailingZeros64(^word&highs) >> 3
			if k > 0 {
				keep := lowBytes(k)
				// Letters without 0x20 are uppercase.
				cls |= (letter&^(v<<2)&keep)>>7 | (letter&keep)>>1 | (digit&keep)>>2
				h = mixWord(h, (v|ones*0x20)&keep)
				i += k
				if k == 8 {
					continue
				}
			}
			if high>>(8*k)&0x80 != 0 {
				// A byte from 0x80 (bytes past the text load as zeros).
				r, size := utf8.DecodeRuneInString(text[i:])
				if isWordRune(r) {
					cls |= tMulti | clsLetter
					if unicode.ToLower(r) != r {
						cls |= tUpper
					}
					i += size
					continue
				}
				end = i
				break
			}
			// The byte at k is a separator; the next word may start in
			// the same chunk. A byte from 0x80 there is left to the skip
			// loop, which decodes it.
			end = i
			if rest := (word | high) &^ lowBytes(k+1); rest != 0 {
				at := bits.TrailingZeros64(rest) >> 3
				atWord = word>>(8*at)&0x80 != 0
				i += at - k
			} else {
				i += 8 - k
			}
			break
		}
		// Flag the words the matcher tries, without branches: whether a
		// word is one is not predictable. A word that is no dictionary
		// key is tried as a misheard place name when it has six to 24
		// letters and its shape is that of a key or a fuzzy target, or,
		// after a place cue, five letters or the shape of a lost last
		// sound or of a rarer place (see dict.scanShapes).
		cls |= cls >> 32
		cls |= cls >> 16
		c := uint8(cls | cls>>8)
		size := end - start
		h = wordKey(h, size)
		full := d.keyBit(h) | c>>4&1 // tMulti: looked up in the maps
		num := c>>6&1 ^ 1            // no letter
		sh := d.scanShape((min(size, 31)*27+int(d.letterIndexes[text[start]]))*27 + int(d.letterIndexes[text[end-1]]))
		fuzzy := (sh | sh>>1&cue) & 1 &^ (c >> 5)
		flags := c&(tUpper|tMulti) | full*tFull | fuzzy&^full*tFuzzy | num*(tDigits|numTry*tNumTry)
		toks = append(toks, token{start: int32(start), end: int32(end), flags: flags, h: h})
		cue = d.placeCueBit(h)
		numTry = (num ^ 1) & b2u(size >= 5)
	}
	sc.pos = i
	sc.toks = toks
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

// tokenize appends the word tokens of text to toks. It is the plain
// tokenizer of the dictionary builder; scanner.next splits a text the
// same way.
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
		t := token{start: int32(i), flags: tDigits}
		for i < n {
			c := text[i]
			if c < utf8.RuneSelf {
				w := wordByte(c)
				if w == 0 {
					break
				}
				if w == 2 {
					t.flags |= tUpper
				}
				if c > '9' {
					t.flags &^= tDigits
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			t.flags &^= tDigits
			if unicode.ToLower(r) != r {
				t.flags |= tUpper
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
	t := sc.tok(i)
	return sc.text[t.s():t.e()]
}

// lower returns the lowercased text of token i. The result may alias
// the scanner's scratch buffer and is valid until the next call.
func (sc *scanner) lowerBytes(i int) []byte {
	t := sc.tok(i)
	sc.buf = appendLower(sc.buf[:0], sc.text[t.s():t.e()])
	return sc.buf
}

// lookup finds token i in m without allocating.
func lookup[V any](sc *scanner, m map[string]V, i int) (V, bool) {
	t := sc.tok(i)
	if !t.upper() {
		v, ok := m[sc.text[t.s():t.e()]]
		return v, ok
	}
	b := sc.lowerBytes(i)
	v, ok := m[string(b)]
	return v, ok
}

// is reports whether token i equals the lowercase ASCII word w, ignoring case.
func (sc *scanner) is(i int, w string) bool {
	if i < 0 || !sc.has(i) {
		return false
	}
	t := sc.tok(i)
	// A token of letters and digits equals a lowercase ASCII word,
	// ignoring case, only if it is ASCII and of the same length: the
	// byte compare of asciiEqualFold is then exact.
	return t.e()-t.s() == len(w) && asciiEqualFold(sc.text[t.s():t.e()], w)
}

// isAny reports whether token i is one of the lowercase ASCII words ws.
func (sc *scanner) isAny(i int, ws ...string) bool {
	// The token is read once; most words differ from it in length.
	if i < 0 || !sc.has(i) {
		return false
	}
	t := sc.tok(i)
	s := sc.text[t.s():t.e()]
	for _, w := range ws {
		if len(s) == len(w) && asciiEqualFold(s, w) {
			return true
		}
	}
	return false
}

// firstUpper reports whether token i starts with an uppercase letter.
func (sc *scanner) firstUpper(i int) bool {
	t := sc.tok(i)
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
	if !sc.has(i + 1) {
		return false
	}
	g := sc.text[sc.tok(i).e():sc.tok(i+1).s()]
	if len(g) == 0 || len(g) > 4 {
		return false
	}
	dots, dashes, breaks := 0, 0, 0
	for j := 0; j < len(g); j++ {
		switch g[j] {
		case ' ', '\t', '\r':
		case '\n':
			// A name broken by one line or caption-cue break ("first" | "corinthians").
			breaks++
		case '.':
			dots++
		case '-':
			dashes++
		default:
			return false
		}
	}
	if breaks > 0 {
		return breaks == 1 && dots == 0 && dashes == 0
	}
	return len(g) <= 3 && dots <= 1 && dashes <= 1 && !(dots == 1 && dashes == 1)
}

// gapInfo describes the bytes between two tokens inside a reference.
type gapInfo struct {
	ok, colon, dash, comma, period bool
}

// refGap inspects the separator between tokens i and i+1 of a reference.
func (sc *scanner) refGap(i int) gapInfo {
	if !sc.has(i + 1) {
		return gapInfo{}
	}
	g := sc.text[sc.tok(i).e():sc.tok(i+1).s()]
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
	s := sc.tok(i).s()
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

// afterSentenceEnd reports whether token i opens the text or follows a sentence's final
// punctuation (".", "!", "?"); unlike sentenceStart, a line break is not enough, as caption
// lines break anywhere.
func (sc *scanner) afterSentenceEnd(i int) bool {
	for j := sc.tok(i).s() - 1; j >= 0; j-- {
		switch sc.text[j] {
		case ' ', '\t', '\n', '\r', '"', '\'', '(', '[':
			continue
		case '.', '!', '?':
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
