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
	clsDone   = 1 << 7 // hashed and classed before the flags are set
)

func (t token) s() int       { return int(t.start) }
func (t token) e() int       { return int(t.end) }
func (t token) upper() bool  { return t.flags&tUpper != 0 }
func (t token) digits() bool { return t.flags&tDigits != 0 }

// winSize is the number of tokens the scanner keeps at a time. The
// matcher looks a few tokens back and a bounded number ahead, so the
// window never holds the tokens of the whole text; it grows only if a
// single look-ahead needs more. Its 512 tokens (12 KB) stay in the
// first-level cache, and the scanner and the matcher take turns half as
// often as with 256.
const winSize = 512

// scanner tokenizes one text lazily, keeping a window of tokens around
// the matcher's position, and holds scratch space for lookups.
type scanner struct {
	text string
	d    *dict
	pos  int     // byte offset where tokenizing continues
	base int     // index of toks[0] in the text's token sequence
	keep int     // the first token index the matcher may still read
	toks []token // tokens base … base+len(toks)-1
	// marks has bit j set when toks[j] has a flag of tried (the words
	// the matcher tries), and no bit from len(toks) on.
	marks []uint64
	// cues has bit j set when toks[j], among the tokens the latest scan
	// added, may be a word personScan reads after (dict.cueMask).
	cues []uint64
	// rares has bit j set when toks[j], among the tokens the latest
	// scan added, may be a word personScan keeps (see personScan.see).
	rares []uint64
	// bits holds a byte for each token of the window, written by scan:
	// bitTried, bitCue and bitRare, gathered from it into marks, cues and
	// rares eight tokens at a time. It has len(marks)*64 bytes.
	bits []uint8
	buf  []byte
	win  [winSize]token
	mwin [winSize / 64]uint64
	cwin [winSize / 64]uint64
	rwin [winSize / 64]uint64
	bwin [winSize]uint8
	gl   *glossaryScan // sees every word read, or nil
	ps   *personScan   // sees every word read, or nil
}

// tried are the flags of the tokens the matcher tries (see matcher.run).
const tried = tFull | tFuzzy | tNumTry

// The bits of a token's byte in scanner.bits.
const (
	bitTried = 1 << iota // a flag of tried: a bit of marks
	bitCue               // a bit of cues
	bitRare              // a bit of rares
)

func (sc *scanner) init(d *dict, text string) {
	sc.text, sc.d = text, d
	sc.toks = sc.win[:0]
	sc.marks = sc.mwin[:]
	sc.cues = sc.cwin[:]
	sc.rares = sc.rwin[:]
	sc.bits = sc.bwin[:]
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
			shiftMarks(sc.marks, drop)
		}
		if len(sc.toks) == cap(sc.toks) {
			sc.toks = append(sc.toks, token{})[:len(sc.toks)]
			for len(sc.marks)*64 < cap(sc.toks) {
				sc.marks = append(sc.marks, 0)
				sc.cues = append(sc.cues, 0)
				sc.rares = append(sc.rares, 0)
				sc.bits = append(sc.bits, make([]uint8, 64)...)
			}
		}
		sc.scan()
	}
	return true
}

// shiftMarks drops the first n bits of the bit set m, moving the others
// down.
func shiftMarks(m []uint64, n int) {
	w, b := n>>6, uint(n&63)
	for k := range m {
		var v uint64
		if k+w < len(m) {
			v = m[k+w] >> b
			if b != 0 && k+w+1 < len(m) {
				v |= m[k+w+1] << (64 - b)
			}
		}
		m[k] = v
	}
}

// nextTried returns the index in the window of the first token from
// window index k on that the matcher tries, or len(sc.toks) if none.
func (sc *scanner) nextTried(k int) int {
	for w := k >> 6; w < len(sc.marks); w++ {
		m := sc.marks[w]
		if w == k>>6 {
			m &= ^uint64(0) << (k & 63)
		}
		if m != 0 {
			return w<<6 + bits.TrailingZeros64(m)
		}
	}
	return len(sc.toks)
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

// loadFullBytes returns the first eight bytes of b, which has at least
// eight.
func loadFullBytes(b []uint8) uint64 {
	b = b[:8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// inRange returns the mask of the bytes of x, all below 0x80, that lie
// in [lo, hi].
func inRange(x uint64, lo, hi byte) uint64 {
	return (x + ones*uint64(0x80-lo)) &^ (x + ones*uint64(0x7f-hi)) & highs
}

// chunkBits returns a byte with bit k set when byte k of v is an ASCII
// letter or digit.
func chunkBits(v uint64) uint64 {
	x := v &^ highs
	w := (inRange(x|ones*0x20, 'a', 'z') | inRange(x, '0', '9')) &^ v
	// Gather the top bit of each byte into one byte.
	return w >> 7 * 0x0102040810204080 >> 56
}

// lowBytes returns a mask of the k low bytes of a uint64, 1 <= k <= 8.
func lowBytes(k int) uint64 {
	return ^uint64(0) >> ((64 - 8*k) & 63) // & 63: a plain shift, k is at least 1
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
// It works in two passes. The first finds where words start and end, 64
// bytes at a time: a bit for each byte that belongs to a word, whose
// changes are the words' bounds; the bytes of a group depend on no other
// group, so the processor overlaps their work. The second hashes and
// flags the new words, each on its own but for two flags that depend on
// the word before (carried from one word to the next).
func (sc *scanner) scan() {
	text, d, toks, marks, cues, tb := sc.text, sc.d, sc.toks, sc.marks, sc.cues, sc.bits
	n := len(text)
	first := len(toks)
	// Pass 1: the bounds. A group starts at p; carry is the word bit of
	// the byte before it; start is the start of a word that goes on past
	// the group, or -1; left continuation bytes of a rune begun before p
	// belong to a word if leftWord.
	p, carry, start := sc.pos, uint64(0), -1
	left, leftWord := 0, false
	pos := n         // where the next call goes on
	sawHigh := false // a group held a byte from 0x80
	for p < n {
		var m, high uint64
		if p+64 <= n {
			// The eight chunks written out: their shifts are constants.
			g := text[p : p+64]
			v0, v1, v2, v3 := loadFull(g), loadFull(g[8:]), loadFull(g[16:]), loadFull(g[24:])
			v4, v5, v6, v7 := loadFull(g[32:]), loadFull(g[40:]), loadFull(g[48:]), loadFull(g[56:])
			high = (v0 | v1 | v2 | v3 | v4 | v5 | v6 | v7) & highs
			m = chunkBits(v0) | chunkBits(v1)<<8 | chunkBits(v2)<<16 | chunkBits(v3)<<24 |
				chunkBits(v4)<<32 | chunkBits(v5)<<40 | chunkBits(v6)<<48 | chunkBits(v7)<<56
		} else {
			for c := 0; c < 64; c += 8 {
				v := load8(text, p+c)
				high |= v & highs
				m |= chunkBits(v) << (c & 63)
			}
		}
		if high != 0 || left > 0 {
			m, left, leftWord = runeMask(text, p, left, leftWord)
			sawHigh = true
		}
		prev := m<<1 | carry
		starts, ends := m&^prev, prev&^m
		carry = m >> 63
		if start >= 0 && ends != 0 {
			// The word begun in a group before ends in this one.
			toks = append(toks, token{start: int32(start), end: int32(p + bits.TrailingZeros64(ends))})
			ends &= ends - 1
			start = -1
		}
		if start < 0 && bits.OnesCount64(starts) <= cap(toks)-len(toks) {
			// Every word that starts in the group fits in the window: its
			// starts and ends pair in order, but for a last start whose
			// word goes on in the next group.
			for starts != 0 {
				s := p + bits.TrailingZeros64(starts)
				starts &= starts - 1
				if ends == 0 {
					start = s
					break
				}
				toks = append(toks, token{start: int32(s), end: int32(p + bits.TrailingZeros64(ends))})
				ends &= ends - 1
			}
			p += 64
			continue
		}
		for {
			if start < 0 {
				if starts == 0 {
					break
				}
				if len(toks) == cap(toks) {
					// The window is full: go on from the end of the
					// latest word (the bytes up to this start are no
					// word's).
					pos = int(toks[len(toks)-1].end)
					p = n
					break
				}
				start = p + bits.TrailingZeros64(starts)
				starts &= starts - 1
			}
			if ends == 0 {
				break // the word goes on in the next group
			}
			toks = append(toks, token{start: int32(start), end: int32(p + bits.TrailingZeros64(ends))})
			ends &= ends - 1
			start = -1
		}
		p += 64
	}
	if start >= 0 {
		// The text ends with a word whose end fell on a group's end.
		toks = append(toks, token{start: int32(start), end: int32(n)})
	}
	sc.pos = pos
	// A word with a rune from 0x80 is read rune by rune here, and so is a
	// word whose chunks would be loaded past the text's end, so that the
	// loop below reads each word's first chunk as is and calls nothing but
	// wordRest for a longer word; clsDone marks them.
	if sawHigh {
		for k := first; k < len(toks); k++ {
			if t := &toks[k]; hasHigh(text[t.start:t.end]) {
				h, c := runeWord(text, int(t.start), int(t.end))
				t.h, t.flags = h, c|clsDone
			}
		}
	}
	for k := len(toks) - 1; k >= first && int(toks[k].end)+8 > n; k-- {
		if t := &toks[k]; t.flags&clsDone == 0 {
			h, c := runeWord(text, int(t.start), int(t.end))
			t.h, t.flags = h, c|clsDone
		}
	}
	// Pass 2: hash and flag the new words. A word of ASCII letters and
	// digits is read in chunks of eight bytes from its start (as keyHash
	// reads it).
	//
	// Flag the words the matcher tries, without branches: whether a word
	// is one is not predictable. A word that is no dictionary key is
	// tried as a misheard place name when it has six to 24 letters and
	// its shape is that of a key or a fuzzy target, or, after a place
	// cue, five letters or the shape of a lost last sound or of a rarer
	// place (see dict.scanShapes).
	//
	// cue is 1 when the previous word may be a place cue (dict.placeCues);
	// numTry is 1 when a number after it is tried as a reference: the
	// previous word may be a misspelled book (see matcher.run), or there
	// is none in the window and the matcher reads it itself.
	cue, numTry := uint8(0), uint8(1)
	if first > 0 {
		p := &toks[first-1]
		cue = d.placeCueBit(p.h)
		numTry = b2u(p.flags&tDigits == 0 && p.end-p.start >= 5)
	}
	if first < len(toks) {
		cues[first>>6] &^= ^uint64(0) << (first & 63)
		clear(cues[first>>6+1:])
	}
	tk := tb[:len(toks)] // as long as toks: tk[k] needs no check
	for k := first; k < len(toks); k++ {
		t := &toks[k]
		start, size := int(t.start), int(t.end-t.start)
		// cls gathers a bit for each class of byte the word holds, in
		// the place of its flag: tUpper, tMulti, clsLetter, clsDigit.
		var h uint64
		var c, first, last uint8
		if t.flags&clsDone != 0 {
			h, c = t.h, t.flags
			first, last = text[start], text[t.end-1]
		} else {
			// The first chunk, which is the whole word for most words,
			// is read here; the rest of a longer word out of line.
			v := loadFull(text[start : start+8])
			first, last = byte(v), byte(v>>((8*size-8)&63))
			keep := lowBytes(min(size, 8))
			v &= keep // the word's bytes only: zeros are no letters or digits
			x := v &^ highs
			letter := inRange(x|ones*0x20, 'a', 'z')
			digit := inRange(x, '0', '9')
			// Letters without 0x20 are uppercase.
			cls := (letter&^(v<<2))>>7 | letter>>1 | digit>>2
			h = mixWord(0, v|ones*0x20&keep)
			if size > 8 {
				h, cls = wordRest(text, start, int(t.end), h, cls)
				last = text[t.end-1]
			}
			cls |= cls >> 32
			cls |= cls >> 16
			c = uint8(cls | cls>>8)
		}
		h = wordKey(h, size)
		full := d.keyBit(h) | c>>4&1 // tMulti: looked up in the maps
		num := c>>6&1 ^ 1            // no letter
		sh := d.scanShape((min(size, 31)*27+int(d.letterIndexes[first]))*27 + int(d.letterIndexes[last]))
		fuzzy := (sh | sh>>1&cue) & 1 &^ (c >> 5)
		f := c&(tUpper|tMulti) | full*tFull | fuzzy&^full*tFuzzy | num*(tDigits|numTry*tNumTry)
		t.flags = f
		t.h = h
		// A word personScan keeps has five to 20 bytes, or four of a
		// shape of few English words (see dict.scanShapes), and is no
		// key, no number and no word of runes from 0x80.
		rare := sh >> 2 & b2u(f&(tFull|tDigits|tMulti) == 0)
		tk[k] = b2u(f&tried != 0) | d.cueMask[h>>56] | rare<<2
		cue = d.placeCueBit(h)
		numTry = (num ^ 1) & b2u(size >= 5)
	}
	// Gather the bits of the new words into the bit sets, eight words at
	// a time: a byte's low bit to bit k of eight, by one multiplication.
	rares := sc.rares
	for w := first >> 6; w<<6 < len(toks); w++ {
		lo, hi := max(first-w<<6, 0), min(len(toks)-w<<6, 64)
		keep := ^uint64(0) << lo &^ (^uint64(0) << hi) // hi = 64: a shift by 64 is 0
		block := tb[w<<6 : w<<6+64 : w<<6+64]
		var mk, cu, rare uint64
		for g := lo &^ 7; g < hi; g += 8 {
			v := loadFullBytes(block[g : g+8])
			mk |= (v & ones) * 0x0102040810204080 >> 56 << g
			cu |= (v >> 1 & ones) * 0x0102040810204080 >> 56 << g
			rare |= (v >> 2 & ones) * 0x0102040810204080 >> 56 << g
		}
		marks[w] |= mk & keep
		cues[w] |= cu & keep
		rares[w] = rare & keep
	}
	if sc.gl != nil {
		sc.gl.see(toks[first:])
	}
	if sc.ps != nil {
		sc.ps.see(toks, first, cues, rares)
	}
	sc.toks = toks
}

// wordRest goes on hashing and classing (see scan) the ASCII word
// text[start:end] of more than eight bytes from its second chunk, given
// h and cls of its first; text holds eight bytes from each chunk.
//
//go:noinline
func wordRest(text string, start, end int, h, cls uint64) (uint64, uint64) {
	for i := start + 8; i < end; i += 8 {
		keep := lowBytes(min(end-i, 8))
		v := loadFull(text[i:]) & keep
		x := v &^ highs
		letter := inRange(x|ones*0x20, 'a', 'z')
		digit := inRange(x, '0', '9')
		cls |= (letter&^(v<<2))>>7 | letter>>1 | digit>>2
		h = mixWord(h, v|ones*0x20&keep)
	}
	return h, cls
}

// hasHigh reports whether s holds a byte from 0x80.
func hasHigh(s string) bool {
	var or uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		or |= loadFull(s[i:])
	}
	for ; i < len(s); i++ {
		or |= uint64(s[i])
	}
	return or&highs != 0
}

// runeMask returns the word bits of the 64 bytes of text from p (bytes
// past its end are no word's), decoding the runes from 0x80: a rune that
// is a letter, digit or mark belongs to a word with all its bytes. left
// and leftWord describe a rune begun before p; the results describe one
// that goes on past the group.
func runeMask(text string, p, left int, leftWord bool) (uint64, int, bool) {
	var m uint64
	j := 0
	for ; j < left && j < 64; j++ {
		if leftWord {
			m |= 1 << j
		}
	}
	left = 0
	for j < 64 && p+j < len(text) {
		c := text[p+j]
		if c < utf8.RuneSelf {
			if wordByte(c) != 0 {
				m |= 1 << j
			}
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[p+j:])
		w := isWordRune(r)
		for q := j; q < j+size && q < 64; q++ {
			if w {
				m |= 1 << q
			}
		}
		if j+size > 64 {
			left, leftWord = j+size-64, w
		}
		j += size
	}
	return m, left, leftWord
}

// runeWord returns the hash, before wordKey, and the class bits (see
// scan) of the word text[start:end], which holds a rune from 0x80: its
// runs of ASCII letters and digits are hashed in chunks of eight bytes
// from the start of each run.
func runeWord(text string, start, end int) (uint64, uint8) {
	var h, cls uint64
	for i := start; i < end; {
		if text[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(text[i:])
			cls |= tMulti | clsLetter
			if unicode.ToLower(r) != r {
				cls |= tUpper
			}
			i += size
			continue
		}
		v := load8(text, i)
		x := v &^ highs
		letter := inRange(x|ones*0x20, 'a', 'z') &^ v
		digit := inRange(x, '0', '9') &^ v
		k := min(bits.TrailingZeros64(^(letter|digit)&highs)>>3, end-i)
		keep := lowBytes(k)
		cls |= (letter&^(v<<2)&keep)>>7 | (letter&keep)>>1 | (digit&keep)>>2
		h = mixWord(h, (v|ones*0x20)&keep)
		i += k
	}
	cls |= cls >> 32
	cls |= cls >> 16
	return h, uint8(cls | cls>>8)
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
	// The token is read in place: has has filled the window.
	t := &sc.toks[i-sc.base]
	s, e := int(t.start), int(t.end)
	// A token of letters and digits equals a lowercase ASCII word,
	// ignoring case, only if it is ASCII and of the same length: the
	// byte compare of asciiEqualFold is then exact. Comparing the first
	// letters too makes the first test fail for most words, which the
	// processor then predicts.
	return e-s == len(w) && sc.text[s]|0x20 == w[0] && asciiEqualFold(sc.text[s:e], w)
}

// isAny reports whether token i is one of the lowercase ASCII words ws.
func (sc *scanner) isAny(i int, ws ...string) bool {
	// The token is read once.
	if i < 0 || !sc.has(i) {
		return false
	}
	t := &sc.toks[i-sc.base] // has has filled the window
	s := sc.text[t.start:t.end]
	// The length and the first letter, compared at once, differ for
	// most words (see is).
	key := len(s)<<8 | int(s[0]|0x20)
	for _, w := range ws {
		if len(w)<<8|int(w[0]) == key && asciiEqualFold(s, w) {
			return true
		}
	}
	return false
}

// firstUpper reports whether token i starts with an uppercase letter.
func (sc *scanner) firstUpper(i int) bool {
	t := sc.tok(i)
	if c := sc.text[t.s()]; c < utf8.RuneSelf {
		return 'A' <= c && c <= 'Z' // most words: no rune to decode
	}
	r, _ := utf8.DecodeRuneInString(sc.text[t.s():t.e()])
	return unicode.IsUpper(r)
}

// allUpper reports whether the text between byte offsets s and e has
// at least two letters and no lowercase letter.
func allUpper(s string) bool {
	letters := 0
	for i := 0; i < len(s); i++ {
		// ASCII bytes are read as bytes: most names are ASCII, and most
		// end the loop at their second letter.
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return allUpperRunes(s)
		case 'a' <= c && c <= 'z':
			return false
		case 'A' <= c && c <= 'Z':
			letters++
		}
	}
	return letters >= 2
}

// allUpperRunes is allUpper for text with a rune from 0x80.
func allUpperRunes(s string) bool {
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
	// Both tokens are in the window once has has read token i+1.
	s, e := int(sc.toks[i-sc.base].end), int(sc.toks[i+1-sc.base].start)
	if e-s == 1 && sc.text[s] == ' ' {
		return true // a space: the common case
	}
	return isNameGap(sc.text[s:e])
}

// isNameGap reports whether g, the bytes between two words, parts them as
// the words of one name are parted: spaces, a hyphen, an abbreviating
// period, or one line or caption-cue break ("first" | "corinthians").
// The engine's names and a glossary's terms share the rule.
func isNameGap(g string) bool {
	if g == " " {
		return true
	}
	if len(g) == 0 || len(g) > 4 {
		return false
	}
	dots, dashes, breaks := 0, 0, 0
	for j := 0; j < len(g); j++ {
		switch g[j] {
		case ' ', '\t', '\r':
		case '\n':
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
	// Both tokens are in the window once has has read token i+1.
	s, e := int(sc.toks[i-sc.base].end), int(sc.toks[i+1-sc.base].start)
	if e-s == 1 && sc.text[s] == ' ' {
		return gapInfo{ok: true} // the common case
	}
	g := sc.text[s:e]
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
		case '.', '!', '?', ':':
			return true
		case '\n':
			// A caption's cue line may end anywhere, but not a sentence
			// with an article or a preposition: "it is a / revelation".
			return !sc.isAny(i-1, "a", "an", "the", "of", "to", "in", "on", "and", "or", "my", "your", "his", "her",
				"our", "their", "its", "this", "that", "these", "those", "is", "was", "are", "were", "be", "many", "some")
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
